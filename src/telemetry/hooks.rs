//! Where the core's work meets the telemetry: one place per fact, so each
//! name and attribute is decided once. Every hook first asks whether anyone
//! listens (the span's interest, the sink) and builds nothing otherwise.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tracing::field::Empty;
use tracing::Span;

use super::attr::*;
use super::{sink, Attr, AttrValue, EventOutcome, MetricSink};
use super::{
    HTTP_CLIENT_REQUEST_DURATION, INBOX_DEAD_LETTERS, INBOX_DEPTH, INBOX_OLDEST_AGE,
    INBOX_REDELIVERIES, RATE_LIMITED, RETRIES, RETRY_AFTER, TOKEN_FETCHES, WEBHOOK_EVENTS,
    WEBHOOK_EVENT_LAG, WEBHOOK_REQUESTS,
};
use crate::error::{Error, TransportErrorKind};
use crate::webhook::{Event, ParsedBody, ReceiveError};

/// The host and port of a base URL (`https://host[:port][/...]`).
pub(crate) fn host_port(base_url: &str) -> (&str, u16) {
    let (scheme, rest) = base_url.split_once("://").unwrap_or(("https", base_url));
    let authority = rest.split('/').next().unwrap_or(rest);
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let default = if scheme.eq_ignore_ascii_case("http") {
        80
    } else {
        443
    };
    // [v6]:port, host:port, or a host alone.
    if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']').unwrap_or((v6, ""));
        let port = after.strip_prefix(':').and_then(|p| p.parse().ok());
        return (host, port.unwrap_or(default));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host, port.parse().unwrap_or(default)),
        None => (authority, default),
    }
}

/// The operation a path belongs to (`/api/1/deliveries/create` is
/// `deliveries.create`); built on first use, by a span that records.
fn operation_of(path: &str) -> Option<&'static str> {
    #[cfg(feature = "operations")]
    {
        static BY_PATH: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
        BY_PATH
            .get_or_init(|| {
                let mut map = HashMap::new();
                for op in crate::api::OPERATIONS.iter().filter(|o| o.method == "POST") {
                    map.entry(op.path).or_insert(op.name);
                }
                map
            })
            .get(path)
            .copied()
    }
    #[cfg(not(feature = "operations"))]
    {
        let _ = (path, OnceLock::<HashMap<(), ()>>::new());
        None
    }
}

/// The organization a request is about, when it names exactly one
/// (`organizationId`, or `organizationIds` of one element).
fn organization_of(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Orgs {
        organization_id: Option<String>,
        organization_ids: Option<Vec<String>>,
    }
    let orgs: Orgs = serde_json::from_slice(body).ok()?;
    match (orgs.organization_id, orgs.organization_ids) {
        (Some(id), None) => Some(id),
        (None, Some(mut ids)) if ids.len() == 1 => ids.pop(),
        _ => None,
    }
}

/// A stable, low-cardinality name for an error: the HTTP status of an
/// answer, the transport failure's kind, or the class of error.
pub(crate) fn error_type(e: &Error) -> Cow<'static, str> {
    match e {
        Error::Api(api) => Cow::Owned(api.status.to_string()),
        Error::Transport { kind, .. } => Cow::Borrowed(transport_name(*kind)),
        Error::Decode { .. } => Cow::Borrowed("decode"),
        Error::Command(c) => Cow::Borrowed(match c.kind {
            crate::error::CommandErrorKind::Failed => "Error",
            crate::error::CommandErrorKind::TimedOut => "TimedOut",
            crate::error::CommandErrorKind::Expired => "Expired",
        }),
        Error::InvalidInput(_) => Cow::Borrowed("invalid_input"),
        Error::Config(_) => Cow::Borrowed("config"),
    }
}

fn transport_name(kind: TransportErrorKind) -> &'static str {
    match kind {
        TransportErrorKind::Dns => "dns",
        TransportErrorKind::Connect => "connect",
        TransportErrorKind::Tls => "tls",
        TransportErrorKind::Proxy => "proxy",
        TransportErrorKind::Timeout => "timeout",
        TransportErrorKind::Io => "io",
        _ => "transport",
    }
}

/// Why a call is sent again, for [`RETRIES`].
pub(crate) enum RetryCause<'a> {
    /// A 5xx answer.
    Server,
    /// A 401: the token was dropped and a new one fetched.
    TokenRefused,
    /// A transport failure.
    Transport(&'a Error),
}

