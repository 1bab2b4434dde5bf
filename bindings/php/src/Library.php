<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;
use IikoCloud\Exception\ApiException;
use IikoCloud\Exception\AuthenticationException;
use IikoCloud\Exception\BadRequestException;
use IikoCloud\Exception\CommandException;
use IikoCloud\Exception\CommandExpiredException;
use IikoCloud\Exception\CommandFailedException;
use IikoCloud\Exception\CommandTimeoutException;
use IikoCloud\Exception\DecodeException;
use IikoCloud\Exception\ForbiddenException;
use IikoCloud\Exception\IikoException;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\LibraryException;
use IikoCloud\Exception\NotFoundException;
use IikoCloud\Exception\RateLimitException;
use IikoCloud\Exception\ServerException;
use IikoCloud\Exception\TerminalTimeoutException;
use IikoCloud\Exception\TransportException;
use IikoCloud\Exception\TlsException;
use IikoCloud\Exception\ProxyException;
use IikoCloud\Exception\WebhookParseException;
use IikoCloud\Exception\WebhookVerificationException;

/**
 * Finds and loads libiikocloud (the C library) with PHP's FFI.
 *
 * The library is looked for, in this order: the path given to
 * {@see Client::__construct()} (`library:`) or {@see load()}; the
 * environment variable `IIKOCLOUD_LIB`; the standard locations
 * (/usr/local/lib, /usr/lib, the multiarch directory; /opt/homebrew/lib on
 * macOS; on Windows the directory of php.exe, `%ProgramFiles%\iikocloud\bin`
 * and the directories of `PATH`, where Windows itself looks for a DLL);
 * and, when this package runs from a checkout of the repository, its
 * target/release and target/debug. Its header is `IIKOCLOUD_HEADER`, else
 * `include/iikocloud.h` next to the library's `lib/` (or, on Windows, `bin/`)
 * directory (as `make install` and the Windows zip lay them out), on Windows
 * else `iikocloud.h` beside the DLL, else the checkout's
 * `include/iikocloud.h`, else /usr/local/include or /usr/include.
 *
 * Loading parses the header with `FFI::cdef` once per process (under a
 * millisecond) and checks `iiko_version()` against the header and this
 * package. Under `ffi.enable=preload` (the default of PHP-FPM and mod_php)
 * PHP allows FFI only in code compiled by `opcache.preload`: preload this
 * package with its preload.php, and name a header written by
 * {@see writePreloadHeader()} in `ffi.preload` so the library is bound once
 * at start-up (FFI scope "iikocloud"). {@see writePreload()} writes the
 * header and the php.ini lines of both.
 */
final class Library
{
    /**
     * The ABI this package was written for: MAJOR.MINOR while the major
     * version is 0 (each 0.x minor release may change the ABI), MAJOR after.
     */
    public const ABI_VERSION = '0.1';
    /** Environment variable naming the library file. */
    public const ENV_LIBRARY = 'IIKOCLOUD_LIB';
    /** Environment variable naming the header file. */
    public const ENV_HEADER = 'IIKOCLOUD_HEADER';
    /** The FFI scope of a header preloaded with `ffi.preload`. */
    public const SCOPE = 'iikocloud';
    /** File names written by writePreload() in its directory. */
    public const PRELOAD_HEADER = 'iikocloud-ffi.h';
    public const PRELOAD_INI = 'iikocloud.ini';

    /** @var array<string, FFI> loaded libraries by real path */
    private static array $loaded = [];
    /** @var array<string, string> their iiko_version() by real path */
    private static array $versions = [];
    /** The library used when none is named; the first one loaded. */
    private static ?string $defaultPath = null;
    /** Native handles and strings this package holds (see liveHandles()). */
    private static int $liveHandles = 0;

    private function __construct()
    {
    }

