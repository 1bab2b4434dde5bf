<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Api\Deliveries;
use IikoCloud\Client;
use IikoCloud\Exception\CommandException;
use IikoCloud\Exception\CommandExpiredException;
use IikoCloud\Exception\CommandFailedException;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Status;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\TestCase;

/**
 * Every operation by resource group (generated classes under src/Api), the
 * checks before sending, exact amounts, waiting, command exceptions, and the
 * language-neutral vectors of tests/vectors/operations.json, against the emulator.
 */
final class OperationsTest extends TestCase
{
    private const TG = '7b668cda-784b-4938-bd54-cd2bd147a44c';
    private const MARGHERITA = 'b1e604c4-586f-4a06-b3d0-ff67e6c542a2';

    /** @return array<string, mixed> */
    private static function order(string $product, string $price, string $phone = '+79160000000'): array
    {
        return [
            'organizationId' => Emulator::ORG,
            'terminalGroupId' => self::TG,
            'order' => ['phone' => $phone, 'items' => [
                ['type' => 'Product', 'productId' => $product, 'amount' => 3, 'price' => $price],
            ]],
        ];
    }

    public function testEveryOperationOfTheSnapshotHasAMethod(): void
    {
        $spec = json_decode((string) file_get_contents(dirname(__DIR__, 3) . '/spec/operations.json'), true, 512, JSON_THROW_ON_ERROR);
        $client = Emulator::client();
        $checked = 0;
        foreach ($spec['operations'] as $op) {
            $target = $client->api();
            $segments = explode('.', $op['name']);
            foreach ($segments as $i => $segment) {
                $method = lcfirst(str_replace('_', '', ucwords($segment, '_')));
                self::assertTrue(method_exists($target, $method), $op['name'] . ': ' . $method);
                $last = $i === count($segments) - 1;
                $ref = new \ReflectionMethod($target, $method);
                if ($last && $ref->getNumberOfParameters() > 0) {
                    $checked++;
                    continue;
                }
                $target = $target->$method();
                if ($last) {
                    // A path that is a call and a group: the group's get().
                    self::assertTrue(method_exists($target, 'get'), $op['name']);
                    $checked++;
                }
            }
        }
        self::assertSame(count($spec['operations']), $checked);
        self::assertInstanceOf(Deliveries::class, $client->deliveries());
    }

    public function testCreateWaitAndReadBackWithExactAmounts(): void
    {
        $client = Emulator::client();
        $groups = $client->terminalGroups()->get(['organizationIds' => [Emulator::ORG]]);
        self::assertSame(Emulator::ORG, $groups['terminalGroups'][0]['organizationId']);

        $created = $client->deliveries()->create(self::order(self::MARGHERITA, '0.1'));
        self::assertSame('InProgress', $created['orderInfo']['creationStatus']);
        $client->wait($created, Emulator::ORG, 20.0);
        $read = $client->deliveries()->byId(['organizationId' => Emulator::ORG, 'orderIds' => [$created['orderInfo']['id']]]);
        $order = $read['orders'][0]['order'];
        self::assertSame('0.1', $order['items'][0]['price'], 'amounts are numeric strings');
        self::assertSame('0.3', $order['sum']);

        $waited = $client->deliveries()->create(self::order(self::MARGHERITA, '12345678901234.56', '+79160000001'), wait: true, waitTimeout: 20.0);
        self::assertSame('Success', $waited['orderInfo']['creationStatus']);
        self::assertSame('12345678901234.56', $waited['orderInfo']['order']['items'][0]['price']);
        self::assertSame('37037036703703.68', $waited['orderInfo']['order']['sum']);
        // The JSON text form keeps the digits as numbers.
        $json = $client->operationJson('terminal_groups', '{"organizationIds":["' . Emulator::ORG . '"]}');
        self::assertStringContainsString('"terminalGroups"', $json);
    }

    public function testRequestsAreCheckedBeforeSending(): void
    {
        $client = Emulator::client();
        $client->accessToken();
        $before = Emulator::requestCount('/api/1/deliveries/create');
        try {
            $client->deliveries()->create([
                'organizationId' => Emulator::ORG,
                'order' => ['phone' => '+79160000000', 'items' => [
                    ['type' => 'Product', 'productId' => self::MARGHERITA, 'amount' => -1],
                ]],
            ]);
            self::fail('refused');
        } catch (InvalidInputException $e) {
            self::assertStringContainsString('order.items[0].amount', $e->getMessage());
            self::assertSame(Status::INVALID_ARGUMENT, $e->getStatus());
        }
        self::assertSame($before, Emulator::requestCount('/api/1/deliveries/create'), 'nothing sent');
        $this->expectException(InvalidInputException::class);
        $this->expectExceptionMessage('no operation named');
        $client->operation('deliveries.nope');
    }

