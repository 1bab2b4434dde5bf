<?php

declare(strict_types=1);

namespace IikoCloud;

/**
 * The `IIKO_STATUS_*` codes of the C library, mirrored here because PHP's FFI
 * cannot see the header's `#define`s (a test checks every value against
 * include/iikocloud.h). Every exception of this package carries one as
 * {@see Exception\IikoException::getStatus()} (and as `getCode()`).
 *
 * Codes are grouped by hundreds (1xx your arguments, 2xx transport, 3xx the
 * service's answer, 4xx webhooks, 9xx the library) and new ones may appear in
 * any release: treat an unknown code by its range.
 */
final class Status
{
    /** Success; no other code means success. */
    public const OK = 0;

    /** A required argument was missing (NULL in C). */
    public const NULL_ARGUMENT = 100;
    /** A string argument was not valid UTF-8. */
    public const INVALID_UTF8 = 101;
    /** A JSON argument was not JSON, or not of the expected shape (unknown or mistyped field). */
    public const INVALID_JSON = 102;
    /** An argument value was refused before sending (a bad UUID, URL, path, timeout, flag). */
    public const INVALID_ARGUMENT = 103;
    /** The client options are unusable (no credentials, bad base URL, timeouts). */
    public const INVALID_CONFIG = 104;

    /** The host name did not resolve. */
    public const TRANSPORT_DNS = 200;
    /** The TCP connection could not be made. */
    public const TRANSPORT_CONNECT = 201;
    /** TLS failed (certificate, handshake). */
    public const TRANSPORT_TLS = 202;
    /** The client-side timeout ran out. */
    public const TRANSPORT_TIMEOUT = 203;
    /** The connection broke or the peer spoke broken HTTP. */
    public const TRANSPORT_IO = 204;
    /** Any other transport failure, e.g. an answer larger than maxResponseBytes. */
    public const TRANSPORT_OTHER = 205;
    /** The proxy refused the tunnel (407, 403, 502) or could not be reached. */
    public const TRANSPORT_PROXY = 206;

    /** HTTP 400: the service rejected the request. */
    public const API_BAD_REQUEST = 300;
    /** HTTP 401: credentials refused (after one token refresh). */
    public const API_UNAUTHORIZED = 301;
    /** HTTP 403: the API key may not use this endpoint or organization. */
    public const API_FORBIDDEN = 302;
    /** HTTP 404: no such endpoint or entity. */
    public const API_NOT_FOUND = 303;
    /** HTTP 408: the restaurant terminal did not answer within the Timeout header. */
    public const API_TERMINAL_TIMEOUT = 304;
    /** HTTP 429: too many requests; never retried by the library. */
    public const API_RATE_LIMITED = 305;
    /** HTTP 5xx: the service failed. */
    public const API_SERVER = 306;
    /** Any other non-success HTTP status. */
    public const API_OTHER = 307;
    /** A success status whose body could not be read. */
    public const API_DECODE = 308;

    /** The webhook request has no Authorization header (answer 401). */
    public const WEBHOOK_MISSING_AUTHORIZATION = 400;
    /** Your expected webhook token is empty or blank (answer 500: your configuration). */
    public const WEBHOOK_EMPTY_EXPECTED_TOKEN = 401;
    /** The Authorization header cannot hold a token (answer 401). */
    public const WEBHOOK_MALFORMED_AUTHORIZATION = 402;
    /** The Authorization header holds another token (answer 401). */
    public const WEBHOOK_TOKEN_MISMATCH = 403;
    /** The webhook body is larger than the limit (answer 200 and log it). */
    public const WEBHOOK_BODY_TOO_LARGE = 410;
    /** The webhook body is not UTF-8 (answer 200 and log it). */
    public const WEBHOOK_BODY_NOT_UTF8 = 411;
    /** The webhook body nests deeper than the limit (answer 200 and log it). */
    public const WEBHOOK_BODY_TOO_DEEP = 412;
    /** The webhook body is not JSON (answer 200 and log it). */
    public const WEBHOOK_BODY_NOT_JSON = 413;
    /** The webhook body is JSON but not an array of events (answer 200 and log it). */
    public const WEBHOOK_BODY_NOT_ARRAY = 414;

    /** A followed command ended with Error (the exception's getReason() says why). */
    public const COMMAND_FAILED = 500;
    /** A followed command was still running when the wait ran out; it may yet finish. */
    public const COMMAND_TIMED_OUT = 501;
    /** The service no longer knows the command's correlationId (HTTP 410). */
    public const COMMAND_EXPIRED = 502;

    /** A bug in the library was caught at its boundary; please report it. */
    public const PANIC = 900;
    /** An error the library could not classify. */
    public const INTERNAL = 901;

    private function __construct()
    {
    }

    /**
     * The library's name and meaning of a code, e.g.
     * `"IIKO_STATUS_API_RATE_LIMITED: too many requests (HTTP 429)"`; any
     * integer is accepted.
     *
     * @throws Exception\LibraryException when the library cannot be loaded
     */
    public static function describe(int $status): string
    {
        return (string) Library::ffi()->iiko_status_str(Library::int32($status));
    }
}
