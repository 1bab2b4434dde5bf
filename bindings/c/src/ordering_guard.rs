//! `iiko_ordering_guard`: skips webhook events that arrive after newer ones.

use std::ffi::c_char;

use iikocloud_core::limits::{ORDERING_CAPACITY, ORDERING_STORE_TTL};
use iikocloud_core::webhook::{OrderingDecision, OrderingGuard};

use crate::error::{guard, iiko_error};
use crate::events::iiko_events;
use crate::ffi::{guard_value, out_ptr, BoxCastable};
use crate::limits::read_raw;
use crate::memory::{
    handle_and_event, handle_len, memory_handle, new_handle, new_handle_with_store,
};
use crate::status::*;

/// `iiko_ordering_guard_observe`: the event is newer than every event applied
/// for its order or reserve (or the first seen); apply it.
pub const IIKO_ORDERING_APPLY: i32 = 1;
/// `iiko_ordering_guard_observe`: an event with this or a later `timestamp`
/// was already applied for the entity; skip this one.
pub const IIKO_ORDERING_STALE: i32 = 2;
/// `iiko_ordering_guard_observe`: not an order or reserve event, or it lacks
/// `eventInfo.id` or `timestamp`; the guard cannot judge it.
pub const IIKO_ORDERING_UNTRACKED: i32 = 3;

/// Remembers the last applied version (`eventInfo.timestamp`) of each order and
/// reserve, to skip events that arrive after newer ones.
///
/// Memory is bounded by its capacity (least recently seen forgotten first).
/// Thread-safe: one `const iiko_ordering_guard *` may be used by any number of
/// threads at once.
#[allow(non_camel_case_types)]
pub struct iiko_ordering_guard {
    inner: OrderingGuard,
}

memory_handle!(iiko_ordering_guard, OrderingGuard);

/// Creates an ordering guard remembering at most `capacity` orders and
/// reserves (size it above the number active at once;
/// `IIKO_DEFAULT_ORDERING_CAPACITY` is a good choice), read as
/// `iiko_limit_read_arg` reads `"ordering.capacity"`: 0 is refused with
/// `IIKO_STATUS_INVALID_ARGUMENT`.
///
/// On success writes a new handle to `*guard_out` (yours; free it with
/// `iiko_ordering_guard_free`).
///
/// # Safety
/// The out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_new(
    capacity: usize,
    guard_out: *mut *mut iiko_ordering_guard,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        new_handle(guard_out, "guard_out", || {
            let capacity = read_raw(&ORDERING_CAPACITY, capacity as u64)?.unwrap_or(1);
            Ok(OrderingGuard::new(
                usize::try_from(capacity).unwrap_or(usize::MAX),
            ))
        })
    })
}

/// Creates an ordering guard whose positions live in the store `store_url`
/// names (as for `iiko_deduplicator_new_with_store`), each kept `ttl_ms`
/// milliseconds after its last change (longer than an order lives, e.g.
/// `IIKO_DEFAULT_ORDERING_STORE_TTL_MS`; read as `"ordering.store_ttl"`: 0 is
/// refused). Positions only move forward there, whichever
/// process or machine observes the events. When the store fails later,
/// `iiko_ordering_guard_observe` logs it and answers
/// `IIKO_ORDERING_UNTRACKED`.
///
/// On success writes a new handle to `*guard_out` (yours; free it with
/// `iiko_ordering_guard_free`). Errors as for
/// `iiko_deduplicator_new_with_store`.
///
/// # Safety
/// `store_url` must be NULL or NUL-terminated; the out pointers NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_new_with_store(
    store_url: *const c_char,
    ttl_ms: u64,
    guard_out: *mut *mut iiko_ordering_guard,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        unsafe {
            new_handle_with_store(
                store_url,
                ttl_ms,
                &ORDERING_STORE_TTL,
                guard_out,
                "guard_out",
                OrderingGuard::with_store,
            )
        }
    })
}

/// Frees an ordering guard. NULL is ignored.
///
/// # Safety
/// `guard` must be NULL or a live handle, freed once, with no call running.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_free(guard: *mut iiko_ordering_guard) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_ordering_guard::free(guard) }
    })
}

/// Decides whether to apply event `index` and records it when it is newer
/// (one atomic step). Writes `IIKO_ORDERING_APPLY`, `IIKO_ORDERING_STALE` or
/// `IIKO_ORDERING_UNTRACKED` to `*decision_out`; for a stale event, when
/// `last_applied_out` is not NULL, also the timestamp last applied.
///
/// # Safety
/// `ordering` and `events` must be NULL or live handles; the out pointers NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_observe(
    ordering: *const iiko_ordering_guard,
    events: *const iiko_events,
    index: usize,
    decision_out: *mut i32,
    last_applied_out: *mut i64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (ordering, event) = unsafe { handle_and_event(ordering, "ordering", events, index) }?;
        let out = out_ptr(decision_out, "decision_out")?;
        let (decision, last) = match ordering.inner.observe(event) {
            OrderingDecision::Apply => (IIKO_ORDERING_APPLY, None),
            OrderingDecision::Stale { last_applied } => (IIKO_ORDERING_STALE, Some(last_applied)),
            OrderingDecision::Untracked => (IIKO_ORDERING_UNTRACKED, None),
        };
        // SAFETY: checked non-NULL / NULL-tested; writable per the contract.
        unsafe {
            out.write(decision);
            if let (Some(last), false) = (last, last_applied_out.is_null()) {
                last_applied_out.write(last);
            }
        }
        Ok(())
    })
}

/// Forgets the order or reserve of event `index` (e.g. once it is closed).
///
/// # Safety
/// `ordering` and `events` must be NULL or live handles; `err_out` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_forget(
    ordering: *const iiko_ordering_guard,
    events: *const iiko_events,
    index: usize,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (ordering, event) = unsafe { handle_and_event(ordering, "ordering", events, index) }?;
        ordering.inner.forget(event);
        Ok(())
    })
}

/// The number of orders and reserves remembered (0 for NULL).
///
/// # Safety
/// `ordering` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_ordering_guard_len(ordering: *const iiko_ordering_guard) -> usize {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { handle_len(ordering) }
    })
}
