//! Webhooks: verify, parse, `iiko_events`, the de-duplicator and the ordering
//! guard.

use std::ffi::{c_char, CStr, CString};
use std::sync::OnceLock;
use std::time::Duration;

use iikocloud_core::webhook::{
    parse_body_with, receive, Deduplicator, Event, EventKey, EventKind, OrderingDecision,
    OrderingGuard, ParseError, ParseErrorKind, ParseOptions, ParsedBody, ReceiveError, Verifier,
    VerifyError,
};

use crate::error::{iiko_error, Failure};
use crate::ffi::{arg_bytes, arg_str, c_string, guard, guard_value, out_ptr, BoxCastable};
use crate::status::*;

// --- event types (the values of the core's EventKind codes) ---

/// `iiko_events_type`: an event type this SDK does not model (e.g.
/// `KitchenOrderUpdate`), or no `eventType`; read `iiko_events_type_name`.
pub const IIKO_EVENT_UNKNOWN: i32 = 0;
/// A delivery order was created or changed.
pub const IIKO_EVENT_DELIVERY_ORDER_UPDATE: i32 = 1;
/// A delivery order could not be saved.
pub const IIKO_EVENT_DELIVERY_ORDER_ERROR: i32 = 2;
/// A table order changed.
pub const IIKO_EVENT_TABLE_ORDER_UPDATE: i32 = 3;
/// A table order could not be saved.
pub const IIKO_EVENT_TABLE_ORDER_ERROR: i32 = 4;
/// A reserve or banquet changed.
pub const IIKO_EVENT_RESERVE_UPDATE: i32 = 5;
/// A reserve could not be saved.
pub const IIKO_EVENT_RESERVE_ERROR: i32 = 6;
/// Stop lists changed (the event has no items: call `iiko_client_stop_lists`).
pub const IIKO_EVENT_STOP_LIST_UPDATE: i32 = 7;
/// An employee opened or closed a personal shift.
pub const IIKO_EVENT_PERSONAL_SHIFT: i32 = 8;

/// Parse flag: refuse a body that is one event object instead of an array
/// (`IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY`). By default such a body is read as
/// one event and `iiko_events_single_object` says so.
pub const IIKO_WEBHOOK_REJECT_SINGLE_OBJECT: u32 = 1;

/// `iiko_ordering_guard_observe`: the event is newer than every event applied
/// for its order or reserve (or the first seen); apply it.
pub const IIKO_ORDERING_APPLY: i32 = 1;
/// `iiko_ordering_guard_observe`: an event with this or a later `timestamp`
/// was already applied for the entity; skip this one.
pub const IIKO_ORDERING_STALE: i32 = 2;
/// `iiko_ordering_guard_observe`: not an order or reserve event, or it lacks
/// `eventInfo.id` or `timestamp`; the guard cannot judge it.
pub const IIKO_ORDERING_UNTRACKED: i32 = 3;

/// The events of one webhook body, with per-event accessors taking an index
/// from 0 to `iiko_events_count() - 1`.
///
/// Yours after `iiko_webhook_parse` / `iiko_webhook_receive`; free it with
/// `iiko_events_free`. Immutable: it may be read from several threads at once.
/// Strings read from it are borrowed and stay valid until it is freed. String
/// accessors return NULL when the value is absent (or `null`, or of the wrong
/// type in the body), when the index is out of range, or for a NULL handle.
#[allow(non_camel_case_types)]
pub struct iiko_events {
    body: ParsedBody,
    /// The C strings of each event, each built on first use: parsing costs
    /// what the Rust parse costs, and reading a field costs one copy of it.
    strings: Box<[OnceLock<Box<EventStrings>>]>,
}

impl BoxCastable for iiko_events {}

/// A string field of an event, as the C accessors return it.
#[derive(Clone, Copy)]
enum Field {
    EventType,
    EventTime,
    OrganizationId,
    CorrelationId,
    Problem,
    EntityId,
    OrderId,
    CreationStatus,
    Status,
    Sum,
    Phone,
    ErrorCode,
    ErrorMessage,
    DedupKey,
    Json,
}

const FIELDS: usize = Field::Json as usize + 1;

