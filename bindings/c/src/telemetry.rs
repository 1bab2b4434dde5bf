//! `iiko_telemetry`: the core's spans, metric points and log records handed
//! to C callbacks (one table per process), and the same spans and records
//! collected per thread as JSON for hosts that must not be called back
//! (PHP, whose FFI closures crash when another thread calls them).
//!
//! Nothing is named here: spans, attributes and records come from the
//! core's `telemetry::spans` collectors (its `log` records through
//! `tracing-log`), metric points from its
//! `MetricSink` with the core's `Metric` table. Until a table is set or a
//! capture begins, no subscriber and no sink exist, and the core builds
//! nothing.

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use iikocloud_core::telemetry::spans::{install_with_logs, FinishedSpan, LogRecord, SpanAttr};
use iikocloud_core::telemetry::{set_metric_sink, Attr, AttrValue, Metric, MetricSink};
use serde_json::{json, Map, Value};

use crate::error::{guard, iiko_error};
use crate::failure::Failure;
use crate::ffi::{c_string, out_ptr};
use crate::status::*;

/// The layout version of `iiko_telemetry` this header describes; put it in
/// `iiko_telemetry.version`.
pub const IIKO_TELEMETRY_VERSION: u32 = 1;

/// Log levels, most severe first (`iiko_log_record.level`, and the most
/// verbose level wanted in `iiko_telemetry.log_level`).
pub const IIKO_LOG_ERROR: i32 = 1;
/// A warning.
pub const IIKO_LOG_WARN: i32 = 2;
/// Information (the default: `log_level` 0 means this).
pub const IIKO_LOG_INFO: i32 = 3;
/// Detail for debugging (a resend of a request).
pub const IIKO_LOG_DEBUG: i32 = 4;
/// Finer detail still.
pub const IIKO_LOG_TRACE: i32 = 5;

/// `iiko_attribute.value_type`: `string_value` holds the value.
pub const IIKO_ATTR_STRING: i32 = 1;
/// `int_value` holds the value.
pub const IIKO_ATTR_INT: i32 = 2;
/// `double_value` holds the value.
pub const IIKO_ATTR_DOUBLE: i32 = 3;
/// `bool_value` holds the value (0 or 1).
pub const IIKO_ATTR_BOOL: i32 = 4;

/// `iiko_span.status`: as OpenTelemetry's `Unset` (the span did not fail).
pub const IIKO_SPAN_STATUS_UNSET: i32 = 0;
/// As OpenTelemetry's `Error`: the `error.type` attribute says why.
pub const IIKO_SPAN_STATUS_ERROR: i32 = 2;

/// One attribute: its key, and its value in the field `value_type` names
/// (the others are zero / NULL). Borrowed for the duration of the callback.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iiko_attribute {
    /// The OpenTelemetry name, e.g. `"http.request.resend_count"`.
    pub key: *const c_char,
    /// `IIKO_ATTR_STRING`, `_INT`, `_DOUBLE` or `_BOOL`.
    pub value_type: i32,
    /// The text of a string value, else NULL.
    pub string_value: *const c_char,
    /// An integer value.
    pub int_value: i64,
    /// A floating-point value.
    pub double_value: f64,
    /// A boolean value, 0 or 1.
    pub bool_value: i32,
}

/// Something that happened during a span (a resend, one event of a webhook
/// body). Borrowed for the duration of the callback.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iiko_span_event {
    /// `"resend"`, `"webhook event"`.
    pub name: *const c_char,
    /// When, in nanoseconds since the Unix epoch.
    pub time_unix_ns: u64,
    /// Its attributes (NULL when `attribute_count` is 0).
    pub attributes: *const iiko_attribute,
    /// How many.
    pub attribute_count: usize,
}

