<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Client;
use IikoCloud\Exception\IikoException;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\ServerException;
use IikoCloud\Status;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\TestCase;

/**
 * Every method of Client against the emulator.
 */
final class ClientTest extends TestCase
{
    public function testAccessTokenIsFetchedOnceAndCached(): void
    {
        $client = Emulator::client();
        self::assertSame(0, Emulator::requestCount(Emulator::V2_TOKEN), 'the constructor makes no request');
        $token = $client->accessToken();
        self::assertSame(3, count(explode('.', $token->token)), 'JWT-shaped');
        self::assertGreaterThan(time() * 1000, $token->expiresAtMs);
        self::assertSame(intdiv($token->expiresAtMs, 1000), $token->expiresAt()->getTimestamp());
        self::assertSame($token->token, $client->accessToken()->token);
        $client->organizations();
        self::assertSame(1, Emulator::requestCount(Emulator::V2_TOKEN));
        self::assertStringNotContainsString($token->token, print_r($token, true));
        self::assertStringNotContainsString($token->token, var_export((array) $token->__debugInfo(), true));
    }

    public function testOrganizations(): void
    {
        $client = Emulator::client();
        $answer = $client->organizations();
        self::assertIsString($answer['correlationId']);
        $ids = array_column($answer['organizations'], 'id');
        self::assertSame([Emulator::ORG, Emulator::SECOND_ORG], $ids);
        self::assertSame('Emulator Pizza (Central)', $answer['organizations'][0]['name']);
        self::assertSame('Simple', $answer['organizations'][0]['responseType']);

        $one = $client->organizations(organizationIds: [Emulator::SECOND_ORG]);
        self::assertSame([Emulator::SECOND_ORG], array_column($one['organizations'], 'id'));

        $extended = $client->organizations(returnAdditionalInfo: true);
        self::assertSame('Extended', $extended['organizations'][0]['responseType']);
        self::assertSame('DroneOnly', $extended['organizations'][1]['deliveryServiceType'], 'unknown enum values as sent');

        $all = $client->organizations(includeDisabled: true);
        self::assertContains(Emulator::DISABLED_ORG, array_column($all['organizations'], 'id'));

        $external = $client->organizations(returnExternalData: ['crmId']);
        self::assertSame([['key' => 'crmId', 'value' => 'crm-1001']], $external['organizations'][0]['externalData']);
        self::assertArrayHasKey('futureField', $external['organizations'][0], 'unknown fields kept');
    }

    public function testWebhookSettingsRoundTrip(): void
    {
        $client = Emulator::client();
        $empty = $client->webhookSettings(Emulator::ORG);
        self::assertNull($empty['webHooksUri']);
        self::assertSame('emulator-api-login', $empty['apiLoginName']);

        $filter = ['deliveryOrderFilter' => ['orderStatuses' => ['Unconfirmed', 'Closed'], 'errors' => true],
            'stopListUpdateFilter' => ['updates' => true]];
        $answer = $client->updateWebhookSettings(Emulator::ORG, 'https://example.test/hook', 'a-long-random-token', $filter);
        self::assertIsString($answer['correlationId']);

        $settings = $client->webhookSettings(Emulator::ORG);
        self::assertSame('https://example.test/hook', $settings['webHooksUri']);
        self::assertSame('a-long-random-token', $settings['authToken']);
        // The answer is the service's text, keys in the service's order: compare the keys' values.
        $expected = $filter['deliveryOrderFilter'];
        $actual = $settings['webHooksFilter']['deliveryOrderFilter'];
        ksort($expected);
        ksort($actual);
        self::assertSame($expected, $actual);

        $client->updateWebhookSettings(Emulator::ORG, 'https://example.test/other');
        $settings = $client->webhookSettings(Emulator::ORG);
        self::assertSame('https://example.test/other', $settings['webHooksUri']);
        self::assertNull($settings['authToken']);
    }

    public function testStopLists(): void
    {
        $client = Emulator::client();
        $answer = $client->stopLists([Emulator::ORG]);
        $groups = $answer['terminalGroupStopLists'][0]['items'];
        self::assertSame(Emulator::TERMINAL_GROUP, $groups[0]['terminalGroupId']);
        self::assertEqualsWithDelta(0.1, $groups[0]['items'][0]['balance'], 1e-12);
        self::assertNull($groups[0]['items'][0]['sizeId']);

        $filtered = $client->stopLists([Emulator::ORG], returnSize: true, terminalGroupsIds: [Emulator::TERMINAL_GROUP]);
        $groups = $filtered['terminalGroupStopLists'][0]['items'];
        self::assertCount(1, $groups);
        self::assertNotNull($groups[0]['items'][0]['sizeId'], 'returnSize fills sizeId');
    }

    public function testCallAndCallJson(): void
    {
        $client = Emulator::client();
        $answer = $client->call('/api/1/organizations', ['organizationIds' => [Emulator::ORG]]);
        self::assertSame([Emulator::ORG], array_column($answer['organizations'], 'id'));
        self::assertCount(2, $client->call('/api/1/organizations')['organizations']);
        self::assertCount(2, $client->call('/api/1/organizations', [])['organizations'], '[] is sent as {}');
        self::assertCount(2, $client->call('/api/1/organizations', new \stdClass())['organizations']);

        // Exact amounts: the JSON text keeps 12.35 as written.
        $json = $client->callJson('/api/1/stop_lists', json_encode(['organizationIds' => [Emulator::ORG]]));
        self::assertStringContainsString('"balance":12.35', $json);
    }

