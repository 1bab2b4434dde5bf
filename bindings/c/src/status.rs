//! Status codes. Values are explicit, grouped by range and append-only: a
//! retired value stays listed as reserved and is never reused.

use std::ffi::c_char;

use crate::panic::guard_value;

/// The result of every fallible call: `IIKO_STATUS_OK` (0) or one of the
/// `IIKO_STATUS_*` codes. Codes lie in 7100-7999, a range no protocol uses, so
/// that a status is never mistaken for an HTTP one (return the HTTP answer the
/// status's documentation names, never the status). They are grouped by
/// hundreds (71xx your arguments, 72xx transport, 73xx the service's answer,
/// 74xx webhooks, 75xx commands, 79xx the library); `iiko_status_group` tells
/// the group of any code. New codes may be added in any release: treat an
/// unknown code by its group.
#[allow(non_camel_case_types)]
pub type iiko_status = i32;

/// Success. No other code means success.
pub const IIKO_STATUS_OK: iiko_status = 0;

// --- 7100-7199: the caller's arguments (nothing was sent) ---

/// A required pointer argument was NULL.
pub const IIKO_STATUS_NULL_ARGUMENT: iiko_status = 7100;
/// A string argument was not valid UTF-8.
pub const IIKO_STATUS_INVALID_UTF8: iiko_status = 7101;
/// A JSON argument was not JSON, or not of the expected shape (unknown or
/// mistyped field).
pub const IIKO_STATUS_INVALID_JSON: iiko_status = 7102;
/// An argument value was refused before sending (a bad UUID, URL, path,
/// timeout, flag or index).
pub const IIKO_STATUS_INVALID_ARGUMENT: iiko_status = 7103;
/// The client options are unusable (no credentials, bad base URL, timeouts).
pub const IIKO_STATUS_INVALID_CONFIG: iiko_status = 7104;
/// A once-per-process setting was already made (`iiko_telemetry_set` called
/// a second time); the first one stays in force.
pub const IIKO_STATUS_ALREADY_SET: iiko_status = 7105;

// --- 7200-7299: transport (no HTTP answer) ---

/// The host name did not resolve.
pub const IIKO_STATUS_TRANSPORT_DNS: iiko_status = 7200;
/// The TCP connection could not be made.
pub const IIKO_STATUS_TRANSPORT_CONNECT: iiko_status = 7201;
/// TLS failed: the message names the host and the reason in words (an
/// unknown authority: add its root with `iiko_client_options_set_ca_file` or
/// install it in the system store; an expired certificate; a name mismatch).
pub const IIKO_STATUS_TRANSPORT_TLS: iiko_status = 7202;
/// The client-side timeout ran out.
pub const IIKO_STATUS_TRANSPORT_TIMEOUT: iiko_status = 7203;
/// The connection broke or the peer spoke broken HTTP.
pub const IIKO_STATUS_TRANSPORT_IO: iiko_status = 7204;
/// Any other transport failure, e.g. an answer larger than the
/// `max_response_bytes` option.
pub const IIKO_STATUS_TRANSPORT_OTHER: iiko_status = 7205;
/// The proxy refused the tunnel (407: wrong or missing proxy credentials;
/// 403; 502) or could not be reached.
pub const IIKO_STATUS_TRANSPORT_PROXY: iiko_status = 7206;

// --- 7300-7399: the service's answer ---

/// HTTP 400: the service rejected the request; see the error's description.
pub const IIKO_STATUS_API_BAD_REQUEST: iiko_status = 7300;
/// HTTP 401: credentials refused (after one token refresh).
pub const IIKO_STATUS_API_UNAUTHORIZED: iiko_status = 7301;
/// HTTP 403: the API key may not use this endpoint or organization.
pub const IIKO_STATUS_API_FORBIDDEN: iiko_status = 7302;
/// HTTP 404: no such endpoint or entity.
pub const IIKO_STATUS_API_NOT_FOUND: iiko_status = 7303;
/// HTTP 408: the restaurant terminal did not answer within the Timeout header.
pub const IIKO_STATUS_API_TERMINAL_TIMEOUT: iiko_status = 7304;
/// HTTP 429: too many requests; see `iiko_error_retry_after_s`. Never retried
/// by the library.
pub const IIKO_STATUS_API_RATE_LIMITED: iiko_status = 7305;
/// HTTP 5xx: the service failed.
pub const IIKO_STATUS_API_SERVER: iiko_status = 7306;
/// Any other non-success HTTP status.
pub const IIKO_STATUS_API_OTHER: iiko_status = 7307;
/// A success status whose body could not be read.
pub const IIKO_STATUS_API_DECODE: iiko_status = 7308;

