//! Telemetry end to end: the spans a `tracing` subscriber sees and the
//! metric points a sink receives, for real calls over loopback against the
//! emulator, webhook requests and an inbox. One subscriber and one sink
//! serve the whole binary, so the tests take turns (`SERIAL`).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use iikocloud::api::models::deliveries::request::create_order::{
    DeliveryOrder, OrderItem, ProductOrderItem,
};
use iikocloud::api::models::deliveries::request::CreateOrderRequest;
use iikocloud::api::models::organizations::GetOrganizationsRequest;
use iikocloud::api::WaitOptions;
use iikocloud::inbox::Inbox;
use iikocloud::telemetry::{self, Attr, Metric, MetricSink};
use iikocloud::webhook::{Deduplicator, OrderingGuard, Receiver};
use iikocloud::{Client, Money};
use iikocloud_emulator::{
    DeliveryConfig, Emulator, EmulatorConfig, Fault, FaultKind, DEFAULT_API_KEY, DEFAULT_APP_ID,
    DEFAULT_CLIENT_SECRET, DEFAULT_ORGANIZATION_ID as ORG, DEFAULT_TERMINAL_GROUP_ID,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// A span as the subscriber saw it: its static name, fields and parent.
#[derive(Clone, Debug, Default)]
struct SeenSpan {
    name: String,
    fields: HashMap<String, String>,
    parent: Option<String>,
    events: Vec<HashMap<String, String>>,
}

impl SeenSpan {
    fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }
    fn otel_name(&self) -> &str {
        self.get("otel.name").unwrap_or(&self.name)
    }
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), format!("{value:?}"));
    }
}

/// The id the test gave a span: its `otel.name`, or its static name.
#[derive(Default)]
struct Capture {
    closed: Mutex<Vec<SeenSpan>>,
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for &'static Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let span = ctx.span(id).expect("span");
        let mut seen = SeenSpan {
            name: attrs.metadata().name().into(),
            parent: span.parent().and_then(|p| {
                p.extensions()
                    .get::<SeenSpan>()
                    .map(|s| s.otel_name().to_owned())
            }),
            ..Default::default()
        };
        attrs.record(&mut Fields(&mut seen.fields));
        span.extensions_mut().insert(seen);
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let span = ctx.span(id).expect("span");
        let mut ext = span.extensions_mut();
        if let Some(seen) = ext.get_mut::<SeenSpan>() {
            values.record(&mut Fields(&mut seen.fields));
        }
    }
    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.event_span(event) {
            let mut fields = HashMap::new();
            event.record(&mut Fields(&mut fields));
            let mut ext = span.extensions_mut();
            if let Some(seen) = ext.get_mut::<SeenSpan>() {
                seen.events.push(fields);
            }
        }
    }
    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let span = ctx.span(&id).expect("span");
        let seen = span.extensions_mut().remove::<SeenSpan>();
        if let Some(seen) = seen {
            self.closed.lock().unwrap().push(seen);
        }
    }
}

#[derive(Clone, Debug)]
struct Point {
    name: &'static str,
    value: f64,
    attrs: HashMap<&'static str, String>,
}

#[derive(Default)]
struct Points(Mutex<Vec<Point>>);

impl MetricSink for &'static Points {
    fn record(&self, metric: &'static Metric, value: f64, attributes: &[Attr<'_>]) {
        // Every attribute of a point must be one its metric declares.
        for (k, _) in attributes {
            assert!(metric.attributes.contains(k), "{} has {k}", metric.name);
        }
        self.0.lock().unwrap().push(Point {
            name: metric.name,
            value,
            attrs: attributes
                .iter()
                .map(|(k, v)| (*k, v.to_string()))
                .collect(),
        });
    }
}

struct Telemetry {
    spans: &'static Capture,
    points: &'static Points,
}

impl Telemetry {
    fn spans(&self) -> Vec<SeenSpan> {
        std::mem::take(&mut *self.spans.closed.lock().unwrap())
    }
    fn points(&self) -> Vec<Point> {
        std::mem::take(&mut *self.points.0.lock().unwrap())
    }
}

