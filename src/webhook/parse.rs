//! Parsing a webhook body into [`Event`]s.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::blocks::{prefix_xor, BlockMasks};
use super::event::RawJson;
use super::event::{
    Envelope, EnvelopeSpans, EnvelopeText, Event, EventKind, EventPayload, OwnedEnvelope,
};
use super::scan::{KeySet, Members, ScannedEvent, KEYS_COMPARED};
use super::summary::Spans;
use super::{DeliveryOrderInfo, PersonalShift, ReserveInfo, StopListUpdate, TableOrderInfo};
use crate::lenient::Lenient;
use crate::time::EventTime;

/// Default body size limit: 16 MiB, far above any order the service sends.
pub const DEFAULT_MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Default nesting limit: 64 levels of arrays and objects. The deepest
/// documented path (body → event → eventInfo → order → items → item →
/// component → modifiers → modifier → deleted → deletionMethod → removalType)
/// has 12.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Highest accepted nesting limit: serde_json stops at 128 levels by itself, so
/// a larger [`ParseOptions::with_max_depth`] value is lowered to this.
pub const MAX_DEPTH_CEILING: usize = 128;

/// Limits and policies of [`parse_body_with`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    max_body_bytes: usize,
    max_depth: usize,
    accept_single_object: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
            accept_single_object: true,
        }
    }
}

// The builders are inlined: the C and PHP bindings build options on every
// parse.
impl ParseOptions {
    /// The defaults: 16 MiB, 64 levels, a single-object body accepted.
    #[inline]
    pub fn new() -> ParseOptions {
        ParseOptions::default()
    }

    /// Sets the body size limit in bytes; a larger body is
    /// [`ParseError::TooLarge`].
    #[inline]
    pub fn with_max_body_bytes(mut self, bytes: usize) -> ParseOptions {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets the nesting limit (arrays and objects, the body's own array
    /// counting as 1); a deeper body is [`ParseError::TooDeep`]. Values above
    /// [`MAX_DEPTH_CEILING`] are lowered to it.
    #[inline]
    pub fn with_max_depth(mut self, depth: usize) -> ParseOptions {
        self.max_depth = depth.min(MAX_DEPTH_CEILING);
        self
    }

    /// Whether a body that is one event object instead of an array is read as
    /// one event (default `true`; the result then has
    /// [`ParsedBody::single_object`] set). With `false` it is
    /// [`ParseError::NotAnArray`].
    #[inline]
    pub fn with_accept_single_object(mut self, accept: bool) -> ParseOptions {
        self.accept_single_object = accept;
        self
    }

    /// The body size limit in bytes.
    pub fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }

    /// The nesting limit.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// Whether a single-object body is accepted.
    pub fn accept_single_object(&self) -> bool {
        self.accept_single_object
    }
}

/// The events of one webhook body.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ParsedBody {
    /// The events, in body order. An event that could not be read is still
    /// here, with [`EventPayload::Invalid`].
    pub events: Vec<Event>,
    /// The body was a single event object instead of the documented array
    /// (off-spec; accepted by default, see [`ParseOptions`]).
    pub single_object: bool,
}

impl ParsedBody {
    /// Number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the body held no events (`[]`).
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events, in body order.
    pub fn iter(&self) -> std::slice::Iter<'_, Event> {
        self.events.iter()
    }

    /// The events that could not be read.
    pub fn invalid_events(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| e.problem().is_some())
    }
}

impl IntoIterator for ParsedBody {
    type Item = Event;
    type IntoIter = std::vec::IntoIter<Event>;
    fn into_iter(self) -> Self::IntoIter {
        self.events.into_iter()
    }
}

impl<'a> IntoIterator for &'a ParsedBody {
    type Item = &'a Event;
    type IntoIter = std::slice::Iter<'a, Event>;
    fn into_iter(self) -> Self::IntoIter {
        self.events.iter()
    }
}

/// The category of a [`ParseError`], with a stable code for the C ABI and a
/// stable name for the test vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ParseErrorKind {
    /// The body is larger than the limit.
    TooLarge = 1,
    /// The body is not UTF-8.
    InvalidUtf8 = 2,
    /// The body nests deeper than the limit.
    TooDeep = 3,
    /// The body is not JSON (this includes an empty body).
    InvalidJson = 4,
    /// The body is JSON but not an array (or a single object when that is
    /// not accepted).
    NotAnArray = 5,
}

impl ParseErrorKind {
    /// The stable code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The stable name: `too_large`, `invalid_utf8`, `too_deep`,
    /// `invalid_json` or `not_an_array`.
    pub fn as_str(self) -> &'static str {
        match self {
            ParseErrorKind::TooLarge => "too_large",
            ParseErrorKind::InvalidUtf8 => "invalid_utf8",
            ParseErrorKind::TooDeep => "too_deep",
            ParseErrorKind::InvalidJson => "invalid_json",
            ParseErrorKind::NotAnArray => "not_an_array",
        }
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a body as a whole could not be read. Problems of single events do not
/// fail the body; see [`EventPayload::Invalid`].
///
/// Messages never quote the body's content.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The body is larger than the limit.
    #[error("webhook body of {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// Body size in bytes.
        size: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// The body is not UTF-8.
    #[error("webhook body is not UTF-8 (invalid byte at offset {valid_up_to})")]
    InvalidUtf8 {
        /// Offset of the first invalid byte.
        valid_up_to: usize,
    },
    /// The body nests deeper than the limit.
    #[error("webhook body nests deeper than {limit} levels")]
    TooDeep {
        /// The nesting limit.
        limit: usize,
    },
    /// The body is not JSON.
    #[error("webhook body is not valid JSON: {message}")]
    InvalidJson {
        /// 1-based line of the error (0 at end of input).
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// serde_json's description of the syntax error.
        message: String,
    },
    /// The body is valid JSON but not an array of events.
    #[error("webhook body is a JSON {found}, not an array of events")]
    NotAnArray {
        /// What the body is: `object`, `string`, `number`, `boolean` or
        /// `null`.
        found: &'static str,
    },
}