// --- 7400-7499: webhooks (7400-7409: not authentic; 7410-7419: authentic but unreadable) ---

/// The webhook request has no Authorization header. Answer 401.
pub const IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION: iiko_status = 7400;
/// Your expected webhook token is empty or blank, so every request is refused
/// (a configuration error on your side). Answer 500.
pub const IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN: iiko_status = 7401;
/// The Authorization header cannot hold a token (empty, control bytes,
/// surrounding or doubled spaces, `Bearer` alone, the header repeated).
/// Answer 401.
pub const IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION: iiko_status = 7402;
/// The Authorization header holds another token. Answer 401.
pub const IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH: iiko_status = 7403;
/// The webhook body is larger than the limit. Answer 200 and log it.
pub const IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE: iiko_status = 7410;
/// The webhook body is not UTF-8. Answer 200 and log it.
pub const IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8: iiko_status = 7411;
/// The webhook body nests deeper than the limit. Answer 200 and log it.
pub const IIKO_STATUS_WEBHOOK_BODY_TOO_DEEP: iiko_status = 7412;
/// The webhook body is not JSON. Answer 200 and log it.
pub const IIKO_STATUS_WEBHOOK_BODY_NOT_JSON: iiko_status = 7413;
/// The webhook body is JSON but not an array of events. Answer 200 and log it.
pub const IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY: iiko_status = 7414;

// --- 7500-7599: commands followed to their end ---

/// The command ended with `Error`: the error's description is the service's
/// reason (`errorReason`), its correlation id the command's.
pub const IIKO_STATUS_COMMAND_FAILED: iiko_status = 7500;
/// The command was still in progress when the wait ran out; it may yet
/// finish (look the order up before sending it again).
pub const IIKO_STATUS_COMMAND_TIMED_OUT: iiko_status = 7501;
/// The service no longer knows the command's correlationId (HTTP 410).
pub const IIKO_STATUS_COMMAND_EXPIRED: iiko_status = 7502;

// --- 7900-7999: the library itself ---

/// A bug in the library was caught at the boundary (a Rust panic); the call
/// had no effect on the caller's handles beyond what its documentation says.
/// Please report it.
pub const IIKO_STATUS_PANIC: iiko_status = 7900;
/// An error the library could not classify (a newer core error kind).
pub const IIKO_STATUS_INTERNAL: iiko_status = 7901;

/// Success (`IIKO_STATUS_OK`), or a number that is no status code.
pub const IIKO_STATUS_GROUP_NONE: i32 = 0;
/// 7100-7199: the caller's arguments; nothing was sent.
pub const IIKO_STATUS_GROUP_ARGUMENTS: i32 = 1;
/// 7200-7299: transport; no HTTP answer was read.
pub const IIKO_STATUS_GROUP_TRANSPORT: i32 = 2;
/// 7300-7399: the service answered with an error (or an unreadable success).
pub const IIKO_STATUS_GROUP_API: i32 = 3;
/// 7400-7499: a webhook request was refused or could not be read.
pub const IIKO_STATUS_GROUP_WEBHOOK: i32 = 4;
/// 7500-7599: a command did not end in success.
pub const IIKO_STATUS_GROUP_COMMAND: i32 = 5;
/// 7900-7999: the library itself.
pub const IIKO_STATUS_GROUP_LIBRARY: i32 = 9;

