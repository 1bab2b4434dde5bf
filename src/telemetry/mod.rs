//! What the SDK tells an operations team: spans of every call, token fetch,
//! command wait and webhook, and metrics of the same, in OpenTelemetry's
//! names.
//!
//! **Spans** go through the [`tracing`] crate, with the field names of the
//! OpenTelemetry semantic conventions, so `tracing-opentelemetry` turns them
//! into OpenTelemetry spans as they are (`otel.name` is the span's name,
//! `otel.kind` its kind, `otel.status_code` its status):
//!
//! | span (`otel.name`) | kind | attributes |
//! |---|---|---|
//! | the operation, `deliveries.create` (or `POST /api/1/...` for a path no operation has) | client | [`attr::HTTP_REQUEST_METHOD`], [`attr::SERVER_ADDRESS`], [`attr::SERVER_PORT`], [`attr::URL_FULL`], [`attr::HTTP_RESPONSE_STATUS_CODE`], [`attr::ERROR_TYPE`], [`attr::HTTP_REQUEST_RESEND_COUNT`], [`attr::IIKO_OPERATION`], [`attr::IIKO_CORRELATION_ID`], [`attr::IIKO_ORGANIZATION_ID`] |
//! | `access_token` (the token fetch, a child of the call that needed it) | client | the same |
//! | [`SPAN_WAIT`] | internal | [`attr::IIKO_CORRELATION_ID`], [`attr::IIKO_ORGANIZATION_ID`], [`attr::IIKO_COMMAND_OUTCOME`], [`attr::IIKO_COMMAND_REASON`], [`attr::IIKO_COMMAND_POLLS`], [`attr::ERROR_TYPE`] |
//! | [`SPAN_WEBHOOK`] | server | [`attr::HTTP_RESPONSE_STATUS_CODE`], [`attr::IIKO_WEBHOOK_EVENTS`], [`attr::IIKO_WEBHOOK_REJECTION`], [`attr::IIKO_CORRELATION_ID`] (when the body has one event), one span event per event |
//!
//! Every span is a child of the caller's current span. Nothing is built
//! while no subscriber wants the spans: `tracing` answers from a cached
//! interest, and the attributes are computed only for a span that records.
//!
//! **Metrics** ([`METRICS`]) go to one [`MetricSink`] per process, set with
//! [`set_metric_sink`]; with the `otel-metrics` feature,
//! `telemetry::otel::record_to(&meter)` sets one that records into an
//! OpenTelemetry meter. Until a sink is set, recording is one atomic load.
//!
//! No span, attribute, metric label or log record holds a secret: the
//! request and answer bodies are never recorded, `url.full` is the base URL
//! and the path (which carry none), and the token request's span has no
//! organization.

mod hooks;
#[cfg(feature = "otel-metrics")]
pub mod otel;
#[cfg(feature = "span-export")]
pub mod spans;

pub(crate) use hooks::*;

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

/// The `tracing` target of every span and event of the core.
pub const TARGET: &str = "iikocloud";
/// The span over [`Client::wait_command`](crate::Client::wait_command)'s polls.
pub const SPAN_WAIT: &str = "wait_command";
/// The span of one webhook request received.
pub const SPAN_WEBHOOK: &str = "webhook.receive";

