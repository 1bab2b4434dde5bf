<?php

declare(strict_types=1);

/*
 * A web page that calls the API: the organizations the API key can see, as
 * JSON. Made for PHP-FPM behind nginx (or Apache), where every request starts
 * from nothing, so the token lives in a file all workers share
 * (IIKO_TOKEN_DIR) and the workers make one token request between them.
 *
 * The settings come from the environment; PHP-FPM clears it, so set them in
 * the pool (e.g. /etc/php/8.2/fpm/pool.d/www.conf):
 *
 *   env[IIKO_APP_ID] = …
 *   env[IIKO_CLIENT_SECRET] = …
 *   env[IIKO_API_KEY] = …
 *   env[IIKO_TOKEN_DIR] = /var/lib/myapp/iiko-token   ; writable by the pool's user only
 *   ; env[IIKO_BASE_URL] = http://127.0.0.1:8787      ; e.g. the emulator
 *
 * and preload the package (bindings/php/README.md, "PHP-FPM"). Answers 200
 * with {"organizations": [{"id", "name"}, …]}, 502 when the service fails,
 * 500 with the reason when this server is not set up right.
 */

// With Composer: require 'vendor/autoload.php';
require __DIR__ . '/../../bindings/php/autoload.php';

use IikoCloud\Client;
use IikoCloud\Exception\ApiException;
use IikoCloud\Exception\IikoException;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\LibraryException;

/** Answers $status with one line of text and logs it (the server's error log). */
function organizations_fail(int $status, string $message): void
{
    error_log('organizations.php: ' . $message);
    http_response_code($status);
    header('Content-Type: text/plain; charset=utf-8');
    echo $message, "\n";
}

try {
    $client = new Client([
        'appId' => getenv('IIKO_APP_ID'),
        'clientSecret' => getenv('IIKO_CLIENT_SECRET'),
        'apiKey' => getenv('IIKO_API_KEY'),
        'baseUrl' => getenv('IIKO_BASE_URL') ?: Client::DEFAULT_BASE_URL,
        // Without it every request would fetch a token of its own.
        'tokenCacheDir' => getenv('IIKO_TOKEN_DIR') ?: sys_get_temp_dir() . '/iikocloud-token',
    ]);
    $list = [];
    // Typed (IikoCloud\Api\Shapes): `id` is a string, `name` a string or null.
    foreach ($client->api()->organizations()->get()['organizations'] as $org) {
        $list[] = ['id' => $org['id'], 'name' => $org['name']];
    }
    header('Content-Type: application/json');
    echo json_encode(['organizations' => $list], JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
} catch (LibraryException | InvalidInputException $e) {
    // This server's configuration (a php.ini line or a setting missing): the
    // message says which, and holds paths and names, never a credential.
    organizations_fail(500, $e->getMessage());
} catch (ApiException $e) {
    organizations_fail(502, sprintf('iikoCloud answered HTTP %d: %s', $e->getHttpStatus(), $e->getMessage()));
} catch (IikoException $e) {
    organizations_fail(502, $e->getMessage());
}
