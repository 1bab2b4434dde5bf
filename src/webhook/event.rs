//! One webhook event: envelope, typed payload and raw JSON.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::summary::{Shape, Spans, Summary, NO_ENTITY};
use super::{
    CreationStatus, DeliveryOrderInfo, DeliveryStatus, ErrorInfo, PersonalShift, ReserveInfo,
    StopListUpdate, TableOrderInfo,
};
use crate::lenient::Lenient;
use crate::money::Money;
use crate::time::EventTime;

/// Defines [`EventKind`] from the generated table (`kinds.rs`, written by
/// the codegen from the document's event schemas and
/// `spec/event-kind-numbers.json`): one line per kind, its code and whether
/// its `eventInfo` is one order or reserve with an id and a version.
macro_rules! event_kinds {
    ($($(#[$doc:meta])* $kind:ident = $code:literal, entity: $entity:literal;)*) => {
        /// The type of an event, as a small stable integer for the C ABI.
        ///
        /// One kind per documented `eventType` with an `eventInfo` schema,
        /// generated from the document; the codes are fixed and only ever
        /// appended to (`spec/event-kind-numbers.json`). `Unknown` (0) covers
        /// every other `eventType` (the spec's `KitchenOrderUpdate`,
        /// `NomenclatureUpdate`, `BusinessHoursAndMappingUpdate`, which have no
        /// `eventInfo` schema, future types, and a missing or non-string
        /// `eventType`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u32)]
        pub enum EventKind {
            /// Any type this SDK does not model; see [`Event::event_type`](super::Event::event_type).
            Unknown = 0,
            $($(#[$doc])* $kind = $code,)*
        }

        impl EventKind {
            /// Every kind, in code order.
            pub const ALL: [EventKind; 1 + [$(stringify!($kind)),*].len()] =
                [EventKind::Unknown, $(EventKind::$kind),*];

            /// The kind of an `eventType` string (exact, case-sensitive match).
            pub fn from_event_type(event_type: &str) -> EventKind {
                match event_type {
                    $(stringify!($kind) => EventKind::$kind,)*
                    _ => EventKind::Unknown,
                }
            }

            /// The `eventType` text of the kind; `"Unknown"` for [`EventKind::Unknown`].
            pub fn as_str(self) -> &'static str {
                match self {
                    EventKind::Unknown => "Unknown",
                    $(EventKind::$kind => stringify!($kind),)*
                }
            }

            /// Whether events of this kind are about one order or reserve with an id
            /// and a version `timestamp` (deliveries, table orders, reserves).
            pub fn has_entity(self) -> bool {
                match self {
                    EventKind::Unknown => false,
                    $(EventKind::$kind => $entity,)*
                }
            }
        }

        // `from_code` indexes ALL by code.
        const _: () = {
            let mut i = 0;
            while i < EventKind::ALL.len() {
                assert!(EventKind::ALL[i] as usize == i, "event kind codes must run 0, 1, 2, ...");
                i += 1;
            }
        };
    };
}
pub(super) use event_kinds;

pub use super::kinds::EventKind;

impl EventKind {
    /// The stable integer code (`Unknown` = 0, then the kinds as numbered in
    /// `spec/event-kind-numbers.json`).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The kind with this code, or `None` for a code this version lacks.
    pub fn from_code(code: u32) -> Option<EventKind> {
        usize::try_from(code)
            .ok()
            .and_then(|i| EventKind::ALL.get(i).copied())
    }
}

impl EventKind {
    /// `ReserveUpdate` or `ReserveError`.
    pub(crate) fn is_reserve(self) -> bool {
        matches!(self, EventKind::ReserveUpdate | EventKind::ReserveError)
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Untyped JSON kept verbatim: the `eventInfo` of an event type this SDK
/// does not model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawJson(String);

impl RawJson {
    pub(crate) fn from_text(text: &str) -> RawJson {
        RawJson(text.to_owned())
    }

    /// The JSON text as sent.
    pub fn get(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match serde_json::value::RawValue::from_string(self.0.clone()) {
            Ok(raw) => raw.serialize(s),
            Err(_) => s.serialize_str(&self.0),
        }
    }
}

impl Lenient for RawJson {
    fn read<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        use serde::Deserialize;
        // Works because the value deserializer is always serde_json's.
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        Ok(match raw.get() {
            "null" => None,
            text => Some(RawJson(text.to_owned())),
        })
    }
}

/// The typed `eventInfo` of an event: the generated models of the
/// document's webhook schemas (`crate::api::models`), read leniently.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub enum EventPayload {
    /// `DeliveryOrderUpdate` and `DeliveryOrderError`.
    DeliveryOrder(Box<DeliveryOrderInfo>),
    /// `TableOrderUpdate` and `TableOrderError`.
    TableOrder(Box<TableOrderInfo>),
    /// `ReserveUpdate` and `ReserveError`.
    Reserve(Box<ReserveInfo>),
    /// `StopListUpdate`.
    StopList(Box<StopListUpdate>),
    /// `PersonalShift`.
    PersonalShift(Box<PersonalShift>),
    /// An event type this SDK does not model: its `eventInfo` as sent
    /// (`None` when absent).
    Unknown {
        /// The raw `eventInfo` JSON.
        event_info: Option<RawJson>,
    },
    /// The event could not be read: it is not a JSON object, a known type's
    /// `eventInfo` is missing or not an object, or a key is duplicated. The
    /// envelope fields that could be read are still set on the [`Event`], and
    /// the event's JSON is in [`Event::raw_json`].
    Invalid {
        /// What is wrong (never contains header values; may quote field
        /// names). Most are fixed texts, borrowed rather than allocated.
        error: Cow<'static, str>,
    },
}

/// One event of a webhook body.
///
/// The envelope fields are `None` when absent or of the wrong type (the spec
/// marks none of them required). Accessors such as [`Event::order_id`] give
/// the commonly needed values without matching on [`Event::payload`]; they are
/// also what the C ABI exposes.
///
/// Whether an event is usable is decided when the body is parsed: the
/// envelope is read, and a known type's `eventInfo` is checked to be an
/// object without a repeated key at any depth. The typed `eventInfo` itself
/// is read from [`Event::raw_json`] on the first call that needs it
/// ([`Event::payload`] and the accessors built on it), once, and is then kept;
/// so a receiver that only stores or forwards events never pays for it. That
/// read cannot fail: every field is read leniently.
#[derive(Clone)]
#[non_exhaustive]
pub struct Event {
    kind: EventKind,
    /// `eventType`, `organizationId`, `correlationId` and the text of
    /// `eventTime`: where they lie in `raw_json` (no copy), or read already.
    envelope: EnvelopeText,
    /// `eventTime` read from its span on first use (boxed: an event is moved
    /// a few times, and most are never asked their time).
    event_time: OnceLock<Option<Box<EventTime>>>,
    /// The typed `eventInfo`: set at parse time for unusable and unknown
    /// events, else read from `raw_json` on first use by `Event::payload`,
    /// which parse.rs defines: reading eventInfo typed is the parse's work,
    /// and the event type does not depend on the parser.
    pub(super) payload: PayloadCell,
    /// Where `eventInfo` lies in `raw_json`, when the parse noted it: the
    /// deferred read then starts there.
    info_span: Option<(u32, u32)>,
    /// The event has no `eventInfo` member (known on invalid events): its
    /// plain reading is `None` without reading the event again.
    info_absent: bool,
    /// Where the flat accessors' values lie in `raw_json`, when the parse
    /// noted it (the fast path does): they are then read without the typed
    /// read of the whole `eventInfo`.
    spots: Option<Box<Spans>>,
    /// Those values, read on first use (boxed: most events never read them,
    /// and every event is moved a few times on its way to the caller).
    summary: OnceLock<Box<Summary>>,
    /// The event's JSON exactly as it appeared in the body.
    raw_json: String,
}

// The scan starts its list with room for four events, which must stay a
// small request for glibc's malloc (under 1 KiB; scan.rs).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(4 * std::mem::size_of::<Event>() < 1000);

/// An event's typed `eventInfo`: known at parse time (unusable and unknown
/// events), or read on first use. A known one is stored as it is: setting a
/// fresh `OnceLock` took a sixteenth of a small odd body's parse.
#[derive(Clone)]
pub(super) enum PayloadCell {
    Known(EventPayload),
    Deferred(OnceLock<EventPayload>),
}

impl PayloadCell {
    /// The payload, when known or read already.
    fn get(&self) -> Option<&EventPayload> {
        match self {
            PayloadCell::Known(payload) => Some(payload),
            PayloadCell::Deferred(cell) => cell.get(),
        }
    }

    /// The payload, read by `read` on first use.
    pub(super) fn get_or_init(&self, read: impl FnOnce() -> EventPayload) -> &EventPayload {
        match self {
            PayloadCell::Known(payload) => payload,
            PayloadCell::Deferred(cell) => cell.get_or_init(read),
        }
    }
}

/// The envelope of an event, as read at parse time.
pub(crate) struct Envelope {
    pub(crate) kind: EventKind,
    pub(crate) text: EnvelopeText,
}

/// The envelope's string values. The fast path notes where they lie in the
/// event's JSON: a sub-kilobyte event spent a tenth of its parse allocating,
/// copying and freeing them.
#[derive(Clone)]
pub(crate) enum EnvelopeText {
    /// The contents (quotes excluded) of values without escapes, as spans of
    /// the event's JSON.
    Spans(EnvelopeSpans),
    /// Values read by serde (the careful path, or a value with escapes).
    Owned(Box<OwnedEnvelope>),
}

/// Spans of the envelope's string contents; `None` when absent or not a
/// string.
#[derive(Clone, Copy, Default)]
pub(crate) struct EnvelopeSpans {
    pub(crate) event_type: Option<(u32, u32)>,
    pub(crate) event_time: Option<(u32, u32)>,
    pub(crate) organization_id: Option<(u32, u32)>,
    pub(crate) correlation_id: Option<(u32, u32)>,
}

/// The envelope's values as read; `None` when absent or not a string.
#[derive(Clone, Default)]
pub(crate) struct OwnedEnvelope {
    pub(crate) event_type: Option<String>,
    pub(crate) event_time: Option<EventTime>,
    pub(crate) organization_id: Option<String>,
    pub(crate) correlation_id: Option<String>,
}

impl Envelope {
    /// No envelope value at all (an element that is not an object).
    pub(crate) fn empty() -> Envelope {
        Envelope {
            kind: EventKind::Unknown,
            text: EnvelopeText::Spans(EnvelopeSpans::default()),
        }
    }
}

impl Event {
    /// An event whose payload is known already (invalid or unknown events).
    pub(crate) fn with_payload(
        envelope: Envelope,
        payload: EventPayload,
        raw_json: String,
    ) -> Event {
        Event {
            payload: PayloadCell::Known(payload),
            ..Event::deferred(envelope, raw_json, None, None)
        }
    }

    /// A known, checked event whose typed `eventInfo` is read on first use;
    /// `info_span` is where `eventInfo` lies in `raw_json`, if known.
    pub(crate) fn deferred(
        envelope: Envelope,
        raw_json: String,
        info_span: Option<(u32, u32)>,
        spots: Option<Box<Spans>>,
    ) -> Event {
        Event {
            kind: envelope.kind,
            envelope: envelope.text,
            event_time: OnceLock::new(),
            payload: PayloadCell::Deferred(OnceLock::new()),
            info_span,
            info_absent: false,
            spots,
            summary: OnceLock::new(),
            raw_json,
        }
    }

    /// The same event, noting where its `eventInfo` lies in `raw_json`
    /// when that is known (`None` leaves it unknown).
    pub(crate) fn noting_info_at(mut self, span: Option<(u32, u32)>) -> Event {
        if span.is_some() {
            self.info_span = span;
        }
        self
    }

    /// The same event, noting that it has no `eventInfo` member.
    pub(crate) fn noting_no_info(mut self) -> Event {
        self.info_absent = true;
        self
    }

    /// The text of a span of `raw_json`.
    fn text_at(&self, span: Option<(u32, u32)>) -> Option<&str> {
        let (from, to) = span?;
        self.raw_json.get(from as usize..to as usize)
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Event) -> bool {
        self.kind == other.kind
            && self.event_type() == other.event_type()
            && self.event_time() == other.event_time()
            && self.organization_id() == other.organization_id()
            && self.correlation_id() == other.correlation_id()
            && self.raw_json == other.raw_json
            && self.payload() == other.payload()
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("kind", &self.kind)
            .field("event_type", &self.event_type())
            .field("event_time", &self.event_time())
            .field("organization_id", &self.organization_id())
            .field("correlation_id", &self.correlation_id())
            .field("payload", self.payload())
            .field("raw_json", &self.raw_json)
            .finish()
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = s.serialize_struct("Event", 7)?;
        out.serialize_field("kind", &self.kind)?;
        out.serialize_field("eventType", &self.event_type())?;
        out.serialize_field("eventTime", &self.event_time())?;
        out.serialize_field("organizationId", &self.organization_id())?;
        out.serialize_field("correlationId", &self.correlation_id())?;
        out.serialize_field("payload", self.payload())?;
        out.serialize_field("rawJson", &self.raw_json)?;
        out.end()
    }
}

impl Event {
    /// The event's kind.
    pub fn kind(&self) -> EventKind {
        self.kind
    }

    /// `eventType` as sent, also for unknown types; `None` when absent or
    /// not a string (as for the other envelope fields: the spec marks none
    /// of them required).
    pub fn event_type(&self) -> Option<&str> {
        match &self.envelope {
            EnvelopeText::Spans(s) => self.text_at(s.event_type),
            EnvelopeText::Owned(o) => o.event_type.as_deref(),
        }
    }

    /// `eventTime` (UTC) with its raw text; read on the first call.
    pub fn event_time(&self) -> Option<&EventTime> {
        match &self.envelope {
            EnvelopeText::Spans(s) => self
                .event_time
                .get_or_init(|| {
                    self.text_at(s.event_time)
                        .map(|t| Box::new(EventTime::parse(t)))
                })
                .as_deref(),
            EnvelopeText::Owned(o) => o.event_time.as_ref(),
        }
    }

    /// `organizationId`.
    pub fn organization_id(&self) -> Option<&str> {
        match &self.envelope {
            EnvelopeText::Spans(s) => self.text_at(s.organization_id),
            EnvelopeText::Owned(o) => o.organization_id.as_deref(),
        }
    }

    /// `correlationId` (the operation id).
    pub fn correlation_id(&self) -> Option<&str> {
        match &self.envelope {
            EnvelopeText::Spans(s) => self.text_at(s.correlation_id),
            EnvelopeText::Owned(o) => o.correlation_id.as_deref(),
        }
    }

    /// The event's JSON exactly as sent.
    pub fn raw_json(&self) -> &str {
        &self.raw_json
    }

    /// The JSON text of `eventInfo` as sent, when the parse noted where it
    /// lies in [`Event::raw_json`] (the common case); `None` otherwise.
    pub fn event_info_json(&self) -> Option<&str> {
        self.info_span
            .and_then(|(from, to)| self.raw_json.get(from as usize..to as usize))
    }

    /// Whether the event has no `eventInfo` member, as far as the parse
    /// saw: `Some(true)` it has none, `Some(false)` it has one (whose text
    /// [`Event::event_info_json`] gives), `None` not known (read
    /// [`Event::raw_json`]).
    pub fn event_info_absent(&self) -> Option<bool> {
        if self.info_absent {
            Some(true)
        } else if self.info_span.is_some() {
            Some(false)
        } else {
            None
        }
    }

    /// The flat accessors' values without the typed read: none at all for
    /// a kind without an order or reserve, else those the parse noted,
    /// while the typed read has not happened; `None` means: use
    /// [`Event::payload`].
    fn quick(&self) -> Option<&Summary> {
        if !self.kind.has_entity() {
            // Stop lists, shifts and unknown types carry none of these
            // values: their typed eventInfo need not be read to say so.
            return Some(&NO_ENTITY);
        }
        if self.payload.get().is_some() {
            return None;
        }
        let spots = self.spots.as_deref()?;
        let shape = match self.kind {
            EventKind::DeliveryOrderUpdate | EventKind::DeliveryOrderError => Shape::Delivery,
            EventKind::TableOrderUpdate | EventKind::TableOrderError => Shape::Table,
            EventKind::ReserveUpdate | EventKind::ReserveError => Shape::Reserve,
            _ => return None,
        };
        Some(
            self.summary
                .get_or_init(|| Box::new(Summary::read(shape, &self.raw_json, spots))),
        )
    }

    /// Whether the typed `eventInfo` has been read yet (see [`Event`]).
    pub fn payload_is_read(&self) -> bool {
        self.payload.get().is_some()
    }

    /// The error text when the event could not be read
    /// ([`EventPayload::Invalid`]), else `None`. Decided at parse time: it
    /// never reads the typed `eventInfo`.
    pub fn problem(&self) -> Option<&str> {
        match self.payload.get() {
            Some(EventPayload::Invalid { error }) => Some(error.as_ref()),
            _ => None,
        }
    }

    /// The delivery `eventInfo` of a `DeliveryOrderUpdate`/`DeliveryOrderError`.
    pub fn delivery(&self) -> Option<&DeliveryOrderInfo> {
        match self.payload() {
            EventPayload::DeliveryOrder(info) => Some(info),
            _ => None,
        }
    }

    /// The table order `eventInfo` of a `TableOrderUpdate`/`TableOrderError`.
    pub fn table_order(&self) -> Option<&TableOrderInfo> {
        match self.payload() {
            EventPayload::TableOrder(info) => Some(info),
            _ => None,
        }
    }

    /// The reserve `eventInfo` of a `ReserveUpdate`/`ReserveError`.
    pub fn reserve(&self) -> Option<&ReserveInfo> {
        match self.payload() {
            EventPayload::Reserve(info) => Some(info),
            _ => None,
        }
    }

    /// The `eventInfo` of a `StopListUpdate`.
    pub fn stop_list(&self) -> Option<&StopListUpdate> {
        match self.payload() {
            EventPayload::StopList(info) => Some(info),
            _ => None,
        }
    }

    /// The `eventInfo` of a `PersonalShift`.
    pub fn personal_shift(&self) -> Option<&PersonalShift> {
        match self.payload() {
            EventPayload::PersonalShift(info) => Some(info),
            _ => None,
        }
    }

    /// The raw `eventInfo` of an event of unknown type.
    pub fn unknown_event_info(&self) -> Option<&str> {
        match self.payload() {
            EventPayload::Unknown { event_info } => event_info.as_ref().map(RawJson::get),
            _ => None,
        }
    }

    /// `eventInfo.id` of an order or reserve event: the delivery order, table
    /// order or reserve id. `None` for other kinds.
    pub fn entity_id(&self) -> Option<&str> {
        if let Some(q) = self.quick() {
            return q.id.as_deref();
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.id.as_deref(),
            EventPayload::TableOrder(i) => i.id.as_deref(),
            EventPayload::Reserve(i) => i.id.as_deref(),
            _ => None,
        }
    }

    /// `eventInfo.id` of a delivery or table order event. `None` for reserves
    /// (use [`Event::entity_id`]) and other kinds.
    pub fn order_id(&self) -> Option<&str> {
        if let Some(q) = self.quick() {
            return q.id.as_deref().filter(|_| !self.kind.is_reserve());
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.id.as_deref(),
            EventPayload::TableOrder(i) => i.id.as_deref(),
            _ => None,
        }
    }

    /// `eventInfo.timestamp` of an order or reserve event: a version number
    /// that grows with every change of that entity.
    pub fn timestamp(&self) -> Option<i64> {
        if let Some(q) = self.quick() {
            return q.timestamp;
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.timestamp,
            EventPayload::TableOrder(i) => i.timestamp,
            EventPayload::Reserve(i) => i.timestamp,
            _ => None,
        }
    }

    /// `eventInfo.creationStatus` of an order or reserve event.
    pub fn creation_status(&self) -> Option<&CreationStatus> {
        if let Some(q) = self.quick() {
            return q.creation_status.as_ref();
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.creation_status.as_ref(),
            EventPayload::TableOrder(i) => i.creation_status.as_ref(),
            EventPayload::Reserve(i) => i.creation_status.as_ref(),
            _ => None,
        }
    }

    /// `eventInfo.errorInfo` of an order or reserve event.
    pub fn error_info(&self) -> Option<&ErrorInfo> {
        if !self.kind.has_entity() {
            return None;
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.error_info.as_ref(),
            EventPayload::TableOrder(i) => i.error_info.as_ref(),
            EventPayload::Reserve(i) => i.error_info.as_ref(),
            _ => None,
        }
    }

    /// `errorInfo.code` as text (also for codes this SDK does not know).
    pub fn error_code(&self) -> Option<&str> {
        if let Some(q) = self.quick() {
            return q.error_code.as_ref().map(|c| c.as_str());
        }
        self.error_info()
            .and_then(|e| e.code.as_ref())
            .map(|c| c.as_str())
    }

    /// `errorInfo.message`, falling back to the deprecated `description`.
    pub fn error_message(&self) -> Option<&str> {
        if let Some(q) = self.quick() {
            return q
                .error_message
                .as_deref()
                .or(q.error_description.as_deref());
        }
        self.error_info()
            .and_then(|e| e.message.as_deref().or(e.description.as_deref()))
    }

    /// The order or reserve status as text: `order.status` of deliveries
    /// (`DeliveryStatus`) and table orders (`OrderStatus`), `reserve.status` of
    /// reserves (`ReserveStatus`). Unknown values are returned as sent.
    pub fn status(&self) -> Option<&str> {
        if let Some(q) = self.quick() {
            return q.status.as_deref();
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.order.as_ref()?.status.as_ref().map(|s| s.as_str()),
            EventPayload::TableOrder(i) => i.order.as_ref()?.status.as_ref().map(|s| s.as_str()),
            EventPayload::Reserve(i) => i.reserve.as_ref()?.status.as_ref().map(|s| s.as_str()),
            _ => None,
        }
    }

    /// The order number: of a delivery, a table order, or a banquet's order.
    pub fn order_number(&self) -> Option<i64> {
        if let Some(q) = self.quick() {
            return q.number;
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.order.as_ref()?.number,
            EventPayload::TableOrder(i) => i.order.as_ref()?.number,
            EventPayload::Reserve(i) => i.reserve.as_ref()?.order.as_ref()?.number,
            _ => None,
        }
    }

    /// The exact order total: of a delivery, a table order, or a banquet's
    /// order. `to_string()` gives the plain decimal (`"1780"`, `"12.5"`).
    pub fn sum(&self) -> Option<Money> {
        if let Some(q) = self.quick() {
            return q.sum;
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.order.as_ref()?.sum,
            EventPayload::TableOrder(i) => i.order.as_ref()?.sum,
            EventPayload::Reserve(i) => i.reserve.as_ref()?.order.as_ref()?.sum,
            _ => None,
        }
    }

    /// The customer phone of a delivery, table order or reserve.
    pub fn phone(&self) -> Option<&str> {
        if let Some(q) = self.quick() {
            return q.phone.as_deref();
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.order.as_ref()?.phone.as_deref(),
            EventPayload::TableOrder(i) => i.order.as_ref()?.phone.as_deref(),
            EventPayload::Reserve(i) => i.reserve.as_ref()?.phone.as_deref(),
            _ => None,
        }
    }

    /// Whether this event announces a new delivery order.
    ///
    /// Returns `true` exactly when all of these hold:
    /// * the kind is [`EventKind::DeliveryOrderUpdate`];
    /// * `eventInfo.order` is present (so `creationStatus` `InProgress` or
    ///   `Error`, which carry no order, give `false`);
    /// * `order.status` is `New` (the rule of the service description), or
    ///   `Unconfirmed` or `WaitCooking` (the first statuses of the official
    ///   `DeliveryStatus` enum, which has no `New`).
    ///
    /// The service sends an update on every change, and the first update a
    /// receiver sees may already be past these statuses (e.g. after an outage),
    /// so "first time this order id is seen" is a separate question: track it
    /// with your own store or an [`OrderingGuard`](super::OrderingGuard).
    pub fn is_new_delivery_order(&self) -> bool {
        if self.kind != EventKind::DeliveryOrderUpdate {
            return false;
        }
        if let Some(q) = self.quick() {
            return q.has_order
                && q.delivery_status
                    .as_ref()
                    .is_some_and(DeliveryStatus::is_initial);
        }
        self.delivery()
            .and_then(|i| i.order.as_ref())
            .and_then(|o| o.status.as_ref())
            .is_some_and(DeliveryStatus::is_initial)
    }

    /// `eventInfo.externalNumber` of an order or reserve event.
    pub fn external_number(&self) -> Option<&str> {
        if let Some(q) = self.quick() {
            return q.external_number.as_deref();
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.external_number.as_deref(),
            EventPayload::TableOrder(i) => i.external_number.as_deref(),
            EventPayload::Reserve(i) => i.external_number.as_deref(),
            _ => None,
        }
    }

    /// `eventInfo.posId` of a delivery or table order event.
    pub fn pos_id(&self) -> Option<&str> {
        if let Some(q) = self.quick() {
            return q.pos_id.as_deref();
        }
        match self.payload() {
            EventPayload::DeliveryOrder(i) => i.pos_id.as_deref(),
            EventPayload::TableOrder(i) => i.pos_id.as_deref(),
            _ => None,
        }
    }

    /// `eventInfo.isDeleted` of a reserve event.
    pub fn reserve_is_deleted(&self) -> Option<bool> {
        if let Some(q) = self.quick() {
            return q.is_deleted;
        }
        match self.payload() {
            EventPayload::Reserve(i) => i.is_deleted,
            _ => None,
        }
    }

    /// The de-duplication key of the event; see [`EventKey`].
    pub fn dedup_key(&self) -> EventKey {
        EventKey::of(self)
    }
}

impl DeliveryStatus {
    /// Whether the status is one a freshly created delivery order has:
    /// `New` (the service description's word, which the official enum lacks
    /// and so reads as `Unknown("New")`), `Unconfirmed` or `WaitCooking`
    /// (the first values of the official enum).
    pub fn is_initial(&self) -> bool {
        match self {
            DeliveryStatus::Unconfirmed | DeliveryStatus::WaitCooking => true,
            DeliveryStatus::Unknown(s) => s == "New",
            _ => false,
        }
    }
}

/// What identifies an event across repeated deliveries.
///
/// The service sends no event id, so the key is inferred (the text is stable
/// across processes and versions, so it may be stored):
///
/// * order and reserve events with `eventInfo.id` and `eventInfo.timestamp`:
///   `"<eventType>|<organizationId>|<eventInfo.id>|<timestamp>"`; every change
///   of an order gets a new timestamp, and the type separates an `Update` from
///   an `Error` of the same version;
/// * `StopListUpdate`: `"StopListUpdate|<organizationId>|<correlationId>|"`
///   followed by `<terminal group id>:<0|1>` per entry (`1` = `isFull`),
///   comma-separated, in the order sent;
/// * `PersonalShift`: `"PersonalShift|<organizationId>|<correlationId>|<employee
///   id>|<0|1>|<terminalGroupId>"` (`1` = opened);
/// * everything else (unknown types, invalid events, order events without id
///   or timestamp): `"<eventType>|<organizationId>|<correlationId>|#<hash>"`,
///   where the hash is the 64-bit FNV-1a of the raw `eventInfo` text (of the
///   whole raw event when `eventInfo` is unavailable), as 16 lowercase hex
///   digits.
///
/// A missing part is written as an empty string. `eventTime` is left out on
/// purpose: a repeated delivery may be stamped anew.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKey(String);

impl EventKey {
    /// Computes the key of an event.
    pub fn of(event: &Event) -> EventKey {
        let ty = event.event_type().unwrap_or("");
        let org = event.organization_id().unwrap_or("");
        let corr = event.correlation_id().unwrap_or("");
        // Written into one string sized for the common keys: `format!` and a
        // string per stop-list entry were most of what a small event's key
        // cost, more than the parse of its body.
        let mut key = String::with_capacity(ty.len() + org.len() + corr.len() + 64);
        for part in [ty, "|", org, "|"] {
            key.push_str(part);
        }
        if let (Some(id), Some(ts)) = (event.entity_id(), event.timestamp()) {
            key.push_str(id);
            key.push('|');
            key.push_str(itoa::Buffer::new().format(ts));
            return EventKey(key);
        }
        key.push_str(corr);
        key.push('|');
        match event.payload() {
            EventPayload::StopList(s) => {
                let updates = s.terminal_groups_stop_lists_updates.iter().flatten();
                for (i, update) in updates.enumerate() {
                    if i > 0 {
                        key.push(',');
                    }
                    key.push_str(update.id.as_deref().unwrap_or(""));
                    key.push_str(flag(update.is_full, ":1", ":0"));
                }
            }
            EventPayload::PersonalShift(p) => {
                key.push_str(p.id.as_deref().unwrap_or(""));
                key.push_str(flag(p.opened, "|1|", "|0|"));
                key.push_str(p.terminal_group_id.as_deref().unwrap_or(""));
            }
            EventPayload::Unknown {
                event_info: Some(info),
            } => push_hash(&mut key, fnv1a(info.get().as_bytes())),
            _ => push_hash(&mut key, fnv1a(event.raw_json.as_bytes())),
        }
        EventKey(key)
    }

    /// The key text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A key read back from storage (the text of [`EventKey::as_str`]), for
    /// de-duplication across restarts.
    pub fn from_stored(text: impl Into<String>) -> EventKey {
        EventKey(text.into())
    }
}

impl fmt::Display for EventKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// 64-bit FNV-1a: a documented, reproducible content hash for keys (not a
/// security primitive; the events are already authenticated).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `#` and the hash as 16 lowercase hex digits.
fn push_hash(key: &mut String, hash: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    key.push('#');
    for shift in (0..16).rev() {
        key.push(char::from(HEX[(hash >> (shift * 4)) as usize & 0xf]));
    }
}

/// `yes` for a flag that is set, `no` for one unset or absent.
fn flag(set: Option<bool>, yes: &'static str, no: &'static str) -> &'static str {
    if set.unwrap_or(false) {
        yes
    } else {
        no
    }
}

/// The key as `EventKey::of` first wrote it, with `format!`: the reference
/// the differential tests hold the faster writer to, so that a key stored
/// by an older version still matches.
#[cfg(test)]
pub(crate) fn reference_key(event: &Event) -> String {
    let ty = event.event_type().unwrap_or("");
    let org = event.organization_id().unwrap_or("");
    let corr = event.correlation_id().unwrap_or("");
    if let (Some(id), Some(ts)) = (event.entity_id(), event.timestamp()) {
        return format!("{ty}|{org}|{id}|{ts}");
    }
    match event.payload() {
        EventPayload::StopList(s) => {
            let parts: Vec<String> = s
                .terminal_groups_stop_lists_updates
                .iter()
                .flatten()
                .map(|u| {
                    format!(
                        "{}:{}",
                        u.id.as_deref().unwrap_or(""),
                        u8::from(u.is_full.unwrap_or(false))
                    )
                })
                .collect();
            format!("{ty}|{org}|{corr}|{}", parts.join(","))
        }
        EventPayload::PersonalShift(p) => format!(
            "{ty}|{org}|{corr}|{}|{}|{}",
            p.id.as_deref().unwrap_or(""),
            u8::from(p.opened.unwrap_or(false)),
            p.terminal_group_id.as_deref().unwrap_or("")
        ),
        EventPayload::Unknown {
            event_info: Some(info),
        } => format!("{ty}|{org}|{corr}|#{:016x}", fnv1a(info.get().as_bytes())),
        _ => format!(
            "{ty}|{org}|{corr}|#{:016x}",
            fnv1a(event.raw_json.as_bytes())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_codes_and_names() {
        for (i, kind) in EventKind::ALL.iter().enumerate() {
            assert_eq!(kind.code() as usize, i);
            assert_eq!(EventKind::from_code(kind.code()), Some(*kind));
            if *kind != EventKind::Unknown {
                assert_eq!(EventKind::from_event_type(kind.as_str()), *kind);
            }
        }
        assert_eq!(EventKind::from_code(9), None);
        assert_eq!(EventKind::from_event_type("Unknown"), EventKind::Unknown);
        assert_eq!(
            EventKind::from_event_type("deliveryorderupdate"),
            EventKind::Unknown
        );
    }

    #[test]
    fn fnv1a_matches_the_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