    /**
     * Loads the library (once per process and path) and makes it the default
     * of {@see Webhooks} and of clients created without `library:`, when no
     * default was chosen yet. Returns the path loaded.
     *
     * @param ?string $library path of libiikocloud.so / .dylib / iikocloud.dll;
     *                         null searches as described on the class
     * @throws LibraryException when FFI is unavailable or the library or header is missing or mismatched
     */
    public static function load(?string $library = null): string
    {
        if ($library === null && self::$defaultPath !== null) {
            return self::$defaultPath;
        }
        // Before the search: a restricted FFI is the problem to report, not where the library is.
        self::requireFfi();
        $path = self::locate($library);
        self::open($path);
        return $path;
    }

    /**
     * The path of the default library (loading it if needed), or
     * `"ffi-scope:iikocloud"` when it was preloaded.
     *
     * @throws LibraryException
     */
    public static function path(): string
    {
        self::ffi();
        return (string) self::$defaultPath;
    }

    /**
     * `iiko_version()` of the default library, e.g. `"0.1.0"`.
     *
     * @throws LibraryException
     */
    public static function version(): string
    {
        self::ffi();
        return self::$versions[(string) self::$defaultPath];
    }

    /**
     * The library file name on this system: libiikocloud.so, libiikocloud.dylib or iikocloud.dll.
     */
    public static function fileName(): string
    {
        return self::fileNameFor(PHP_OS_FAMILY);
    }

    /** fileName() on the system `$osFamily` names (a value of PHP_OS_FAMILY). */
    private static function fileNameFor(string $osFamily): string
    {
        switch ($osFamily) {
            case 'Darwin':
                return 'libiikocloud.dylib';
            case 'Windows':
                return 'iikocloud.dll';
            default:
                return 'libiikocloud.so';
        }
    }

    /**
     * Where the library is looked for when no path is given, in order
     * (`IIKOCLOUD_LIB` first when set).
     *
     * @return list<string>
     */
    public static function candidates(): array
    {
        $env = [];
        foreach ([self::ENV_LIBRARY, 'ProgramFiles', 'PATH'] as $name) {
            $value = getenv($name);
            if (is_string($value) && $value !== '') {
                $env[$name] = $value;
            }
        }
        return self::candidatesFor(PHP_OS_FAMILY, $env, PHP_BINARY, self::checkoutRoot());
    }

    /**
     * candidates() on another system: `$osFamily` as PHP_OS_FAMILY, `$env`
     * the variables `IIKOCLOUD_LIB`, `ProgramFiles` and `PATH` (absent when
     * unset), `$phpBinary` as PHP_BINARY, `$root` the checkout (or null).
     * Lets the tests of one system check the search of another.
     *
     * @internal
     * @param array<string, string> $env
     * @return list<string>
     */
    public static function candidatesFor(string $osFamily, array $env, string $phpBinary, ?string $root): array
    {
        $name = self::fileNameFor($osFamily);
        $found = [];
        if (isset($env[self::ENV_LIBRARY])) {
            $found[] = $env[self::ENV_LIBRARY];
        }
        if ($osFamily === 'Windows') {
            // Beside php.exe (or php-cgi.exe) as PHP's own DLLs are, the
            // install directory the README names, then the DLL search path.
            $dirs = [];
            // dirname() of the system running this code would not split a
            // Windows path elsewhere; Windows takes both separators.
            $phpDir = (string) preg_replace('#[\\\\/][^\\\\/]*$#', '', $phpBinary);
            if ($phpDir !== '' && $phpDir !== $phpBinary) {
                $dirs[] = $phpDir;
            }
            $dirs[] = ($env['ProgramFiles'] ?? 'C:\\Program Files') . '\\iikocloud\\bin';
            foreach (explode(';', $env['PATH'] ?? '') as $dir) {
                $dir = rtrim(trim($dir, " \t\""), '\\/');
                if ($dir !== '' && !in_array($dir, $dirs, true)) {
                    $dirs[] = $dir;
                }
            }
            foreach ($dirs as $dir) {
                $found[] = $dir . '\\' . $name;
            }
        } else {
            $dirs = ['/usr/local/lib', '/usr/lib'];
            if ($osFamily === 'Darwin') {
                array_unshift($dirs, '/opt/homebrew/lib');
            } else {
                // Debian and Ubuntu keep libraries in a multiarch directory.
                $dirs[] = '/usr/lib/' . php_uname('m') . '-linux-gnu';
            }
            foreach ($dirs as $dir) {
                $found[] = $dir . '/' . $name;
                if ($name === 'libiikocloud.so') {
                    // An install without the development link has only the SONAME.
                    $found[] = $dir . '/libiikocloud.so.' . self::ABI_VERSION;
                }
            }
        }
        if ($root !== null) {
            $found[] = $root . '/target/release/' . $name;
            $found[] = $root . '/target/debug/' . $name;
        }
        return $found;
    }