impl Field {
    /// Whether the event has the field: checked before touching the string
    /// table, so reading an absent field allocates nothing.
    fn present(self, e: &Event) -> bool {
        match self {
            Field::EventType => e.event_type().is_some(),
            Field::EventTime => e.event_time().is_some(),
            Field::OrganizationId => e.organization_id().is_some(),
            Field::CorrelationId => e.correlation_id().is_some(),
            Field::Problem => e.problem().is_some(),
            Field::EntityId => e.entity_id().is_some(),
            Field::OrderId => e.order_id().is_some(),
            Field::CreationStatus => e.creation_status().is_some(),
            Field::Status => e.status().is_some(),
            Field::Sum => e.sum().is_some(),
            Field::Phone => e.phone().is_some(),
            Field::ErrorCode => e.error_code().is_some(),
            Field::ErrorMessage => e.error_message().is_some(),
            Field::DedupKey | Field::Json => true,
        }
    }

    fn compute(self, e: &Event) -> Option<CString> {
        match self {
            Field::EventType => e.event_type().map(c_string),
            Field::EventTime => e.event_time().map(|t| c_string(&t.raw)),
            Field::OrganizationId => e.organization_id().map(c_string),
            Field::CorrelationId => e.correlation_id().map(c_string),
            Field::Problem => e.problem().map(c_string),
            Field::EntityId => e.entity_id().map(c_string),
            Field::OrderId => e.order_id().map(c_string),
            Field::CreationStatus => e.creation_status().map(|c| c_string(c.as_str())),
            Field::Status => e.status().map(c_string),
            Field::Sum => e.sum().map(|m| c_string(&m.to_string())),
            Field::Phone => e.phone().map(c_string),
            Field::ErrorCode => e.error_code().map(c_string),
            Field::ErrorMessage => e.error_message().map(c_string),
            Field::DedupKey => Some(c_string(e.dedup_key().as_str())),
            Field::Json => Some(c_string(e.raw_json())),
        }
    }
}

struct EventStrings([OnceLock<Option<CString>>; FIELDS]);

impl iiko_events {
    fn new(body: ParsedBody) -> iiko_events {
        let n = body.events.len();
        iiko_events {
            body,
            strings: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }

    fn event(&self, index: usize) -> Option<&Event> {
        self.body.events.get(index)
    }

    /// The C string of one field of one event; `None` for a bad index or an
    /// absent value.
    fn string(&self, index: usize, field: Field) -> Option<&CString> {
        let event = self.event(index)?;
        if !field.present(event) {
            return None;
        }
        let slots = self.strings[index]
            .get_or_init(|| Box::new(EventStrings(std::array::from_fn(|_| OnceLock::new()))));
        slots.0[field as usize]
            .get_or_init(|| field.compute(event))
            .as_ref()
    }
}

/// Borrows an events handle and one of its events for a fallible call.
///
/// # Safety
/// `events` must be NULL or a live handle.
unsafe fn event_arg<'a>(events: *const iiko_events, index: usize) -> Result<&'a Event, Failure> {
    // SAFETY: per the caller.
    let events = unsafe { iiko_events::try_ref(events, "events") }?;
    events.event(index).ok_or_else(|| {
        Failure::invalid_argument(format!(
            "index {index} is out of range ({} events)",
            events.body.events.len()
        ))
    })
}

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
    let mut options = ParseOptions::new()
        .with_accept_single_object(flags & IIKO_WEBHOOK_REJECT_SINGLE_OBJECT == 0);
    if max_body_bytes > 0 {
        options = options.with_max_body_bytes(max_body_bytes);
    }
    if max_depth > 0 {
        options = options.with_max_depth(max_depth);
    }
    Ok(options)
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
/// `IIKO_STATUS_WEBHOOK_*` code from 400 to 403; `iiko_webhook_http_status`
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
/// can pass a PHP string directly. Limits:
/// `max_body_bytes` (0: 16 MiB) and `max_depth` of JSON nesting (0: 64, at most
/// 128). `flags`: 0 or `IIKO_WEBHOOK_REJECT_SINGLE_OBJECT`.
///
/// A body that is not UTF-8, not JSON, too large, too deep or not an array
/// fails with a `IIKO_STATUS_WEBHOOK_BODY_*` code (410 to 414). One unreadable
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
        unsafe { out.write(iiko_events::new(parsed).into_raw()) };
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
        let mut headers: Vec<(&[u8], &[u8])> = Vec::with_capacity(header_count);
        if header_count > 0 {
            if header_names.is_null() || header_values.is_null() {
                return Err(Failure::null("header_names / header_values"));
            }
            for i in 0..header_count {
                // SAFETY: both arrays hold header_count pointers per the contract.
                let (name, value) = unsafe { (*header_names.add(i), *header_values.add(i)) };
                if name.is_null() || value.is_null() {
                    return Err(Failure::null("a header name or value"));
                }
                // SAFETY: NUL-terminated per the contract.
                let (name, value) = unsafe { (CStr::from_ptr(name), CStr::from_ptr(value)) };
                headers.push((name.to_bytes(), value.to_bytes()));
            }
        }
        let parsed = receive(headers, body, expected, &options).map_err(|e| match e {
            ReceiveError::Unauthorized(v) => verify_failure(v),
            ReceiveError::Unparseable(p) => parse_failure(&p),
            other => Failure::new(IIKO_STATUS_INTERNAL, other.to_string()),
        })?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(iiko_events::new(parsed).into_raw()) };
        Ok(())
    })
}

