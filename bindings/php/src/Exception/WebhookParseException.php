<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

use IikoCloud\Status;
use IikoCloud\Webhooks;

/**
 * A webhook body cannot be read as a whole (status 410 to 414): too large, not
 * UTF-8, too deep, not JSON, or not an array of events. When the request was
 * authentic, answer 200 anyway and log the body: the service would resend the
 * same bytes until it blocks the webhook.
 */
class WebhookParseException extends IikoException
{
    private const REASONS = [
        Status::WEBHOOK_BODY_TOO_LARGE => 'too_large',
        Status::WEBHOOK_BODY_NOT_UTF8 => 'invalid_utf8',
        Status::WEBHOOK_BODY_TOO_DEEP => 'too_deep',
        Status::WEBHOOK_BODY_NOT_JSON => 'invalid_json',
        Status::WEBHOOK_BODY_NOT_ARRAY => 'not_an_array',
    ];

    /** One of `too_large`, `invalid_utf8`, `too_deep`, `invalid_json`, `not_an_array`. */
    public function getReason(): string
    {
        return self::REASONS[$this->getStatus()] ?? 'invalid_json';
    }

    /**
     * The status to answer for an authentic request, by the library's receive
     * rule ({@see Webhooks::httpStatus()}): 200.
     */
    public function getHttpStatus(): int
    {
        return Webhooks::httpStatus($this->getStatus());
    }
}