impl RetryCause<'_> {
    fn name(&self) -> &'static str {
        match self {
            RetryCause::Server => "http_5xx",
            RetryCause::TokenRefused => "token_refused",
            RetryCause::Transport(Error::Transport { kind, .. }) => match kind {
                TransportErrorKind::Dns => "transport_dns",
                TransportErrorKind::Connect => "transport_connect",
                TransportErrorKind::Tls => "transport_tls",
                TransportErrorKind::Proxy => "transport_proxy",
                TransportErrorKind::Timeout => "transport_timeout",
                TransportErrorKind::Io => "transport_io",
                _ => "transport_other",
            },
            RetryCause::Transport(_) => "transport_other",
        }
    }
}

/// One call to the service as telemetry sees it: its span, when it started
/// (only while metrics are recorded), and what happened on the way.
pub(crate) struct CallTrace {
    span: Span,
    started: Option<Instant>,
    operation: Option<&'static str>,
    token_request: bool,
    resends: u32,
    status: Option<u16>,
}

impl CallTrace {
    /// Opens the call's span (a child of the caller's current one). The
    /// body is read for its organization only by a span that records, and
    /// never for a token request.
    pub(crate) fn start(base_url: &str, path: &str, body: &[u8], token_request: bool) -> Self {
        let span = tracing::info_span!(
            target: "iikocloud",
            "iikocloud.call",
            otel.name = Empty,
            otel.kind = "client",
            otel.status_code = Empty,
            http.request.method = "POST",
            server.address = Empty,
            server.port = Empty,
            url.full = Empty,
            http.response.status_code = Empty,
            error.type = Empty,
            http.request.resend_count = Empty,
            iiko.operation = Empty,
            iiko.correlation_id = Empty,
            iiko.organization_id = Empty,
        );
        let metrics = sink().is_some();
        let recording = !span.is_disabled();
        let operation = if recording || metrics {
            operation_of(path)
        } else {
            None
        };
        if recording {
            let (host, port) = host_port(base_url);
            match operation {
                Some(op) => span.record("otel.name", op),
                None => span.record("otel.name", format!("POST {path}").as_str()),
            };
            span.record(SERVER_ADDRESS, host);
            span.record(SERVER_PORT, i64::from(port));
            span.record(URL_FULL, format!("{base_url}{path}").as_str());
            if let Some(op) = operation {
                span.record(IIKO_OPERATION, op);
            }
            if !token_request {
                if let Some(org) = organization_of(body) {
                    span.record(IIKO_ORGANIZATION_ID, org.as_str());
                }
            }
        }
        CallTrace {
            span,
            started: metrics.then(Instant::now),
            operation,
            token_request,
            resends: 0,
            status: None,
        }
    }

    /// The span, to run the call in.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// An answer arrived with this status.
    pub(crate) fn answered(&mut self, status: u16) {
        self.status = Some(status);
    }

    /// The call is sent again.
    pub(crate) fn resend(&mut self, cause: RetryCause<'_>) {
        self.resends += 1;
        if let Some(sink) = sink() {
            let mut attrs: Vec<Attr<'_>> = vec![(IIKO_RETRY_CAUSE, cause.name().into())];
            if let Some(op) = self.operation {
                attrs.push((IIKO_OPERATION, op.into()));
            }
            sink.record(&RETRIES, 1.0, &attrs);
        }
        if !self.span.is_disabled() {
            // Runs inside the call's span (transport's execute).
            tracing::event!(
                target: "iikocloud",
                tracing::Level::DEBUG,
                { iiko.retry.cause = cause.name(), http.request.resend_count = self.resends },
                "resend"
            );
        }
    }