impl ParseError {
    /// The error's category.
    pub fn kind(&self) -> ParseErrorKind {
        match self {
            ParseError::TooLarge { .. } => ParseErrorKind::TooLarge,
            ParseError::InvalidUtf8 { .. } => ParseErrorKind::InvalidUtf8,
            ParseError::TooDeep { .. } => ParseErrorKind::TooDeep,
            ParseError::InvalidJson { .. } => ParseErrorKind::InvalidJson,
            ParseError::NotAnArray { .. } => ParseErrorKind::NotAnArray,
        }
    }
}

/// Parses a webhook body with the default [`ParseOptions`].
///
/// See [`parse_body_with`].
pub fn parse_body(body: &[u8]) -> Result<ParsedBody, ParseError> {
    parse_body_with(body, &ParseOptions::default())
}

/// Parses a webhook body: the raw request bytes, a JSON array of events.
///
/// Checks run in this order, each before any deeper work: size limit, UTF-8
/// (a leading byte-order mark is skipped), nesting depth (a byte scan), JSON
/// syntax, array shape. Then each element is read on its own, so one broken
/// event never hides the others: an element that cannot be read becomes an
/// event with [`EventPayload::Invalid`] and whatever envelope fields it had.
///
/// A single event object instead of an array (off-spec; some test tools send
/// it) is accepted as one event with [`ParsedBody::single_object`] set, unless
/// [`ParseOptions::with_accept_single_object`] turned that off: its content is
/// authentic and well-formed, and rejecting it would only lose the event.
///
/// Never panics, whatever the input.
pub fn parse_body_with(body: &[u8], options: &ParseOptions) -> Result<ParsedBody, ParseError> {
    if body.len() > options.max_body_bytes {
        return Err(ParseError::TooLarge {
            size: body.len(),
            limit: options.max_body_bytes,
        });
    }
    let (bom, bytes) = match body.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (3, rest),
        None => (0, body),
    };
    // std's validator says where the invalid byte is; the SIMD one is
    // several times faster on the valid bodies that matter.
    let text = simdutf8::basic::from_utf8(bytes).or_else(|_| {
        std::str::from_utf8(bytes).map_err(|e| ParseError::InvalidUtf8 {
            valid_up_to: bom + e.valid_up_to(),
        })
    })?;
    parse_text(text, options, true)
}

/// Parses a body's text. With `scan`, the one-pass scanner (`scan`) answers
/// the common case; anything it cannot judge, every error included, takes
/// the careful path. Tests run both on the same bodies.
fn parse_text(text: &str, options: &ParseOptions, scan: bool) -> Result<ParsedBody, ParseError> {
    let limit = options.max_depth.min(MAX_DEPTH_CEILING);
    if scan {
        if let Some(events) = super::scan::scan_array_with(text, limit, event_from_scan) {
            return Ok(ParsedBody {
                events,
                single_object: false,
            });
        }
    }
    if exceeds_depth(text.as_bytes(), limit) {
        return Err(ParseError::TooDeep { limit });
    }

    let first = text
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    match first {
        Some(b'[') => {
            if let Some(events) = parse_array_fast(text) {
                return Ok(ParsedBody {
                    events,
                    single_object: false,
                });
            }
            // Something in the body is unusual (syntax error, an element that
            // is not a well-formed event): split it into raw elements first,
            // which reports syntax errors and isolates each element.
            let elements: Vec<&RawValue> = serde_json::from_str(text).map_err(json_error)?;
            Ok(ParsedBody {
                events: elements.into_iter().map(parse_element).collect(),
                single_object: false,
            })
        }
        _ => {
            // Validate first so that broken JSON is reported as such.
            let value: &RawValue = serde_json::from_str(text).map_err(json_error)?;
            if first == Some(b'{') && options.accept_single_object {
                return Ok(ParsedBody {
                    events: vec![parse_element(value)],
                    single_object: true,
                });
            }
            Err(ParseError::NotAnArray {
                found: json_type(value.get()),
            })
        }
    }
}

/// Parses the JSON of one event (for example one stored from
/// [`Event::raw_json`]). Never fails: unreadable input gives an event with
/// [`EventPayload::Invalid`].
pub fn parse_event(json: &str) -> Event {
    if exceeds_depth(json.as_bytes(), DEFAULT_MAX_DEPTH) {
        return invalid(json, "event nests too deeply".into());
    }
    match serde_json::from_str::<&RawValue>(json) {
        Ok(raw) => parse_element(raw),
        Err(e) => invalid(json, format!("event is not valid JSON: {e}").into()),
    }
}

fn json_error(e: serde_json::Error) -> ParseError {
    ParseError::InvalidJson {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    }
}

fn json_type(text: &str) -> &'static str {
    match text.trim_start().bytes().next() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// The problem of an event that is not a JSON object (a fixed text: no
/// allocation for it).
fn not_an_object(text: &str) -> &'static str {
    match json_type(text) {
        "array" => "event is a JSON array, not an object",
        "string" => "event is a JSON string, not an object",
        "boolean" => "event is a JSON boolean, not an object",
        "null" => "event is a JSON null, not an object",
        // json_type's last case; an object never comes here.
        _ => "event is a JSON number, not an object",
    }
}

