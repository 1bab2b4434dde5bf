//! `iiko_events`: the events of one webhook body, their accessors, and the
//! generated event fields (`iiko_event_field`) read from them.

use std::cell::UnsafeCell;
use std::ffi::{c_char, CString};
use std::fmt::Write as _;
use std::mem::MaybeUninit;
use std::ptr::addr_of_mut;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use bumpalo::Bump;

use chrono::{Datelike, Timelike};

use iikocloud_core::money::Money;
use iikocloud_core::webhook::{Event, EventKey, EventKind, ParsedBody};

use crate::error::{guard, iiko_error, Failure};
use crate::event_fields::iiko_event_field;
use crate::event_kinds::IIKO_EVENT_UNKNOWN;
use crate::ffi::{guard_value, out_ptr, BoxCastable};
use crate::status::iiko_status;

// The event types (IIKO_EVENT_*) are generated: event_kinds.rs.

/// The events of one webhook body, with per-event accessors taking an index
/// from 0 to `iiko_events_count() - 1`.
///
/// Yours after `iiko_webhook_parse` / `iiko_webhook_receive`; free it with
/// `iiko_events_free`. Immutable: it may be read from several threads at once.
/// Strings read from it are borrowed and stay valid until it is freed. String
/// accessors return NULL when the value is absent (or `null`, or of the wrong
/// type in the body), when the index is out of range, or for a NULL handle.
#[allow(non_camel_case_types)]
pub struct iiko_events {
    body: ParsedBody,
    /// The C strings of the first event, each built on first use: most
    /// bodies have one event, which then needs no table of its own.
    first: Strings,
    /// Those of the other events (`FIELDS` slots per event), the table made
    /// when the first string of one of them is kept (reading absent fields
    /// makes none).
    rest: OnceLock<Box<[Slot]>>,
    /// Where every C string handed out is copied, freed with the handle.
    texts: Texts,
}

/// Room in the handle itself for the first strings read: what a POS reads
/// of a one-event body fits (ids, status, amount, phone), so such a handle
/// never allocates an arena block.
const INLINE_TEXT_BYTES: usize = 256;

/// The copies of the C strings a handle hands out. A `malloc` and a `free`
/// per string were, on bodies of several events, most of what the C API
/// added to the Rust API's reads; an arena block per handle was one more
/// of each on every handle that hands out a string.
struct Texts {
    /// Filled from the front: each copy takes its range with one atomic
    /// step on `used`, so threads copy into disjoint ranges without a lock.
    inline: UnsafeCell<[MaybeUninit<u8>; INLINE_TEXT_BYTES]>,
    used: AtomicUsize,
    /// What does not fit: blocks allocated as needed.
    more: Mutex<Bump>,
}

// SAFETY: `inline` is written only in the range a thread reserved for itself
// through `used` (never twice, never by two threads), and another thread
// reads a copy only after the slot's compare-exchange (release) published
// its pointer and its own acquire load saw it. `more` is behind its lock.
unsafe impl Sync for Texts {}

impl Texts {
    /// `bytes` and a NUL, copied: into the handle's own room while it lasts,
    /// then into the arena.
    fn copy(&self, bytes: &[u8]) -> *mut c_char {
        let size = bytes.len() + 1;
        let mut used = self.used.load(Ordering::Relaxed);
        // Relaxed: only the counter's own order matters for disjoint ranges;
        // the bytes are published by the slot, not by the counter.
        while let Some(end) = used.checked_add(size).filter(|&e| e <= INLINE_TEXT_BYTES) {
            match self
                .used
                .compare_exchange_weak(used, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    // SAFETY: `used..end` lies inside `inline` and was
                    // reserved by this thread alone (see `impl Sync`).
                    unsafe {
                        let to = self.inline.get().cast::<u8>().add(used);
                        std::ptr::copy_nonoverlapping(bytes.as_ptr(), to, bytes.len());
                        to.add(bytes.len()).write(0);
                        return to.cast();
                    }
                }
                Err(now) => used = now,
            }
        }
        // A panic while copying leaves the arena whole: go on with it.
        let arena = self.more.lock().unwrap_or_else(PoisonError::into_inner);
        let copy = arena.alloc_slice_fill_copy(size, 0u8);
        copy[..bytes.len()].copy_from_slice(bytes);
        copy.as_mut_ptr().cast()
    }
}

/// The C strings of one event's fields, by [`Field`].
type Strings = [Slot; FIELDS];

/// One field's C string, copied into the handle's arena on its first read
/// and set once, under the arena's lock; read without a lock after that. An
/// absent value is never stored (asking again costs one accessor call, not
/// a copy).
#[derive(Default)]
struct Slot(AtomicPtr<c_char>);

impl BoxCastable for iiko_events {}

/// A string field of an event, as the C accessors return it.
#[derive(Clone, Copy)]
enum Field {
    EventType,
    EventTime,
    OrganizationId,
    CorrelationId,
    Problem,
    EntityId,
    OrderId,
    CreationStatus,
    Status,
    Sum,
    Phone,
    ErrorCode,
    ErrorMessage,
    DedupKey,
    Json,
}

const FIELDS: usize = Field::Json as usize + 1;

/// A field's value before it is copied for C.
enum Value<'e> {
    Text(&'e str),
    /// Written straight into the arena by its `Display`.
    Sum(Money),
    Key(EventKey),
}