/// A span of the SDK that ended. Ids are unique in the process, never 0;
/// spans of one call share `trace_id` (the id of its outermost span). A
/// span whose `parent_span_id` is 0 was started by your code: make it a
/// child of your current span. Borrowed for the duration of the callback.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iiko_span {
    /// The span's name: the operation (`"deliveries.create"`),
    /// `"access_token"`, `"wait_command"`, `"webhook.receive"`.
    pub name: *const c_char,
    /// `"client"`, `"server"` or `"internal"` (OpenTelemetry's span kinds).
    pub kind: *const c_char,
    /// Start, in nanoseconds since the Unix epoch.
    pub start_unix_ns: u64,
    /// End, in nanoseconds since the Unix epoch.
    pub end_unix_ns: u64,
    /// `IIKO_SPAN_STATUS_UNSET` or `IIKO_SPAN_STATUS_ERROR`.
    pub status: i32,
    /// The id of the outermost SDK span of this tree.
    pub trace_id: u64,
    /// This span's id.
    pub span_id: u64,
    /// The SDK span this one is a child of, 0 for none.
    pub parent_span_id: u64,
    /// Its attributes (NULL when `attribute_count` is 0).
    pub attributes: *const iiko_attribute,
    /// How many.
    pub attribute_count: usize,
    /// What happened during it, oldest first (NULL when `event_count` is 0).
    pub events: *const iiko_span_event,
    /// How many.
    pub event_count: usize,
}

/// One metric point: an increment of a counter, a measurement of a
/// histogram, the new value of a gauge. The metric's name, unit, kind and
/// description are static strings of the library's metric table (they
/// stay valid after the callback); the attributes are borrowed for the
/// duration of the callback.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iiko_metric_point {
    /// The OpenTelemetry name, e.g. `"http.client.request.duration"`.
    pub name: *const c_char,
    /// The UCUM unit: `"s"`, `"{request}"`.
    pub unit: *const c_char,
    /// `"counter"`, `"histogram"` or `"gauge"`.
    pub kind: *const c_char,
    /// What it counts or measures.
    pub description: *const c_char,
    /// Its position in the library's table (stable within a release).
    pub metric_index: usize,
    /// The point's value.
    pub value: f64,
    /// Its attributes (NULL when `attribute_count` is 0).
    pub attributes: *const iiko_attribute,
    /// How many.
    pub attribute_count: usize,
}

/// One log record of the SDK. Borrowed for the duration of the callback.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iiko_log_record {
    /// `IIKO_LOG_ERROR` ... `IIKO_LOG_TRACE`.
    pub level: i32,
    /// The part of the library that logged it.
    pub target: *const c_char,
    /// The message (`"resend"`, `"webhook event"`).
    pub message: *const c_char,
    /// When, in nanoseconds since the Unix epoch.
    pub time_unix_ns: u64,
    /// The span it happened in, 0 for none.
    pub span_id: u64,
    /// Its fields (NULL when `attribute_count` is 0).
    pub attributes: *const iiko_attribute,
    /// How many.
    pub attribute_count: usize,
}

/// Receives a span when it ends (children before their parent).
#[allow(non_camel_case_types)]
pub type iiko_on_span_end =
    Option<unsafe extern "C" fn(user_data: *mut c_void, span: *const iiko_span)>;
/// Receives a metric point.
#[allow(non_camel_case_types)]
pub type iiko_on_metric =
    Option<unsafe extern "C" fn(user_data: *mut c_void, point: *const iiko_metric_point)>;
/// Receives a log record.
#[allow(non_camel_case_types)]
pub type iiko_on_log =
    Option<unsafe extern "C" fn(user_data: *mut c_void, record: *const iiko_log_record)>;

/// The telemetry callbacks of the process, given to `iiko_telemetry_set`.
/// Zero it (`iiko_telemetry t = {0};`), set `size` to
/// `sizeof(iiko_telemetry)` and `version` to `IIKO_TELEMETRY_VERSION`, then
/// the callbacks you want; a NULL callback costs nothing.
///
/// Threads: each callback runs on the thread that called the library (a
/// call, its token fetch and its command polls run on the calling thread;
/// a webhook span on the thread that called `iiko_webhook_receive` or
/// `iiko_inbox_receive`), so it may run on several threads at once and must
/// be thread-safe, as must `user_data`. It runs inside the call it
/// reports, which waits for it (a token fetch's span ends while the
/// fetch still holds the lock of a shared token cache directory or
/// store): keep it short (copy what you need and return), and do not call
/// the library from a callback. Pointers it receives are valid only until
/// it returns.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iiko_telemetry {
    /// `sizeof(iiko_telemetry)` as your code was compiled: later versions
    /// may append fields, and the library reads only the ones you have.
    pub size: usize,
    /// `IIKO_TELEMETRY_VERSION`.
    pub version: u32,
    /// The most verbose log level `on_log` receives (`IIKO_LOG_ERROR` ...
    /// `IIKO_LOG_TRACE`); 0 means `IIKO_LOG_INFO`.
    pub log_level: i32,
    /// Passed as the first argument of every callback.
    pub user_data: *mut c_void,
    /// Called when a span of the SDK ends, or NULL.
    pub on_span_end: iiko_on_span_end,
    /// Called for each metric point, or NULL.
    pub on_metric: iiko_on_metric,
    /// Called for each log record at `log_level` or more severe, or NULL.
    pub on_log: iiko_on_log,
}

