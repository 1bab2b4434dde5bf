<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Client;
use IikoCloud\Exception\LibraryException;
use IikoCloud\Library;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\TestCase;

/**
 * Finding and loading the library, and the errors when that fails. Settings
 * that hold from start-up (ffi.enable, ffi.preload, the environment) are
 * tested in child processes.
 */
final class LibraryTest extends TestCase
{
    /** Prints the class and message of what $code throws, or "ok". */
    private const REPORT = 'try { %s; echo "ok"; } catch (\Throwable $e) { echo get_class($e), ": ", $e->getMessage(); }';

    protected function setUp(): void
    {
        // No emulator needed.
    }

    private static function root(): string
    {
        return dirname(__DIR__, 3);
    }

    /**
     * Runs $code in a child PHP and returns what REPORT prints.
     *
     * @param array<string, string|false> $env
     * @param array<string, string> $ini
     */
    private static function report(string $code, array $env = [], array $ini = []): string
    {
        [$exit, $out, $err] = Php::run(sprintf(self::REPORT, $code), $env, $ini);
        self::assertSame(0, $exit, $err);
        return $out;
    }

    public function testLoadsTheLibraryNamedByTheEnvironment(): void
    {
        $lib = (string) getenv(Library::ENV_LIBRARY);
        self::assertNotSame('', $lib, 'the test runner sets IIKOCLOUD_LIB');
        self::assertSame(realpath($lib), Library::path());
        self::assertSame($lib, Library::candidates()[0]);
        self::assertContains(self::root() . '/target/debug/' . Library::fileName(), Library::candidates());
        self::assertSame(Library::path(), Library::load());
        self::assertSame(Library::path(), Library::load(Library::path()));
    }

    public function testWithoutTheVariableTheCheckoutIsFound(): void
    {
        $out = self::report('echo IikoCloud\Library::path(), " "', [Library::ENV_LIBRARY => false]);
        self::assertMatchesRegularExpression('#/(target/(debug|release)|usr/(local/)?lib[^ ]*)/libiikocloud\.so[.0-9]* ok$#', $out);
    }

    /**
     * The search on Windows, asked from here: beside php.exe (or php-cgi.exe
     * under IIS), the install directory, then PATH as Windows searches it
     * for a DLL; quotes, trailing separators and repeats in PATH do not matter.
     */
    public function testOnWindowsTheDllIsLookedForWhereWindowsLooksForDlls(): void
    {
        $env = ['PATH' => 'C:\\Windows\\system32;"C:\\Tools\\iiko";C:\\php\\;;', 'ProgramFiles' => 'D:\\Programs'];
        self::assertSame([
            'C:\\php\\iikocloud.dll',
            'D:\\Programs\\iikocloud\\bin\\iikocloud.dll',
            'C:\\Windows\\system32\\iikocloud.dll',
            'C:\\Tools\\iiko\\iikocloud.dll',
        ], Library::candidatesFor('Windows', $env, 'C:\\php\\php-cgi.exe', null));
        $env[Library::ENV_LIBRARY] = 'E:\\iiko\\iikocloud.dll';
        $found = Library::candidatesFor('Windows', $env, 'C:\\php\\php.exe', 'C:/src/iikocloud');
        self::assertSame('E:\\iiko\\iikocloud.dll', $found[0]);
        self::assertSame('C:/src/iikocloud/target/debug/iikocloud.dll', end($found));
        self::assertContains('C:\\Program Files\\iikocloud\\bin\\iikocloud.dll', Library::candidatesFor('Windows', [], '', null));
        // Elsewhere the list is the one this system uses.
        self::assertContains('/usr/lib/libiikocloud.so.' . Library::ABI_VERSION, Library::candidatesFor('Linux', [], '/usr/bin/php', null));
        self::assertSame('/opt/homebrew/lib/libiikocloud.dylib', Library::candidatesFor('Darwin', [], '/usr/bin/php', null)[0]);
    }

    public function testAMissingLibraryIsAClearError(): void
    {
        $this->expectException(LibraryException::class);
        $this->expectExceptionMessage('libiikocloud not found at /nonexistent/libiikocloud.so');
        new Client(apiLogin: 'x', library: '/nonexistent/libiikocloud.so');
    }