    /**
     * Writes a header for `ffi.preload`: include/iikocloud.h with the
     * `FFI_SCOPE` and `FFI_LIB` lines PHP needs, for hosts that run under
     * `ffi.enable=preload` (PHP-FPM's default). Then set in php.ini:
     * `ffi.enable=preload` and `ffi.preload=<target>`.
     *
     * @param string $target the file to write (e.g. /etc/php/iikocloud-ffi.h)
     * @param ?string $library the library to name in it (searched when null)
     * @throws LibraryException when the library or header is missing or the file cannot be written
     */
    public static function writePreloadHeader(string $target, ?string $library = null): void
    {
        $path = self::locate($library);
        $header = self::readHeader(self::findHeader($path));
        if (strpbrk($path, "\"\\\n\r") !== false) {
            throw new LibraryException(sprintf('cannot name %s in a C string literal: move the library', $path));
        }
        $text = sprintf("#define FFI_SCOPE \"%s\"\n#define FFI_LIB \"%s\"\n", self::SCOPE, $path) . $header;
        if (@file_put_contents($target, $text) !== strlen($text)) {
            throw new LibraryException(sprintf('cannot write the preload header %s', $target));
        }
    }

    /**
     * Writes what PHP-FPM and mod_php need under `ffi.enable=preload`, into
     * $directory (created when missing): the FFI header of
     * {@see writePreloadHeader()} as `iikocloud-ffi.h`, and `iikocloud.ini`
     * with the four php.ini lines that use it:
     *
     *     ffi.enable=preload
     *     ffi.preload=<directory>/iikocloud-ffi.h
     *     opcache.preload=<this package>/preload.php
     *     opcache.preload_user=www-data
     *
     * Link or copy the ini into the SAPI's conf.d (e.g.
     * /etc/php/8.2/fpm/conf.d/50-iikocloud.ini) and reload PHP-FPM. Run it
     * again, then reload, after upgrading the library or this package.
     * The library is loaded first, so a library that does not match its
     * header or this package is refused before anything is written.
     *
     * @param string $directory where to write the two files
     * @param ?string $library the library to name (searched when null)
     * @param string $user `opcache.preload_user`: the user preloading runs as
     *                     when the master process runs as root (the pool's user)
     * @return string the path of the ini file written
     * @throws LibraryException when the library cannot be loaded or a file cannot be written
     */
    public static function writePreload(string $directory, ?string $library = null, string $user = 'www-data'): string
    {
        if (preg_match('/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/', $user) !== 1) {
            throw new LibraryException(sprintf('%s is not a user name for opcache.preload_user', var_export($user, true)));
        }
        self::iniValue($directory); // refused before anything is created
        $path = self::locate($library);
        self::open($path);
        if (!is_dir($directory) && !@mkdir($directory, 0755, true) && !is_dir($directory)) {
            throw new LibraryException(sprintf('cannot create the directory %s', $directory));
        }
        $directory = self::real($directory);
        $header = $directory . '/' . self::PRELOAD_HEADER;
        $script = self::preloadScript();
        $ini = sprintf(
            "; Written by IikoCloud\\Library::writePreload for libiikocloud %s (%s).\n"
            . "; Write it again and reload PHP-FPM (or Apache) after upgrading the library or the package.\n"
            . "; Under ffi.enable=preload only preloaded code may use FFI:\n"
            . "ffi.enable=preload\n"
            . "; binds the library once, at start-up (FFI scope \"%s\")\n"
            . "ffi.preload=%s\n"
            . "; compiles the IikoCloud classes at start-up. A site with a preload script of its own names\n"
            . "; that script here instead and adds this line to it: require %s;\n"
            . "opcache.preload=%s\n"
            . "; preloading runs as this user when the master runs as root: the pool's user\n"
            . "opcache.preload_user=%s\n",
            self::$versions[$path],
            $path,
            self::SCOPE,
            self::iniValue($header),
            var_export($script, true),
            self::iniValue($script),
            $user
        );
        self::writePreloadHeader($header, $path);
        $target = $directory . '/' . self::PRELOAD_INI;
        if (@file_put_contents($target, $ini) !== strlen($ini)) {
            throw new LibraryException(sprintf('cannot write %s', $target));
        }
        return $target;
    }