/// The common case, in one pass: frames the array by hand and reads each
/// element in place, taking its raw text from the stream offset. `None` as
/// soon as anything is unusual; the caller then takes the careful path.
fn parse_array_fast(text: &str) -> Option<Vec<Event>> {
    let bytes = text.as_bytes();
    let mut pos = skip_ws(bytes, 0);
    if bytes.get(pos) != Some(&b'[') {
        return None;
    }
    pos = skip_ws(bytes, pos + 1);
    let mut events = Vec::new();
    if bytes.get(pos) == Some(&b']') {
        return (skip_ws(bytes, pos + 1) == bytes.len()).then_some(events);
    }
    loop {
        let rest = text.get(pos..)?;
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<InlineEnvelope<'_>>();
        let InlineEnvelope(read) = stream.next()?.ok()?;
        let end = pos.checked_add(stream.byte_offset())?;
        events.push(read.into_event(text.get(pos..end)?));
        pos = skip_ws(bytes, end);
        match bytes.get(pos) {
            Some(b',') => pos = skip_ws(bytes, pos + 1),
            Some(b']') => return (skip_ws(bytes, pos + 1) == bytes.len()).then_some(events),
            _ => return None,
        }
    }
}

fn skip_ws(bytes: &[u8], from: usize) -> usize {
    let rest = bytes.get(from..).unwrap_or(&[]);
    let skipped = rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .unwrap_or(rest.len());
    from.saturating_add(skipped)
}

/// An element read on serde_json's quick path: an event object, its
/// eventInfo checked. Fails on anything else, which sends the body to the
/// careful path.
struct InlineEnvelope<'de>(ReadEvent<'de>);

impl<'de> Deserialize<'de> for InlineEnvelope<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EnvelopeVisitor { mode: Mode::Check })
            .map(InlineEnvelope)
    }
}

/// Whether arrays and objects nest deeper than `limit`, counting brackets
/// outside strings. Runs before serde_json so that the error is explicit, and
/// does not need the input to be valid JSON.
///
/// Works on 64-byte blocks: bit masks of quotes and brackets, string interiors
/// by a prefix XOR of the quote mask, then only the brackets outside strings
/// are walked. Blocks with a backslash (rare: escapes) and the tail go byte by
/// byte. This keeps the scan a small fraction of the parse; a test checks it
/// against the byte-by-byte definition.
fn exceeds_depth(bytes: &[u8], limit: usize) -> bool {
    let mut scan = DepthScan::default();
    let mut blocks = bytes.chunks_exact(64);
    for block in &mut blocks {
        let m = BlockMasks::of(block);
        if m.backslash != 0 || scan.escaped {
            if block.iter().any(|&b| scan.step(b) > limit) {
                return true;
            }
            continue;
        }
        let mut inside = prefix_xor(m.quote);
        if scan.in_string {
            inside = !inside;
        }
        // The last byte is inside a string iff the string continues into the
        // next block (a closing quote is outside by this mask).
        scan.in_string = inside >> 63 == 1;
        let mut brackets = (m.open | m.close) & !inside;
        while brackets != 0 {
            let bit = brackets & brackets.wrapping_neg();
            if m.open & bit != 0 {
                scan.depth += 1;
                if scan.depth > limit {
                    return true;
                }
            } else {
                scan.depth = scan.depth.saturating_sub(1);
            }
            brackets ^= bit;
        }
    }
    blocks.remainder().iter().any(|&b| scan.step(b) > limit)
}

