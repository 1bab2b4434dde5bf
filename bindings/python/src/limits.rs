//! The core's limits (`iikocloud::limits`) for the Python package: every
//! timeout, size, depth, count and capacity a caller gives is read here by
//! the core's rule, so this binding restates none (no default, no range, no
//! meaning of 0) and its errors carry the core's message.

use std::time::Duration;

use iikocloud::limits::{self, DefaultValue, Given, Limit};
use iikocloud::webhook::{
    RECEIVE_STATUSES, STATUS_ACCEPTED, STATUS_RECEIVER_FAULT, STATUS_RETRY_LATER,
    STATUS_UNAUTHORIZED,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};

use crate::errors::{invalid_input, to_pyerr};

/// A duration given in seconds, as the core reads it for `limit`; `None` when
/// not given (the caller then keeps the core's default).
pub fn seconds(py: Python<'_>, limit: &Limit, value: Option<f64>) -> PyResult<Option<Duration>> {
    let Some(s) = value else { return Ok(None) };
    limit
        .read_duration(Given::Seconds(s))
        .map_err(|e| to_pyerr(py, &e))
}

/// [`seconds`] with the default applied (every limit read this way has a
/// fixed default).
pub fn seconds_or_default(py: Python<'_>, limit: &Limit, value: Option<f64>) -> PyResult<Duration> {
    let given = value.map_or(Given::Absent, Given::Seconds);
    Ok(limit
        .read_duration(given)
        .map_err(|e| to_pyerr(py, &e))?
        .unwrap_or_default())
}

/// A whole number given for `limit` (a Python int, any size up to 128 bits),
/// as the core reads it; the default when not given.
pub fn whole(py: Python<'_>, limit: &Limit, value: Option<i128>) -> PyResult<Option<u64>> {
    limit
        .read(value.map_or(Given::Absent, Given::Int))
        .map_err(|e| to_pyerr(py, &e))
}

/// The caller's value as the core's `Given`: `None`, an `int` (in the
/// limit's unit) or a `float` (seconds).
pub fn given(value: &Bound<'_, PyAny>) -> PyResult<Given> {
    let py = value.py();
    if value.is_none() {
        return Ok(Given::Absent);
    }
    if value.is_instance_of::<PyBool>() {
        return Err(invalid_input(py, "a limit is a number, not a bool"));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(Given::Int(value.extract()?));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(Given::Seconds(value.extract()?));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "a limit is an int, a float (seconds) or None, not {}",
        value.get_type().name()?
    )))
}

/// Reads `value` for the limit named `name` as every binding does: the value
/// that applies (in the limit's unit; `None` when the default is another
/// setting), or `InvalidInputError` with the core's message.
#[pyfunction]
pub fn read_limit(py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    let given = given(value)?;
    limits::read(name, given).map_err(|e| to_pyerr(py, &e))
}

/// A row of the core's table: `(name, unit, default or None, zero,
/// raw_zero_is_default, min, max or None, above, default as text)`.
pub type LimitRow = (
    &'static str,
    &'static str,
    Option<u64>,
    &'static str,
    bool,
    u64,
    Option<u64>,
    &'static str,
    String,
);

/// Every limit of the core, for documentation and tests.
#[pyfunction]
pub fn limit_table() -> Vec<LimitRow> {
    limits::LIMITS
        .iter()
        .map(|l| {
            (
                l.name,
                l.unit.as_str(),
                match l.default {
                    DefaultValue::Fixed(v) => Some(v),
                    DefaultValue::Elsewhere(_) => None,
                },
                l.zero.as_str(),
                l.raw_zero_is_default,
                l.min,
                (l.max != u64::MAX).then_some(l.max),
                l.above.as_str(),
                l.default_text(),
            )
        })
        .collect()
}

/// The receive rule's statuses, as module constants.
pub fn add_constants(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("STATUS_ACCEPTED", STATUS_ACCEPTED)?;
    m.add("STATUS_UNAUTHORIZED", STATUS_UNAUTHORIZED)?;
    m.add("STATUS_RECEIVER_FAULT", STATUS_RECEIVER_FAULT)?;
    m.add("STATUS_RETRY_LATER", STATUS_RETRY_LATER)?;
    m.add("RECEIVE_STATUSES", RECEIVE_STATUSES.to_vec())?;
    m.add(
        "INBOX_RECEIVE_STATUSES",
        iikocloud::inbox::RECEIVE_STATUSES.to_vec(),
    )?;
    m.add("MAX_REQUEST_DEPTH", limits::MAX_REQUEST_DEPTH)?;
    m.add("WAIT_PAUSE_GROWTH", iikocloud::api::PAUSE_GROWTH)?;
    m.add_function(wrap_pyfunction!(read_limit, m)?)?;
    m.add_function(wrap_pyfunction!(limit_table, m)?)?;
    Ok(())
}