/// The HTTP status a webhook endpoint should answer for the status of
/// `iiko_webhook_receive` (or `iiko_webhook_verify` + `iiko_webhook_parse`):
///
/// - 200 for `IIKO_STATUS_OK`, and for an authentic body that cannot be read
///   (410 to 414): the service would resend the same bytes forever and
///   finally block the webhook; log the body instead;
/// - 401 for a missing, malformed or wrong token (400, 402, 403);
/// - 500 for an empty expected token (401: your configuration) and for any
///   other code (a failure on your side, so the service retries later).
///
/// Thread-safe; any integer is accepted.
#[no_mangle]
pub extern "C" fn iiko_webhook_http_status(status: iiko_status) -> i32 {
    guard_value(500, || match status {
        IIKO_STATUS_OK => 200,
        IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION
        | IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION
        | IIKO_STATUS_WEBHOOK_TOKEN_MISMATCH => 401,
        IIKO_STATUS_WEBHOOK_BODY_TOO_LARGE
        | IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8
        | IIKO_STATUS_WEBHOOK_BODY_TOO_DEEP
        | IIKO_STATUS_WEBHOOK_BODY_NOT_JSON
        | IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY => 200,
        _ => 500,
    })
}

/// Frees an events handle. NULL is ignored.
///
/// # Safety
/// `events` must be NULL or a live handle, freed once.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_free(events: *mut iiko_events) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_events::free(events) }
    })
}

/// The number of events (0 for NULL).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_count(events: *const iiko_events) -> usize {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { events.as_ref() }.map_or(0, |e| e.body.events.len())
    })
}

/// 1 when the body was a single event object instead of an array (off-spec,
/// accepted unless `IIKO_WEBHOOK_REJECT_SINGLE_OBJECT`), else 0.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_single_object(events: *const iiko_events) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { events.as_ref() }.map_or(0, |e| i32::from(e.body.single_object))
    })
}

/// The type of event `index` as an `IIKO_EVENT_*` constant; -1 when the index
/// is out of range or `events` is NULL. Future versions may return new
/// constants: treat an unknown one like `IIKO_EVENT_UNKNOWN`.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_type(events: *const iiko_events, index: usize) -> i32 {
    guard_value(-1, || {
        // SAFETY: per this function's contract.
        unsafe { events.as_ref() }
            .and_then(|e| e.event(index))
            .map_or(-1, |e| kind_code(e.kind()))
    })
}

fn kind_code(kind: EventKind) -> i32 {
    i32::try_from(kind.code()).unwrap_or(IIKO_EVENT_UNKNOWN)
}

/// Reads one string of one event (the shared body of the string accessors).
///
/// # Safety
/// `events` must be NULL or a live handle.
unsafe fn event_str(events: *const iiko_events, index: usize, field: Field) -> *const c_char {
    // SAFETY: per the caller.
    unsafe { events.as_ref() }
        .and_then(|e| e.string(index, field))
        .map_or(std::ptr::null(), |s| s.as_ptr())
}

// The string accessors are written out, not generated by a macro: cbindgen
// does not expand macros, and each needs its own documentation anyway.

/// `eventType` as sent, also for types this SDK does not model (e.g.
/// `"KitchenOrderUpdate"`).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_type_name(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::EventType) }
    })
}

/// `eventTime` as sent (UTC, e.g. `"2025-09-16 16:02:11.877"`); see also
/// `iiko_events_time_unix_ms`.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_time(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::EventTime) }
    })
}

/// `organizationId`.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_organization_id(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::OrganizationId) }
    })
}

/// `correlationId` (the operation id, to quote to iiko support).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_correlation_id(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::CorrelationId) }
    })
}

/// Why the event could not be read (not an object, a known type without an
/// `eventInfo` object, a duplicated key); NULL for a readable event. An
/// unreadable event still has its raw JSON and any envelope field read.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_problem(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Problem) }
    })
}

