<?php

declare(strict_types=1);

/*
 * The opcache.preload script of the IikoCloud package.
 *
 * Under ffi.enable=preload, the default of PHP-FPM and Apache mod_php, PHP
 * lets only code compiled by opcache.preload use FFI (the CLI is exempt), so
 * this package's classes must be compiled at start-up:
 *
 *   opcache.preload=/path/to/vendor/iikocloud/iikocloud/preload.php
 *   opcache.preload_user=www-data   ; when the master process runs as root
 *
 * (IikoCloud\Library::writePreload, or bin/iikocloud-preload, writes these
 * lines with the FFI header for ffi.preload.) A site that has a preload
 * script of its own keeps that one in opcache.preload and requires this file
 * from it. Preloaded classes are not read again until PHP-FPM (or Apache) is
 * reloaded: reload it after upgrading the package.
 */

if (!function_exists('opcache_compile_file')) {
    return; // OPcache is off: nothing can be preloaded (the package says so at run time)
}
// Compiled, not executed: PHP links the classes after the whole script, so
// the order of the files does not matter.
foreach ([__DIR__ . '/src/Api/*.php', __DIR__ . '/src/*.php', __DIR__ . '/src/Exception/*.php'] as $pattern) {
    foreach (glob($pattern) ?: [] as $file) {
        opcache_compile_file($file);
    }
}
