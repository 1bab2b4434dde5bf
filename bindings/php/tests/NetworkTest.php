<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Client;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\ProxyException;
use IikoCloud\Exception\TlsException;
use IikoCloud\Exception\TransportException;
use IikoCloud\Status;
use PHPUnit\Framework\TestCase;

/**
 * The client over HTTPS with `caFile` and through a proxy with `proxy`:
 * scripts/php-test.sh starts the emulator with a leaf from a test root and a
 * CONNECT proxy with Basic credentials (scripts/tls-fixture.sh).
 */
final class NetworkTest extends TestCase
{
    /** @return array{url: string, ca: string, proxy: string, password: string, log: string} */
    private static function fixture(): array
    {
        $names = ['url' => 'IIKO_TLS_BASE_URL', 'ca' => 'IIKO_TLS_CA_FILE', 'proxy' => 'IIKO_TLS_PROXY_URL',
            'password' => 'IIKO_TLS_PROXY_PASSWORD', 'log' => 'IIKO_TLS_PROXY_LOG'];
        $out = [];
        foreach ($names as $key => $name) {
            $value = getenv($name);
            if (!is_string($value) || $value === '') {
                self::fail("$name is not set: run scripts/php-test.sh");
            }
            $out[$key] = $value;
        }
        return $out;
    }

    private static function client(string $url, mixed ...$options): Client
    {
        return new Client(...array_merge([
            'appId' => 'emulator-app',
            'clientSecret' => 'emulator-secret',
            'apiKey' => 'emulator-api-key',
            'baseUrl' => $url,
            'retries' => 0,
        ], $options));
    }

    public function testUnknownRootIsATlsError(): void
    {
        $f = self::fixture();
        try {
            self::client($f['url'])->organizations();
            self::fail('the test root was trusted without caFile');
        } catch (TlsException $e) {
            self::assertInstanceOf(TransportException::class, $e);
            self::assertSame(Status::TRANSPORT_TLS, $e->getStatus());
            self::assertSame('tls', $e->getKind());
            self::assertStringContainsString('127.0.0.1: certificate issued by an unknown authority', $e->getMessage());
        }
    }

    public function testCaFileAndProxy(): void
    {
        $f = self::fixture();
        $before = substr_count((string) file_get_contents($f['log']), 'tunnel ');
        $client = self::client($f['url'], caFile: $f['ca'], proxy: $f['proxy']);
        self::assertNotEmpty($client->organizations()['organizations']);
        self::assertSame($before + 1, substr_count((string) file_get_contents($f['log']), 'tunnel '));
        self::assertStringNotContainsString($f['password'], print_r($client, true));
    }

    public function testWrongProxyPasswordIsAProxyError(): void
    {
        $f = self::fixture();
        $wrong = str_replace(':' . $f['password'] . '@', ':nope-' . $f['password'] . '@', $f['proxy']);
        self::assertNotSame($wrong, $f['proxy']);
        try {
            self::client($f['url'], caFile: $f['ca'], proxy: $wrong)->organizations();
            self::fail('the proxy accepted a wrong password');
        } catch (ProxyException $e) {
            self::assertSame('proxy', $e->getKind());
            self::assertStringContainsString('407', $e->getMessage());
            self::assertStringNotContainsString($f['password'], $e->getMessage() . $e->getTraceAsString());
        }
    }

    public function testBadTrustOptions(): void
    {
        $f = self::fixture();
        try {
            self::client($f['url'], caFile: '/nonexistent/root.pem');
            self::fail('a missing caFile was accepted');
        } catch (InvalidInputException $e) {
            self::assertStringContainsString('cannot be read', $e->getMessage());
        }
        $this->expectException(InvalidInputException::class);
        self::client($f['url'], trust: 'nobody');
    }
}