/// `eventInfo.id` of an order or reserve event (delivery order, table
/// order or reserve id).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_entity_id(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::EntityId) }
    })
}

/// `eventInfo.id` of a delivery or table order event (NULL for reserves).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_order_id(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::OrderId) }
    })
}

/// `eventInfo.creationStatus` of an order or reserve event: `"Success"`,
/// `"InProgress"`, `"Error"` or a newer value as sent.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_creation_status(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::CreationStatus) }
    })
}

/// The order or reserve status as sent: `order.status` of deliveries
/// (e.g. `"CookingStarted"`) and table orders, `reserve.status` of
/// reserves.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_status(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Status) }
    })
}

/// The order total as an exact decimal string (`"1780"`, `"12.5"`,
/// `"0.30000000000000004"`): of a delivery, a table order or a banquet's
/// order. Never goes through a C double.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_sum(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Sum) }
    })
}

/// The customer phone of a delivery, table order or reserve.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_phone(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Phone) }
    })
}

/// `errorInfo.code` of an `*Error` event (e.g. `"ProductNotFound"`), as sent.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_error_code(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::ErrorCode) }
    })
}

/// `errorInfo.message` of an `*Error` event (or the deprecated
/// `description`).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_error_message(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::ErrorMessage) }
    })
}

/// The event's de-duplication key: a stable text (the service sends no
/// event id) to store if you de-duplicate across restarts; see
/// `iiko_deduplicator_first_seen`. Never NULL for a valid index.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_dedup_key(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::DedupKey) }
    })
}

/// The event's JSON exactly as it was in the body (UTF-8, NUL-terminated: JSON
/// text holds no NUL byte). Borrowed from the handle; NULL for a bad index.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_json(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Json) }
    })
}

/// Writes an optional integer of an event; the body of the integer accessors.
///
/// # Safety
/// `events` must be NULL or a live handle; `out` NULL or writable.
unsafe fn event_i64(
    events: *const iiko_events,
    index: usize,
    out: *mut i64,
    pick: impl FnOnce(&Event) -> Option<i64>,
) -> i32 {
    // SAFETY: per the caller.
    let value = unsafe { events.as_ref() }
        .and_then(|e| e.event(index))
        .and_then(pick);
    match (value, out.is_null()) {
        (Some(v), false) => {
            // SAFETY: non-NULL and writable per the caller.
            unsafe { out.write(v) };
            1
        }
        _ => 0,
    }
}

/// `eventTime` as milliseconds since the Unix epoch (UTC). Returns 1 and
/// writes `*unix_ms_out` when the time is present and readable; returns 0 and
/// writes nothing otherwise (read the text with `iiko_events_time`).
///
/// # Safety
/// `events` must be NULL or a live handle; `unix_ms_out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_time_unix_ms(
    events: *const iiko_events,
    index: usize,
    unix_ms_out: *mut i64,
) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe {
            event_i64(events, index, unix_ms_out, |e| {
                e.event_time()?.utc.map(|t| t.timestamp_millis())
            })
        }
    })
}

/// `eventInfo.timestamp` of an order or reserve event: a version that grows
/// with every change of the entity (see `iiko_ordering_guard_observe`).
/// Returns 1 and writes `*timestamp_out` when present, else 0.
///
/// # Safety
/// `events` must be NULL or a live handle; `timestamp_out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_timestamp(
    events: *const iiko_events,
    index: usize,
    timestamp_out: *mut i64,
) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { event_i64(events, index, timestamp_out, Event::timestamp) }
    })
}

/// The order number of a delivery, a table order or a banquet's order.
/// Returns 1 and writes `*number_out` when present, else 0.
///
/// # Safety
/// `events` must be NULL or a live handle; `number_out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_order_number(
    events: *const iiko_events,
    index: usize,
    number_out: *mut i64,
) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { event_i64(events, index, number_out, Event::order_number) }
    })
}

/// 1 when event `index` announces a new delivery order, else 0: a
/// `DeliveryOrderUpdate` with an `order` whose status is `New`, `Unconfirmed`
/// or `WaitCooking`. The first update a receiver sees may already be past
/// these statuses (e.g. after an outage): track "first seen" separately.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_is_new_delivery_order(
    events: *const iiko_events,
    index: usize,
) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { events.as_ref() }
            .and_then(|e| e.event(index))
            .map_or(0, |e| i32::from(e.is_new_delivery_order()))
    })
}

// --- de-duplicator ---

