<?php

declare(strict_types=1);

namespace IikoCloud\Tests\Support;

use IikoCloud\Client;

/**
 * The emulator's HTTP control endpoints (/_emulator/...), see emulator/README.md.
 */
final class Emulator
{
    public const APP_ID = 'emulator-app';
    public const CLIENT_SECRET = 'emulator-secret';
    public const API_KEY = 'emulator-api-key';
    public const ORG = '441e1320-3f58-4702-9f9e-aa34cdef9c04';
    public const SECOND_ORG = 'a0c4696d-b51f-48b3-83c1-586ddfaf4a42';
    public const DISABLED_ORG = 'a244237d-e854-4c0a-abf5-4ec2180db814';
    public const TERMINAL_GROUP = '7b668cda-784b-4938-bd54-cd2bd147a44c';
    public const V2_TOKEN = '/api/v2/access_token';
    public const ORGS = '/api/1/organizations';

    /** @var resource|null the emulator process started by the bootstrap */
    private static $process = null;

    public static function url(): string
    {
        return rtrim((string) getenv('IIKO_BASE_URL'), '/');
    }

    /** A client of the emulator with the default credentials; named arguments override. */
    public static function client(mixed ...$options): Client
    {
        return new Client(...array_merge([
            'appId' => self::APP_ID,
            'clientSecret' => self::CLIENT_SECRET,
            'apiKey' => self::API_KEY,
            'baseUrl' => self::url(),
            'retryBaseDelay' => 0.01,
        ], $options));
    }

    /** Back to start-up state: logs, faults, webhook settings (tokens and config stay). */
    public static function reset(): void
    {
        self::post('/_emulator/reset');
        self::post('/_emulator/faults/clear');
    }

    /** @return list<array<string, mixed>> */
    public static function requests(?string $path = null): array
    {
        return self::get('/_emulator/requests' . ($path === null ? '' : '?path=' . rawurlencode($path)));
    }

    public static function requestCount(string $path): int
    {
        return count(self::requests($path));
    }

    /** @param array<mixed>|string $spec a fault spec (see the emulator README) */
    public static function fault(array|string $spec): void
    {
        self::post('/_emulator/faults', $spec);
    }

    public static function expireTokens(): void
    {
        self::post('/_emulator/expire-tokens');
    }

    /**
     * @param array<string, mixed> $changes
     * @return array<string, mixed> the new config
     */
    public static function config(array $changes = []): array
    {
        return $changes === [] ? self::get('/_emulator/config') : self::post('/_emulator/config', $changes);
    }

    /** @return list<array<string, mixed>> */
    public static function deliveries(): array
    {
        return self::get('/_emulator/deliveries');
    }

    public static function waitDeliveries(int $count, int $timeoutMs, ?string $outcome = null): bool
    {
        $body = ['count' => $count, 'timeoutMs' => $timeoutMs];
        if ($outcome !== null) {
            $body['outcome'] = $outcome;
        }
        return (bool) self::post('/_emulator/wait-deliveries', $body)['ok'];
    }

    /**
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    public static function trigger(string $event, array $body = []): array
    {
        return self::post('/_emulator/events/' . $event, $body);
    }

    /** @return mixed the decoded answer */
    public static function get(string $path): mixed
    {
        return self::send('GET', $path, null);
    }

    /**
     * @param mixed $body JSON-encoded when not null
     * @return mixed the decoded answer
     */
    public static function post(string $path, mixed $body = null): mixed
    {
        // Control bodies are JSON objects: an empty PHP array is sent as {}.
        return self::send('POST', $path, $body === null || $body === [] ? '{}' : json_encode($body, JSON_THROW_ON_ERROR));
    }

    private static function send(string $method, string $path, ?string $body): mixed
    {
        $context = stream_context_create(['http' => [
            'method' => $method,
            'header' => "Content-Type: application/json\r\n",
            'content' => $body ?? '',
            'ignore_errors' => true,
            'timeout' => 70,
        ]]);
        $text = file_get_contents(self::url() . $path, false, $context);
        $status = isset($http_response_header[0]) ? (int) explode(' ', $http_response_header[0])[1] : 0;
        if ($text === false || $status !== 200) {
            throw new \RuntimeException(sprintf('emulator %s %s: HTTP %d %s', $method, $path, $status, (string) $text));
        }
        return json_decode($text, true, 512, JSON_THROW_ON_ERROR);
    }

    /** Starts the emulator binary for this test run and sets IIKO_BASE_URL. */
    public static function startForTests(string $binary): void
    {
        if (!is_file($binary)) {
            fwrite(STDERR, "IIKO_BASE_URL is not set and $binary is missing: run scripts/php-test.sh\n");
            exit(1);
        }
        $pipes = [];
        $process = proc_open([$binary, '--port', '0'], [1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'a']], $pipes);
        if (!is_resource($process)) {
            fwrite(STDERR, "cannot start $binary\n");
            exit(1);
        }
        $line = (string) fgets($pipes[1]);
        if (preg_match('#listening on (http://\S+)#', $line, $m) !== 1) {
            fwrite(STDERR, "the emulator did not start: $line\n");
            exit(1);
        }
        self::$process = $process;
        putenv('IIKO_BASE_URL=' . $m[1]);
        register_shutdown_function(static function (): void {
            if (is_resource(self::$process)) {
                proc_terminate(self::$process);
                proc_close(self::$process);
            }
        });
    }
}
