//! The properties each fuzz target checks, one function per target.
//!
//! Each function takes the fuzzer's bytes and panics when a property fails;
//! the fuzz binaries in `fuzz/fuzz_targets` only call them. Keeping them in a
//! plain library lets `tests/replay.rs` run the seeds and every saved crash on
//! the stable toolchain, without libFuzzer.

use std::ffi::{c_char, CStr, CString};

use iikocloud::webhook::{
    parse_body, parse_body_with, parse_event, receive, verify_authorization, Deduplicator,
    EventPayload, OrderingDecision, OrderingGuard, ParseError, ParseOptions, ReceiveError,
    Verifier, VerifyError, DEFAULT_MAX_DEPTH,
};
use iikocloud_c::deduplicator::*;
use iikocloud_c::error::{iiko_error, iiko_error_free, iiko_error_message, iiko_error_status};
use iikocloud_c::events::*;
use iikocloud_c::ordering_guard::*;
use iikocloud_c::status::IIKO_STATUS_OK;
use iikocloud_c::webhook::*;
use serde_json::Value;

/// The target names, as in `fuzz/Cargo.toml`, `fuzz/seeds` and `fuzz/regressions`.
pub const TARGETS: [&str; 4] = ["webhook_parse", "webhook_verify", "c_api", "request_check"];

/// Runs the check of `target` on `data`.
pub fn run(target: &str, data: &[u8]) {
    match target {
        "webhook_parse" => webhook_parse(data),
        "webhook_verify" => webhook_verify(data),
        "c_api" => c_api(data),
        #[cfg(feature = "typed")]
        "request_check" => request_check(data),
        #[cfg(not(feature = "typed"))]
        "request_check" => panic!("request_check needs the `typed` feature"),
        other => panic!("unknown fuzz target {other}"),
    }
}

/// The check of a request by name (`prepare_request_with`, what every
/// binding's call by name runs before sending) on any operation and any
/// bytes. `data`: two bytes choose the operation (little-endian, modulo the
/// count), one byte how keys are read (bit 0: unknown keys allowed, bit 1:
/// snake-case keys taken), the rest is the request.
///
/// Properties: no panic; a refusal is `InvalidInput`; what is accepted is
/// an object that the typed path (the request read into its model, checked
/// and written back) accepts and writes the same, and that a second check
/// leaves as it is.
#[cfg(feature = "typed")]
pub fn request_check(data: &[u8]) {
    use iikocloud::api::{prepare_request_with, prepare_typed, RequestKeys, OPERATIONS};

    let [lo, hi, mode, rest @ ..] = data else {
        return;
    };
    let op = &OPERATIONS[usize::from(u16::from_le_bytes([*lo, *hi])) % OPERATIONS.len()];
    let keys = RequestKeys::default()
        .allowing_unknown(mode & 1 != 0)
        .with_snake_case(mode & 2 != 0);
    let Ok(request) = serde_json::from_slice::<Value>(rest) else {
        return;
    };
    let sent = match prepare_request_with(op.name, &request, keys) {
        Ok(sent) => sent,
        Err(iikocloud::Error::InvalidInput(_)) => return,
        Err(e) => panic!("{}: refused with {e:?}, not InvalidInput", op.name),
    };
    assert!(sent.is_object(), "{}: sends {sent}", op.name);
    // Snake-case keys are the by-name path's own reading: the typed models
    // know the document's names, which is what went out.
    let typed_input = if keys.snake_case { &sent } else { &request };
    match prepare_typed(op.name, typed_input) {
        Ok(typed) => assert_eq!(
            typed, sent,
            "{}: the typed path writes {typed_input} otherwise",
            op.name
        ),
        Err(e) => panic!(
            "{}: accepted by name as {sent}, refused typed: {e}",
            op.name
        ),
    }
    let again = prepare_request_with(op.name, &sent, keys)
        .unwrap_or_else(|e| panic!("{}: {sent} refused when checked again: {e}", op.name));
    assert_eq!(again, sent, "{}: a second check changes it", op.name);
}

/// Nesting depth of a JSON value (a scalar is 0, `[]` is 1).
fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Every flat accessor of an event, as text.
fn flat_fields(e: &iikocloud::webhook::Event) -> String {
    format!(
        "{:?} {:?}",
        (
            e.entity_id(),
            e.order_id(),
            e.timestamp(),
            e.creation_status().map(|c| c.as_str()),
            e.error_code(),
            e.error_message(),
            e.status(),
            e.order_number(),
            e.sum().map(|m| m.to_string()),
            e.phone(),
            e.is_new_delivery_order(),
        ),
        (
            e.external_number(),
            e.pos_id(),
            e.reserve_is_deleted(),
            e.dedup_key().as_str().to_owned(),
        )
    )
}