/// Remembers the events already handled, to drop repeated deliveries (the
/// service resends an event until it gets a prompt 200).
///
/// Memory is bounded by its capacity; an entry is forgotten after its max age.
/// Thread-safe: one `const iiko_deduplicator *` may be used by any number of
/// threads at once. It lives in memory only: to de-duplicate across restarts,
/// store `iiko_events_dedup_key` yourself.
#[allow(non_camel_case_types)]
pub struct iiko_deduplicator {
    inner: Deduplicator,
}

impl BoxCastable for iiko_deduplicator {}

/// Creates a de-duplicator remembering at most `capacity` events (at least 1),
/// each for `max_age_ms` milliseconds (at least 1; a day is a good choice).
///
/// On success writes a new handle to `*dedup_out` (yours; free it with
/// `iiko_deduplicator_free`).
///
/// # Safety
/// The out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_new(
    capacity: usize,
    max_age_ms: u64,
    dedup_out: *mut *mut iiko_deduplicator,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        let out = out_ptr(dedup_out, "dedup_out")?;
        if capacity == 0 || max_age_ms == 0 {
            return Err(Failure::invalid_argument(
                "capacity and max_age_ms must be at least 1",
            ));
        }
        let inner = Deduplicator::new(capacity, Duration::from_millis(max_age_ms));
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(iiko_deduplicator { inner }.into_raw()) };
        Ok(())
    })
}

/// Opens the store a URL names, for the `_with_store` constructors: a bad URL
/// is `IIKO_STATUS_INVALID_CONFIG`, an unreachable store
/// `IIKO_STATUS_TRANSPORT_CONNECT`; the message never holds a password.
pub(crate) fn open_store(store_url: &str) -> Result<iikocloud_core::store::Store, Failure> {
    use iikocloud_core::store::{Store, StoreError};
    Store::open(store_url).map_err(|e| {
        let status = match e {
            StoreError::Backend { .. } | StoreError::Timeout { .. } => {
                IIKO_STATUS_TRANSPORT_CONNECT
            }
            _ => IIKO_STATUS_INVALID_CONFIG,
        };
        Failure::new(status, e.to_string())
    })
}

/// Creates a de-duplicator whose keys live in the store `store_url` names,
/// each for `max_age_ms` milliseconds (at least 1): `"memory:"` (this
/// process), `"sqlite:///absolute/path.db"` (the processes of one machine,
/// e.g. PHP-FPM workers) or `"redis://[:password@]host:port/db"` (every
/// machine). A key is first seen by exactly one caller among all sharing the
/// store. When the store fails later, `iiko_deduplicator_first_seen` logs it
/// and answers 1 (an event handled twice rather than lost).
///
/// On success writes a new handle to `*dedup_out` (yours; free it with
/// `iiko_deduplicator_free`). A malformed URL is `IIKO_STATUS_INVALID_CONFIG`,
/// a store that cannot be reached `IIKO_STATUS_TRANSPORT_CONNECT`; error
/// messages never contain the password.
///
/// # Safety
/// `store_url` must be NULL or NUL-terminated; the out pointers NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_new_with_store(
    store_url: *const c_char,
    max_age_ms: u64,
    dedup_out: *mut *mut iiko_deduplicator,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let url = unsafe { arg_str(store_url, "store_url") }?;
        let out = out_ptr(dedup_out, "dedup_out")?;
        if max_age_ms == 0 {
            return Err(Failure::invalid_argument("max_age_ms must be at least 1"));
        }
        let inner = Deduplicator::with_store(open_store(url)?, Duration::from_millis(max_age_ms));
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(iiko_deduplicator { inner }.into_raw()) };
        Ok(())
    })
}

/// Whether event `index` makes its delivery order new for the first time:
/// writes 1 once per order id (the service sends both `Unconfirmed` and
/// `WaitCooking` for one order, and `iiko_events_is_new_delivery_order` is 1
/// for both), 0 for later ones and for every other event. Remembered like the
/// de-duplicator's keys (in its store, if it has one).
///
/// # Safety
/// `dedup` and `events` must be NULL or live handles; the out pointers NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_first_new_order(
    dedup: *const iiko_deduplicator,
    events: *const iiko_events,
    index: usize,
    first_out: *mut i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (dedup, event) = unsafe {
            (
                iiko_deduplicator::try_ref(dedup, "dedup")?,
                event_arg(events, index)?,
            )
        };
        let out = out_ptr(first_out, "first_out")?;
        let first = dedup.inner.first_new_order(event);
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(i32::from(first)) };
        Ok(())
    })
}

