<?php

declare(strict_types=1);

namespace IikoCloud\Tests\Support;

use IikoCloud\Library;

/**
 * Every test starts from a reset emulator and must leave no native handle
 * behind (Library::liveHandles() counts those the package holds).
 */
abstract class TestCase extends \PHPUnit\Framework\TestCase
{
    protected function setUp(): void
    {
        Emulator::reset();
    }

    protected function tearDown(): void
    {
        gc_collect_cycles();
        if (!$this->hasFailed()) {
            self::assertSame(0, Library::liveHandles(), 'a native handle or string outlived the test');
        }
    }

    /** A fresh private directory under the system temp directory. */
    protected static function tempDir(string $label): string
    {
        $dir = sys_get_temp_dir() . '/iikocloud-php-' . $label . '-' . bin2hex(random_bytes(6));
        mkdir($dir, 0700);
        return $dir;
    }

    protected static function removeDir(string $dir): void
    {
        foreach (glob($dir . '/{,.}*', GLOB_BRACE) ?: [] as $file) {
            if (basename($file) !== '.' && basename($file) !== '..') {
                is_dir($file) ? self::removeDir($file) : unlink($file);
            }
        }
        @rmdir($dir);
    }
}
