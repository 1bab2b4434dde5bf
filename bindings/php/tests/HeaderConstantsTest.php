<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Client;
use IikoCloud\Exception;
use IikoCloud\EventType;
use IikoCloud\Exception\IikoException;
use IikoCloud\Library;
use IikoCloud\Status;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * PHP cannot see the header's #defines, so the package mirrors them; these
 * tests read include/iikocloud.h and check every mirrored value.
 */
final class HeaderConstantsTest extends TestCase
{
    /** @return array<string, int> the integer #defines of the header */
    private static function defines(): array
    {
        $header = (string) file_get_contents(dirname(__DIR__, 3) . '/include/iikocloud.h');
        preg_match_all('/^#define\s+(IIKO_[A-Z0-9_]+)\s+(-?\d+)\s*$/m', $header, $m, PREG_SET_ORDER);
        $defines = [];
        foreach ($m as [, $name, $value]) {
            $defines[$name] = (int) $value;
        }
        return $defines;
    }

    /**
     * @return array<string, int> the header's constants of a group, without the prefix
     */
    private static function group(string $prefix): array
    {
        $found = [];
        foreach (self::defines() as $name => $value) {
            if (strncmp($name, $prefix, strlen($prefix)) === 0) {
                $found[substr($name, strlen($prefix))] = $value;
            }
        }
        return $found;
    }

    public function testStatusMirrorsEveryStatusOfTheHeader(): void
    {
        $header = self::group('IIKO_STATUS_');
        self::assertGreaterThan(30, count($header));
        $php = (new \ReflectionClass(Status::class))->getConstants();
        ksort($header);
        ksort($php);
        self::assertSame($header, $php);
    }

    public function testEventTypeMirrorsEveryEventOfTheHeader(): void
    {
        // IIKO_EVENT_FIELD_* are the fields iiko_events_field reads, not event types.
        $header = array_filter(self::group('IIKO_EVENT_'), static fn (string $k): bool => !str_starts_with($k, 'FIELD_'), ARRAY_FILTER_USE_KEY);
        $php = (new \ReflectionClass(EventType::class))->getConstants();
        unset($php['NAMES']);
        ksort($header);
        ksort($php);
        self::assertSame($header, $php);
        self::assertSame('DeliveryOrderUpdate', EventType::name(EventType::DELIVERY_ORDER_UPDATE));
        self::assertSame('PersonalShift', EventType::name(EventType::PERSONAL_SHIFT));
        self::assertSame('Unknown', EventType::name(99));
    }

    public function testTheDefaultBaseUrlIsTheLibrarys(): void
    {
        $header = (string) file_get_contents(dirname(__DIR__, 3) . '/include/iikocloud.h');
        self::assertSame(1, preg_match('/^#define IIKO_DEFAULT_BASE_URL "([^"]+)"$/m', $header, $m));
        self::assertSame($m[1], Client::DEFAULT_BASE_URL);
    }

    public function testFlagsMatchTheHeader(): void
    {
        $defines = self::defines();
        self::assertSame(
            $defines['IIKO_CALL_IDEMPOTENT'],
            (new \ReflectionClassConstant(Client::class, 'CALL_IDEMPOTENT'))->getValue()
        );
        self::assertSame(
            $defines['IIKO_CALL_MONEY_AS_STRING'],
            (new \ReflectionClassConstant(Client::class, 'CALL_MONEY_AS_STRING'))->getValue()
        );
        self::assertSame(
            $defines['IIKO_CALL_ALLOW_UNKNOWN_FIELDS'],
            (new \ReflectionClassConstant(Client::class, 'CALL_ALLOW_UNKNOWN_FIELDS'))->getValue()
        );
        self::assertSame(
            $defines['IIKO_WEBHOOK_REJECT_SINGLE_OBJECT'],
            (new \ReflectionClassConstant(Webhooks::class, 'REJECT_SINGLE_OBJECT'))->getValue()
        );
    }

    public function testAbiVersionMatchesTheHeaderAndTheLibrary(): void
    {
        $defines = self::defines();
        $abi = $defines['IIKO_VERSION_MAJOR'] === 0
            ? '0.' . $defines['IIKO_VERSION_MINOR']
            : (string) $defines['IIKO_VERSION_MAJOR'];
        self::assertSame($abi, Library::ABI_VERSION);
        $cargo = (string) file_get_contents(dirname(__DIR__, 3) . '/Cargo.toml');
        self::assertSame(1, preg_match('/^version = "([^"]+)"/m', $cargo, $m));
        self::assertSame($m[1], Library::version());
    }

