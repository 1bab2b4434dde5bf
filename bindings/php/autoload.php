<?php

declare(strict_types=1);

/*
 * A PSR-4 autoloader for the IikoCloud namespace, for projects (and the
 * repository's tests and examples) that do not use Composer. With Composer,
 * require vendor/autoload.php instead.
 */

spl_autoload_register(static function (string $class): void {
    $prefix = 'IikoCloud\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