/// The webhook body parser: never panics, agrees with `serde_json` on what is
/// JSON, keeps each element's exact text, reads each element the same way
/// alone as in a body, and its accessors, de-duplicator and ordering guard
/// survive whatever it produced.
pub fn webhook_parse(data: &[u8]) {
    let result = parse_body(data);
    let unbommed = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    // serde_json is the reference for JSON syntax. Its own recursion limit
    // (128) is above the parser's default depth limit (64), so it decides
    // every body the parser gets to look at.
    let reference = serde_json::from_slice::<Value>(unbommed);
    // Valid JSON that serde_json's `Value` cannot hold is held to serde_json's
    // syntax alone (a RawValue of the whole body): an object keyed by its
    // private marker `$serde_json::private::RawValue`, which `Value` (with the
    // raw_value feature the SDK enables) takes for a RawValue and refuses
    // ("expected raw value"), and a number past what a double holds (`1e400`;
    // JSON's grammar has no limit), which the parser accepts and leaves to
    // the event it is in: that event, or its `eventInfo`, is unreadable.
    let value_cannot_hold =
        reference.as_ref().is_err_and(|e| {
            let e = e.to_string();
            e.contains("expected raw value") || e.contains("number out of range")
        }) && serde_json::from_slice::<Box<serde_json::value::RawValue>>(unbommed).is_ok();
    match (&result, &reference) {
        (Ok(parsed), Ok(value)) => {
            let elements: Vec<&Value> = match value {
                Value::Array(items) => {
                    assert!(!parsed.single_object, "an array read as a single object");
                    items.iter().collect()
                }
                Value::Object(_) => {
                    assert!(parsed.single_object, "an object body not flagged");
                    vec![value]
                }
                other => panic!("parse_body accepted a non-array body: {other}"),
            };
            assert_eq!(parsed.events.len(), elements.len(), "event count");
            // The flat accessors read what the scan noted until the typed
            // eventInfo is read; they must answer the same after it.
            let before: Vec<String> = parsed.events.iter().map(flat_fields).collect();
            for (event, flat) in parsed.events.iter().zip(&before) {
                if event.problem().is_none() {
                    assert!(
                        !matches!(event.payload(), EventPayload::Invalid { .. }),
                        "a usable event's eventInfo could not be read later"
                    );
                }
                let _ = event.payload();
                assert_eq!(
                    flat,
                    &flat_fields(event),
                    "an accessor changed after the typed read"
                );
            }
            for (event, element) in parsed.events.iter().zip(elements) {
                let raw: Value =
                    serde_json::from_str(event.raw_json()).expect("an event's raw_json is JSON");
                assert_eq!(&raw, element, "raw_json is not the element's text");
                // The same element read alone must give the same event as in
                // the body: the fast and the careful path must agree.
                assert_eq!(
                    &parse_event(event.raw_json()),
                    event,
                    "an element read alone differs from the same element in a body"
                );
            }
        }
        (Ok(_), Err(_)) if value_cannot_hold => {}
        (Ok(_), Err(e)) => panic!("parse_body accepted what serde_json rejects: {e}"),
        (Err(ParseError::InvalidUtf8 { .. }), _) => {
            assert!(
                std::str::from_utf8(unbommed).is_err(),
                "valid UTF-8 refused"
            );
        }
        (Err(ParseError::TooDeep { limit }), Ok(value)) => {
            assert!(
                depth(value) > *limit,
                "a body {} deep refused as deeper than {limit}",
                depth(value)
            );
        }
        (Err(ParseError::InvalidJson { .. }), Ok(_)) => {
            panic!("parse_body calls JSON invalid that serde_json accepts")
        }
        (Err(ParseError::NotAnArray { found }), Ok(value)) => {
            assert!(!value.is_array(), "an array refused as {found}");
        }
        (Err(_), _) => {}
    }
    if let Ok(value) = &reference {
        if depth(value) <= DEFAULT_MAX_DEPTH && (value.is_array() || value.is_object()) {
            assert!(result.is_ok(), "a valid body refused: {result:?}");
        }
    }

    // Options change only what they are about.
    let strict = parse_body_with(data, &ParseOptions::new().with_accept_single_object(false));
    match &result {
        Ok(p) if p.single_object => assert!(
            matches!(strict, Err(ParseError::NotAnArray { .. })),
            "a single object accepted with accept_single_object(false)"
        ),
        other => assert_eq!(
            other, &strict,
            "accept_single_object changed another result"
        ),
    }
    if !data.is_empty() {
        let small = parse_body_with(
            data,
            &ParseOptions::new().with_max_body_bytes(data.len() - 1),
        );
        assert!(matches!(small, Err(ParseError::TooLarge { .. })));
    }
    if let Err(e) = &result {
        assert!(!e.to_string().is_empty() && !e.kind().as_str().is_empty());
    }

    let Ok(parsed) = result else { return };
    let dedup = Deduplicator::new(1024, std::time::Duration::from_secs(3600));
    let guard = OrderingGuard::new(1024);
    for event in parsed.iter() {
        // Every accessor, on whatever the parser produced.
        let _ = (
            event.kind().code(),
            event.kind().as_str(),
            event.event_type(),
            event.event_time().map(|t| format!("{t:?}")),
            event.organization_id(),
            event.correlation_id(),
            format!("{:?}", event.payload()),
            event.problem(),
            event.entity_id(),
            event.order_id(),
            event.timestamp(),
            event.creation_status(),
            event.error_info(),
            event.error_code(),
            event.error_message(),
            event.status(),
            event.order_number(),
            event.sum().map(|m| m.to_string()),
            event.phone(),
            event.is_new_delivery_order(),
            event.unknown_event_info(),
        );
        let key = event.dedup_key();
        assert_eq!(key.as_str(), event.dedup_key().as_str(), "unstable key");
        dedup.first_seen(event);
        assert!(!dedup.first_seen(event), "the same event seen twice as new");
        if !matches!(guard.observe(event), OrderingDecision::Untracked) {
            assert!(!guard.is_newer(event), "an applied event is still newer");
        }
    }
}

