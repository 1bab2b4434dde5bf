<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * A command followed to its end (`wait: true`, {@see \IikoCloud\Client::wait()})
 * did not succeed (status 5xx). {@see getCorrelationId()} is the command's.
 */
class CommandException extends IikoException
{
    private ?string $reason;

    /**
     * @param ?string $correlationId the command's correlationId
     * @param ?string $reason the service's `errorReason` of a failed command
     */
    public function __construct(string $message, int $status, ?string $correlationId = null, ?string $reason = null)
    {
        parent::__construct($message, $status, $correlationId);
        $this->reason = $reason;
    }

    /** The service's reason for a failed command (`errorReason`); null when it gave none. */
    public function getReason(): ?string
    {
        return $this->reason;
    }
}