    /**
     * The `opcache.preload` script of this package (preload.php beside src/).
     */
    public static function preloadScript(): string
    {
        return self::real(dirname(__DIR__) . '/preload.php');
    }

    /**
     * The number of native handles and strings this package holds at the
     * moment: clients, and, only while a call runs, options, errors,
     * events and strings. A debugging aid: with no client alive it is 0,
     * whatever was called before (a test checks that nothing leaks).
     */
    public static function liveHandles(): int
    {
        return self::$liveHandles;
    }

    /**
     * The FFI object of a library: the default one when $library is null.
     *
     * @internal
     * @throws LibraryException
     */
    public static function ffi(?string $library = null): FFI
    {
        if ($library === null && self::$defaultPath !== null) {
            return self::$loaded[self::$defaultPath];
        }
        // Before the search: a restricted FFI is the problem to report, not where the library is.
        self::requireFfi();
        if ($library === null) {
            $scoped = self::preloaded();
            if ($scoped !== null) {
                return $scoped;
            }
        }
        return self::open(self::locate($library));
    }

    /**
     * Counts handles taken (+1) and freed (-1), for liveHandles().
     *
     * @internal
     */
    public static function track(int $delta): void
    {
        self::$liveHandles += $delta;
    }

    /**
     * A new `iiko_error *` out-parameter (NULL).
     *
     * @internal
     */
    public static function errorOut(FFI $ffi): CData
    {
        return $ffi->new('iiko_error*');
    }

    /**
     * Throws the exception for a failed status; frees the error either way.
     *
     * @internal
     * @param CData $err the `iiko_error *` filled by the call (or NULL)
     * @throws IikoException when $status is not Status::OK
     */
    public static function check(FFI $ffi, int $status, CData $err): void
    {
        if ($status === Status::OK) {
            return;
        }
        throw self::exception($ffi, $status, $err);
    }

    /**
     * The exception for a status and its error, which is freed here.
     *
     * @internal
     */
    public static function exception(FFI $ffi, int $status, CData $err): IikoException
    {
        if (FFI::isNull($err)) {
            return self::makeException($status, (int) $ffi->iiko_status_group($status), (string) $ffi->iiko_status_str($status), []);
        }
        self::track(1);
        try {
            $bodyLen = $ffi->new('size_t');
            $bodyPtr = $ffi->iiko_error_body($err, FFI::addr($bodyLen));
            $retry = (int) $ffi->iiko_error_retry_after_s($err);
            $detail = [
                'httpStatus' => (int) $ffi->iiko_error_http_status($err),
                'description' => $ffi->iiko_error_description($err),
                'code' => $ffi->iiko_error_api_code($err),
                'correlationId' => $ffi->iiko_error_correlation_id($err),
                'path' => $ffi->iiko_error_path($err),
                'retryAfter' => $retry >= 0 ? $retry : null,
                'body' => ($bodyPtr === null || FFI::isNull($bodyPtr)) ? '' : FFI::string($bodyPtr, $bodyLen->cdata),
            ];
            $message = (string) $ffi->iiko_error_message($err);
            // The error's own status is authoritative (they are equal today).
            $status = (int) $ffi->iiko_error_status($err);
        } finally {
            $ffi->iiko_error_free($err);
            self::track(-1);
        }
        return self::makeException($status, (int) $ffi->iiko_status_group($status), $message, $detail);
    }

