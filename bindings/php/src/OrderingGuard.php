<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;
use IikoCloud\Exception\InvalidInputException;

/**
 * Skips order and reserve events that arrive after newer ones, across PHP
 * requests, processes and machines: the last applied `timestamp` per order
 * lives in a store (`sqlite:///abs/path.db` or `redis://host:port/db`, as for
 * {@see Deduplicator}) and only moves forward there. When the store fails
 * after it was opened, {@see observe()} answers {@see self::UNTRACKED}.
 */
final class OrderingGuard
{
    /** Apply the event: it is newer than anything applied (now recorded). */
    public const APPLY = 1;
    /** Skip it: a newer change of the same order or reserve was applied. */
    public const STALE = 2;
    /** Not an order or reserve event, or no id or timestamp: cannot judge. */
    public const UNTRACKED = 3;

    private ?CData $handle;
    private FFI $ffi;

    /**
     * @param string $store the store URL
     * @param ?float $ttl seconds a position is kept after its last change (default 168 h, a week;
     *                  read by the library's rule, `ordering.store_ttl`: 0 and negative values throw)
     * @throws InvalidInputException for a bad URL or ttl
     * @throws Exception\TransportException when the store cannot be reached
     */
    public function __construct(#[\SensitiveParameter] string $store, ?float $ttl = null)
    {
        $this->ffi = Library::ffi();
        $out = $this->ffi->new('iiko_ordering_guard*');
        $err = Library::errorOut($this->ffi);
        $status = (int) $this->ffi->iiko_ordering_guard_new_with_store(
            Library::cString($store, 'store'),
            $ttl === null ? Library::limitDefault('ordering.store_ttl') : Library::arg('ordering.store_ttl', $ttl),
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
            $this->ffi->iiko_ordering_guard_free($this->handle);
            $this->handle = null;
            Library::track(-1);
        }
    }

    /**
     * Decides whether to apply the event, recording it when it is newer (check
     * and record are one atomic step in the store).
     *
     * @return int one of {@see self::APPLY}, {@see self::STALE}, {@see self::UNTRACKED}
     */
    public function observe(Event $event): int
    {
        return EventHandle::with($this->ffi, $event, function (CData $events): int {
            $decision = $this->ffi->new('int32_t');
            $last = $this->ffi->new('int64_t');
            $err = Library::errorOut($this->ffi);
            $status = (int) $this->ffi->iiko_ordering_guard_observe(
                $this->handle,
                $events,
                0,
                FFI::addr($decision),
                FFI::addr($last),
                FFI::addr($err)
            );
            Library::check($this->ffi, $status, $err);
            return (int) $decision->cdata;
        });
    }
}
