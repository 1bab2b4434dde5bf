<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\EventField;
use IikoCloud\EventType;
use IikoCloud\Library;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\WebhookParseException;
use IikoCloud\Exception\WebhookVerificationException;
use IikoCloud\Status;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * What the vectors do not cover: the header shapes of PHP frameworks, NUL
 * bytes, limits, $_SERVER, and the Event object.
 */
final class WebhooksTest extends TestCase
{
    private const TOKEN = 'webhook-token-1234';

    protected function setUp(): void
    {
        // No emulator needed.
    }

    private static function payload(string $name): string
    {
        return (string) file_get_contents(dirname(__DIR__, 3) . '/tests/vectors/payloads/' . $name);
    }

    public function testReceiveTakesEveryHeaderShape(): void
    {
        $body = self::payload('multi_all_types.json');
        $shapes = [
            'assoc' => ['Content-Type' => 'application/json', 'Authorization' => self::TOKEN],
            'lower case' => ['authorization' => 'Bearer ' . self::TOKEN],
            'upper case' => ['AUTHORIZATION' => self::TOKEN],
            'Symfony/Laravel all()' => ['authorization' => [self::TOKEN], 'content-type' => ['application/json']],
            'PSR-7 getHeaders()' => ['Authorization' => [self::TOKEN], 'Host' => ['example.test']],
            'pairs' => [['Host', 'example.test'], ['Authorization', self::TOKEN]],
            'null values skipped' => ['X-Empty' => null, 'Authorization' => self::TOKEN],
            'scalar values' => ['Content-Length' => strlen($body), 'Authorization' => self::TOKEN],
        ];
        foreach ($shapes as $name => $headers) {
            $receipt = Webhooks::receive($headers, $body, self::TOKEN);
            self::assertSame(200, $receipt->status, $name);
            self::assertTrue($receipt->ok(), $name);
            self::assertCount(8, $receipt->events, $name);
        }
    }

    public function testReceiveRefusesRepeatedOrFoulAuthorization(): void
    {
        $cases = [
            'two values' => [['Authorization' => [self::TOKEN, self::TOKEN]], 'malformed_header', 401],
            'two names' => [['Authorization' => self::TOKEN, 'authorization' => self::TOKEN], 'malformed_header', 401],
            // C strings end at NUL; the binding must not let "token\0junk" pass as "token".
            'NUL in the value' => [['Authorization' => self::TOKEN . "\0junk"], 'malformed_header', 401],
            'NUL at the end' => [['Authorization' => self::TOKEN . "\0"], 'malformed_header', 401],
            'NUL in the name' => [["Authorization\0X" => self::TOKEN], 'missing_header', 401],
            'no headers' => [[], 'missing_header', 401],
            'wrong token' => [['Authorization' => 'guess'], 'mismatch', 401],
        ];
        foreach ($cases as $name => [$headers, $reason, $status]) {
            $receipt = Webhooks::receive($headers, '[]', self::TOKEN);
            self::assertSame($status, $receipt->status, $name);
            self::assertInstanceOf(WebhookVerificationException::class, $receipt->error, $name);
            self::assertSame($reason, $receipt->error->getReason(), $name);
            self::assertStringNotContainsString(self::TOKEN, $receipt->error->getMessage(), $name);
            self::assertSame([], $receipt->events, $name);
        }
        $empty = Webhooks::receive(['Authorization' => self::TOKEN], '[]', '');
        self::assertSame(500, $empty->status);
        self::assertSame('empty_expected_token', $empty->error?->getReason());
    }

    public function testReceiveAnswers200ForAnAuthenticButUnreadableBody(): void
    {
        $receipt = Webhooks::receive(['Authorization' => self::TOKEN], 'not json', self::TOKEN);
        self::assertSame(200, $receipt->status);
        self::assertFalse($receipt->ok());
        self::assertInstanceOf(WebhookParseException::class, $receipt->error);
        self::assertSame('invalid_json', $receipt->error->getReason());
        self::assertSame(Status::WEBHOOK_BODY_NOT_JSON, $receipt->error->getStatus());
    }

