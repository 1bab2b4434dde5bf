<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Event;
use IikoCloud\EventField;
use IikoCloud\Library;
use IikoCloud\Exception\WebhookParseException;
use IikoCloud\Exception\WebhookVerificationException;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * The language-neutral cases of tests/vectors/webhook_vectors.json (format
 * in tests/vectors/README.md), shared with the Rust, C and Python tests.
 */
final class WebhookVectorsTest extends TestCase
{
    private const FORMAT = 'iikocloud-webhook-vectors';
    private const VERSION = 1;

    protected function setUp(): void
    {
        // No emulator needed.
    }

    private static function dir(): string
    {
        return dirname(__DIR__, 3) . '/tests/vectors';
    }

    /** @return array<string, mixed> */
    private static function vectors(): array
    {
        static $data = null;
        if ($data === null) {
            $data = json_decode((string) file_get_contents(self::dir() . '/webhook_vectors.json'), true, 512, JSON_THROW_ON_ERROR);
        }
        return $data;
    }

    /** @return array<string, array{0: array<string, mixed>}> */
    private static function cases(string $section): array
    {
        $cases = [];
        foreach (self::vectors()[$section] as $case) {
            $cases[$case['name']] = [$case];
        }
        return $cases;
    }

    /** @return array<string, array{0: array<string, mixed>}> */
    public static function verifyCases(): array
    {
        return self::cases('verify');
    }

    /** @return array<string, array{0: array<string, mixed>}> */
    public static function parseCases(): array
    {
        return self::cases('parse');
    }

    /** @return array<string, array{0: array<string, mixed>}> */
    public static function receiveCases(): array
    {
        return self::cases('receive');
    }

    public function testTheFileIsAFormatThisRunnerKnows(): void
    {
        self::assertSame(self::FORMAT, self::vectors()['format']);
        self::assertSame(self::VERSION, self::vectors()['version']);
        self::assertGreaterThan(20, count(self::vectors()['verify']));
        self::assertGreaterThan(20, count(self::vectors()['parse']));
        self::assertGreaterThan(10, count(self::vectors()['receive']));
    }

    /**
     * @dataProvider verifyCases
     * @param array<string, mixed> $case
     */
    public function testVerify(array $case): void
    {
        $header = array_key_exists('header_base64', $case)
            ? base64_decode($case['header_base64'], true)
            : $case['header'];
        try {
            Webhooks::verify($header, $case['expected_token']);
            self::assertTrue($case['valid'], 'verified, but the vector says ' . $case['error']);
        } catch (WebhookVerificationException $e) {
            self::assertFalse($case['valid'], 'refused: ' . $e->getMessage());
            self::assertSame($case['error'], $e->getReason());
            self::assertSame($case['error'] === 'empty_expected_token' ? 500 : 401, $e->getHttpStatus());
            if (strlen($case['expected_token']) >= 4) {
                self::assertStringNotContainsString($case['expected_token'], $e->getMessage());
            }
        }
    }

    /**
     * @dataProvider parseCases
     * @param array<string, mixed> $case
     */
    public function testParse(array $case): void
    {
        [$max, $depth, $single] = self::options($case);
        try {
            $events = Webhooks::parse(self::body($case), $max, $depth, $single);
        } catch (WebhookParseException $e) {
            self::assertSame($case['outcome'], $e->getReason(), $e->getMessage());
            self::assertSame(200, $e->getHttpStatus());
            return;
        }
        self::assertSame('ok', $case['outcome'], 'parsed, but the vector says ' . $case['outcome']);
        self::assertCount($case['event_count'], $events);
        foreach ($case['events'] as $i => $fields) {
            foreach ($fields as $field => $want) {
                if ($field === 'event_time_us') {
                    // PHP reads eventTime in milliseconds (timeUnixMs): event_time_utc checks it.
                    continue;
                }
                if ($field === 'local_times') {
                    foreach ($want as $expected) {
                        self::checkLocalTime($events[$i], $expected);
                    }
                    continue;
                }
                if ($field === 'unknown_event_info' && $want !== null) {
                    // The raw text is compared as JSON: PHP re-encodes what it decodes.
                    $want = json_encode(json_decode($want));
                }
                self::assertSame($want, self::field($events[$i], $field), "event $i: $field");
            }
        }
    }

