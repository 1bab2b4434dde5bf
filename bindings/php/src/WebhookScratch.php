<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;

/**
 * The out-parameters {@see Webhooks} gives the library on every parse, made
 * once per library (PHP runs one request at a time in a process, and a
 * handle is copied out of them before any other call can write them).
 *
 * @internal
 */
final class WebhookScratch
{
    /** `iiko_events *[1]`: where a parse writes its handle (passed as the `iiko_events **`). */
    public readonly CData $events;
    /** `iiko_error *[1]`: where a failed call writes its error; NULL between calls. */
    public readonly CData $err;
    /** `iiko_event_summary`, its `size` set once. */
    public readonly CData $summary;
    public readonly CData $summaryAddr;

    public function __construct(public readonly FFI $ffi)
    {
        // One-element arrays: PHP passes an array where a pointer is wanted,
        // and `[0]` reads and clears the pointer (a pointer to an opaque
        // struct has no `->cdata`).
        $this->events = $ffi->new('iiko_events*[1]');
        $this->err = $ffi->new('iiko_error*[1]');
        $this->summary = $ffi->new('iiko_event_summary');
        $this->summary->size = FFI::sizeof($this->summary);
        $this->summaryAddr = FFI::addr($this->summary);
    }
}
