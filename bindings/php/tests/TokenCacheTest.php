<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\TestCase;

/**
 * tokenCacheDir: PHP processes share one token through a file, so a burst
 * of share-nothing workers makes one token request.
 */
final class TokenCacheTest extends TestCase
{
    private const PROCESSES = 8;

    public function testEightProcessesStartedTogetherMakeOneTokenRequest(): void
    {
        $base = self::tempDir('tokens');
        $dir = $base . '/cache'; // created by the library
        $start = $base . '/start';
        // A slow token answer: every process is waiting on the file lock while the first one asks.
        Emulator::fault(['kind' => 'delay', 'ms' => 500, 'path' => Emulator::V2_TOKEN]);
        try {
            $children = [];
            for ($i = 0; $i < self::PROCESSES; $i++) {
                $command = array_merge(Php::command(), [__DIR__ . '/fixtures/token_child.php', Emulator::url(), $dir, $start]);
                $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
                self::assertIsResource($process);
                $children[] = [$process, $pipes];
            }
            usleep(200000); // let them load the library and reach the barrier
            touch($start);
            $hashes = [];
            foreach ($children as [$process, $pipes]) {
                $out = (string) stream_get_contents($pipes[1]);
                $err = (string) stream_get_contents($pipes[2]);
                fclose($pipes[1]);
                fclose($pipes[2]);
                self::assertSame(0, proc_close($process), $out . $err);
                self::assertMatchesRegularExpression('/^[0-9a-f]{64} 2$/', trim($out), $err);
                $hashes[] = trim($out);
            }
            self::assertCount(1, array_unique($hashes), 'every process used the same token');
            self::assertSame(1, Emulator::requestCount(Emulator::V2_TOKEN));
            self::assertSame(self::PROCESSES, Emulator::requestCount(Emulator::ORGS));

            self::assertSame('0700', sprintf('%04o', fileperms($dir) & 0777));
            $files = glob($dir . '/*.json') ?: []; // beside each, a .lock file
            self::assertCount(1, $files, 'one file for one base URL and credential');
            self::assertSame('0600', sprintf('%04o', fileperms($files[0]) & 0777));
            $text = (string) file_get_contents($files[0]);
            self::assertStringNotContainsString(Emulator::CLIENT_SECRET, $text);
            self::assertStringNotContainsString(Emulator::API_KEY, $text);
            self::assertStringNotContainsString(Emulator::CLIENT_SECRET, basename($files[0]));
        } finally {
            self::removeDir($base);
        }
    }

    public function testARefusedTokenIsDroppedForEveryProcess(): void
    {
        $dir = self::tempDir('refused');
        try {
            $a = Emulator::client(tokenCacheDir: $dir);
            $b = Emulator::client(tokenCacheDir: $dir);
            self::assertSame($a->accessToken()->token, $b->accessToken()->token, 'b read a\'s token');
            self::assertSame(1, Emulator::requestCount(Emulator::V2_TOKEN));
            Emulator::expireTokens();
            $a->organizations();
            // b still holds the refused token: its 401 finds a's new one in the file.
            $b->organizations();
            self::assertSame(2, Emulator::requestCount(Emulator::V2_TOKEN));
            self::assertSame($a->accessToken()->token, $b->accessToken()->token);

            // A new process takes the new token from the file.
            [$exit, $out, $err] = Php::run(
                'echo count((new IikoCloud\Client(appId: "emulator-app", clientSecret: "emulator-secret", '
                . 'apiKey: "emulator-api-key", baseUrl: $argv[1], tokenCacheDir: $argv[2]))->organizations()["organizations"]);',
                [],
                [],
                true,
                [Emulator::url(), $dir]
            );
            self::assertSame(0, $exit, $err);
            self::assertSame('2', $out);
            self::assertSame(2, Emulator::requestCount(Emulator::V2_TOKEN));
        } finally {
            self::removeDir($dir);
        }
    }

    public function testOtherCredentialsNeverShareTheToken(): void
    {
        $dir = self::tempDir('creds');
        try {
            $v2 = Emulator::client(tokenCacheDir: $dir);
            $legacy = new \IikoCloud\Client(apiLogin: Emulator::API_KEY, baseUrl: Emulator::url(), tokenCacheDir: $dir);
            self::assertNotSame($v2->accessToken()->token, $legacy->accessToken()->token);
            self::assertCount(2, glob($dir . '/*.json') ?: []);
        } finally {
            self::removeDir($dir);
        }
    }
}
