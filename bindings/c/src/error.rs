//! `iiko_error`: the detail of a failed call.

use std::any::Any;
use std::ffi::{c_char, CString};

use iikocloud_core::{ApiErrorKind, CommandErrorKind, Error, TransportErrorKind};

use crate::ffi::{c_string, guard_value, opt_ptr, BoxCastable};
use crate::status::*;

/// The detail of a failed call: status, message and, for answers of the
/// service, the HTTP status, `errorDescription`, `error` and `correlationId`.
///
/// Created by the library and handed to you through an `iiko_error **err_out`
/// parameter; you own it and free it with `iiko_error_free`. Immutable: it may
/// be read from several threads at once. Strings read from it are borrowed and
/// stay valid until it is freed.
#[allow(non_camel_case_types)]
pub struct iiko_error {
    status: iiko_status,
    message: CString,
    http_status: i32,
    description: Option<CString>,
    api_code: Option<CString>,
    correlation_id: Option<CString>,
    path: Option<CString>,
    retry_after_s: i64,
    body: Vec<u8>,
}

impl BoxCastable for iiko_error {}

impl iiko_error {
    #[cfg(test)]
    pub(crate) fn message_text(&self) -> String {
        self.message.to_string_lossy().into_owned()
    }
}

/// Why a call failed, before it becomes an `iiko_error` (which is built only if
/// the caller asked for one).
#[derive(Debug)]
pub(crate) enum Failure {
    /// Argument or library failure with a message of our own.
    Plain {
        status: iiko_status,
        message: String,
    },
    /// An error of the core client.
    Core(Error),
}

impl Failure {
    pub(crate) fn new(status: iiko_status, message: impl Into<String>) -> Failure {
        Failure::Plain {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn null(name: &str) -> Failure {
        Failure::new(IIKO_STATUS_NULL_ARGUMENT, format!("`{name}` is NULL"))
    }

    pub(crate) fn invalid_utf8(name: &str, valid_up_to: usize) -> Failure {
        Failure::new(
            IIKO_STATUS_INVALID_UTF8,
            format!("`{name}` is not valid UTF-8 (bad byte at offset {valid_up_to})"),
        )
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> Failure {
        Failure::new(IIKO_STATUS_INVALID_ARGUMENT, message)
    }

    pub(crate) fn invalid_json(name: &str, e: &serde_json::Error) -> Failure {
        // serde_json quotes a string value it did not expect (`invalid type:
        // string "..."`); that value could be a credential, so it is left out.
        Failure::new(
            IIKO_STATUS_INVALID_JSON,
            format!("`{name}`: {}", without_string_values(&e.to_string())),
        )
    }

    pub(crate) fn panic(payload: &(dyn Any + Send)) -> Failure {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        Failure::new(
            IIKO_STATUS_PANIC,
            format!("internal error (a Rust panic was caught: {what}); please report it"),
        )
    }

    pub(crate) fn status(&self) -> iiko_status {
        match self {
            Failure::Plain { status, .. } => *status,
            Failure::Core(e) => core_status(e),
        }
    }

    pub(crate) fn into_error(self) -> iiko_error {
        let status = self.status();
        let mut out = iiko_error {
            status,
            message: CString::default(),
            http_status: 0,
            description: None,
            api_code: None,
            correlation_id: None,
            path: None,
            retry_after_s: -1,
            body: Vec::new(),
        };
        match self {
            Failure::Plain { message, .. } => out.message = c_string(&message),
            Failure::Core(e) => {
                out.message = c_string(&e.to_string());
                out.http_status = e.http_status().map_or(0, i32::from);
                out.correlation_id = e.correlation_id().map(c_string);
                match &e {
                    Error::Api(api) => {
                        out.description = api.error_description.as_deref().map(c_string);
                        out.api_code = api.error_code.as_deref().map(c_string);
                        out.path = Some(c_string(&api.path));
                        out.retry_after_s = api
                            .retry_after
                            .map_or(-1, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
                        out.body = api.body.clone().into_bytes();
                    }
                    Error::Transport { path, .. } => out.path = Some(c_string(path)),
                    Error::Decode { path, body, .. } => {
                        out.path = Some(c_string(path));
                        out.body = body.clone().into_bytes();
                    }
                    Error::Command(c) => {
                        out.correlation_id = Some(c_string(&c.correlation_id));
                        out.description = c.reason.as_deref().map(c_string);
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

/// Replaces each `string "..."` in a serde_json message with `a string`.
fn without_string_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("string \"") {
        out.push_str(&rest[..at]);
        out.push_str("a string");
        let value = &rest[at + "string \"".len()..];
        // The value is Debug-escaped: skip to the first quote not after a backslash.
        let mut end = value.len();
        let mut escaped = false;
        for (i, c) in value.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = i + 1;
                    break;
                }
                _ => escaped = false,
            }
        }
        rest = &value[end.min(value.len())..];
    }
    out.push_str(rest);
    out
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

/// The status code of a core error.
pub(crate) fn core_status(e: &Error) -> iiko_status {
    match e {
        Error::Api(api) => match api.kind {
            ApiErrorKind::BadRequest => IIKO_STATUS_API_BAD_REQUEST,
            ApiErrorKind::Unauthorized => IIKO_STATUS_API_UNAUTHORIZED,
            ApiErrorKind::Forbidden => IIKO_STATUS_API_FORBIDDEN,
            ApiErrorKind::NotFound => IIKO_STATUS_API_NOT_FOUND,
            ApiErrorKind::TerminalTimeout => IIKO_STATUS_API_TERMINAL_TIMEOUT,
            ApiErrorKind::RateLimited => IIKO_STATUS_API_RATE_LIMITED,
            ApiErrorKind::Server => IIKO_STATUS_API_SERVER,
            _ => IIKO_STATUS_API_OTHER,
        },
        Error::Transport { kind, .. } => match kind {
            TransportErrorKind::Dns => IIKO_STATUS_TRANSPORT_DNS,
            TransportErrorKind::Connect => IIKO_STATUS_TRANSPORT_CONNECT,
            TransportErrorKind::Tls => IIKO_STATUS_TRANSPORT_TLS,
            TransportErrorKind::Timeout => IIKO_STATUS_TRANSPORT_TIMEOUT,
            TransportErrorKind::Io => IIKO_STATUS_TRANSPORT_IO,
            TransportErrorKind::Proxy => IIKO_STATUS_TRANSPORT_PROXY,
            _ => IIKO_STATUS_TRANSPORT_OTHER,
        },
        Error::Decode { .. } => IIKO_STATUS_API_DECODE,
        Error::InvalidInput(_) => IIKO_STATUS_INVALID_ARGUMENT,
        Error::Config(_) => IIKO_STATUS_INVALID_CONFIG,
        Error::Command(c) => match c.kind {
            CommandErrorKind::Failed => IIKO_STATUS_COMMAND_FAILED,
            CommandErrorKind::TimedOut => IIKO_STATUS_COMMAND_TIMED_OUT,
            CommandErrorKind::Expired => IIKO_STATUS_COMMAND_EXPIRED,
            _ => IIKO_STATUS_INTERNAL,
        },
        _ => IIKO_STATUS_INTERNAL,
    }
}

/// The status code of the error (never `IIKO_STATUS_OK`).
/// NULL gives `IIKO_STATUS_NULL_ARGUMENT`.
///
/// # Safety
/// `error` must be NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_status(error: *const iiko_error) -> iiko_status {
    guard_value(IIKO_STATUS_PANIC, || {
        // SAFETY: per this function's contract.
        unsafe { error.as_ref() }.map_or(IIKO_STATUS_NULL_ARGUMENT, |e| e.status)
    })
}

/// A readable, English description of what failed, with a hint on what to do
/// and the correlationId when there is one. Never contains a secret.
///
/// Borrowed from `error`: valid until `iiko_error_free(error)`. Never NULL for
/// a non-NULL `error`; NULL for a NULL `error`.
///
/// # Safety
/// `error` must be NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_message(error: *const iiko_error) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| e.message.as_ptr())
    })
}

/// The HTTP status of the answer that failed, or 0 when there was no answer
/// (transport and argument errors) or `error` is NULL.
///
/// # Safety
/// `error` must be NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_http_status(error: *const iiko_error) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { error.as_ref() }.map_or(0, |e| e.http_status)
    })
}

