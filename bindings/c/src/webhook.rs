//! The webhook functions: verify a request, parse its body, both at once
//! (`iiko_webhook_receive`), and the HTTP status to answer.

use std::ffi::c_char;

use iikocloud_core::limits::{WEBHOOK_MAX_BODY_BYTES, WEBHOOK_MAX_DEPTH};
use iikocloud_core::webhook::{
    parse_body_with, receive, status_for_parse, status_for_verify, ParseError, ParseErrorKind,
    ParseOptions, ReceiveError, Verifier, VerifyError, STATUS_ACCEPTED, STATUS_RECEIVER_FAULT,
};

use crate::error::{guard, iiko_error, Failure};
use crate::events::iiko_events;
use crate::ffi::{arg_bytes, arg_headers, arg_str, guard_value, out_ptr};
use crate::status::*;

/// Parse flag: refuse a body that is one event object instead of an array
/// (`IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY`). By default such a body is read as
/// one event and `iiko_events_single_object` says so.
pub const IIKO_WEBHOOK_REJECT_SINGLE_OBJECT: u32 = 1;

fn parse_options(
    max_body_bytes: usize,
    max_depth: usize,
    flags: u32,
) -> Result<ParseOptions, Failure> {
    if flags & !IIKO_WEBHOOK_REJECT_SINGLE_OBJECT != 0 {
        return Err(Failure::invalid_argument(format!(
            "unknown flags 0x{flags:x}; use 0 or IIKO_WEBHOOK_REJECT_SINGLE_OBJECT"
        )));
    }
    // The limits' own rules say what 0 and a value above the ceiling mean.
    let mut options = ParseOptions::new()
        .with_accept_single_object(flags & IIKO_WEBHOOK_REJECT_SINGLE_OBJECT == 0);
    if let Some(bytes) = WEBHOOK_MAX_BODY_BYTES.read_raw(max_body_bytes as u64)? {
        options = options.with_max_body_bytes(usize::try_from(bytes).unwrap_or(usize::MAX));
    }
    if let Some(depth) = WEBHOOK_MAX_DEPTH.read_raw(max_depth as u64)? {
        options = options.with_max_depth(usize::try_from(depth).unwrap_or(usize::MAX));
    }
    Ok(options)
}

/// The webhook error a status code names, if it names one.
fn verify_error_of(status: iiko_status) -> Option<VerifyError> {
    Some(match status {
        IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION => VerifyError::MissingHeader,
        IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN => VerifyError::EmptyExpectedToken,
        IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION => VerifyError::MalformedHeader,
        IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH => VerifyError::Mismatch,
        _ => return None,
    })
}

/// The parse error kind a status code names, if it names one.
fn parse_kind_of(status: iiko_status) -> Option<ParseErrorKind> {
    Some(match status {
        IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE => ParseErrorKind::TooLarge,
        IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8 => ParseErrorKind::InvalidUtf8,
        IIKO_STATUS_WEBHOOK_BODY_TOO_DEEP => ParseErrorKind::TooDeep,
        IIKO_STATUS_WEBHOOK_BODY_NOT_JSON => ParseErrorKind::InvalidJson,
        IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY => ParseErrorKind::NotAnArray,
        _ => return None,
    })
}

fn verify_status(e: VerifyError) -> iiko_status {
    match e {
        VerifyError::MissingHeader => IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION,
        VerifyError::EmptyExpectedToken => IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN,
        VerifyError::MalformedHeader => IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION,
        VerifyError::Mismatch => IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH,
    }
}

fn parse_failure(e: &ParseError) -> Failure {
    let status = match e.kind() {
        ParseErrorKind::TooLarge => IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE,
        ParseErrorKind::InvalidUtf8 => IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8,
        ParseErrorKind::TooDeep => IIKO_STATUS_WEBHOOK_BODY_TOO_DEEP,
        ParseErrorKind::InvalidJson => IIKO_STATUS_WEBHOOK_BODY_NOT_JSON,
        ParseErrorKind::NotAnArray => IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY,
    };
    Failure::new(status, e.to_string())
}

