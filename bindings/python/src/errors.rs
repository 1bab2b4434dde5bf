//! Rust errors and panics as the Python exceptions of `iikocloud._errors`.
//!
//! The exception classes are plain Python (multiple inheritance such as
//! `InvalidInputError(IikoError, ValueError)`, picklable, documented in one
//! place); this module only picks the class and fills its attributes.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use iikocloud::{ApiErrorKind, CommandErrorKind, Error, TransportErrorKind};
use pyo3::prelude::*;
use pyo3::types::PyDict;

const ERRORS_MODULE: &str = "iikocloud._errors";

/// Instantiates `iikocloud._errors.<class>(message, **kwargs)` as a `PyErr`.
/// If even that fails (the package is broken), the failure itself is raised.
fn raise(py: Python<'_>, class: &str, message: &str, kwargs: Option<&Bound<'_, PyDict>>) -> PyErr {
    let made = py
        .import(ERRORS_MODULE)
        .and_then(|m| m.getattr(class))
        .and_then(|cls| cls.call((message,), kwargs));
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// An `InvalidInputError` (also a `ValueError`).
pub fn invalid_input(py: Python<'_>, message: &str) -> PyErr {
    raise(py, "InvalidInputError", message, None)
}

/// An error of the given class with a message only.
pub fn simple(py: Python<'_>, class: &str, message: &str) -> PyErr {
    raise(py, class, message, None)
}

/// A store that cannot be opened: a bad URL is an `InvalidInputError`, an
/// unreachable backend a `TransportError` of kind `connect` (as in C).
pub fn store_error(py: Python<'_>, err: &iikocloud::store::StoreError) -> PyErr {
    use iikocloud::store::StoreError;
    match err {
        StoreError::Backend { .. } | StoreError::Timeout { .. } => {
            let kwargs = PyDict::new(py);
            if let Err(e) = kwargs.set_item("kind", "connect") {
                return e;
            }
            raise(py, "TransportError", &err.to_string(), Some(&kwargs))
        }
        _ => invalid_input(py, &err.to_string()),
    }
}

/// The error of a failed call, with every field the core kept.
pub fn to_pyerr(py: Python<'_>, err: &Error) -> PyErr {
    let message = err.to_string();
    let kwargs = PyDict::new(py);
    let class = match fill(err, &kwargs) {
        Ok(class) => class,
        Err(e) => return e,
    };
    raise(py, class, &message, Some(&kwargs))
}

fn fill(err: &Error, kw: &Bound<'_, PyDict>) -> PyResult<&'static str> {
    Ok(match err {
        Error::Api(e) => {
            kw.set_item("status", e.status)?;
            kw.set_item("path", &e.path)?;
            kw.set_item("error_description", e.error_description.as_deref())?;
            kw.set_item("error_code", e.error_code.as_deref())?;
            kw.set_item("correlation_id", e.correlation_id.as_deref())?;
            kw.set_item("retry_after", e.retry_after.map(|d| d.as_secs_f64()))?;
            kw.set_item("body", &e.body)?;
            api_class(e.kind)
        }
        Error::Transport { kind, path, .. } => {
            let kind = match kind {
                TransportErrorKind::Dns => "dns",
                TransportErrorKind::Connect => "connect",
                TransportErrorKind::Tls => "tls",
                TransportErrorKind::Timeout => "timeout",
                TransportErrorKind::Io => "io",
                TransportErrorKind::Proxy => "proxy",
                _ => "other",
            };
            kw.set_item("kind", kind)?;
            kw.set_item("path", path)?;
            match kind {
                "tls" => "TlsError",
                "proxy" => "ProxyError",
                _ => "TransportError",
            }
        }
        Error::Decode {
            path,
            status,
            correlation_id,
            body,
            ..
        } => {
            kw.set_item("path", path)?;
            kw.set_item("status", status)?;
            kw.set_item("correlation_id", correlation_id.as_deref())?;
            kw.set_item("body", body)?;
            "DecodeError"
        }
        Error::Command(c) => {
            kw.set_item("correlation_id", &c.correlation_id)?;
            kw.set_item("reason", c.reason.as_deref())?;
            kw.set_item(
                "exception",
                c.exception.as_ref().map(serde_json::Value::to_string),
            )?;
            kw.set_item("waited", c.waited.as_secs_f64())?;
            match c.kind {
                CommandErrorKind::Failed => "CommandFailedError",
                CommandErrorKind::TimedOut => "CommandTimeoutError",
                CommandErrorKind::Expired => "CommandExpiredError",
                _ => "CommandError",
            }
        }
        // A bad configuration is a bad argument to the constructor.
        Error::InvalidInput(_) | Error::Config(_) => "InvalidInputError",
        _ => "IikoError",
    })
}

/// The class of an API error of this kind.
fn api_class(kind: ApiErrorKind) -> &'static str {
    match kind {
        ApiErrorKind::BadRequest => "BadRequestError",
        ApiErrorKind::Unauthorized => "AuthenticationError",
        ApiErrorKind::Forbidden => "ForbiddenError",
        ApiErrorKind::NotFound => "NotFoundError",
        ApiErrorKind::TerminalTimeout => "TerminalTimeoutError",
        ApiErrorKind::RateLimited => "RateLimitError",
        ApiErrorKind::Server => "ServerError",
        _ => "ApiError",
    }
}

/// The class an answer with this HTTP status raises: the core classifies the
/// status (`ApiErrorKind::from_status`), this binding names the class. For
/// the test that holds the classes' docstrings to the core.
#[pyfunction]
pub fn api_error_class(status: u16) -> &'static str {
    api_class(ApiErrorKind::from_status(status))
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// Runs a method body and turns a Rust panic into `IikoError`: PyO3's own
/// `PanicException` derives from `BaseException`, which `except Exception`
/// does not catch, so one bad input could take a worker down.
pub fn guard<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(simple(
            py,
            "IikoError",
            &format!(
                "internal error in the iikocloud native module (please report it): {}",
                panic_message(&*payload)
            ),
        )),
    }
}

/// Runs blocking core work without the GIL, so other Python threads keep
/// running during network I/O (the token refresh included).
pub fn detached<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> PyResult<T> {
    py.detach(f).map_err(|e| to_pyerr(py, &e))
}
