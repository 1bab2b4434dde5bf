<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Client;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\Shapes;
use IikoCloud\Tests\Support\TestCase;

/**
 * A delivery's whole life through the generated resource groups, against the
 * emulator, with a real webhook endpoint (tests/fixtures/webhook_receiver.php
 * under `php -S`): the dictionaries and the menu, the webhook pointed at the
 * endpoint, an order created and its command followed, its events received
 * and verified with the token (and refused with another one), the order
 * read back, cancelled, and the cancellation's event. Every request and
 * answer is also held against its method's generated PHPDoc type
 * (Support\Shapes), so the shapes say what the binding really sends and
 * returns.
 */
final class WholeFlowTest extends TestCase
{
    private const TOKEN = 'whole-flow-receiver-token-5d1c8e';
    /** A product of the emulator's menu (looked up there for its price). */
    private const PIZZA = 'b1e604c4-586f-4a06-b3d0-ff67e6c542a2';

    /** @var resource|null */
    private $server = null;
    private string $log = '';
    private string $url = '';
    /** @var array<string, mixed> */
    private array $config = [];
    private int $shapeChecks = 0;

    protected function setUp(): void
    {
        parent::setUp();
        if (!Shapes::available()) {
            self::markTestSkipped('needs php-phpstan-phpdoc-parser (scripts/php-test.sh installs it)');
        }
        $this->config = Emulator::config();
        // One attempt per delivery: a refused one is final at once.
        Emulator::config(['retryDelaysSecs' => [], 'deliveryTimeoutSecs' => 10]);

        $this->log = tempnam(sys_get_temp_dir(), 'iikocloud-flow-') ?: '';
        [$this->server, $port] = Php::serve(
            __DIR__ . '/fixtures/webhook_receiver.php',
            ['RECEIVER_TOKEN' => self::TOKEN, 'RECEIVER_LOG' => $this->log],
            $this->log . '.server'
        );
        self::assertIsResource($this->server);
        $this->url = "http://127.0.0.1:$port/iiko";
    }

    protected function tearDown(): void
    {
        Php::stop($this->server);
        @unlink($this->log);
        @unlink($this->log . '.server');
        if ($this->config !== []) {
            Emulator::config([
                'retryDelaysSecs' => $this->config['retryDelaysSecs'],
                'deliveryTimeoutSecs' => $this->config['deliveryTimeoutSecs'],
            ]);
        }
        parent::tearDown();
    }

    /**
     * Calls `$group->$method($request, ...$more)` after checking the request
     * against the method's `@param`, and checks the answer against its `@return`.
     *
     * @param array<string, mixed> $request
     * @param array<string, mixed> $more further named arguments
     * @return array<string, mixed>
     */
    private function call(object $group, string $method, array $request, array $more = []): array
    {
        self::assertSame([], Shapes::requestProblems($group, $method, $request), "$method: the request fits its @param");
        $answer = $group->$method($request, ...$more);
        self::assertSame([], Shapes::answerProblems($group, $method, $answer, $more), "$method: the answer fits its @return");
        $this->shapeChecks += 2;
        return $answer;
    }

    /**
     * The requests the endpoint has seen, as it logged them.
     *
     * @return list<array{status: int, reason: ?string, events: list<array<string, mixed>>}>
     */
    private function received(): array
    {
        $lines = [];
        foreach (file($this->log, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) ?: [] as $line) {
            $lines[] = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
        }
        return $lines;
    }

    /**
     * Waits for the endpoint to accept a DeliveryOrderUpdate of $orderId in $status.
     *
     * @return array<string, mixed> the event
     */
    private function orderEvent(string $orderId, string $status): array
    {
        $deadline = microtime(true) + 20;
        do {
            foreach ($this->received() as $request) {
                foreach ($request['events'] as $event) {
                    if ($event['type'] === 'DeliveryOrderUpdate' && $event['orderId'] === $orderId && $event['status'] === $status) {
                        self::assertSame(200, $request['status']);
                        return $event;
                    }
                }
            }
            usleep(50000);
        } while (microtime(true) < $deadline);
        self::fail("no DeliveryOrderUpdate $status of $orderId reached the endpoint: " . print_r($this->received(), true));
    }

    private static function uuid(): string
    {
        $b = random_bytes(16);
        $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
        $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
    }