/// Attribute names: the semantic conventions' where they have one, `iiko.*`
/// for the API's own facts.
pub mod attr {
    /// `POST` (the client sends nothing else).
    pub const HTTP_REQUEST_METHOD: &str = "http.request.method";
    /// The service's host.
    pub const SERVER_ADDRESS: &str = "server.address";
    /// The service's port.
    pub const SERVER_PORT: &str = "server.port";
    /// Base URL and path; no query, no credentials.
    pub const URL_FULL: &str = "url.full";
    /// The last answer's status.
    pub const HTTP_RESPONSE_STATUS_CODE: &str = "http.response.status_code";
    /// Why the call failed: the HTTP status (`"500"`), or the transport
    /// failure (`timeout`, `connect`, `tls`, ...), or the command's outcome.
    pub const ERROR_TYPE: &str = "error.type";
    /// How many times the request was sent again (a retry, a new token).
    pub const HTTP_REQUEST_RESEND_COUNT: &str = "http.request.resend_count";
    /// The operation's dotted name, `deliveries.create`.
    pub const IIKO_OPERATION: &str = "iiko.operation";
    /// The service's `correlationId` (of an answer, an error, a command, an event).
    pub const IIKO_CORRELATION_ID: &str = "iiko.correlation_id";
    /// The organization, when the request names exactly one.
    pub const IIKO_ORGANIZATION_ID: &str = "iiko.organization_id";
    /// `Success`, `Error`, `TimedOut`, `Expired` (a wait), or `Failed` when a
    /// poll itself failed.
    pub const IIKO_COMMAND_OUTCOME: &str = "iiko.command.outcome";
    /// The service's reason for a failed command.
    pub const IIKO_COMMAND_REASON: &str = "iiko.command.reason";
    /// Polls of `commands/status` a wait made.
    pub const IIKO_COMMAND_POLLS: &str = "iiko.command.polls";
    /// Why a call was sent again: `http_5xx`, `token_refused` (a 401) or
    /// `transport_<kind>`.
    pub const IIKO_RETRY_CAUSE: &str = "iiko.retry.cause";
    /// Events in a webhook body.
    pub const IIKO_WEBHOOK_EVENTS: &str = "iiko.webhook.events";
    /// Why a webhook request or event was refused (`unauthorized:mismatch`,
    /// `unparseable:not_json`, `unreadable_event`, `store_unavailable`).
    pub const IIKO_WEBHOOK_REJECTION: &str = "iiko.webhook.rejection";
    /// An event's `eventType`.
    pub const IIKO_EVENT_TYPE: &str = "iiko.event.type";
    /// What became of an event: `new`, `duplicate`, `stale`, `rejected`.
    pub const IIKO_EVENT_OUTCOME: &str = "iiko.event.outcome";
}

/// How a metric aggregates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetricKind {
    /// A monotonic sum; each point is an increment.
    Counter,
    /// A distribution; each point is one measurement.
    Histogram,
    /// The current value; each point replaces the last.
    Gauge,
}

impl MetricKind {
    /// `counter`, `histogram`, `gauge`.
    pub fn as_str(self) -> &'static str {
        match self {
            MetricKind::Counter => "counter",
            MetricKind::Histogram => "histogram",
            MetricKind::Gauge => "gauge",
        }
    }
}

/// One metric the SDK records.
#[derive(Debug, PartialEq, Eq)]
pub struct Metric {
    /// Its position in [`METRICS`].
    pub index: usize,
    /// The OpenTelemetry name.
    pub name: &'static str,
    /// The UCUM unit (`s`, or an annotation such as `{request}`).
    pub unit: &'static str,
    /// How it aggregates.
    pub kind: MetricKind,
    /// What it counts or measures.
    pub description: &'static str,
    /// The attributes its points may carry.
    pub attributes: &'static [&'static str],
}

use attr::*;

