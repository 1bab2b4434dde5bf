//! `iiko_inbox` and `iiko_delivery`: the durable inbox of webhook events
//! (`iikocloud::inbox`), on a SQLite file or Redis.

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::sync::Mutex;

use iikocloud_core::inbox::{Delivery, Inbox, InboxOptions};
use iikocloud_core::limits::Given;
use iikocloud_core::store::Store;
use iikocloud_core::webhook::Receiver;

use crate::error::{guard, iiko_error, Failure};
use crate::ffi::{
    arg_bytes, arg_headers, arg_str, c_string, guard_value, opt_arg_str, out_ptr, owned_c_string,
    BoxCastable,
};
use crate::memory::{open_store, store_failure};
use crate::status::*;

/// A durable inbox: the receive path stores the events before answering 200,
/// workers take them and acknowledge them. Thread-safe: one
/// `const iiko_inbox *` may be used by any number of threads at once, and
/// processes (SQLite) or machines (Redis) share the inbox through its URL.
#[allow(non_camel_case_types)]
pub struct iiko_inbox {
    inner: Inbox,
    /// Stores passed to `iiko_inbox_receive`, opened once per URL (opening
    /// one connects or opens a file).
    stores: Mutex<HashMap<String, Store>>,
}

impl BoxCastable for iiko_inbox {}

/// One event handed out by `iiko_inbox_take`. Read-only; its strings live as
/// long as the handle.
#[allow(non_camel_case_types)]
pub struct iiko_delivery {
    inner: Delivery,
    id: CString,
    key: CString,
    event_json: CString,
}

impl BoxCastable for iiko_delivery {}

impl iiko_inbox {
    fn store(&self, url: &str) -> Result<Store, Failure> {
        let mut stores = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = stores.get(url) {
            return Ok(s.clone());
        }
        let opened = open_store(url)?;
        stores.insert(url.to_owned(), opened.clone());
        Ok(opened)
    }
}

/// Opens the inbox `url` names: `"sqlite:///absolute/path.db"` (shared by the
/// processes of one machine) or `"redis://[:password@]host:port/db"` (shared
/// by every machine). `"memory:"` is refused: an inbox must outlive the
/// process.
///
/// `visibility_timeout_ms`: how long a taken event stays hidden before it is
/// handed out again (0: `IIKO_DEFAULT_VISIBILITY_TIMEOUT_MS`). `max_attempts`:
/// deliveries of one event before it goes to the dead letters (0:
/// `IIKO_DEFAULT_MAX_ATTEMPTS`). `dedup_ttl_ms`: how long a key is remembered
/// to drop repeats (0: `IIKO_DEFAULT_DEDUP_TTL_MS`). Read as `iiko_limit_read`
/// reads `"inbox.visibility_timeout"`, `"inbox.max_attempts"` and
/// `"inbox.dedup_ttl"`.
///
/// On success writes a new handle to `*inbox_out` (yours; free it with
/// `iiko_inbox_free`). A malformed URL is `IIKO_STATUS_INVALID_CONFIG`, an
/// unreachable server `IIKO_STATUS_TRANSPORT_CONNECT`; messages never contain
/// the password.
///
/// # Safety
/// `url` must be NULL or NUL-terminated; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_inbox_open(
    url: *const c_char,
    visibility_timeout_ms: u64,
    max_attempts: u32,
    dedup_ttl_ms: u64,
    inbox_out: *mut *mut iiko_inbox,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let url = unsafe { arg_str(url, "url") }?;
        let out = out_ptr(inbox_out, "inbox_out")?;
        let options = InboxOptions::read(
            Given::Raw(visibility_timeout_ms),
            Given::Raw(u64::from(max_attempts)),
            Given::Raw(dedup_ttl_ms),
        )?;
        let inner = Inbox::open_with(url, options).map_err(store_failure)?;
        let inbox = iiko_inbox {
            inner,
            stores: Mutex::new(HashMap::new()),
        };
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(inbox.into_raw()) };
        Ok(())
    })
}

