<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Deduplicator;
use IikoCloud\Event;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\TransportException;
use IikoCloud\OrderingGuard;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * De-duplication, ordering and the token shared by PHP processes through a
 * real SQLite file, and across machines through the real redis-server the
 * test command starts (IIKO_TEST_REDIS_URL).
 */
final class StoresTest extends TestCase
{
    /** @return list<string> */
    private static function stores(string $dir): array
    {
        $stores = ['sqlite://' . $dir . '/shared.db'];
        $redis = getenv('IIKO_TEST_REDIS_URL');
        if (is_string($redis) && $redis !== '') {
            $stores[] = $redis;
        }
        return $stores;
    }

    private static function event(string $status, string $orderId, int $timestamp): Event
    {
        return Webhooks::parseEvent((string) json_encode([
            'eventType' => 'DeliveryOrderUpdate',
            'eventTime' => '2026-11-23 12:00:00.000',
            'organizationId' => '441e1320-3f58-4702-9f9e-aa34cdef9c04',
            'correlationId' => self::uuid(),
            'eventInfo' => [
                'id' => $orderId,
                'organizationId' => '441e1320-3f58-4702-9f9e-aa34cdef9c04',
                'timestamp' => $timestamp,
                'creationStatus' => 'Success',
                'order' => ['status' => $status, 'number' => 1, 'sum' => 1],
            ],
        ]));
    }

    private static function uuid(): string
    {
        $b = random_bytes(16);
        $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
        $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
    }

    public function testARepeatIsFirstSeenByExactlyOneProcess(): void
    {
        $dir = self::tempDir('stores');
        try {
            foreach (self::stores($dir) as $store) {
                $event = self::event('Unconfirmed', self::uuid(), 1);
                $children = [];
                for ($i = 0; $i < 4; $i++) {
                    $process = proc_open(
                        array_merge(Php::command(), [__DIR__ . '/fixtures/dedup_child.php', $store, $event->json]),
                        [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
                        $pipes
                    );
                    self::assertIsResource($process);
                    $children[] = [$process, $pipes];
                }
                $answers = [];
                foreach ($children as [$process, $pipes]) {
                    $out = (string) stream_get_contents($pipes[1]);
                    $err = (string) stream_get_contents($pipes[2]);
                    fclose($pipes[1]);
                    fclose($pipes[2]);
                    self::assertSame(0, proc_close($process), $out . $err);
                    $answers[] = $out;
                }
                sort($answers);
                self::assertSame(['0', '0', '0', '1'], $answers, $store);
            }
        } finally {
            self::removeDir($dir);
        }
    }

    public function testANewOrderIsNewOnceAndPositionsOnlyMoveForward(): void
    {
        $dir = self::tempDir('stores');
        try {
            foreach (self::stores($dir) as $store) {
                $order = self::uuid();
                $a = new Deduplicator($store);
                $b = new Deduplicator($store);
                self::assertTrue($a->firstNewOrder(self::event('Unconfirmed', $order, 1)));
                self::assertFalse($b->firstNewOrder(self::event('WaitCooking', $order, 2)));
                $g1 = new OrderingGuard($store);
                $g2 = new OrderingGuard($store, 3600.0);
                self::assertSame(OrderingGuard::APPLY, $g1->observe(self::event('WaitCooking', $order, 20)));
                self::assertSame(OrderingGuard::STALE, $g2->observe(self::event('Unconfirmed', $order, 10)));
                self::assertSame(OrderingGuard::APPLY, $g2->observe(self::event('Closed', $order, 30)));
                self::assertSame(OrderingGuard::UNTRACKED, $g1->observe(Webhooks::parseEvent('{"eventType":"StopListUpdate"}')));
            }
        } finally {
            self::removeDir($dir);
        }
    }

    public function testBadAndUnreachableStoresAreClearErrors(): void
    {
        foreach ([0.0, -1.0] as $age) {
            try {
                new Deduplicator('memory:', $age);
                self::fail("maxAge {$age} was accepted");
            } catch (InvalidInputException $e) {
                self::assertStringContainsString('dedup.max_age', $e->getMessage());
            }
        }
        try {
            new Deduplicator('sqlite://relative.db');
            self::fail('a relative path was accepted');
        } catch (InvalidInputException $e) {
            self::assertStringContainsString('absolute', $e->getMessage());
        }
        try {
            new OrderingGuard('redis://:hunter2-secret@127.0.0.1:1/0');
            self::fail('an unreachable store was accepted');
        } catch (TransportException $e) {
            self::assertStringNotContainsString('hunter2-secret', $e->getMessage());
        }
    }

    public function testClientsSharingATokenStoreMakeOneTokenRequest(): void
    {
        $dir = self::tempDir('stores');
        try {
            foreach (self::stores($dir) as $store) {
                Emulator::reset();
                Emulator::expireTokens();
                for ($i = 0; $i < 3; $i++) {
                    $client = Emulator::client(tokenStore: $store);
                    self::assertNotEmpty($client->organizations());
                }
                self::assertSame(1, Emulator::requestCount(Emulator::V2_TOKEN), $store);
            }
        } finally {
            self::removeDir($dir);
        }
    }
}
