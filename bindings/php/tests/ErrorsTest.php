<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Client;
use IikoCloud\Exception\ApiException;
use IikoCloud\Exception\AuthenticationException;
use IikoCloud\Exception\BadRequestException;
use IikoCloud\Exception\DecodeException;
use IikoCloud\Exception\ForbiddenException;
use IikoCloud\Exception\IikoException;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\NotFoundException;
use IikoCloud\Exception\RateLimitException;
use IikoCloud\Exception\ServerException;
use IikoCloud\Exception\TerminalTimeoutException;
use IikoCloud\Exception\TransportException;
use IikoCloud\Status;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\TestCase;

/**
 * Every error class, from real emulator answers and its fault injection.
 */
final class ErrorsTest extends TestCase
{
    private const UUID = 'a5d2e2a4-0d55-4c3c-9d8f-1a5a3a9b8c7d';

    /**
     * Runs $call and returns what it threw, checked to be exactly $class.
     *
     * @template T of IikoException
     * @param class-string<T> $class
     * @return T
     */
    private static function thrown(string $class, callable $call): IikoException
    {
        try {
            $call();
        } catch (IikoException $e) {
            self::assertSame($class, get_class($e), $e->getMessage());
            self::assertStringNotContainsString(Emulator::CLIENT_SECRET, $e->getMessage());
            self::assertStringNotContainsString(Emulator::API_KEY, $e->getMessage());
            return $e;
        }
        self::fail("nothing was thrown, expected $class");
    }

    /** The detail every error answer of the service carries. */
    private static function assertAnswer(ApiException $e, int $http, int $status, string $path): void
    {
        self::assertSame($http, $e->getHttpStatus());
        self::assertSame($status, $e->getStatus());
        self::assertSame($status, $e->getCode());
        self::assertSame($path, $e->getPath());
        self::assertMatchesRegularExpression('/^[0-9a-f-]{36}$/', (string) $e->getCorrelationId());
        self::assertStringContainsString((string) $e->getCorrelationId(), $e->getMessage());
        self::assertStringContainsString((string) $e->getCorrelationId(), $e->getBody());
        self::assertNotNull($e->getErrorCode());
        self::assertNotNull($e->getErrorDescription());
        self::assertInstanceOf(IikoException::class, $e);
    }

    public function testBadRequest(): void
    {
        $client = Emulator::client();
        $e = self::thrown(BadRequestException::class, fn () => $client->webhookSettings(self::UUID));
        self::assertAnswer($e, 400, Status::API_BAD_REQUEST, '/api/1/webhooks/settings');
        self::assertSame('BAD_REQUEST', $e->getErrorCode());
        self::assertStringContainsString(self::UUID, (string) $e->getErrorDescription());
    }

    public function testAuthenticationWithWrongCredentials(): void
    {
        $client = Emulator::client(clientSecret: 'not-the-secret-xyz');
        $e = self::thrown(AuthenticationException::class, fn () => $client->organizations());
        self::assertAnswer($e, 401, Status::API_UNAUTHORIZED, Emulator::V2_TOKEN);
        self::assertSame('INVALID_CREDENTIALS', $e->getErrorCode());
        self::assertStringNotContainsString('not-the-secret-xyz', $e->getMessage() . $e->getBody());
    }

    public function testA401GetsOneTokenRefreshAndOneRetry(): void
    {
        $client = Emulator::client();
        $client->accessToken();
        Emulator::fault(['kind' => 'unauthorized', 'path' => Emulator::ORGS, 'times' => 1]);
        self::assertCount(2, $client->organizations()['organizations']);
        self::assertSame(2, Emulator::requestCount(Emulator::V2_TOKEN));

        Emulator::fault(['kind' => 'unauthorized', 'path' => Emulator::ORGS, 'times' => 2]);
        $e = self::thrown(AuthenticationException::class, fn () => $client->organizations());
        self::assertAnswer($e, 401, Status::API_UNAUTHORIZED, Emulator::ORGS);
        self::assertSame(3, Emulator::requestCount(Emulator::V2_TOKEN));
    }