fn verify_failure(e: VerifyError) -> Failure {
    // VerifyError's text never contains the token or the header value.
    Failure::new(verify_status(e), e.to_string())
}

/// Checks the value of a webhook request's `Authorization` header against your
/// `authToken` (the one given to `iiko_client_update_webhook_settings`), in
/// constant time. The bare token and `Bearer <token>` are both accepted.
///
/// `expected_token`: your token, NUL-terminated (an empty or blank one refuses
/// every request: `IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN`).
/// `authorization`, `authorization_len`: the header value as raw bytes (any
/// bytes, not NUL-terminated), or NULL when the request has no such header. Look the header up by name
/// case-insensitively (or use `iiko_webhook_receive`).
///
/// Returns `IIKO_STATUS_OK` for an authentic request, else a
/// `IIKO_STATUS_WEBHOOK_*` code from 7400 to 7403; `iiko_webhook_http_status`
/// gives the answer to send. Messages never contain the token or the header.
///
/// # Safety
/// `expected_token` must be NULL or NUL-terminated; `authorization` must be
/// NULL or point to `authorization_len` bytes; `err_out` must be NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_webhook_verify(
    expected_token: *const c_char,
    authorization: *const c_char,
    authorization_len: usize,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let expected = unsafe { arg_str(expected_token, "expected_token") }?;
        let value = if authorization.is_null() {
            None
        } else {
            // SAFETY: per this function's contract.
            Some(unsafe { arg_bytes(authorization.cast(), authorization_len, "authorization") }?)
        };
        Verifier::new(expected)
            .verify(value)
            .map_err(verify_failure)
    })
}

/// Parses a webhook body (no verification: for bodies you already verified,
/// or read back from a queue or a file).
///
/// `body`, `body_len`: the raw request body, any bytes, not NUL-terminated
/// (NULL only with length 0). `char` rather than `uint8_t` so that PHP's FFI
/// can pass a PHP string directly. Limits: `max_body_bytes` (0:
/// `IIKO_DEFAULT_MAX_BODY_BYTES`) and `max_depth` of JSON nesting (0:
/// `IIKO_DEFAULT_MAX_DEPTH`; above `IIKO_MAX_DEPTH_CEILING` lowered to it), read
/// as `iiko_limit_read_arg` reads `"webhook.max_body_bytes"` and
/// `"webhook.max_depth"`. `flags`: 0 or `IIKO_WEBHOOK_REJECT_SINGLE_OBJECT`.
///
/// A body that is not UTF-8, not JSON, too large, too deep or not an array
/// fails with a `IIKO_STATUS_WEBHOOK_BODY_*` code (7410 to 7414). One unreadable
/// event does not fail the body: it gets `iiko_events_problem`.
///
/// On success writes a new handle to `*events_out` (yours; free it with
/// `iiko_events_free`). The body is not referenced afterwards.
///
/// # Safety
/// `body` must be NULL or point to `body_len` readable bytes; the out pointers
/// must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_webhook_parse(
    body: *const c_char,
    body_len: usize,
    max_body_bytes: usize,
    max_depth: usize,
    flags: u32,
    events_out: *mut *mut iiko_events,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let body = unsafe { arg_bytes(body.cast(), body_len, "body") }?;
        let out = out_ptr(events_out, "events_out")?;
        let options = parse_options(max_body_bytes, max_depth, flags)?;
        let parsed = parse_body_with(body, &options).map_err(|e| parse_failure(&e))?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(Box::into_raw(iiko_events::boxed(parsed))) };
        Ok(())
    })
}

