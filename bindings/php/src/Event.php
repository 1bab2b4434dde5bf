<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;
use IikoCloud\Exception\InvalidInputException;

/**
 * One webhook event, read from the body by the C library. Every field is
 * null when the event does not carry it (or carries `null`, or a value of the
 * wrong type). Amounts are exact decimal strings, never floats.
 *
 * An event the library could not read (not an object, a known type without
 * an `eventInfo` object, a duplicated key) has {@see $problem} set and keeps
 * its raw {@see $json} and whatever envelope fields could be read; its
 * neighbours in the body are unaffected.
 */
final class Event
{
    /** An {@see EventType} code; treat a code you do not know like EventType::UNKNOWN. */
    public readonly int $type;
    /** `eventType` as sent, also for types this SDK does not model (e.g. `"KitchenOrderUpdate"`). */
    public readonly ?string $typeName;
    /** `eventTime` as sent (UTC, e.g. `"2025-09-16 16:02:11.877"`). */
    public readonly ?string $time;
    /**
     * `eventTime` as milliseconds since the Unix epoch; null when absent or no time by the SDK's
     * rule (see {@see Event::parseLocalTime()}; a trailing `Z` is also accepted; digits past the
     * millisecond are dropped, never rounded).
     */
    public readonly ?int $timeUnixMs;
    /** `organizationId`. */
    public readonly ?string $organizationId;
    /** `correlationId` of the operation that caused the event (quote it to iiko support). */
    public readonly ?string $correlationId;
    /** Why the event could not be read; null for a readable event. */
    public readonly ?string $problem;
    /** `eventInfo.id` of an order or reserve event. */
    public readonly ?string $entityId;
    /** `eventInfo.id` of a delivery or table order event (null for reserves). */
    public readonly ?string $orderId;
    /** `eventInfo.timestamp`: a version that grows with every change of the order or reserve. */
    public readonly ?int $timestamp;
    /** `eventInfo.creationStatus`: `Success`, `InProgress`, `Error` or a newer value, as sent. */
    public readonly ?string $creationStatus;
    /** `order.status` of deliveries and table orders, `reserve.status` of reserves, as sent. */
    public readonly ?string $status;
    /** The order number of a delivery, a table order or a banquet's order. */
    public readonly ?int $orderNumber;
    /**
     * The order total as an exact decimal string (`"1780"`, `"12.5"`), by the SDK's one rule of
     * an amount: the digits as written (a number, or a string holding one), no trailing fraction
     * zeros, `-0` as `"0"`. Null when the value is no amount (more than 28 digits, such as a
     * 30-digit sum, or not a number); its text stays reachable through
     * `field(EventField::ORDER_SUM)`.
     */
    public readonly ?string $sum;
    /** The customer phone of a delivery, table order or reserve. */
    public readonly ?string $phone;
    /** `errorInfo.code` of an `*Error` event (e.g. `"ProductNotFound"`). */
    public readonly ?string $errorCode;
    /** `errorInfo.message` of an `*Error` event (or the deprecated `description`). */
    public readonly ?string $errorMessage;
    /** A `DeliveryOrderUpdate` announcing a new order (status `New`, `Unconfirmed` or `WaitCooking`). */
    public readonly bool $isNewDeliveryOrder;
    /**
     * A stable key of this event, to drop repeated deliveries: the service
     * sends no event id. In PHP every request is a new process state, so keep
     * the keys in your database or cache (e.g. a unique index), not in memory.
     */
    public readonly string $dedupKey;
    /** The event's JSON exactly as it was in the body. */
    public readonly string $json;

    /**
     * @internal built by {@see Webhooks} from the `iiko_event_summary` the
     * library filled for one event (one FFI call per event, not one per field)
     */
    public function __construct(CData $summary)
    {
        $this->type = $summary->type_code;
        $this->typeName = $summary->type_name;
        $this->time = $summary->time;
        $this->organizationId = $summary->organization_id;
        $this->correlationId = $summary->correlation_id;
        $this->problem = $summary->problem;
        $this->entityId = $summary->entity_id;
        $this->orderId = $summary->order_id;
        $this->creationStatus = $summary->creation_status;
        $this->status = $summary->status;
        $this->sum = $summary->sum;
        $this->phone = $summary->phone;
        $this->errorCode = $summary->error_code;
        $this->errorMessage = $summary->error_message;
        $this->isNewDeliveryOrder = $summary->is_new_delivery_order === 1;
        $this->dedupKey = (string) $summary->dedup_key;
        $this->json = (string) $summary->json;
        $this->timeUnixMs = $summary->has_time_unix_ms === 1 ? $summary->time_unix_ms : null;
        $this->timestamp = $summary->has_timestamp === 1 ? $summary->timestamp : null;
        $this->orderNumber = $summary->has_order_number === 1 ? $summary->order_number : null;
    }