    public function testForbidden(): void
    {
        $client = Emulator::client();
        Emulator::fault(['kind' => 'status', 'status' => 403, 'path' => Emulator::ORGS]);
        $e = self::thrown(ForbiddenException::class, fn () => $client->organizations());
        self::assertAnswer($e, 403, Status::API_FORBIDDEN, Emulator::ORGS);
    }

    public function testNotFound(): void
    {
        $client = Emulator::client();
        $e = self::thrown(NotFoundException::class, fn () => $client->call('/api/1/no_such_method'));
        self::assertAnswer($e, 404, Status::API_NOT_FOUND, '/api/1/no_such_method');
        self::assertSame('NOT_FOUND', $e->getErrorCode());
    }

    public function testTerminalTimeout(): void
    {
        $client = Emulator::client();
        Emulator::fault(['kind' => 'status', 'status' => 408, 'path' => Emulator::ORGS]);
        $e = self::thrown(TerminalTimeoutException::class, fn () => $client->organizations());
        self::assertAnswer($e, 408, Status::API_TERMINAL_TIMEOUT, Emulator::ORGS);
        self::assertSame(1, Emulator::requestCount(Emulator::ORGS), 'a 408 is not retried');
    }

    public function testRateLimitCarriesRetryAfterAndIsNeverRetried(): void
    {
        $client = Emulator::client();
        Emulator::fault(['kind' => 'rate_limited', 'retryAfter' => 7, 'path' => Emulator::ORGS]);
        $e = self::thrown(RateLimitException::class, fn () => $client->call(Emulator::ORGS, [], idempotent: true));
        self::assertAnswer($e, 429, Status::API_RATE_LIMITED, Emulator::ORGS);
        self::assertSame(7, $e->getRetryAfter());
        self::assertSame(1, Emulator::requestCount(Emulator::ORGS));
    }

    public function testServerErrorAfterTheRetries(): void
    {
        $client = Emulator::client(retries: 2);
        Emulator::fault(['kind' => 'status', 'status' => 503, 'path' => Emulator::ORGS, 'times' => 3]);
        $e = self::thrown(ServerException::class, fn () => $client->organizations());
        self::assertAnswer($e, 503, Status::API_SERVER, Emulator::ORGS);
        self::assertSame('SERVICE_UNAVAILABLE', $e->getErrorCode());
        self::assertSame(3, Emulator::requestCount(Emulator::ORGS));
    }

    public function testAnotherStatusIsAPlainApiException(): void
    {
        $client = Emulator::client();
        Emulator::fault(['kind' => 'status', 'status' => 418, 'path' => Emulator::ORGS]);
        $e = self::thrown(ApiException::class, fn () => $client->organizations());
        self::assertAnswer($e, 418, Status::API_OTHER, Emulator::ORGS);
    }

    public function testUnreadableSuccessIsADecodeException(): void
    {
        $client = Emulator::client(retries: 0);
        $client->accessToken();
        foreach (['malformed_body', 'wrong_content_type'] as $kind) {
            Emulator::fault(['kind' => $kind, 'path' => Emulator::ORGS]);
            $e = self::thrown(DecodeException::class, fn () => $client->organizations());
            self::assertSame(Status::API_DECODE, $e->getStatus(), $kind);
            self::assertSame(200, $e->getHttpStatus(), $kind);
            self::assertSame(Emulator::ORGS, $e->getPath(), $kind);
            self::assertNotSame('', $e->getBody(), $kind);
        }
    }