/// The table as kept: the caller promised its callbacks and `user_data`
/// may be used from any thread.
struct Table {
    user_data: *mut c_void,
    log_level: i32,
    on_span_end: iiko_on_span_end,
    on_metric: iiko_on_metric,
    on_log: iiko_on_log,
}

// SAFETY: iiko_telemetry's contract makes the callbacks and user_data
// usable from any thread; the library only passes user_data back.
unsafe impl Send for Table {}
// SAFETY: as above.
unsafe impl Sync for Table {}

static TABLE: OnceLock<Table> = OnceLock::new();

/// Whether the span and log collector is the process's `tracing`
/// subscriber (installed once, on first need).
fn collector_installed() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        // The core's `log` records (a 401 refreshed, a store that failed)
        // become events the log collector hands on. Nothing else in the
        // library sets a `log` logger, so this cannot be refused.
        let _ = tracing_log::LogTracer::init();
        install_with_logs(span_ended, logged).is_ok()
    })
}

/// The number of a `tracing` level, as `IIKO_LOG_*` numbers them.
fn level_number(level: tracing::Level) -> i32 {
    match level {
        tracing::Level::ERROR => IIKO_LOG_ERROR,
        tracing::Level::WARN => IIKO_LOG_WARN,
        tracing::Level::INFO => IIKO_LOG_INFO,
        tracing::Level::DEBUG => IIKO_LOG_DEBUG,
        tracing::Level::TRACE => IIKO_LOG_TRACE,
    }
}

fn unix_ns(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Attributes laid out for C, with the strings they point into.
struct CAttributes {
    _strings: Vec<CString>,
    items: Vec<iiko_attribute>,
}

impl CAttributes {
    fn new<'a>(attrs: impl Iterator<Item = (&'static str, &'a AttrValue<'a>)>) -> Self {
        let mut strings = Vec::new();
        let mut items = Vec::new();
        for (key, value) in attrs {
            let key_c = c_string(key);
            let mut item = iiko_attribute {
                key: key_c.as_ptr(),
                value_type: IIKO_ATTR_STRING,
                string_value: std::ptr::null(),
                int_value: 0,
                double_value: 0.0,
                bool_value: 0,
            };
            strings.push(key_c);
            match value {
                AttrValue::Str(s) => {
                    let s = c_string(s);
                    item.string_value = s.as_ptr();
                    strings.push(s);
                }
                AttrValue::Int(i) => {
                    item.value_type = IIKO_ATTR_INT;
                    item.int_value = *i;
                }
                AttrValue::Float(f) => {
                    item.value_type = IIKO_ATTR_DOUBLE;
                    item.double_value = *f;
                }
                AttrValue::Bool(b) => {
                    item.value_type = IIKO_ATTR_BOOL;
                    item.bool_value = i32::from(*b);
                }
            }
            items.push(item);
        }
        // A CString's bytes live on the heap: moving the Vec keeps the
        // pointers above valid.
        CAttributes {
            _strings: strings,
            items,
        }
    }

    fn of_span(attrs: &[SpanAttr]) -> Self {
        Self::new(attrs.iter().map(|(k, v)| (*k, v)))
    }

    fn ptr(&self) -> *const iiko_attribute {
        if self.items.is_empty() {
            std::ptr::null()
        } else {
            self.items.as_ptr()
        }
    }
}

/// Runs a delivery to C so that a fault in it never reaches the SDK's call.
fn shielded(deliver: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(deliver));
}