    /// The call ended: `correlation_id` is asked only by a span that
    /// records (it may read the answer's body).
    pub(crate) fn finish(
        self,
        error: Option<&Error>,
        correlation_id: impl FnOnce() -> Option<String>,
        base_url: &str,
    ) {
        let error_type = error.map(error_type);
        if !self.span.is_disabled() {
            let span = &self.span;
            if let Some(status) = self.status {
                span.record(HTTP_RESPONSE_STATUS_CODE, i64::from(status));
            }
            if self.resends > 0 {
                span.record(HTTP_REQUEST_RESEND_COUNT, i64::from(self.resends));
            }
            if let Some(t) = &error_type {
                span.record(ERROR_TYPE, t.as_ref());
                span.record("otel.status_code", "ERROR");
            }
            let correlation = match error {
                Some(e) => e.correlation_id().map(str::to_owned),
                None => correlation_id(),
            };
            if let Some(c) = correlation {
                span.record(IIKO_CORRELATION_ID, c.as_str());
            }
        }
        let Some(sink) = sink() else { return };
        let (host, port) = host_port(base_url);
        let mut attrs: Vec<Attr<'_>> = vec![
            (HTTP_REQUEST_METHOD, "POST".into()),
            (SERVER_ADDRESS, host.into()),
            (SERVER_PORT, i64::from(port).into()),
        ];
        if let Some(status) = self.status {
            attrs.push((HTTP_RESPONSE_STATUS_CODE, i64::from(status).into()));
        }
        if let Some(t) = &error_type {
            attrs.push((ERROR_TYPE, AttrValue::Str(t.clone())));
        }
        if let Some(op) = self.operation {
            attrs.push((IIKO_OPERATION, op.into()));
        }
        let seconds = self.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
        sink.record(&HTTP_CLIENT_REQUEST_DURATION, seconds, &attrs);
        if self.token_request {
            let mut attrs: Vec<Attr<'_>> = vec![(SERVER_ADDRESS, host.into())];
            if let Some(t) = &error_type {
                attrs.push((ERROR_TYPE, AttrValue::Str(t.clone())));
            }
            sink.record(&TOKEN_FETCHES, 1.0, &attrs);
        }
        if let Some(Error::Api(api)) = error.filter(|e| e.http_status() == Some(429)) {
            let attrs: Vec<Attr<'_>> = self
                .operation
                .map(|op| (IIKO_OPERATION, op.into()))
                .into_iter()
                .collect();
            sink.record(&RATE_LIMITED, 1.0, &attrs);
            if let Some(after) = api.retry_after {
                sink.record(&RETRY_AFTER, after.as_secs_f64(), &attrs);
            }
        }
    }
}

/// A wait for a command's outcome.
#[cfg(feature = "operations")]
pub(crate) struct WaitTrace {
    span: Span,
    started: Instant,
    polls: u32,
}

#[cfg(feature = "operations")]
impl WaitTrace {
    pub(crate) fn start(organization_id: &str, correlation_id: &str) -> Self {
        let span = tracing::info_span!(
            target: "iikocloud",
            "wait_command",
            otel.name = super::SPAN_WAIT,
            otel.kind = "internal",
            otel.status_code = Empty,
            iiko.correlation_id = correlation_id,
            iiko.organization_id = organization_id,
            iiko.command.outcome = Empty,
            iiko.command.reason = Empty,
            iiko.command.polls = Empty,
            error.type = Empty,
        );
        WaitTrace {
            span,
            started: Instant::now(),
            polls: 0,
        }
    }

    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    pub(crate) fn polled(&mut self) {
        self.polls += 1;
    }

    /// The wait ended with `outcome` (`Success`, `Error`, `TimedOut`,
    /// `Expired`, or `Failed` when a poll failed) and the service's reason.
    pub(crate) fn finish(self, outcome: &'static str, reason: Option<&str>, error: Option<&Error>) {
        if !self.span.is_disabled() {
            let span = &self.span;
            span.record(IIKO_COMMAND_OUTCOME, outcome);
            span.record(IIKO_COMMAND_POLLS, i64::from(self.polls));
            if let Some(r) = reason {
                span.record(IIKO_COMMAND_REASON, r);
            }
            if outcome != "Success" {
                let t = error.map_or(Cow::Borrowed(outcome), error_type);
                span.record(ERROR_TYPE, t.as_ref());
                span.record("otel.status_code", "ERROR");
            }
        }
        if let Some(sink) = sink() {
            sink.record(
                &super::COMMAND_WAIT_DURATION,
                self.started.elapsed().as_secs_f64(),
                &[(IIKO_COMMAND_OUTCOME, outcome.into())],
            );
        }
    }
}

/// The span of one webhook request; [`webhook_done`] closes its account.
pub(crate) fn webhook_span() -> Span {
    tracing::info_span!(
        target: "iikocloud",
        "webhook.receive",
        otel.name = super::SPAN_WEBHOOK,
        otel.kind = "server",
        otel.status_code = Empty,
        http.response.status_code = Empty,
        iiko.webhook.events = Empty,
        iiko.webhook.rejection = Empty,
        iiko.correlation_id = Empty,
    )
}