/// Verifies a webhook request, then parses its body: what a webhook endpoint
/// calls for each request. The body of a request that fails verification is
/// never parsed.
///
/// `header_names` and `header_values`: the request's headers, `header_count`
/// of each, NUL-terminated (NULL arrays only with a count of 0). The
/// `Authorization` header is found by name, case-insensitively; several of
/// them are refused as malformed. The other arguments are those of
/// `iiko_webhook_verify` and `iiko_webhook_parse`.
///
/// Answer `iiko_webhook_http_status(status)` at once, then work on the events.
///
/// # Safety
/// `expected_token` must be NULL or NUL-terminated; the header arrays must be
/// NULL or hold `header_count` NULL or NUL-terminated strings; `body` must be
/// NULL or point to `body_len` bytes; the out pointers must be NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_webhook_receive(
    expected_token: *const c_char,
    header_names: *const *const c_char,
    header_values: *const *const c_char,
    header_count: usize,
    body: *const c_char,
    body_len: usize,
    max_body_bytes: usize,
    max_depth: usize,
    flags: u32,
    events_out: *mut *mut iiko_events,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let expected = unsafe { arg_str(expected_token, "expected_token") }?;
        // SAFETY: per this function's contract.
        let body = unsafe { arg_bytes(body.cast(), body_len, "body") }?;
        let out = out_ptr(events_out, "events_out")?;
        let options = parse_options(max_body_bytes, max_depth, flags)?;
        // SAFETY: per this function's contract.
        let headers = unsafe { arg_headers(header_names, header_values, header_count) }?;
        let parsed = receive(headers, body, expected, &options).map_err(|e| match e {
            ReceiveError::Unauthorized(v) => verify_failure(v),
            ReceiveError::Unparseable(p) => parse_failure(&p),
            other => Failure::new(IIKO_STATUS_INTERNAL, other.to_string()),
        })?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(Box::into_raw(iiko_events::boxed(parsed))) };
        Ok(())
    })
}

