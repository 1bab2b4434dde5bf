//! The SDK's metrics recorded into an OpenTelemetry meter (feature
//! `otel-metrics`).
//!
//! ```no_run
//! # fn demo(provider: &opentelemetry_sdk::metrics::SdkMeterProvider) {
//! use opentelemetry::metrics::MeterProvider;
//!
//! iikocloud::telemetry::otel::record_to(&provider.meter("iikocloud"))
//!     .expect("the first sink of the process");
//! # }
//! ```

use opentelemetry::metrics::{Counter, Gauge, Histogram, Meter};
use opentelemetry::KeyValue;

use super::{
    set_metric_sink, Attr, AttrValue, Metric, MetricKind, MetricSink, SinkAlreadySet,
    DURATION_BUCKETS, METRICS,
};

enum Instrument {
    Counter(Counter<f64>),
    Histogram(Histogram<f64>),
    Gauge(Gauge<f64>),
}

/// A [`MetricSink`] holding one OpenTelemetry instrument per metric of
/// [`METRICS`], created from a meter.
pub struct OtelSink {
    instruments: Vec<Instrument>,
}

impl OtelSink {
    /// The instruments of every metric, on `meter`; duration histograms
    /// get the HTTP conventions' bucket boundaries ([`DURATION_BUCKETS`]).
    pub fn new(meter: &Meter) -> OtelSink {
        let instruments = METRICS
            .iter()
            .map(|m| match m.kind {
                MetricKind::Counter => Instrument::Counter(
                    meter
                        .f64_counter(m.name)
                        .with_unit(m.unit)
                        .with_description(m.description)
                        .build(),
                ),
                MetricKind::Histogram => {
                    let h = meter
                        .f64_histogram(m.name)
                        .with_unit(m.unit)
                        .with_description(m.description);
                    let h = if m.unit == "s" {
                        h.with_boundaries(DURATION_BUCKETS.to_vec())
                    } else {
                        h
                    };
                    Instrument::Histogram(h.build())
                }
                MetricKind::Gauge => Instrument::Gauge(
                    meter
                        .f64_gauge(m.name)
                        .with_unit(m.unit)
                        .with_description(m.description)
                        .build(),
                ),
            })
            .collect();
        OtelSink { instruments }
    }
}

fn key_value((key, value): &Attr<'_>) -> KeyValue {
    match value {
        AttrValue::Str(s) => KeyValue::new(*key, s.to_string()),
        AttrValue::Int(i) => KeyValue::new(*key, *i),
        AttrValue::Float(f) => KeyValue::new(*key, *f),
        AttrValue::Bool(b) => KeyValue::new(*key, *b),
    }
}

impl MetricSink for OtelSink {
    fn record(&self, metric: &'static Metric, value: f64, attributes: &[Attr<'_>]) {
        let Some(instrument) = self.instruments.get(metric.index) else {
            return;
        };
        let attrs: Vec<KeyValue> = attributes.iter().map(key_value).collect();
        match instrument {
            Instrument::Counter(c) => c.add(value, &attrs),
            Instrument::Histogram(h) => h.record(value, &attrs),
            Instrument::Gauge(g) => g.record(value, &attrs),
        }
    }
}

/// Sets the process's metric sink to record into `meter` (the SDK's
/// metrics are off until a sink is set; once per process).
pub fn record_to(meter: &Meter) -> Result<(), SinkAlreadySet> {
    set_metric_sink(OtelSink::new(meter))
}