impl Field {
    fn value(self, e: &Event) -> Option<Value<'_>> {
        let text = Value::Text;
        match self {
            Field::EventType => e.event_type().map(text),
            Field::EventTime => e.event_time().map(|t| text(&t.raw)),
            Field::OrganizationId => e.organization_id().map(text),
            Field::CorrelationId => e.correlation_id().map(text),
            Field::Problem => e.problem().map(text),
            Field::EntityId => e.entity_id().map(text),
            Field::OrderId => e.order_id().map(text),
            Field::CreationStatus => e.creation_status().map(|c| text(c.as_str())),
            Field::Status => e.status().map(text),
            Field::Sum => e.sum().map(Value::Sum),
            Field::Phone => e.phone().map(text),
            Field::ErrorCode => e.error_code().map(text),
            Field::ErrorMessage => e.error_message().map(text),
            Field::DedupKey => Some(Value::Key(e.dedup_key())),
            Field::Json => Some(text(e.raw_json())),
        }
    }
}

impl Value<'_> {
    /// The value as a C string in `texts`. A NUL inside the text ends the
    /// string there for C, as [`crate::ffi::c_string`] cuts it.
    fn copy_into(self, texts: &Texts) -> *mut c_char {
        match &self {
            Value::Text(text) => texts.copy(text.as_bytes()),
            Value::Key(key) => texts.copy(key.as_str().as_bytes()),
            Value::Sum(sum) => {
                let mut digits = Digits::default();
                if write!(digits, "{sum}").is_ok() {
                    texts.copy(digits.as_bytes())
                } else {
                    // Longer than any amount: copied whole, never cut.
                    texts.copy(sum.to_string().as_bytes())
                }
            }
        }
    }
}

/// An amount's text, written on the stack: room for any amount (28 digits,
/// a sign and a point). Writing more fails.
#[derive(Default)]
struct Digits {
    bytes: [u8; 32],
    len: usize,
}

impl Digits {
    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl std::fmt::Write for Digits {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        room.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl iiko_events {
    /// A new handle, built where it lives: its room for strings is neither
    /// written nor copied (a move of the whole value was most of what the
    /// room cost a handle whose strings are never read).
    pub(crate) fn boxed(body: ParsedBody) -> Box<iiko_events> {
        let mut handle = Box::<iiko_events>::new_uninit();
        let p = handle.as_mut_ptr();
        // SAFETY: every field but `texts.inline` is written below, and that
        // one holds `MaybeUninit` bytes, which need no value.
        unsafe {
            addr_of_mut!((*p).body).write(body);
            addr_of_mut!((*p).first).write(std::array::from_fn(|_| Slot::default()));
            addr_of_mut!((*p).rest).write(OnceLock::new());
            addr_of_mut!((*p).texts.used).write(AtomicUsize::new(0));
            addr_of_mut!((*p).texts.more).write(Mutex::new(Bump::new()));
            handle.assume_init()
        }
    }

    fn event(&self, index: usize) -> Option<&Event> {
        self.body.events.get(index)
    }

    /// The C string of one field of one event, copied on the first read;
    /// NULL for a bad index or an absent value.
    fn string(&self, index: usize, field: Field) -> *const c_char {
        let Some(event) = self.event(index) else {
            return std::ptr::null();
        };
        // The value, when read before the slot's table was made.
        let mut read_first = None;
        let slot = match index.checked_sub(1) {
            None => &self.first[field as usize],
            Some(other) => {
                if self.rest.get().is_none() {
                    // Until a value is there to keep, no table is made.
                    let Some(value) = field.value(event) else {
                        return std::ptr::null();
                    };
                    read_first = Some(value);
                }
                let table = self.rest.get_or_init(|| {
                    (0..(self.body.events.len() - 1) * FIELDS)
                        .map(|_| Slot::default())
                        .collect()
                });
                &table[other * FIELDS + field as usize]
            }
        };
        let kept = slot.0.load(Ordering::Acquire);
        if !kept.is_null() {
            return kept;
        }
        let Some(value) = read_first.or_else(|| field.value(event)) else {
            return std::ptr::null();
        };
        let copy = value.copy_into(&self.texts);
        // Another thread may have set it meanwhile: its copy is the one
        // handed out (this one stays unused until the handle is freed).
        match slot.0.compare_exchange(
            std::ptr::null_mut(),
            copy,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => copy,
            Err(kept) => kept,
        }
    }
}

/// Borrows an events handle and one of its events for a fallible call.
///
/// # Safety
/// `events` must be NULL or a live handle.
pub(crate) unsafe fn event_arg<'a>(
    events: *const iiko_events,
    index: usize,
) -> Result<&'a Event, Failure> {
    // SAFETY: per the caller.
    let events = unsafe { iiko_events::try_ref(events, "events") }?;
    events.event(index).ok_or_else(|| {
        Failure::invalid_argument(format!(
            "index {index} is out of range ({} events)",
            events.body.events.len()
        ))
    })
}

/// Frees an events handle. NULL is ignored.
///
/// # Safety
/// `events` must be NULL or a live handle, freed once.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_free(events: *mut iiko_events) {
    guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_events::free(events) }
    })
}

/// The number of events (0 for NULL).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_count(events: *const iiko_events) -> usize {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { events.as_ref() }.map_or(0, |e| e.body.events.len())
    })
}

/// 1 when the body was a single event object instead of an array (off-spec,
/// accepted unless `IIKO_WEBHOOK_REJECT_SINGLE_OBJECT`), else 0.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_single_object(events: *const iiko_events) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { events.as_ref() }.map_or(0, |e| i32::from(e.body.single_object))
    })
}

/// The type of event `index` as an `IIKO_EVENT_*` constant; -1 when the index
/// is out of range or `events` is NULL. Future versions may return new
/// constants: treat an unknown one like `IIKO_EVENT_UNKNOWN`.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_type(events: *const iiko_events, index: usize) -> i32 {
    guard_value(-1, || {
        // SAFETY: per this function's contract.
        unsafe { events.as_ref() }
            .and_then(|e| e.event(index))
            .map_or(-1, |e| kind_code(e.kind()))
    })
}

