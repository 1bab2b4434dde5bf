<?php

declare(strict_types=1);

/*
 * Sends commands and waits for their outcome: creates a delivery order
 * without waiting (a command answers its correlationId at once; the terminal
 * does the work later), follows it, confirms the order and follows that too,
 * then reads the order back:
 *
 *   IIKO_APP_ID=… IIKO_CLIENT_SECRET=… IIKO_API_KEY=… [IIKO_BASE_URL=…] \
 *   ORG_ID=… TERMINAL_GROUP_ID=… PRODUCT_ID=… PRICE=… php -d ffi.enable=1 wait_command.php
 *
 * $client->wait() polls commands/status with growing pauses. It may be given
 * the answer or only its correlationId, e.g. one kept by the web request that
 * sent the command. Exits 1 when a command fails, 2 when one is still running
 * at the limit (it may yet finish: look the order up later), 3 when the
 * service no longer knows it.
 */

// With Composer: require 'vendor/autoload.php';
require __DIR__ . '/../../bindings/php/autoload.php';

use IikoCloud\Client;
use IikoCloud\Exception\CommandExpiredException;
use IikoCloud\Exception\CommandFailedException;
use IikoCloud\Exception\CommandTimeoutException;
use IikoCloud\Exception\IikoException;

$env = static fn (string $name): string => (string) getenv($name);
$client = new Client(
    appId: $env('IIKO_APP_ID'),
    clientSecret: $env('IIKO_CLIENT_SECRET'),
    apiKey: $env('IIKO_API_KEY'),
    baseUrl: $env('IIKO_BASE_URL') !== '' ? $env('IIKO_BASE_URL') : Client::DEFAULT_BASE_URL,
);
$orgId = $env('ORG_ID');
$price = $env('PRICE');
if (!is_numeric($price)) {
    fprintf(STDERR, "PRICE must be a number, e.g. 590 or 99.90\n");
    exit(1);
}

try {
    $created = $client->deliveries()->create([
        'organizationId' => $orgId,
        'terminalGroupId' => $env('TERMINAL_GROUP_ID'),
        'order' => ['phone' => '+79161234567', 'items' => [
            ['type' => 'Product', 'productId' => $env('PRODUCT_ID'), 'amount' => 1, 'price' => $price],
        ]],
    ]);
    $orderId = $created['orderInfo']['id'];
    printf("create: correlationId %s, order %s\n", $created['correlationId'], $orderId);
    $client->wait($created['correlationId'], $orgId, 30.0);

    $confirmed = $client->deliveries()->confirm(['organizationId' => $orgId, 'orderId' => $orderId]);
    printf("confirm: correlationId %s\n", $confirmed['correlationId']);
    $client->wait($confirmed, $orgId, 30.0);

    $found = $client->deliveries()->byId(['organizationId' => $orgId, 'orderIds' => [$orderId]]);
    printf("order %s: %s\n", $orderId, $found['orders'][0]['order']['status'] ?? '(not found)');
} catch (CommandFailedException $e) {
    fprintf(STDERR, "command %s failed: %s\n", (string) $e->getCorrelationId(), $e->getReason() ?? $e->getMessage());
    exit(1);
} catch (CommandTimeoutException $e) {
    fprintf(STDERR, "command %s is still running; look the order up later\n", (string) $e->getCorrelationId());
    exit(2);
} catch (CommandExpiredException $e) {
    fprintf(STDERR, "the service no longer knows command %s\n", (string) $e->getCorrelationId());
    exit(3);
} catch (IikoException $e) {
    fprintf(STDERR, "%s\n", $e->getMessage());
    exit(1);
}