    public function testTransportErrors(): void
    {
        $client = Emulator::client(retries: 0);
        $client->accessToken();

        Emulator::fault(['kind' => 'connection_reset', 'path' => Emulator::ORGS]);
        $e = self::thrown(TransportException::class, fn () => $client->organizations());
        self::assertSame('io', $e->getKind());
        self::assertSame(Emulator::ORGS, $e->getPath());
        self::assertNull($e->getCorrelationId());

        $slow = Emulator::client(retries: 0, timeout: 1.0, clientTimeout: 1.5);
        Emulator::fault(['kind' => 'delay', 'ms' => 3000, 'path' => Emulator::ORGS]);
        $e = self::thrown(TransportException::class, fn () => $slow->organizations());
        self::assertTrue($e->isTimeout());
        self::assertSame(Status::TRANSPORT_TIMEOUT, $e->getStatus());

        $small = Emulator::client(retries: 0, maxResponseBytes: 16);
        $e = self::thrown(TransportException::class, fn () => $small->organizations());
        self::assertSame('other', $e->getKind());

        $nowhere = Emulator::client(retries: 0, baseUrl: 'http://127.0.0.1:1');
        $e = self::thrown(TransportException::class, fn () => $nowhere->organizations());
        self::assertSame('connect', $e->getKind());
        self::assertSame(Emulator::V2_TOKEN, $e->getPath());

        // The core reports a failed name lookup as "dns" or, through ureq's
        // I/O error, "io"; either way it is a TransportException.
        $unknown = Emulator::client(retries: 0, baseUrl: 'http://no-such-host.invalid');
        $e = self::thrown(TransportException::class, fn () => $unknown->organizations());
        self::assertContains($e->getKind(), ['dns', 'io']);
    }

    public function testInvalidConfiguration(): void
    {
        $cases = [
            'no credentials' => fn () => new Client(baseUrl: Emulator::url()),
            'empty secret' => fn () => Emulator::client(clientSecret: ''),
            'both credential kinds' => fn () => Emulator::client(apiLogin: 'x'),
            'bad base URL' => fn () => Emulator::client(baseUrl: 'ftp://example.test'),
            'negative timeout' => fn () => Emulator::client(timeout: -1.0),
            'client timeout below the header' => fn () => Emulator::client(timeout: 10.0, clientTimeout: 5.0),
            'negative retries' => fn () => Emulator::client(retries: -1),
            'zero maxResponseBytes' => fn () => Emulator::client(maxResponseBytes: 0),
            'NUL in a credential' => fn () => Emulator::client(clientSecret: "emulator\0secret"),
            'token cache dir is a file' => fn () => Emulator::client(tokenCacheDir: __FILE__),
        ];
        foreach ($cases as $name => $make) {
            $e = self::thrown(InvalidInputException::class, $make);
            self::assertSame(Status::GROUP_ARGUMENTS, Status::group($e->getStatus()), $name);
            self::assertStringNotContainsString(Emulator::CLIENT_SECRET, $e->getMessage(), $name);
        }
        self::assertSame(0, Emulator::requestCount(Emulator::V2_TOKEN), 'nothing was sent');
    }

    public function testInvalidArguments(): void
    {
        $client = Emulator::client();
        $cases = [
            'not a UUID' => [Status::INVALID_ARGUMENT, fn () => $client->organizations(organizationIds: ['not-a-uuid'])],
            'not a list of strings' => [Status::INVALID_ARGUMENT, fn () => $client->organizations(organizationIds: [42])],
            'bad webhook URI' => [null, fn () => $client->updateWebhookSettings(Emulator::ORG, 'not a url')],
            'list as a body' => [Status::INVALID_JSON, fn () => $client->call(Emulator::ORGS, [1, 2])],
            'JSON text not an object' => [null, fn () => $client->callJson(Emulator::ORGS, '[1]')],
            'not JSON' => [Status::INVALID_JSON, fn () => $client->callJson(Emulator::ORGS, '{')],
            'bad path' => [null, fn () => $client->call('no-slash')],
            'unencodable body' => [Status::INVALID_JSON, fn () => $client->call(Emulator::ORGS, ['x' => NAN])],
        ];
        foreach ($cases as $name => [$status, $call]) {
            $e = self::thrown(InvalidInputException::class, $call);
            if ($status !== null) {
                self::assertSame($status, $e->getStatus(), $name);
            }
        }
        self::assertSame(0, Emulator::requestCount(Emulator::ORGS), 'nothing was sent');
    }
}
