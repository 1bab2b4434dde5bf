<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;
use IikoCloud\Exception\IikoException;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\WebhookParseException;
use IikoCloud\Exception\WebhookVerificationException;

/**
 * Receiving iikoCloud webhooks, from any framework.
 *
 * The service POSTs a JSON array of events to your `webHooksUri`, with the
 * `authToken` you configured as the `Authorization` header. It counts
 * anything but a prompt 200 as a failed delivery, resends, and finally
 * blocks a webhook that keeps failing (which stops every event). So:
 *
 * 1. call {@see receive()} with the request's headers, raw body and your
 *    token: it checks the token in constant time and only then parses;
 * 2. answer {@see Receipt::$status} at once (an authentic but unreadable
 *    body is answered 200 too: a resend would bring the same bytes; log it);
 * 3. queue the events and work afterwards; drop repeats by
 *    {@see Event::$dedupKey}, kept in your database or cache.
 *
 * Every method is static and stateless; the library is the default one of
 * {@see Library}.
 */
final class Webhooks
{
    /** IIKO_WEBHOOK_REJECT_SINGLE_OBJECT (checked against the header by a test). */
    private const REJECT_SINGLE_OBJECT = 1;

    private function __construct()
    {
    }

    /**
     * Checks an `Authorization` header value against your `authToken`, in
     * constant time. The bare token and `Bearer <token>` are both accepted;
     * an empty or blank expected token refuses everything.
     *
     * @param ?string $authorization the header value as received (any bytes), null when the request has none
     * @param string $expectedToken your webhook token
     * @throws WebhookVerificationException with getReason() and getHttpStatus() (401, or 500 for an empty token)
     * @throws InvalidInputException when $expectedToken holds a NUL byte
     */
    public static function verify(
        #[\SensitiveParameter] ?string $authorization,
        #[\SensitiveParameter] string $expectedToken
    ): void {
        $ffi = Library::ffi();
        $err = Library::errorOut($ffi);
        $status = (int) $ffi->iiko_webhook_verify(
            Library::cString($expectedToken, 'the expected webhook token'),
            $authorization,
            $authorization === null ? 0 : strlen($authorization),
            FFI::addr($err)
        );
        Library::check($ffi, $status, $err);
    }

    /**
     * Parses a webhook body you already verified (or read back from a queue
     * or a file) into events.
     *
     * @param string $body the raw request body (bytes)
     * @param ?int $maxBodyBytes the largest body accepted (default 16 MiB)
     * @param ?int $maxDepth the deepest JSON nesting accepted (default 64 levels; a larger one is
     *                       lowered to 128 levels)
     * @param bool $acceptSingleObject read a single event object instead of an array (off-spec) as one event
     * @return list<Event>
     * @throws WebhookParseException with getReason() when the body as a whole cannot be read
     * @throws InvalidInputException for a limit the library refuses (0, negative)
     */
    public static function parse(
        string $body,
        ?int $maxBodyBytes = null,
        ?int $maxDepth = null,
        bool $acceptSingleObject = true
    ): array {
        $ffi = Library::ffi();
        $scratch = self::scratch($ffi);
        $status = $ffi->iiko_webhook_parse(
            $body,
            strlen($body),
            $maxBodyBytes === null ? 0 : Library::arg('webhook.max_body_bytes', $maxBodyBytes),
            $maxDepth === null ? 0 : Library::arg('webhook.max_depth', $maxDepth),
            $acceptSingleObject ? 0 : self::REJECT_SINGLE_OBJECT,
            $scratch->events,
            $scratch->err
        );
        if ($status !== Status::OK) {
            throw self::failure($ffi, $scratch, $status);
        }
        // The handle, copied out of the shared out-parameter before anything else can reuse it.
        return self::readEvents($ffi, $scratch->events[0]);
    }

    /** The exception of a failed call that wrote its error to the scratch's out-parameter. */
    private static function failure(FFI $ffi, WebhookScratch $scratch, int $status): IikoException
    {
        $err = $scratch->err[0];
        // Cleared, so that a later failure that writes no error is not read as this one.
        $scratch->err[0] = null;
        return Library::exception($ffi, $status, $err);
    }

    /** The reused out-parameters of the default library. */
    private static ?WebhookScratch $scratch = null;

    /**
     * The out-parameters and the summary struct, made once per library: on a
     * sub-kilobyte body, making them on every parse (`FFI::new`, `FFI::addr`)
     * cost about as much as reading the events.
     */
    private static function scratch(FFI $ffi): WebhookScratch
    {
        $scratch = self::$scratch;
        if ($scratch === null || $scratch->ffi !== $ffi) {
            $scratch = self::$scratch = new WebhookScratch($ffi);
        }
        return $scratch;
    }

