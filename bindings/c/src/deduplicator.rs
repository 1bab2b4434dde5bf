//! `iiko_deduplicator`: drops repeated deliveries of webhook events.

use std::ffi::c_char;
use std::time::Duration;

use iikocloud_core::limits::{DEDUP_CAPACITY, DEDUP_MAX_AGE};
use iikocloud_core::webhook::{Deduplicator, EventKey};

use crate::error::{guard, iiko_error};
use crate::events::iiko_events;
use crate::ffi::{arg_str, guard_value, out_ptr, BoxCastable};
use crate::limits::read_raw;
use crate::memory::{
    handle_and_event, handle_len, memory_handle, new_handle, new_handle_with_store,
};
use crate::status::*;

/// Remembers the events already handled, to drop repeated deliveries (the
/// service resends an event until it gets a prompt 200).
///
/// Memory is bounded by its capacity; an entry is forgotten after its max age.
/// Thread-safe: one `const iiko_deduplicator *` may be used by any number of
/// threads at once. It lives in memory only: to de-duplicate across restarts,
/// store `iiko_events_dedup_key` yourself.
#[allow(non_camel_case_types)]
pub struct iiko_deduplicator {
    inner: Deduplicator,
}

memory_handle!(iiko_deduplicator, Deduplicator);

/// Creates a de-duplicator remembering at most `capacity` events, each for
/// `max_age_ms` milliseconds (`IIKO_DEFAULT_DEDUP_CAPACITY` and
/// `IIKO_DEFAULT_DEDUP_MAX_AGE_MS` are good choices). Both are read as
/// `iiko_limit_read_arg` reads `"dedup.capacity"` and `"dedup.max_age"`: 0 is
/// refused with `IIKO_STATUS_INVALID_ARGUMENT`.
///
/// On success writes a new handle to `*dedup_out` (yours; free it with
/// `iiko_deduplicator_free`).
///
/// # Safety
/// The out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_new(
    capacity: usize,
    max_age_ms: u64,
    dedup_out: *mut *mut iiko_deduplicator,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        new_handle(dedup_out, "dedup_out", || {
            let capacity = read_raw(&DEDUP_CAPACITY, capacity as u64)?.unwrap_or(1);
            let max_age = read_raw(&DEDUP_MAX_AGE, max_age_ms)?.unwrap_or(max_age_ms);
            Ok(Deduplicator::new(
                usize::try_from(capacity).unwrap_or(usize::MAX),
                Duration::from_millis(max_age),
            ))
        })
    })
}

/// Creates a de-duplicator whose keys live in the store `store_url` names,
/// each for `max_age_ms` milliseconds (read as `"dedup.max_age"`: 0 is
/// refused): `"memory:"` (this
/// process), `"sqlite:///absolute/path.db"` (the processes of one machine,
/// e.g. PHP-FPM workers) or `"redis://[:password@]host:port/db"` (every
/// machine). A key is first seen by exactly one caller among all sharing the
/// store. When the store fails later, `iiko_deduplicator_first_seen` logs it
/// and answers 1 (an event handled twice rather than lost).
///
/// On success writes a new handle to `*dedup_out` (yours; free it with
/// `iiko_deduplicator_free`). A malformed URL is `IIKO_STATUS_INVALID_CONFIG`,
/// a store that cannot be reached `IIKO_STATUS_TRANSPORT_CONNECT`; error
/// messages never contain the password.
///
/// # Safety
/// `store_url` must be NULL or NUL-terminated; the out pointers NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_new_with_store(
    store_url: *const c_char,
    max_age_ms: u64,
    dedup_out: *mut *mut iiko_deduplicator,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        unsafe {
            new_handle_with_store(
                store_url,
                max_age_ms,
                &DEDUP_MAX_AGE,
                dedup_out,
                "dedup_out",
                Deduplicator::with_store,
            )
        }
    })
}

/// Whether event `index` makes its delivery order new for the first time:
/// writes 1 once per order id (the service sends both `Unconfirmed` and
/// `WaitCooking` for one order, and `iiko_events_is_new_delivery_order` is 1
/// for both), 0 for later ones and for every other event. Remembered like the
/// de-duplicator's keys (in its store, if it has one).
///
/// # Safety
/// `dedup` and `events` must be NULL or live handles; the out pointers NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_first_new_order(
    dedup: *const iiko_deduplicator,
    events: *const iiko_events,
    index: usize,
    first_out: *mut i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (dedup, event) = unsafe { handle_and_event(dedup, "dedup", events, index) }?;
        let out = out_ptr(first_out, "first_out")?;
        let first = dedup.inner.first_new_order(event);
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(i32::from(first)) };
        Ok(())
    })
}

/// Frees a de-duplicator. NULL is ignored.
///
/// # Safety
/// `dedup` must be NULL or a live handle, freed once, with no call running.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_free(dedup: *mut iiko_deduplicator) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_deduplicator::free(dedup) }
    })
}

/// Whether event `index` is seen for the first time: writes 1 to
/// `*first_seen_out` (and remembers it) or 0 for a repeat. Check and record
/// are one atomic step. An index out of range is `IIKO_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `dedup` and `events` must be NULL or live handles; the out pointers NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_first_seen(
    dedup: *const iiko_deduplicator,
    events: *const iiko_events,
    index: usize,
    first_seen_out: *mut i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (dedup, event) = unsafe { handle_and_event(dedup, "dedup", events, index) }?;
        let out = out_ptr(first_seen_out, "first_seen_out")?;
        let first = dedup.inner.first_seen(event);
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(i32::from(first)) };
        Ok(())
    })
}

/// `iiko_deduplicator_first_seen` for a key text from `iiko_events_dedup_key`,
/// e.g. read back from your store after a restart: writes 1 to
/// `*first_seen_out` (and remembers the key) or 0 for a repeat.
///
/// # Safety
/// `dedup` must be NULL or a live handle; `key` NULL or NUL-terminated; the
/// out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_first_seen_key(
    dedup: *const iiko_deduplicator,
    key: *const c_char,
    first_seen_out: *mut i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (dedup, key) = unsafe {
            (
                iiko_deduplicator::try_ref(dedup, "dedup")?,
                arg_str(key, "key")?,
            )
        };
        let out = out_ptr(first_seen_out, "first_seen_out")?;
        let first = dedup.inner.first_seen_key(&EventKey::from_stored(key));
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(i32::from(first)) };
        Ok(())
    })
}

/// Forgets event `index`, so that its next delivery counts as new (e.g. when
/// handling it failed and a resend should be processed).
///
/// # Safety
/// `dedup` and `events` must be NULL or live handles; `err_out` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_forget(
    dedup: *const iiko_deduplicator,
    events: *const iiko_events,
    index: usize,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (dedup, event) = unsafe { handle_and_event(dedup, "dedup", events, index) }?;
        dedup.inner.forget(event);
        Ok(())
    })
}

/// The number of events remembered (0 for NULL).
///
/// # Safety
/// `dedup` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_deduplicator_len(dedup: *const iiko_deduplicator) -> usize {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { handle_len(dedup) }
    })
}
