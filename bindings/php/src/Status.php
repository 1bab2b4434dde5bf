<?php

declare(strict_types=1);

namespace IikoCloud;

/**
 * The `IIKO_STATUS_*` codes of the C library, mirrored here because PHP's FFI
 * cannot see the header's `#define`s (a test checks every value against
 * include/iikocloud.h). Every exception of this package carries one as
 * {@see Exception\IikoException::getStatus()} (and as `getCode()`).
 *
 * Codes lie in 7100-7999, so that none reads as an HTTP status, grouped by
 * hundreds (71xx your arguments, 72xx transport, 73xx the service's answer,
 * 74xx webhooks, 75xx commands, 79xx the library; {@see group()}), and new
 * ones may appear in any release: treat an unknown code by its group.
 */
final class Status
{
    /** Success; no other code means success. */
    public const OK = 0;

    /** A required argument was missing (NULL in C). */
    public const NULL_ARGUMENT = 7100;
    /** A string argument was not valid UTF-8. */
    public const INVALID_UTF8 = 7101;
    /** A JSON argument was not JSON, or not of the expected shape (unknown or mistyped field). */
    public const INVALID_JSON = 7102;
    /** An argument value was refused before sending (a bad UUID, URL, path, timeout, flag). */
    public const INVALID_ARGUMENT = 7103;
    /** The client options are unusable (no credentials, bad base URL, timeouts). */
    public const INVALID_CONFIG = 7104;
    /** A once-per-process setting was already made (the C telemetry table); the first stays. */
    public const ALREADY_SET = 7105;

    /** The host name did not resolve. */
    public const TRANSPORT_DNS = 7200;
    /** The TCP connection could not be made. */
    public const TRANSPORT_CONNECT = 7201;
    /** TLS failed (certificate, handshake). */
    public const TRANSPORT_TLS = 7202;
    /** The client-side timeout ran out. */
    public const TRANSPORT_TIMEOUT = 7203;
    /** The connection broke or the peer spoke broken HTTP. */
    public const TRANSPORT_IO = 7204;
    /** Any other transport failure, e.g. an answer larger than maxResponseBytes. */
    public const TRANSPORT_OTHER = 7205;
    /** The proxy refused the tunnel (407, 403, 502) or could not be reached. */
    public const TRANSPORT_PROXY = 7206;

    /** HTTP 400: the service rejected the request. */
    public const API_BAD_REQUEST = 7300;
    /** HTTP 401: credentials refused (after one token refresh). */
    public const API_UNAUTHORIZED = 7301;
    /** HTTP 403: the API key may not use this endpoint or organization. */
    public const API_FORBIDDEN = 7302;
    /** HTTP 404: no such endpoint or entity. */
    public const API_NOT_FOUND = 7303;
    /** HTTP 408: the restaurant terminal did not answer within the Timeout header. */
    public const API_TERMINAL_TIMEOUT = 7304;
    /** HTTP 429: too many requests; never retried by the library. */
    public const API_RATE_LIMITED = 7305;
    /** HTTP 5xx: the service failed. */
    public const API_SERVER = 7306;
    /** Any other non-success HTTP status. */
    public const API_OTHER = 7307;
    /** A success status whose body could not be read. */
    public const API_DECODE = 7308;

    /** The webhook request has no Authorization header (answer 401). */
    public const WEBHOOK_MISSING_AUTHORIZATION = 7400;
    /** Your expected webhook token is empty or blank (answer 500: your configuration). */
    public const WEBHOOK_EMPTY_EXPECTED_TOKEN = 7401;
    /** The Authorization header cannot hold a token (answer 401). */
    public const WEBHOOK_MALFORMED_AUTHORIZATION = 7402;
    /** The Authorization header holds another token (answer 401). */
    public const WEBHOOK_TOKEN_MISMATCH = 7403;
    /** The webhook body is larger than the limit (answer 200 and log it). */
    public const WEBHOOK_BODY_TOO_LARGE = 7410;
    /** The webhook body is not UTF-8 (answer 200 and log it). */
    public const WEBHOOK_BODY_NOT_UTF8 = 7411;
    /** The webhook body nests deeper than the limit (answer 200 and log it). */
    public const WEBHOOK_BODY_TOO_DEEP = 7412;
    /** The webhook body is not JSON (answer 200 and log it). */
    public const WEBHOOK_BODY_NOT_JSON = 7413;
    /** The webhook body is JSON but not an array of events (answer 200 and log it). */
    public const WEBHOOK_BODY_NOT_ARRAY = 7414;

    /** A followed command ended with Error (the exception's getReason() says why). */
    public const COMMAND_FAILED = 7500;
    /** A followed command was still running when the wait ran out; it may yet finish. */
    public const COMMAND_TIMED_OUT = 7501;
    /** The service no longer knows the command's correlationId (HTTP 410). */
    public const COMMAND_EXPIRED = 7502;

    /** A bug in the library was caught at its boundary; please report it. */
    public const PANIC = 7900;
    /** An error the library could not classify. */
    public const INTERNAL = 7901;

    /** The groups of {@see group()}: success, or a number that is no code. */
    public const GROUP_NONE = 0;
    /** 7100-7199: your arguments; nothing was sent. */
    public const GROUP_ARGUMENTS = 1;
    /** 7200-7299: transport; no HTTP answer was read. */
    public const GROUP_TRANSPORT = 2;
    /** 7300-7399: the service answered with an error (or an unreadable success). */
    public const GROUP_API = 3;
    /** 7400-7499: a webhook request refused or unreadable. */
    public const GROUP_WEBHOOK = 4;
    /** 7500-7599: a command that did not end in success. */
    public const GROUP_COMMAND = 5;
    /** 7900-7999: the library itself. */
    public const GROUP_LIBRARY = 9;

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

    /**
     * The group of a code (one of the GROUP_ constants), as the library
     * decides it: also for a code newer than this package; GROUP_NONE for OK
     * and for numbers that are no code.
     *
     * @throws Exception\LibraryException when the library cannot be loaded
     */
    public static function group(int $status): int
    {
        return (int) Library::ffi()->iiko_status_group(Library::int32($status));
    }
}