/// Byte-by-byte depth tracking, the definition the block scan follows.
#[derive(Default)]
struct DepthScan {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl DepthScan {
    /// Advances by one byte and returns the current depth.
    fn step(&mut self, b: u8) -> usize {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
        } else {
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => self.depth = self.depth.saturating_add(1),
                b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
        self.depth
    }
}

fn invalid(raw: &str, error: Cow<'static, str>) -> Event {
    Event::with_payload(
        Envelope::empty(),
        EventPayload::Invalid { error },
        raw.to_owned(),
    )
}

/// An event from the fast path's spans; the same event the careful path
/// ([`parse_element`]) makes of the same text.
fn event_from_scan(scanned: &ScannedEvent<'_>) -> Event {
    let text = scanned.text;
    let Some(m) = scanned.members.as_ref() else {
        return invalid(text, not_an_object(text).into());
    };
    let envelope = envelope_of(text, m);
    let unknown = envelope.kind == EventKind::Unknown;
    let read = ReadEvent {
        envelope,
        info_span: m.event_info.and_then(|info| span_in(text, info)),
        spots: Some(&m.event_info_spots),
        info: match m.event_info {
            None => Info::Missing,
            Some(info) if unknown => Info::Raw(info),
            Some(info) => Info::Checked(Shape {
                object: info.starts_with('{'),
                duplicate: m.event_info_repeated_key.map(str::to_owned),
            }),
        },
        duplicate: m.repeated_member,
    };
    read.into_event(text)
}

/// The envelope of a scanned event: where its string values lie in the
/// event's text, or, when one of them has escapes, the values decoded.
fn envelope_of(text: &str, m: &Members<'_>) -> Envelope {
    let span = |json| content_span(text, json, m.envelope_may_have_escapes);
    let spans = (|| {
        Some(EnvelopeSpans {
            event_type: span(m.event_type)?,
            event_time: span(m.event_time)?,
            organization_id: span(m.organization_id)?,
            correlation_id: span(m.correlation_id)?,
        })
    })();
    match spans {
        Some(spans) => Envelope {
            kind: kind_of(
                spans
                    .event_type
                    .and_then(|(from, to)| text.get(from as usize..to as usize)),
            ),
            text: EnvelopeText::Spans(spans),
        },
        None => {
            let event_type = m.event_type.and_then(string_value);
            Envelope {
                kind: kind_of(event_type.as_deref()),
                text: EnvelopeText::Owned(Box::new(OwnedEnvelope {
                    event_type,
                    event_time: m
                        .event_time
                        .and_then(string_value)
                        .map(EventTime::from_text),
                    organization_id: m.organization_id.and_then(string_value),
                    correlation_id: m.correlation_id.and_then(string_value),
                })),
            }
        }
    }
}

/// Where the contents of a JSON string value without escapes lie in `text`:
/// `Some(None)` for an absent or non-string value (envelope fields are read
/// leniently), `None` for a string with escapes (to be decoded). Looks for a
/// backslash only when the text `may_have_escapes`.
fn content_span(
    text: &str,
    json: Option<&str>,
    may_have_escapes: bool,
) -> Option<Option<(u32, u32)>> {
    let Some(inner) = json.and_then(string_contents) else {
        return Some(None);
    };
    if may_have_escapes && inner.contains('\\') {
        return None;
    }
    Some(span_in(text, inner))
}

/// The kind an `eventType` names (`Unknown` when absent).
fn kind_of(event_type: Option<&str>) -> EventKind {
    event_type.map_or(EventKind::Unknown, EventKind::from_event_type)
}

/// What lies between the quotes of a JSON string value, escapes as written;
/// `None` for any other value.
fn string_contents(json: &str) -> Option<&str> {
    json.strip_prefix('"')?.strip_suffix('"')
}

/// A JSON string value's text; `None` for any other value (envelope fields
/// are read leniently).
fn string_value(json: &str) -> Option<String> {
    crate::lenient::string_text(json).map(Cow::into_owned)
}

/// Reads one element of the body array.
fn parse_element(raw: &RawValue) -> Event {
    let text = raw.get();
    if !text.starts_with('{') {
        return invalid(text, not_an_object(text).into());
    }
    // If the checked read fails (a string in eventInfo that is not valid
    // Unicode, say), read the envelope again with eventInfo kept raw, so that
    // the envelope fields survive and the error can be reported on the event.
    let read = read_event(text, Mode::Check).or_else(|_| read_event(text, Mode::Raw));
    match read {
        Ok(read) => read.into_event(text),
        Err(e) => invalid(text, format!("event could not be read: {e}").into()),
    }
}

impl Event {
    /// The typed `eventInfo`, read from [`Event::raw_json`] on the first call.
    pub fn payload(&self) -> &EventPayload {
        self.payload.get_or_init(|| match self.event_info_json() {
            Some(info) => typed_event_info(self.kind(), info),
            None => typed_payload(self.kind(), self.raw_json()),
        })
    }
}

/// The typed `eventInfo` of an event that passed the parse-time check (see
/// [`Event`]), read from the event's JSON on first use.
fn typed_payload(kind: EventKind, raw: &str) -> EventPayload {
    let read = read_event(raw, Mode::Typed).or_else(|_| read_event(raw, Mode::Raw));
    match read.map(|r| r.info) {
        Ok(Info::Typed(payload)) => payload,
        Ok(Info::Raw(info)) => typed_event_info(kind, info),
        Ok(Info::Missing | Info::Checked(_)) => EventPayload::Invalid {
            error: "eventInfo is missing".into(),
        },
        Err(e) => EventPayload::Invalid {
            error: format!("event could not be read: {e}").into(),
        },
    }
}

/// The typed `eventInfo` of a checked event, from its JSON text.
fn typed_event_info(kind: EventKind, info: &str) -> EventPayload {
    let mut de = serde_json::Deserializer::from_str(info);
    PayloadSeed(kind)
        .deserialize(&mut de)
        .unwrap_or_else(|e| EventPayload::Invalid {
            error: format!("eventInfo could not be read: {e}").into(),
        })
}

fn read_event(text: &str, mode: Mode) -> Result<ReadEvent<'_>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let read = de.deserialize_map(EnvelopeVisitor { mode })?;
    de.end()?;
    Ok(read)
}

/// What the envelope visitor does with a known type's `eventInfo`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// At parse time: check its shape (see [`Shape`]), read nothing.
    Check,
    /// On first use: read it typed, in the same pass.
    Typed,
    /// Keep its text, to check or read on its own.
    Raw,
}

enum Info<'de> {
    Missing,
    /// The JSON text of `eventInfo`.
    Raw(&'de str),
    Typed(EventPayload),
    Checked(Shape),
}

struct ReadEvent<'de> {
    envelope: Envelope,
    info: Info<'de>,
    /// Where `eventInfo` lies in the event's text, if known.
    info_span: Option<(u32, u32)>,
    /// Where the summary's values lie in the event's text, if known; boxed
    /// only for an event whose typed read is deferred (the others never read
    /// them, and an allocation was a tenth of an unreadable event's parse).
    spots: Option<&'de Spans>,
    duplicate: Option<&'static str>,
}

/// The byte range of `part` within `whole`, when it is a subslice of it.
fn span_in(whole: &str, part: &str) -> Option<(u32, u32)> {
    let from = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let to = from.checked_add(part.len())?;
    (to <= whole.len()).then_some(())?;
    Some((u32::try_from(from).ok()?, u32::try_from(to).ok()?))
}

