<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\Shapes;
use IikoCloud\Tests\Support\TestCase;

/**
 * scripts/phpdoc-check.php, which scripts/php-test.sh runs on src/ and
 * examples/php: it passes there, and it does catch each kind of mistake.
 */
final class PhpDocCheckTest extends TestCase
{
    protected function setUp(): void
    {
        parent::setUp();
        if (!Shapes::available()) {
            self::markTestSkipped('needs php-phpstan-phpdoc-parser (scripts/php-test.sh installs it)');
        }
    }

    /** Debian's psr/log, which the telemetry PHPDoc names (scripts/php-test.sh installs it). */
    private const PSR_LOG = ['--autoload', '/usr/share/php/Psr/Log/autoload.php'];

    /** @return array{0: int, 1: string} exit status and output */
    private static function check(string ...$paths): array
    {
        $root = dirname(__DIR__, 3);
        $command = array_merge(Php::command(), [$root . '/scripts/phpdoc-check.php', '--autoload', $root . '/bindings/php/autoload.php'], self::PSR_LOG, $paths);
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $out = (string) stream_get_contents($pipes[1]) . (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        return [proc_close($process), $out];
    }

    public function testThePackageAndTheExamplesPass(): void
    {
        $root = dirname(__DIR__, 3);
        [$exit, $out] = self::check($root . '/bindings/php/src', $root . '/examples/php');
        self::assertSame(0, $exit, $out);
        self::assertMatchesRegularExpression('/^phpdoc-check: \d+ files, \d{3,} docblocks, \d{3,} tags with types: ok$/m', $out);
    }

    public function testEachKindOfMistakeIsReported(): void
    {
        $dir = self::tempDir('phpdoc');
        try {
            file_put_contents($dir . '/Mistakes.php', <<<'PHP'
                <?php
                namespace Fixture;

                use IikoCloud\Client as C;

                /**
                 * @psalm-type Fine = array{a: int<0, max>, b?: list<Fine2>, 'odd-key'?: C|null, ...}
                 * @psalm-type Fine2 = array{c: numeric-string, d: 'literal'|\DateTimeImmutable}
                 * @psalm-type Loop1 = array{x: Loop2}
                 * @psalm-type Loop2 = list<Loop1>
                 * @psalm-type Itself = array{again?: Itself}
                 * @psalm-type int = string
                 * @psalm-type C = string
                 * @psalm-import-type Deliveries_Request_CreateOrderRequest_In from \IikoCloud\Api\Shapes
                 * @psalm-import-type NotThere from \IikoCloud\Api\Shapes
                 * @phpstan-import-type X from NoSuchClass
                 */
                final class Mistakes
                {
                    /**
                     * @param Fine $a
                     * @param Undefined_Alias $b
                     * @param Deliveries_Request_CreateOrderRequest_In $c
                     * @return array<string, mixed the answer
                     */
                    public function f(array $a, array $b, array $c): array
                    {
                        return [];
                    }
                }

                /** @param Fine $x outside the class that defines it */
                function g(array $x): void
                {
                }
                PHP);
            [$exit, $out] = self::check($dir);
            self::assertSame(1, $exit, $out);
            $expected = [
                '/Mistakes.php:12: type alias int is named like a built-in type',
                '/Mistakes.php:13: type alias C is named like the class IikoCloud\Client',
                '/Mistakes.php:15: imports NotThere from IikoCloud\Api\Shapes, which does not define it',
                '/Mistakes.php:16: imports X from Fixture\NoSuchClass, which is not a class',
                '/Mistakes.php:22: @param: Undefined_Alias is neither a type, a type alias in scope nor a class',
                '/Mistakes.php:24: @return does not parse',
                '/Mistakes.php:32: @param: Fine is neither a type, a type alias in scope nor a class',
                'Fixture\Mistakes: type alias Loop1 refers to itself (Loop1 -> Loop2 -> Loop1)',
                'Fixture\Mistakes: type alias Itself refers to itself (Itself -> Itself)',
            ];
            foreach ($expected as $line) {
                self::assertStringContainsString($line, $out);
            }
            self::assertStringContainsString(count($expected) . ' problems', $out, 'nothing else: the valid types pass');
        } finally {
            self::removeDir($dir);
        }
    }
}