fn kind_code(kind: EventKind) -> i32 {
    i32::try_from(kind.code()).unwrap_or(IIKO_EVENT_UNKNOWN)
}

/// The name of an `IIKO_EVENT_*` constant, the `eventType` it stands for
/// (`"DeliveryOrderUpdate"`); `"Unknown"` for `IIKO_EVENT_UNKNOWN` and for
/// codes this library does not know. Static: never freed, never NULL.
#[no_mangle]
pub extern "C" fn iiko_event_type_name(type_: i32) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // The names are the core's (EventKind::as_str), made C strings once.
        static NAMES: OnceLock<Box<[CString]>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            EventKind::ALL
                .iter()
                .map(|k| CString::new(k.as_str()).unwrap_or_default())
                .collect()
        });
        let kind = u32::try_from(type_)
            .ok()
            .and_then(EventKind::from_code)
            .unwrap_or(EventKind::Unknown);
        names
            .get(kind.code() as usize)
            .map_or(std::ptr::null(), |n| n.as_ptr())
    })
}

/// Reads one string of one event (the shared body of the string accessors).
///
/// # Safety
/// `events` must be NULL or a live handle.
unsafe fn event_str(events: *const iiko_events, index: usize, field: Field) -> *const c_char {
    // SAFETY: per the caller.
    unsafe { events.as_ref() }.map_or(std::ptr::null(), |e| e.string(index, field))
}

// The string accessors are written out, not generated by a macro: cbindgen
// does not expand macros, and each needs its own documentation anyway.

/// `eventType` as sent, also for types this SDK does not model (e.g.
/// `"KitchenOrderUpdate"`).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_type_name(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::EventType) }
    })
}

/// `eventTime` as sent (UTC, e.g. `"2025-09-16 16:02:11.877"`); see also
/// `iiko_events_time_unix_ms`.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_time(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::EventTime) }
    })
}

/// `organizationId`.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_organization_id(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::OrganizationId) }
    })
}

/// `correlationId` (the operation id, to quote to iiko support).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_correlation_id(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::CorrelationId) }
    })
}

/// Why the event could not be read (not an object, a known type without an
/// `eventInfo` object, a duplicated key); NULL for a readable event. An
/// unreadable event still has its raw JSON and any envelope field read.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_problem(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Problem) }
    })
}

/// `eventInfo.id` of an order or reserve event (delivery order, table
/// order or reserve id).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_entity_id(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::EntityId) }
    })
}

/// `eventInfo.id` of a delivery or table order event (NULL for reserves).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_order_id(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::OrderId) }
    })
}

/// `eventInfo.creationStatus` of an order or reserve event: `"Success"`,
/// `"InProgress"`, `"Error"` or a newer value as sent.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_creation_status(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::CreationStatus) }
    })
}

/// The order or reserve status as sent: `order.status` of deliveries
/// (e.g. `"CookingStarted"`) and table orders, `reserve.status` of
/// reserves.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_status(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Status) }
    })
}

/// The order total as an exact decimal string (`"1780"`, `"12.5"`,
/// `"0.30000000000000004"`): of a delivery, a table order or a banquet's
/// order. Never goes through a C double. By the SDK's one rule of an amount,
/// every binding's: the digits as written (a number, or a string holding
/// one), no trailing fraction zeros, `-0` as `"0"`; NULL when the value is
/// not an amount (more than 28 digits, such as a 30-digit sum, or not a
/// number): its text is still there through `iiko_events_field`.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_sum(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Sum) }
    })
}

/// The customer phone of a delivery, table order or reserve.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_phone(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Phone) }
    })
}

/// `errorInfo.code` of an `*Error` event (e.g. `"ProductNotFound"`), as sent.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_error_code(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::ErrorCode) }
    })
}

/// `errorInfo.message` of an `*Error` event (or the deprecated
/// `description`).
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_error_message(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::ErrorMessage) }
    })
}

/// The event's de-duplication key: a stable text (the service sends no
/// event id) to store if you de-duplicate across restarts; see
/// `iiko_deduplicator_first_seen`. Never NULL for a valid index.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_dedup_key(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::DedupKey) }
    })
}

/// The event's JSON exactly as it was in the body (UTF-8, NUL-terminated: JSON
/// text holds no NUL byte). Borrowed from the handle; NULL for a bad index.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_json(
    events: *const iiko_events,
    index: usize,
) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: per this function's contract.
        unsafe { event_str(events, index, Field::Json) }
    })
}

/// Writes an optional integer of an event; the body of the integer accessors.
///
/// # Safety
/// `events` must be NULL or a live handle; `out` NULL or writable.
unsafe fn event_i64(
    events: *const iiko_events,
    index: usize,
    out: *mut i64,
    pick: impl FnOnce(&Event) -> Option<i64>,
) -> i32 {
    // SAFETY: per the caller.
    let value = unsafe { events.as_ref() }
        .and_then(|e| e.event(index))
        .and_then(pick);
    match (value, out.is_null()) {
        (Some(v), false) => {
            // SAFETY: non-NULL and writable per the caller.
            unsafe { out.write(v) };
            1
        }
        _ => 0,
    }
}

/// `eventTime` as milliseconds since the Unix epoch (UTC). Returns 1 and
/// writes `*unix_ms_out` when the time is present and readable by the SDK's
/// rule (see `iiko_local_time_parse`; a trailing `Z` is also accepted; the
/// digits past the millisecond dropped); returns 0 and writes nothing
/// otherwise (read the text with `iiko_events_time`).
///
/// # Safety
/// `events` must be NULL or a live handle; `unix_ms_out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_time_unix_ms(
    events: *const iiko_events,
    index: usize,
    unix_ms_out: *mut i64,
) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe {
            event_i64(events, index, unix_ms_out, |e| {
                e.event_time()?.utc.map(|t| t.timestamp_millis())
            })
        }
    })
}

