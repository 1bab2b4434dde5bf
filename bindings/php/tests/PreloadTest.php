<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Library;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\TestCase;

/**
 * ffi.enable=preload as a web server sees it. The CLI may always use FFI,
 * but PHP's built-in web server (SAPI cli-server) is held to the same rule
 * as PHP-FPM and mod_php, so examples/php/organizations.php under `php -S`
 * shows what a site gets from each setting. scripts/php-fpm-test.sh runs the
 * real PHP-FPM and nginx.
 */
final class PreloadTest extends TestCase
{
    /**
     * Serves examples/php/organizations.php with these ini settings and
     * returns the status and body of one request.
     *
     * @param array<string, string> $ini
     * @return array{0: int, 1: string}
     */
    private static function page(array $ini, string $tokenDir): array
    {
        $log = $tokenDir . '/server.log';
        // opcache.preload_user only counts when running as root, where it must be set.
        [$server, $port] = Php::serve(
            dirname(__DIR__, 3) . '/examples/php/organizations.php',
            // As under PHP-FPM, nothing in the environment names the library.
            [
                Library::ENV_LIBRARY => false,
                'IIKO_APP_ID' => Emulator::APP_ID,
                'IIKO_CLIENT_SECRET' => Emulator::CLIENT_SECRET,
                'IIKO_API_KEY' => Emulator::API_KEY,
                'IIKO_BASE_URL' => Emulator::url(),
                'IIKO_TOKEN_DIR' => $tokenDir . '/token',
            ],
            $log,
            $ini + ['opcache.preload_user' => 'root']
        );
        self::assertIsResource($server);
        try {
            $context = stream_context_create(['http' => ['ignore_errors' => true, 'timeout' => 20]]);
            $body = (string) file_get_contents("http://127.0.0.1:$port/", false, $context);
            preg_match('#^HTTP/\S+ (\d+)#', $http_response_header[0] ?? '', $m);
            return [(int) ($m[1] ?? 0), $body];
        } finally {
            Php::stop($server);
        }
    }

    public function testTheWrittenLinesLetTheWebServerUseTheLibrary(): void
    {
        if (!extension_loaded('Zend OPcache')) {
            self::markTestSkipped('OPcache is not loaded in this PHP');
        }
        $dir = self::tempDir('preload-page');
        try {
            $ini = parse_ini_file(Library::writePreload($dir . '/etc', Library::path(), 'www-data'));
            self::assertIsArray($ini);
            unset($ini['opcache.preload_user']);
            [$status, $body] = self::page($ini, $dir);
            self::assertSame(200, $status, $body);
            // The id and name of each organization, nothing else.
            self::assertSame(['organizations' => [
                ['id' => Emulator::ORG, 'name' => 'Emulator Pizza (Central)'],
                ['id' => Emulator::SECOND_ORG, 'name' => 'Emulator Sushi (North)'],
            ]], json_decode($body, true, 512, JSON_THROW_ON_ERROR));
        } finally {
            self::removeDir($dir);
        }
    }

    public function testWithoutOpcachePreloadTheErrorNamesTheMissingLine(): void
    {
        $dir = self::tempDir('preload-missing');
        try {
            $header = $dir . '/iikocloud-ffi.h';
            Library::writePreloadHeader($header);
            // The issue's configuration: the header preloaded, the package not.
            [$status, $body] = self::page(['ffi.enable' => 'preload', 'ffi.preload' => $header], $dir);
            self::assertSame(500, $status);
            self::assertStringStartsWith(
                'PHP FFI is restricted to preloaded code here (ffi.enable=preload, SAPI cli-server) and the IikoCloud '
                . 'classes were not preloaded. Missing php.ini line: opcache.preload=' . Library::preloadScript() . ' ',
                $body
            );
            self::assertStringContainsString(dirname(__DIR__) . '/bin/iikocloud-preload DIR', $body);
            self::assertStringNotContainsString(Emulator::CLIENT_SECRET, $body);
            self::assertStringContainsString('organizations.php: PHP FFI is restricted', (string) file_get_contents($dir . '/server.log'));
        } finally {
            self::removeDir($dir);
        }
    }

    public function testAnotherPreloadScriptGetsTheRequireLineToAdd(): void
    {
        if (!extension_loaded('Zend OPcache')) {
            self::markTestSkipped('OPcache is not loaded in this PHP');
        }
        $dir = self::tempDir('preload-other');
        try {
            file_put_contents($dir . '/site-preload.php', "<?php\n// the site's own preload script\n");
            [$status, $body] = self::page(['ffi.enable' => 'preload', 'opcache.preload' => $dir . '/site-preload.php'], $dir);
            self::assertSame(500, $status);
            self::assertStringContainsString(
                sprintf("opcache.preload=%s/site-preload.php does not preload this package: add the line require '%s'; to that script", $dir, Library::preloadScript()),
                $body
            );
            // With that line the same site works.
            file_put_contents($dir . '/site-preload.php', "<?php\nrequire " . var_export(Library::preloadScript(), true) . ";\n");
            [$status, $body] = self::page(['ffi.enable' => 'preload', 'opcache.preload' => $dir . '/site-preload.php'], $dir);
            self::assertSame(200, $status, $body);
        } finally {
            self::removeDir($dir);
        }
    }
}
