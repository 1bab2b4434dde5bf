<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;

/**
 * One event handed out by {@see Inbox::take()}: acknowledge it with
 * {@see Inbox::ack()} once handled, or hand it back with
 * {@see Inbox::release()}. Not acknowledged within the visibility timeout, it
 * is handed out again.
 */
final class Delivery
{
    /** The inbox's id of the event (a row number or a Redis stream id). */
    public readonly string $id;
    /** Which delivery of the event this is, from 1. */
    public readonly int $attempt;
    /** The event's de-duplication key ({@see Event::$dedupKey}). */
    public readonly string $key;
    /** The event as received: one JSON object of the posted array. */
    public readonly string $eventJson;
    /** When the receiver stored it, in milliseconds since the epoch. */
    public readonly int $receivedAtMs;

    private ?CData $handle;

    /** @internal built by Inbox::take() from a live iiko_delivery* */
    public function __construct(private FFI $ffi, CData $handle)
    {
        $this->handle = $handle;
        Library::track(1);
        $this->id = (string) $ffi->iiko_delivery_id($handle);
        $this->attempt = (int) $ffi->iiko_delivery_attempt($handle);
        $this->key = (string) $ffi->iiko_delivery_key($handle);
        $this->eventJson = (string) $ffi->iiko_delivery_event_json($handle);
        $this->receivedAtMs = (int) $ffi->iiko_delivery_received_at_ms($handle);
    }

    public function __destruct()
    {
        if ($this->handle !== null) {
            $this->ffi->iiko_delivery_free($this->handle);
            $this->handle = null;
            Library::track(-1);
        }
    }

    /** The typed event, as {@see Webhooks::parseEvent()} gives it. */
    public function event(): Event
    {
        return Webhooks::parseEvent($this->eventJson);
    }

    /** @internal the C handle, for Inbox */
    public function handle(): CData
    {
        if ($this->handle === null) {
            throw new Exception\InvalidInputException('the delivery was freed', Status::INVALID_ARGUMENT);
        }
        return $this->handle;
    }

    /** @return array<string, mixed> no event body: it may hold personal data */
    public function __debugInfo(): array
    {
        return ['id' => $this->id, 'attempt' => $this->attempt, 'key' => $this->key];
    }
}