impl ReadEvent<'_> {
    fn into_event(self, raw: &str) -> Event {
        let envelope = self.envelope;
        let kind = envelope.kind;
        let raw_json = raw.to_owned();
        // Takes the one copy of the event's text made above.
        let invalid = |envelope, error: Cow<'static, str>, raw_json: String| {
            Event::with_payload(envelope, EventPayload::Invalid { error }, raw_json)
        };
        if let Some(field) = self.duplicate {
            return invalid(
                envelope,
                format!("duplicate field `{field}` in the event").into(),
                raw_json,
            );
        }
        // Where eventInfo lies in the event's text, when it was kept as text.
        let span = match self.info {
            Info::Raw(info) => span_in(raw, info),
            _ => self.info_span,
        };
        let shape = match (kind, self.info) {
            (EventKind::Unknown, Info::Raw(info)) => {
                let event_info = (info != "null").then(|| RawJson::from_text(info));
                return Event::with_payload(
                    envelope,
                    EventPayload::Unknown { event_info },
                    raw_json,
                )
                .noting_info_at(span);
            }
            (EventKind::Unknown, info) => {
                let event = Event::with_payload(
                    envelope,
                    EventPayload::Unknown { event_info: None },
                    raw_json,
                );
                return match info {
                    Info::Missing => event.noting_no_info(),
                    _ => event,
                };
            }
            (_, Info::Typed(payload)) => return Event::with_payload(envelope, payload, raw_json),
            (_, Info::Missing) => {
                return invalid(envelope, "eventInfo is missing".into(), raw_json).noting_no_info()
            }
            (_, Info::Checked(shape)) => Ok(shape),
            // eventInfo came before eventType: checked on its own now.
            (_, Info::Raw(info)) => check_shape(info),
        };
        match shape {
            Ok(Shape {
                object: true,
                duplicate: None,
            }) => Event::deferred(envelope, raw_json, span, self.spots.map(|s| Box::new(*s))),
            Ok(Shape {
                duplicate: Some(key),
                ..
            }) => invalid(
                envelope,
                format!("duplicate field `{key}` in eventInfo").into(),
                raw_json,
            ),
            // Its place kept when known: reading it plain is then cheap.
            Ok(_) => invalid(
                envelope,
                "eventInfo is null or not a JSON object".into(),
                raw_json,
            )
            .noting_info_at(span),
            Err(e) => invalid(
                envelope,
                format!("eventInfo could not be read: {e}").into(),
                raw_json,
            ),
        }
    }
}

enum Key {
    EventType,
    EventTime,
    OrganizationId,
    CorrelationId,
    EventInfo,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "eventType" => Key::EventType,
                    "eventTime" => Key::EventTime,
                    "organizationId" => Key::OrganizationId,
                    "correlationId" => Key::CorrelationId,
                    "eventInfo" => Key::EventInfo,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

/// Reads a [`Lenient`] value as a map value.
struct LenientSeed<T>(PhantomData<T>);

impl<'de, T: Lenient> DeserializeSeed<'de> for LenientSeed<T> {
    type Value = Option<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        T::read(d)
    }
}

fn lenient<T: Lenient>() -> LenientSeed<T> {
    LenientSeed(PhantomData)
}

struct EnvelopeVisitor {
    mode: Mode,
}

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = ReadEvent<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a webhook event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kind = EventKind::Unknown;
        let mut env = OwnedEnvelope::default();
        let mut info = Info::Missing;
        let mut duplicate = None;
        let (mut seen_type, mut seen_time, mut seen_org, mut seen_corr, mut seen_info) =
            (false, false, false, false, false);
        // A repeated key is ambiguous; the first value is kept and the event
        // is flagged as invalid.
        macro_rules! once {
            ($seen:ident, $name:literal, $read:expr) => {
                if std::mem::replace(&mut $seen, true) {
                    duplicate.get_or_insert($name);
                    map.next_value::<IgnoredAny>()?;
                } else {
                    $read
                }
            };
        }
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::EventType => once!(seen_type, "eventType", {
                    env.event_type = map.next_value_seed(lenient::<String>())?;
                    kind = kind_of(env.event_type.as_deref());
                }),
                Key::EventTime => once!(seen_time, "eventTime", {
                    env.event_time = map
                        .next_value_seed(lenient::<String>())?
                        .map(EventTime::from_text);
                }),
                Key::OrganizationId => once!(seen_org, "organizationId", {
                    env.organization_id = map.next_value_seed(lenient::<String>())?;
                }),
                Key::CorrelationId => once!(seen_corr, "correlationId", {
                    env.correlation_id = map.next_value_seed(lenient::<String>())?;
                }),
                Key::EventInfo => once!(seen_info, "eventInfo", {
                    info = match self.mode {
                        _ if kind == EventKind::Unknown => {
                            Info::Raw(map.next_value::<&'de RawValue>()?.get())
                        }
                        Mode::Check => Info::Checked(map.next_value_seed(ShapeSeed)?),
                        Mode::Typed => Info::Typed(map.next_value_seed(PayloadSeed(kind))?),
                        Mode::Raw => Info::Raw(map.next_value::<&'de RawValue>()?.get()),
                    };
                }),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(ReadEvent {
            envelope: Envelope {
                kind,
                text: EnvelopeText::Owned(Box::new(env)),
            },
            info,
            info_span: None,
            spots: None,
            duplicate,
        })
    }
}

/// What the careful path checks of a known type's `eventInfo` before its
/// typed read is left for later (the scanner checks the same): that it is an
/// object, and that no object inside it repeats a key (a repeated key is
/// ambiguous: readers disagree on which value wins).
struct Shape {
    object: bool,
    /// The first repeated key found.
    duplicate: Option<String>,
}

impl Shape {
    const SCALAR: Shape = Shape {
        object: false,
        duplicate: None,
    };
}

fn check_shape(text: &str) -> Result<Shape, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let shape = ShapeSeed.deserialize(&mut de)?;
    de.end()?;
    Ok(shape)
}

struct ShapeSeed;

impl<'de> DeserializeSeed<'de> for ShapeSeed {
    type Value = Shape;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        let mut keys = Vec::new();
        d.deserialize_any(Walk { keys: &mut keys })
    }
}

