<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * The service answered with an error status (status 73xx).
 *
 * Subclasses by HTTP status: 400 {@see BadRequestException}, 401
 * {@see AuthenticationException}, 403 {@see ForbiddenException}, 404
 * {@see NotFoundException}, 408 {@see TerminalTimeoutException}, 429
 * {@see RateLimitException}, 5xx {@see ServerException}; any other status is
 * a plain ApiException.
 */
class ApiException extends IikoException
{
    private int $httpStatus;
    private ?string $errorDescription;
    private ?string $errorCode;
    private string $body;
    /** Seconds, for RateLimitException. */
    protected ?int $retryAfter;

    /**
     * @param int $status an {@see \IikoCloud\Status} code (73xx)
     * @param int $httpStatus the HTTP status answered
     * @param ?string $errorDescription `errorDescription` of the answer
     * @param ?string $errorCode `error` of the answer (a short code)
     * @param string $body the raw answer body
     * @param ?int $retryAfter `Retry-After` in seconds (429 only)
     */
    public function __construct(
        string $message,
        int $status,
        int $httpStatus,
        ?string $errorDescription = null,
        ?string $errorCode = null,
        ?string $correlationId = null,
        ?string $path = null,
        string $body = '',
        ?int $retryAfter = null
    ) {
        parent::__construct($message, $status, $correlationId, $path);
        $this->httpStatus = $httpStatus;
        $this->errorDescription = $errorDescription;
        $this->errorCode = $errorCode;
        $this->body = $body;
        $this->retryAfter = $retryAfter;
    }

    /** The HTTP status the service answered (e.g. 400). */
    public function getHttpStatus(): int
    {
        return $this->httpStatus;
    }

    /** `errorDescription` of the answer (or `message` in the newer error shape); null when absent. */
    public function getErrorDescription(): ?string
    {
        return $this->errorDescription;
    }

    /** `error`, the service's short error code (e.g. `"INVALID_TOKEN"`); null when absent. */
    public function getErrorCode(): ?string
    {
        return $this->errorCode;
    }

    /** The raw answer body ('' when there was none; invalid UTF-8 replaced by U+FFFD). */
    public function getBody(): string
    {
        return $this->body;
    }
}