/// The subscriber and the sink, installed once; the guard keeps other tests
/// out until this one has read what it caused.
fn telemetry() -> (MutexGuard<'static, ()>, &'static Telemetry) {
    static SERIAL: Mutex<()> = Mutex::new(());
    static ONCE: OnceLock<Telemetry> = OnceLock::new();
    let guard = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let t = ONCE.get_or_init(|| {
        let spans: &'static Capture = Box::leak(Box::default());
        let points: &'static Points = Box::leak(Box::default());
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(spans))
            .expect("the first subscriber");
        telemetry::set_metric_sink(points).expect("the first sink");
        Telemetry { spans, points }
    });
    t.spans();
    t.points();
    (guard, t)
}

fn client(emu: &Emulator) -> Client {
    Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .retry_base_delay(Duration::from_millis(1))
        .build()
        .expect("client")
}

fn sum(points: &[Point], name: &str, attrs: &[(&str, &str)]) -> f64 {
    points
        .iter()
        .filter(|p| p.name == name)
        .filter(|p| {
            attrs
                .iter()
                .all(|(k, v)| p.attrs.get(k).map(String::as_str) == Some(*v))
        })
        .map(|p| p.value)
        .sum()
}

fn count(points: &[Point], name: &str, attrs: &[(&str, &str)]) -> usize {
    points
        .iter()
        .filter(|p| p.name == name)
        .filter(|p| {
            attrs
                .iter()
                .all(|(k, v)| p.attrs.get(k).map(String::as_str) == Some(*v))
        })
        .count()
}

/// No span field, event field or metric attribute holds a secret.
fn assert_no_secret(spans: &[SeenSpan], points: &[Point], secrets: &[&str]) {
    let mut texts: Vec<&str> = Vec::new();
    for s in spans {
        texts.extend(s.fields.values().map(String::as_str));
        for e in &s.events {
            texts.extend(e.values().map(String::as_str));
        }
    }
    for p in points {
        texts.extend(p.attrs.values().map(String::as_str));
    }
    assert!(!texts.is_empty());
    for secret in secrets {
        for t in &texts {
            assert!(!t.contains(secret), "a secret in telemetry: {t}");
        }
    }
}

#[test]
fn a_call_is_a_client_span_child_of_the_callers_span_with_the_conventions_attributes() {
    let (_serial, t) = telemetry();
    let emu = Emulator::start(EmulatorConfig::default()).expect("emulator");
    let client = client(&emu);
    let port = emu.url().rsplit(':').next().unwrap().to_owned();
    {
        let caller = tracing::info_span!("caller's request");
        let _in = caller.enter();
        client
            .organizations(&GetOrganizationsRequest::default())
            .expect("organizations");
    }
    let spans = t.spans();
    let points = t.points();
    let call = spans
        .iter()
        .find(|s| s.otel_name() == "organizations")
        .unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!(call.parent.as_deref(), Some("caller's request"));
    assert_eq!(call.get("otel.kind"), Some("client"));
    assert_eq!(call.get("http.request.method"), Some("POST"));
    assert_eq!(call.get("server.address"), Some("127.0.0.1"));
    assert_eq!(call.get("server.port"), Some(port.as_str()));
    assert_eq!(
        call.get("url.full"),
        Some(format!("{}/api/1/organizations", emu.url()).as_str())
    );
    assert_eq!(call.get("http.response.status_code"), Some("200"));
    assert_eq!(call.get("iiko.operation"), Some("organizations"));
    assert_eq!(call.get("error.type"), None);
    assert_eq!(call.get("http.request.resend_count"), None);
    // The first call fetched the token: its own client span, a child of
    // the call that needed it, with no organization.
    let token = spans
        .iter()
        .find(|s| {
            s.get("url.full")
                .is_some_and(|u| u.ends_with("access_token"))
        })
        .unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!(token.parent.as_deref(), Some("organizations"));
    assert_eq!(token.get("otel.kind"), Some("client"));
    assert_eq!(token.get("iiko.organization_id"), None);

    let duration = points
        .iter()
        .find(|p| {
            p.name == "http.client.request.duration"
                && p.attrs.get("iiko.operation").map(String::as_str) == Some("organizations")
        })
        .unwrap_or_else(|| panic!("{points:#?}"));
    assert_eq!(duration.attrs["http.response.status_code"], "200");
    assert_eq!(duration.attrs["server.port"], port);
    assert!(duration.value > 0.0 && duration.value < 10.0);
    assert_eq!(sum(&points, "iiko.client.token.fetches", &[]), 1.0);
    let token = client.access_token().expect("token");
    assert_no_secret(
        &spans,
        &points,
        &[DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY, token.expose()],
    );
}

