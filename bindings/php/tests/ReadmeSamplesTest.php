<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\TestCase;

/**
 * The PHP samples of bindings/php/README.md are valid PHP, and the PHP
 * quickstart of the repository's README runs against the emulator.
 */
final class ReadmeSamplesTest extends TestCase
{
    /** @return list<string> the ```php blocks of a Markdown file */
    private static function samples(string $file): array
    {
        preg_match_all('/^```php\n(.*?)^```/ms', (string) file_get_contents($file), $m);
        return $m[1];
    }

    public function testThisReadmesSamplesAreValidPhp(): void
    {
        $samples = self::samples(dirname(__DIR__) . '/README.md');
        self::assertGreaterThanOrEqual(5, count($samples));
        $dir = self::tempDir('readme');
        try {
            foreach ($samples as $i => $sample) {
                $file = "$dir/sample$i.php";
                file_put_contents($file, $sample);
                exec(escapeshellarg(PHP_BINARY) . ' -l ' . escapeshellarg($file) . ' 2>&1', $out, $exit);
                self::assertSame(0, $exit, "sample $i:\n$sample\n" . implode("\n", $out));
                self::assertStringStartsWith("<?php\ndeclare(strict_types=1);\n", $sample, "sample $i");
            }
        } finally {
            self::removeDir($dir);
        }
    }

    public function testTheRepositoryReadmePhpQuickstartRuns(): void
    {
        $samples = self::samples(dirname(__DIR__, 3) . '/README.md');
        self::assertNotEmpty($samples, 'README.md has a PHP sample');
        $sample = $samples[0];
        $dir = self::tempDir('readme-token');
        try {
            // Pointed at the emulator and a temporary token directory; the
            // rest runs as written.
            $edits = [
                "declare(strict_types=1);\n" => "declare(strict_types=1);\nrequire "
                    . var_export(dirname(__DIR__) . '/autoload.php', true) . ";\n",
                "'apiKey' => getenv('IIKO_API_KEY'),\n" => "'apiKey' => getenv('IIKO_API_KEY'),\n"
                    . "    'baseUrl' => getenv('IIKO_BASE_URL'),\n",
                "'/var/lib/myapp/iiko-token'" => var_export($dir, true),
            ];
            foreach ($edits as $from => $to) {
                self::assertStringContainsString($from, $sample, 'the README sample changed: update this test');
                $sample = str_replace($from, $to, $sample);
            }
            file_put_contents("$dir/sample.php", $sample);
            $process = proc_open(
                array_merge(Php::command(), ["$dir/sample.php"]),
                [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
                $pipes,
                null,
                Php::env([
                    'IIKO_APP_ID' => Emulator::APP_ID,
                    'IIKO_CLIENT_SECRET' => Emulator::CLIENT_SECRET,
                    'IIKO_API_KEY' => Emulator::API_KEY,
                ])
            );
            self::assertIsResource($process);
            $out = (string) stream_get_contents($pipes[1]);
            $err = (string) stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            self::assertSame(0, proc_close($process), $err);
            self::assertSame('', $err);
            self::assertSame(Emulator::ORG . " Emulator Pizza (Central)\n" . Emulator::SECOND_ORG . " Emulator Sushi (North)\n", $out);
            self::assertCount(1, glob("$dir/*.json") ?: [], 'the sample kept its token in the file');
        } finally {
            self::removeDir($dir);
        }
    }
}