fn span_ended(span: FinishedSpan) {
    shielded(|| {
        if let Some(on_end) = TABLE.get().and_then(|t| t.on_span_end.map(|f| (t, f))) {
            call_span_end(on_end.0.user_data, on_end.1, &span);
        }
        capture(|c| c.spans.push(span));
    });
}

fn call_span_end(
    user_data: *mut c_void,
    on_end: unsafe extern "C" fn(*mut c_void, *const iiko_span),
    span: &FinishedSpan,
) {
    let name = c_string(&span.name);
    let kind = c_string(&span.kind);
    let attributes = CAttributes::of_span(&span.attributes);
    let event_names: Vec<CString> = span.events.iter().map(|e| c_string(&e.name)).collect();
    let event_attributes: Vec<CAttributes> = span
        .events
        .iter()
        .map(|e| CAttributes::of_span(&e.attributes))
        .collect();
    let events: Vec<iiko_span_event> = span
        .events
        .iter()
        .zip(event_names.iter().zip(&event_attributes))
        .map(|(e, (name, attrs))| iiko_span_event {
            name: name.as_ptr(),
            time_unix_ns: unix_ns(e.time),
            attributes: attrs.ptr(),
            attribute_count: attrs.items.len(),
        })
        .collect();
    let c_span = iiko_span {
        name: name.as_ptr(),
        kind: kind.as_ptr(),
        start_unix_ns: unix_ns(span.start),
        end_unix_ns: unix_ns(span.end),
        status: if span.error {
            IIKO_SPAN_STATUS_ERROR
        } else {
            IIKO_SPAN_STATUS_UNSET
        },
        trace_id: span.trace_id,
        span_id: span.id,
        parent_span_id: span.parent_id.unwrap_or(0),
        attributes: attributes.ptr(),
        attribute_count: attributes.items.len(),
        events: if events.is_empty() {
            std::ptr::null()
        } else {
            events.as_ptr()
        },
        event_count: events.len(),
    };
    // SAFETY: the caller's callback, per iiko_telemetry's contract; every
    // pointer in c_span lives until after it returns.
    unsafe { on_end(user_data, &c_span) };
}

fn logged(record: LogRecord) {
    shielded(|| {
        let level = level_number(record.level);
        if let Some(table) = TABLE.get() {
            if let Some(on_log) = table.on_log.filter(|_| level <= table.log_level) {
                let target = c_string(&record.target);
                let message = c_string(&record.message);
                let attributes = CAttributes::of_span(&record.attributes);
                let c_record = iiko_log_record {
                    level,
                    target: target.as_ptr(),
                    message: message.as_ptr(),
                    time_unix_ns: unix_ns(record.time),
                    span_id: record.span_id.unwrap_or(0),
                    attributes: attributes.ptr(),
                    attribute_count: attributes.items.len(),
                };
                // SAFETY: as in call_span_end.
                unsafe { on_log(table.user_data, &c_record) };
            }
        }
        capture(|c| {
            if level <= c.log_level {
                c.logs.push(record);
            }
        });
    });
}

/// The metric sink of a table with `on_metric`.
struct CallbackSink;

/// The metric table's strings, made once: they outlive every callback.
fn metric_strings(metric: &Metric) -> &'static [CString; 4] {
    static STRINGS: OnceLock<Vec<[CString; 4]>> = OnceLock::new();
    let all = STRINGS.get_or_init(|| {
        iikocloud_core::telemetry::METRICS
            .iter()
            .map(|m| {
                [
                    c_string(m.name),
                    c_string(m.unit),
                    c_string(m.kind.as_str()),
                    c_string(m.description),
                ]
            })
            .collect()
    });
    &all[metric.index]
}

impl MetricSink for CallbackSink {
    fn record(&self, metric: &'static Metric, value: f64, attributes: &[Attr<'_>]) {
        shielded(|| {
            let Some(table) = TABLE.get() else { return };
            let Some(on_metric) = table.on_metric else {
                return;
            };
            let [name, unit, kind, description] = metric_strings(metric);
            let attrs = CAttributes::new(attributes.iter().map(|(k, v)| (*k, v)));
            let point = iiko_metric_point {
                name: name.as_ptr(),
                unit: unit.as_ptr(),
                kind: kind.as_ptr(),
                description: description.as_ptr(),
                metric_index: metric.index,
                value,
                attributes: attrs.ptr(),
                attribute_count: attrs.items.len(),
            };
            // SAFETY: as in call_span_end.
            unsafe { on_metric(table.user_data, &point) };
        });
    }
}

