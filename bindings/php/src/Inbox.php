<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;
use IikoCloud\Exception\InvalidInputException;

/**
 * A durable inbox for webhook events: the endpoint stores the events before
 * it answers 200, workers take them afterwards and acknowledge them, so
 * nothing answered 200 is lost (docs/inbox.md). The URL is
 * `sqlite:///abs/path.db` (the PHP-FPM workers and CLI workers of one
 * machine) or `redis://[:password@]host:port/db` (every machine); `memory:`
 * is refused, since PHP forgets it at the end of the request.
 *
 * ```php
 * // The endpoint:
 * $received = $inbox->receive($token, getallheaders(), file_get_contents('php://input'));
 * http_response_code($received->status);
 * // A worker (php worker.php, a cron job, a queue consumer):
 * while (($delivery = $inbox->take()) !== null) {
 *     handle($delivery->event());
 *     $inbox->ack($delivery);
 * }
 * ```
 *
 * A bad URL or option throws {@see InvalidInputException}, an unreachable
 * server {@see Exception\TransportException}; messages never show the
 * password.
 */
final class Inbox
{
    private ?CData $handle;
    private FFI $ffi;

    /**
     * Each option is read by the library's rule (`inbox.*` in tests/vectors/limits.json): null
     * keeps the default, 0 and negative values throw.
     *
     * @param string $url the inbox URL
     * @param ?float $visibilityTimeout seconds a taken event stays hidden before it is handed out
     *                                  again (default 30 s)
     * @param ?int $maxAttempts deliveries of one event before it goes to the dead letters (default 5)
     * @param ?float $dedupTtl seconds an event's key is remembered to drop repeats (default 24 h)
     * @throws InvalidInputException for a bad URL or option
     * @throws Exception\TransportException when the server cannot be reached
     */
    public function __construct(
        #[\SensitiveParameter] string $url,
        ?float $visibilityTimeout = null,
        ?int $maxAttempts = null,
        ?float $dedupTtl = null
    ) {
        $this->handle = null;
        $this->ffi = Library::ffi();
        // A value given is read here (a given 0 is refused); null goes to C as
        // its 0, "not given".
        $visibility = Library::arg('inbox.visibility_timeout', $visibilityTimeout);
        $attempts = Library::arg('inbox.max_attempts', $maxAttempts);
        $ttl = Library::arg('inbox.dedup_ttl', $dedupTtl);
        $out = $this->ffi->new('iiko_inbox*');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_inbox_open(
            Library::cString($url, 'url'),
            $visibility,
            $attempts,
            $ttl,
            FFI::addr($out),
            FFI::addr($err)
        );
        Library::check($this->ffi, $status, $err);
        $this->handle = $out;
        Library::track(1);
    }

    public function __destruct()
    {
        $this->close();
    }

    /** Frees the connection or file handle (the events stay). Later calls throw. */
    public function close(): void
    {
        if ($this->handle !== null) {
            $this->ffi->iiko_inbox_free($this->handle);
            $this->handle = null;
            Library::track(-1);
        }
    }

    private function live(): CData
    {
        if ($this->handle === null) {
            throw new InvalidInputException('the inbox is closed', Status::INVALID_ARGUMENT);
        }
        return $this->handle;
    }

    /**
     * Verifies the request, parses it, drops repeats, stores the new events,
     * then says what to answer. Never throws for a bad request.
     *
     * @param string $expectedToken your webhook token (the `authToken` you configured)
     * @param array<int|string, mixed> $headers the request headers, as for {@see Webhooks::receive()}
     * @param string $body the raw request body
     * @param ?string $store a store URL shared by several inboxes behind one load balancer, to drop
     *                       repeats across them
     * @throws InvalidInputException for an unusable header array, a NUL byte in the token, a bad store URL
     */
    public function receive(
        #[\SensitiveParameter] string $expectedToken,
        #[\SensitiveParameter] array $headers,
        string $body,
        #[\SensitiveParameter] ?string $store = null
    ): Received {
        $handle = $this->live();
        $keep = [];
        [$names, $values, $count] = Webhooks::headerArrays($this->ffi, $headers, $keep);
        $http = $this->ffi->new('int32_t');
        $stored = $this->ffi->new('size_t');
        $repeats = $this->ffi->new('size_t');
        $reason = $this->ffi->new('char*');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_inbox_receive(
            $handle,
            Library::cString($expectedToken, 'the expected webhook token'),
            $store === null ? null : Library::cString($store, 'store'),
            $names,
            $values,
            $count,
            $body,
            strlen($body),
            FFI::addr($http),
            FFI::addr($stored),
            FFI::addr($repeats),
            FFI::addr($reason),
            FFI::addr($err)
        );
        Library::check($this->ffi, $status, $err);
        return new Received(
            (int) $http->cdata,
            (int) $stored->cdata,
            (int) $repeats->cdata,
            Library::takeString($this->ffi, $reason)
        );
    }

    /** The next event, hidden from other consumers for the visibility timeout; null when none waits. */
    public function take(): ?Delivery
    {
        $handle = $this->live();
        $out = $this->ffi->new('iiko_delivery*');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_inbox_take($handle, FFI::addr($out), FFI::addr($err));
        Library::check($this->ffi, $status, $err);
        return FFI::isNull($out) ? null : new Delivery($this->ffi, $out);
    }

    /**
     * The event is done and removed. False when this delivery no longer holds
     * it (its visibility timeout passed and it was handed out again, or it was
     * already acknowledged).
     */
    public function ack(Delivery $delivery): bool
    {
        $acked = $this->ffi->new('int32_t');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_inbox_ack(
            $this->live(),
            $delivery->handle(),
            FFI::addr($acked),
            FFI::addr($err)
        );
        Library::check($this->ffi, $status, $err);
        return $acked->cdata === 1;
    }

    /** Hands the event back: delivered again at once, or a dead letter with $reason after maxAttempts. */
    public function release(Delivery $delivery, string $reason): void
    {
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_inbox_release(
            $this->live(),
            $delivery->handle(),
            Library::cString($reason, 'reason'),
            FFI::addr($err)
        );
        Library::check($this->ffi, $status, $err);
    }

    /**
     * Up to $limit dead letters (default 100), oldest first.
     *
     * @return list<array{id: string, key: string, body: string, attempts: int, reason: string}>
     */
    public function deadLetters(?int $limit = null): array
    {
        $limit = (int) Library::limit('inbox.dead_letters', $limit);
        $out = $this->ffi->new('char*');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_inbox_dead_letters_json($this->live(), $limit, FFI::addr($out), FFI::addr($err));
        Library::check($this->ffi, $status, $err);
        /** @var list<array{id: string, key: string, body: string, attempts: int, reason: string}> */
        return json_decode((string) Library::takeString($this->ffi, $out), true, 8, JSON_THROW_ON_ERROR);
    }

    /** @return array{pending: int, dead: int} events waiting or taken, and dead letters */
    public function counts(): array
    {
        $pending = $this->ffi->new('uint64_t');
        $dead = $this->ffi->new('uint64_t');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_inbox_counts($this->live(), FFI::addr($pending), FFI::addr($dead), FFI::addr($err));
        Library::check($this->ffi, $status, $err);
        return ['pending' => (int) $pending->cdata, 'dead' => (int) $dead->cdata];
    }

    /** @return array<string, mixed> nothing secret: the URL may hold a password */
    public function __debugInfo(): array
    {
        return ['closed' => $this->handle === null];
    }
}
