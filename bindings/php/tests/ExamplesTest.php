<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\TestCase;

/**
 * examples/php against the emulator: quickstart, create_order, sync_menu and
 * wait_command (the receiver has its own end-to-end test).
 */
final class ExamplesTest extends TestCase
{
    private const PIZZA = 'b1e604c4-586f-4a06-b3d0-ff67e6c542a2';

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
            self::assertSame('', $err);
            self::assertSame(
                Emulator::ORG . " Emulator Pizza (Central)\n" . Emulator::SECOND_ORG . " Emulator Sushi (North)\n"
                . 'webhook of ' . Emulator::ORG . " set to http://127.0.0.1:9/hook\n"
                . 'webhook of ' . Emulator::SECOND_ORG . " set to http://127.0.0.1:9/hook\n",
                $out
            );
            self::assertCount(1, glob($dir . '/*.json') ?: [], 'the token file');
            [$exit] = self::quickstart($env);
            self::assertSame(0, $exit);
            self::assertSame(1, Emulator::requestCount(Emulator::V2_TOKEN), 'the second run reused the token');
            $settings = Emulator::client()->webhooks()->settings(['organizationId' => Emulator::SECOND_ORG]);
            self::assertSame('example-token', $settings['authToken'] ?? null, 'the token was set too');
        } finally {
            self::removeDir($dir);
        }
    }

    /**
     * Runs examples/php/$script against the emulator's organization.
     *
     * @param array<string, string> $env
     * @return array{0: int, 1: string, 2: string}
     */
    private static function example(string $script, array $env = []): array
    {
        $command = array_merge(Support\Php::command(), [dirname(__DIR__, 3) . '/examples/php/' . $script]);
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, Support\Php::env($env + [
            'IIKO_APP_ID' => Emulator::APP_ID,
            'IIKO_CLIENT_SECRET' => Emulator::CLIENT_SECRET,
            'IIKO_API_KEY' => Emulator::API_KEY,
            'IIKO_BASE_URL' => Emulator::url(),
            'ORG_ID' => Emulator::ORG,
            'TERMINAL_GROUP_ID' => Emulator::TERMINAL_GROUP,
        ]));
        self::assertIsResource($process);
        $out = (string) stream_get_contents($pipes[1]);
        $err = (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        return [proc_close($process), $out, $err];
    }

    public function testCreateOrderTakesThePriceFromTheMenuAndWaits(): void
    {
        [$exit, $out, $err] = self::example('create_order.php', ['PRODUCT_ID' => self::PIZZA]);
        self::assertSame(0, $exit, $err);
        self::assertMatchesRegularExpression('/^order ([0-9a-f-]{36}): Success, status Unconfirmed, sum 1180\n$/', $out);
        preg_match('/order ([0-9a-f-]{36})/', $out, $m);
        $order = Emulator::client()->deliveries()->byId(['organizationId' => Emulator::ORG, 'orderIds' => [$m[1]]]);
        self::assertSame('ring twice', $order['orders'][0]['order']['comment'] ?? null);
        self::assertSame(1, Emulator::requestCount('/api/1/deliveries/create'), 'created once');

        [$exit, $out, $err] = self::example('create_order.php', ['PRODUCT_ID' => '00000000-0000-4000-8000-000000000008']);
        self::assertSame(1, $exit);
        self::assertSame('', $out);
        self::assertStringContainsString('has no price on the menu', $err);
    }

    public function testSyncMenuSavesTheMenuAndSkipsAnUnchangedRevision(): void
    {
        $dir = self::tempDir('menu');
        try {
            $file = $dir . '/menu.json';
            [$exit, $out, $err] = self::example('sync_menu.php', ['MENU_FILE' => $file]);
            self::assertSame(0, $exit, $err);
            self::assertMatchesRegularExpression('/^menu revision (\d+): \d+ groups, [1-9]\d* products, saved to ' . preg_quote($file, '/') . '$/m', $out);
            // Marked as the stop lists say.
            $stopped = [];
            foreach (Emulator::client()->api()->stopLists()->get(['organizationIds' => [Emulator::ORG]])['terminalGroupStopLists'] as $org) {
                foreach ($org['items'] as $group) {
                    foreach ($group['items'] as $item) {
                        $stopped[$item['productId']] = true;
                    }
                }
            }
            $mark = isset($stopped[self::PIZZA]) ? '  (stopped)' : '';
            self::assertMatchesRegularExpression('/^Pizza Margherita 32 cm +590' . preg_quote($mark, '/') . '$/m', $out);
            $saved = json_decode((string) file_get_contents($file), true, 512, JSON_THROW_ON_ERROR);
            self::assertIsInt($saved['revision']);
            self::assertNotEmpty($saved['products']);
            self::assertFileDoesNotExist($file . '.new');

            // The next run asks with the saved revision and keeps the copy.
            [$exit, $out, $err] = self::example('sync_menu.php', ['MENU_FILE' => $file]);
            self::assertSame(0, $exit, $err);
            self::assertSame("menu unchanged at revision {$saved['revision']}\n", $out);
            self::assertSame(2, Emulator::requestCount('/api/1/nomenclature'));
        } finally {
            self::removeDir($dir);
        }
    }

    public function testWaitCommandFollowsTwoCommandsAndReportsAFailure(): void
    {
        [$exit, $out, $err] = self::example('wait_command.php', ['PRODUCT_ID' => self::PIZZA, 'PRICE' => '590']);
        self::assertSame(0, $exit, $err);
        self::assertMatchesRegularExpression(
            '/^create: correlationId [0-9a-f-]{36}, order ([0-9a-f-]{36})\nconfirm: correlationId [0-9a-f-]{36}\norder \1: \S+\n$/',
            $out
        );
        self::assertGreaterThanOrEqual(2, Emulator::requestCount('/api/1/commands/status'));

        [$exit, $out, $err] = self::example('wait_command.php', ['PRODUCT_ID' => '00000000-0000-4000-8000-000000000004', 'PRICE' => '1']);
        self::assertSame(1, $exit, $out);
        self::assertMatchesRegularExpression('/^command [0-9a-f-]{36} failed: .*ProductNotFound/', $err);

        [$exit, , $err] = self::example('wait_command.php', ['PRODUCT_ID' => self::PIZZA, 'PRICE' => 'cheap']);
        self::assertSame(1, $exit);
        self::assertStringContainsString('PRICE must be a number', $err);
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
