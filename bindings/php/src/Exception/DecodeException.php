<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

use IikoCloud\Status;

/**
 * The service answered a success status with a body that could not be read
 * (status {@see Status::API_DECODE}): not JSON, or not of the expected shape.
 */
class DecodeException extends IikoException
{
    private int $httpStatus;
    private string $body;

    public function __construct(
        string $message,
        int $status = Status::API_DECODE,
        int $httpStatus = 0,
        ?string $correlationId = null,
        ?string $path = null,
        string $body = ''
    ) {
        parent::__construct($message, $status, $correlationId, $path);
        $this->httpStatus = $httpStatus;
        $this->body = $body;
    }

    /** The HTTP status the service answered (a 2xx). */
    public function getHttpStatus(): int
    {
        return $this->httpStatus;
    }

    /** The raw answer body. */
    public function getBody(): string
    {
        return $this->body;
    }
}