/// Frees a de-duplicator. NULL is ignored.
///
/// # Safety
/// `dedup` must be NULL or a live handle, freed once, with no call running.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_free(dedup: *mut iiko_deduplicator) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_deduplicator::free(dedup) }
    })
}

/// Whether event `index` is seen for the first time: writes 1 to
/// `*first_seen_out` (and remembers it) or 0 for a repeat. Check and record
/// are one atomic step. An index out of range is `IIKO_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `dedup` and `events` must be NULL or live handles; the out pointers NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_first_seen(
    dedup: *const iiko_deduplicator,
    events: *const iiko_events,
    index: usize,
    first_seen_out: *mut i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (dedup, event) = unsafe {
            (
                iiko_deduplicator::try_ref(dedup, "dedup")?,
                event_arg(events, index)?,
            )
        };
        let out = out_ptr(first_seen_out, "first_seen_out")?;
        let first = dedup.inner.first_seen(event);
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(i32::from(first)) };
        Ok(())
    })
}

/// `iiko_deduplicator_first_seen` for a key text from `iiko_events_dedup_key`,
/// e.g. read back from your store after a restart: writes 1 to
/// `*first_seen_out` (and remembers the key) or 0 for a repeat.
///
/// # Safety
/// `dedup` must be NULL or a live handle; `key` NULL or NUL-terminated; the
/// out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_first_seen_key(
    dedup: *const iiko_deduplicator,
    key: *const c_char,
    first_seen_out: *mut i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (dedup, key) = unsafe {
            (
                iiko_deduplicator::try_ref(dedup, "dedup")?,
                arg_str(key, "key")?,
            )
        };
        let out = out_ptr(first_seen_out, "first_seen_out")?;
        let first = dedup.inner.first_seen_key(&EventKey::from_stored(key));
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(i32::from(first)) };
        Ok(())
    })
}

/// Forgets event `index`, so that its next delivery counts as new (e.g. when
/// handling it failed and a resend should be processed).
///
/// # Safety
/// `dedup` and `events` must be NULL or live handles; `err_out` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_forget(
    dedup: *const iiko_deduplicator,
    events: *const iiko_events,
    index: usize,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (dedup, event) = unsafe {
            (
                iiko_deduplicator::try_ref(dedup, "dedup")?,
                event_arg(events, index)?,
            )
        };
        dedup.inner.forget(event);
        Ok(())
    })
}

/// The number of events remembered (0 for NULL).
///
/// # Safety
/// `dedup` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_len(dedup: *const iiko_deduplicator) -> usize {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { dedup.as_ref() }.map_or(0, |d| d.inner.len())
    })
}

// --- ordering guard ---

/// Remembers the last applied version (`eventInfo.timestamp`) of each order and
/// reserve, to skip events that arrive after newer ones.
///
/// Memory is bounded by its capacity (least recently seen forgotten first).
/// Thread-safe: one `const iiko_ordering_guard *` may be used by any number of
/// threads at once.
#[allow(non_camel_case_types)]
pub struct iiko_ordering_guard {
    inner: OrderingGuard,
}

impl BoxCastable for iiko_ordering_guard {}

/// Creates an ordering guard remembering at most `capacity` orders and
/// reserves (at least 1; size it above the number active at once).
///
/// On success writes a new handle to `*guard_out` (yours; free it with
/// `iiko_ordering_guard_free`).
///
/// # Safety
/// The out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_new(
    capacity: usize,
    guard_out: *mut *mut iiko_ordering_guard,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        let out = out_ptr(guard_out, "guard_out")?;
        if capacity == 0 {
            return Err(Failure::invalid_argument("capacity must be at least 1"));
        }
        let inner = OrderingGuard::new(capacity);
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(iiko_ordering_guard { inner }.into_raw()) };
        Ok(())
    })
}

/// Creates an ordering guard whose positions live in the store `store_url`
/// names (as for `iiko_deduplicator_new_with_store`), each kept `ttl_ms`
/// milliseconds after its last change (at least 1; longer than an order
/// lives, e.g. a few days). Positions only move forward there, whichever
/// process or machine observes the events. When the store fails later,
/// `iiko_ordering_guard_observe` logs it and answers
/// `IIKO_ORDERING_UNTRACKED`.
///
/// On success writes a new handle to `*guard_out` (yours; free it with
/// `iiko_ordering_guard_free`). Errors as for
/// `iiko_deduplicator_new_with_store`.
///
/// # Safety
/// `store_url` must be NULL or NUL-terminated; the out pointers NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_new_with_store(
    store_url: *const c_char,
    ttl_ms: u64,
    guard_out: *mut *mut iiko_ordering_guard,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let url = unsafe { arg_str(store_url, "store_url") }?;
        let out = out_ptr(guard_out, "guard_out")?;
        if ttl_ms == 0 {
            return Err(Failure::invalid_argument("ttl_ms must be at least 1"));
        }
        let inner = OrderingGuard::with_store(open_store(url)?, Duration::from_millis(ttl_ms));
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(iiko_ordering_guard { inner }.into_raw()) };
        Ok(())
    })
}