#[test]
fn a_401_shows_the_new_token_span_and_the_resend_and_a_5xx_retry_is_counted() {
    let (_serial, t) = telemetry();
    let emu = Emulator::start(EmulatorConfig::default()).expect("emulator");
    let client = client(&emu);
    let old = client.access_token().expect("token");
    t.spans();
    t.points();
    emu.expire_tokens();
    client
        .organizations(&GetOrganizationsRequest::default())
        .expect("retried with a new token");
    emu.inject(Fault::new(
        "/api/1/organizations",
        FaultKind::Status(503),
        1,
    ));
    client
        .organizations(&GetOrganizationsRequest::default())
        .expect("retried after the 503");
    let spans = t.spans();
    let points = t.points();
    let calls: Vec<&SeenSpan> = spans
        .iter()
        .filter(|s| s.otel_name() == "organizations")
        .collect();
    assert_eq!(calls.len(), 2, "{spans:#?}");
    for call in &calls {
        assert_eq!(
            call.get("http.request.resend_count"),
            Some("1"),
            "{call:#?}"
        );
        assert_eq!(call.get("http.response.status_code"), Some("200"));
        assert!(call
            .events
            .iter()
            .any(|e| e.contains_key("iiko.retry.cause")));
    }
    let token_spans: Vec<&SeenSpan> = spans
        .iter()
        .filter(|s| {
            s.get("url.full")
                .is_some_and(|u| u.ends_with("access_token"))
        })
        .collect();
    assert_eq!(token_spans.len(), 1, "{spans:#?}");
    assert_eq!(token_spans[0].parent.as_deref(), Some("organizations"));
    let retries = |cause| {
        sum(
            &points,
            "iiko.client.retries",
            &[
                ("iiko.retry.cause", cause),
                ("iiko.operation", "organizations"),
            ],
        )
    };
    assert_eq!(retries("token_refused"), 1.0);
    assert_eq!(retries("http_5xx"), 1.0);
    assert_eq!(sum(&points, "iiko.client.token.fetches", &[]), 1.0);
    let new = client.access_token().expect("token");
    assert_no_secret(
        &spans,
        &points,
        &[DEFAULT_CLIENT_SECRET, old.expose(), new.expose()],
    );
}

#[test]
fn a_429_is_counted_with_its_retry_after_and_a_failure_carries_error_type() {
    let (_serial, t) = telemetry();
    let emu = Emulator::start(EmulatorConfig::default()).expect("emulator");
    let client = client(&emu);
    client.access_token().expect("token");
    t.spans();
    t.points();
    emu.inject(Fault::new(
        "/api/1/organizations",
        FaultKind::RateLimited {
            retry_after_secs: 7,
        },
        1,
    ));
    let err = client
        .organizations(&GetOrganizationsRequest::default())
        .unwrap_err();
    assert_eq!(err.http_status(), Some(429));
    let spans = t.spans();
    let points = t.points();
    let call = spans
        .iter()
        .find(|s| s.otel_name() == "organizations")
        .expect("span");
    assert_eq!(call.get("error.type"), Some("429"));
    assert_eq!(call.get("otel.status_code"), Some("ERROR"));
    assert_eq!(call.get("http.response.status_code"), Some("429"));
    assert_eq!(
        call.get("iiko.correlation_id"),
        err.correlation_id(),
        "the service's correlationId, also on errors"
    );
    assert!(err.correlation_id().is_some());
    assert_eq!(sum(&points, "iiko.client.rate_limited", &[]), 1.0);
    assert_eq!(sum(&points, "iiko.client.retry_after", &[]), 7.0);
    assert_eq!(
        count(
            &points,
            "http.client.request.duration",
            &[("error.type", "429")]
        ),
        1
    );
}