/// What the header rules of `Verifier` say, written out independently of
/// `verify_authorization` (plain comparisons; no constant time needed here).
pub fn reference_verify(header: Option<&[u8]>, token: &str) -> Result<(), VerifyError> {
    if token.trim().is_empty() {
        return Err(VerifyError::EmptyExpectedToken);
    }
    let h = header.ok_or(VerifyError::MissingHeader)?;
    if h.is_empty()
        || h[0] == b' '
        || h[h.len() - 1] == b' '
        || h.iter().any(|&b| b < 0x20 || b == 0x7f)
    {
        return Err(VerifyError::MalformedHeader);
    }
    let mut credential: Option<&[u8]> = None;
    if h.len() >= 6 && h[..6].eq_ignore_ascii_case(b"bearer") {
        let rest = &h[6..];
        if rest.is_empty() || rest == b" " || rest.starts_with(b"  ") {
            return Err(VerifyError::MalformedHeader);
        }
        if let Some(c) = rest.strip_prefix(b" ") {
            credential = Some(c);
        }
    }
    if h == token.as_bytes() || credential == Some(token.as_bytes()) {
        Ok(())
    } else {
        Err(VerifyError::Mismatch)
    }
}

/// Splits fuzz input into an expected token (before the first `\n`) and an
/// `Authorization` value (after it; `None` when there is no `\n`).
fn split_token_header(data: &[u8]) -> (String, Option<&[u8]>) {
    match data.iter().position(|&b| b == b'\n') {
        Some(i) => (
            String::from_utf8_lossy(&data[..i]).into_owned(),
            Some(&data[i + 1..]),
        ),
        None => (String::from_utf8_lossy(data).into_owned(), None),
    }
}

/// The `Authorization` verifier: agrees with the documented rules, finds the
/// header the same way in a header list, and `receive` never parses a body
/// that failed verification.
pub fn webhook_verify(data: &[u8]) {
    let (token, header) = split_token_header(data);
    let got = verify_authorization(header, &token);
    assert_eq!(
        got,
        reference_verify(header, &token),
        "token {token:?}, header {header:?}"
    );
    let verifier = Verifier::new(token.as_str());
    assert_eq!(verifier.verify(header), got);
    let listed: Vec<(&[u8], &[u8])> = header
        .map(|h| {
            vec![
                (&b"content-type"[..], &b"application/json"[..]),
                (b"AuThOrIzAtIoN", h),
            ]
        })
        .unwrap_or_default();
    assert_eq!(verifier.verify_headers(listed.clone()), got);
    if let Some(h) = header {
        let twice = [(&b"authorization"[..], h), (&b"Authorization"[..], h)];
        let want = if token.trim().is_empty() {
            VerifyError::EmptyExpectedToken
        } else {
            VerifyError::MalformedHeader
        };
        assert_eq!(verifier.verify_headers(twice), Err(want));
    }
    // A body that is not JSON: parsed only after a successful verification.
    let r = receive(listed, b"{not json", token.as_str(), &ParseOptions::new());
    match (got, r) {
        (Ok(()), Err(ReceiveError::Unparseable(_))) => {}
        (Err(v), Err(ReceiveError::Unauthorized(w))) => assert_eq!(v, w),
        (Err(VerifyError::EmptyExpectedToken), Err(_)) => {}
        (want, other) => panic!("receive: verify said {want:?}, receive said {other:?}"),
    }
    // Debug of the verifier never shows the token.
    let debug = format!("{verifier:?}");
    assert_eq!(debug, "Verifier { expected: [redacted] }");
}