    public function testOnlyIdempotentCallsAreRetried(): void
    {
        $client = Emulator::client();
        $client->accessToken();
        Emulator::fault(['kind' => 'status', 'status' => 503, 'path' => '/api/1/stop_lists', 'times' => 2]);
        $answer = $client->call('/api/1/stop_lists', ['organizationIds' => [Emulator::ORG]], idempotent: true);
        self::assertArrayHasKey('terminalGroupStopLists', $answer);
        self::assertSame(3, Emulator::requestCount('/api/1/stop_lists'));

        Emulator::fault(['kind' => 'status', 'status' => 503, 'path' => '/api/1/stop_lists', 'times' => 1]);
        try {
            $client->call('/api/1/stop_lists', ['organizationIds' => [Emulator::ORG]]);
            self::fail('a non-idempotent call was retried');
        } catch (ServerException $e) {
            self::assertSame(503, $e->getHttpStatus());
        }
        self::assertSame(4, Emulator::requestCount('/api/1/stop_lists'));

        // The typed calls are safe to repeat.
        Emulator::fault(['kind' => 'status', 'status' => 502, 'path' => Emulator::ORGS, 'times' => 2]);
        $client->organizations();
        self::assertSame(3, Emulator::requestCount(Emulator::ORGS));
    }

    public function testTimeoutHeaderPerClientAndPerCall(): void
    {
        $client = Emulator::client(timeout: 15.0);
        self::assertSame(15.0, $client->getTimeout());
        $client->organizations();
        $client->call('/api/1/organizations', [], timeout: 42.0);
        Emulator::client(timeout: 7.2)->organizations();
        $headers = array_column(Emulator::requests(Emulator::ORGS), 'timeoutHeader');
        self::assertSame(['15', '42', '8'], $headers, 'whole seconds, rounded up');
    }

    public function testLegacyApiLogin(): void
    {
        $client = new Client(apiLogin: Emulator::API_KEY, baseUrl: Emulator::url());
        self::assertCount(2, $client->organizations()['organizations']);
        self::assertSame(1, Emulator::requestCount('/api/1/access_token'));
        self::assertSame(0, Emulator::requestCount(Emulator::V2_TOKEN));
    }

    public function testOtherOptionsAreAccepted(): void
    {
        $client = Emulator::client(
            clientTimeout: 30.0,
            retries: 0,
            maxResponseBytes: 1 << 20,
            tokenRefreshMargin: 30.0,
            tokenFallbackLifetime: 600.0,
            baseUrl: Emulator::url() . '/'
        );
        self::assertSame(Emulator::url(), $client->getBaseUrl());
        self::assertCount(2, $client->organizations()['organizations']);
    }

    public function testSettingsAsOneArray(): void
    {
        $client = new Client([
            'appId' => Emulator::APP_ID,
            'clientSecret' => Emulator::CLIENT_SECRET,
            'apiKey' => Emulator::API_KEY,
            'baseUrl' => Emulator::url(),
            'timeout' => 20, // an int is taken as seconds too
            'tokenCacheDir' => false, // getenv() of an unset variable: not given
        ]);
        self::assertSame(20.0, $client->getTimeout());
        self::assertCount(2, $client->organizations()['organizations']);

        $refused = [
            'a typo' => [['apiLogin' => 'x', 'tokenCachDir' => '/tmp'], 'unknown client option \'tokenCachDir\''],
            'a list' => [['x'], 'unknown client option 0'],
            'a wrong type' => [['apiLogin' => 'x', 'timeout' => '15'], '($timeout) must be of type ?float, string given'],
            'a nested array' => [['appId' => ['x']], 'appId must be a string'],
        ];
        foreach ($refused as $name => [$options, $message]) {
            try {
                new Client($options);
                self::fail("$name: accepted");
            } catch (InvalidInputException $e) {
                self::assertStringContainsString($message, $e->getMessage(), $name);
                self::assertSame(Status::INVALID_CONFIG, $e->getStatus(), $name);
            }
        }
        $this->expectException(InvalidInputException::class);
        $this->expectExceptionMessage('not both');
        new Client(['apiLogin' => 'x'], Emulator::CLIENT_SECRET);
    }

    public function testCloseAndDebugInfoShowNoSecret(): void
    {
        $client = Emulator::client();
        $shown = print_r($client, true) . var_export($client->__debugInfo(), true);
        self::assertStringNotContainsString(Emulator::CLIENT_SECRET, $shown);
        self::assertStringNotContainsString(Emulator::API_KEY, $shown);
        self::assertStringContainsString(Emulator::url(), $shown);
        self::assertFalse($client->isClosed());
        $client->close();
        $client->close();
        self::assertTrue($client->isClosed());
        $this->expectException(IikoException::class);
        $this->expectExceptionMessage('closed');
        $client->organizations();
    }

    /**
     * @requires extension pcntl
     */
    public function testAForkedChildMustCreateItsOwnClient(): void
    {
        $client = Emulator::client();
        $client->organizations();
        $pid = pcntl_fork();
        if ($pid === 0) {
            $code = 3;
            try {
                $client->organizations();
            } catch (IikoException $e) {
                $code = str_contains($e->getMessage(), 'another process') ? 0 : 4;
            }
            try {
                $own = Emulator::client();
                $own->organizations();
            } catch (\Throwable $e) {
                $code = 5;
            }
            // Leave at once: no PHPUnit shutdown in the child.
            posix_kill(getmypid(), $code === 0 ? SIGKILL : SIGTERM);
        }
        pcntl_waitpid($pid, $status);
        self::assertTrue(pcntl_wifsignaled($status));
        self::assertSame(SIGKILL, pcntl_wtermsig($status), 'the child saw the fork error and made its own client');
        self::assertCount(2, $client->organizations()['organizations'], 'the parent is unaffected');
    }
}