/// Sets the process's telemetry callbacks. Once per process: a second call
/// returns `IIKO_STATUS_ALREADY_SET` and the first table stays in force
/// (there is no way to remove it; make your callbacks check a flag of
/// yours instead). The table is copied; `user_data` is kept as given.
///
/// Spans and log records are collected from this call on (before it, the
/// SDK builds none); metric points are recorded only when `on_metric` is
/// set. See `iiko_telemetry` for the thread rules.
///
/// Errors: `IIKO_STATUS_NULL_ARGUMENT` for a NULL table,
/// `IIKO_STATUS_INVALID_ARGUMENT` for a `size` smaller than this version's
/// table, an unknown `version` or a `log_level` outside 0-5.
///
/// # Safety
/// `telemetry` must be NULL or point to `telemetry->size` readable bytes;
/// `err_out` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_telemetry_set(
    telemetry: *const iiko_telemetry,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract (size is checked before the
        // rest is read).
        let size = unsafe { telemetry.cast::<usize>().as_ref() }
            .copied()
            .ok_or_else(|| Failure::null("telemetry"))?;
        let ours = std::mem::size_of::<iiko_telemetry>();
        if size < ours {
            return Err(Failure::invalid_argument(format!(
                "telemetry.size is {size}: set it to sizeof(iiko_telemetry), {ours} for \
                 IIKO_TELEMETRY_VERSION {IIKO_TELEMETRY_VERSION}"
            )));
        }
        // SAFETY: non-NULL, and at least our table's size is readable.
        let table = unsafe { &*telemetry };
        if table.version != IIKO_TELEMETRY_VERSION {
            return Err(Failure::invalid_argument(format!(
                "telemetry.version is {}: this library knows IIKO_TELEMETRY_VERSION {}",
                table.version, IIKO_TELEMETRY_VERSION
            )));
        }
        let log_level = match table.log_level {
            0 => IIKO_LOG_INFO,
            l @ IIKO_LOG_ERROR..=IIKO_LOG_TRACE => l,
            other => {
                return Err(Failure::invalid_argument(format!(
                    "telemetry.log_level is {other}: use 0 or IIKO_LOG_ERROR ({IIKO_LOG_ERROR}) \
                     to IIKO_LOG_TRACE ({IIKO_LOG_TRACE})"
                )))
            }
        };
        let kept = Table {
            user_data: table.user_data,
            log_level,
            on_span_end: table.on_span_end,
            on_metric: table.on_metric,
            on_log: table.on_log,
        };
        TABLE.set(kept).map_err(|_| {
            Failure::new(
                IIKO_STATUS_ALREADY_SET,
                "iiko_telemetry_set was called before: the first table stays in force",
            )
        })?;
        if table.on_span_end.is_some() || table.on_log.is_some() {
            collector_installed();
        }
        if table.on_metric.is_some() {
            // Only this module sets the library's sink, and only here, once.
            let _ = set_metric_sink(CallbackSink);
        }
        Ok(())
    })
}

/// What one thread collects between `iiko_telemetry_capture_begin` and
/// `_take`.
struct Capture {
    log_level: i32,
    spans: Vec<FinishedSpan>,
    logs: Vec<LogRecord>,
}

