//! The SDK's telemetry in the OpenTelemetry SDK itself: spans through
//! `tracing-opentelemetry` and metrics through `telemetry::otel::record_to`,
//! both read back from the SDK's in-memory exporters after real calls
//! against the emulator.
//!
//! Needs the `otel-metrics` feature (scripts/test.sh runs it with it). The
//! gate is this attribute, not a `[[test]]` entry with `required-features`:
//! such an entry names this file, which the Python sdist leaves out, and
//! pip's build of the sdist would then fail to read the manifest.
#![cfg(feature = "otel-metrics")]

use std::time::Duration;

use iikocloud::api::models::organizations::GetOrganizationsRequest;
use iikocloud::Client;
use iikocloud_emulator::{
    Emulator, EmulatorConfig, Fault, FaultKind, DEFAULT_API_KEY, DEFAULT_APP_ID,
    DEFAULT_CLIENT_SECRET,
};
use opentelemetry::metrics::MeterProvider;
use opentelemetry::trace::{SpanKind, Status, TracerProvider};
use opentelemetry::Value;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tracing_subscriber::layer::SubscriberExt;

#[test]
fn spans_and_metrics_reach_the_opentelemetry_sdk() {
    let spans = InMemorySpanExporter::default();
    let tracer_provider = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(tracer_provider.tracer("test")));
    tracing::subscriber::set_global_default(subscriber).expect("the first subscriber");
    let metrics = InMemoryMetricExporter::default();
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
    iikocloud::telemetry::otel::record_to(&meter_provider.meter("iikocloud")).expect("sink");

    let emu = Emulator::start(EmulatorConfig::default()).expect("emulator");
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .retry_base_delay(Duration::from_millis(1))
        .build()
        .expect("client");
    emu.inject(Fault::new(
        "/api/1/organizations",
        FaultKind::Status(502),
        1,
    ));
    client
        .organizations(&GetOrganizationsRequest::default())
        .expect("retried");
    emu.inject(Fault::new(
        "/api/1/organizations",
        FaultKind::Status(400),
        1,
    ));
    client
        .organizations(&GetOrganizationsRequest::default())
        .unwrap_err();

    tracer_provider.force_flush().expect("flush spans");
    let finished = spans.get_finished_spans().expect("spans");
    let calls: Vec<_> = finished
        .iter()
        .filter(|s| s.name == "organizations")
        .collect();
    assert_eq!(calls.len(), 2, "{finished:#?}");
    let attr = |span: &opentelemetry_sdk::trace::SpanData, key: &str| {
        span.attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.clone())
    };
    for call in &calls {
        assert_eq!(call.span_kind, SpanKind::Client);
        assert_eq!(attr(call, "http.request.method"), Some(Value::from("POST")));
    }
    assert_eq!(
        attr(calls[0], "http.request.resend_count"),
        Some(Value::I64(1))
    );
    assert_eq!(
        attr(calls[0], "http.response.status_code"),
        Some(Value::I64(200))
    );
    assert_eq!(calls[0].status, Status::Unset);
    assert_eq!(attr(calls[1], "error.type"), Some(Value::from("400")));
    assert!(
        matches!(calls[1].status, Status::Error { .. }),
        "{:?}",
        calls[1].status
    );
    let token = finished
        .iter()
        .find(|s| s.name == "access_token")
        .expect("token span");
    assert_eq!(token.parent_span_id, calls[0].span_context.span_id());

    meter_provider.force_flush().expect("flush metrics");
    let exported = metrics.get_finished_metrics().expect("metrics");
    let metric = |name: &str| {
        exported
            .iter()
            .flat_map(|rm| rm.scope_metrics())
            .flat_map(|sm| sm.metrics())
            .find(|m| m.name() == name)
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    let duration = metric("http.client.request.duration");
    assert_eq!(duration.unit(), "s");
    let AggregatedMetrics::F64(MetricData::Histogram(h)) = duration.data() else {
        panic!("not a histogram: {duration:?}");
    };
    // The two organizations calls and the token request, by status.
    let total: u64 = h.data_points().map(|p| p.count()).sum();
    assert_eq!(total, 3);
    assert!(h.data_points().any(|p| p
        .attributes()
        .any(|kv| kv.key.as_str() == "error.type" && kv.value == Value::from("400"))));
    let retries = metric("iiko.client.retries");
    let AggregatedMetrics::F64(MetricData::Sum(sum)) = retries.data() else {
        panic!("not a sum: {retries:?}");
    };
    assert!(sum.is_monotonic());
    let values: Vec<f64> = sum.data_points().map(|p| p.value()).collect();
    assert_eq!(values, [1.0]);
}
