<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Delivery;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\TransportException;
use IikoCloud\Inbox;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * IikoCloud\Inbox on real SQLite files: receive, repeats, wrong token,
 * unreadable bodies, take/ack/release, the visibility timeout, two PHP
 * processes sharing one inbox.
 */
final class InboxTest extends TestCase
{
    private const TOKEN = 'php-inbox-token';

    private string $dir;

    protected function setUp(): void
    {
        parent::setUp();
        $this->dir = self::tempDir('inbox');
    }

    protected function tearDown(): void
    {
        self::removeDir($this->dir);
        parent::tearDown();
    }

    private function url(string $name = 'inbox.db'): string
    {
        return 'sqlite://' . $this->dir . '/' . $name;
    }

    private static function vector(string $name): string
    {
        return (string) file_get_contents(dirname(__DIR__, 3) . '/tests/vectors/payloads/' . $name);
    }

    /** @return array<string, string> */
    private static function headers(string $token = self::TOKEN): array
    {
        return ['Content-Type' => 'application/json', 'Authorization' => $token];
    }

    public function testReceiveTakeAckRoundTrip(): void
    {
        $inbox = new Inbox($this->url());
        $body = self::vector('delivery_order_update.json');
        $expected = Webhooks::parse($body)[0];

        $received = $inbox->receive(self::TOKEN, self::headers(), $body);
        self::assertSame([200, 1, 0, null], [$received->status, $received->stored, $received->repeats, $received->error]);
        self::assertTrue($received->ok());
        $again = $inbox->receive(self::TOKEN, ['authorization' => ['Bearer ' . self::TOKEN]], $body);
        self::assertSame([200, 0, 1], [$again->status, $again->stored, $again->repeats]);
        self::assertSame(['pending' => 1, 'dead' => 0], $inbox->counts());

        $delivery = $inbox->take();
        self::assertInstanceOf(Delivery::class, $delivery);
        self::assertSame(1, $delivery->attempt);
        self::assertSame($expected->dedupKey, $delivery->key);
        self::assertEqualsWithDelta(time() * 1000, $delivery->receivedAtMs, 5000);
        self::assertSame(json_decode($body, true)[0], json_decode($delivery->eventJson, true));
        $event = $delivery->event();
        self::assertSame($expected->dedupKey, $event->dedupKey);
        self::assertSame('DeliveryOrderUpdate', $event->typeName);
        self::assertStringNotContainsString('eventInfo', print_r($delivery, true), 'no body in dumps');

        self::assertNull($inbox->take(), 'a taken event is hidden');
        self::assertTrue($inbox->ack($delivery));
        self::assertFalse($inbox->ack($delivery), 'a second ack is a no-op');
        self::assertSame(['pending' => 0, 'dead' => 0], $inbox->counts());
    }

    public function testWrongTokenUnreadableBodyAndDeadLetters(): void
    {
        $inbox = new Inbox($this->url(), maxAttempts: 2);
        $body = self::vector('reserve_update.json');
        $wrong = $inbox->receive(self::TOKEN, self::headers('Bearer not-it-4q'), $body);
        self::assertSame(401, $wrong->status);
        self::assertNotNull($wrong->error);
        self::assertStringNotContainsString('not-it-4q', (string) $wrong->error);
        self::assertSame(401, $inbox->receive(self::TOKEN, [], $body)->status);
        self::assertSame(500, $inbox->receive('', self::headers(''), $body)->status);

        // Authentic but unreadable: 200 (a resend brings the same bytes), kept.
        $bad = $inbox->receive(self::TOKEN, self::headers(), "{\"eventType\": \xff");
        self::assertSame(200, $bad->status);
        self::assertNotNull($bad->error);

        self::assertSame(1, $inbox->receive(self::TOKEN, self::headers(), $body)->stored);
        $first = $inbox->take();
        self::assertNotNull($first);
        $inbox->release($first, 'db down');
        $second = $inbox->take();
        self::assertNotNull($second);
        self::assertSame([2, $first->id], [$second->attempt, $second->id]);
        $inbox->release($second, 'still down');
        self::assertNull($inbox->take());
        $letters = $inbox->deadLetters();
        self::assertCount(2, $letters);
        self::assertSame('', $letters[0]['key']);
        self::assertSame($first->key, $letters[1]['key']);
        self::assertSame(2, $letters[1]['attempts']);
        self::assertStringContainsString('still down', $letters[1]['reason']);
        self::assertSame([], $inbox->deadLetters(0));
        self::assertSame(['pending' => 0, 'dead' => 2], $inbox->counts());
    }