/// The receive path of a webhook endpoint: verifies the `Authorization`
/// header against `expected_token`, parses the body, drops repeats, writes the
/// new events and only then says what to answer.
///
/// The headers and body are those of `iiko_webhook_receive`.
/// `store_url_or_null`: NULL, or a store URL (as for
/// `iiko_deduplicator_new_with_store`) shared by several inboxes behind one
/// load balancer, to drop repeats across them (opened once, then kept).
///
/// Returns `IIKO_STATUS_OK` whenever the request was handled, whatever its
/// verdict: answer `*http_status_out` at once (200 once stored, also for an
/// authentic body that cannot be read, which goes to the dead letters; 401 for
/// a wrong token; 500 for an empty expected token; 503 when the inbox could
/// not be written, so the service resends). `*stored_out` and
/// `*repeats_out` (each may be NULL) get the events written and dropped.
/// `*reason_out` (may be NULL) gets NULL, or why the request was not a plain
/// success (yours; free it with `iiko_string_free`; never holds a secret).
/// Other statuses are for bad arguments (NULL, invalid UTF-8, a store URL
/// that cannot be opened).
///
/// # Safety
/// `inbox` must be NULL or a live handle; `expected_token` and
/// `store_url_or_null` NULL or NUL-terminated; the header arrays NULL or
/// holding `header_count` NULL or NUL-terminated strings; `body` NULL or
/// pointing to `body_len` bytes; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_inbox_receive(
    inbox: *const iiko_inbox,
    expected_token: *const c_char,
    store_url_or_null: *const c_char,
    header_names: *const *const c_char,
    header_values: *const *const c_char,
    header_count: usize,
    body: *const c_char,
    body_len: usize,
    http_status_out: *mut i32,
    stored_out: *mut usize,
    repeats_out: *mut usize,
    reason_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let inbox = unsafe { iiko_inbox::try_ref(inbox, "inbox") }?;
        // SAFETY: per this function's contract.
        let expected = unsafe { arg_str(expected_token, "expected_token") }?;
        // SAFETY: per this function's contract.
        let store_url = unsafe { opt_arg_str(store_url_or_null, "store_url_or_null") }?;
        // SAFETY: per this function's contract.
        let body = unsafe { arg_bytes(body.cast(), body_len, "body") }?;
        let status_out = out_ptr(http_status_out, "http_status_out")?;
        // SAFETY: per this function's contract.
        let headers = unsafe { arg_headers(header_names, header_values, header_count) }?;
        let store = store_url.map(|u| inbox.store(u)).transpose()?;
        let received = inbox
            .inner
            .receive(&Receiver::new(expected), store.as_ref(), headers, body);
        // SAFETY: each out pointer is checked non-NULL (or skipped) and
        // writable per the contract.
        unsafe {
            status_out.write(i32::from(received.status));
            if !stored_out.is_null() {
                stored_out.write(received.stored);
            }
            if !repeats_out.is_null() {
                repeats_out.write(received.repeats);
            }
            if !reason_out.is_null() {
                reason_out.write(
                    received
                        .error
                        .as_deref()
                        .map_or(std::ptr::null_mut(), owned_c_string),
                );
            }
        }
        Ok(())
    })
}

/// Takes the next event, hiding it from other consumers for the visibility
/// timeout. Writes a new handle to `*delivery_out` (yours; free it with
/// `iiko_delivery_free`), or NULL when nothing is waiting. Acknowledge it
/// with `iiko_inbox_ack` once handled, or hand it back with
/// `iiko_inbox_release`.
///
/// # Safety
/// `inbox` must be NULL or a live handle; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_inbox_take(
    inbox: *const iiko_inbox,
    delivery_out: *mut *mut iiko_delivery,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let inbox = unsafe { iiko_inbox::try_ref(inbox, "inbox") }?;
        let out = out_ptr(delivery_out, "delivery_out")?;
        let taken = inbox.inner.take().map_err(store_failure)?;
        let handle = taken.map_or(std::ptr::null_mut(), |d| {
            iiko_delivery {
                id: c_string(d.id()),
                key: c_string(d.key()),
                event_json: c_string(d.event_json()),
                inner: d,
            }
            .into_raw()
        });
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(handle) };
        Ok(())
    })
}

/// Acknowledges a delivery: the event is done and removed. Writes 1 to
/// `*acked_out` (may be NULL), or 0 when this delivery no longer holds the
/// event (its visibility timeout passed and it was handed out again, or it
/// was already acknowledged).
///
/// # Safety
/// `inbox` and `delivery` must be NULL or live handles; the out pointers NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_inbox_ack(
    inbox: *const iiko_inbox,
    delivery: *const iiko_delivery,
    acked_out: *mut i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let inbox = unsafe { iiko_inbox::try_ref(inbox, "inbox") }?;
        // SAFETY: per this function's contract.
        let delivery = unsafe { iiko_delivery::try_ref(delivery, "delivery") }?;
        let acked = inbox.inner.ack(&delivery.inner).map_err(store_failure)?;
        if !acked_out.is_null() {
            // SAFETY: non-NULL and writable per the contract.
            unsafe { acked_out.write(i32::from(acked)) };
        }
        Ok(())
    })
}

