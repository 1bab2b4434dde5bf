<?php

declare(strict_types=1);

namespace IikoCloud;

/**
 * The `IIKO_EVENT_*` codes of {@see Event::$type}, mirrored from the C header
 * (checked by a test). A future library may return a code this version does
 * not list: treat it like {@see self::UNKNOWN} and read {@see Event::$typeName}.
 */
final class EventType
{
    /** An event type this SDK does not model (e.g. `KitchenOrderUpdate`), or no `eventType`. */
    public const UNKNOWN = 0;
    /** A delivery order was created or changed. */
    public const DELIVERY_ORDER_UPDATE = 1;
    /** A delivery order could not be saved. */
    public const DELIVERY_ORDER_ERROR = 2;
    /** A table order changed. */
    public const TABLE_ORDER_UPDATE = 3;
    /** A table order could not be saved. */
    public const TABLE_ORDER_ERROR = 4;
    /** A reserve or banquet changed. */
    public const RESERVE_UPDATE = 5;
    /** A reserve could not be saved. */
    public const RESERVE_ERROR = 6;
    /** Stop lists changed (the event has no items: call {@see Client::stopLists()}). */
    public const STOP_LIST_UPDATE = 7;
    /** An employee opened or closed a personal shift. */
    public const PERSONAL_SHIFT = 8;

    private const NAMES = [
        self::UNKNOWN => 'Unknown',
        self::DELIVERY_ORDER_UPDATE => 'DeliveryOrderUpdate',
        self::DELIVERY_ORDER_ERROR => 'DeliveryOrderError',
        self::TABLE_ORDER_UPDATE => 'TableOrderUpdate',
        self::TABLE_ORDER_ERROR => 'TableOrderError',
        self::RESERVE_UPDATE => 'ReserveUpdate',
        self::RESERVE_ERROR => 'ReserveError',
        self::STOP_LIST_UPDATE => 'StopListUpdate',
        self::PERSONAL_SHIFT => 'PersonalShift',
    ];

    private function __construct()
    {
    }

    /**
     * The name of a code, the same as the `eventType` it stands for
     * (`"DeliveryOrderUpdate"`); `"Unknown"` for UNKNOWN and for codes this
     * version does not know.
     */
    public static function name(int $type): string
    {
        return self::NAMES[$type] ?? 'Unknown';
    }
}
