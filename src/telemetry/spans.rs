//! The SDK's finished spans handed to a callback, for hosts that have no
//! `tracing` subscriber of their own: the C library's telemetry table and
//! the Python package's OpenTelemetry bridge read the spans here, so both
//! see the names and attributes the core decided.
//!
//! A span is handed over when it closes, on the thread that closed it (the
//! thread that called the SDK). Children close before their parent;
//! [`FinishedSpan::parent_id`] links them.
//!
//! The core's `tracing` events (a resend, a webhook's event) are also log
//! records: [`LogCollector`] hands each one over as a [`LogRecord`], for the
//! C table's `on_log` and the PHP client's PSR-3 logger.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use super::AttrValue;

/// One attribute of a finished span.
pub type SpanAttr = (&'static str, AttrValue<'static>);

/// A span of the SDK that ended.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedSpan {
    /// Unique in the process (never reused).
    pub id: u64,
    /// The SDK span it is a child of; `None` for a span started by the
    /// caller's code (its parent is the caller's current span).
    pub parent_id: Option<u64>,
    /// The id of the outermost SDK span of its tree (its own for a span
    /// without an SDK parent): spans with one trace id belong together.
    pub trace_id: u64,
    /// The span's name (`otel.name`): `deliveries.create`, `wait_command`.
    pub name: String,
    /// `client`, `server` or `internal` (`otel.kind`).
    pub kind: String,
    /// When it started.
    pub start: SystemTime,
    /// When it ended.
    pub end: SystemTime,
    /// Whether it ended in error (`otel.status_code` `ERROR`; `error.type`
    /// says why).
    pub error: bool,
    /// Its attributes, without the `otel.*` fields read above.
    pub attributes: Vec<SpanAttr>,
    /// What happened during it (a resend, a webhook's event).
    pub events: Vec<SpanEvent>,
}

impl FinishedSpan {
    /// The value of one attribute.
    pub fn attribute(&self, key: &str) -> Option<&AttrValue<'static>> {
        self.attributes
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }
}

/// Something that happened during a span.
#[derive(Clone, Debug, PartialEq)]
pub struct SpanEvent {
    /// Its message (`resend`, `webhook event`).
    pub name: String,
    /// When.
    pub time: SystemTime,
    /// Its attributes.
    pub attributes: Vec<SpanAttr>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The `tracing` layer that collects the SDK's spans (target `iikocloud`)
/// and hands each one to `on_end` when it closes.
pub struct SpanCollector<F> {
    on_end: F,
}

impl<F: Fn(FinishedSpan) + Send + Sync + 'static> SpanCollector<F> {
    /// A collector calling `on_end` for every span of the SDK.
    pub fn new(on_end: F) -> Self {
        SpanCollector { on_end }
    }
}

/// Installs a [`SpanCollector`] as the process's `tracing` subscriber.
/// Fails when the process already has one (then add the collector to it as
/// a layer, or use `tracing-opentelemetry` there).
pub fn install<F: Fn(FinishedSpan) + Send + Sync + 'static>(
    on_end: F,
) -> Result<(), tracing::subscriber::SetGlobalDefaultError> {
    tracing::subscriber::set_global_default(
        tracing_subscriber::registry().with(SpanCollector::new(on_end)),
    )
}

fn ours(metadata: &Metadata<'_>) -> bool {
    is_ours(metadata.target())
}

fn is_ours(target: &str) -> bool {
    target == super::TARGET || target.starts_with("iikocloud::")
}

/// The target `tracing-log`'s `LogTracer` gives the core's `log` records it
/// turns into events (their own target is the `log.target` field): a host
/// that installs it has [`LogCollector`] hand them on too.
pub const LOG_BRIDGE: &str = "log";

/// What a visitor fills: a span being built, or an event.
struct Fields<'a> {
    name: Option<&'a mut String>,
    kind: Option<&'a mut String>,
    error: Option<&'a mut bool>,
    attributes: &'a mut Vec<SpanAttr>,
}