/// Frees an ordering guard. NULL is ignored.
///
/// # Safety
/// `guard` must be NULL or a live handle, freed once, with no call running.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_free(guard: *mut iiko_ordering_guard) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_ordering_guard::free(guard) }
    })
}

/// Decides whether to apply event `index` and records it when it is newer
/// (one atomic step). Writes `IIKO_ORDERING_APPLY`, `IIKO_ORDERING_STALE` or
/// `IIKO_ORDERING_UNTRACKED` to `*decision_out`; for a stale event, when
/// `last_applied_out` is not NULL, also the timestamp last applied.
///
/// # Safety
/// `ordering` and `events` must be NULL or live handles; the out pointers NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_observe(
    ordering: *const iiko_ordering_guard,
    events: *const iiko_events,
    index: usize,
    decision_out: *mut i32,
    last_applied_out: *mut i64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (ordering, event) = unsafe {
            (
                iiko_ordering_guard::try_ref(ordering, "ordering")?,
                event_arg(events, index)?,
            )
        };
        let out = out_ptr(decision_out, "decision_out")?;
        let (decision, last) = match ordering.inner.observe(event) {
            OrderingDecision::Apply => (IIKO_ORDERING_APPLY, None),
            OrderingDecision::Stale { last_applied } => (IIKO_ORDERING_STALE, Some(last_applied)),
            OrderingDecision::Untracked => (IIKO_ORDERING_UNTRACKED, None),
        };
        // SAFETY: checked non-NULL / NULL-tested; writable per the contract.
        unsafe {
            out.write(decision);
            if let (Some(last), false) = (last, last_applied_out.is_null()) {
                last_applied_out.write(last);
            }
        }
        Ok(())
    })
}

/// Forgets the order or reserve of event `index` (e.g. once it is closed).
///
/// # Safety
/// `ordering` and `events` must be NULL or live handles; `err_out` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_forget(
    ordering: *const iiko_ordering_guard,
    events: *const iiko_events,
    index: usize,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (ordering, event) = unsafe {
            (
                iiko_ordering_guard::try_ref(ordering, "ordering")?,
                event_arg(events, index)?,
            )
        };
        ordering.inner.forget(event);
        Ok(())
    })
}

/// The number of orders and reserves remembered (0 for NULL).
///
/// # Safety
/// `ordering` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_len(ordering: *const iiko_ordering_guard) -> usize {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { ordering.as_ref() }.map_or(0, |g| g.inner.len())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_constants_are_the_core_codes() {
        let ours = [
            IIKO_EVENT_UNKNOWN,
            IIKO_EVENT_DELIVERY_ORDER_UPDATE,
            IIKO_EVENT_DELIVERY_ORDER_ERROR,
            IIKO_EVENT_TABLE_ORDER_UPDATE,
            IIKO_EVENT_TABLE_ORDER_ERROR,
            IIKO_EVENT_RESERVE_UPDATE,
            IIKO_EVENT_RESERVE_ERROR,
            IIKO_EVENT_STOP_LIST_UPDATE,
            IIKO_EVENT_PERSONAL_SHIFT,
        ];
        assert_eq!(ours.len(), EventKind::ALL.len());
        for (code, kind) in ours.iter().zip(EventKind::ALL) {
            assert_eq!(*code, kind_code(kind), "{kind}");
        }
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
}

/// A webhook event field: one of the `IIKO_EVENT_FIELD_*` constants, generated
/// from the documented event schemas (`WebHooks.*EventInfo`) and numbered
/// append-only (`spec/event-field-numbers.json`); 0 is no field.
#[allow(non_camel_case_types)]
pub type iiko_event_field = i32;

fn field_path(field: iiko_event_field) -> Option<&'static std::ffi::CStr> {
    let index = usize::try_from(field).ok()?.checked_sub(1)?;
    *crate::event_fields::FIELD_PATHS.get(index)?
}

/// The highest `IIKO_EVENT_FIELD_*` number (fields are 1 to this). Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_event_field_count() -> iiko_event_field {
    guard_value(0, || crate::event_fields::LAST_FIELD)
}