/// The lowest and highest status code (other than `IIKO_STATUS_OK`) the
/// library may ever return.
const FIRST_CODE: iiko_status = 7100;
const LAST_CODE: iiko_status = 7999;

/// The group of `status`: `IIKO_STATUS_GROUP_ARGUMENTS` ...
/// `IIKO_STATUS_GROUP_LIBRARY` for any code of 7100-7999 (also one newer than
/// this header), `IIKO_STATUS_GROUP_NONE` for `IIKO_STATUS_OK` and for numbers
/// outside the range. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_status_group(status: iiko_status) -> i32 {
    guard_value(IIKO_STATUS_GROUP_NONE, || status_group(status))
}

pub(crate) fn status_group(status: iiko_status) -> i32 {
    if !(FIRST_CODE..=LAST_CODE).contains(&status) {
        return IIKO_STATUS_GROUP_NONE;
    }
    // 7600-7899 are not assigned; a code there has no group yet.
    match (status - 7000) / 100 {
        g @ (1..=5 | 9) => g,
        _ => IIKO_STATUS_GROUP_NONE,
    }
}

/// The name and meaning of a status code, e.g.
/// `"IIKO_STATUS_API_RATE_LIMITED: too many requests (HTTP 429)"`.
///
/// Never NULL. The string is static: do not free it. Any integer is accepted;
/// an unknown code gives a text saying so. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_status_str(status: iiko_status) -> *const c_char {
    guard_value(c"IIKO_STATUS_PANIC".as_ptr(), || {
        status_text(status).as_ptr()
    })
}