thread_local! {
    static CAPTURE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

fn capture(f: impl FnOnce(&mut Capture)) {
    // try_with: a record arriving while the thread's locals are torn down
    // is dropped; try_borrow_mut: never while the buffer is being taken.
    let _ = CAPTURE.try_with(|c| {
        if let Ok(mut slot) = c.try_borrow_mut() {
            if let Some(capture) = slot.as_mut() {
                f(capture);
            }
        }
    });
}

/// Starts collecting, on the calling thread only, the spans that end and
/// the log records at `log_level` or more severe (0 means `IIKO_LOG_INFO`),
/// dropping what an earlier capture of this thread left; end it with
/// `iiko_telemetry_capture_take`. For hosts whose callbacks must run on
/// their own thread (PHP's FFI): no callback is involved, and nothing
/// another thread does is collected. Metric points are not captured (use
/// `iiko_telemetry_set`'s `on_metric`).
///
/// The first call makes the library collect spans for the whole process
/// (the cost of building them, no callback), independently of
/// `iiko_telemetry_set`, which it neither needs nor prevents.
///
/// Errors: `IIKO_STATUS_INVALID_ARGUMENT` for a `log_level` outside 0-5;
/// `IIKO_STATUS_INTERNAL` if the collector could not be installed.
///
/// # Safety
/// `err_out` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_telemetry_capture_begin(
    log_level: i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        let log_level = match log_level {
            0 => IIKO_LOG_INFO,
            l @ IIKO_LOG_ERROR..=IIKO_LOG_TRACE => l,
            other => {
                return Err(Failure::invalid_argument(format!(
                    "log_level is {other}: use 0 or IIKO_LOG_ERROR ({IIKO_LOG_ERROR}) to \
                     IIKO_LOG_TRACE ({IIKO_LOG_TRACE})"
                )))
            }
        };
        if !collector_installed() {
            return Err(Failure::new(
                IIKO_STATUS_INTERNAL,
                "the span collector could not be installed (another tracing subscriber is set)",
            ));
        }
        CAPTURE.with(|c| {
            *c.borrow_mut() = Some(Capture {
                log_level,
                spans: Vec::new(),
                logs: Vec::new(),
            })
        });
        Ok(())
    })
}

fn attributes_json(attrs: &[SpanAttr]) -> Value {
    let mut map = Map::new();
    for (key, value) in attrs {
        let v = match value {
            AttrValue::Str(s) => Value::from(s.as_ref()),
            AttrValue::Int(i) => Value::from(*i),
            AttrValue::Float(f) => Value::from(*f),
            AttrValue::Bool(b) => Value::from(*b),
        };
        map.insert((*key).to_owned(), v);
    }
    Value::Object(map)
}

fn capture_json(capture: Capture) -> Value {
    let mut spans = capture.spans;
    // Started order: a parent before its children, as tracers create them.
    spans.sort_by_key(|s| s.id);
    let spans: Vec<Value> = spans
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "kind": s.kind,
                "start_unix_ns": unix_ns(s.start),
                "end_unix_ns": unix_ns(s.end),
                "error": s.error,
                "trace_id": s.trace_id,
                "span_id": s.id,
                "parent_span_id": s.parent_id,
                "attributes": attributes_json(&s.attributes),
                "events": s.events.iter().map(|e| json!({
                    "name": e.name,
                    "time_unix_ns": unix_ns(e.time),
                    "attributes": attributes_json(&e.attributes),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let logs: Vec<Value> = capture
        .logs
        .iter()
        .map(|r| {
            json!({
                "level": level_number(r.level),
                "target": r.target,
                "message": r.message,
                "time_unix_ns": unix_ns(r.time),
                "span_id": r.span_id,
                "attributes": attributes_json(&r.attributes),
            })
        })
        .collect();
    json!({ "spans": spans, "logs": logs })
}

/// Ends the calling thread's capture and writes what it collected as JSON
/// (yours, free with `iiko_string_free`):
/// `{"spans":[{"name","kind","start_unix_ns","end_unix_ns","error",
/// "trace_id","span_id","parent_span_id" (null for none),"attributes":{},
/// "events":[{"name","time_unix_ns","attributes"}]}],
/// "logs":[{"level","target","message","time_unix_ns","span_id",
/// "attributes"}]}`, spans in the order they started (a parent before its
/// children), records in the order they happened. Without a capture begun
/// on this thread both lists are empty.
///
/// # Safety
/// `json_out` must be writable; `err_out` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_telemetry_capture_take(
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        let out = out_ptr(json_out, "json_out")?;
        let taken = CAPTURE.with(|c| c.borrow_mut().take());
        let value = capture_json(taken.unwrap_or(Capture {
            log_level: 0,
            spans: Vec::new(),
            logs: Vec::new(),
        }));
        let text = c_string(&value.to_string());
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(text.into_raw()) };
        Ok(())
    })
}
