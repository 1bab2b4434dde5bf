//! What `iiko_deduplicator` and `iiko_ordering_guard` share: both hold one
//! core object that remembers events, in this process or in a store a URL
//! names. Their constructors, `_with_store` constructors and `_len` accessors
//! differ only in the core type and the argument names, so the bodies live
//! here once.

use std::ffi::c_char;
use std::time::Duration;

use iikocloud_core::limits::Limit;
use iikocloud_core::store::{Store, StoreError};
use iikocloud_core::webhook::Event;

use crate::events::{event_arg, iiko_events};
use crate::failure::Failure;
use crate::ffi::{arg_str, out_ptr, BoxCastable};
use crate::status::*;

/// A handle over a core object that remembers events.
pub(crate) trait MemoryHandle: BoxCastable {
    /// The core type (`Deduplicator`, `OrderingGuard`).
    type Core;
    /// Wraps a new core object in its C handle.
    fn wrap(inner: Self::Core) -> Self;
    /// How many entries the core object remembers.
    fn len(&self) -> usize;
}

/// Makes `$handle` (a struct with one field `inner: $core`) a Box-owned
/// handle over a `MemoryHandle` core: the impls both handle types would
/// otherwise repeat.
macro_rules! memory_handle {
    ($handle:ident, $core:ty) => {
        impl $crate::ffi::BoxCastable for $handle {}

        impl $crate::memory::MemoryHandle for $handle {
            type Core = $core;
            fn wrap(inner: $core) -> Self {
                $handle { inner }
            }
            fn len(&self) -> usize {
                self.inner.len()
            }
        }
    };
}
pub(crate) use memory_handle;

/// Opens the store a URL names, for the `_with_store` constructors and the
/// client's token store: a bad URL is `IIKO_STATUS_INVALID_CONFIG`, an
/// unreachable store `IIKO_STATUS_TRANSPORT_CONNECT`; the message never holds
/// a password.
pub(crate) fn open_store(store_url: &str) -> Result<Store, Failure> {
    Store::open(store_url).map_err(store_failure)
}

/// A store or inbox error as a failure: a bad URL or option is
/// `IIKO_STATUS_INVALID_CONFIG`, a backend that fails
/// `IIKO_STATUS_TRANSPORT_CONNECT`; the message never holds a password.
pub(crate) fn store_failure(e: StoreError) -> Failure {
    let status = match e {
        StoreError::Backend { .. } | StoreError::Timeout { .. } => IIKO_STATUS_TRANSPORT_CONNECT,
        _ => IIKO_STATUS_INVALID_CONFIG,
    };
    Failure::new(status, e.to_string())
}

/// The body of an in-memory constructor: checks the out-parameter, then
/// `make` (which checks its own sizes) builds the core object.
pub(crate) fn new_handle<H: MemoryHandle>(
    handle_out: *mut *mut H,
    out_name: &str,
    make: impl FnOnce() -> Result<H::Core, Failure>,
) -> Result<(), Failure> {
    let out = out_ptr(handle_out, out_name)?;
    let inner = make()?;
    // SAFETY: checked non-NULL; writable per the export's contract.
    unsafe { out.write(H::wrap(inner).into_raw()) };
    Ok(())
}

/// The body of a `_with_store` constructor: the URL, the out-parameter and a
/// lifetime in milliseconds read by its `limit`, in that order of checking,
/// then the store is opened.
///
/// # Safety
/// `store_url` must be NULL or NUL-terminated.
pub(crate) unsafe fn new_handle_with_store<H: MemoryHandle>(
    store_url: *const c_char,
    ms: u64,
    limit: &Limit,
    handle_out: *mut *mut H,
    out_name: &str,
    make: impl FnOnce(Store, Duration) -> H::Core,
) -> Result<(), Failure> {
    // SAFETY: per the caller.
    let url = unsafe { arg_str(store_url, "store_url") }?;
    let out = out_ptr(handle_out, out_name)?;
    let ms = limit.read_raw(ms)?.unwrap_or(ms);
    let inner = make(open_store(url)?, Duration::from_millis(ms));
    // SAFETY: checked non-NULL; writable per the export's contract.
    unsafe { out.write(H::wrap(inner).into_raw()) };
    Ok(())
}

/// Borrows a memory handle and event `index` of `events`, the arguments of
/// every call that judges or records an event (checked in that order).
///
/// # Safety
/// `handle` and `events` must be NULL or live handles.
pub(crate) unsafe fn handle_and_event<'a, H: MemoryHandle>(
    handle: *const H,
    name: &str,
    events: *const iiko_events,
    index: usize,
) -> Result<(&'a H, &'a Event), Failure> {
    // SAFETY: per the caller.
    unsafe { Ok((H::try_ref(handle, name)?, event_arg(events, index)?)) }
}

/// The body of a `_len` accessor: 0 for NULL.
///
/// # Safety
/// `handle` must be NULL or a live handle.
pub(crate) unsafe fn handle_len<H: MemoryHandle>(handle: *const H) -> usize {
    // SAFETY: per the caller.
    unsafe { handle.as_ref() }.map_or(0, H::len)
}
