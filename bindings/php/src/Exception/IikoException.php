<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

use IikoCloud\Status;

/**
 * Root of every exception this package throws.
 *
 * The message says what failed, with a hint and, when the service sent one,
 * the `correlationId` to quote to iiko support. It never contains a secret
 * (credentials, tokens, webhook tokens). `getCode()` is the same as
 * {@see getStatus()}, an {@see Status} code.
 */
class IikoException extends \RuntimeException
{
    private int $status;
    private ?string $correlationId;
    private ?string $path;

    /**
     * @param int $status an {@see Status} code
     * @param ?string $correlationId `correlationId` of the failed answer, if any
     * @param ?string $path the endpoint path of a failed call, if any
     */
    public function __construct(
        string $message = '',
        int $status = Status::INTERNAL,
        ?string $correlationId = null,
        ?string $path = null,
        ?\Throwable $previous = null
    ) {
        parent::__construct($message, $status, $previous);
        $this->status = $status;
        $this->correlationId = $correlationId;
        $this->path = $path;
    }

    /** The {@see Status} code of the failure. */
    public function getStatus(): int
    {
        return $this->status;
    }

    /** `correlationId` of the failed answer (quote it to iiko support); null when there was none. */
    public function getCorrelationId(): ?string
    {
        return $this->correlationId;
    }

    /** The endpoint path of a failed call (e.g. `/api/1/organizations`); null otherwise. */
    public function getPath(): ?string
    {
        return $this->path;
    }
}