    public function testUnusableArgumentsThrow(): void
    {
        $cases = [
            'a pair of three' => fn () => Webhooks::receive([['Authorization', 'a', 'b']], '[]', self::TOKEN),
            'a pair with an int name' => fn () => Webhooks::receive([[1, 'a']], '[]', self::TOKEN),
            'an object value' => fn () => Webhooks::receive(['Authorization' => new \stdClass()], '[]', self::TOKEN),
            'NUL in the expected token (receive)' => fn () => Webhooks::receive([], '[]', "tok\0en"),
            'NUL in the expected token (verify)' => fn () => Webhooks::verify('tok', "tok\0en"),
            'zero maxBodyBytes' => fn () => Webhooks::parse('[]', 0),
            'zero maxDepth' => fn () => Webhooks::parse('[]', null, 0),
        ];
        foreach ($cases as $name => $call) {
            try {
                $call();
                self::fail("$name: nothing thrown");
            } catch (InvalidInputException $e) {
                self::assertSame(Status::GROUP_ARGUMENTS, Status::group($e->getStatus()), $name);
            }
        }
    }

    public function testVerifyAcceptsRawBytesAndThrowsPerCause(): void
    {
        Webhooks::verify(self::TOKEN, self::TOKEN);
        Webhooks::verify('Bearer ' . self::TOKEN, self::TOKEN);
        $cases = [
            'missing_header' => null,
            'malformed_header' => self::TOKEN . "\0",
            'mismatch' => self::TOKEN . 'x',
        ];
        foreach ($cases as $reason => $header) {
            try {
                Webhooks::verify($header, self::TOKEN);
                self::fail("$reason: verified");
            } catch (WebhookVerificationException $e) {
                self::assertSame($reason, $e->getReason());
                self::assertSame(401, $e->getHttpStatus());
            }
        }
    }

    public function testParseLimitsAndSingleObject(): void
    {
        $object = '{"eventType":"StopListUpdate","eventInfo":{}}';
        $events = Webhooks::parse($object);
        self::assertCount(1, $events);
        self::assertSame(EventType::STOP_LIST_UPDATE, $events[0]->type);
        $this->assertParseFails('not_an_array', fn () => Webhooks::parse($object, acceptSingleObject: false));
        $this->assertParseFails('too_large', fn () => Webhooks::parse('[]  ', 3));
        self::assertSame([], Webhooks::parse('[]', 2));
        $deep = str_repeat('[', 200) . str_repeat(']', 200);
        $this->assertParseFails('too_deep', fn () => Webhooks::parse($deep, null, 10000));
        $this->assertParseFails('invalid_utf8', fn () => Webhooks::parse("[\"\xff\"]"));
        self::assertSame([], Webhooks::parse(''.'[]'));
        $this->assertParseFails('invalid_json', fn () => Webhooks::parse(''));
    }

    private function assertParseFails(string $reason, callable $call): void
    {
        try {
            $call();
            self::fail("parsed; expected $reason");
        } catch (WebhookParseException $e) {
            self::assertSame($reason, $e->getReason());
        }
    }

    public function testEventObject(): void
    {
        [$event] = Webhooks::parse(self::payload('delivery_order_update.json'));
        self::assertTrue($event->isValid());
        self::assertSame('DeliveryOrderUpdate', $event->kind());
        self::assertSame($event->typeName, $event->toArray()['eventType']);
        self::assertSame($event->orderId, $event->eventInfo()['id']);
        self::assertSame($event->timeUnixMs, (int) $event->dateTime()?->format('Uv'));
        self::assertSame('UTC', $event->dateTime()?->getTimezone()->getName());
        self::assertIsString($event->sum, 'amounts are exact decimal strings');
        self::assertNotSame('', $event->dedupKey);
        self::assertSame($event->json, trim($event->json));

        [$broken] = Webhooks::parse('[{"eventType":"DeliveryOrderUpdate","eventInfo":5}]');
        self::assertFalse($broken->isValid());
        self::assertNotNull($broken->problem);
        self::assertNull($broken->eventInfo());
    }

