//! The core's spans for the Python package's OpenTelemetry bridge
//! (`iikocloud._telemetry`). The core decides every name and attribute;
//! this only carries the finished spans of one call to Python, which makes
//! them spans of the application's tracer provider there.
//!
//! The collector is installed (as the process's `tracing` subscriber) the
//! first time Python asks for spans, so a process that never does pays
//! nothing. A call collects into a buffer of its own thread: the core runs
//! a call, its token fetch and its polls on the thread that called it.

use std::cell::RefCell;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use iikocloud::telemetry::spans::{install, FinishedSpan, SpanAttr};
use iikocloud::telemetry::AttrValue;
use pyo3::prelude::*;
use pyo3::types::PyDict;

thread_local! {
    static COLLECTED: RefCell<Option<Vec<FinishedSpan>>> = const { RefCell::new(None) };
}

fn keep(span: FinishedSpan) {
    // try_with: a span ending while the thread's locals are torn down is
    // dropped rather than panicking.
    let _ = COLLECTED.try_with(|c| {
        if let Some(spans) = c.borrow_mut().as_mut() {
            spans.push(span);
        }
    });
}

/// Installs the span collector once; false when the process already has
/// another `tracing` subscriber (then no spans reach Python).
#[pyfunction]
pub fn spans_enable() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| install(keep).is_ok())
}

/// Starts collecting this thread's spans (dropping any left over).
#[pyfunction]
pub fn spans_begin() {
    COLLECTED.with(|c| *c.borrow_mut() = Some(Vec::new()));
}

fn nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn attributes<'py>(py: Python<'py>, attrs: &[SpanAttr]) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in attrs {
        match value {
            AttrValue::Str(s) => dict.set_item(*key, s.as_ref())?,
            AttrValue::Int(i) => dict.set_item(*key, *i)?,
            AttrValue::Float(f) => dict.set_item(*key, *f)?,
            AttrValue::Bool(b) => dict.set_item(*key, *b)?,
        }
    }
    Ok(dict)
}

/// One span as Python reads it: id, parent id, name, kind, start and end
/// (ns since the epoch), error, attributes, events (name, ns, attributes).
type PySpan<'py> = (
    u64,
    Option<u64>,
    String,
    String,
    u64,
    u64,
    bool,
    Bound<'py, PyDict>,
    Vec<(String, u64, Bound<'py, PyDict>)>,
);

/// Stops collecting and returns this thread's spans, oldest first (a
/// parent before its children).
#[pyfunction]
pub fn spans_take(py: Python<'_>) -> PyResult<Vec<PySpan<'_>>> {
    let mut spans = COLLECTED
        .with(|c| c.borrow_mut().take())
        .unwrap_or_default();
    spans.sort_by_key(|s| s.id);
    spans
        .into_iter()
        .map(|s| {
            let events = s
                .events
                .iter()
                .map(|e| {
                    Ok((
                        e.name.clone(),
                        nanos(e.time),
                        attributes(py, &e.attributes)?,
                    ))
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok((
                s.id,
                s.parent_id,
                s.name,
                s.kind,
                nanos(s.start),
                nanos(s.end),
                s.error,
                attributes(py, &s.attributes)?,
                events,
            ))
        })
        .collect()
}