    /**
     * Copies a string the library returned through `char **` and frees it.
     *
     * @internal
     * @param CData $out the `char *` written by the call
     */
    public static function takeString(FFI $ffi, CData $out): ?string
    {
        if (FFI::isNull($out)) {
            return null;
        }
        self::track(1);
        try {
            return FFI::string($out);
        } finally {
            $ffi->iiko_string_free($out);
            self::track(-1);
        }
    }

    /**
     * A value a caller gave for one of the library's limits (`"client.timeout"`,
     * `"inbox.max_attempts"`; see tests/vectors/limits.json), read by the
     * library's one rule: an int in the limit's unit (milliseconds, bytes,
     * levels, a count), a float in seconds (durations only), null for the
     * default. Returns the value that applies, in the unit, or null when the
     * default is another setting (`"call.timeout"`: the client's). A value
     * the limit refuses (0 where it means nothing, negative, NaN, too large)
     * throws with the library's message. Nothing here restates a rule.
     *
     * @throws InvalidInputException
     */
    public static function limit(string $name, int|float|null $value): ?int
    {
        $ffi = self::ffi();
        $out = $ffi->new('uint64_t');
        $err = self::errorOut($ffi);
        $limit = self::cString($name, 'the limit name');
        $status = match (true) {
            $value === null => $ffi->iiko_limit_default($limit, FFI::addr($out), FFI::addr($err)),
            is_int($value) => $ffi->iiko_limit_read($limit, $value, FFI::addr($out), FFI::addr($err)),
            default => $ffi->iiko_limit_read_seconds($limit, $value, FFI::addr($out), FFI::addr($err)),
        };
        self::check($ffi, (int) $status, $err);
        $read = (int) $out->cdata;
        // 0 is "another setting" here: no limit's fixed default is 0.
        return $read === 0 && $value === null ? null : $read;
    }

    /**
     * What a C call takes for a limit: the value a caller gave, read by
     * {@see limit()}, or 0, the C ABI's "not given", for null (only for the
     * calls whose C documentation says "0: the default"). Refusals throw
     * with the library's message and `$status` (the status the C call itself
     * would give: a client's options are its configuration).
     *
     * @internal
     * @throws InvalidInputException
     */
    public static function arg(string $name, int|float|null $value, int $status = Status::INVALID_ARGUMENT): int
    {
        if ($value === null) {
            return 0;
        }
        try {
            return (int) self::limit($name, $value);
        } catch (InvalidInputException $e) {
            if ($e->getStatus() === $status) {
                throw $e;
            }
            throw new InvalidInputException($e->getMessage(), $status);
        }
    }

    /**
     * The default of a limit, in its unit (see {@see limit()}).
     *
     * @internal
     */
    public static function limitDefault(string $name): int
    {
        return (int) self::limit($name, null);
    }

    /**
     * A PHP int as an `int32_t` argument; values out of range become -1 (an unknown code).
     *
     * @internal
     */
    public static function int32(int $value): int
    {
        return ($value < -2147483648 || $value > 2147483647) ? -1 : $value;
    }

    /**
     * A string argument passed as a NUL-terminated C string: refuses a NUL
     * byte inside, which C would read as the end (a token cut short).
     *
     * @internal
     * @throws InvalidInputException
     */
    public static function cString(string $value, string $what): string
    {
        if (strpos($value, "\0") !== false) {
            throw new InvalidInputException(sprintf('%s contains a NUL byte', $what), Status::INVALID_ARGUMENT);
        }
        return $value;
    }

