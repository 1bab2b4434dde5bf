<?php

declare(strict_types=1);

/*
 * An iikoCloud webhook receiver in plain PHP, for the built-in web server:
 *
 *   IIKO_WEBHOOK_TOKEN=a-long-random-token \
 *       php -d ffi.enable=1 -S 127.0.0.1:8080 examples/php/receiver.php
 *
 * Point the organization's webhook at http://HOST:8080/webhook with the same
 * token (`$client->webhooks()->updateSettings()`, as examples/php/quickstart.php
 * does with WEBHOOK_URL). Each request is verified (the token is compared in
 * constant time) and only then parsed; the answer goes out at once, then the
 * events are handled. The library is found as the IikoCloud\Library class
 * says (IIKOCLOUD_LIB, /usr/local/lib, a checkout's target/). Events and
 * refusals are logged to stderr, one line each.
 *
 * Under PHP-FPM the same file works as a front controller; there
 * fastcgi_finish_request() sends the answer before the events are handled.
 */

// With Composer: require 'vendor/autoload.php';
require __DIR__ . '/../../bindings/php/autoload.php';

use IikoCloud\Event;
use IikoCloud\Exception\IikoException;
use IikoCloud\Webhooks;

/** One line on the server's stderr (the terminal of `php -S`). */
function receiver_log(string $line): void
{
    file_put_contents('php://stderr', 'receiver: ' . $line . "\n");
}

if (parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH) !== '/webhook') {
    http_response_code(404);
    return;
}
if (($_SERVER['REQUEST_METHOD'] ?? '') !== 'POST') {
    http_response_code(405);
    header('Allow: POST');
    return;
}

$token = (string) getenv('IIKO_WEBHOOK_TOKEN');
// getallheaders() exists in php -S, FPM and Apache; $_SERVER works everywhere.
$headers = function_exists('getallheaders') ? getallheaders() : Webhooks::headersFromServer($_SERVER);
$body = (string) file_get_contents('php://input');

try {
    // An empty $token is answered 500: every request would be refused.
    $receipt = Webhooks::receive($headers, $body, $token);
} catch (IikoException $e) {
    // The library could not be loaded, or the token setting is unusable: a
    // failure on our side, so 500 and the service retries later.
    http_response_code(500);
    receiver_log('cannot receive: ' . $e->getMessage());
    return;
}

http_response_code($receipt->status);
header('Content-Type: text/plain');
echo $receipt->status === 200 ? "ok\n" : "refused\n";
if (function_exists('fastcgi_finish_request')) {
    fastcgi_finish_request();
}

if ($receipt->error !== null) {
    // Not authentic (401/500), or authentic but unreadable (200: a resend
    // would bring the same bytes; keep the body to look at it).
    receiver_log(sprintf('%d %s: %s', $receipt->status, $receipt->error->getReason(), $receipt->error->getMessage()));
    return;
}

foreach ($receipt->events as $event) {
    // The service may deliver an event more than once: skip keys already
    // seen, stored where every worker sees them (e.g. a unique index on
    // $event->dedupKey), then queue the work.
    receiver_log(describe_event($event));
}

/** A one-line summary of an event. */
function describe_event(Event $event): string
{
    $fields = [
        'org' => $event->organizationId,
        'order' => $event->orderId,
        'entity' => $event->orderId === null ? $event->entityId : null,
        'number' => $event->orderNumber,
        'status' => $event->status,
        'sum' => $event->sum,
        'error' => $event->errorCode,
        'new' => $event->isNewDeliveryOrder ? 'yes' : null,
        'problem' => $event->problem,
    ];
    $line = $event->typeName ?? $event->kind();
    foreach ($fields as $name => $value) {
        if ($value !== null) {
            $line .= ' ' . $name . '=' . $value;
        }
    }
    return $line;
}