    public function testAWrongVariableIsAnErrorNotAFallback(): void
    {
        $out = self::report('IikoCloud\Webhooks::parse("[]")', [Library::ENV_LIBRARY => '/nonexistent/lib.so']);
        self::assertSame(LibraryException::class . ': libiikocloud not found at /nonexistent/lib.so (IIKOCLOUD_LIB)', $out);
    }

    public function testNothingFoundListsWhereItLooked(): void
    {
        // A copy of the package outside the checkout, with no library anywhere.
        $dir = self::tempDir('nolib');
        try {
            mkdir($dir . '/src/Exception', 0700, true);
            copy(dirname(__DIR__) . '/autoload.php', $dir . '/autoload.php');
            foreach (glob(dirname(__DIR__) . '/src/{,Exception/}*.php', GLOB_BRACE) ?: [] as $file) {
                copy($file, $dir . '/src/' . substr($file, strlen(dirname(__DIR__) . '/src/')));
            }
            $code = sprintf(
                'require %s; ' . self::REPORT,
                var_export($dir . '/autoload.php', true),
                'IikoCloud\Webhooks::parse("[]")'
            );
            [, $out] = Php::run($code, [Library::ENV_LIBRARY => false], [], false);
            if (is_file('/usr/local/lib/libiikocloud.so') || is_file('/usr/lib/libiikocloud.so')) {
                self::markTestSkipped('a library is installed in a standard location');
            }
            self::assertStringStartsWith(LibraryException::class . ': libiikocloud not found; looked in: /usr/local/lib/', $out);
            self::assertStringContainsString('IIKOCLOUD_LIB', $out);
        } finally {
            self::removeDir($dir);
        }
    }

    public function testDisabledFfiIsAClearError(): void
    {
        $out = self::report('new IikoCloud\Client(apiLogin: "x")', [], ['ffi.enable' => '0']);
        self::assertStringStartsWith(LibraryException::class . ': PHP FFI is disabled (ffi.enable=0)', $out);
    }

    public function testAHeaderOfAnotherVersionIsRefused(): void
    {
        $dir = self::tempDir('header');
        try {
            $header = (string) file_get_contents(self::root() . '/include/iikocloud.h');
            $other = preg_replace('/(#define IIKO_VERSION_STRING )"[^"]+"/', '$1"9.9.9"', $header);
            file_put_contents($dir . '/iikocloud.h', $other);
            $out = self::report('IikoCloud\Webhooks::parse("[]")', [Library::ENV_HEADER => $dir . '/iikocloud.h']);
            self::assertMatchesRegularExpression('/^' . preg_quote(LibraryException::class, '/')
                . ': the library \S+ is version [0-9.]+ but the header \S+ is 9\.9\.9/', $out);

            // A header declaring a function the library lacks: an older library.
            file_put_contents($dir . '/iikocloud.h', $header . "\nint iiko_from_the_future(void);\n");
            $out = self::report('IikoCloud\Webhooks::parse("[]")', [Library::ENV_HEADER => $dir . '/iikocloud.h']);
            self::assertStringContainsString('has no iiko_from_the_future', $out);
            self::assertStringContainsString('older than the header', $out);

            $out = self::report('IikoCloud\Webhooks::parse("[]")', [Library::ENV_HEADER => $dir . '/missing.h']);
            self::assertStringContainsString('iikocloud.h not found at', $out);
        } finally {
            self::removeDir($dir);
        }
    }

    public function testPreloadedHeaderServesFfiEnablePreload(): void
    {
        $dir = self::tempDir('preload');
        try {
            Library::writePreloadHeader($dir . '/iikocloud-ffi.h');
            $text = (string) file_get_contents($dir . '/iikocloud-ffi.h');
            self::assertStringStartsWith("#define FFI_SCOPE \"iikocloud\"\n#define FFI_LIB \"" . Library::path() . "\"\n", $text);
            $code = 'echo IikoCloud\Library::path(), " ", count(IikoCloud\Webhooks::parse("[{}]")), " "';
            $ini = ['ffi.enable' => 'preload', 'ffi.preload' => $dir . '/iikocloud-ffi.h'];
            self::assertSame('ffi-scope:iikocloud 1 ok', self::report($code, [Library::ENV_LIBRARY => false], $ini));
        } finally {
            self::removeDir($dir);
        }
    }