/// Reads a borrowed C string, checking it is UTF-8.
///
/// # Safety
/// `p` must be NULL or a live NUL-terminated string.
unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: per this function's contract.
    let s = unsafe { CStr::from_ptr(p) };
    Some(s.to_str().expect("a C string from the library is UTF-8"))
}

/// Checks a failed call's error handle and frees it.
///
/// # Safety
/// `err` must be NULL or a live error.
unsafe fn check_error(status: i32, err: *mut iiko_error) {
    assert_ne!(status, IIKO_STATUS_OK);
    assert!(!err.is_null(), "a failure without an error handle");
    // SAFETY: a live error from the library.
    unsafe {
        assert_eq!(iiko_error_status(err), status);
        assert!(c_str(iiko_error_message(err)).is_some_and(|m| !m.is_empty()));
        iiko_error_free(err);
    }
}

/// The C entry points that take bytes: `iiko_webhook_parse`,
/// `iiko_webhook_verify`, `iiko_webhook_receive`, every event accessor, and
/// the de-duplicator and ordering guard on the result. They must agree with
/// the Rust API and hand out only valid UTF-8 strings.
pub fn c_api(data: &[u8]) {
    let rust = parse_body(data);
    for flags in [0, IIKO_WEBHOOK_REJECT_SINGLE_OBJECT] {
        let mut events: *mut iiko_events = std::ptr::null_mut();
        let mut err: *mut iiko_error = std::ptr::null_mut();
        // SAFETY: `data` is a live slice; the out pointers are writable.
        let status = unsafe {
            iiko_webhook_parse(
                data.as_ptr().cast(),
                data.len(),
                0,
                0,
                flags,
                &mut events,
                &mut err,
            )
        };
        let http = iiko_webhook_http_status(status);
        assert!(matches!(http, 200 | 401 | 500), "{http}");
        let single = rust.as_ref().is_ok_and(|p| p.single_object);
        let rust_ok = rust.is_ok() && !(single && flags != 0);
        if status != IIKO_STATUS_OK {
            assert!(!rust_ok, "C refused a body Rust accepts: status {status}");
            assert!(events.is_null());
            // SAFETY: the error from the call above.
            unsafe { check_error(status, err) };
            continue;
        }
        assert!(rust_ok, "C accepted a body Rust refuses");
        assert!(err.is_null());
        let parsed = rust.as_ref().expect("checked above");
        // SAFETY: `events` is the live handle from the call above; indexes
        // past the end are part of the contract (NULL / -1 answers).
        unsafe {
            let n = iiko_events_count(events);
            assert_eq!(n, parsed.len());
            assert_eq!(iiko_events_single_object(events), i32::from(single));
            for i in 0..=n {
                let e = parsed.events.get(i);
                let json = c_str(iiko_events_json(events, i));
                assert_eq!(json, e.map(|e| e.raw_json()), "iiko_events_json({i})");
                assert_eq!(
                    c_str(iiko_events_type_name(events, i)),
                    e.and_then(|e| e.event_type())
                );
                assert_eq!(
                    c_str(iiko_events_sum(events, i)).map(str::to_owned),
                    e.and_then(|e| e.sum()).map(|m| m.to_string())
                );
                assert_eq!(
                    c_str(iiko_events_dedup_key(events, i)),
                    e.map(|e| e.dedup_key()).as_ref().map(|k| k.as_str())
                );
                // The type's code and its name in the C table are the core's kind.
                let code = iiko_events_type(events, i);
                assert_eq!(code, e.map_or(-1, |e| e.kind().code() as i32));
                assert_eq!(
                    c_str(iiko_event_type_name(code)),
                    Some(e.map_or("Unknown", |e| e.kind().as_str()))
                );
                for f in [
                    iiko_events_time,
                    iiko_events_organization_id,
                    iiko_events_correlation_id,
                    iiko_events_problem,
                    iiko_events_entity_id,
                    iiko_events_order_id,
                    iiko_events_creation_status,
                    iiko_events_status,
                    iiko_events_phone,
                    iiko_events_error_code,
                    iiko_events_error_message,
                ] {
                    let got = c_str(f(events, i));
                    assert!(e.is_some() || got.is_none(), "a string past the end");
                }
                let mut v = 0i64;
                let _ = iiko_events_time_unix_ms(events, i, &mut v);
                let _ = iiko_events_timestamp(events, i, &mut v);
                let _ = iiko_events_order_number(events, i, &mut v);
                let _ = iiko_events_is_new_delivery_order(events, i);
            }
            let mut dedup = std::ptr::null_mut();
            let mut ordering = std::ptr::null_mut();
            let null_err = std::ptr::null_mut();
            assert_eq!(
                iiko_deduplicator_new(64, 60_000, &mut dedup, null_err),
                IIKO_STATUS_OK
            );
            assert_eq!(
                iiko_ordering_guard_new(64, &mut ordering, null_err),
                IIKO_STATUS_OK
            );
            for i in 0..n {
                let (mut first, mut again) = (-1, -1);
                assert_eq!(
                    iiko_deduplicator_first_seen(dedup, events, i, &mut first, null_err),
                    IIKO_STATUS_OK
                );
                assert_eq!(
                    iiko_deduplicator_first_seen(dedup, events, i, &mut again, null_err),
                    IIKO_STATUS_OK
                );
                assert!(matches!(first, 0 | 1) && again == 0, "{first} {again}");
                let (mut decision, mut last) = (0, 0i64);
                assert_eq!(
                    iiko_ordering_guard_observe(
                        ordering,
                        events,
                        i,
                        &mut decision,
                        &mut last,
                        null_err
                    ),
                    IIKO_STATUS_OK
                );
                assert!(matches!(
                    decision,
                    IIKO_ORDERING_APPLY | IIKO_ORDERING_STALE | IIKO_ORDERING_UNTRACKED
                ));
            }
            let mut err = std::ptr::null_mut();
            let mut first = 0;
            let status = iiko_deduplicator_first_seen(dedup, events, n, &mut first, &mut err);
            check_error(status, err);
            iiko_deduplicator_free(dedup);
            iiko_ordering_guard_free(ordering);
            iiko_events_free(events);
        }
    }

    // Verify and receive through C, against the Rust answers.
    let (token, header) = split_token_header(data);
    let Ok(expected) = CString::new(token.clone()) else {
        return;
    };
    let want = verify_authorization(header, &token);
    let mut err = std::ptr::null_mut();
    let (ptr, len) = header.map_or((std::ptr::null(), 0), |h| (h.as_ptr().cast(), h.len()));
    // SAFETY: `expected` is NUL-terminated, `ptr` points to `len` bytes or is NULL.
    let status = unsafe { iiko_webhook_verify(expected.as_ptr(), ptr, len, &mut err) };
    assert_eq!(
        status == IIKO_STATUS_OK,
        want.is_ok(),
        "{want:?} / {status}"
    );
    if status != IIKO_STATUS_OK {
        // SAFETY: the error of the call above.
        unsafe { check_error(status, err) };
    }
    // C headers cannot hold NUL; the body is the whole input.
    let Some(value) = header.and_then(|h| CString::new(h).ok()) else {
        return;
    };
    let name = CString::new("authorization").expect("no NUL");
    let names = [name.as_ptr()];
    let values = [value.as_ptr()];
    let mut events = std::ptr::null_mut();
    let mut err = std::ptr::null_mut();
    // SAFETY: one NUL-terminated header pair, a live body slice, writable outs.
    let status = unsafe {
        iiko_webhook_receive(
            expected.as_ptr(),
            names.as_ptr(),
            values.as_ptr(),
            1,
            data.as_ptr().cast(),
            data.len(),
            0,
            0,
            0,
            &mut events,
            &mut err,
        )
    };
    let rust = receive(
        [("authorization", value.as_bytes())],
        data,
        token.as_str(),
        &ParseOptions::new(),
    );
    assert_eq!(
        status == IIKO_STATUS_OK,
        rust.is_ok(),
        "{rust:?} / {status}"
    );
    if status == IIKO_STATUS_OK {
        // SAFETY: the live handle of the call above.
        unsafe {
            assert_eq!(
                iiko_events_count(events),
                rust.map(|p| p.len()).unwrap_or(0)
            );
            iiko_events_free(events);
        }
    } else {
        // SAFETY: the error of the call above.
        unsafe { check_error(status, err) };
    }
}
