<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\Shapes;
use IikoCloud\Tests\Support\TestCase;

/**
 * Keys the document does not list: an answer may carry them (the core keeps
 * them and the service adds fields over time), so every `…_Out` shape ends in
 * `...`; a request of a closed schema may not, so its `…_In` shape is sealed.
 * Checked with Support\Shapes, the run-time reading of the generated types,
 * on written values and on real answers of the emulator.
 */
final class ShapesTest extends TestCase
{
    /** The shape the organizations answer had while answer shapes were sealed. */
    private const SEALED_ORGANIZATIONS = "array{correlationId: string, organizations: list<array{responseType: 'Simple', "
        . 'id: string, name: string|null, code?: string|null, externalData?: list<array{key: string, value: string}>|null}>}';

    protected function setUp(): void
    {
        parent::setUp();
        if (!Shapes::available()) {
            self::markTestSkipped('needs php-phpstan-phpdoc-parser (scripts/php-test.sh installs it)');
        }
    }

    public function testTheCheckerTakesUnlistedKeysOnlyWhereTheShapeEndsInDots(): void
    {
        $value = ['id' => 'a', 'addedLater' => ['since' => 2]];
        self::assertSame([], Shapes::typeProblems('array{id: string, ...}', $value));
        self::assertSame(
            ['$value.addedLater: a key the sealed shape does not have'],
            Shapes::typeProblems('array{id: string}', $value)
        );
        // The keys an open shape lists are still held to it.
        self::assertSame(['$value.id: missing'], Shapes::typeProblems('array{id: string, ...}', ['addedLater' => 1]));
        self::assertSame(['$value.id: 7, not string'], Shapes::typeProblems('array{id: string, ...}', ['id' => 7, 'addedLater' => 1]));
        // Nested, and in a union's variant.
        $nested = 'list<array{type: \'A\', a: int, ...}|array{type: \'B\', b: array{c: bool}, ...}>';
        self::assertSame([], Shapes::typeProblems($nested, [['type' => 'B', 'b' => ['c' => true], 'x' => 1]]));
        self::assertSame(
            ['$value[0].b.x: a key the sealed shape does not have'],
            Shapes::typeProblems($nested, [['type' => 'B', 'b' => ['c' => true, 'x' => 1]]])
        );
        self::assertSame(['$value: an array, not a list'], Shapes::typeProblems('list{int, ...}', [0 => 1, 'a' => 2]));
        self::assertSame(['$value[1]: missing'], Shapes::typeProblems('list{int, string}', [1]));
    }

    public function testEveryAnswerShapeTakesUnlistedKeysAndAClosedRequestShapeRefusesThem(): void
    {
        // Closed schemas in the document, all three.
        self::assertSame([], Shapes::problems('Common_CorrelationIdResponse_Out', ['correlationId' => 'c', 'addedLater' => true]));
        $organizations = ['correlationId' => 'c', 'addedLater' => 1, 'organizations' => [
            ['responseType' => 'Simple', 'id' => Emulator::ORG, 'name' => null, 'addedLater' => ['x' => [1]]],
        ]];
        self::assertSame([], Shapes::problems('Organizations_GetOrganizationsResponse_Out', $organizations));
        self::assertSame([], Shapes::problems('Organizations_GetOrganizationsResponse_Out', [
            'correlationId' => 'c',
            'organizations' => [['responseType' => 'Simple', 'id' => Emulator::ORG, 'name' => 'N', 'code' => 'C',
                'externalData' => [['key' => 'k', 'value' => 'v', 'addedLater' => 1]]]],
        ]));
        self::assertSame(
            ['$value.addedByTheCaller: a key the sealed shape does not have'],
            Shapes::problems('WebHooks_GetWebHookSettingsRequest_In', ['organizationId' => Emulator::ORG, 'addedByTheCaller' => 1])
        );
        // A request of an open schema takes them.
        self::assertSame([], Shapes::problems('AccountGetRequest_In', ['id' => 'a', 'addedByTheCaller' => 1]));
        // Still checked where listed.
        self::assertSame(
            ['$value.organizations[0].id: missing'],
            Shapes::problems('Organizations_GetOrganizationsResponse_Out', ['correlationId' => 'c', 'organizations' => [
                ['responseType' => 'Simple', 'name' => null, 'addedLater' => 1],
            ]])
        );
    }

    public function testRealAnswersWithUnlistedFieldsFitTheirReturnTypes(): void
    {
        $client = Emulator::client();
        $orgs = $client->api()->organizations();

        // The emulator's first organization carries a field the document does
        // not list, as a newer service would.
        $answer = $orgs->get([]);
        self::assertSame(['flags' => [1, 2, 3], 'introducedIn' => 'emulator', 'nested' => ['ok' => true]], $answer['organizations'][0]['futureField']);
        self::assertSame([], Shapes::answerProblems($orgs, 'get', $answer));
        self::assertSame(
            ['$value.organizations[0].futureField: a key the sealed shape does not have'],
            Shapes::typeProblems(self::SEALED_ORGANIZATIONS, $answer),
            'a sealed answer shape would refuse the real answer'
        );
        $extended = $orgs->get(['returnAdditionalInfo' => true]);
        self::assertSame('Extended', $extended['organizations'][0]['responseType']);
        self::assertArrayHasKey('futureField', $extended['organizations'][0]);
        self::assertSame([], Shapes::answerProblems($orgs, 'get', $extended));

        // A real answer with fields added, at the top and inside a nested closed schema.
        $webhooks = $client->webhooks();
        $webhooks->updateSettings(['organizationId' => Emulator::ORG, 'webHooksUri' => 'https://example.test/hook',
            'authToken' => 'shapes-test-token-7c2e', 'webHooksFilter' => ['deliveryOrderFilter' => ['orderStatuses' => ['Closed'], 'errors' => true]]]);
        $settings = $webhooks->settings(['organizationId' => Emulator::ORG]);
        self::assertSame([], Shapes::answerProblems($webhooks, 'settings', $settings));
        self::assertTrue($settings['webHooksFilter']['deliveryOrderFilter']['errors'] ?? null);
        $settings['addedByTheService'] = ['since' => '2026'];
        $settings['webHooksFilter']['deliveryOrderFilter']['addedByTheService'] = true;
        self::assertSame([], Shapes::answerProblems($webhooks, 'settings', $settings));
        unset($settings['correlationId']);
        self::assertSame(['$answer.correlationId: missing'], Shapes::answerProblems($webhooks, 'settings', $settings));

        // The request of the same operation, a closed schema, is sealed.
        self::assertSame([], Shapes::requestProblems($webhooks, 'settings', ['organizationId' => Emulator::ORG]));
        self::assertSame(
            ['$request.addedByTheCaller: a key the sealed shape does not have'],
            Shapes::requestProblems($webhooks, 'settings', ['organizationId' => Emulator::ORG, 'addedByTheCaller' => 1])
        );
    }
}
