//! The helpers every export goes through: the panic boundary, pointer checks,
//! string conversion and the one way each handle type crosses the ABI.
//!
//! Every `extern "C"` function body is a single call to `error::guard`
//! (status functions) or [`guard_value`] (accessors); a unit test reads the sources and
//! fails if one is not, because a forgotten boundary turns a panic into an abort
//! of the POS process.

use std::ffi::{c_char, CStr, CString};

use crate::failure::Failure;
#[cfg(test)]
use crate::status::*;

// The boundary of accessors lives in `panic` (below `status`, which needs it);
// reached from here so that every export imports its helpers from one place.
pub(crate) use crate::panic::guard_value;

/// Maps each opaque C type to how it is owned on the Rust side. Every handle
/// in this ABI is a `Box`; keeping the casts here means no export converts a
/// raw pointer with a bare `as`.
pub(crate) trait BoxCastable: Sized {
    /// Moves the value to the heap and hands ownership to C.
    fn into_raw(self) -> *mut Self {
        Box::into_raw(Box::new(self))
    }

    /// Borrows a handle the caller passed in.
    ///
    /// # Safety
    /// `ptr` must be NULL or a pointer returned by [`BoxCastable::into_raw`]
    /// for this type and not yet freed.
    unsafe fn try_ref<'a>(ptr: *const Self, name: &str) -> Result<&'a Self, Failure> {
        // SAFETY: upheld by the caller.
        unsafe { ptr.as_ref() }.ok_or_else(|| Failure::null(name))
    }

    /// Borrows a handle mutably (only for types documented as single-threaded).
    ///
    /// # Safety
    /// As [`BoxCastable::try_ref`], and no other reference may be alive.
    unsafe fn try_mut<'a>(ptr: *mut Self, name: &str) -> Result<&'a mut Self, Failure> {
        // SAFETY: upheld by the caller.
        unsafe { ptr.as_mut() }.ok_or_else(|| Failure::null(name))
    }

    /// Takes ownership back and drops the value; NULL is ignored.
    ///
    /// # Safety
    /// `ptr` must be NULL or a pointer returned by [`BoxCastable::into_raw`]
    /// for this type, freed at most once.
    unsafe fn free(ptr: *mut Self) {
        if !ptr.is_null() {
            // SAFETY: upheld by the caller.
            drop(unsafe { Box::from_raw(ptr) });
        }
    }
}

/// Checks that an out-parameter is not NULL; the pointer is written only once
/// the call has succeeded.
pub(crate) fn out_ptr<T>(ptr: *mut T, name: &str) -> Result<OutPtr<T>, Failure> {
    if ptr.is_null() {
        Err(Failure::null(name))
    } else {
        Ok(OutPtr(ptr))
    }
}

/// A checked, non-NULL out-parameter.
pub(crate) struct OutPtr<T>(*mut T);

impl<T> OutPtr<T> {
    /// Writes the result.
    ///
    /// # Safety
    /// The pointer the caller passed must be valid for one write of `T`.
    pub(crate) unsafe fn write(self, value: T) {
        // SAFETY: non-NULL (checked in out_ptr) and valid per the caller.
        unsafe { self.0.write(value) }
    }
}

/// Reads a required NUL-terminated UTF-8 argument.
///
/// # Safety
/// `ptr` must be NULL or point to a NUL-terminated string that stays valid and
/// unchanged during the call.
pub(crate) unsafe fn arg_str<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Failure> {
    // SAFETY: upheld by the caller.
    unsafe { opt_arg_str(ptr, name) }?.ok_or_else(|| Failure::null(name))
}

/// Reads an optional NUL-terminated UTF-8 argument (NULL gives `None`).
///
/// # Safety
/// As [`arg_str`].
pub(crate) unsafe fn opt_arg_str<'a>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL and NUL-terminated per the caller.
    let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
    // The argument name only, never the value: it may be a secret.
    std::str::from_utf8(bytes)
        .map(Some)
        .map_err(|e| Failure::invalid_utf8(name, e.valid_up_to()))
}