    public function testAMisspeltKeyIsRefusedWithItsPathUnlessAllowed(): void
    {
        $client = Emulator::client();
        $client->accessToken();
        $before = Emulator::requestCount('/api/1/deliveries/create');
        $item = ['type' => 'Product', 'productId' => self::MARGHERITA, 'amount' => 1, 'price' => '5'];
        $cases = [
            // At the top, nested, and in a list item.
            [array_merge(self::order(self::MARGHERITA, '5'), ['terminalGroupID' => self::TG]),
                'terminalGroupID: not a field of CreateOrderRequest; did you mean terminalGroupId?'],
            [['organizationId' => Emulator::ORG, 'order' => ['phone' => '+79160000000', 'items' => [$item], 'delivery_point' => new \stdClass()]],
                'order.delivery_point: not a field of DeliveryOrder; did you mean deliveryPoint?'],
            [['organizationId' => Emulator::ORG, 'order' => ['phone' => '+79160000000', 'items' => [$item, $item + ['coment' => 'no onions']]]],
                'order.items[1].coment: not a field of ProductOrderItem; did you mean comment?'],
        ];
        foreach ($cases as [$request, $message]) {
            try {
                $client->deliveries()->create($request);
                self::fail('refused: ' . $message);
            } catch (InvalidInputException $e) {
                self::assertStringContainsString($message, $e->getMessage());
                self::assertSame(Status::INVALID_ARGUMENT, $e->getStatus());
            }
        }
        self::assertSame($before, Emulator::requestCount('/api/1/deliveries/create'), 'nothing sent');
        // Sent on purpose: the emulator, which knows the document, refuses the key itself.
        try {
            $client->deliveries()->create(
                ['organizationId' => Emulator::ORG, 'terminalGroupId' => self::TG, 'order' => ['phone' => '+79160000000', 'items' => [$item + ['coment' => 'no onions']]]],
                allowUnknownFields: true
            );
            self::fail('the emulator refuses it');
        } catch (\IikoCloud\Exception\ApiException $e) {
            self::assertSame(400, $e->getHttpStatus());
            self::assertStringContainsString('coment', $e->getMessage());
        }
        self::assertSame($before + 1, Emulator::requestCount('/api/1/deliveries/create'));
    }

    public function testCommandExceptions(): void
    {
        $client = Emulator::client();
        try {
            $client->deliveries()->create(self::order('00000000-0000-4000-8000-000000000004', '1'), wait: true, waitTimeout: 20.0);
            self::fail('the command fails');
        } catch (CommandFailedException $e) {
            self::assertSame(Status::COMMAND_FAILED, $e->getStatus());
            self::assertNotNull($e->getCorrelationId());
            self::assertStringContainsString('ProductNotFound', $e->getMessage());
        }
        try {
            $client->wait('8c1bd5c1-0000-4000-8000-00000000dead', Emulator::ORG, 5.0);
            self::fail('expired');
        } catch (CommandExpiredException $e) {
            self::assertInstanceOf(CommandException::class, $e);
        }
        $this->expectException(InvalidInputException::class);
        $client->operation('terminal_groups', ['organizationIds' => [Emulator::ORG]], wait: true);
    }

    public function testOperationVectors(): void
    {
        $doc = json_decode((string) file_get_contents(dirname(__DIR__, 3) . '/tests/vectors/operations.json'), true, 512, JSON_THROW_ON_ERROR);
        self::assertSame('iikocloud-operation-vectors', $doc['format']);
        self::assertSame(1, $doc['version']);
        $client = Emulator::client();
        $runs = 0;
        foreach ($doc['cases'] as $case) {
            $name = $case['name'];
            $expect = $case['expect'];
            $wait = $case['wait'] ?? false;
            $error = null;
            $answer = null;
            // Through the JSON form, so a request that is not an object reaches the library as is.
            try {
                $answer = json_decode($client->operationJson($case['operation'], json_encode($case['request'], JSON_THROW_ON_ERROR), null, $wait, 20.0, true), true, 512, JSON_THROW_ON_ERROR);
            } catch (\IikoCloud\Exception\IikoException $e) {
                $error = $e;
            }
            $runs++;
            switch ($expect['outcome']) {
                case 'ok':
                    self::assertNull($error, $name . ': ' . ($error?->getMessage() ?? ''));
                    foreach ($expect['answer'] ?? [] as $check) {
                        $value = $answer;
                        foreach (explode('.', $check['path']) as $key) {
                            $value = is_array($value) && array_key_exists(ctype_digit($key) ? (int) $key : $key, $value) ? $value[ctype_digit($key) ? (int) $key : $key] : null;
                        }
                        if (array_key_exists('equals', $check)) {
                            self::assertSame($check['equals'], $value, $name . ': ' . $check['path']);
                        } elseif (array_key_exists('money', $check)) {
                            self::assertSame($check['money'], $value, $name . ': ' . $check['path']);
                        } else {
                            self::assertNotNull($value, $name . ': ' . $check['path']);
                        }
                    }
                    break;
                case 'invalid':
                    self::assertInstanceOf(InvalidInputException::class, $error, $name);
                    break;
                case 'command_failed':
                    self::assertInstanceOf(CommandFailedException::class, $error, $name);
                    break;
                default:
                    self::fail($name . ': unknown outcome');
            }
            foreach ($expect['error_contains'] ?? [] as $part) {
                self::assertStringContainsString($part, (string) $error?->getMessage(), $name);
            }
        }
        self::assertGreaterThanOrEqual(10, $runs);
    }
}
