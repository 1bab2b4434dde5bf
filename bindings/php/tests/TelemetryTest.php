<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Exception\CommandFailedException;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * The library's log records in a PSR-3 logger and its spans in a callable,
 * delivered on PHP's thread after each call, against the emulator: a token
 * refused with 401 and the call sent again, a failed command, a webhook
 * request; the levels, the attributes, no secret, and a logger or callback
 * that throws leaves the call as it was.
 */
final class TelemetryTest extends TestCase
{
    private const TG = '7b668cda-784b-4938-bd54-cd2bd147a44c';
    private const HOOK_TOKEN = 'php-hook-token-91c3';

    public static function setUpBeforeClass(): void
    {
        // Debian's php-psr-log (scripts/php-test.sh installs it); Composer users get psr/log.
        if (!interface_exists(\Psr\Log\LoggerInterface::class) && is_file('/usr/share/php/Psr/Log/autoload.php')) {
            require_once '/usr/share/php/Psr/Log/autoload.php';
        }
    }

    protected function setUp(): void
    {
        if (!interface_exists(\Psr\Log\LoggerInterface::class)) {
            self::markTestSkipped('psr/log is not installed (Debian: php-psr-log)');
        }
        parent::setUp();
    }

    /** A PSR-3 logger keeping what it receives. */
    private static function logger(): \Psr\Log\AbstractLogger
    {
        return new class () extends \Psr\Log\AbstractLogger {
            /** @var list<array{string, string, array<string, mixed>}> */
            public array $records = [];

            public function log($level, $message, array $context = []): void
            {
                $this->records[] = [(string) $level, (string) $message, $context];
            }
        };
    }

    /**
     * @param list<array<string, mixed>> $spans
     * @return list<array<string, mixed>>
     */
    private static function named(array $spans, string $name): array
    {
        return array_values(array_filter($spans, static fn (array $s): bool => $s['name'] === $name));
    }

