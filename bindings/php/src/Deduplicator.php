<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;
use IikoCloud\Exception\InvalidInputException;

/**
 * Drops repeated webhook deliveries across PHP requests, processes and
 * machines: PHP shares no memory between requests, so the keys live in a
 * store named by a URL, `sqlite:///abs/path.db` (the PHP-FPM workers of one
 * machine) or `redis://[:password@]host:port/db` (several machines). A key is
 * first seen by exactly one caller among all sharing the store, and kept
 * `$maxAge` seconds.
 *
 * When the store fails after it was opened, {@see firstSeen()} and
 * {@see firstNewOrder()} answer true (the core's rule: an event handled twice
 * rather than lost). A bad URL throws {@see InvalidInputException}, an
 * unreachable store {@see Exception\TransportException}; messages never show
 * the password.
 */
final class Deduplicator
{
    private ?CData $handle;
    private FFI $ffi;

    /**
     * @param string $store the store URL (`memory:` keeps keys in this process only)
     * @param ?float $maxAge seconds a key is remembered (default 24 h; read by the library's
     *                     rule, `dedup.max_age`: 0 and negative values throw)
     * @throws InvalidInputException for a bad URL or age
     * @throws Exception\TransportException when the store cannot be reached
     */
    public function __construct(#[\SensitiveParameter] string $store, ?float $maxAge = null)
    {
        $this->ffi = Library::ffi();
        $out = $this->ffi->new('iiko_deduplicator*');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_deduplicator_new_with_store(
            Library::cString($store, 'store'),
            $maxAge === null ? Library::limitDefault('dedup.max_age') : Library::arg('dedup.max_age', $maxAge),
            FFI::addr($out),
            FFI::addr($err)
        );
        Library::check($this->ffi, $status, $err);
        $this->handle = $out;
        Library::track(1);
    }

    public function __destruct()
    {
        if ($this->handle !== null) {
            $this->ffi->iiko_deduplicator_free($this->handle);
            $this->handle = null;
            Library::track(-1);
        }
    }

    /** True the first time any sharer sees the event (and records it), false for a repeat. */
    public function firstSeen(Event $event): bool
    {
        $first = $this->ffi->new('int32_t');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_deduplicator_first_seen_key(
            $this->handle,
            Library::cString($event->dedupKey, 'dedupKey'),
            FFI::addr($first),
            FFI::addr($err)
        );
        Library::check($this->ffi, $status, $err);
        return $first->cdata === 1;
    }

    /**
     * True exactly once per delivery order: for the first event that makes the
     * order new (the service sends both `Unconfirmed` and `WaitCooking` for one
     * order), false for its later ones and for every other event.
     */
    public function firstNewOrder(Event $event): bool
    {
        return EventHandle::with($this->ffi, $event, function (CData $events): bool {
            $first = $this->ffi->new('int32_t');
            $err = Library::errorOut($this->ffi);
            $status = (int) $this->ffi->iiko_deduplicator_first_new_order(
                $this->handle,
                $events,
                0,
                FFI::addr($first),
                FFI::addr($err)
            );
            Library::check($this->ffi, $status, $err);
            return $first->cdata === 1;
        });
    }
}