    /**
     * @param array{httpStatus?: int, description?: ?string, code?: ?string, correlationId?: ?string,
     *              path?: ?string, retryAfter?: ?int, body?: string} $d
     */
    private static function makeException(int $status, int $group, string $message, array $d): IikoException
    {
        $http = $d['httpStatus'] ?? 0;
        $desc = $d['description'] ?? null;
        $code = $d['code'] ?? null;
        $corr = $d['correlationId'] ?? null;
        $path = $d['path'] ?? null;
        $body = $d['body'] ?? '';
        switch ($group) {
            case Status::GROUP_ARGUMENTS:
                return new InvalidInputException($message, $status, $corr, $path);
            case Status::GROUP_TRANSPORT:
                return match ($status) {
                    Status::TRANSPORT_TLS => new TlsException($message, $status, $corr, $path),
                    Status::TRANSPORT_PROXY => new ProxyException($message, $status, $corr, $path),
                    default => new TransportException($message, $status, $corr, $path),
                };
            case Status::GROUP_API:
                $class = [
                    Status::API_BAD_REQUEST => BadRequestException::class,
                    Status::API_UNAUTHORIZED => AuthenticationException::class,
                    Status::API_FORBIDDEN => ForbiddenException::class,
                    Status::API_NOT_FOUND => NotFoundException::class,
                    Status::API_TERMINAL_TIMEOUT => TerminalTimeoutException::class,
                    Status::API_RATE_LIMITED => RateLimitException::class,
                    Status::API_SERVER => ServerException::class,
                ][$status] ?? ApiException::class;
                if ($status === Status::API_DECODE) {
                    return new DecodeException($message, $status, $http, $corr, $path, $body);
                }
                return new $class($message, $status, $http, $desc, $code, $corr, $path, $body, $d['retryAfter'] ?? null);
            case Status::GROUP_COMMAND:
                return match ($status) {
                    Status::COMMAND_FAILED => new CommandFailedException($message, $status, $corr, $desc),
                    Status::COMMAND_TIMED_OUT => new CommandTimeoutException($message, $status, $corr, $desc),
                    Status::COMMAND_EXPIRED => new CommandExpiredException($message, $status, $corr, $desc),
                    default => new CommandException($message, $status, $corr, $desc),
                };
            case Status::GROUP_WEBHOOK:
                // 7400-7409: not authentic; 7410-7419: authentic but unreadable.
                return $status % 100 < 10
                    ? new WebhookVerificationException($message, $status)
                    : new WebhookParseException($message, $status);
            default:
                return new IikoException($message, $status, $corr, $path);
        }
    }

    /** Finds the library file, or says where it looked. */
    private static function locate(?string $library): string
    {
        if ($library !== null) {
            if (!is_file($library)) {
                throw new LibraryException(sprintf('libiikocloud not found at %s (the library argument)', $library));
            }
            return self::real($library);
        }
        $env = getenv(self::ENV_LIBRARY);
        if (is_string($env) && $env !== '' && !is_file($env)) {
            // A wrong setting is an error, not a reason to load another copy silently.
            throw new LibraryException(sprintf('libiikocloud not found at %s (%s)', $env, self::ENV_LIBRARY));
        }
        $tried = self::candidates();
        foreach ($tried as $candidate) {
            if (is_file($candidate)) {
                return self::real($candidate);
            }
        }
        throw new LibraryException(sprintf(
            'libiikocloud not found; looked in: %s. Build it (cargo build --release -p iikocloud-c, or '
            . 'make -C bindings/c install), then set %s to its path or pass library: to the Client%s',
            implode(', ', $tried),
            self::ENV_LIBRARY,
            // FPM starts workers with an empty environment (clear_env), so an exported variable is not seen.
            PHP_SAPI === 'fpm-fcgi'
                ? sprintf(' (PHP-FPM clears the environment: set env[%s] in the pool, or ffi.preload=<a header written by %s::writePreload>)', self::ENV_LIBRARY, self::class)
                : ''
        ));
    }

    /** A path as a php.ini value (quoted: a path may hold characters the ini syntax reads). */
    private static function iniValue(string $path): string
    {
        // Inside double quotes the ini syntax still reads ", \ and ${...}.
        if (strpbrk($path, "\"\\$\n\r") !== false) {
            throw new LibraryException(sprintf('cannot name %s in php.ini: move it to a plainer path', $path));
        }
        return '"' . $path . '"';
    }

    private static function real(string $path): string
    {
        $real = realpath($path);
        return $real === false ? $path : $real;
    }