    /** @param list<mixed> $seen */
    private static function assertNoSecret(array $seen, string ...$secrets): void
    {
        $text = json_encode($seen, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
        foreach ($secrets as $secret) {
            self::assertGreaterThan(7, strlen($secret));
            self::assertStringNotContainsString($secret, $text);
        }
    }

    public function testLogRecordsAndSpansOfARefusedTokenAndAFailedCommand(): void
    {
        $logger = self::logger();
        $spans = [];
        $client = Emulator::client(logger: $logger, onSpanEnd: function (array $span) use (&$spans): void {
            $spans[] = $span;
        }, logLevel: 'debug');
        $client->organizations();
        $firstToken = $client->accessToken()->token;
        Emulator::expireTokens();
        $spans = [];
        $client->organizations();
        $secondToken = $client->accessToken()->token;

        // The call, its token fetch beneath it, delivered parents first.
        [$call] = self::named($spans, 'organizations');
        [$token] = self::named($spans, 'access_token');
        self::assertSame($call['span_id'], $token['parent_span_id']);
        self::assertSame($call['trace_id'], $token['trace_id']);
        self::assertLessThan(array_search($token, $spans, true), array_search($call, $spans, true));
        self::assertNull($call['parent_span_id']);
        self::assertSame('client', $call['kind']);
        self::assertFalse($call['error']);
        self::assertGreaterThanOrEqual($call['start_unix_ns'], $call['end_unix_ns']);
        self::assertSame(1, $call['attributes']['http.request.resend_count']);
        self::assertSame(200, $call['attributes']['http.response.status_code']);
        self::assertSame('organizations', $call['attributes']['iiko.operation']);
        self::assertSame('resend', $call['events'][0]['name']);
        self::assertSame('token_refused', $call['events'][0]['attributes']['iiko.retry.cause']);

        // The resend is a debug record, with its span and cause.
        $resends = array_values(array_filter($logger->records, static fn (array $r): bool => $r[1] === 'resend'));
        self::assertCount(1, $resends);
        self::assertSame('debug', $resends[0][0]);
        self::assertSame('token_refused', $resends[0][2]['iiko.retry.cause']);
        self::assertSame($call['span_id'], $resends[0][2]['span_id']);
        // The library's own log records too, with their target.
        $refreshes = array_values(array_filter($logger->records, static fn (array $r): bool => str_contains($r[1], '401, refreshing the token once')));
        self::assertCount(1, $refreshes);
        self::assertSame('debug', $refreshes[0][0]);
        self::assertStringStartsWith('iikocloud::', $refreshes[0][2]['target']);

        // A command that fails: the wait's span says why.
        $spans = [];
        try {
            $client->deliveries()->create([
                'organizationId' => Emulator::ORG,
                'terminalGroupId' => self::TG,
                'order' => ['phone' => '+79160000000', 'items' => [
                    ['type' => 'Product', 'productId' => '00000000-0000-4000-8000-000000000004', 'amount' => 1, 'price' => '1'],
                ]],
            ], wait: true, waitTimeout: 20.0);
            self::fail('the command fails');
        } catch (CommandFailedException $e) {
            self::assertStringContainsString('ProductNotFound', $e->getMessage());
        }
        [$wait] = self::named($spans, 'wait_command');
        self::assertTrue($wait['error']);
        self::assertSame('Error', $wait['attributes']['iiko.command.outcome']);
        self::assertSame('ProductNotFound', $wait['attributes']['iiko.command.reason']);
        self::assertSame(Emulator::ORG, $wait['attributes']['iiko.organization_id']);

        self::assertNoSecret([$spans, $logger->records], Emulator::CLIENT_SECRET, Emulator::API_KEY, $firstToken, $secondToken);
    }

    public function testTheDefaultLevelLeavesDebugOut(): void
    {
        $logger = self::logger();
        $client = Emulator::client(logger: $logger);
        $client->organizations();
        Emulator::expireTokens();
        $client->organizations();
        self::assertSame([], array_filter($logger->records, static fn (array $r): bool => $r[0] === 'debug'));
    }

    public function testAThrowingLoggerOrCallbackLeavesTheCallAsItWas(): void
    {
        $logger = new class () extends \Psr\Log\AbstractLogger {
            public int $calls = 0;

            public function log($level, $message, array $context = []): void
            {
                $this->calls++;
                throw new \RuntimeException('a logger that throws');
            }
        };
        $calls = 0;
        $client = Emulator::client(logger: $logger, logLevel: 'debug', onSpanEnd: function () use (&$calls): void {
            $calls++;
            throw new \RuntimeException('a callback that throws');
        });
        $client->organizations();
        Emulator::expireTokens();
        $answer = $client->organizations();
        self::assertNotEmpty($answer['organizations']);
        self::assertSame(4, $calls, 'two calls and two token fetches');
        // Every record was offered, though each one threw (the resend, the 401's refresh, …).
        self::assertGreaterThanOrEqual(3, $logger->calls);
    }

    public function testAWebhookRequestsSpanAndRecords(): void
    {
        $logger = self::logger();
        $spans = [];
        $body = (string) file_get_contents(dirname(__DIR__, 3) . '/tests/vectors/payloads/delivery_order_update.json');
        $receipt = Webhooks::receive(
            ['Authorization' => 'Bearer ' . self::HOOK_TOKEN],
            $body,
            self::HOOK_TOKEN,
            logger: $logger,
            onSpanEnd: function (array $span) use (&$spans): void {
                $spans[] = $span;
            }
        );
        self::assertSame(200, $receipt->status);
        [$hook] = self::named($spans, 'webhook.receive');
        self::assertSame('server', $hook['kind']);
        self::assertSame(1, $hook['attributes']['iiko.webhook.events']);
        self::assertSame('DeliveryOrderUpdate', $hook['events'][0]['attributes']['iiko.event.type']);
        self::assertSame([['info', 'webhook event']], array_map(static fn (array $r): array => [$r[0], $r[1]], $logger->records));
        // A wrong token: refused, and the token appears nowhere.
        $spans = [];
        $receipt = Webhooks::receive(['Authorization' => 'guess-' . self::HOOK_TOKEN], $body, self::HOOK_TOKEN, onSpanEnd: function (array $span) use (&$spans): void {
            $spans[] = $span;
        });
        self::assertSame(401, $receipt->status);
        self::assertSame('unauthorized:mismatch', $spans[0]['attributes']['iiko.webhook.rejection']);
        self::assertNoSecret([$spans, $logger->records], self::HOOK_TOKEN);
    }

    public function testAClientWithoutTelemetryDeliversNothing(): void
    {
        $logger = self::logger();
        $spans = [];
        $watched = Emulator::client(logger: $logger, onSpanEnd: function (array $span) use (&$spans): void {
            $spans[] = $span;
        });
        $watched->organizations();
        $count = count($spans);
        // Another client's calls are not this one's.
        Emulator::client()->organizations();
        self::assertSame($count, count($spans));
        $this->expectException(\IikoCloud\Exception\InvalidInputException::class);
        Emulator::client(logger: $logger, logLevel: 'loud');
    }
}
