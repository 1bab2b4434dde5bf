//! The native module `iikocloud._native`: the Rust core (client, webhook
//! parser and verifier) and the in-process emulator, for the Python package
//! `iikocloud`. Nothing here is public API; the package wraps it.
//!
//! Rules every entry point follows:
//! * the body runs inside `errors::guard`, so a Rust panic surfaces as
//!   `IikoError`, never as PyO3's `PanicException` (a `BaseException`);
//! * every call into the core or the emulator runs inside `py.detach`, so
//!   network I/O and the token refresh never hold the GIL, and no Rust lock
//!   of the core is ever waited for while holding it.

mod client;
mod convert;
#[cfg(feature = "emulator")]
mod emulator;
mod errors;
mod inbox;
mod limits;
mod logbridge;
mod metrics;
mod models;
mod native_event;
mod objects;
mod readers;
mod telemetry;
mod webhook;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    logbridge::install(py);
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("USER_AGENT", iikocloud::client::USER_AGENT)?;
    m.add("DEFAULT_BASE_URL", iikocloud::client::DEFAULT_BASE_URL)?;
    limits::add_constants(m)?;
    m.add_function(wrap_pyfunction!(errors::api_error_class, m)?)?;
    m.add_function(wrap_pyfunction!(errors::bind_error_classes, m)?)?;
    m.add_function(wrap_pyfunction!(errors::error_class_names, m)?)?;
    m.add_function(wrap_pyfunction!(errors::refused_value_reason, m)?)?;
    m.add_function(wrap_pyfunction!(errors::unreadable_answer_py, m)?)?;
    m.add_class::<client::NativeClient>()?;
    #[cfg(feature = "emulator")]
    {
        m.add_class::<emulator::NativeEmulator>()?;
        m.add_function(wrap_pyfunction!(emulator::example_request, m)?)?;
        emulator::constants(m)?;
    }
    m.add_class::<native_event::NativeEvent>()?;
    m.add_class::<webhook::NativeDeduplicator>()?;
    m.add_class::<webhook::NativeOrderingGuard>()?;
    m.add_class::<inbox::NativeInbox>()?;
    m.add_class::<inbox::NativeDelivery>()?;
    m.add_function(wrap_pyfunction!(webhook::parse_body, m)?)?;
    m.add_function(wrap_pyfunction!(webhook::parse_event, m)?)?;
    m.add_function(wrap_pyfunction!(webhook::verify, m)?)?;
    m.add_function(wrap_pyfunction!(webhook::verify_headers, m)?)?;
    m.add_function(wrap_pyfunction!(webhook::receive, m)?)?;
    m.add_function(wrap_pyfunction!(webhook::event_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(webhook::set_event_classes, m)?)?;
    m.add_function(wrap_pyfunction!(client::prepare_request, m)?)?;
    m.add_function(wrap_pyfunction!(client::operations, m)?)?;
    m.add_function(wrap_pyfunction!(readers::load_model, m)?)?;
    m.add_function(wrap_pyfunction!(readers::load_plain, m)?)?;
    m.add_function(wrap_pyfunction!(readers::read_extra, m)?)?;
    m.add_function(wrap_pyfunction!(models::local_time_of, m)?)?;
    m.add_function(wrap_pyfunction!(models::amount_of, m)?)?;
    m.add_function(wrap_pyfunction!(refresh_log_level, m)?)?;
    m.add_function(wrap_pyfunction!(telemetry::spans_enable, m)?)?;
    m.add_function(wrap_pyfunction!(telemetry::spans_begin, m)?)?;
    m.add_function(wrap_pyfunction!(telemetry::spans_take, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::metrics_table, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::duration_buckets, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::metrics_enable, m)?)?;
    #[cfg(feature = "test-hooks")]
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}

/// Re-reads the level of the `iikocloud` loggers (done by every call anyway;
/// for code that changes the level and then only receives webhooks).
#[pyfunction]
fn refresh_log_level(py: Python<'_>) {
    logbridge::refresh(py);
}

/// Panics inside the guard, so the tests can check that a Rust panic surfaces
/// as `IikoError` and not as `PanicException`. Only in test builds (the
/// `test-hooks` feature).
#[cfg(feature = "test-hooks")]
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    errors::guard(py, || -> PyResult<()> {
        panic!("panic requested by a test")
    })
}