    public function testADeliveryFromTheMenuToItsCancellation(): void
    {
        $client = Emulator::client();
        $org = Emulator::ORG;

        // Dictionaries: read whatever the emulator holds; only their shape is checked.
        $groups = $this->call($client->terminalGroups(), 'get', ['organizationIds' => [$org]]);
        $terminal = $groups['terminalGroups'][0]['items'][0]['id'];
        self::assertSame($org, $groups['terminalGroups'][0]['organizationId']);
        $this->call($client->terminalGroups(), 'isAlive', ['organizationIds' => [$org], 'terminalGroupIds' => [$terminal]]);
        $payments = $this->call($client, 'paymentTypes', ['organizationIds' => [$org]]);
        self::assertNotEmpty($payments['paymentTypes']);
        $orderTypes = $this->call($client->deliveries(), 'orderTypes', ['organizationIds' => [$org]]);
        self::assertNotEmpty($orderTypes['orderTypes']);
        self::assertSame($org, $orderTypes['orderTypes'][0]['organizationId']);
        $this->call($client, 'cancelCauses', ['organizationIds' => [$org]]);

        // The menu: the product's price, an exact numeric string.
        $menu = $this->call($client->nomenclature(), 'get', ['organizationId' => $org]);
        $products = array_values(array_filter($menu['products'], static fn (array $p): bool => $p['id'] === self::PIZZA));
        self::assertCount(1, $products, 'the product is on the menu');
        $price = $products[0]['sizePrices'][0]['price']['currentPrice'];
        self::assertSame('590', $price);

        // The webhook, through the generated group.
        $updated = $this->call($client->webhooks(), 'updateSettings', ['organizationId' => $org, 'webHooksUri' => $this->url, 'authToken' => self::TOKEN]);
        self::assertMatchesRegularExpression('/^[0-9a-f-]{36}$/', $updated['correlationId']);
        $settings = $this->call($client->webhooks(), 'settings', ['organizationId' => $org]);
        self::assertSame($this->url, $settings['webHooksUri']);

        // Create, follow the command, see the event, read the order back.
        $orderId = self::uuid();
        $order = [
            'organizationId' => $org,
            'terminalGroupId' => $terminal,
            'order' => ['id' => $orderId, 'phone' => '+79161234567', 'items' => [
                ['type' => 'Product', 'productId' => self::PIZZA, 'amount' => 2, 'price' => $price],
            ]],
        ];
        $created = $this->call($client->deliveries(), 'create', $order);
        self::assertSame($orderId, $created['orderInfo']['id']);
        $client->wait($created, $org, 20.0);
        $event = $this->orderEvent($orderId, 'Unconfirmed');
        self::assertSame($org, $event['organizationId']);
        self::assertSame('1180', $event['sum'], 'the event keeps the amount exact');
        self::assertSame('+79161234567', $event['phone']);
        self::assertSame('Success', $event['creationStatus']);
        self::assertSame(self::PIZZA, $event['eventInfo']['order']['items'][0]['product']['id'] ?? null);

        $back = $this->call($client->deliveries(), 'byId', ['organizationId' => $org, 'orderIds' => [$orderId]]);
        self::assertSame($orderId, $back['orders'][0]['id']);
        self::assertSame('Success', $back['orders'][0]['creationStatus']);
        self::assertSame('1180', $back['orders'][0]['order']['sum']);
        self::assertSame('590', $back['orders'][0]['order']['items'][0]['price']);
        self::assertSame('Unconfirmed', $back['orders'][0]['order']['status']);

        // Cancel: a command, then an event with the new status.
        $cancelled = $this->call($client->deliveries(), 'cancel', ['organizationId' => $org, 'orderId' => $orderId]);
        $client->wait($cancelled, $org, 20.0);
        $this->orderEvent($orderId, 'Cancelled');
        $again = $this->call($client->deliveries(), 'byId', ['organizationId' => $org, 'orderIds' => [$orderId]]);
        self::assertSame('Cancelled', $again['orders'][0]['order']['status']);

        // Every request so far was verified and read.
        $received = $this->received();
        self::assertNotEmpty($received);
        foreach ($received as $request) {
            self::assertSame(200, $request['status']);
            self::assertNull($request['reason']);
            self::assertNotEmpty($request['events']);
        }

        // Another token: the endpoint refuses the next delivery and reads nothing.
        $this->call($client->webhooks(), 'updateSettings', ['organizationId' => $org, 'webHooksUri' => $this->url, 'authToken' => 'not-the-endpoints-token']);
        Emulator::post('/_emulator/reset-deliveries');
        Emulator::trigger('delivery-status', ['orderId' => $orderId, 'status' => 'Closed']);
        self::assertTrue(Emulator::waitDeliveries(1, 20000, 'gave_up'), print_r(Emulator::deliveries(), true));
        self::assertSame(401, Emulator::deliveries()[0]['status']);
        $last = $this->received()[count($received)] ?? null;
        self::assertNotNull($last, 'the refused request reached the endpoint');
        self::assertSame(401, $last['status']);
        self::assertSame('mismatch', $last['reason']);
        self::assertSame([], $last['events']);
        self::assertGreaterThanOrEqual(26, $this->shapeChecks);
    }

    public function testTheFollowedCreationFitsItsConditionalReturnType(): void
    {
        $client = Emulator::client();
        $request = [
            'organizationId' => Emulator::ORG,
            'terminalGroupId' => Emulator::TERMINAL_GROUP,
            'order' => ['phone' => '+79161234568', 'items' => [
                ['type' => 'Product', 'productId' => self::PIZZA, 'amount' => '1.5', 'price' => '590'],
            ]],
        ];
        $created = $this->call($client->deliveries(), 'create', $request, ['wait' => true, 'waitTimeout' => 20.0]);
        self::assertSame('Success', $created['orderInfo']['creationStatus']);
        self::assertSame('885', $created['orderInfo']['order']['sum']);
        // The same answer against the other branch: the check can fail.
        self::assertNotSame([], Shapes::answerProblems($client->deliveries(), 'create', $created, ['wait' => false]));
        self::assertNotSame([], Shapes::problems('Deliveries_Response_Order_OrderInfo_Out', ['id' => 1]));
    }
}