/// The dotted path of a field in the event (`"eventInfo.order.sum"`); NULL for
/// a number that is not a field. Static: do not free. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_event_field_path(field: iiko_event_field) -> *const c_char {
    guard_value(std::ptr::null(), || {
        field_path(field).map_or(std::ptr::null(), |p| p.as_ptr())
    })
}

/// The field with the dotted path `path`, or 0 when there is none (or `path`
/// is NULL or not UTF-8). Thread-safe.
///
/// # Safety
/// `path` must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_event_field_by_path(path: *const c_char) -> iiko_event_field {
    guard_value(0, || {
        if path.is_null() {
            return 0;
        }
        // SAFETY: non-NULL and NUL-terminated per the contract.
        let wanted = unsafe { std::ffi::CStr::from_ptr(path) };
        (1..=crate::event_fields::LAST_FIELD)
            .find(|&f| field_path(f) == Some(wanted))
            .unwrap_or(0)
    })
}

/// The value at a dotted path of an event's JSON, read from the body's own
/// text: a string decoded, a number exactly as written, `true`/`false`; `None`
/// when absent or `null`.
fn value_at(raw: &str, path: &str) -> Option<String> {
    use serde_json::value::RawValue;
    let mut text = raw;
    for key in path.split('.') {
        let map: std::collections::HashMap<String, &RawValue> = serde_json::from_str(text).ok()?;
        text = map.get(key)?.get();
    }
    let text = text.trim();
    match text.as_bytes().first()? {
        b'"' => serde_json::from_str::<String>(text).ok(),
        b'n' => None,
        _ => Some(text.to_owned()),
    }
}

/// Reads a field of event `index` (`field`: an `IIKO_EVENT_FIELD_*` constant)
/// as text: strings as they are, numbers exactly as the body wrote them (an
/// amount never goes through a C double), booleans as `"true"`/`"false"`.
///
/// On success writes to `*value_out` the text (yours; free it with
/// `iiko_string_free`), or NULL when the event does not have the field (absent,
/// `null`, or a field of another event type). An index out of range or an
/// unknown field is `IIKO_STATUS_INVALID_ARGUMENT`. Thread-safe.
///
/// # Safety
/// `events` must be NULL or a live handle; `value_out` and `err_out` must be
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_field(
    events: *const iiko_events,
    index: usize,
    field: iiko_event_field,
    value_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let events = unsafe { iiko_events::try_ref(events, "events") }?;
        let out = out_ptr(value_out, "value_out")?;
        let path = field_path(field).ok_or_else(|| {
            Failure::invalid_argument(format!(
                "no event field numbered {field}; use an IIKO_EVENT_FIELD_* constant"
            ))
        })?;
        let event = events.event(index).ok_or_else(|| {
            Failure::invalid_argument(format!("event index {index} is out of range"))
        })?;
        let path = path
            .to_str()
            .map_err(|_| Failure::invalid_argument("path"))?;
        let value = value_at(event.raw_json(), path);
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe {
            out.write(value.map_or(std::ptr::null_mut(), |v| crate::ffi::owned_c_string(&v)));
        }
        Ok(())
    })
}

#[cfg(test)]
mod field_tests {
    use super::*;

    #[test]
    fn values_keep_their_text() {
        let raw = r#"{"eventType":"DeliveryOrderUpdate","eventInfo":{"order":{"sum":0.30000000000000004,"phone":"+7 \"9\"","x":null,"ok":true}}}"#;
        assert_eq!(
            value_at(raw, "eventInfo.order.sum").as_deref(),
            Some("0.30000000000000004")
        );
        assert_eq!(
            value_at(raw, "eventInfo.order.phone").as_deref(),
            Some("+7 \"9\"")
        );
        assert_eq!(value_at(raw, "eventInfo.order.x"), None);
        assert_eq!(value_at(raw, "eventInfo.order.ok").as_deref(), Some("true"));
        assert_eq!(value_at(raw, "eventInfo.nothing.sum"), None);
        assert_eq!(value_at("[1]", "eventInfo"), None);
        let sum = crate::event_fields::IIKO_EVENT_FIELD_ORDER_SUM;
        // SAFETY: a static path string.
        assert_eq!(
            unsafe { iiko_event_field_by_path(iiko_event_field_path(sum)) },
            sum
        );
        assert!(iiko_event_field_path(0).is_null());
        assert!(iiko_event_field_path(iiko_event_field_count() + 1).is_null());
    }
}
