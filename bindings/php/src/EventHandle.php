<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;

/**
 * An {@see Event} as a native one-event handle again, for the calls that
 * read the whole event (the store-backed guards): parsed from
 * {@see Event::$json}, used, freed.
 *
 * @internal
 */
final class EventHandle
{
    /**
     * @template T
     * @param callable(CData): T $use
     * @return T
     */
    public static function with(FFI $ffi, Event $event, callable $use): mixed
    {
        $body = '[' . $event->json . ']';
        $events = $ffi->new('iiko_events*');
        $err = Library::errorOut($ffi);
        $status = (int) $ffi->iiko_webhook_parse($body, strlen($body), 0, 0, 0, FFI::addr($events), FFI::addr($err));
        Library::check($ffi, $status, $err);
        Library::track(1);
        try {
            return $use($events);
        } finally {
            $ffi->iiko_events_free($events);
            Library::track(-1);
        }
    }
}