/// Reads a byte buffer given as pointer and length. A NULL pointer is allowed
/// only with a length of 0.
///
/// # Safety
/// When `len > 0`, `ptr` must point to `len` readable bytes that stay valid and
/// unchanged during the call.
pub(crate) unsafe fn arg_bytes<'a>(
    ptr: *const u8,
    len: usize,
    name: &str,
) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::null(name));
    }
    if len > isize::MAX as usize {
        return Err(Failure::invalid_argument(format!(
            "{name}_len is larger than any buffer can be"
        )));
    }
    // SAFETY: non-NULL, and `len` readable bytes per the caller.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A request header as name and value bytes.
pub(crate) type Header<'a> = (&'a [u8], &'a [u8]);

/// Reads a request's headers given as two arrays of `count` NUL-terminated
/// strings (NULL arrays only with a count of 0), for the receive calls.
///
/// # Safety
/// When `count > 0`, `names` and `values` must each point to `count`
/// pointers, each NULL or NUL-terminated, valid during the call.
pub(crate) unsafe fn arg_headers<'a>(
    names: *const *const c_char,
    values: *const *const c_char,
    count: usize,
) -> Result<Vec<Header<'a>>, Failure> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if names.is_null() || values.is_null() {
        return Err(Failure::null("header_names / header_values"));
    }
    // The count comes from the caller: the capacity is only a hint.
    let mut headers = Vec::with_capacity(count.min(1024));
    for i in 0..count {
        // SAFETY: both arrays hold `count` pointers per the caller.
        let (name, value) = unsafe { (*names.add(i), *values.add(i)) };
        if name.is_null() || value.is_null() {
            return Err(Failure::null("a header name or value"));
        }
        // SAFETY: NUL-terminated per the caller.
        let (name, value) = unsafe { (CStr::from_ptr(name), CStr::from_ptr(value)) };
        headers.push((name.to_bytes(), value.to_bytes()));
    }
    Ok(headers)
}

/// Text for C: a NUL inside the value ends the C string there (C cannot
/// represent it); JSON outputs never contain one, since JSON escapes it.
pub(crate) fn c_string(text: &str) -> CString {
    CString::new(text).unwrap_or_else(cut_at_nul)
}

/// The text before the first NUL of a string that had one.
fn cut_at_nul(e: std::ffi::NulError) -> CString {
    let end = e.nul_position();
    let mut bytes = e.into_vec();
    bytes.truncate(end);
    // `bytes` now has no NUL at all.
    CString::new(bytes).unwrap_or_default()
}

/// A string handed to C, to be freed with `iiko_string_free`.
pub(crate) fn owned_c_string(text: &str) -> *mut c_char {
    c_string(text).into_raw()
}

/// The pointer C borrows from an optional stored string (NULL when absent).
pub(crate) fn opt_ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_string_cuts_at_an_inner_nul() {
        assert_eq!(c_string("ab\0cd").as_bytes(), b"ab");
        assert_eq!(c_string("").as_bytes(), b"");
        assert_eq!(c_string("Москва").to_str().unwrap(), "Москва");
    }

    #[test]
    fn byte_arguments() {
        // SAFETY: the pointers below are NULL or point into `data`.
        unsafe {
            assert_eq!(arg_bytes(std::ptr::null(), 0, "body").unwrap(), b"");
            assert_eq!(
                arg_bytes(std::ptr::null(), 3, "body").unwrap_err().status(),
                IIKO_STATUS_NULL_ARGUMENT
            );
            let data = b"xyz";
            assert_eq!(arg_bytes(data.as_ptr(), 2, "body").unwrap(), b"xy");
            assert_eq!(
                arg_bytes(data.as_ptr(), usize::MAX, "body")
                    .unwrap_err()
                    .status(),
                IIKO_STATUS_INVALID_ARGUMENT
            );
        }
    }

    #[test]
    fn string_arguments() {
        let bad = b"ab\xffc\0";
        // SAFETY: NUL-terminated literals.
        unsafe {
            let e = arg_str(bad.as_ptr().cast(), "app_id").unwrap_err();
            assert_eq!(e.status(), IIKO_STATUS_INVALID_UTF8);
            assert!(e.into_error().message_text().contains("app_id"));
            assert_eq!(opt_arg_str(std::ptr::null(), "x").unwrap(), None::<&str>);
            assert_eq!(arg_str(c"hé".as_ptr(), "x").unwrap(), "hé");
        }
    }
}
