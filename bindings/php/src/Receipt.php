<?php

declare(strict_types=1);

namespace IikoCloud;

use IikoCloud\Exception\IikoException;

/**
 * What {@see Webhooks::receive()} found. Answer {@see $status} at once, then
 * work on {@see $events} (or log {@see $error}).
 */
final class Receipt
{
    /**
     * @param int $status the HTTP status to answer: 200 (also for an authentic
     *                    but unreadable body), 401 for a bad token, 500 when
     *                    your expected token is empty
     * @param list<Event> $events the events; empty unless the request was authentic and readable
     * @param ?IikoException $error why there are no events: a WebhookVerificationException or a
     *                              WebhookParseException (not thrown; log it)
     */
    public function __construct(
        public readonly int $status,
        public readonly array $events,
        public readonly ?IikoException $error
    ) {
    }

    /** Whether the request was authentic and its body readable. */
    public function ok(): bool
    {
        return $this->error === null;
    }
}
