//! What telemetry costs: a whole call (`Client::organizations` against the
//! in-process emulator, keep-alive loopback) and a webhook request through
//! `Receiver::receive` (the 9.6 KB shared body), first with telemetry off
//! (no subscriber, no metric sink: what every application that does not ask
//! for it runs), then on, with the OpenTelemetry SDK behind
//! `tracing-opentelemetry` (spans to an in-memory exporter) and
//! `telemetry::otel::record_to` (metrics to a meter provider).
//!
//! The off rows run first: a subscriber and a sink are set once per process
//! and cannot be taken back.
//!
//! Run: `cargo bench --features otel-metrics --bench telemetry -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use iikocloud::api::models::organizations::GetOrganizationsRequest;
use iikocloud::webhook::Receiver;
use iikocloud::Client;
use iikocloud_emulator::{Emulator, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET};
use opentelemetry::metrics::MeterProvider;
use opentelemetry::trace::TracerProvider;
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tracing_subscriber::layer::SubscriberExt;

const BODY: &[u8] = include_bytes!("../tests/vectors/payloads/delivery_order_update.json");

fn bench(c: &mut Criterion) {
    let emu = Emulator::start_default().expect("emulator");
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()
        .expect("client");
    client.access_token().expect("first token");
    let request = GetOrganizationsRequest::default();
    let receiver = Receiver::new("bench-token");
    let headers = [("Authorization", "bench-token")];
    receiver
        .receive(headers, BODY)
        .expect("the body is accepted");

    // Each sample's calls are timed alone; `after` (emptying the exporter)
    // runs between samples, outside the time.
    let run = |c: &mut Criterion, label: &str, after: &dyn Fn()| {
        let mut group = c.benchmark_group(format!("telemetry_{label}"));
        group.bench_function("organizations", |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(client.organizations(&request).expect("answer"));
                }
                let took = start.elapsed();
                after();
                took
            })
        });
        group.bench_function("webhook_receive", |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(receiver.receive(headers, black_box(BODY)).expect("ok"));
                }
                let took = start.elapsed();
                after();
                took
            })
        });
        group.finish();
    };
    run(c, "off", &|| {});

    // The in-memory exporter stands in for a real one's queue; it is
    // emptied between samples so memory stays flat.
    let spans = InMemorySpanExporter::default();
    let tracer_provider = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    tracing::subscriber::set_global_default(
        tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(tracer_provider.tracer("bench"))),
    )
    .expect("the first subscriber");
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
        .build();
    iikocloud::telemetry::otel::record_to(&meter_provider.meter("iikocloud")).expect("sink");
    run(c, "on", &|| spans.reset());
}

// criterion's macro generates an undocumented public function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;

criterion_main!(benches);