    /**
     * A documented field of the event, by its {@see EventField} constant, read by the library
     * from {@see $json}: strings as sent, numbers exactly as the body wrote them (an amount never
     * passes through a float), booleans as `"true"`/`"false"`. Null when the event does not
     * have the field (absent, `null`, or a field of another event type).
     *
     * Each call reads the event's JSON again (microseconds for an order); for the fields of
     * every event, the properties above are read once at parse time.
     *
     * @param int $field an EventField constant, e.g. `EventField::ORDER_SUM`
     * @throws InvalidInputException for a number that is no field
     */
    public function field(int $field): ?string
    {
        $ffi = Library::ffi();
        return EventHandle::with($ffi, $this, static function (CData $events) use ($ffi, $field): ?string {
            $value = $ffi->new('char*');
            $err = Library::errorOut($ffi);
            $status = (int) $ffi->iiko_events_field($events, 0, Library::int32($field), FFI::addr($value), FFI::addr($err));
            Library::check($ffi, $status, $err);
            if (FFI::isNull($value)) {
                return null;
            }
            try {
                return FFI::string($value);
            } finally {
                $ffi->iiko_string_free($value);
            }
        });
    }

    /**
     * A local-time field of the event (e.g. `EventField::ORDER_WHEN_CREATED`) read by the SDK's
     * one rule of a time; null when the event lacks it or its text is no time. See
     * {@see Event::parseLocalTime()}.
     *
     * @param int $field an EventField constant
     * @throws InvalidInputException for a number that is no field
     */
    public function localTime(int $field): ?\DateTimeImmutable
    {
        $text = $this->field($field);
        return $text === null ? null : self::parseLocalTime($text);
    }

    /**
     * A time the service writes in the terminal's time zone (`2025-09-16 19:00:04.512`), read
     * by the library (`iiko_local_time_parse`), the rule every binding uses: `yyyy-MM-dd
     * HH:mm:ss` (or with `T`), then nothing or `.` and any number of digits; a real calendar
     * date, hours 0-23, minutes and seconds 0-59, year 1 to 9999. Null for any other text.
     *
     * The result holds microseconds: further digits are dropped, never rounded. The service
     * names no time zone and PHP needs one, so the wall-clock time is labelled UTC (no
     * daylight-saving gap can move it); re-label it with
     * `new \DateTimeImmutable($t->format('Y-m-d H:i:s.u'), $terminalZone)`.
     */
    public static function parseLocalTime(string $text): ?\DateTimeImmutable
    {
        $ffi = Library::ffi();
        $t = $ffi->new('iiko_local_time');
        if ((int) $ffi->iiko_local_time_parse($text, FFI::addr($t)) !== 1) {
            return null;
        }
        $date = \DateTimeImmutable::createFromFormat(
            '!Y-m-d H:i:s.u',
            sprintf('%04d-%02d-%02d %02d:%02d:%02d.%06d', $t->year, $t->month, $t->day, $t->hour, $t->minute, $t->second, intdiv($t->nanosecond, 1000)),
            new \DateTimeZone('UTC'),
        );
        return $date === false ? null : $date;
    }

    /** Whether the event could be read ({@see $problem} is null). */
    public function isValid(): bool
    {
        return $this->problem === null;
    }

    /** The name of {@see $type}: `"DeliveryOrderUpdate"`, …, or `"Unknown"`. */
    public function kind(): string
    {
        return EventType::name($this->type);
    }

    /** `eventTime` as a UTC date; null when absent or unreadable. */
    public function dateTime(): ?\DateTimeImmutable
    {
        if ($this->timeUnixMs === null) {
            return null;
        }
        $seconds = intdiv($this->timeUnixMs, 1000);
        $millis = $this->timeUnixMs - $seconds * 1000;
        if ($millis < 0) {
            $seconds -= 1;
            $millis += 1000;
        }
        // A Unix time parses as "+00:00"; the zone is set to name it UTC.
        $date = \DateTimeImmutable::createFromFormat('U.u', sprintf('%d.%06d', $seconds, $millis * 1000));
        return $date === false ? null : $date->setTimezone(new \DateTimeZone('UTC'));
    }

    /**
     * The whole event as a PHP array (json_decode of {@see $json}). Fractional
     * numbers become floats: read amounts from {@see $sum}. Large integers stay strings.
     *
     * @return array<string, mixed>
     */
    public function toArray(): array
    {
        $data = json_decode($this->json, true, 512, JSON_BIGINT_AS_STRING);
        return is_array($data) ? $data : [];
    }

    /**
     * The raw `eventInfo` as a PHP array; null when absent or not an object.
     *
     * @return ?array<string, mixed>
     */
    public function eventInfo(): ?array
    {
        $info = $this->toArray()['eventInfo'] ?? null;
        return is_array($info) ? $info : null;
    }
}