/// A terminal-local time of the service (`order.whenCreated`, …), in parts:
/// what `iiko_local_time_parse` writes. The service names no time zone.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct iiko_local_time {
    /// 1 to 9999.
    pub year: i32,
    /// 1 to 12.
    pub month: i32,
    /// 1 to 31, a day the month has.
    pub day: i32,
    /// 0 to 23.
    pub hour: i32,
    /// 0 to 59.
    pub minute: i32,
    /// 0 to 59.
    pub second: i32,
    /// 0 to 999999999: the fraction's first nine digits (any further ones
    /// are dropped, never rounded).
    pub nanosecond: i32,
}

/// Reads a time the service writes in the terminal's time zone (the text of
/// a field such as `IIKO_EVENT_FIELD_ORDER_WHEN_CREATED`, from
/// `iiko_events_field`) by the SDK's one rule, the one every binding uses:
/// `yyyy-MM-dd HH:mm:ss` (or with `T`), then nothing or `.` and any number of
/// digits; a real calendar date (leap years), hours 0-23, minutes and seconds
/// 0-59, year 1 to 9999. Returns 1 and writes `*out` when `text` is such a
/// time; returns 0 and writes nothing otherwise (also for NULL, or text that
/// is not UTF-8). Thread-safe.
///
/// # Safety
/// `text` must be NULL or NUL-terminated; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_local_time_parse(
    text: *const c_char,
    out: *mut iiko_local_time,
) -> i32 {
    guard_value(0, || {
        if text.is_null() || out.is_null() {
            return 0;
        }
        // SAFETY: non-NULL and NUL-terminated per the contract.
        let text = unsafe { std::ffi::CStr::from_ptr(text) };
        let Some(t) = text
            .to_str()
            .ok()
            .and_then(iikocloud_core::webhook::parse_local_time)
        else {
            return 0;
        };
        let part = |v: u32| i32::try_from(v).unwrap_or(0);
        let parts = iiko_local_time {
            year: t.year(),
            month: part(t.month()),
            day: part(t.day()),
            hour: part(t.hour()),
            minute: part(t.minute()),
            second: part(t.second()),
            nanosecond: part(t.nanosecond()),
        };
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(parts) };
        1
    })
}

/// `eventInfo.timestamp` of an order or reserve event: a version that grows
/// with every change of the entity (see `iiko_ordering_guard_observe`).
/// Returns 1 and writes `*timestamp_out` when present, else 0.
///
/// # Safety
/// `events` must be NULL or a live handle; `timestamp_out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_timestamp(
    events: *const iiko_events,
    index: usize,
    timestamp_out: *mut i64,
) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { event_i64(events, index, timestamp_out, Event::timestamp) }
    })
}

/// The order number of a delivery, a table order or a banquet's order.
/// Returns 1 and writes `*number_out` when present, else 0.
///
/// # Safety
/// `events` must be NULL or a live handle; `number_out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_order_number(
    events: *const iiko_events,
    index: usize,
    number_out: *mut i64,
) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { event_i64(events, index, number_out, Event::order_number) }
    })
}

/// 1 when event `index` announces a new delivery order, else 0: a
/// `DeliveryOrderUpdate` with an `order` whose status is `New`, `Unconfirmed`
/// or `WaitCooking`. The first update a receiver sees may already be past
/// these statuses (e.g. after an outage): track "first seen" separately.
///
/// # Safety
/// `events` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_is_new_delivery_order(
    events: *const iiko_events,
    index: usize,
) -> i32 {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        unsafe { events.as_ref() }
            .and_then(|e| e.event(index))
            .map_or(0, |e| i32::from(e.is_new_delivery_order()))
    })
}

/// Everything the per-event accessors give, filled by one
/// `iiko_events_summary` call: for callers that read most fields of every
/// event, where a call per field would cost more than the parse (PHP's FFI).
///
/// Set `size` to `sizeof(iiko_event_summary)` before the call: the library
/// writes no more than that many bytes, so a program built against this
/// header keeps working when a later version appends fields. Strings are
/// borrowed from the events handle, as the accessors' are, and NULL when the
/// event does not carry the value; each `has_*` flag is 1 when the integer
/// next to it is present.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct iiko_event_summary {
    /// Set by the caller: `sizeof(iiko_event_summary)`.
    pub size: usize,
    /// An `IIKO_EVENT_*` constant, as `iiko_events_type`.
    pub type_code: i32,
    /// As `iiko_events_is_new_delivery_order`.
    pub is_new_delivery_order: i32,
    /// 1 when `time_unix_ms` holds `eventTime`, else 0.
    pub has_time_unix_ms: i32,
    /// 1 when `timestamp` holds `eventInfo.timestamp`, else 0.
    pub has_timestamp: i32,
    /// 1 when `order_number` holds the order number, else 0.
    pub has_order_number: i32,
    /// As `iiko_events_time_unix_ms`.
    pub time_unix_ms: i64,
    /// As `iiko_events_timestamp`.
    pub timestamp: i64,
    /// As `iiko_events_order_number`.
    pub order_number: i64,
    /// As `iiko_events_type_name`.
    pub type_name: *const c_char,
    /// As `iiko_events_time`.
    pub time: *const c_char,
    /// As `iiko_events_organization_id`.
    pub organization_id: *const c_char,
    /// As `iiko_events_correlation_id`.
    pub correlation_id: *const c_char,
    /// As `iiko_events_problem`.
    pub problem: *const c_char,
    /// As `iiko_events_entity_id`.
    pub entity_id: *const c_char,
    /// As `iiko_events_order_id`.
    pub order_id: *const c_char,
    /// As `iiko_events_creation_status`.
    pub creation_status: *const c_char,
    /// As `iiko_events_status`.
    pub status: *const c_char,
    /// As `iiko_events_sum`.
    pub sum: *const c_char,
    /// As `iiko_events_phone`.
    pub phone: *const c_char,
    /// As `iiko_events_error_code`.
    pub error_code: *const c_char,
    /// As `iiko_events_error_message`.
    pub error_message: *const c_char,
    /// As `iiko_events_dedup_key`.
    pub dedup_key: *const c_char,
    /// As `iiko_events_json`.
    pub json: *const c_char,
}