    /** The header matching a library file. */
    private static function findHeader(string $library): string
    {
        $env = getenv(self::ENV_HEADER);
        if (is_string($env) && $env !== '') {
            if (!is_file($env)) {
                throw new LibraryException(sprintf('iikocloud.h not found at %s (%s)', $env, self::ENV_HEADER));
            }
            return $env;
        }
        // Installed (PREFIX/lib + PREFIX/include, or the Windows zip's bin/ and
        // include/) first: it matches the library beside it.
        $candidates = [dirname($library, 2) . '/include/iikocloud.h'];
        if (PHP_OS_FAMILY === 'Windows') {
            // A DLL copied beside php.exe may bring its header along.
            $candidates[] = dirname($library) . '/iikocloud.h';
        }
        $root = self::checkoutRoot();
        if ($root !== null) {
            $candidates[] = $root . '/include/iikocloud.h';
        }
        $candidates[] = '/usr/local/include/iikocloud.h';
        $candidates[] = '/usr/include/iikocloud.h';
        foreach ($candidates as $candidate) {
            if (is_file($candidate)) {
                return $candidate;
            }
        }
        throw new LibraryException(sprintf(
            'iikocloud.h not found; looked in: %s. Install it with the library or set %s',
            implode(', ', $candidates),
            self::ENV_HEADER
        ));
    }

    private static function readHeader(string $path): string
    {
        $text = @file_get_contents($path);
        if ($text === false) {
            throw new LibraryException(sprintf('cannot read %s', $path));
        }
        return $text;
    }

    /** The repository root when this file sits in a checkout (bindings/php/src). */
    private static function checkoutRoot(): ?string
    {
        $root = dirname(__DIR__, 3);
        return is_file($root . '/include/iikocloud.h') && is_dir($root . '/bindings/c') ? $root : null;
    }

    /** Loads a located library once per process. */
    private static function open(string $path): FFI
    {
        if (isset(self::$loaded[$path])) {
            self::$defaultPath ??= $path;
            return self::$loaded[$path];
        }
        self::requireFfi();
        $headerPath = self::findHeader($path);
        $header = self::readHeader($headerPath);
        try {
            $ffi = FFI::cdef($header, $path);
        } catch (\FFI\Exception $e) {
            throw self::loadFailure($e, $path, $headerPath, $header);
        }
        self::checkVersion($ffi, $path, $headerPath, $header);
        self::$loaded[$path] = $ffi;
        self::$defaultPath ??= $path;
        return $ffi;
    }

    /** The library from FFI scope "iikocloud" when a header was preloaded (ffi.preload). */
    private static function preloaded(): ?FFI
    {
        $preload = ini_get('ffi.preload');
        if (!is_string($preload) || $preload === '' || !extension_loaded('ffi')) {
            return null;
        }
        try {
            $ffi = FFI::scope(self::SCOPE);
        } catch (\FFI\Exception $e) {
            return null;
        }
        $path = 'ffi-scope:' . self::SCOPE;
        self::checkVersion($ffi, $path, $preload, null);
        self::$loaded[$path] = $ffi;
        self::$defaultPath = $path;
        return $ffi;
    }

    private static function requireFfi(): void
    {
        if (!extension_loaded('ffi')) {
            throw new LibraryException(
                'the PHP extension FFI is not loaded: install it (Debian: php-cli includes it; '
                . 'elsewhere php-ffi or --with-ffi) and enable it with extension=ffi'
            );
        }
        $enable = strtolower((string) ini_get('ffi.enable'));
        if (in_array($enable, ['0', 'false', 'off', 'no', ''], true)) {
            throw new LibraryException(
                'PHP FFI is disabled (ffi.enable=' . ini_get('ffi.enable') . '): set ffi.enable=1 in php.ini '
                . '(or php -d ffi.enable=1), or ffi.enable=preload with the lines written by '
                . 'IikoCloud\\Library::writePreload'
            );
        }
        if ($enable === 'preload' && PHP_SAPI !== 'cli' && !self::ffiAllowedHere()) {
            throw self::restricted(null);
        }
    }

    /**
     * Whether PHP lets this class use FFI: under ffi.enable=preload outside
     * the CLI only code compiled by opcache.preload may, and only PHP knows
     * whether this class was, so ask it with the cheapest restricted call.
     */
    private static function ffiAllowedHere(): bool
    {
        try {
            FFI::type('int');
            return true;
        } catch (\FFI\Exception $e) {
            return false;
        }
    }

