<?php

declare(strict_types=1);

/*
 * Creates a delivery order at the menu's price and waits until the terminal
 * has taken it:
 *
 *   IIKO_APP_ID=… IIKO_CLIENT_SECRET=… IIKO_API_KEY=… [IIKO_BASE_URL=…] \
 *   ORG_ID=… TERMINAL_GROUP_ID=… PRODUCT_ID=… php -d ffi.enable=1 create_order.php
 *
 * `wait: true` gives the order its id before sending and follows the command,
 * so a lost answer is followed by a look-up, never by a second order.
 * Amounts are numeric strings, exact. Exits 1 with the reason when the
 * product is not on the menu, a call fails or the terminal refuses the order.
 */

// With Composer: require 'vendor/autoload.php';
require __DIR__ . '/../../bindings/php/autoload.php';

use IikoCloud\Client;
use IikoCloud\Exception\CommandException;
use IikoCloud\Exception\IikoException;

$env = static fn (string $name): string => (string) getenv($name);
$client = new Client(
    appId: $env('IIKO_APP_ID'),
    clientSecret: $env('IIKO_CLIENT_SECRET'),
    apiKey: $env('IIKO_API_KEY'),
    baseUrl: $env('IIKO_BASE_URL') !== '' ? $env('IIKO_BASE_URL') : Client::DEFAULT_BASE_URL,
);
$orgId = $env('ORG_ID');
$productId = $env('PRODUCT_ID');

try {
    $price = null;
    foreach ($client->nomenclature()->get(['organizationId' => $orgId])['products'] as $product) {
        if ($product['id'] === $productId && isset($product['sizePrices'][0])) {
            $price = $product['sizePrices'][0]['price']['currentPrice'];
        }
    }
    if ($price === null) {
        fprintf(STDERR, "product %s has no price on the menu\n", $productId);
        exit(1);
    }

    $created = $client->deliveries()->create([
        'organizationId' => $orgId,
        'terminalGroupId' => $env('TERMINAL_GROUP_ID'),
        'order' => [
            'phone' => '+79161234567',
            'comment' => 'ring twice',
            'items' => [['type' => 'Product', 'productId' => $productId, 'amount' => 2, 'price' => $price]],
        ],
    ], wait: true, waitTimeout: 60.0);
    $info = $created['orderInfo'];
    printf(
        "order %s: %s, status %s, sum %s\n",
        $info['id'],
        $info['creationStatus'],
        $info['order']['status'] ?? '-',
        $info['order']['sum'] ?? '-'
    );
} catch (CommandException $e) {
    fprintf(STDERR, "the terminal did not take the order (command %s): %s\n", (string) $e->getCorrelationId(), $e->getReason() ?? $e->getMessage());
    exit(1);
} catch (IikoException $e) {
    fprintf(STDERR, "%s\n", $e->getMessage());
    exit(1);
}