    public function testWritePreloadWritesTheHeaderAndTheIniLines(): void
    {
        $dir = self::tempDir('write-preload');
        try {
            $ini = Library::writePreload($dir . '/etc', null, 'www-data');
            self::assertSame(realpath($dir . '/etc') . '/' . Library::PRELOAD_INI, $ini);
            $header = dirname($ini) . '/' . Library::PRELOAD_HEADER;
            self::assertStringStartsWith(
                "#define FFI_SCOPE \"iikocloud\"\n#define FFI_LIB \"" . Library::path() . "\"\n",
                (string) file_get_contents($header)
            );
            // What PHP reads from it: the quoting must survive the ini syntax.
            self::assertSame([
                'ffi.enable' => 'preload',
                'ffi.preload' => $header,
                'opcache.preload' => Library::preloadScript(),
                'opcache.preload_user' => 'www-data',
            ], parse_ini_file($ini));
            self::assertSame(dirname(__DIR__) . '/preload.php', Library::preloadScript());
            self::assertStringContainsString("require '" . Library::preloadScript() . "';", (string) file_get_contents($ini));
        } finally {
            self::removeDir($dir);
        }
    }

    public function testWritePreloadRefusesWhatCannotBeWritten(): void
    {
        $dir = self::tempDir('write-preload-bad');
        try {
            foreach (["www data", "www-data\nffi.enable=1", ''] as $user) {
                try {
                    Library::writePreload($dir, null, $user);
                    self::fail('accepted the user ' . var_export($user, true));
                } catch (LibraryException $e) {
                    self::assertStringContainsString('opcache.preload_user', $e->getMessage());
                }
            }
            try {
                Library::writePreload($dir . '/with"quote');
                self::fail('accepted a directory the ini syntax cannot name');
            } catch (LibraryException $e) {
                self::assertStringContainsString('cannot name', $e->getMessage());
            }
            self::assertSame([], glob($dir . '/*') ?: [], 'nothing written or created');
        } finally {
            self::removeDir($dir);
        }
    }

    public function testThePreloadScriptCompilesEveryClass(): void
    {
        $classes = [];
        foreach (glob(dirname(__DIR__) . '/src/{,Exception/}*.php', GLOB_BRACE) ?: [] as $file) {
            $classes[] = 'IikoCloud\\' . str_replace('/', '\\', substr($file, strlen(dirname(__DIR__) . '/src/'), -4));
        }
        self::assertGreaterThan(20, count($classes));
        if (!extension_loaded('Zend OPcache')) {
            self::markTestSkipped('OPcache is not loaded in this PHP');
        }
        // No autoloader: whatever exists was preloaded. (opcache.preload_user
        // only counts when running as root, where it must be set.)
        $code = 'foreach (' . var_export($classes, true) . ' as $c) { if (!class_exists($c, false)) { echo "missing $c\n"; } } echo "done";';
        [$exit, $out, $err] = Php::run($code, [], [
            'opcache.enable' => '1',
            'opcache.enable_cli' => '1',
            'opcache.preload' => Library::preloadScript(),
            'opcache.preload_user' => 'root',
        ], false);
        self::assertSame(0, $exit, $err);
        self::assertSame('done', $out);
        self::assertSame('', $err, 'no preloading warning');
    }

    public function testTheCommandWritesThePreloadFiles(): void
    {
        $dir = self::tempDir('preload-command');
        $command = static function (array $args): array {
            $bin = dirname(__DIR__) . '/bin/iikocloud-preload';
            $process = proc_open(array_merge(Php::command(), [$bin], $args), [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            self::assertIsResource($process);
            $out = (string) stream_get_contents($pipes[1]);
            $err = (string) stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            return [proc_close($process), $out, $err];
        };
        try {
            [$exit, $out, $err] = $command([$dir, '--user=nginx', '--library=' . Library::path()]);
            self::assertSame(0, $exit, $err);
            self::assertStringStartsWith('wrote ' . realpath($dir) . '/iikocloud.ini', $out);
            self::assertStringContainsString('systemctl reload php', $out);
            self::assertSame('nginx', parse_ini_file($dir . '/iikocloud.ini')['opcache.preload_user']);

            [$exit, , $err] = $command([$dir, '--library=/nonexistent/libiikocloud.so']);
            self::assertSame(1, $exit);
            self::assertStringContainsString('libiikocloud not found at /nonexistent/libiikocloud.so', $err);
            [$exit, , $err] = $command(['--frobnicate']);
            self::assertSame(2, $exit);
            self::assertStringContainsString('usage: iikocloud-preload DIRECTORY', $err);
        } finally {
            self::removeDir($dir);
        }
    }
}