/// The HTTP status a webhook endpoint should answer for the status of
/// `iiko_webhook_receive` (or `iiko_webhook_verify` + `iiko_webhook_parse`),
/// as the library's receive rule gives it (the same in every binding):
///
/// - 200 for `IIKO_STATUS_OK`, and for an authentic body that cannot be read
///   (7410 to 7414): the service would resend the same bytes forever and
///   finally block the webhook; log the body instead;
/// - 401 for a missing, malformed or wrong token (7400, 7402, 7403);
/// - 500 for an empty expected token (7401: your configuration) and for any
///   other code (a failure on your side, so the service retries later).
///
/// Thread-safe; any integer is accepted.
#[no_mangle]
pub extern "C" fn iiko_webhook_http_status(status: iiko_status) -> i32 {
    guard_value(i32::from(STATUS_RECEIVER_FAULT), || {
        let answer = if status == IIKO_STATUS_OK {
            STATUS_ACCEPTED
        } else if let Some(e) = verify_error_of(status) {
            status_for_verify(e)
        } else if let Some(kind) = parse_kind_of(status) {
            status_for_parse(kind)
        } else {
            STATUS_RECEIVER_FAULT
        };
        i32::from(answer)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhook_codes_name_the_core_errors() {
        for e in [
            VerifyError::MissingHeader,
            VerifyError::EmptyExpectedToken,
            VerifyError::MalformedHeader,
            VerifyError::Mismatch,
        ] {
            assert_eq!(verify_error_of(verify_status(e)), Some(e));
        }
        let kinds: Vec<_> = (7410..=7414).map(|c| parse_kind_of(c).unwrap()).collect();
        for (i, k) in kinds.iter().enumerate() {
            assert!(!kinds[i + 1..].contains(k));
        }
        assert_eq!(parse_kind_of(7415), None);
        assert_eq!(verify_error_of(7404), None);
    }

    #[test]
    fn http_status_of_every_webhook_code() {
        assert_eq!(iiko_webhook_http_status(IIKO_STATUS_OK), 200);
        assert_eq!(
            iiko_webhook_http_status(IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH),
            401
        );
        assert_eq!(
            iiko_webhook_http_status(IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN),
            500
        );
        assert_eq!(
            iiko_webhook_http_status(IIKO_STATUS_WEBHOOK_BODY_NOT_JSON),
            200
        );
        assert_eq!(iiko_webhook_http_status(IIKO_STATUS_NULL_ARGUMENT), 500);
        assert_eq!(iiko_webhook_http_status(-7), 500);
    }

    /// The doc comment right above the line of the header that starts with
    /// `item`.
    fn doc_above(header: &str, item: &str) -> String {
        let at = header
            .find(&format!("\n{item}"))
            .unwrap_or_else(|| panic!("{item} not in the header"));
        let before = &header[..at];
        let start = before.rfind("/**").unwrap();
        before[start..].to_owned()
    }

    /// The status codes (7100-7999) of a text, with `A to B` spans filled in.
    fn numbers(text: &str) -> Vec<i32> {
        let words: Vec<&str> = text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let mut out = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let Ok(n) = w.parse::<i32>() else { continue };
            if !(7100..=7999).contains(&n) {
                continue;
            }
            if i >= 2 && words[i - 1] == "to" {
                if let Ok(from) = words[i - 2].parse::<i32>() {
                    out.extend(from + 1..n);
                }
            }
            out.push(n);
        }
        out
    }

    /// The header states the receive rule only where a test holds it to the
    /// core's: each webhook status says which HTTP status to answer, and
    /// `iiko_webhook_http_status` lists them; both must be what the core
    /// answers (a past slip had a binding's docs say 400 for what is 200).
    #[test]
    fn the_headers_statuses_are_the_cores() {
        let header = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../include/iikocloud.h"
        ))
        .unwrap();
        let mut checked = 0;
        for line in header.lines() {
            let Some(rest) = line.strip_prefix("#define IIKO_STATUS_WEBHOOK_") else {
                continue;
            };
            let (name, value) = rest.split_once(' ').unwrap();
            let code: iiko_status = value.trim().parse().unwrap();
            let doc = doc_above(&header, &format!("#define IIKO_STATUS_WEBHOOK_{name} "));
            let said = doc
                .split("Answer ")
                .nth(1)
                .and_then(|t| t.get(..3))
                .and_then(|t| t.parse::<i32>().ok())
                .unwrap_or_else(|| panic!("IIKO_STATUS_WEBHOOK_{name}: no \"Answer NNN\""));
            assert_eq!(
                said,
                iiko_webhook_http_status(code),
                "IIKO_STATUS_WEBHOOK_{name}"
            );
            checked += 1;
        }
        assert_eq!(checked, 9);
        let doc = doc_above(&header, "int32_t iiko_webhook_http_status(");
        let bullets: Vec<&str> = doc.split("\n * - ").skip(1).collect();
        assert_eq!(bullets.len(), 3, "{doc}");
        for bullet in bullets {
            let (answer, codes) = bullet.split_once(" for ").unwrap();
            let answer: i32 = answer.parse().unwrap();
            let codes = numbers(codes);
            for code in &codes {
                assert_eq!(
                    iiko_webhook_http_status(*code),
                    answer,
                    "{code} in {bullet:?}"
                );
            }
            if answer != i32::from(STATUS_RECEIVER_FAULT) {
                assert!(!codes.is_empty(), "{bullet:?} names no code");
            }
        }
    }

    /// The README's table of status ranges says what to answer for the
    /// webhook codes (`answer 401, or 500 for 7401`): the core's rule too.
    #[test]
    fn the_readmes_statuses_are_the_cores() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
        let mut rows = 0;
        for row in readme.lines().filter(|l| l.starts_with("| 74xx")) {
            let cells: Vec<&str> = row.split('|').collect();
            let (what, codes) = (cells[1], cells[2]);
            let rule = what
                .split("(answer ")
                .nth(1)
                .unwrap()
                .split(')')
                .next()
                .unwrap();
            let answer: i32 = rule[..3].parse().unwrap();
            // "or 500 for 7401": one code answered otherwise.
            let exception = rule.split(", or ").nth(1).map(|e| {
                let (status, code) = e.split_once(" for ").unwrap();
                (
                    code.trim().parse::<i32>().unwrap(),
                    status.parse::<i32>().unwrap(),
                )
            });
            let listed = numbers(codes);
            assert!(listed.len() >= 4, "{row}");
            for code in listed {
                let want = match exception {
                    Some((c, status)) if c == code => status,
                    _ => answer,
                };
                assert_eq!(iiko_webhook_http_status(code), want, "{code} in {row}");
            }
            rows += 1;
        }
        assert_eq!(rows, 2);
    }
}
