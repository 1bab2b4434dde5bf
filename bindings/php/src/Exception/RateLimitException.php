<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * HTTP 429: too many requests. Never retried by the library (iiko may block
 * an API login that keeps retrying): wait {@see getRetryAfter()} seconds.
 */
class RateLimitException extends ApiException
{
    /** `Retry-After` in seconds; null when the service sent none. */
    public function getRetryAfter(): ?int
    {
        return $this->retryAfter;
    }
}
