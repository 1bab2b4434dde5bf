<?php

declare(strict_types=1);

/*
 * Keeps a local copy of an organization's menu (nomenclature) and prints its
 * price list, marking what the stop lists say is out of stock:
 *
 *   IIKO_APP_ID=… IIKO_CLIENT_SECRET=… IIKO_API_KEY=… [IIKO_BASE_URL=…] \
 *   ORG_ID=… [MENU_FILE=/var/lib/myapp/menu.json] php -d ffi.enable=1 sync_menu.php
 *
 * The menu is asked for with the revision of the saved copy, so the service
 * sends it again only when it has changed; the copy is replaced in one step
 * (written beside it, then renamed). Prices are numeric strings, exact.
 * Exits 1 with the reason when a call fails.
 */

// With Composer: require 'vendor/autoload.php';
require __DIR__ . '/../../bindings/php/autoload.php';

use IikoCloud\Client;
use IikoCloud\Exception\IikoException;

$env = static fn (string $name): string => (string) getenv($name);
$client = new Client(
    appId: $env('IIKO_APP_ID'),
    clientSecret: $env('IIKO_CLIENT_SECRET'),
    apiKey: $env('IIKO_API_KEY'),
    baseUrl: $env('IIKO_BASE_URL') !== '' ? $env('IIKO_BASE_URL') : Client::DEFAULT_BASE_URL,
);
$orgId = $env('ORG_ID');
$file = $env('MENU_FILE') !== '' ? $env('MENU_FILE') : sys_get_temp_dir() . '/iikocloud-menu-' . $orgId . '.json';

$saved = is_file($file) ? json_decode((string) file_get_contents($file), true) : null;
$savedRevision = is_array($saved) && is_int($saved['revision'] ?? null) ? $saved['revision'] : null;

try {
    $request = ['organizationId' => $orgId];
    if ($savedRevision !== null) {
        $request['startRevision'] = $savedRevision;
    }
    $menu = $client->nomenclature()->get($request);
    if ($savedRevision !== null && $menu['revision'] <= $savedRevision) {
        // Nothing newer: the answer may hold no products at all, keep the copy.
        printf("menu unchanged at revision %d\n", $savedRevision);
        exit(0);
    }
    $stopped = [];
    foreach ($client->api()->stopLists()->get(['organizationIds' => [$orgId]])['terminalGroupStopLists'] as $organization) {
        foreach ($organization['items'] as $terminalGroup) {
            foreach ($terminalGroup['items'] as $item) {
                $stopped[$item['productId']] = true;
            }
        }
    }
} catch (IikoException $e) {
    fprintf(STDERR, "%s\n", $e->getMessage());
    exit(1);
}

file_put_contents($file . '.new', json_encode($menu, JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES));
rename($file . '.new', $file);
printf("menu revision %d: %d groups, %d products, saved to %s\n", $menu['revision'], count($menu['groups']), count($menu['products']), $file);
foreach ($menu['products'] as $product) {
    $prices = [];
    foreach ($product['sizePrices'] ?? [] as $sizePrice) {
        $prices[] = $sizePrice['price']['currentPrice'];
    }
    if ($prices === [] || ($product['isDeleted'] ?? false)) {
        continue;
    }
    printf("%-32s %10s%s\n", $product['name'], implode(' / ', $prices), isset($stopped[$product['id']]) ? '  (stopped)' : '');
}