impl Fields<'_> {
    fn put(&mut self, field: &Field, value: AttrValue<'static>) {
        let key = field.name();
        match (key, value) {
            ("otel.name", AttrValue::Str(s)) => {
                if let Some(n) = self.name.as_deref_mut() {
                    *n = s.into_owned();
                }
            }
            ("otel.kind", AttrValue::Str(s)) => {
                if let Some(k) = self.kind.as_deref_mut() {
                    *k = s.into_owned();
                }
            }
            ("otel.status_code", AttrValue::Str(s)) => {
                if let Some(e) = self.error.as_deref_mut() {
                    *e = s.eq_ignore_ascii_case("error");
                }
            }
            ("message", AttrValue::Str(s)) => {
                if let Some(n) = self.name.as_deref_mut() {
                    *n = s.into_owned();
                }
            }
            (k, _) if k.starts_with("otel.") => {}
            (k, v) => match self.attributes.iter_mut().find(|(old, _)| *old == k) {
                Some(slot) => slot.1 = v,
                None => self.attributes.push((k, v)),
            },
        }
    }
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, AttrValue::Str(value.to_owned().into()));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, AttrValue::Int(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(
            field,
            i64::try_from(value).map_or(AttrValue::Float(value as f64), AttrValue::Int),
        );
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(field, AttrValue::Float(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, AttrValue::Bool(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.put(field, AttrValue::Str(format!("{value:?}").into()));
    }
}

impl<S, F> Layer<S> for SpanCollector<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    F: Fn(FinishedSpan) + Send + Sync + 'static,
{
    fn enabled(&self, metadata: &Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        ours(metadata)
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let parent = span.parent().and_then(|p| {
            p.extensions()
                .get::<FinishedSpan>()
                .map(|d| (d.id, d.trace_id))
        });
        let now = SystemTime::now();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let mut data = FinishedSpan {
            id,
            parent_id: parent.map(|(p, _)| p),
            trace_id: parent.map_or(id, |(_, t)| t),
            name: attrs.metadata().name().to_owned(),
            kind: "internal".to_owned(),
            start: now,
            end: now,
            error: false,
            attributes: Vec::new(),
            events: Vec::new(),
        };
        attrs.record(&mut Fields {
            name: Some(&mut data.name),
            kind: Some(&mut data.kind),
            error: Some(&mut data.error),
            attributes: &mut data.attributes,
        });
        span.extensions_mut().insert(data);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut ext = span.extensions_mut();
        if let Some(data) = ext.get_mut::<FinishedSpan>() {
            values.record(&mut Fields {
                name: Some(&mut data.name),
                kind: Some(&mut data.kind),
                error: Some(&mut data.error),
                attributes: &mut data.attributes,
            });
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        // A `log` record bridged into `tracing` (target "log") is a log
        // record, not something that happened to the span.
        if !ours(event.metadata()) {
            return;
        }
        let Some(span) = ctx.event_span(event) else {
            return;
        };
        let mut name = String::new();
        let mut attributes = Vec::new();
        event.record(&mut Fields {
            name: Some(&mut name),
            kind: None,
            error: None,
            attributes: &mut attributes,
        });
        let mut ext = span.extensions_mut();
        if let Some(data) = ext.get_mut::<FinishedSpan>() {
            data.events.push(SpanEvent {
                name,
                time: SystemTime::now(),
                attributes,
            });
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let data = span.extensions_mut().remove::<FinishedSpan>();
        if let Some(mut data) = data {
            data.end = SystemTime::now();
            (self.on_end)(data);
        }
    }
}

/// One of the core's `tracing` events, as a log record.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRecord {
    /// Its level.
    pub level: tracing::Level,
    /// The module that logged it (`iikocloud::telemetry::hooks`).
    pub target: String,
    /// Its message (`resend`, `webhook event`).
    pub message: String,
    /// When.
    pub time: SystemTime,
    /// The SDK span it happened in ([`FinishedSpan::id`]), if any.
    pub span_id: Option<u64>,
    /// Its fields other than the message.
    pub attributes: Vec<SpanAttr>,
}

/// The `tracing` layer that hands each of the core's events (every level:
/// the receiver filters) to `on_log`. Placed after a [`SpanCollector`] in
/// the same subscriber, it names the span each record happened in.
pub struct LogCollector<F> {
    on_log: F,
}

impl<F: Fn(LogRecord) + Send + Sync + 'static> LogCollector<F> {
    /// A collector calling `on_log` for every event of the SDK.
    pub fn new(on_log: F) -> Self {
        LogCollector { on_log }
    }
}

impl<S, F> Layer<S> for LogCollector<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    F: Fn(LogRecord) + Send + Sync + 'static,
{
    fn enabled(&self, metadata: &Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        ours(metadata) || metadata.target() == LOG_BRIDGE
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let metadata = event.metadata();
        let bridged = metadata.target() == LOG_BRIDGE;
        if !bridged && !ours(metadata) {
            return;
        }
        let mut message = String::new();
        let mut attributes = Vec::new();
        event.record(&mut Fields {
            name: Some(&mut message),
            kind: None,
            error: None,
            attributes: &mut attributes,
        });
        let mut target = metadata.target().to_owned();
        if bridged {
            // The record's own target is a field; the others (module, file,
            // line) say nothing a reader of the record needs.
            match attributes.iter().find(|(k, _)| *k == "log.target") {
                Some((_, AttrValue::Str(t))) if is_ours(t) => target = t.to_string(),
                _ => return,
            }
            attributes.retain(|(k, _)| !k.starts_with("log."));
        }
        let span_id = ctx
            .event_span(event)
            .and_then(|s| s.extensions().get::<FinishedSpan>().map(|d| d.id));
        (self.on_log)(LogRecord {
            level: *metadata.level(),
            target,
            message,
            time: SystemTime::now(),
            span_id,
            attributes,
        });
    }
}

/// Installs a [`SpanCollector`] and a [`LogCollector`] as the process's
/// `tracing` subscriber; fails as [`install`] does.
pub fn install_with_logs<F, G>(
    on_end: F,
    on_log: G,
) -> Result<(), tracing::subscriber::SetGlobalDefaultError>
where
    F: Fn(FinishedSpan) + Send + Sync + 'static,
    G: Fn(LogRecord) + Send + Sync + 'static,
{
    tracing::subscriber::set_global_default(
        tracing_subscriber::registry()
            .with(SpanCollector::new(on_end))
            .with(LogCollector::new(on_log)),
    )
}