    /**
     * One event from its JSON, e.g. {@see Event::$json} stored or queued
     * after {@see receive()}.
     *
     * @throws WebhookParseException when $json is not one JSON value
     */
    public static function parseEvent(string $json): Event
    {
        // The library reads bodies: wrap the event in one, and insist on one
        // event, so that text like `1],[2` is not taken for two.
        try {
            $events = self::parse('[' . $json . ']');
        } catch (WebhookParseException $e) {
            throw new WebhookParseException('the event is not JSON: ' . $e->getMessage(), $e->getStatus());
        }
        if (count($events) !== 1) {
            throw new WebhookParseException('the text holds ' . count($events) . ' JSON values, not one event', Status::WEBHOOK_BODY_NOT_JSON);
        }
        return $events[0];
    }

    /**
     * Verifies a webhook request, then parses its body: what an endpoint
     * calls for each request. Never throws for a bad request: the receipt
     * holds the status to answer, the events and the error.
     *
     * @param array<int|string, mixed> $headers the request headers, in any of the shapes frameworks give:
     *        `['Authorization' => 'tok']`, `['authorization' => ['tok']]` (Symfony, Laravel, PSR-7
     *        getHeaders()), or `[['Authorization', 'tok'], …]` pairs. Names are matched
     *        case-insensitively; two Authorization values are refused as malformed.
     * @param string $body the raw request body (`file_get_contents('php://input')`)
     * @param string $expectedToken your webhook token (the `authToken` you configured)
     * @param ?\Psr\Log\LoggerInterface $logger receives the library's log records of this request
     *                                         (one `webhook event` record per event, at info)
     * @param ?callable(array<string, mixed>): void $onSpanEnd receives the request's `webhook.receive`
     *                                         span (as {@see Client}'s `onSpanEnd`)
     * @param string $logLevel the most verbose PSR-3 level given to $logger
     * @throws InvalidInputException for an unusable header array or limit, or a NUL byte in $expectedToken
     */
    public static function receive(
        #[\SensitiveParameter] array $headers,
        string $body,
        #[\SensitiveParameter] string $expectedToken,
        ?int $maxBodyBytes = null,
        ?int $maxDepth = null,
        bool $acceptSingleObject = true,
        ?\Psr\Log\LoggerInterface $logger = null,
        ?callable $onSpanEnd = null,
        string $logLevel = 'info'
    ): Receipt {
        $ffi = Library::ffi();
        $telemetry = Telemetry::of($ffi, $logger, $onSpanEnd, $logLevel);
        $keep = [];
        [$names, $values, $count] = self::headerArrays($ffi, $headers, $keep);
        $events = $ffi->new('iiko_events*');
        $err = Library::errorOut($ffi);
        $expectedToken = Library::cString($expectedToken, 'the expected webhook token');
        $maxBody = Library::arg('webhook.max_body_bytes', $maxBodyBytes);
        $depth = Library::arg('webhook.max_depth', $maxDepth);
        $status = (int) Telemetry::around($telemetry, fn () => $ffi->iiko_webhook_receive(
            $expectedToken,
            $names,
            $values,
            $count,
            $body,
            strlen($body),
            $maxBody,
            $depth,
            $acceptSingleObject ? 0 : self::REJECT_SINGLE_OBJECT,
            FFI::addr($events),
            FFI::addr($err)
        ));
        $answer = (int) $ffi->iiko_webhook_http_status($status);
        if ($status !== Status::OK) {
            return new Receipt($answer, [], Library::exception($ffi, $status, $err));
        }
        return new Receipt($answer, self::readEvents($ffi, $events), null);
    }

    /**
     * The HTTP status a webhook endpoint answers for a status code, by the
     * library's receive rule: 200 for OK and for an authentic but unreadable
     * body (7410-7414), 401 for a missing, malformed or wrong token (7400,
     * 7402, 7403), 500 otherwise (7401: an empty expected token).
     */
    public static function httpStatus(int $status): int
    {
        return (int) Library::ffi()->iiko_webhook_http_status(Library::int32($status));
    }

