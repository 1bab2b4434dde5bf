//! The core's metrics for the Python package's OpenTelemetry bridge
//! (`iikocloud._telemetry`). The core decides every metric (its `METRICS`
//! table) and every point; this hands the table to Python, which makes one
//! instrument per row in the application's meter provider, and forwards
//! each point to a Python callable that records it there.
//!
//! The sink is set only when Python asks (a meter provider is set), so a
//! process without one keeps the core's "no sink: one atomic load" cost.

use iikocloud::telemetry::{
    set_metric_sink, Attr, AttrValue, Metric, MetricSink, DURATION_BUCKETS, METRICS,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

struct PySink {
    record: Py<PyAny>,
}

impl MetricSink for PySink {
    fn record(&self, metric: &'static Metric, value: f64, attributes: &[Attr<'_>]) {
        // The core calls a sink on the thread that did the work, with the GIL
        // released by the native call and no lock of its own held, so
        // attaching here cannot deadlock. try_attach: during interpreter
        // shutdown a point is dropped rather than panicking.
        let _ = Python::try_attach(|py| {
            let sent = (|| -> PyResult<()> {
                let attrs = PyDict::new(py);
                for (key, value) in attributes {
                    match value {
                        AttrValue::Str(s) => attrs.set_item(*key, s.as_ref())?,
                        AttrValue::Int(i) => attrs.set_item(*key, *i)?,
                        AttrValue::Float(f) => attrs.set_item(*key, *f)?,
                        AttrValue::Bool(b) => attrs.set_item(*key, *b)?,
                    }
                }
                self.record.call1(py, (metric.index, value, attrs))?;
                Ok(())
            })();
            if let Err(e) = sent {
                // The SDK call it measures must not fail for a metric.
                e.write_unraisable(py, None);
            }
        });
    }
}

/// One row of the core's metric table as Python reads it.
type Row = (
    usize,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Vec<&'static str>,
);

/// The core's metrics: index, name, unit, kind (`counter`, `histogram`,
/// `gauge`), description, allowed attributes.
#[pyfunction]
pub fn metrics_table() -> Vec<Row> {
    METRICS
        .iter()
        .map(|m| {
            (
                m.index,
                m.name,
                m.unit,
                m.kind.as_str(),
                m.description,
                m.attributes.to_vec(),
            )
        })
        .collect()
}

/// The bucket boundaries the core advises for its duration histograms.
#[pyfunction]
pub fn duration_buckets() -> Vec<f64> {
    DURATION_BUCKETS.to_vec()
}

/// Makes `record(index, value, attributes)` the process's metric sink;
/// false when a sink was set before (the core keeps the first).
#[pyfunction]
pub fn metrics_enable(record: Py<PyAny>) -> bool {
    set_metric_sink(PySink { record }).is_ok()
}