    public function testDescribeNamesAnyCode(): void
    {
        self::assertStringStartsWith('IIKO_STATUS_API_RATE_LIMITED', Status::describe(Status::API_RATE_LIMITED));
        self::assertStringStartsWith('IIKO_STATUS_OK', Status::describe(Status::OK));
        self::assertNotSame('', Status::describe(12345));
        self::assertNotSame('', Status::describe(PHP_INT_MAX));
    }

    public function testNoCodeReadsAsAnHttpStatusAndEachHasItsGroup(): void
    {
        foreach ((new \ReflectionClass(Status::class))->getConstants() as $name => $code) {
            if ($code === Status::OK || str_starts_with($name, 'GROUP_')) {
                continue;
            }
            self::assertFalse($code >= 100 && $code < 600, "$name = $code reads as an HTTP status");
            self::assertNotSame(Status::GROUP_NONE, Status::group($code), $name);
        }
        self::assertSame(Status::GROUP_API, Status::group(Status::API_RATE_LIMITED));
        self::assertSame(Status::GROUP_NONE, Status::group(Status::OK));
        self::assertSame(Status::GROUP_NONE, Status::group(403));
        self::assertSame(Status::GROUP_COMMAND, Status::group(7599));
    }

    public function testEveryStatusMapsToItsExceptionClass(): void
    {
        $ffi = Library::ffi();
        $expected = [
            Status::GROUP_ARGUMENTS => Exception\InvalidInputException::class,
            Status::GROUP_TRANSPORT => Exception\TransportException::class,
            Status::GROUP_API => Exception\ApiException::class,
            Status::GROUP_WEBHOOK => IikoException::class,
            Status::GROUP_COMMAND => Exception\CommandException::class,
            Status::GROUP_LIBRARY => IikoException::class,
        ];
        foreach ((new \ReflectionClass(Status::class))->getConstants() as $name => $code) {
            if ($code === Status::OK || str_starts_with($name, 'GROUP_')) {
                continue;
            }
            $e = Library::exception($ffi, $code, Library::errorOut($ffi));
            // A 2xx answer that cannot be read is not an error answer of the service.
            $class = $code === Status::API_DECODE ? Exception\DecodeException::class : $expected[Status::group($code)];
            self::assertInstanceOf($class, $e, $name);
            self::assertSame($code, $e->getStatus(), $name);
            self::assertSame($code, $e->getCode(), $name);
            self::assertNotSame('', $e->getMessage(), $name);
        }
        self::assertInstanceOf(
            Exception\WebhookVerificationException::class,
            Library::exception($ffi, Status::WEBHOOK_TOKEN_MISMATCH, Library::errorOut($ffi))
        );
        self::assertInstanceOf(
            Exception\WebhookParseException::class,
            Library::exception($ffi, Status::WEBHOOK_BODY_NOT_JSON, Library::errorOut($ffi))
        );
        self::assertInstanceOf(
            Exception\DecodeException::class,
            Library::exception($ffi, Status::API_DECODE, Library::errorOut($ffi))
        );
    }

    public function testThePanicBoundaryBecomesAnIikoException(): void
    {
        // In a child process: the library prints the panic to stderr.
        [$exit, $out, $err] = Php::run(
            // The hook is no part of the header: declared here, against the
            // test build of the library (IIKOCLOUD_LIB).
            '$ffi = IikoCloud\Library::ffi();'
            . '$hook = FFI::cdef("typedef struct iiko_error iiko_error; int32_t iiko_debug_force_panic(iiko_error **err_out);", getenv("IIKOCLOUD_LIB"));'
            . '$raw = $hook->new("iiko_error *"); $status = $hook->iiko_debug_force_panic(FFI::addr($raw));'
            . '$e = IikoCloud\Library::exception($ffi, $status, $ffi->cast("iiko_error *", $raw));'
            . 'echo get_class($e), " ", $e->getStatus(), " ", IikoCloud\Library::liveHandles();',
            ['RUST_BACKTRACE' => '0']
        );
        self::assertSame(0, $exit, $err);
        self::assertSame(IikoException::class . ' ' . Status::PANIC . ' 0', $out);
        self::assertStringContainsString('iiko_debug_force_panic was called', $err);
    }
}