/// The smallest `size` accepted: the struct of this first version.
const SUMMARY_SIZE_V1: usize = std::mem::size_of::<iiko_event_summary>();

impl iiko_events {
    fn summary(&self, index: usize, event: &Event) -> iiko_event_summary {
        let text = |field| self.string(index, field);
        let number = |value: Option<i64>| (i32::from(value.is_some()), value.unwrap_or(0));
        let (has_time_unix_ms, time_unix_ms) = number(
            event
                .event_time()
                .and_then(|t| t.utc)
                .map(|t| t.timestamp_millis()),
        );
        let (has_timestamp, timestamp) = number(event.timestamp());
        let (has_order_number, order_number) = number(event.order_number());
        iiko_event_summary {
            size: std::mem::size_of::<iiko_event_summary>(),
            type_code: kind_code(event.kind()),
            is_new_delivery_order: i32::from(event.is_new_delivery_order()),
            has_time_unix_ms,
            has_timestamp,
            has_order_number,
            time_unix_ms,
            timestamp,
            order_number,
            type_name: text(Field::EventType),
            time: text(Field::EventTime),
            organization_id: text(Field::OrganizationId),
            correlation_id: text(Field::CorrelationId),
            problem: text(Field::Problem),
            entity_id: text(Field::EntityId),
            order_id: text(Field::OrderId),
            creation_status: text(Field::CreationStatus),
            status: text(Field::Status),
            sum: text(Field::Sum),
            phone: text(Field::Phone),
            error_code: text(Field::ErrorCode),
            error_message: text(Field::ErrorMessage),
            dedup_key: text(Field::DedupKey),
            json: text(Field::Json),
        }
    }
}

/// Fills `*summary` with every field of event `index` that the per-event
/// accessors return, in one call. `summary->size` must be set first (see
/// `iiko_event_summary`); the library writes `min(size, its own size)` bytes
/// and leaves `size` as the caller set it.
///
/// `IIKO_STATUS_NULL_ARGUMENT` for a NULL handle or `summary`;
/// `IIKO_STATUS_INVALID_ARGUMENT` for an index out of range or a `size`
/// smaller than this first version's struct. Thread-safe on one handle.
///
/// # Safety
/// `events` must be NULL or a live handle; `summary` NULL or pointing to
/// `summary->size` writable bytes; `err_out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_summary(
    events: *const iiko_events,
    index: usize,
    summary: *mut iiko_event_summary,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let events = unsafe { iiko_events::try_ref(events, "events") }?;
        if summary.is_null() {
            return Err(Failure::null("summary"));
        }
        // SAFETY: non-NULL, and the caller's `size` field is readable (the
        // first field of every version of the struct). Only places are
        // named, no reference to a whole struct the caller may have smaller.
        let size = unsafe { std::ptr::addr_of!((*summary).size).read() };
        if size < SUMMARY_SIZE_V1 {
            return Err(Failure::invalid_argument(format!(
                "summary->size is {size}, below sizeof(iiko_event_summary) = {SUMMARY_SIZE_V1}: set it before the call"
            )));
        }
        let event = events.event(index).ok_or_else(|| {
            Failure::invalid_argument(format!(
                "index {index} is out of range ({} events)",
                events.body.events.len()
            ))
        })?;
        let filled = events.summary(index, event);
        let n = size.min(std::mem::size_of::<iiko_event_summary>());
        // SAFETY: the caller gives `size` writable bytes at `summary`, and
        // `filled` is a whole struct of at least `n` bytes; the first field
        // is written back as the caller set it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                std::ptr::addr_of!(filled).cast::<u8>(),
                summary.cast::<u8>(),
                n,
            );
            std::ptr::addr_of_mut!((*summary).size).write(size);
        }
        Ok(())
    })
}

fn field_path(field: iiko_event_field) -> Option<&'static std::ffi::CStr> {
    let index = usize::try_from(field).ok()?.checked_sub(1)?;
    *crate::event_fields::FIELD_PATHS.get(index)?
}

/// The highest `IIKO_EVENT_FIELD_*` number (fields are 1 to this). Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_event_field_count() -> iiko_event_field {
    guard_value(0, || crate::event_fields::LAST_FIELD)
}

/// The dotted path of a field in the event (`"eventInfo.order.sum"`); NULL for
/// a number that is not a field. Static: do not free. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_event_field_path(field: iiko_event_field) -> *const c_char {
    guard_value(std::ptr::null(), || {
        field_path(field).map_or(std::ptr::null(), |p| p.as_ptr())
    })
}

/// The field with the dotted path `path`, or 0 when there is none (or `path`
/// is NULL or not UTF-8). Thread-safe.
///
/// # Safety
/// `path` must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_event_field_by_path(path: *const c_char) -> iiko_event_field {
    guard_value(0, || {
        if path.is_null() {
            return 0;
        }
        // SAFETY: non-NULL and NUL-terminated per the contract.
        let wanted = unsafe { std::ffi::CStr::from_ptr(path) };
        (1..=crate::event_fields::LAST_FIELD)
            .find(|&f| field_path(f) == Some(wanted))
            .unwrap_or(0)
    })
}

