//! Rust errors and panics as the Python exceptions of `iikocloud._errors`.
//!
//! The exception classes are plain Python (multiple inheritance such as
//! `InvalidInputError(IikoError, ValueError)`, picklable, documented in one
//! place). The native code names them by [`Class`], and `_errors` hands the
//! classes over when it is imported (`bind_error_classes`): a class missing
//! on either side fails `import iikocloud`, not the first error of its kind.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use iikocloud::{ApiErrorKind, CommandErrorKind, Error, TransportErrorKind};
use pyo3::exceptions::{PyArithmeticError, PyException, PyImportError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyModule, PyType};

/// Every exception class the native code raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Iiko,
    Api,
    BadRequest,
    Authentication,
    Forbidden,
    NotFound,
    TerminalTimeout,
    RateLimit,
    Server,
    Transport,
    Tls,
    Proxy,
    Decode,
    InvalidInput,
    Command,
    CommandFailed,
    CommandTimeout,
    CommandExpired,
    WebhookVerification,
    WebhookParse,
}

impl Class {
    const ALL: [Class; 20] = [
        Class::Iiko,
        Class::Api,
        Class::BadRequest,
        Class::Authentication,
        Class::Forbidden,
        Class::NotFound,
        Class::TerminalTimeout,
        Class::RateLimit,
        Class::Server,
        Class::Transport,
        Class::Tls,
        Class::Proxy,
        Class::Decode,
        Class::InvalidInput,
        Class::Command,
        Class::CommandFailed,
        Class::CommandTimeout,
        Class::CommandExpired,
        Class::WebhookVerification,
        Class::WebhookParse,
    ];

    /// Its name in `iikocloud._errors` (and as `iikocloud.X`).
    pub const fn name(self) -> &'static str {
        match self {
            Class::Iiko => "IikoError",
            Class::Api => "ApiError",
            Class::BadRequest => "BadRequestError",
            Class::Authentication => "AuthenticationError",
            Class::Forbidden => "ForbiddenError",
            Class::NotFound => "NotFoundError",
            Class::TerminalTimeout => "TerminalTimeoutError",
            Class::RateLimit => "RateLimitError",
            Class::Server => "ServerError",
            Class::Transport => "TransportError",
            Class::Tls => "TlsError",
            Class::Proxy => "ProxyError",
            Class::Decode => "DecodeError",
            Class::InvalidInput => "InvalidInputError",
            Class::Command => "CommandError",
            Class::CommandFailed => "CommandFailedError",
            Class::CommandTimeout => "CommandTimeoutError",
            Class::CommandExpired => "CommandExpiredError",
            Class::WebhookVerification => "WebhookVerificationError",
            Class::WebhookParse => "WebhookParseError",
        }
    }
}

/// The classes `_errors` bound, in the order of [`Class::ALL`]; replaced
/// when the module is imported again (a reload makes new classes).
static BOUND: PyOnceLock<Py<PyList>> = PyOnceLock::new();

fn bound(py: Python<'_>) -> &Py<PyList> {
    BOUND.get_or_init(py, || PyList::empty(py).unbind())
}

/// Takes the exception classes from `module` (`iikocloud._errors`, which
/// calls this when imported). A class the native code raises that the module
/// lacks, or that is no exception, is an `ImportError`.
#[pyfunction]
pub fn bind_error_classes(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let mut classes = Vec::with_capacity(Class::ALL.len());
    for class in Class::ALL {
        let found = module
            .getattr(class.name())
            .ok()
            .and_then(|c| c.cast_into::<PyType>().ok())
            .filter(|c| c.is_subclass_of::<PyException>().unwrap_or(false));
        match found {
            Some(c) => classes.push(c),
            None => {
                return Err(PyImportError::new_err(format!(
                    "iikocloud._errors has no exception class {} (the native module raises it)",
                    class.name()
                )))
            }
        }
    }
    let classes = PyList::new(py, classes)?;
    bound(py)
        .bind(py)
        .set_slice(0, usize::MAX, classes.as_any())
}

/// The names of the classes the native code raises (for the test that
/// holds `_errors.__all__` to them).
#[pyfunction]
pub fn error_class_names() -> Vec<&'static str> {
    Class::ALL.iter().map(|c| c.name()).collect()
}

