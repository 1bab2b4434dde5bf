<?php

declare(strict_types=1);

/*
 * Lists the organizations an API key can see, and optionally points their
 * webhook somewhere:
 *
 *   IIKO_APP_ID=… IIKO_CLIENT_SECRET=… IIKO_API_KEY=… \
 *       [IIKO_BASE_URL=http://127.0.0.1:8787] [IIKO_TOKEN_DIR=/var/lib/myapp/iiko-token] \
 *       [WEBHOOK_URL=https://… WEBHOOK_TOKEN=…] php -d ffi.enable=1 examples/php/quickstart.php
 *
 * Exits 1 with the error (and its correlationId) when a call fails.
 */

// With Composer: require 'vendor/autoload.php';
require __DIR__ . '/../../bindings/php/autoload.php';

use IikoCloud\Client;
use IikoCloud\Exception\ApiException;
use IikoCloud\Exception\IikoException;

try {
    $client = new Client([
        'appId' => getenv('IIKO_APP_ID'),
        'clientSecret' => getenv('IIKO_CLIENT_SECRET'),
        'apiKey' => getenv('IIKO_API_KEY'),
        'baseUrl' => getenv('IIKO_BASE_URL') ?: Client::DEFAULT_BASE_URL,
        // PHP runs share nothing: a token file lets every run reuse one token.
        'tokenCacheDir' => getenv('IIKO_TOKEN_DIR'),
    ]);
    // The generated calls: the request and the answer are typed array shapes
    // (IikoCloud\Api\Shapes) that PHPStan and Psalm check.
    $organizations = $client->api()->organizations()->get()['organizations'];
    foreach ($organizations as $org) {
        echo $org['id'], ' ', $org['name'] ?? '(no name)', "\n";
    }
    $url = getenv('WEBHOOK_URL');
    if ($url !== false && $url !== '') {
        $webhooks = $client->webhooks();
        foreach ($organizations as $org) {
            $webhooks->updateSettings([
                'organizationId' => $org['id'],
                'webHooksUri' => $url,
                'authToken' => (string) getenv('WEBHOOK_TOKEN'),
            ]);
            $settings = $webhooks->settings(['organizationId' => $org['id']]);
            echo 'webhook of ', $org['id'], ' set to ', $settings['webHooksUri'] ?? '(none)', "\n";
        }
    }
} catch (ApiException $e) {
    fwrite(STDERR, sprintf("HTTP %d %s (correlationId %s)\n", $e->getHttpStatus(), $e->getMessage(), $e->getCorrelationId() ?? '-'));
    exit(1);
} catch (IikoException $e) {
    fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n");
    exit(1);
}
