<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\Php;
use IikoCloud\Tests\Support\TestCase;

/**
 * examples/php/receiver.php end to end: the emulator delivers webhooks to it
 * running under `php -S`; it verifies, parses and answers. Checked through
 * the emulator's delivery log and the receiver's own output.
 */
final class ReceiverTest extends TestCase
{
    private const TOKEN = 'receiver-test-token-8f2c1e';

    /** @var resource|null */
    private $server = null;
    private string $log = '';
    private string $url = '';
    /** @var array<string, mixed> */
    private array $config = [];

    protected function setUp(): void
    {
        parent::setUp();
        $this->config = Emulator::config();
        // One attempt per batch: a refused delivery is final at once.
        Emulator::config(['retryDelaysSecs' => [], 'deliveryTimeoutSecs' => 10]);

        $this->log = tempnam(sys_get_temp_dir(), 'iikocloud-receiver-') ?: '';
        [$this->server, $port] = Php::serve(
            dirname(__DIR__, 3) . '/examples/php/receiver.php',
            ['IIKO_WEBHOOK_TOKEN' => self::TOKEN],
            $this->log
        );
        self::assertIsResource($this->server);
        $this->url = "http://127.0.0.1:$port/webhook";
    }

    protected function tearDown(): void
    {
        Php::stop($this->server);
        @unlink($this->log);
        Emulator::config([
            'retryDelaysSecs' => $this->config['retryDelaysSecs'],
            'deliveryTimeoutSecs' => $this->config['deliveryTimeoutSecs'],
        ]);
        parent::tearDown();
    }

    /** The receiver's lines (its `receiver: ` log), waiting until $count are there. */
    private function receiverLines(int $count): array
    {
        $deadline = microtime(true) + 10;
        do {
            preg_match_all('/receiver: (.*)$/m', (string) file_get_contents($this->log), $m);
            if (count($m[1]) >= $count) {
                return $m[1];
            }
            usleep(20000);
        } while (microtime(true) < $deadline);
        self::fail("the receiver logged fewer than $count lines:\n" . file_get_contents($this->log));
    }

    public function testTheReceiverVerifiesParsesAndAnswers200(): void
    {
        $client = Emulator::client();
        $client->updateWebhookSettings(Emulator::ORG, $this->url, self::TOKEN);

        $order = Emulator::trigger('delivery-order');
        Emulator::trigger('delivery-status', ['orderId' => $order['orderId'], 'status' => 'CookingStarted']);
        Emulator::trigger('delivery-error');
        Emulator::trigger('stop-list-change');
        self::assertTrue(Emulator::waitDeliveries(4, 20000, 'delivered'), print_r(Emulator::deliveries(), true));

        $deliveries = Emulator::deliveries();
        self::assertCount(4, $deliveries);
        foreach ($deliveries as $delivery) {
            self::assertSame(200, $delivery['status']);
            self::assertSame('delivered', $delivery['outcome']);
            self::assertSame(1, $delivery['attempt']);
            self::assertSame($this->url, $delivery['url']);
        }

        $lines = $this->receiverLines(4);
        $orderId = $order['orderId'];
        self::assertMatchesRegularExpression(
            "/^DeliveryOrderUpdate org=" . Emulator::ORG . " order=$orderId number=\\d+ status=Unconfirmed sum=[0-9.]+ new=yes$/",
            $lines[0]
        );
        self::assertMatchesRegularExpression("/^DeliveryOrderUpdate .*order=$orderId .*status=CookingStarted/", $lines[1]);
        self::assertStringNotContainsString('new=yes', $lines[1]);
        self::assertMatchesRegularExpression('/^DeliveryOrderError .*error=ProductNotFound/', $lines[2]);
        self::assertMatchesRegularExpression('/^StopListUpdate org=/', $lines[3]);
        self::assertStringNotContainsString(self::TOKEN, (string) file_get_contents($this->log));
    }

    public function testTheReceiverRefusesAnotherTokenAndAcceptsUnreadableBodies(): void
    {
        $client = Emulator::client();
        $client->updateWebhookSettings(Emulator::ORG, $this->url, 'not-the-receivers-token');
        Emulator::trigger('delivery-order');
        self::assertTrue(Emulator::waitDeliveries(1, 20000, 'gave_up'), print_r(Emulator::deliveries(), true));
        self::assertSame(401, Emulator::deliveries()[0]['status']);
        self::assertStringStartsWith('401 mismatch: ', $this->receiverLines(1)[0]);

        $client->updateWebhookSettings(Emulator::ORG, $this->url, self::TOKEN);
        Emulator::post('/_emulator/reset-deliveries');
        Emulator::trigger('raw', ['body' => 'a JSON string, not events']);
        self::assertTrue(Emulator::waitDeliveries(1, 20000, 'delivered'), print_r(Emulator::deliveries(), true));
        self::assertSame(200, Emulator::deliveries()[0]['status']);
        self::assertStringStartsWith('200 not_an_array: ', $this->receiverLines(2)[1]);
    }
}