/// Duration of each call to the service (retries and a token fetch
/// included), as the HTTP conventions define it.
pub const HTTP_CLIENT_REQUEST_DURATION: Metric = Metric {
    index: 0,
    name: "http.client.request.duration",
    unit: "s",
    kind: MetricKind::Histogram,
    description: "Duration of HTTP client requests.",
    attributes: &[
        HTTP_REQUEST_METHOD,
        SERVER_ADDRESS,
        SERVER_PORT,
        HTTP_RESPONSE_STATUS_CODE,
        ERROR_TYPE,
        IIKO_OPERATION,
    ],
};
/// Token requests sent, with `error.type` on the failed ones.
pub const TOKEN_FETCHES: Metric = Metric {
    index: 1,
    name: "iiko.client.token.fetches",
    unit: "{fetch}",
    kind: MetricKind::Counter,
    description: "Access tokens requested from the service; failed ones carry error.type.",
    attributes: &[SERVER_ADDRESS, ERROR_TYPE],
};
/// Requests sent again, by cause.
pub const RETRIES: Metric = Metric {
    index: 2,
    name: "iiko.client.retries",
    unit: "{retry}",
    kind: MetricKind::Counter,
    description: "Requests sent again after a transport error, a 5xx or a refused token.",
    attributes: &[IIKO_OPERATION, IIKO_RETRY_CAUSE],
};
/// 429 answers.
pub const RATE_LIMITED: Metric = Metric {
    index: 3,
    name: "iiko.client.rate_limited",
    unit: "{response}",
    kind: MetricKind::Counter,
    description: "Answers 429 Too Many Requests.",
    attributes: &[IIKO_OPERATION],
};
/// The `Retry-After` of 429 answers.
pub const RETRY_AFTER: Metric = Metric {
    index: 4,
    name: "iiko.client.retry_after",
    unit: "s",
    kind: MetricKind::Histogram,
    description: "Retry-After of 429 answers.",
    attributes: &[IIKO_OPERATION],
};
/// How long command waits took, by outcome.
pub const COMMAND_WAIT_DURATION: Metric = Metric {
    index: 5,
    name: "iiko.client.command.wait.duration",
    unit: "s",
    kind: MetricKind::Histogram,
    description: "Time from the start of a command wait to its outcome.",
    attributes: &[IIKO_COMMAND_OUTCOME],
};
/// Webhook requests, by the status answered.
pub const WEBHOOK_REQUESTS: Metric = Metric {
    index: 6,
    name: "iiko.webhook.requests",
    unit: "{request}",
    kind: MetricKind::Counter,
    description: "Webhook requests received, by the status answered and why one was refused.",
    attributes: &[HTTP_RESPONSE_STATUS_CODE, IIKO_WEBHOOK_REJECTION],
};
/// Webhook events, by type and what became of them.
pub const WEBHOOK_EVENTS: Metric = Metric {
    index: 7,
    name: "iiko.webhook.events",
    unit: "{event}",
    kind: MetricKind::Counter,
    description: "Webhook events by type and outcome (new, duplicate, stale, rejected).",
    attributes: &[IIKO_EVENT_TYPE, IIKO_EVENT_OUTCOME, IIKO_WEBHOOK_REJECTION],
};
/// Time from an event's `eventTime` to its receipt.
pub const WEBHOOK_EVENT_LAG: Metric = Metric {
    index: 8,
    name: "iiko.webhook.event.lag",
    unit: "s",
    kind: MetricKind::Histogram,
    description: "Time from an event's eventTime to its receipt (0 when the clocks disagree).",
    attributes: &[IIKO_EVENT_TYPE],
};
/// Events stored and not yet acknowledged.
pub const INBOX_DEPTH: Metric = Metric {
    index: 9,
    name: "iiko.inbox.depth",
    unit: "{event}",
    kind: MetricKind::Gauge,
    description: "Events in the inbox not yet acknowledged (waiting or taken).",
    attributes: &[],
};
/// Age of the oldest unacknowledged event.
pub const INBOX_OLDEST_AGE: Metric = Metric {
    index: 10,
    name: "iiko.inbox.oldest_age",
    unit: "s",
    kind: MetricKind::Gauge,
    description: "Age of the oldest event not yet acknowledged (0 when there is none).",
    attributes: &[],
};
/// Events in the dead letters.
pub const INBOX_DEAD_LETTERS: Metric = Metric {
    index: 11,
    name: "iiko.inbox.dead_letters",
    unit: "{event}",
    kind: MetricKind::Gauge,
    description: "Events set aside in the dead letters.",
    attributes: &[],
};
/// Events handed out again.
pub const INBOX_REDELIVERIES: Metric = Metric {
    index: 12,
    name: "iiko.inbox.redeliveries",
    unit: "{delivery}",
    kind: MetricKind::Counter,
    description: "Events handed to a consumer again (not acknowledged in time, or released).",
    attributes: &[],
};

/// Every metric the SDK records, by [`Metric::index`].
pub const METRICS: [&Metric; 13] = [
    &HTTP_CLIENT_REQUEST_DURATION,
    &TOKEN_FETCHES,
    &RETRIES,
    &RATE_LIMITED,
    &RETRY_AFTER,
    &COMMAND_WAIT_DURATION,
    &WEBHOOK_REQUESTS,
    &WEBHOOK_EVENTS,
    &WEBHOOK_EVENT_LAG,
    &INBOX_DEPTH,
    &INBOX_OLDEST_AGE,
    &INBOX_DEAD_LETTERS,
    &INBOX_REDELIVERIES,
];