fn order(id: &str, product: &str) -> CreateOrderRequest {
    CreateOrderRequest {
        organization_id: Some(ORG.into()),
        terminal_group_id: Some(DEFAULT_TERMINAL_GROUP_ID.into()),
        order: Some(DeliveryOrder {
            id: Some(id.into()),
            phone: Some("+79160000000".into()),
            items: Some(vec![OrderItem::Product(ProductOrderItem {
                product_id: Some(product.into()),
                amount: Some(Money::from(1)),
                price: Some(Money::from(590)),
                ..Default::default()
            })]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn a_failed_command_ends_its_wait_span_with_the_reason() {
    let (_serial, t) = telemetry();
    let emu = Emulator::start(EmulatorConfig::default().delivery(DeliveryConfig::fast()))
        .expect("emulator");
    let client = client(&emu);
    let created = client
        .api()
        .deliveries()
        .create(&order(
            "3a9f2d71-4c5e-4f60-b182-9dae0f1a2b3c",
            "ffffffff-0000-4000-8000-000000000001",
        ))
        .expect("accepted");
    let correlation = created.correlation_id.expect("correlationId");
    client
        .wait_command(ORG, &correlation, &WaitOptions::default())
        .unwrap_err();
    let spans = t.spans();
    let points = t.points();
    let create = spans
        .iter()
        .find(|s| s.otel_name() == "deliveries.create")
        .unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!(create.get("iiko.organization_id"), Some(ORG));
    assert_eq!(
        create.get("iiko.correlation_id"),
        Some(correlation.as_str())
    );
    let wait = spans
        .iter()
        .find(|s| s.otel_name() == "wait_command")
        .expect("wait span");
    assert_eq!(wait.get("iiko.command.outcome"), Some("Error"));
    assert_eq!(wait.get("iiko.command.reason"), Some("ProductNotFound"));
    assert_eq!(wait.get("iiko.correlation_id"), Some(correlation.as_str()));
    assert_eq!(wait.get("error.type"), Some("Error"));
    let polls: usize = wait.get("iiko.command.polls").unwrap().parse().unwrap();
    let status_spans = spans
        .iter()
        .filter(|s| s.otel_name() == "commands.status")
        .inspect(|s| assert_eq!(s.parent.as_deref(), Some("wait_command")))
        .count();
    assert!(
        polls >= 1 && polls == status_spans,
        "{polls} {status_spans}"
    );
    assert_eq!(
        count(
            &points,
            "iiko.client.command.wait.duration",
            &[("iiko.command.outcome", "Error")]
        ),
        1
    );
}

fn delivery_event(order_id: &str, timestamp: i64, correlation: &str) -> String {
    format!(
        r#"{{"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877","organizationId":"{ORG}","correlationId":"{correlation}","eventInfo":{{"id":"{order_id}","timestamp":{timestamp},"creationStatus":"Success","order":{{"status":"Unconfirmed"}}}}}}"#
    )
}

#[test]
fn webhook_requests_and_events_are_counted_by_status_type_and_outcome() {
    let (_serial, t) = telemetry();
    let token = "webhook-secret-token-5d1";
    let receiver = Receiver::new(token);
    let dedup = Deduplicator::new(100, Duration::from_secs(60));
    let guard = OrderingGuard::new(100);
    let newer = delivery_event("6b1c", 2_000, "c0ffee00-0000-4000-8000-000000000001");
    let older = delivery_event("6b1c", 1_000, "c0ffee00-0000-4000-8000-000000000002");
    let bad = r#"{"eventType":"DeliveryOrderUpdate","eventInfo":"not an object"}"#;

    let refused = receiver.receive([("Authorization", "wrong")], b"[]");
    assert!(refused.is_err());
    for body in [
        format!("[{newer}]"),
        format!("[{newer}]"),
        format!("[{older},{bad}]"),
    ] {
        let parsed = receiver
            .receive([("Authorization", token)], body.as_bytes())
            .expect("events");
        for event in &parsed {
            if event.problem().is_none()
                && dedup.first_seen(event)
                && !matches!(
                    guard.observe(event),
                    iikocloud::webhook::OrderingDecision::Stale { .. }
                )
            {
                telemetry::record_event(event, telemetry::EventOutcome::New);
            }
        }
    }
    let spans = t.spans();
    let points = t.points();
    let requests = |status, rejection: Option<&str>| {
        points
            .iter()
            .filter(|p| p.name == "iiko.webhook.requests")
            .filter(|p| p.attrs["http.response.status_code"] == status)
            .filter(|p| p.attrs.get("iiko.webhook.rejection").map(String::as_str) == rejection)
            .count()
    };
    assert_eq!(requests("401", Some("unauthorized:mismatch")), 1);
    assert_eq!(requests("200", None), 3);
    let events = |outcome| {
        sum(
            &points,
            "iiko.webhook.events",
            &[
                ("iiko.event.type", "DeliveryOrderUpdate"),
                ("iiko.event.outcome", outcome),
            ],
        )
    };
    assert_eq!(events("new"), 1.0);
    assert_eq!(events("duplicate"), 1.0);
    assert_eq!(events("stale"), 1.0);
    assert_eq!(events("rejected"), 1.0);
    // eventTime is in 2025: the lag is long and positive.
    let lags: Vec<f64> = points
        .iter()
        .filter(|p| p.name == "iiko.webhook.event.lag")
        .map(|p| p.value)
        .collect();
    assert_eq!(lags.len(), 3, "the unreadable event has no eventTime");
    assert!(lags.iter().all(|l| *l > 3600.0), "{lags:?}");

    let receives: Vec<&SeenSpan> = spans
        .iter()
        .filter(|s| s.otel_name() == "webhook.receive")
        .collect();
    assert_eq!(receives.len(), 4);
    assert_eq!(receives[0].get("http.response.status_code"), Some("401"));
    // One event: its correlationId is on the span, to find the calls of
    // the order it belongs to.
    assert_eq!(
        receives[1].get("iiko.correlation_id"),
        Some("c0ffee00-0000-4000-8000-000000000001")
    );
    assert_eq!(receives[3].get("iiko.webhook.events"), Some("2"));
    assert_eq!(receives[3].events.len(), 2);
    assert_no_secret(&spans, &points, &[token]);
}

#[test]
fn an_inbox_counts_new_and_repeated_events_its_depth_age_and_redeliveries() {
    let (_serial, t) = telemetry();
    let dir = std::env::temp_dir().join(format!("iiko-telemetry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("inbox.db");
    let _ = std::fs::remove_file(&path);
    let inbox = Inbox::open(&format!("sqlite://{}", path.display())).expect("inbox");
    let receiver = Receiver::new("inbox-token");
    let body = format!(
        "[{}]",
        delivery_event("7c2d", 5, "c0ffee00-0000-4000-8000-000000000003")
    );
    for _ in 0..2 {
        let r = inbox.receive(
            &receiver,
            None,
            [("Authorization", "inbox-token")],
            body.as_bytes(),
        );
        assert_eq!(r.status, 200);
    }
    std::thread::sleep(Duration::from_millis(20));
    inbox.record_gauges().expect("gauges");
    let first = inbox.take().expect("take").expect("an event");
    inbox.release(&first, "handler failed").expect("release");
    let second = inbox.take().expect("take").expect("again");
    assert_eq!(second.attempt(), 2);
    inbox.ack(&second).expect("ack");
    inbox.record_gauges().expect("gauges");
    let points = t.points();
    let spans = t.spans();
    let events = |outcome| {
        sum(
            &points,
            "iiko.webhook.events",
            &[("iiko.event.outcome", outcome)],
        )
    };
    assert_eq!(events("new"), 1.0);
    assert_eq!(events("duplicate"), 1.0);
    assert_eq!(
        count(
            &points,
            "iiko.webhook.requests",
            &[("http.response.status_code", "200")]
        ),
        2
    );
    let gauge = |name| -> Vec<f64> {
        points
            .iter()
            .filter(|p| p.name == name)
            .map(|p| p.value)
            .collect()
    };
    assert_eq!(gauge("iiko.inbox.depth"), [1.0, 0.0]);
    let ages = gauge("iiko.inbox.oldest_age");
    assert!(ages[0] >= 0.02 && ages[1] == 0.0, "{ages:?}");
    assert_eq!(gauge("iiko.inbox.dead_letters"), [0.0, 0.0]);
    assert_eq!(sum(&points, "iiko.inbox.redeliveries", &[]), 1.0);
    assert_eq!(
        spans
            .iter()
            .filter(|s| s.otel_name() == "webhook.receive")
            .count(),
        2
    );
    assert_no_secret(&spans, &points, &["inbox-token"]);
    let _ = std::fs::remove_dir_all(&dir);
}
