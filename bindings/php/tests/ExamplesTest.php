<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\TestCase;

/**
 * examples/php/quickstart.php against the emulator (the receiver has its own
 * end-to-end test).
 */
final class ExamplesTest extends TestCase
{
    /**
     * @param array<string, string> $env
     * @return array{0: int, 1: string, 2: string}
     */
    private static function quickstart(array $env): array
    {
        $script = dirname(__DIR__, 3) . '/examples/php/quickstart.php';
        $command = array_merge(Support\Php::command(), [$script]);
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, Support\Php::env($env + [
            'IIKO_APP_ID' => Emulator::APP_ID,
            'IIKO_CLIENT_SECRET' => Emulator::CLIENT_SECRET,
            'IIKO_API_KEY' => Emulator::API_KEY,
            'IIKO_BASE_URL' => Emulator::url(),
        ]));
        self::assertIsResource($process);
        $out = (string) stream_get_contents($pipes[1]);
        $err = (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        return [proc_close($process), $out, $err];
    }

    public function testQuickstartListsOrganizationsAndSetsTheWebhook(): void
    {
        $dir = self::tempDir('quickstart');
        try {
            $env = ['WEBHOOK_URL' => 'http://127.0.0.1:9/hook', 'WEBHOOK_TOKEN' => 'example-token', 'IIKO_TOKEN_DIR' => $dir];
            [$exit, $out, $err] = self::quickstart($env);
            self::assertSame(0, $exit, $err);
            self::assertStringContainsString(Emulator::ORG . " Emulator Pizza (Central)\n", $out);
            self::assertStringContainsString('webhook of ' . Emulator::SECOND_ORG . ' set to http://127.0.0.1:9/hook', $out);
            self::assertCount(1, glob($dir . '/*.json') ?: [], 'the token file');
            [$exit] = self::quickstart($env);
            self::assertSame(0, $exit);
            self::assertSame(1, Emulator::requestCount(Emulator::V2_TOKEN), 'the second run reused the token');
        } finally {
            self::removeDir($dir);
        }
    }

    /** @return array{0: int, 1: string, 2: string} */
    private static function operations(string $product): array
    {
        $command = array_merge(Support\Php::command(), [dirname(__DIR__, 3) . '/examples/php/operations.php']);
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, Support\Php::env([
            'IIKO_APP_ID' => Emulator::APP_ID,
            'IIKO_CLIENT_SECRET' => Emulator::CLIENT_SECRET,
            'IIKO_API_KEY' => Emulator::API_KEY,
            'IIKO_BASE_URL' => Emulator::url(),
            'ORG_ID' => Emulator::ORG,
            'TERMINAL_GROUP_ID' => Emulator::TERMINAL_GROUP,
            'PRODUCT_ID' => $product,
        ]));
        self::assertIsResource($process);
        $out = (string) stream_get_contents($pipes[1]);
        $err = (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        return [proc_close($process), $out, $err];
    }

    public function testOperationsExampleSyncsTheMenuAndCreatesAnOrder(): void
    {
        [$exit, $out, $err] = self::operations('91e69af5-c0e2-4057-a34b-2e98edbed03e');
        self::assertSame(0, $exit, $err);
        self::assertStringContainsString('menu revision', $out);
        self::assertMatchesRegularExpression('/^order [0-9a-f-]{36}: Success, sum 199\.8$/m', $out);
        [$exit, , $err] = self::operations('00000000-0000-4000-8000-000000000008');
        self::assertSame(1, $exit);
        self::assertStringContainsString('ProductNotFound', $err);
    }

    public function testQuickstartReportsAnErrorWithItsCorrelationId(): void
    {
        [$exit, $out, $err] = self::quickstart(['IIKO_CLIENT_SECRET' => 'wrong-secret']);
        self::assertSame(1, $exit);
        self::assertSame('', $out);
        self::assertMatchesRegularExpression('/^HTTP 401 .* \(correlationId [0-9a-f-]{36}\)$/', trim($err));
        self::assertStringNotContainsString('wrong-secret', $err);
    }
}