    /**
     * @dataProvider receiveCases
     * @param array<string, mixed> $case
     */
    public function testReceive(array $case): void
    {
        [$max, $depth, $single] = self::options($case);
        $shapes = ['pairs' => $case['headers']];
        $names = array_map('strtolower', array_column($case['headers'], 0));
        if (count(array_unique($names)) === count($names)) {
            $shapes['name => value'] = array_column($case['headers'], 1, 0);
            $shapes['name => [value]'] = array_map(fn ($v) => [$v], array_column($case['headers'], 1, 0));
        }
        foreach ($shapes as $shape => $headers) {
            $receipt = Webhooks::receive($headers, self::body($case), $case['expected_token'], $max, $depth, $single);
            self::assertSame($case['status'], $receipt->status, $shape);
            [$outcome, $reason] = array_pad(explode(':', $case['outcome'], 2), 2, null);
            if ($outcome === 'ok') {
                self::assertTrue($receipt->ok(), $shape . ': ' . $receipt->error?->getMessage());
                if (isset($case['event_count'])) {
                    self::assertCount($case['event_count'], $receipt->events, $shape);
                }
                continue;
            }
            self::assertSame([], $receipt->events, $shape);
            $class = $outcome === 'unauthorized' ? WebhookVerificationException::class : WebhookParseException::class;
            self::assertInstanceOf($class, $receipt->error, $shape);
            self::assertSame($reason, $receipt->error->getReason(), $shape);
        }
    }

    /**
     * The parse options of a case: maxBodyBytes, maxDepth, acceptSingleObject.
     *
     * @param array<string, mixed> $case
     * @return array{0: ?int, 1: ?int, 2: bool}
     */
    private static function options(array $case): array
    {
        $options = $case['options'] ?? [];
        return [$options['max_body_bytes'] ?? null, $options['max_depth'] ?? null, $options['accept_single_object'] ?? true];
    }

    /** @param array<string, mixed> $case */
    private static function body(array $case): string
    {
        if (array_key_exists('body_file', $case)) {
            return (string) file_get_contents(self::dir() . '/' . $case['body_file']);
        }
        if (array_key_exists('body_base64', $case)) {
            return (string) base64_decode($case['body_base64'], true);
        }
        return $case['body'];
    }

    /**
     * One expected local time: the field's text by its path, and the time
     * Event::localTime() reads from it (microseconds).
     *
     * @param array<string, mixed> $expected
     */
    private static function checkLocalTime(Event $event, array $expected): void
    {
        $field = (int) Library::ffi()->iiko_event_field_by_path($expected['path']);
        self::assertGreaterThan(0, $field, $expected['path']);
        self::assertSame($expected['text'], $event->field($field), $expected['path']);
        $time = $event->localTime($field);
        self::assertSame($expected['local_us'], $time?->format('Y-m-d\TH:i:s.u'), (string) $expected['text']);
        if ($expected['text'] !== null) {
            self::assertSame($expected['local_us'], Event::parseLocalTime($expected['text'])?->format('Y-m-d\TH:i:s.u'));
        }
    }

    /** The value of a vector field, read from the event as a user would. */
    private static function field(Event $event, string $field): mixed
    {
        switch ($field) {
            case 'kind':
                return $event->kind();
            case 'kind_code':
                return $event->type;
            case 'event_type':
                return $event->typeName;
            case 'event_time':
                return $event->time;
            case 'event_time_utc':
                return $event->dateTime()?->format('Y-m-d\TH:i:s.v\Z');
            case 'organization_id':
                return $event->organizationId;
            case 'correlation_id':
                return $event->correlationId;
            case 'invalid':
                return !$event->isValid();
            case 'entity_id':
                return $event->entityId;
            case 'order_id':
                return $event->orderId;
            case 'timestamp':
                return $event->timestamp;
            case 'creation_status':
                return $event->creationStatus;
            case 'status':
                return $event->status;
            case 'order_number':
                return $event->orderNumber;
            case 'sum':
                return $event->sum;
            case 'sum_text':
                return $event->field(EventField::ORDER_SUM);
            case 'phone':
                return $event->phone;
            case 'error_code':
                return $event->errorCode;
            case 'error_message':
                return $event->errorMessage;
            case 'is_new_order':
                return $event->isNewDeliveryOrder;
            case 'dedup_key':
                return $event->dedupKey;
            case 'item_count':
                $order = self::order($event);
                $items = $order['items'] ?? null;
                return $order === null ? null : (is_array($items) && array_is_list($items) ? count($items) : 0);
            case 'customer_name':
                // A reserve's customer is on the reserve, also for a banquet with an order.
                $info = $event->eventInfo() ?? [];
                $holder = is_array($info['reserve'] ?? null) ? $info['reserve'] : (self::order($event) ?? []);
                $name = is_array($holder['customer'] ?? null) ? ($holder['customer']['name'] ?? null) : null;
                return is_string($name) ? $name : null;
            case 'unknown_event_info':
                // The library keeps the event's raw JSON; compare the decoded eventInfo.
                $info = $event->toArray()['eventInfo'] ?? null;
                return $info === null ? null : json_encode($info);
        }
        self::fail("vector field $field is unknown to this runner");
    }

    /**
     * The order of an event: eventInfo.order, or a banquet's reserve.order.
     *
     * @return ?array<string, mixed>
     */
    private static function order(Event $event): ?array
    {
        $info = $event->eventInfo() ?? [];
        if (is_array($info['order'] ?? null)) {
            return $info['order'];
        }
        $reserve = $info['reserve'] ?? null;
        return is_array($reserve) && is_array($reserve['order'] ?? null) ? $reserve['order'] : null;
    }
}