/// Reads a field of event `index` (`field`: an `IIKO_EVENT_FIELD_*` constant)
/// as text: strings as they are, numbers exactly as the body wrote them (an
/// amount never goes through a C double), booleans as `"true"`/`"false"`.
///
/// On success writes to `*value_out` the text (yours; free it with
/// `iiko_string_free`), or NULL when the event does not have the field (absent,
/// `null`, or a field of another event type). An index out of range or an
/// unknown field is `IIKO_STATUS_INVALID_ARGUMENT`. Thread-safe.
///
/// # Safety
/// `events` must be NULL or a live handle; `value_out` and `err_out` must be
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_events_field(
    events: *const iiko_events,
    index: usize,
    field: iiko_event_field,
    value_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let events = unsafe { iiko_events::try_ref(events, "events") }?;
        let out = out_ptr(value_out, "value_out")?;
        let path = field_path(field).ok_or_else(|| {
            Failure::invalid_argument(format!(
                "no event field numbered {field}; use an IIKO_EVENT_FIELD_* constant"
            ))
        })?;
        let event = events.event(index).ok_or_else(|| {
            Failure::invalid_argument(format!("event index {index} is out of range"))
        })?;
        let path = path
            .to_str()
            .map_err(|_| Failure::invalid_argument("path"))?;
        let value = iikocloud_core::webhook::field_text(event.raw_json(), path);
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe {
            out.write(value.map_or(std::ptr::null_mut(), |v| crate::ffi::owned_c_string(&v)));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_the_core_kinds() {
        use std::ffi::CStr;
        let name = |t| {
            // SAFETY: a static C string, never NULL.
            unsafe { CStr::from_ptr(iiko_event_type_name(t)) }
                .to_str()
                .unwrap()
        };
        for kind in EventKind::ALL {
            assert_eq!(name(kind_code(kind)), kind.as_str());
        }
        assert_eq!(name(-1), "Unknown");
        assert_eq!(name(i32::MAX), "Unknown");
    }

    #[test]
    fn summary_matches_the_accessors_and_respects_size() {
        use crate::status::{
            IIKO_STATUS_INVALID_ARGUMENT, IIKO_STATUS_NULL_ARGUMENT, IIKO_STATUS_OK,
        };
        use std::ffi::CStr;
        let body = br#"[{"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877","organizationId":"o","correlationId":"c","eventInfo":{"id":"d","timestamp":7,"creationStatus":"Success","order":{"number":12,"sum":10.5,"status":"New","phone":"+7"}}},{"eventType":"Other"}]"#;
        let events = iiko_events::boxed(iikocloud_core::webhook::parse_body(body).unwrap());
        let handle: *const iiko_events = &*events;
        let text = |p: *const c_char| {
            (!p.is_null()).then(|| {
                // SAFETY: a borrowed string of the live handle.
                unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned()
            })
        };
        // Two whole structs of room, the second to see nothing is written past `size`.
        let mut room: [std::mem::MaybeUninit<iiko_event_summary>; 2] = [
            std::mem::MaybeUninit::zeroed(),
            std::mem::MaybeUninit::zeroed(),
        ];
        let out = room[0].as_mut_ptr();
        // SAFETY: every call below gets a live handle and writable structs.
        unsafe {
            (*out).size = SUMMARY_SIZE_V1 - 1;
            assert_eq!(
                iiko_events_summary(handle, 0, out, std::ptr::null_mut()),
                IIKO_STATUS_INVALID_ARGUMENT
            );
            (*out).size = SUMMARY_SIZE_V1;
            assert_eq!(
                iiko_events_summary(handle, 2, out, std::ptr::null_mut()),
                IIKO_STATUS_INVALID_ARGUMENT
            );
            assert_eq!(
                iiko_events_summary(std::ptr::null(), 0, out, std::ptr::null_mut()),
                IIKO_STATUS_NULL_ARGUMENT
            );
            assert_eq!(
                iiko_events_summary(handle, 0, std::ptr::null_mut(), std::ptr::null_mut()),
                IIKO_STATUS_NULL_ARGUMENT
            );
            // A caller with a larger (newer) struct: the extra room is untouched.
            (*out).size = 2 * SUMMARY_SIZE_V1;
            (*room[1].as_mut_ptr()).size = 99;
            assert_eq!(
                iiko_events_summary(handle, 0, out, std::ptr::null_mut()),
                IIKO_STATUS_OK
            );
            assert_eq!(room[1].assume_init_ref().size, 99);
            let s = room[0].assume_init_ref();
            assert_eq!(s.size, 2 * SUMMARY_SIZE_V1);
            assert_eq!(s.type_code, iiko_events_type(handle, 0));
            assert_eq!(s.is_new_delivery_order, 1);
            assert_eq!((s.has_timestamp, s.timestamp), (1, 7));
            assert_eq!((s.has_order_number, s.order_number), (1, 12));
            let mut ms = 0;
            assert_eq!(iiko_events_time_unix_ms(handle, 0, &mut ms), 1);
            assert_eq!((s.has_time_unix_ms, s.time_unix_ms), (1, ms));
            assert_eq!(text(s.sum).as_deref(), Some("10.5"));
            assert_eq!(s.sum, iiko_events_sum(handle, 0));
            assert_eq!(s.json, iiko_events_json(handle, 0));
            assert_eq!(s.dedup_key, iiko_events_dedup_key(handle, 0));
            assert_eq!(text(s.status).as_deref(), Some("New"));
            assert!(s.error_code.is_null() && s.problem.is_null());
            (*out).size = SUMMARY_SIZE_V1;
            assert_eq!(
                iiko_events_summary(handle, 1, out, std::ptr::null_mut()),
                IIKO_STATUS_OK
            );
            let s = room[0].assume_init_ref();
            assert_eq!(s.type_code, IIKO_EVENT_UNKNOWN);
            assert_eq!(text(s.type_name).as_deref(), Some("Other"));
            assert_eq!(
                (s.has_timestamp, s.has_order_number, s.has_time_unix_ms),
                (0, 0, 0)
            );
            assert!(s.sum.is_null() && s.organization_id.is_null());
        }
    }

    #[test]
    fn strings_fill_the_handles_room_to_its_last_byte_then_go_to_the_arena() {
        use std::ffi::CStr;
        // An id of 255 bytes and its NUL take the whole room; the next
        // string goes to the arena, and both read back whole.
        let id = "i".repeat(INLINE_TEXT_BYTES - 1);
        let body = format!(
            r#"[{{"eventType":"DeliveryOrderUpdate","organizationId":"{id}","eventInfo":{{"id":"d1"}}}}]"#
        );
        let events =
            iiko_events::boxed(iikocloud_core::webhook::parse_body(body.as_bytes()).unwrap());
        let room = events.texts.inline.get() as usize
            ..events.texts.inline.get() as usize + INLINE_TEXT_BYTES;
        let organization = events.string(0, Field::OrganizationId);
        let entity = events.string(0, Field::EntityId);
        assert_eq!(organization as usize, room.start);
        assert_eq!(events.texts.used.load(Ordering::Relaxed), INLINE_TEXT_BYTES);
        assert!(!room.contains(&(entity as usize)));
        // SAFETY: strings of the live handle (not NULL: checked by the
        // address comparisons above).
        let (organization, entity) =
            unsafe { (CStr::from_ptr(organization), CStr::from_ptr(entity)) };
        assert_eq!(organization.to_bytes(), id.as_bytes());
        assert_eq!(entity.to_bytes(), b"d1");
    }

    #[test]
    fn absent_fields_of_later_events_make_no_slot_table() {
        let body = br#"[{"eventType":"StopListUpdate","eventInfo":{}},{"eventType":"Other","organizationId":"o2"}]"#;
        let events = iiko_events::boxed(iikocloud_core::webhook::parse_body(body).unwrap());
        for field in [Field::OrderId, Field::Status, Field::Sum, Field::Phone] {
            assert!(events.string(1, field).is_null());
        }
        assert!(events.rest.get().is_none());
        let organization = events.string(1, Field::OrganizationId);
        assert!(!organization.is_null());
        assert!(events.rest.get().is_some());
        // Kept: the same string on the next read.
        assert_eq!(events.string(1, Field::OrganizationId), organization);
    }

    #[test]
    fn threads_reading_at_once_get_one_string_per_field() {
        use std::ffi::CStr;
        // Three events: the first one's slots live in the handle, the
        // others' in the table made when the first of their strings is kept;
        // the copies fill the handle's room, then go to the arena.
        let body = br#"[{"eventType":"DeliveryOrderUpdate","organizationId":"o1","eventInfo":{"id":"d1","order":{"sum":1.5}}},{"eventType":"ReserveUpdate","organizationId":"o2","eventInfo":{"id":"r2"}},{"eventType":"PersonalShift","organizationId":"o3","eventInfo":{}}]"#;
        let events = iiko_events::boxed(iikocloud_core::webhook::parse_body(body).unwrap());
        let fields = [
            Field::OrganizationId,
            Field::EntityId,
            Field::Sum,
            Field::Json,
        ];
        let read = |events: &iiko_events| -> Vec<usize> {
            (0..3)
                .flat_map(|i| fields.map(|f| events.string(i, f) as usize))
                .collect()
        };
        let seen: Vec<Vec<usize>> = std::thread::scope(|s| {
            let readers: Vec<_> = (0..8).map(|_| s.spawn(|| read(&events))).collect();
            readers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        // Every thread got the same pointer for each field, and it stays.
        assert!(seen.iter().all(|pointers| *pointers == seen[0]));
        assert_eq!(read(&events), seen[0]);
        let text = |p: usize| {
            (p != 0).then(|| {
                // SAFETY: a string of the live handle, or NULL (checked).
                unsafe { CStr::from_ptr(p as *const c_char) }
                    .to_str()
                    .unwrap()
                    .to_owned()
            })
        };
        let texts: Vec<Option<String>> = seen[0].iter().map(|&p| text(p)).collect();
        assert_eq!(
            texts[0..3],
            [Some("o1".into()), Some("d1".into()), Some("1.5".into())]
        );
        assert_eq!(texts[4..7], [Some("o2".into()), Some("r2".into()), None]);
        assert_eq!(texts[8..11], [Some("o3".into()), None, None]);
        assert!(texts[11]
            .as_deref()
            .is_some_and(|j| j.contains("PersonalShift")));
    }

    #[test]
    fn strings_are_cut_at_a_nul_and_of_any_size() {
        use std::ffi::CStr;
        // Larger than the arena's first blocks, so copies land in new ones
        // while the earlier strings stay where they were handed out.
        let long = "7".repeat(200_000);
        let body = format!(
            r#"[{{"eventType":"DeliveryOrderUpdate","organizationId":"o1\u0000hidden","eventInfo":{{"id":"d1","order":{{"sum":"-0012.50","phone":"{long}"}}}}}}]"#
        );
        let events =
            iiko_events::boxed(iikocloud_core::webhook::parse_body(body.as_bytes()).unwrap());
        let read = |field| {
            let p = events.string(0, field);
            assert!(!p.is_null());
            // SAFETY: a string of the live handle (checked not NULL).
            unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned()
        };
        let organization = events.string(0, Field::OrganizationId);
        assert_eq!(read(Field::OrganizationId), "o1");
        assert_eq!(read(Field::Sum), "-12.5");
        assert_eq!(read(Field::Phone), long);
        assert_eq!(read(Field::Json), &body[1..body.len() - 1]);
        assert_eq!(read(Field::EntityId), "d1");
        // The first string was not moved by the copies made after it.
        assert_eq!(events.string(0, Field::OrganizationId), organization);
        // SAFETY: as above.
        assert_eq!(unsafe { CStr::from_ptr(organization) }.to_bytes(), b"o1");
    }

    /// Every string of every event, read through the handle (the arena's
    /// copies), against the Rust accessors of the same body parsed apart,
    /// on the payloads, the benchmark's bodies of every class and the
    /// shared vectors' bodies (escapes, NULs, wrong types).
    #[test]
    fn every_string_is_what_the_rust_accessors_give_on_every_body() {
        use std::ffi::CStr;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut bodies: Vec<(String, Vec<u8>)> = Vec::new();
        for dir in ["tests/vectors/payloads", "benches/data/bodies"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|x| x == "json") {
                    bodies.push((path.display().to_string(), std::fs::read(&path).unwrap()));
                }
            }
        }
        let vectors: serde_json::Value = serde_json::from_slice(
            &std::fs::read(root.join("tests/vectors/webhook_vectors.json")).unwrap(),
        )
        .unwrap();
        for case in vectors["parse"].as_array().unwrap() {
            if let Some(body) = case["body"].as_str() {
                bodies.push((case["name"].to_string(), body.as_bytes().to_vec()));
            }
        }
        // Amounts with fraction zeros and a sign, strings with a NUL.
        bodies.push((
            "amounts and NULs".into(),
            br#"[{"eventType":"DeliveryOrderUpdate","organizationId":"o\u0000p","eventInfo":{"id":"d","order":{"sum":-12.50,"status":"New","phone":"+7\u0000"}}},{"eventType":"TableOrderUpdate","eventInfo":{"id":"t","order":{"sum":"100.000"}}}]"#.to_vec(),
        ));
        let text = |p: *const c_char| {
            (!p.is_null()).then(|| {
                // SAFETY: a string of a live handle (checked not NULL).
                unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned()
            })
        };
        // What C can show of a Rust string: the text before a NUL.
        let cut = |s: Option<&str>| s.map(|s| s.split('\0').next().unwrap_or("").to_owned());
        let mut events_seen = 0;
        for (name, body) in &bodies {
            let Ok(parsed) = iikocloud_core::webhook::parse_body(body) else {
                continue;
            };
            let rust = iikocloud_core::webhook::parse_body(body).unwrap();
            let handle = iiko_events::boxed(parsed);
            for (i, e) in rust.events.iter().enumerate() {
                events_seen += 1;
                let s = handle.summary(i, handle.event(i).unwrap());
                let pairs = [
                    ("type", s.type_name, cut(e.event_type())),
                    ("time", s.time, cut(e.event_time().map(|t| t.raw.as_str()))),
                    ("organization", s.organization_id, cut(e.organization_id())),
                    ("correlation", s.correlation_id, cut(e.correlation_id())),
                    ("problem", s.problem, cut(e.problem())),
                    ("entity", s.entity_id, cut(e.entity_id())),
                    ("order", s.order_id, cut(e.order_id())),
                    (
                        "creation status",
                        s.creation_status,
                        cut(e.creation_status().map(|c| c.as_str())),
                    ),
                    ("status", s.status, cut(e.status())),
                    ("sum", s.sum, e.sum().map(|m| m.to_string())),
                    ("phone", s.phone, cut(e.phone())),
                    ("error code", s.error_code, cut(e.error_code())),
                    ("error message", s.error_message, cut(e.error_message())),
                    ("dedup key", s.dedup_key, cut(Some(e.dedup_key().as_str()))),
                    ("json", s.json, cut(Some(e.raw_json()))),
                ];
                for (field, pointer, want) in pairs {
                    assert_eq!(text(pointer), want, "{name}, event {i}, {field}");
                }
                // A second read hands out the same copy.
                let again = handle.summary(i, handle.event(i).unwrap());
                assert_eq!((again.order_id, again.json), (s.order_id, s.json));
            }
        }
        assert!(events_seen > 100, "only {events_seen} events read");
    }

    #[test]
    fn local_times_are_the_core_rule_and_null_safe() {
        let parse = |text: &[u8]| {
            let text = std::ffi::CString::new(text).unwrap();
            let mut out = iiko_local_time::default();
            // SAFETY: a NUL-terminated string and a writable struct.
            let ok = unsafe { iiko_local_time_parse(text.as_ptr(), &mut out) };
            (ok, out)
        };
        let (ok, t) = parse(b"2024-02-29 23:59:59.1234567899");
        assert_eq!(ok, 1);
        assert_eq!(
            (
                t.year,
                t.month,
                t.day,
                t.hour,
                t.minute,
                t.second,
                t.nanosecond
            ),
            (2024, 2, 29, 23, 59, 59, 123_456_789)
        );
        for no_time in [
            &b"2023-02-29 00:00:00"[..],
            b"0000-01-01 00:00:00",
            b"\xff",
            b"",
        ] {
            assert_eq!(parse(no_time), (0, iiko_local_time::default()));
        }
        let mut out = iiko_local_time::default();
        // SAFETY: NULL is allowed for both arguments.
        unsafe {
            assert_eq!(iiko_local_time_parse(std::ptr::null(), &mut out), 0);
            assert_eq!(
                iiko_local_time_parse(c"2025-09-16 19:00:04".as_ptr(), std::ptr::null_mut()),
                0
            );
        }
    }

    #[test]
    fn field_paths_and_numbers_are_one_table() {
        let sum = crate::event_fields::IIKO_EVENT_FIELD_ORDER_SUM;
        // SAFETY: the field's path is a static NUL-terminated string.
        let back = unsafe { iiko_event_field_by_path(iiko_event_field_path(sum)) };
        assert_eq!(back, sum);
        assert!(iiko_event_field_path(0).is_null());
        assert!(iiko_event_field_path(iiko_event_field_count() + 1).is_null());
    }
}