fn class_of(py: Python<'_>, class: Class) -> PyResult<Bound<'_, PyAny>> {
    let list = bound(py).bind(py);
    if list.is_empty() {
        // Raised before the package was imported: importing `_errors` binds.
        py.import("iikocloud._errors")?;
    }
    let index = Class::ALL.iter().position(|c| *c == class).unwrap_or(0);
    list.get_item(index)
}

/// Instantiates `class(message, **kwargs)` as a `PyErr`. If even that fails
/// (the package is broken), the failure itself is raised.
fn raise(py: Python<'_>, class: Class, message: &str, kwargs: Option<&Bound<'_, PyDict>>) -> PyErr {
    match class_of(py, class).and_then(|cls| cls.call((message,), kwargs)) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// An `InvalidInputError` (also a `ValueError`).
pub fn invalid_input(py: Python<'_>, message: &str) -> PyErr {
    raise(py, Class::InvalidInput, message, None)
}

/// An error of the given class with a message only.
pub fn simple(py: Python<'_>, class: Class, message: &str) -> PyErr {
    raise(py, class, message, None)
}

/// Why Python would not make a value of JSON text, from what it raised:
/// `int`'s own message (the digit limit, and how to raise it), or for
/// `decimal.InvalidOperation`, which says no more than its class, what it
/// means here.
#[pyfunction]
pub fn refused_value_reason(error: &Bound<'_, PyAny>) -> String {
    if error.is_instance_of::<PyArithmeticError>() {
        return "a number has an exponent past what Decimal holds".to_owned();
    }
    error
        .str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where an answer came from: an operation by name (its path and success
/// status from the core's table), or a raw call's path and the status the
/// answer came with.
pub enum Answered<'a> {
    Operation(&'a str),
    Path(&'a str, u16),
}

/// An error raised while making Python values of an answer whose JSON text
/// the core passed: a `ValueError` or `ArithmeticError` that is not one of
/// the package's own (an integer past Python's digit limit, an exponent past
/// `Decimal`'s) becomes the `DecodeError` the core gives any unreadable
/// answer (`Error::unreadable_answer`), caused by the original. Any other
/// error is returned as it is.
pub fn unreadable_answer(py: Python<'_>, answered: Answered<'_>, text: &str, err: PyErr) -> PyErr {
    let value = err.value(py);
    let ours = class_of(py, Class::Iiko)
        .and_then(|iiko| value.is_instance(&iiko))
        .unwrap_or(false);
    let refused =
        value.is_instance_of::<PyValueError>() || value.is_instance_of::<PyArithmeticError>();
    if ours || !refused {
        return err;
    }
    let (path, status) = match answered {
        Answered::Operation(name) => {
            iikocloud::api::operation(name).map_or((name, 200), |op| (op.path, op.success_status))
        }
        Answered::Path(path, status) => (path, status),
    };
    let reason = format!(
        "Python cannot make its values: {}",
        refused_value_reason(value)
    );
    let decode = to_pyerr(py, &Error::unreadable_answer(path, status, text, &reason));
    decode.set_cause(py, Some(err));
    decode
}

/// [`unreadable_answer`] for the answers of operation `name` that
/// `_client.py` reads with `json.loads`: the exception to raise in place of
/// `error`.
#[pyfunction]
#[pyo3(name = "unreadable_answer")]
pub fn unreadable_answer_py<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    error: Bound<'py, PyAny>,
) -> Bound<'py, PyAny> {
    let err = PyErr::from_value(error);
    unreadable_answer(py, Answered::Operation(name), text, err)
        .into_value(py)
        .into_bound(py)
        .into_any()
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
            raise(py, Class::Transport, &err.to_string(), Some(&kwargs))
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

fn fill(err: &Error, kw: &Bound<'_, PyDict>) -> PyResult<Class> {
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
                "tls" => Class::Tls,
                "proxy" => Class::Proxy,
                _ => Class::Transport,
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
            Class::Decode
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
                CommandErrorKind::Failed => Class::CommandFailed,
                CommandErrorKind::TimedOut => Class::CommandTimeout,
                CommandErrorKind::Expired => Class::CommandExpired,
                _ => Class::Command,
            }
        }
        // A bad configuration is a bad argument to the constructor.
        Error::InvalidInput(_) | Error::Config(_) => Class::InvalidInput,
        _ => Class::Iiko,
    })
}

/// The class of an API error of this kind.
fn api_class(kind: ApiErrorKind) -> Class {
    match kind {
        ApiErrorKind::BadRequest => Class::BadRequest,
        ApiErrorKind::Unauthorized => Class::Authentication,
        ApiErrorKind::Forbidden => Class::Forbidden,
        ApiErrorKind::NotFound => Class::NotFound,
        ApiErrorKind::TerminalTimeout => Class::TerminalTimeout,
        ApiErrorKind::RateLimited => Class::RateLimit,
        ApiErrorKind::Server => Class::Server,
        _ => Class::Api,
    }
}

/// The class an answer with this HTTP status raises: the core classifies the
/// status (`ApiErrorKind::from_status`), this binding names the class. For
/// the test that holds the classes' docstrings to the core.
#[pyfunction]
pub fn api_error_class(status: u16) -> &'static str {
    api_class(ApiErrorKind::from_status(status)).name()
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
            Class::Iiko,
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