/// Hands an event back after a failure, with `reason` (NUL-terminated UTF-8):
/// it is delivered again at once, or goes to the dead letters with this
/// reason once it has had `max_attempts` deliveries.
///
/// # Safety
/// `inbox` and `delivery` must be NULL or live handles; `reason` NULL or
/// NUL-terminated; `err_out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_inbox_release(
    inbox: *const iiko_inbox,
    delivery: *const iiko_delivery,
    reason: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let inbox = unsafe { iiko_inbox::try_ref(inbox, "inbox") }?;
        // SAFETY: per this function's contract.
        let delivery = unsafe { iiko_delivery::try_ref(delivery, "delivery") }?;
        // SAFETY: per this function's contract.
        let reason = unsafe { arg_str(reason, "reason") }?;
        inbox
            .inner
            .release(&delivery.inner, reason)
            .map_err(store_failure)
    })
}

/// How many events are pending (waiting or taken, not acknowledged) and
/// dead. Either out pointer may be NULL.
///
/// # Safety
/// `inbox` must be NULL or a live handle; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_inbox_counts(
    inbox: *const iiko_inbox,
    pending_out: *mut u64,
    dead_out: *mut u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let inbox = unsafe { iiko_inbox::try_ref(inbox, "inbox") }?;
        let counts = inbox.inner.counts().map_err(store_failure)?;
        // SAFETY: each pointer is checked non-NULL and writable per the contract.
        unsafe {
            if !pending_out.is_null() {
                pending_out.write(counts.pending);
            }
            if !dead_out.is_null() {
                dead_out.write(counts.dead);
            }
        }
        Ok(())
    })
}

/// Up to `limit` dead letters, oldest first, as a JSON array of
/// `{"id","key","body","attempts","reason"}` written to `*json_out` (yours;
/// free it with `iiko_string_free`).
///
/// # Safety
/// `inbox` must be NULL or a live handle; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_inbox_dead_letters_json(
    inbox: *const iiko_inbox,
    limit: usize,
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let inbox = unsafe { iiko_inbox::try_ref(inbox, "inbox") }?;
        let out = out_ptr(json_out, "json_out")?;
        let letters = inbox.inner.dead_letters(limit).map_err(store_failure)?;
        let json: Vec<serde_json::Value> = letters
            .into_iter()
            .map(|d| {
                serde_json::json!({
                    "id": d.id, "key": d.key, "body": d.body,
                    "attempts": d.attempts, "reason": d.reason,
                })
            })
            .collect();
        let text = serde_json::Value::Array(json).to_string();
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(owned_c_string(&text)) };
        Ok(())
    })
}

/// Frees an inbox (the events stay in the file or server). NULL is ignored.
///
/// # Safety
/// `inbox` must be NULL or a live handle, freed once, with no call running.
#[no_mangle]
pub unsafe extern "C" fn iiko_inbox_free(inbox: *mut iiko_inbox) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_inbox::free(inbox) }
    })
}

/// The inbox's id of the event (a row number or a Redis stream id); NULL for
/// a NULL handle. Lives as long as the delivery.
///
/// # Safety
/// `delivery` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_delivery_id(delivery: *const iiko_delivery) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { delivery.as_ref() }.map_or(std::ptr::null(), |d| d.id.as_ptr())
    })
}

/// The event's de-duplication key (as `iiko_events_dedup_key`); NULL for a
/// NULL handle. Lives as long as the delivery.
///
/// # Safety
/// `delivery` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_delivery_key(delivery: *const iiko_delivery) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { delivery.as_ref() }.map_or(std::ptr::null(), |d| d.key.as_ptr())
    })
}

/// The event as received: one JSON object of the posted array; NULL for a
/// NULL handle. Lives as long as the delivery. `iiko_webhook_parse` reads it
/// into an `iiko_events` of one event (a single object is accepted by
/// default).
///
/// # Safety
/// `delivery` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_delivery_event_json(delivery: *const iiko_delivery) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { delivery.as_ref() }.map_or(std::ptr::null(), |d| d.event_json.as_ptr())
    })
}

/// Which delivery of the event this is, from 1; 0 for a NULL handle.
///
/// # Safety
/// `delivery` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_delivery_attempt(delivery: *const iiko_delivery) -> u32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { delivery.as_ref() }.map_or(0, |d| d.inner.attempt())
    })
}

/// When the receiver stored the event, in milliseconds since the epoch; 0
/// for a NULL handle.
///
/// # Safety
/// `delivery` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_delivery_received_at_ms(delivery: *const iiko_delivery) -> i64 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { delivery.as_ref() }.map_or(0, |d| d.inner.received_at_ms())
    })
}

/// Frees a delivery (acknowledge or release it first, or it comes back after
/// the visibility timeout). NULL is ignored.
///
/// # Safety
/// `delivery` must be NULL or a live handle, freed once, with no call running.
#[no_mangle]
pub unsafe extern "C" fn iiko_delivery_free(delivery: *mut iiko_delivery) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_delivery::free(delivery) }
    })
}