/// The bucket boundaries (seconds) the HTTP conventions advise for
/// `http.client.request.duration`, used for every duration histogram.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];

/// An attribute's value.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue<'a> {
    /// Text.
    Str(Cow<'a, str>),
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// A flag.
    Bool(bool),
}

impl AttrValue<'_> {
    /// The value with its text owned.
    pub fn into_owned(self) -> AttrValue<'static> {
        match self {
            AttrValue::Str(s) => AttrValue::Str(Cow::Owned(s.into_owned())),
            AttrValue::Int(i) => AttrValue::Int(i),
            AttrValue::Float(f) => AttrValue::Float(f),
            AttrValue::Bool(b) => AttrValue::Bool(b),
        }
    }
}

impl fmt::Display for AttrValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Str(s) => f.write_str(s),
            AttrValue::Int(i) => write!(f, "{i}"),
            AttrValue::Float(x) => write!(f, "{x}"),
            AttrValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl<'a> From<&'a str> for AttrValue<'a> {
    fn from(s: &'a str) -> Self {
        AttrValue::Str(Cow::Borrowed(s))
    }
}

impl From<String> for AttrValue<'_> {
    fn from(s: String) -> Self {
        AttrValue::Str(Cow::Owned(s))
    }
}

impl From<i64> for AttrValue<'_> {
    fn from(i: i64) -> Self {
        AttrValue::Int(i)
    }
}

/// One attribute of a metric point.
pub type Attr<'a> = (&'static str, AttrValue<'a>);

/// Where the SDK's metric points go. Called on the thread that did the work
/// (any thread that calls the SDK), never while the SDK holds a lock of its
/// own; keep it quick.
pub trait MetricSink: Send + Sync + 'static {
    /// One point: an increment of a counter, a measurement of a histogram,
    /// the new value of a gauge.
    fn record(&self, metric: &'static Metric, value: f64, attributes: &[Attr<'_>]);
}

static SINK: OnceLock<Box<dyn MetricSink>> = OnceLock::new();

/// [`set_metric_sink`] was called before: the first sink stays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a metric sink is already set for this process")]
pub struct SinkAlreadySet;

/// Sets the process's metric sink; metrics are recorded from then on. Once
/// per process: a second sink is refused.
pub fn set_metric_sink(sink: impl MetricSink) -> Result<(), SinkAlreadySet> {
    SINK.set(Box::new(sink)).map_err(|_| SinkAlreadySet)
}

/// Whether a metric sink is set.
pub fn metrics_enabled() -> bool {
    SINK.get().is_some()
}

/// The sink, when one is set: callers build attributes only then.
#[inline]
pub(crate) fn sink() -> Option<&'static dyn MetricSink> {
    SINK.get().map(|s| &**s)
}

/// What became of a webhook event, for [`WEBHOOK_EVENTS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventOutcome {
    /// Handed on for processing (stored in an inbox, or judged new).
    New,
    /// A repeated delivery, dropped.
    Duplicate,
    /// Older than what was applied for its entity, skipped.
    Stale,
    /// Unreadable, set aside.
    Rejected,
}

impl EventOutcome {
    /// `new`, `duplicate`, `stale`, `rejected`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventOutcome::New => "new",
            EventOutcome::Duplicate => "duplicate",
            EventOutcome::Stale => "stale",
            EventOutcome::Rejected => "rejected",
        }
    }
}

/// Counts an event's outcome in [`WEBHOOK_EVENTS`], for a receiver that
/// decides it itself. The SDK counts its own decisions: `duplicate` in
/// [`Deduplicator::first_seen`](crate::webhook::Deduplicator::first_seen),
/// `stale` in [`OrderingGuard::observe`](crate::webhook::OrderingGuard::observe),
/// `rejected` for an unreadable event in
/// [`Receiver::receive`](crate::webhook::Receiver::receive), and `new` and
/// `duplicate` in [`Inbox::receive`](crate::inbox::Inbox::receive); a
/// receiver that combines the pieces itself counts its `new` ones here.
pub fn record_event(event: &crate::webhook::Event, outcome: EventOutcome) {
    if let Some(sink) = sink() {
        hooks::event_point(sink, event, outcome, None);
    }
}
