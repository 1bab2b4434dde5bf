//! The C ABI of the iikocloud SDK.
//!
//! This crate builds `libiikocloud.so` and `libiikocloud.a`; its exported
//! functions are declared in `include/iikocloud.h`, which cbindgen generates
//! from these sources (`bindings/c/cbindgen.toml`). All `unsafe` code of the
//! project lives here. The conventions (ownership, errors, threads) are
//! described in the header's preamble and in `bindings/c/README.md`.

// The one crate with unsafe code (the workspace denies it elsewhere).
#![allow(unsafe_code)]

#[cfg(test)]
mod bench;
pub mod client;
pub mod deduplicator;
pub mod error;
pub mod event_fields;
pub mod event_kinds;
pub mod events;
mod failure;
mod ffi;
pub mod inbox;
pub mod limits;
mod memory;
pub mod op_table;
pub mod operations;
pub mod ordering_guard;
pub mod organizations;
mod panic;
pub mod status;
pub mod telemetry;
pub mod webhook;

use std::ffi::{c_char, CString};

#[cfg(feature = "test-hooks")]
use error::guard;
use ffi::guard_value;

/// The library version, e.g. `"0.1.0"` (the same as the `IIKO_VERSION_*`
/// macros of the header it was built with). Static: do not free it.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_version() -> *const c_char {
    guard_value(std::ptr::null(), || VERSION.as_ptr())
}

const VERSION: &std::ffi::CStr = match std::ffi::CStr::from_bytes_with_nul(
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
) {
    Ok(v) => v,
    Err(_) => panic!("the package version contains a NUL"),
};

/// Frees a string the library returned through a `char **` out-parameter.
/// NULL is ignored. Never pass it to `free()`, and never pass this function a
/// string you did not get from the library, or a borrowed one (`const char *`).
///
/// # Safety
/// `s` must be NULL or a string returned by this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn iiko_string_free(s: *mut c_char) {
    guard_value((), || {
        if !s.is_null() {
            // SAFETY: per this function's contract, `s` came from
            // CString::into_raw in this library.
            drop(unsafe { CString::from_raw(s) });
        }
    })
}

/// Panics inside the library on purpose and returns what the panic boundary
/// makes of it: `IIKO_STATUS_PANIC`, with an error in `*err_out` when
/// `err_out` is not NULL. It exists to test that the boundary is live in this
/// build; a library built with `panic = "abort"` aborts the process here.
/// Prints a panic message to stderr.
///
/// Only in a library built with the `test-hooks` feature (the test scripts);
/// not in `include/iikocloud.h` (cbindgen.toml excludes it) but in the test
/// programs' `tests/c/test_hooks.h`.
///
/// # Safety
/// `err_out` must be NULL or writable.
#[cfg(feature = "test-hooks")]
#[no_mangle]
pub unsafe extern "C" fn iiko_debug_force_panic(
    err_out: *mut *mut error::iiko_error,
) -> status::iiko_status {
    guard(err_out, || panic!("iiko_debug_force_panic was called"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::*;

    /// Every export must sit behind the panic boundary (rustls-ffi #286 found
    /// one that did not): the first statement of each `extern "C"` body is a
    /// call to `guard` or `guard_value`.
    #[test]
    fn every_export_is_guarded() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut exports = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let mut rest = text.as_str();
            while let Some(at) = rest.find("extern \"C\" fn ") {
                let after = &rest[at..];
                let open = after.find('{').unwrap();
                let body = after[open + 1..].trim_start();
                let name: String = after["extern \"C\" fn ".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                assert!(
                    body.starts_with("guard(")
                        || body.starts_with("guard_value(")
                        || body.starts_with("ffi::guard(")
                        || body.starts_with("crate::ffi::guard_value("),
                    "{}: {name} is not wrapped in the panic boundary",
                    path.display()
                );
                exports += 1;
                rest = &after[open..];
            }
        }
        assert!(exports > 20, "found only {exports} exports");
    }

    #[cfg(feature = "test-hooks")]
    #[test]
    fn a_panic_becomes_a_status() {
        let mut err: *mut error::iiko_error = std::ptr::null_mut();
        // SAFETY: `err` is a writable out-parameter.
        let status = unsafe { iiko_debug_force_panic(&mut err) };
        assert_eq!(status, IIKO_STATUS_PANIC);
        assert!(!err.is_null());
        // SAFETY: a live error from the call above, freed once.
        unsafe {
            assert_eq!(error::iiko_error_status(err), IIKO_STATUS_PANIC);
            let message = std::ffi::CStr::from_ptr(error::iiko_error_message(err));
            assert!(message.to_str().unwrap().contains("iiko_debug_force_panic"));
            error::iiko_error_free(err);
        }
        // The accessor boundary returns its fallback instead of unwinding.
        assert_eq!(ffi::guard_value(7, || panic!("boom")), 7);
    }

    #[test]
    fn version_matches_the_header_macros() {
        // The header's macros come from cbindgen.toml; the C test checks them
        // against this runtime value and Cargo.toml as well.
        let toml = include_str!("../cbindgen.toml");
        let v = env!("CARGO_PKG_VERSION");
        let mut parts = v.split('.');
        for (name, value) in ["MAJOR", "MINOR", "PATCH"].iter().zip(&mut parts) {
            let line = format!("#define IIKO_VERSION_{name} {value}\n");
            assert!(toml.contains(&line), "cbindgen.toml lacks {line:?}");
        }
        assert!(toml.contains(&format!("#define IIKO_VERSION_STRING \"{v}\"")));
        // SAFETY: a static NUL-terminated string.
        let runtime = unsafe { std::ffi::CStr::from_ptr(iiko_version()) };
        assert_eq!(runtime.to_str().unwrap(), v);
    }

    #[test]
    fn the_default_base_url_define_is_the_cores() {
        // Written in cbindgen.toml (cbindgen writes no string constants).
        let toml = include_str!("../cbindgen.toml");
        let line = format!(
            "#define IIKO_DEFAULT_BASE_URL \"{}\"\n",
            iikocloud_core::client::DEFAULT_BASE_URL
        );
        assert!(toml.contains(&line), "cbindgen.toml lacks {line:?}");
    }

    #[test]
    fn status_texts_are_named_after_their_constant() {
        for (code, name) in [
            (IIKO_STATUS_OK, "IIKO_STATUS_OK"),
            (IIKO_STATUS_NULL_ARGUMENT, "IIKO_STATUS_NULL_ARGUMENT"),
            (IIKO_STATUS_API_DECODE, "IIKO_STATUS_API_DECODE"),
            (IIKO_STATUS_PANIC, "IIKO_STATUS_PANIC"),
        ] {
            // SAFETY: a static NUL-terminated string.
            let text = unsafe { std::ffi::CStr::from_ptr(iiko_status_str(code)) };
            assert!(text.to_str().unwrap().starts_with(name));
        }
    }
}