    public function testAnUnacknowledgedDeliveryComesBack(): void
    {
        $inbox = new Inbox($this->url(), visibilityTimeout: 0.3);
        self::assertSame(1, $inbox->receive(self::TOKEN, self::headers(), self::vector('stop_list_update.json'))->stored);
        $first = $inbox->take();
        self::assertNotNull($first);
        self::assertNull($inbox->take());
        usleep(600000);
        $again = $inbox->take();
        self::assertNotNull($again);
        self::assertSame([$first->id, 2], [$again->id, $again->attempt]);
        self::assertFalse($inbox->ack($first), 'a stale delivery cannot ack');
        self::assertTrue($inbox->ack($again));
    }

    public function testTwoProcessesTakeEachEventOnce(): void
    {
        $inbox = new Inbox($this->url());
        $events = [];
        $template = json_decode(self::vector('delivery_order_update.json'), true)[0];
        for ($i = 0; $i < 40; $i++) {
            $template['eventInfo']['id'] = sprintf('00000000-0000-4000-8000-%012d', $i);
            $events[] = $template;
        }
        $body = (string) json_encode($events);
        self::assertSame(40, $inbox->receive(self::TOKEN, self::headers(), $body)->stored);
        $keys = array_map(static fn ($e) => $e->dedupKey, Webhooks::parse($body));
        $code = '$inbox = new IikoCloud\Inbox($argv[1]); $keys = [];'
            . ' while (($d = $inbox->take()) !== null) { $keys[] = $d->key; if (!$inbox->ack($d)) { exit(3); } }'
            . ' echo json_encode($keys);';
        $children = [];
        for ($i = 0; $i < 2; $i++) {
            $prelude = 'require ' . var_export(dirname(__DIR__) . '/autoload.php', true) . ';';
            $process = proc_open(
                array_merge(Php::command(), ['-r', $prelude . $code, '--', $this->url()]),
                [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
                $pipes
            );
            self::assertIsResource($process);
            $children[] = [$process, $pipes];
        }
        $taken = [];
        foreach ($children as [$process, $pipes]) {
            $out = (string) stream_get_contents($pipes[1]);
            $err = (string) stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            self::assertSame(0, proc_close($process), $out . $err);
            $taken = array_merge($taken, json_decode($out, true, 4, JSON_THROW_ON_ERROR));
        }
        sort($taken);
        sort($keys);
        self::assertSame($keys, $taken, 'every event taken exactly once');
        self::assertSame(['pending' => 0, 'dead' => 0], $inbox->counts());
    }

    public function testBadUrlsAndOptionsAreRefused(): void
    {
        try {
            new Inbox('memory:');
            self::fail('memory: was accepted');
        } catch (InvalidInputException $e) {
            self::assertStringContainsString('outlive', $e->getMessage());
        }
        try {
            new Inbox('redis://:hunter2-pw@127.0.0.1:1/0');
            self::fail('an unreachable server was accepted');
        } catch (TransportException $e) {
            self::assertStringNotContainsString('hunter2-pw', $e->getMessage());
        }
        foreach ([['sqlite://relative', 30.0, 5], [$this->url(), 30.0, 0], [$this->url(), -1.0, 5], [$this->url(), 0.0, 5], ["sqlite:///x\0y", 30.0, 5]] as [$url, $visibility, $attempts]) {
            try {
                new Inbox($url, $visibility, $attempts);
                self::fail("accepted $url $visibility $attempts");
            } catch (InvalidInputException) {
                self::addToAssertionCount(1);
            }
        }
        $inbox = new Inbox($this->url());
        try {
            $inbox->receive(self::TOKEN, [['only-a-name']], '[]');
            self::fail('a malformed header list was accepted');
        } catch (InvalidInputException) {
            self::addToAssertionCount(1);
        }
        try {
            $inbox->receive(self::TOKEN, self::headers(), '[]', 'nope://');
            self::fail('a bad store URL was accepted');
        } catch (InvalidInputException) {
            self::addToAssertionCount(1);
        }
        $inbox->close();
        $inbox->close();
        $this->expectException(InvalidInputException::class);
        $inbox->take();
    }
}
