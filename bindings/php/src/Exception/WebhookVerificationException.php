<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

use IikoCloud\Status;
use IikoCloud\Webhooks;

/**
 * A webhook request is not authentic (status 400 to 403): its Authorization
 * header is missing, malformed or holds another token, or your expected token
 * is empty. Its body was not read. Answer {@see getHttpStatus()}.
 */
class WebhookVerificationException extends IikoException
{
    private const REASONS = [
        Status::WEBHOOK_MISSING_AUTHORIZATION => 'missing_header',
        Status::WEBHOOK_EMPTY_EXPECTED_TOKEN => 'empty_expected_token',
        Status::WEBHOOK_MALFORMED_AUTHORIZATION => 'malformed_header',
        Status::WEBHOOK_TOKEN_MISMATCH => 'mismatch',
    ];

    /** One of `missing_header`, `empty_expected_token`, `malformed_header`, `mismatch`. */
    public function getReason(): string
    {
        return self::REASONS[$this->getStatus()] ?? 'malformed_header';
    }

    /**
     * The status to answer, by the library's receive rule
     * ({@see Webhooks::httpStatus()}): 401, or 500 for an empty expected token
     * (your configuration).
     */
    public function getHttpStatus(): int
    {
        return Webhooks::httpStatus($this->getStatus());
    }
}