    /**
     * The error for ffi.enable=preload when this package was not preloaded,
     * naming the php.ini line that is missing (or wrong).
     */
    private static function restricted(?\Throwable $previous): LibraryException
    {
        $script = self::preloadScript();
        $preload = (string) ini_get('opcache.preload');
        if (!extension_loaded('Zend OPcache')) {
            $fix = 'Missing php.ini line: zend_extension=opcache (preloading needs OPcache), then opcache.preload=' . $script;
        } elseif (!filter_var(ini_get('opcache.enable'), FILTER_VALIDATE_BOOLEAN)) {
            $fix = 'Missing php.ini line: opcache.enable=1 (preloading needs OPcache)';
        } elseif ($preload === '') {
            $fix = 'Missing php.ini line: opcache.preload=' . $script
                . " (and opcache.preload_user=<the pool's user> when the master process runs as root)";
        } elseif (self::real($preload) === $script) {
            // Only possible when preloading skipped our classes: PHP logged why.
            $fix = sprintf('opcache.preload=%s is set but did not preload %s: see the warnings in the PHP-FPM log', $preload, dirname(__DIR__));
        } else {
            $fix = sprintf('opcache.preload=%s does not preload this package: add the line require %s; to that script', $preload, var_export($script, true));
        }
        return new LibraryException(sprintf(
            'PHP FFI is restricted to preloaded code here (ffi.enable=%s, SAPI %s) and the IikoCloud classes were not preloaded. '
            . '%s. php %s DIR writes every line needed into DIR/%s; reload PHP-FPM (or Apache) after changing php.ini. '
            . 'Or set ffi.enable=1',
            (string) ini_get('ffi.enable'),
            PHP_SAPI,
            $fix,
            self::real(dirname(__DIR__) . '/bin/iikocloud-preload'),
            self::PRELOAD_INI
        ), $previous);
    }

    private static function loadFailure(\FFI\Exception $e, string $path, string $headerPath, string $header): LibraryException
    {
        $why = $e->getMessage();
        if (stripos($why, 'ffi.enable') !== false) {
            return self::restricted($e);
        }
        if (preg_match("/Failed resolving C function '([^']+)'/", $why, $m) === 1) {
            return new LibraryException(sprintf(
                'the library %s has no %s, which the header %s (version %s) declares: '
                . 'the library is older than the header; rebuild or reinstall them together',
                $path,
                $m[1],
                $headerPath,
                self::headerVersion($header) ?? 'unknown'
            ), $e);
        }
        return new LibraryException(sprintf('cannot load %s with the header %s: %s', $path, $headerPath, $why), $e);
    }

    private static function headerVersion(string $header): ?string
    {
        return preg_match('/^#define\s+IIKO_VERSION_STRING\s+"([^"]+)"/m', $header, $m) === 1 ? $m[1] : null;
    }

    /** PHP cannot see the version macros, so the header text and iiko_version() are compared here. */
    private static function checkVersion(FFI $ffi, string $path, string $headerPath, ?string $header): void
    {
        $version = (string) $ffi->iiko_version();
        $headerVersion = $header === null ? null : self::headerVersion($header);
        if ($headerVersion !== null && $headerVersion !== $version) {
            throw new LibraryException(sprintf(
                'the library %s is version %s but the header %s is %s: use the header installed with the library (%s)',
                $path,
                $version,
                $headerPath,
                $headerVersion,
                self::ENV_HEADER
            ));
        }
        if (!self::compatible($version)) {
            throw new LibraryException(sprintf(
                'the library %s is version %s; this PHP package needs ABI %s',
                $path,
                $version,
                self::ABI_VERSION
            ));
        }
        self::$versions[$path] = $version;
    }

    private static function compatible(string $version): bool
    {
        if (preg_match('/^(\d+)\.(\d+)\./', $version, $m) !== 1) {
            return false;
        }
        [$major, $minor] = array_map('intval', explode('.', self::ABI_VERSION));
        if ($major === 0) {
            return (int) $m[1] === 0 && (int) $m[2] === $minor;
        }
        // From 1.0 on, minor releases only add functions.
        return (int) $m[1] === $major && (int) $m[2] >= $minor;
    }
}
