<?php

declare(strict_types=1);

/*
 * PHPUnit bootstrap: the package's own autoloader (no Composer needed), the
 * test helpers, and an emulator. scripts/php-test.sh starts the emulator and
 * sets IIKO_BASE_URL; without it, one is started here from the checkout's
 * target/debug (build it with cargo build -p iikocloud-emulator).
 */

require dirname(__DIR__) . '/autoload.php';
require __DIR__ . '/Support/Emulator.php';
require __DIR__ . '/Support/TestCase.php';
require __DIR__ . '/Support/Php.php';
require __DIR__ . '/Support/Shapes.php';

if (!extension_loaded('ffi') || !in_array(strtolower((string) ini_get('ffi.enable')), ['1', 'true', 'on', 'yes', 'preload'], true)) {
    fwrite(STDERR, "the tests need PHP FFI: run them with php -d ffi.enable=1\n");
    exit(1);
}

if ((string) getenv('IIKO_BASE_URL') === '') {
    IikoCloud\Tests\Support\Emulator::startForTests(dirname(__DIR__, 3) . '/target/debug/iikocloud-emulator');
}
