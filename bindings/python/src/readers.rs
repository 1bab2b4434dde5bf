//! The module functions that read JSON into Python objects (`load_model`,
//! `load_plain`): what they take from Python (text, bytes, or a parsed
//! event) handed to the readers of `models`. Kept apart from `models` so
//! that the readers do not depend on the event class, nor it on them.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyType};

use crate::errors::{guard, invalid_input};
use crate::models::{self, ModelRef};
use crate::native_event::NativeEvent;
use std::sync::Arc;

/// The JSON text of `json` (str, bytes-like, or a `NativeEvent`'s event),
/// handed to `f`.
fn with_text<R>(json: &Bound<'_, PyAny>, f: impl FnOnce(PyResult<&str>) -> R) -> R {
    let py = json.py();
    if let Ok(event) = json.cast::<NativeEvent>() {
        return f(Ok(event.get().raw_json_text()));
    }
    if let Ok(b) = json.cast::<PyBytes>() {
        return f(utf8(py, b.as_bytes()));
    }
    if let Ok(s) = json.cast::<PyString>() {
        return match s.encode_utf8() {
            Ok(b) => f(utf8(py, b.as_bytes())),
            // The reference reads it.
            Err(_) => f(Err(invalid_input(
                py,
                "the text has a lone surrogate, which has no UTF-8",
            ))),
        };
    }
    match json.extract::<Vec<u8>>() {
        Ok(bytes) => f(utf8(py, &bytes)),
        Err(_) => f(Err(invalid_input(
            py,
            "the JSON must be str, bytes, bytearray or memoryview",
        ))),
    }
}

/// `bytes` as text, or the error that says why not.
fn utf8<'b>(py: Python<'_>, bytes: &'b [u8]) -> PyResult<&'b str> {
    std::str::from_utf8(bytes)
        .map_err(|e| invalid_input(py, &format!("the JSON is not UTF-8: {e}")))
}

/// Reads JSON text into the generated model class `cls`, making the objects
/// `cls._load(json.loads(text, parse_float=Decimal))` makes. With `member`,
/// reads that member of a top-level object instead (`None` when the text is
/// no object or the member no object). Input this reader cannot reproduce
/// exactly goes to the Python reader, or raises `InvalidInputError` with
/// `fallback=False`. `member` may be given by position: a keyword argument
/// costs the call a dictionary.
#[pyfunction]
#[pyo3(signature = (cls, json, member=None, *, fallback=true))]
pub fn load_model<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    json: &Bound<'py, PyAny>,
    member: Option<&str>,
    fallback: bool,
) -> PyResult<Bound<'py, PyAny>> {
    guard(py, || {
        read_model(&models::model_ref(cls), json, member, fallback)
    })
}

/// [`load_model`] of a model already looked up.
pub(crate) fn read_model<'py>(
    model: &Arc<ModelRef>,
    json: &Bound<'py, PyAny>,
    member: Option<&str>,
    fallback: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = json.py();
    // An event's eventInfo is read where the parse found it, once: what
    // that read cannot do, the member read of the whole event cannot
    // either (it reads the same text).
    let event = json.cast::<NativeEvent>().ok();
    let info = match member {
        Some("eventInfo") => event
            .as_ref()
            .and_then(|e| e.get().event_info_object_text()),
        _ => None,
    };
    let read = match info {
        Some(info) => models::read(py, model, info, None),
        None => with_text(json, |text| models::read(py, model, text?, member)),
    };
    match read {
        Ok(value) => Ok(value),
        Err(_) if fallback => models::reference(model.cls.bind(py), json, member),
        Err(e) => Err(e),
    }
}

/// An event's JSON (its member `member` with a name) as plain Python values,
/// as `json.loads(event.raw_json, parse_float=Decimal)` and `.get(member)`
/// make them: the `eventInfo` of an unknown event type or of an event that
/// could not be read typed, and `Event.to_dict`. `None` when the member is
/// absent or the event no object. Raises `InvalidInputError` for what it
/// leaves to `json.loads` (NaN, nesting past the limit).
#[pyfunction]
#[pyo3(signature = (event, member=None))]
pub fn load_plain<'py>(
    py: Python<'py>,
    event: &Bound<'py, NativeEvent>,
    member: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(py, || event.get().plain(py, member))
}

/// `Model.extra` of a model the native reader made, whose slot holds the
/// unknown members' JSON text: read as `json.loads(text,
/// parse_float=Decimal)` reads it, and kept. The text was checked when the
/// reader skipped it, so this read does not fail.
#[pyfunction]
pub fn read_extra<'py>(model: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = model.py();
    guard(py, || {
        crate::objects::read_extra(model, |text| models::read_plain(py, utf8(py, text)?))
    })
}