pub(crate) fn status_text(status: iiko_status) -> &'static std::ffi::CStr {
    match status {
        IIKO_STATUS_OK => c"IIKO_STATUS_OK: success",
        IIKO_STATUS_NULL_ARGUMENT => c"IIKO_STATUS_NULL_ARGUMENT: a required pointer was NULL",
        IIKO_STATUS_INVALID_UTF8 => c"IIKO_STATUS_INVALID_UTF8: a string was not valid UTF-8",
        IIKO_STATUS_INVALID_JSON => {
            c"IIKO_STATUS_INVALID_JSON: a JSON argument was not JSON of the expected shape"
        }
        IIKO_STATUS_INVALID_ARGUMENT => {
            c"IIKO_STATUS_INVALID_ARGUMENT: an argument was refused before sending"
        }
        IIKO_STATUS_INVALID_CONFIG => {
            c"IIKO_STATUS_INVALID_CONFIG: the client options are unusable"
        }
        IIKO_STATUS_ALREADY_SET => {
            c"IIKO_STATUS_ALREADY_SET: a once-per-process setting was already made; the first stays"
        }
        IIKO_STATUS_TRANSPORT_DNS => c"IIKO_STATUS_TRANSPORT_DNS: the host name did not resolve",
        IIKO_STATUS_TRANSPORT_CONNECT => c"IIKO_STATUS_TRANSPORT_CONNECT: could not connect",
        IIKO_STATUS_TRANSPORT_TLS => c"IIKO_STATUS_TRANSPORT_TLS: TLS failed",
        IIKO_STATUS_TRANSPORT_TIMEOUT => {
            c"IIKO_STATUS_TRANSPORT_TIMEOUT: the client-side timeout ran out"
        }
        IIKO_STATUS_TRANSPORT_IO => c"IIKO_STATUS_TRANSPORT_IO: the connection failed",
        IIKO_STATUS_TRANSPORT_OTHER => c"IIKO_STATUS_TRANSPORT_OTHER: the request failed",
        IIKO_STATUS_TRANSPORT_PROXY => {
            c"IIKO_STATUS_TRANSPORT_PROXY: the proxy refused or could not be reached"
        }
        IIKO_STATUS_API_BAD_REQUEST => {
            c"IIKO_STATUS_API_BAD_REQUEST: the service refused the request (HTTP 400)"
        }
        IIKO_STATUS_API_UNAUTHORIZED => {
            c"IIKO_STATUS_API_UNAUTHORIZED: credentials refused (HTTP 401)"
        }
        IIKO_STATUS_API_FORBIDDEN => c"IIKO_STATUS_API_FORBIDDEN: not allowed (HTTP 403)",
        IIKO_STATUS_API_NOT_FOUND => c"IIKO_STATUS_API_NOT_FOUND: not found (HTTP 404)",
        IIKO_STATUS_API_TERMINAL_TIMEOUT => {
            c"IIKO_STATUS_API_TERMINAL_TIMEOUT: the restaurant terminal did not answer (HTTP 408)"
        }
        IIKO_STATUS_API_RATE_LIMITED => {
            c"IIKO_STATUS_API_RATE_LIMITED: too many requests (HTTP 429)"
        }
        IIKO_STATUS_API_SERVER => c"IIKO_STATUS_API_SERVER: the service failed (HTTP 5xx)",
        IIKO_STATUS_API_OTHER => c"IIKO_STATUS_API_OTHER: unexpected HTTP status",
        IIKO_STATUS_API_DECODE => c"IIKO_STATUS_API_DECODE: the service's answer could not be read",
        IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION => {
            c"IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION: the webhook request has no Authorization header"
        }
        IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN => {
            c"IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN: the expected webhook token is empty"
        }
        IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION => {
            c"IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION: the Authorization header is malformed"
        }
        IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH => {
            c"IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH: the Authorization token does not match"
        }
        IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE => {
            c"IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE: the webhook body is too large"
        }
        IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8 => {
            c"IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8: the webhook body is not UTF-8"
        }
        IIKO_STATUS_WEBHOOK_BODY_TOO_DEEP => {
            c"IIKO_STATUS_WEBHOOK_BODY_TOO_DEEP: the webhook body nests too deep"
        }
        IIKO_STATUS_WEBHOOK_BODY_NOT_JSON => {
            c"IIKO_STATUS_WEBHOOK_BODY_NOT_JSON: the webhook body is not JSON"
        }
        IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY => {
            c"IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY: the webhook body is not an array of events"
        }
        IIKO_STATUS_COMMAND_FAILED => c"IIKO_STATUS_COMMAND_FAILED: the command failed",
        IIKO_STATUS_COMMAND_TIMED_OUT => {
            c"IIKO_STATUS_COMMAND_TIMED_OUT: the command was still running when the wait ran out"
        }
        IIKO_STATUS_COMMAND_EXPIRED => {
            c"IIKO_STATUS_COMMAND_EXPIRED: the service no longer knows the command"
        }
        IIKO_STATUS_PANIC => {
            c"IIKO_STATUS_PANIC: a bug in the library was caught; please report it"
        }
        IIKO_STATUS_INTERNAL => c"IIKO_STATUS_INTERNAL: an unclassified library error",
        _ => c"unknown iiko_status code",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [(iiko_status, i32); 38] = [
        (IIKO_STATUS_NULL_ARGUMENT, IIKO_STATUS_GROUP_ARGUMENTS),
        (IIKO_STATUS_INVALID_UTF8, IIKO_STATUS_GROUP_ARGUMENTS),
        (IIKO_STATUS_INVALID_JSON, IIKO_STATUS_GROUP_ARGUMENTS),
        (IIKO_STATUS_INVALID_ARGUMENT, IIKO_STATUS_GROUP_ARGUMENTS),
        (IIKO_STATUS_INVALID_CONFIG, IIKO_STATUS_GROUP_ARGUMENTS),
        (IIKO_STATUS_ALREADY_SET, IIKO_STATUS_GROUP_ARGUMENTS),
        (IIKO_STATUS_TRANSPORT_DNS, IIKO_STATUS_GROUP_TRANSPORT),
        (IIKO_STATUS_TRANSPORT_CONNECT, IIKO_STATUS_GROUP_TRANSPORT),
        (IIKO_STATUS_TRANSPORT_TLS, IIKO_STATUS_GROUP_TRANSPORT),
        (IIKO_STATUS_TRANSPORT_TIMEOUT, IIKO_STATUS_GROUP_TRANSPORT),
        (IIKO_STATUS_TRANSPORT_IO, IIKO_STATUS_GROUP_TRANSPORT),
        (IIKO_STATUS_TRANSPORT_OTHER, IIKO_STATUS_GROUP_TRANSPORT),
        (IIKO_STATUS_TRANSPORT_PROXY, IIKO_STATUS_GROUP_TRANSPORT),
        (IIKO_STATUS_API_BAD_REQUEST, IIKO_STATUS_GROUP_API),
        (IIKO_STATUS_API_UNAUTHORIZED, IIKO_STATUS_GROUP_API),
        (IIKO_STATUS_API_FORBIDDEN, IIKO_STATUS_GROUP_API),
        (IIKO_STATUS_API_NOT_FOUND, IIKO_STATUS_GROUP_API),
        (IIKO_STATUS_API_TERMINAL_TIMEOUT, IIKO_STATUS_GROUP_API),
        (IIKO_STATUS_API_RATE_LIMITED, IIKO_STATUS_GROUP_API),
        (IIKO_STATUS_API_SERVER, IIKO_STATUS_GROUP_API),
        (IIKO_STATUS_API_OTHER, IIKO_STATUS_GROUP_API),
        (IIKO_STATUS_API_DECODE, IIKO_STATUS_GROUP_API),
        (
            IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION,
            IIKO_STATUS_GROUP_WEBHOOK,
        ),
        (
            IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN,
            IIKO_STATUS_GROUP_WEBHOOK,
        ),
        (
            IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION,
            IIKO_STATUS_GROUP_WEBHOOK,
        ),
        (
            IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH,
            IIKO_STATUS_GROUP_WEBHOOK,
        ),
        (
            IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE,
            IIKO_STATUS_GROUP_WEBHOOK,
        ),
        (IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8, IIKO_STATUS_GROUP_WEBHOOK),
        (IIKO_STATUS_WEBHOOK_BODY_TOO_DEEP, IIKO_STATUS_GROUP_WEBHOOK),
        (IIKO_STATUS_WEBHOOK_BODY_NOT_JSON, IIKO_STATUS_GROUP_WEBHOOK),
        (
            IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY,
            IIKO_STATUS_GROUP_WEBHOOK,
        ),
        (IIKO_STATUS_COMMAND_FAILED, IIKO_STATUS_GROUP_COMMAND),
        (IIKO_STATUS_COMMAND_TIMED_OUT, IIKO_STATUS_GROUP_COMMAND),
        (IIKO_STATUS_COMMAND_EXPIRED, IIKO_STATUS_GROUP_COMMAND),
        (IIKO_STATUS_PANIC, IIKO_STATUS_GROUP_LIBRARY),
        (IIKO_STATUS_INTERNAL, IIKO_STATUS_GROUP_LIBRARY),
        (IIKO_STATUS_OK, IIKO_STATUS_GROUP_NONE),
        (7650, IIKO_STATUS_GROUP_NONE),
    ];

    #[test]
    fn no_code_looks_like_an_http_status_and_each_has_its_group() {
        for (code, group) in ALL {
            assert!(
                !(100..600).contains(&code),
                "{code} reads as an HTTP status"
            );
            assert_eq!(iiko_status_group(code), group, "group of {code}");
        }
        // Old-style numbers and anything outside the range have no group.
        for code in [
            -1,
            100,
            300,
            403,
            500,
            900,
            7000,
            7099,
            8000,
            i32::MAX,
            i32::MIN,
        ] {
            assert_eq!(iiko_status_group(code), IIKO_STATUS_GROUP_NONE, "{code}");
        }
        // A code newer than this library still has its group.
        assert_eq!(iiko_status_group(7350), IIKO_STATUS_GROUP_API);
    }

    #[test]
    fn every_code_is_named() {
        for (code, _) in ALL.iter().filter(|(c, _)| *c != 7650) {
            let text = status_text(*code).to_str().unwrap();
            assert!(text.starts_with("IIKO_STATUS_"), "{code}: {text}");
        }
    }
}