    /**
     * The request headers from `$_SERVER` (`HTTP_*`, `CONTENT_TYPE`,
     * `CONTENT_LENGTH`), for hosts without getallheaders(). Apache with CGI
     * may hide `Authorization` as `REDIRECT_HTTP_AUTHORIZATION`; it is used
     * when `HTTP_AUTHORIZATION` is absent.
     *
     * @param array<string, mixed> $server usually $_SERVER
     * @return array<string, string> names like `Content-Type`
     */
    public static function headersFromServer(array $server): array
    {
        $headers = [];
        foreach ($server as $key => $value) {
            if (!is_string($key) || !is_scalar($value)) {
                continue;
            }
            if (strncmp($key, 'HTTP_', 5) === 0) {
                $name = substr($key, 5);
            } elseif ($key === 'CONTENT_TYPE' || $key === 'CONTENT_LENGTH') {
                $name = $key;
            } else {
                continue;
            }
            $headers[str_replace(' ', '-', ucwords(strtolower(str_replace('_', ' ', $name))))] = (string) $value;
        }
        if (!isset($headers['Authorization']) && isset($server['REDIRECT_HTTP_AUTHORIZATION'])
            && is_scalar($server['REDIRECT_HTTP_AUTHORIZATION'])) {
            $headers['Authorization'] = (string) $server['REDIRECT_HTTP_AUTHORIZATION'];
        }
        return $headers;
    }

    /**
     * Reads every event of a parsed body into PHP objects and frees the handle.
     *
     * @return list<Event>
     */
    private static function readEvents(FFI $ffi, CData $events): array
    {
        Library::track(1);
        try {
            $list = [];
            $count = $ffi->iiko_events_count($events);
            // One struct, filled again for each event: the strings are copied
            // into PHP as the Event reads them.
            $scratch = self::scratch($ffi);
            $summary = $scratch->summary;
            $summaryOut = $scratch->summaryAddr;
            for ($i = 0; $i < $count; $i++) {
                $status = $ffi->iiko_events_summary($events, $i, $summaryOut, $scratch->err);
                if ($status !== Status::OK) {
                    throw self::failure($ffi, $scratch, $status);
                }
                $list[] = new Event($summary);
            }
            return $list;
        } finally {
            $ffi->iiko_events_free($events);
            Library::track(-1);
        }
    }

    /**
     * Flattens the accepted header shapes into [name, value] pairs, in order.
     *
     * @param array<int|string, mixed> $headers
     * @return list<array{0: string, 1: string}>
     */
    private static function headerPairs(array $headers): array
    {
        $pairs = [];
        foreach ($headers as $key => $value) {
            if (is_int($key)) {
                if (!is_array($value) || count($value) !== 2 || !array_is_list($value)) {
                    throw new InvalidInputException(
                        'a header list entry must be a [name, value] pair',
                        Status::INVALID_ARGUMENT
                    );
                }
                [$key, $value] = $value;
                if (!is_string($key)) {
                    throw new InvalidInputException('a header name must be a string', Status::INVALID_ARGUMENT);
                }
            }
            foreach (is_array($value) ? $value : [$value] as $one) {
                if ($one === null) {
                    continue;
                }
                if (!is_scalar($one)) {
                    throw new InvalidInputException(
                        sprintf('the value of header %s is not a string', $key),
                        Status::INVALID_ARGUMENT
                    );
                }
                $pairs[] = [$key, (string) $one];
            }
        }
        return $pairs;
    }

    /**
     * The headers as the C arrays of names and values and their count, the
     * strings kept alive in $keep for the call. Internal: shared with
     * {@see Inbox::receive()}.
     *
     * @internal
     * @param array<int|string, mixed> $headers
     * @param list<CData> $keep
     * @return array{0: ?CData, 1: ?CData, 2: int}
     */
    public static function headerArrays(FFI $ffi, array $headers, array &$keep): array
    {
        $pairs = self::headerPairs($headers);
        $count = count($pairs);
        $names = null;
        $values = null;
        if ($count > 0) {
            $names = $ffi->new("const char*[$count]");
            $values = $ffi->new("const char*[$count]");
            foreach ($pairs as $i => [$name, $value]) {
                $names[$i] = self::cText($ffi, $name, $keep);
                $values[$i] = self::cText($ffi, $value, $keep);
            }
        }
        return [$names, $values, $count];
    }

    /**
     * A header name or value as a C string kept alive in $keep for the call.
     *
     * @param list<CData> $keep
     */
    private static function cText(FFI $ffi, string $text, array &$keep): CData
    {
        // C strings end at NUL; a NUL read as the end could turn
        // "token\0junk" into an accepted "token". Any control byte in the
        // header makes the library refuse it as malformed, so NUL is given
        // to it as another control byte (\x01) instead.
        $text = str_replace("\0", "\x01", $text);
        $length = strlen($text);
        $buffer = $ffi->new('char[' . ($length + 1) . ']');
        if ($length > 0) {
            FFI::memcpy($buffer, $text, $length);
        }
        $keep[] = $buffer;
        return $ffi->cast('const char*', FFI::addr($buffer));
    }
}