/// `errorDescription` of the service's error answer (or `message` in the newer
/// error shape); NULL when absent. Borrowed from `error`.
///
/// # Safety
/// `error` must be NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_description(error: *const iiko_error) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| opt_ptr(&e.description))
    })
}

/// `error`, the service's short error code (e.g. `"ValidationError"`); NULL
/// when absent. Borrowed from `error`.
///
/// # Safety
/// `error` must be NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_api_code(error: *const iiko_error) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| opt_ptr(&e.api_code))
    })
}

/// `correlationId` of the answer that failed, to quote to iiko support; NULL
/// when absent. Borrowed from `error`.
///
/// # Safety
/// `error` must be NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_correlation_id(error: *const iiko_error) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| opt_ptr(&e.correlation_id))
    })
}

/// The endpoint path of a failed call (e.g. `"/api/1/organizations"`); NULL
/// for errors that are not about a call. Borrowed from `error`.
///
/// # Safety
/// `error` must be NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_path(error: *const iiko_error) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| opt_ptr(&e.path))
    })
}

/// `Retry-After` of a 429 answer in seconds, or -1 when absent.
///
/// # Safety
/// `error` must be NULL or a live error from this library.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_retry_after_s(error: *const iiko_error) -> i64 {
    guard_value(-1, || {
        // SAFETY: per this function's contract.
        unsafe { error.as_ref() }.map_or(-1, |e| e.retry_after_s)
    })
}

/// The raw body of the failed answer (any bytes, not NUL-terminated; invalid
/// UTF-8 was replaced by U+FFFD). Writes its length to `*len_out` and returns
/// a pointer borrowed from `error`; returns NULL and writes 0 when there is no
/// body. `len_out` must not be NULL (NULL is returned then).
///
/// # Safety
/// `error` must be NULL or a live error from this library; `len_out` must be
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_body(
    error: *const iiko_error,
    len_out: *mut usize,
) -> *const u8 {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        let (Some(e), Some(len)) = (unsafe { error.as_ref() }, unsafe { len_out.as_mut() }) else {
            return std::ptr::null();
        };
        if e.body.is_empty() {
            *len = 0;
            std::ptr::null()
        } else {
            *len = e.body.len();
            e.body.as_ptr()
        }
    })
}

/// Frees an error. NULL is ignored. Call it exactly once per error.
///
/// # Safety
/// `error` must be NULL or an error from this library not yet freed.
#[no_mangle]
pub unsafe extern "C" fn iiko_error_free(error: *mut iiko_error) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_error::free(error) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_leave_string_values_out() {
        let e = serde_json::from_str::<Vec<String>>(r#""s3cret \" tail""#).unwrap_err();
        let message = Failure::invalid_json("request_json", &e)
            .into_error()
            .message_text();
        assert!(
            !message.contains("s3cret") && !message.contains("tail"),
            "{message}"
        );
        assert!(message.contains("invalid type: a string"), "{message}");
        assert_eq!(
            without_string_values(r#"unknown field `organisationIds`, expected `x`"#),
            "unknown field `organisationIds`, expected `x`"
        );
    }
}
