//! `iiko_error`: the detail of a failed call.

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use iikocloud_core::Error;

pub(crate) use crate::failure::Failure;
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

impl Failure {
    /// The C error object for this failure, built only when the caller asked for one.
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

/// Runs a fallible export body behind the panic boundary.
///
/// Returns `IIKO_STATUS_OK` on success. On failure (or a caught panic) writes a
/// new error to `*err_out` when `err_out` is not NULL and returns its status.
/// It lives beside `iiko_error` because it is what creates one.
pub(crate) fn guard(
    err_out: *mut *mut iiko_error,
    body: impl FnOnce() -> Result<(), Failure>,
) -> iiko_status {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return IIKO_STATUS_OK,
        Ok(Err(failure)) => failure,
        Err(payload) => Failure::panic(payload.as_ref()),
    };
    let status = failure.status();
    if !err_out.is_null() {
        // Building the error can itself panic only on allocation failure,
        // which aborts anyway; the status is returned either way.
        if let Ok(error) = catch_unwind(AssertUnwindSafe(|| Box::new(failure.into_error()))) {
            // SAFETY: err_out is non-NULL and the caller promises it points to
            // writable storage for one pointer.
            unsafe { err_out.write(Box::into_raw(error)) };
        }
    }
    status
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
