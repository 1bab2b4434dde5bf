<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Client;
use IikoCloud\Exception\IikoException;
use IikoCloud\Library;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * Nothing leaks: every native handle and string is freed. The resident set
 * (VmRSS) must not grow over thousands of calls after a warm-up, and the
 * package's own handle count must be back to zero. As a yardstick, 20,000
 * leaked iiko_error handles grow VmRSS by about 3.5 MB, and 2,000 leaked
 * events handles of a 19 kB body by about 90 MB.
 */
final class MemoryTest extends TestCase
{
    private const GROWTH_LIMIT_KB = 1024;

    private static function rssKb(): int
    {
        $status = @file_get_contents('/proc/self/status');
        if ($status === false || preg_match('/^VmRSS:\s+(\d+)\s+kB/m', $status, $m) !== 1) {
            self::markTestSkipped('no /proc/self/status here');
        }
        return (int) $m[1];
    }

    /** Runs $round $warmUp times, then $times times, and returns the VmRSS growth of the second part. */
    private static function growthKb(int $warmUp, int $times, callable $round): int
    {
        $live = Library::liveHandles();
        for ($i = 0; $i < $warmUp; $i++) {
            $round($i);
        }
        gc_collect_cycles();
        $before = self::rssKb();
        for ($i = 0; $i < $times; $i++) {
            $round($i);
        }
        gc_collect_cycles();
        self::assertSame($live, Library::liveHandles(), 'handles were left behind');
        return self::rssKb() - $before;
    }

    private static function payload(string $name): string
    {
        return (string) file_get_contents(dirname(__DIR__, 3) . '/tests/vectors/payloads/' . $name);
    }

    protected function setUp(): void
    {
        // Only the client test needs the emulator, and not reset.
    }

    public function testFiveThousandParses(): void
    {
        $bodies = [self::payload('delivery_order_error.json'), self::payload('stop_list_update.json')];
        $big = self::payload('multi_all_types.json');
        $count = 0;
        $growth = self::growthKb(500, 5000, function (int $i) use ($bodies, $big, &$count): void {
            // Every 50th round the 19 kB body with all eight event types.
            $events = Webhooks::parse($i % 50 === 0 ? $big : $bodies[$i % 2]);
            $count += count($events);
        });
        self::assertGreaterThan(5000, $count);
        self::assertLessThan(self::GROWTH_LIMIT_KB, $growth, "VmRSS grew by $growth kB over 5,000 parses");
    }

    public function testTwentyThousandWebhookErrors(): void
    {
        $growth = self::growthKb(1000, 20000, function (int $i): void {
            try {
                Webhooks::verify($i % 2 ? null : 'guess', 'the-token');
            } catch (IikoException $e) {
            }
            $receipt = Webhooks::receive(['Authorization' => 'the-token'], '{"not":"an array"', 'the-token');
            self::assertNotNull($receipt->error);
        });
        self::assertLessThan(self::GROWTH_LIMIT_KB, $growth, "VmRSS grew by $growth kB over 20,000 failures");
    }

    public function testClientCallsAndErrorsAndClients(): void
    {
        $client = Emulator::client();
        $growth = self::growthKb(50, 500, function (int $i) use ($client): void {
            $client->organizations();
            $client->webhookSettings(Emulator::ORG);
            try {
                $client->call('/api/1/no_such_method');
            } catch (IikoException $e) {
            }
        });
        self::assertLessThan(self::GROWTH_LIMIT_KB, $growth, "VmRSS grew by $growth kB over 1,500 calls");

        $growth = self::growthKb(20, 200, function (int $i): void {
            $own = Emulator::client();
            $own->accessToken();
            try {
                new Client(baseUrl: Emulator::url());
            } catch (IikoException $e) {
            }
        });
        self::assertLessThan(self::GROWTH_LIMIT_KB, $growth, "VmRSS grew by $growth kB over 200 clients");
        Emulator::post('/_emulator/reset-log');
    }
}