/// Walks one JSON value, remembering the keys of the objects it is inside
/// (borrowed from the input when they have no escapes). Strings are read,
/// not skipped, so that an escape that is not valid Unicode is an error here
/// as it would be for the typed read.
struct Walk<'k, 'de> {
    keys: &'k mut Vec<Cow<'de, str>>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_, 'de> {
    type Value = Shape;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, 'de> {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let base = self.keys.len();
        let mut duplicate = None;
        // The keys of an object past `KEYS_COMPARED`, all of them, as the
        // scan holds them: compared each with all before it, a 1 MB object
        // of 48,000 keys with one escaped key (which sends the body here)
        // took 1.7 s.
        let mut many: Option<KeySet<Cow<'de, str>>> = None;
        while let Some(ObjectKey(key)) = map.next_key::<ObjectKey<'de>>()? {
            if duplicate.is_none() {
                let repeated = match many.as_mut() {
                    Some(set) => !set.insert(key.clone()),
                    None => self.keys[base..].contains(&key),
                };
                if repeated {
                    duplicate = Some(key.to_string());
                }
            }
            if many.is_none() {
                self.keys.push(key);
                if self.keys.len() - base == KEYS_COMPARED {
                    many = Some(self.keys.drain(base..).collect());
                }
            }
            let inner = map.next_value_seed(Walk {
                keys: &mut *self.keys,
            })?;
            duplicate = duplicate.or(inner.duplicate);
        }
        self.keys.truncate(base);
        Ok(Shape {
            object: true,
            duplicate,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let mut duplicate = None;
        while let Some(inner) = seq.next_element_seed(Walk {
            keys: &mut *self.keys,
        })? {
            duplicate = duplicate.or(inner.duplicate);
        }
        Ok(Shape {
            object: false,
            duplicate,
        })
    }

    fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::SCALAR)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::SCALAR)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::SCALAR)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::SCALAR)
    }
    fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::SCALAR)
    }
    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::SCALAR)
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct ObjectKey<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for ObjectKey<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ObjectKey<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ObjectKey(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ObjectKey(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// Reads the typed `eventInfo` of a known kind.
/// Reads the typed `eventInfo` of a known kind.
struct PayloadSeed(EventKind);

impl<'de> DeserializeSeed<'de> for PayloadSeed {
    type Value = EventPayload;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let payload = match self.0 {
            EventKind::DeliveryOrderUpdate | EventKind::DeliveryOrderError => {
                DeliveryOrderInfo::read_boxed(d)?.map(EventPayload::DeliveryOrder)
            }
            EventKind::TableOrderUpdate | EventKind::TableOrderError => {
                TableOrderInfo::read_boxed(d)?.map(EventPayload::TableOrder)
            }
            EventKind::ReserveUpdate | EventKind::ReserveError => {
                ReserveInfo::read_boxed(d)?.map(EventPayload::Reserve)
            }
            EventKind::StopListUpdate => StopListUpdate::read_boxed(d)?.map(EventPayload::StopList),
            EventKind::PersonalShift => {
                PersonalShift::read_boxed(d)?.map(EventPayload::PersonalShift)
            }
            EventKind::Unknown => {
                return RawJson::read(d).map(|event_info| EventPayload::Unknown { event_info })
            }
        };
        Ok(payload.unwrap_or_else(|| EventPayload::Invalid {
            error: "eventInfo is null or not a JSON object".into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_scan_ignores_brackets_in_strings() {
        assert!(!exceeds_depth(br#"[{"a":"[[[[[[\"[[["}]"#, 2));
        assert!(exceeds_depth(b"[[[", 2));
        assert!(!exceeds_depth(b"[[]]]]]][[", 2));
        assert!(!exceeds_depth(br#"["\\"]"#, 1));
        assert!(!exceeds_depth(br#""unterminated \"#, 0));
    }

    /// The byte-at-a-time definition the fast scan must agree with.
    fn reference_depth(bytes: &[u8]) -> usize {
        let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0, false, false);
        for &b in bytes {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            max = max.max(depth);
        }
        max
    }

    #[test]
    fn fast_depth_scan_agrees_with_the_reference() {
        let mut rng = fastrand::Rng::with_seed(7);
        // With backslashes (byte-by-byte blocks) and without (bit-mask blocks);
        // lengths across several 64-byte blocks.
        for alphabet in [&b"[]{}\"\\ a\xd0"[..], b"[]{}\"\" a\xd0x:,", b"[{\"ab"] {
            for len in (0..400).step_by(3) {
                for _ in 0..40 {
                    let input: Vec<u8> = (0..len)
                        .map(|_| alphabet[rng.usize(..alphabet.len())])
                        .collect();
                    let depth = reference_depth(&input);
                    assert!(!exceeds_depth(&input, depth), "{input:?}");
                    if depth > 0 {
                        assert!(exceeds_depth(&input, depth - 1), "{input:?}");
                    }
                }
            }
        }
    }

    /// Every flat accessor of an event, as text.
    fn flat_fields(e: &Event) -> String {
        format!(
            "{:?} {:?}",
            (
                e.entity_id(),
                e.order_id(),
                e.timestamp(),
                e.creation_status().map(|c| c.as_str()),
                e.error_code(),
                e.error_message(),
                e.status(),
                e.order_number(),
                e.sum().map(|m| m.to_string()),
                e.phone(),
                e.is_new_delivery_order(),
            ),
            (
                e.external_number(),
                e.pos_id(),
                e.reserve_is_deleted(),
                e.dedup_key().as_str().to_owned(),
            )
        )
    }

    /// The flat fields of an event whose values lie past 64 KiB read the
    /// same before and after the typed read, and as in a small event.
    #[test]
    fn flat_fields_past_64_kib_read_as_in_a_small_event() {
        let event = |note: &str| {
            format!(
                r#"[{{"eventType":"DeliveryOrderUpdate","eventInfo":{{"note":"{note}","id":"a","timestamp":5,"order":{{"status":"New","number":7,"sum":12.5,"phone":"+7"}}}}}}]"#
            )
        };
        let small = parse_body(event("short").as_bytes()).expect("parses");
        let big_body = event(&"x".repeat(70_000));
        let big = parse_body(big_body.as_bytes()).expect("parses");
        let (small, big) = (&small.events[0], &big.events[0]);
        let before = flat_fields(big);
        assert!(!big.payload_is_read());
        assert_eq!(before, flat_fields(small));
        assert_eq!(big.sum().map(|m| m.to_string()).as_deref(), Some("12.5"));
        let _ = big.payload();
        assert_eq!(flat_fields(big), before);
    }

    /// The flat accessors of kinds without an order or reserve answer
    /// `None` without the typed read of their `eventInfo`.
    #[test]
    fn flat_fields_of_kinds_without_an_entity_read_nothing() {
        let body = br#"[{"eventType":"StopListUpdate","eventInfo":{"id":"s","timestamp":1,"terminalGroupsStopListsUpdates":[{"id":"t","isFull":true}]}},
            {"eventType":"PersonalShift","eventInfo":{"id":"e","timestamp":2,"order":{"sum":1},"opened":true}}]"#;
        for event in &parse_body(body).expect("parses").events {
            assert_eq!(event.problem(), None);
            let flat = (
                (event.entity_id(), event.order_id(), event.timestamp()),
                (
                    event.creation_status(),
                    event.error_info(),
                    event.error_code(),
                ),
                (event.error_message(), event.status(), event.order_number()),
                (event.sum(), event.phone(), event.is_new_delivery_order()),
                (
                    event.external_number(),
                    event.pos_id(),
                    event.reserve_is_deleted(),
                ),
            );
            assert_eq!(
                format!("{flat:?}"),
                "((None, None, None), (None, None, None), (None, None, None), \
                 (None, None, false), (None, None, None))"
            );
            assert!(!event.payload_is_read(), "{:?}", event.kind());
        }
    }

    /// Objects of a known type's `eventInfo` with more keys than are
    /// compared with each other, on both paths (an escaped key sends the
    /// body to the careful one): the same first repeat is reported whichever
    /// side of the switch to the set its two keys lie, and none when there
    /// is none.
    #[test]
    fn both_paths_find_repeats_in_objects_of_many_keys() {
        let options = ParseOptions::default();
        let problem = |keys: &[String], escaped: bool| {
            let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\":0")).collect();
            let first = if escaped { r#""\u0065scaped":1,"# } else { "" };
            let body = format!(
                r#"[{{"eventType":"DeliveryOrderUpdate","eventInfo":{{"order":{{{first}{}}}}}}}]"#,
                members.join(",")
            );
            let scanned = super::super::scan::scan_array(&body, DEFAULT_MAX_DEPTH).is_some();
            assert_eq!(scanned, !escaped, "the path taken");
            let fast = parse_text(&body, &options, true).expect("well-formed");
            let careful = parse_text(&body, &options, false).expect("well-formed");
            assert_eq!(fast, careful);
            fast.events[0].problem().map(str::to_owned)
        };
        let wide = |n: usize| -> Vec<String> { (0..n).map(|i| format!("key{i:012}")).collect() };
        for escaped in [false, true] {
            for n in [KEYS_COMPARED - 2, KEYS_COMPARED, KEYS_COMPARED + 1, 1000] {
                assert_eq!(problem(&wide(n), escaped), None, "{n}");
                for (first, again) in [(0, n - 1), (n - 2, n - 1), (3, n / 2), (1, 2)] {
                    let mut keys = wide(n);
                    keys.insert(again, keys[first].clone());
                    let want = format!("duplicate field `{}` in eventInfo", keys[first]);
                    assert_eq!(
                        problem(&keys, escaped).as_deref(),
                        Some(want.as_str()),
                        "{escaped} {n} {first} {again}"
                    );
                }
            }
            // Two repeats past the switch: the first in the text.
            let mut keys = wide(200);
            keys.push(keys[150].clone());
            keys.push(keys[100].clone());
            let want = format!("duplicate field `{}` in eventInfo", keys[150]);
            assert_eq!(problem(&keys, escaped).as_deref(), Some(want.as_str()));
        }
    }

    /// The scanner and the careful path make the same events (or the same
    /// error) of the same body: bodies built from the shared payloads and
    /// from pieces that exercise every rule, mutated at random.
    #[test]
    fn the_scanner_and_the_careful_path_agree() {
        let mut bodies: Vec<String> = Vec::new();
        // The shared payloads and the benchmark's bodies (the odd classes:
        // unknown types, missing or wrong-typed eventInfo, null members).
        for dir in ["/tests/vectors/payloads", "/benches/data/bodies"] {
            let dir = format!("{}{dir}", env!("CARGO_MANIFEST_DIR"));
            for entry in std::fs::read_dir(dir).expect("payloads") {
                let path = entry.expect("entry").path();
                bodies.push(std::fs::read_to_string(path).expect("payload"));
            }
        }
        let pieces = [
            r#"{"eventType":"DeliveryOrderUpdate","organizationId":"o","eventInfo":{"id":"a","timestamp":5,"order":{"sum":1.5,"status":"New","items":[{"type":"Product","amount":1}]}}}"#,
            r#"{"eventType":"DeliveryOrderUpdate","eventInfo":{"id":"a","x":{"k":1,"k":2}}}"#,
            r#"{"eventInfo":{"id":"b","timestamp":2},"eventType":"ReserveUpdate"}"#,
            r#"{"eventType":"StopListUpdate","eventType":"X","eventInfo":{}}"#,
            r#"{"eventType":"PersonalShift","eventInfo":null}"#,
            r#"{"eventType":"TableOrderError","eventInfo":[1]}"#,
            r#"{"eventType":"KitchenOrderUpdate","eventInfo":{"a":1,"a":2}}"#,
            r#"{"eventType":"PersonalShift"}"#,
            r#"{"eventType":"PersonalShift","eventInfo":{"id":"\u00e9\"\\n","opened":true}}"#,
            r#"{"eventType":"PersonalShift","eventInfo":{"id":"\ud83d\ude00"}}"#,
            r#"{"eventType":"PersonalShift","eventInfo":{"id":"\ud800"}}"#,
            r#"{"eventType":"PersonalShift","eventInfo":{"i\u0064":"x","id":"y"}}"#,
            r#"{"event\u0054ype":"PersonalShift","eventInfo":{}}"#,
            r#"{"eventType":"TableOrderUpdate","eventInfo":{"order":{"sum":1e400}}}"#,
            r#"{"eventType":"TableOrderUpdate","eventInfo":{"order":{"sum":-0.0,"number":1e2}}}"#,
            r#"{"eventType":7,"eventTime":"2025-01-02 03:04:05.678","correlationId":null}"#,
            // Envelope values: escaped (decoded, not spans), empty, not strings.
            r#"{"eventType":"Reserve\u0055pdate","organizationId":"o\"1","correlationId":"c\\d","eventTime":"2025-01-02T03:04:05Z","eventInfo":{"id":"r"}}"#,
            r#"{"eventType":"PersonalShift","organizationId":"","correlationId":"\u00e9","eventTime":"","eventInfo":{"id":"s"}}"#,
            r#"{"eventType":"StopListUpdate","organizationId":["o"],"correlationId":{},"eventTime":5,"eventInfo":{}}"#,
            r#"{"eventType":"DeliveryOrderError","eventInfo":{"id":"d","timestamp":"7","creationStatus":"Error","errorInfo":{"code":"ProductNotFound","description":"gone"},"order":null}}"#,
            r#"{"eventType":"DeliveryOrderUpdate","eventInfo":{"order":{"status":"Unconfirmed","sum":"12.50","number":1.5,"phone":7},"posId":"p","externalNumber":"x"}}"#,
            r#"{"eventType":"DeliveryOrderUpdate","eventInfo":{"order":"none","errorInfo":[1],"id":5}}"#,
            r#"{"eventType":"TableOrderUpdate","eventInfo":{"id":"t","order":{"status":"New","sum":0.30000000000000004,"number":-3,"items":[{"status":"x","sum":9}]}}}"#,
            r#"{"eventType":"ReserveUpdate","eventInfo":{"id":"r","isDeleted":false,"reserve":{"status":"Started","phone":"+7","order":{"sum":99.9,"number":12}}}}"#,
            r#"{"eventType":"ReserveError","eventInfo":{"reserve":{"order":[],"status":5},"errorInfo":{"code":7,"message":null,"description":"d"}}}"#,
            r#"{"eventType":"DeliveryOrderUpdate","eventInfo":{"order":{"status":"WaitCooking"}, "timestamp" : 9 }}"#,
            "42",
            r#""text""#,
            "null",
            "[]",
            "{}",
            "[{}]",
        ];
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..3000 {
            let n = rng.usize(0..4);
            let parts: Vec<&str> = (0..n).map(|_| pieces[rng.usize(..pieces.len())]).collect();
            // Whitespace runs shorter than a word and longer, mixed.
            let sep = [",", " , ", ",\n  ", ",\r\n\t          "][rng.usize(..4)];
            let pad = ["", "\n", " \t\r\n         "][rng.usize(..3)];
            bodies.push(format!("[{pad}{}{pad}]", parts.join(sep)));
        }
        // Random single-byte mutations of some of them.
        let mut mutated = Vec::new();
        for body in bodies.iter().take(600) {
            let mut bytes = body.clone().into_bytes();
            for _ in 0..rng.usize(1..4) {
                if bytes.is_empty() {
                    break;
                }
                let at = rng.usize(..bytes.len());
                bytes[at] = br#"{}[]:," \0e-.tnu"#[rng.usize(..15)];
            }
            if let Ok(text) = String::from_utf8(bytes) {
                mutated.push(text);
            }
        }
        bodies.extend(mutated);
        let options = ParseOptions::default();
        let mut fast_answers = 0;
        let mut deferred = 0;
        for body in &bodies {
            let fast = parse_text(body, &options, true);
            // Before anything reads the typed eventInfo (comparing does).
            let quick: Vec<String> = fast
                .iter()
                .flat_map(|p| p.events.iter())
                .map(|e| {
                    deferred += usize::from(!e.payload_is_read());
                    flat_fields(e)
                })
                .collect();
            let careful = parse_text(body, &options, false);
            assert_eq!(fast, careful, "{body}");
            if super::super::scan::scan_array(body, DEFAULT_MAX_DEPTH).is_some() {
                fast_answers += 1;
            }
            for (event, quick) in fast.iter().flat_map(|p| p.events.iter()).zip(&quick) {
                // The flat accessors give the same before the typed read
                // (from the noted spots) as after it.
                // A usable event's eventInfo always reads.
                if event.problem().is_none() {
                    assert!(
                        !matches!(event.payload(), EventPayload::Invalid { .. }),
                        "{body}"
                    );
                }
                assert!(event.payload_is_read());
                assert_eq!(quick, &flat_fields(event), "{body}");
                assert_eq!(
                    event.dedup_key().as_str(),
                    crate::webhook::event::reference_key(event),
                    "{body}"
                );
            }
        }
        // The comparisons cover the scanner (not only the fallback) and the
        // accessors' reads before the typed read.
        assert!(deferred > bodies.len() / 2, "{deferred}");
        assert!(
            fast_answers > bodies.len() / 2,
            "{fast_answers} of {}",
            bodies.len()
        );
    }
}