/// The account of one webhook request: the answer, why it was refused, and
/// each event (its lag, and `rejected` for an unreadable one unless the
/// caller keeps it, as the inbox does).
pub(crate) fn webhook_done(
    span: &Span,
    result: Result<&ParsedBody, &ReceiveError>,
    status: u16,
    rejection: Option<&str>,
    unreadable_rejected: bool,
) {
    let refused = result.err().map(ReceiveError::name);
    let rejection = rejection.or(refused.as_deref());
    let recording = !span.is_disabled();
    if recording {
        span.record(HTTP_RESPONSE_STATUS_CODE, i64::from(status));
        if let Some(r) = rejection {
            span.record(IIKO_WEBHOOK_REJECTION, r);
        }
        if status >= 500 {
            span.record("otel.status_code", "ERROR");
        }
    }
    let metrics = sink();
    if let Ok(events) = result {
        if recording {
            span.record(IIKO_WEBHOOK_EVENTS, events.len() as i64);
            if let [only] = events.events.as_slice() {
                if let Some(c) = only.correlation_id() {
                    span.record(IIKO_CORRELATION_ID, c);
                }
            }
            span.in_scope(|| {
                for e in &events.events {
                    tracing::event!(
                        target: "iikocloud",
                        tracing::Level::INFO,
                        {
                            iiko.event.type = event_type(e),
                            iiko.correlation_id = e.correlation_id(),
                            iiko.organization_id = e.organization_id(),
                        },
                        "webhook event"
                    );
                }
            });
        }
        if let Some(sink) = metrics {
            let now = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now());
            for e in &events.events {
                if let Some(at) = e.event_time().and_then(|t| t.utc) {
                    let lag = (now - at).to_std().unwrap_or(Duration::ZERO);
                    sink.record(
                        &WEBHOOK_EVENT_LAG,
                        lag.as_secs_f64(),
                        &[(IIKO_EVENT_TYPE, event_type(e).into())],
                    );
                }
                if unreadable_rejected && e.problem().is_some() {
                    event_point(sink, e, EventOutcome::Rejected, Some("unreadable_event"));
                }
            }
        }
    }
    if let Some(sink) = metrics {
        let mut attrs: Vec<Attr<'_>> = vec![(HTTP_RESPONSE_STATUS_CODE, i64::from(status).into())];
        if let Some(r) = rejection {
            attrs.push((IIKO_WEBHOOK_REJECTION, r.into()));
        }
        sink.record(&WEBHOOK_REQUESTS, 1.0, &attrs);
    }
}

/// The `eventType` to label an event with (an absent one is `(none)`).
pub(crate) fn event_type(e: &Event) -> &str {
    e.event_type().unwrap_or("(none)")
}

pub(crate) fn event_point(
    sink: &dyn MetricSink,
    event: &Event,
    outcome: EventOutcome,
    rejection: Option<&str>,
) {
    event_type_point(sink, event_type(event), outcome, 1, rejection);
}

pub(crate) fn event_type_point(
    sink: &dyn MetricSink,
    event_type: &str,
    outcome: EventOutcome,
    count: usize,
    rejection: Option<&str>,
) {
    if count == 0 {
        return;
    }
    let mut attrs: Vec<Attr<'_>> = vec![
        (IIKO_EVENT_TYPE, event_type.into()),
        (IIKO_EVENT_OUTCOME, outcome.as_str().into()),
    ];
    if let Some(r) = rejection {
        attrs.push((IIKO_WEBHOOK_REJECTION, r.into()));
    }
    sink.record(&WEBHOOK_EVENTS, count as f64, &attrs);
}

/// Counts an event judged by the de-duplicator or the ordering guard.
pub(crate) fn judged(event: &Event, outcome: EventOutcome) {
    if let Some(sink) = sink() {
        event_point(sink, event, outcome, None);
    }
}

/// A delivery handed out again by an inbox.
pub(crate) fn redelivered() {
    if let Some(sink) = sink() {
        sink.record(&INBOX_REDELIVERIES, 1.0, &[]);
    }
}

/// An inbox's gauges: depth, oldest unacknowledged age, dead letters.
pub(crate) fn inbox_gauges(depth: u64, oldest_age: Duration, dead: u64) {
    if let Some(sink) = sink() {
        sink.record(&INBOX_DEPTH, depth as f64, &[]);
        sink.record(&INBOX_OLDEST_AGE, oldest_age.as_secs_f64(), &[]);
        sink.record(&INBOX_DEAD_LETTERS, dead as f64, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_port_of_base_urls() {
        assert_eq!(
            host_port("https://api-ru.iiko.services"),
            ("api-ru.iiko.services", 443)
        );
        assert_eq!(host_port("http://127.0.0.1:8080"), ("127.0.0.1", 8080));
        assert_eq!(host_port("http://[::1]:9/x"), ("::1", 9));
        assert_eq!(host_port("http://u:p@h/x"), ("h", 80));
    }

    #[test]
    fn one_organization_only() {
        assert_eq!(
            organization_of(br#"{"organizationId":"a","x":1}"#).as_deref(),
            Some("a")
        );
        assert_eq!(
            organization_of(br#"{"organizationIds":["b"]}"#).as_deref(),
            Some("b")
        );
        assert_eq!(organization_of(br#"{"organizationIds":["a","b"]}"#), None);
        assert_eq!(organization_of(b"not json"), None);
    }
}
