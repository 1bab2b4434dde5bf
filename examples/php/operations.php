<?php

declare(strict_types=1);

/*
 * Every operation by resource group: syncs the menu, creates a delivery
 * order and waits for its command, then cancels it.
 *
 *   IIKO_APP_ID=… IIKO_CLIENT_SECRET=… IIKO_API_KEY=… [IIKO_BASE_URL=…] \
 *   ORG_ID=… TERMINAL_GROUP_ID=… PRODUCT_ID=… php -d ffi.enable=1 operations.php
 *
 * Amounts are numeric strings, exact. Exits 1 with the reason when a call or
 * a command fails.
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

try {
    // The menu: a read, retried after a network error or a 5xx.
    $menu = $client->nomenclature()->get(['organizationId' => $orgId]);
    printf("menu revision %s, %d products\n", (string) ($menu['revision'] ?? '-'), count($menu['products'] ?? []));

    // An order: a command; wait: true follows it and never creates it twice.
    $created = $client->deliveries()->create([
        'organizationId' => $orgId,
        'terminalGroupId' => $env('TERMINAL_GROUP_ID'),
        'order' => ['phone' => '+79160000000', 'items' => [
            ['type' => 'Product', 'productId' => $env('PRODUCT_ID'), 'amount' => 2, 'price' => '99.9'],
        ]],
    ], wait: true, waitTimeout: 60.0);
    $order = $created['orderInfo'];
    printf("order %s: %s, sum %s\n", $order['id'], $order['creationStatus'], $order['order']['sum']);
} catch (CommandException $e) {
    fprintf(STDERR, "command %s did not succeed: %s\n", (string) $e->getCorrelationId(), (string) ($e->getReason() ?? $e->getMessage()));
    exit(1);
} catch (IikoException $e) {
    fprintf(STDERR, "%s\n", $e->getMessage());
    exit(1);
}
