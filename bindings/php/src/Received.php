<?php

declare(strict_types=1);

namespace IikoCloud;

/**
 * What {@see Inbox::receive()} did with a request. Answer {@see $status} at
 * once: 200 once the events are stored (or were repeats; also for an
 * authentic body that cannot be read, kept in the dead letters), 401 for a
 * wrong token, 500 for an empty expected token, 503 when the inbox could not
 * be written (the service sends the body again).
 */
final class Received
{
    /**
     * @param int $status the HTTP status to answer
     * @param int $stored events written
     * @param int $repeats events dropped as repeats
     * @param ?string $error why the request was not a plain success (never holds a secret)
     */
    public function __construct(
        public readonly int $status,
        public readonly int $stored,
        public readonly int $repeats,
        public readonly ?string $error
    ) {
    }

    /** Whether the request was authentic, readable and stored. */
    public function ok(): bool
    {
        return $this->error === null;
    }
}