    public function testEventFieldReadsEveryGeneratedField(): void
    {
        [$event] = Webhooks::parse(self::payload('delivery_order_update.json'));
        self::assertSame('1780.0', $event->field(EventField::ORDER_SUM), 'as the body wrote it; $sum is the normalized "1780"');
        self::assertSame($event->phone, $event->field(EventField::ORDER_PHONE));
        self::assertSame('DeliveryOrderUpdate', $event->field(EventField::EVENT_TYPE));
        self::assertNull($event->field(EventField::RESERVE_COMMENT), 'a field of another event type');
        [$exact] = Webhooks::parse('[{"eventType":"DeliveryOrderUpdate","eventInfo":{"order":{"sum":0.30000000000000004,"isDeleted":false}}}]');
        self::assertSame('0.30000000000000004', $exact->field(EventField::ORDER_SUM), 'numbers exactly as written');
        self::assertNull($exact->field(EventField::ORDER_PHONE));
        try {
            $event->field(0);
            self::fail('field 0 was read');
        } catch (InvalidInputException $e) {
            self::assertSame(Status::INVALID_ARGUMENT, $e->getStatus());
        }

        // Every constant is the library's field of the same name and path, and none is missing.
        $ffi = Library::ffi();
        $constants = (new \ReflectionClass(EventField::class))->getConstants();
        self::assertCount((int) $ffi->iiko_event_field_count(), $constants);
        foreach ($constants as $name => $number) {
            $path = $ffi->iiko_event_field_path($number);
            self::assertIsString($path, $name);
            self::assertSame($number, $ffi->iiko_event_field_by_path($path), $name);
        }
        self::assertSame(0, Library::liveHandles(), 'field() frees what it parses');
    }

    public function testParseEventReadsAStoredEvent(): void
    {
        foreach (Webhooks::parse(self::payload('multi_all_types.json')) as $event) {
            $again = Webhooks::parseEvent($event->json);
            self::assertEquals($event, $again);
        }
        foreach (['1],[2', '1,2', '', '{', '[]]'] as $text) {
            $this->assertParseFails('invalid_json', fn () => Webhooks::parseEvent($text));
        }
        self::assertFalse(Webhooks::parseEvent('42')->isValid(), 'a value that is not an object is an unreadable event');
    }

    public function testHttpStatusForEveryCode(): void
    {
        self::assertSame(200, Webhooks::httpStatus(Status::OK));
        foreach ([Status::WEBHOOK_MISSING_AUTHORIZATION, Status::WEBHOOK_MALFORMED_AUTHORIZATION, Status::WEBHOOK_TOKEN_MISMATCH] as $code) {
            self::assertSame(401, Webhooks::httpStatus($code));
        }
        self::assertSame(500, Webhooks::httpStatus(Status::WEBHOOK_EMPTY_EXPECTED_TOKEN));
        foreach (range(Status::WEBHOOK_BODY_TOO_LARGE, Status::WEBHOOK_BODY_NOT_ARRAY) as $code) {
            self::assertSame(200, Webhooks::httpStatus($code));
        }
        self::assertSame(500, Webhooks::httpStatus(Status::PANIC));
        self::assertSame(500, Webhooks::httpStatus(PHP_INT_MAX));
    }

    public function testHeadersFromServer(): void
    {
        $headers = Webhooks::headersFromServer([
            'HTTP_AUTHORIZATION' => self::TOKEN,
            'HTTP_X_FORWARDED_FOR' => '10.0.0.1',
            'CONTENT_TYPE' => 'application/json',
            'CONTENT_LENGTH' => '2',
            'REQUEST_METHOD' => 'POST',
            'argv' => ['x'],
        ]);
        self::assertSame([
            'Authorization' => self::TOKEN,
            'X-Forwarded-For' => '10.0.0.1',
            'Content-Type' => 'application/json',
            'Content-Length' => '2',
        ], $headers);
        $apache = Webhooks::headersFromServer(['REDIRECT_HTTP_AUTHORIZATION' => self::TOKEN]);
        self::assertSame(['Authorization' => self::TOKEN], $apache);
        self::assertSame(200, Webhooks::receive($apache, '[]', self::TOKEN)->status);
    }
}
