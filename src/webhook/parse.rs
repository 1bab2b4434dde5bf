//! Parsing a webhook body into [`Event`]s.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::event::{Event, EventKind, EventPayload};
use super::lenient::Lenient;
use super::model::{
    DeliveryOrderInfo, PersonalShift, RawJson, ReserveInfo, StopListUpdate, TableOrderInfo,
};
use super::time::EventTime;

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

impl ParseOptions {
    /// The defaults: 16 MiB, 64 levels, a single-object body accepted.
    pub fn new() -> ParseOptions {
        ParseOptions::default()
    }

    /// Sets the body size limit in bytes; a larger body is
    /// [`ParseError::TooLarge`].
    pub fn with_max_body_bytes(mut self, bytes: usize) -> ParseOptions {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets the nesting limit (arrays and objects, the body's own array
    /// counting as 1); a deeper body is [`ParseError::TooDeep`]. Values above
    /// [`MAX_DEPTH_CEILING`] are lowered to it.
    pub fn with_max_depth(mut self, depth: usize) -> ParseOptions {
        self.max_depth = depth.min(MAX_DEPTH_CEILING);
        self
    }

    /// Whether a body that is one event object instead of an array is read as
    /// one event (default `true`; the result then has
    /// [`ParsedBody::single_object`] set). With `false` it is
    /// [`ParseError::NotAnArray`].
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
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::InvalidUtf8 {
        valid_up_to: bom + e.valid_up_to(),
    })?;
    let limit = options.max_depth.min(MAX_DEPTH_CEILING);
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
        return invalid(json, "event nests too deeply".to_owned());
    }
    match serde_json::from_str::<&RawValue>(json) {
        Ok(raw) => parse_element(raw),
        Err(e) => invalid(json, format!("event is not valid JSON: {e}")),
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
        let InlineEnvelope(env) = stream.next()?.ok()?;
        let end = pos.checked_add(stream.byte_offset())?;
        events.push(env.into_event(text.get(pos..end)?));
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

/// An element read on the fast path: an event object with eventInfo typed
/// inline. Fails on anything else, which sends the body to the careful path.
struct InlineEnvelope<'de>(Envelope<'de>);

impl<'de> Deserialize<'de> for InlineEnvelope<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EnvelopeVisitor { inline: true })
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

/// Bit `k` set when byte `k` of a 64-byte block is of that class.
struct BlockMasks {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
}

impl BlockMasks {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    fn of(block: &[u8]) -> BlockMasks {
        // SAFETY: SSE2 is part of the x86_64 baseline: every CPU this target
        // runs on has it, so the target-feature function may be called.
        unsafe { BlockMasks::of_sse2(block) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of(block: &[u8]) -> BlockMasks {
        BlockMasks::of_words(block)
    }

    /// SSE2 (every x86-64 CPU has it): sixteen bytes per compare, four
    /// compares and masks per class, a few times the speed of the word
    /// version below, which other targets use.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2")]
    fn of_sse2(block: &[u8]) -> BlockMasks {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_set_epi64x,
        };
        let (mut quote, mut open, mut close, mut backslash) = (0u64, 0u64, 0u64, 0u64);
        for (k, chunk) in block.chunks_exact(16).enumerate().take(4) {
            let half = |from: usize| {
                let mut word = [0u8; 8];
                word.copy_from_slice(&chunk[from..from + 8]);
                i64::from_le_bytes(word)
            };
            // Built from two words (no raw pointer): LLVM emits one load.
            let v = _mm_set_epi64x(half(8), half(0));
            // '[' and '{' (and ']' and '}') differ only in bit 0x20.
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let mask = |m| u64::from(_mm_movemask_epi8(m) as u16);
            let shift = 16 * k;
            quote |= mask(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))) << shift;
            open |= mask(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8))) << shift;
            close |= mask(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'}' as i8))) << shift;
            backslash |= mask(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))) << shift;
        }
        BlockMasks {
            quote,
            backslash,
            open,
            close,
        }
    }

    /// Eight bytes per step in a `u64`, for targets without SSE2 (and the
    /// test that checks both agree).
    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn of_words(block: &[u8]) -> BlockMasks {
        let (mut quote, mut open, mut close, mut backslash) = (0u64, 0u64, 0u64, 0u64);
        // Eight bytes at a time, branch-free.
        for (k, chunk) in block.chunks_exact(8).enumerate().take(8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let w = u64::from_le_bytes(word);
            let shift = 8 * k;
            quote |= gather(zero_bytes(w ^ splat(b'"'))) << shift;
            // '[' and '{' (and ']' and '}') differ only in bit 0x20.
            let folded = w | splat(0x20);
            open |= gather(zero_bytes(folded ^ splat(b'{'))) << shift;
            close |= gather(zero_bytes(folded ^ splat(b'}'))) << shift;
            backslash |= zero_bytes(w ^ splat(b'\\'));
        }
        BlockMasks {
            quote,
            backslash,
            open,
            close,
        }
    }
}

#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn splat(b: u8) -> u64 {
    0x0101_0101_0101_0101 * u64::from(b)
}

/// The high bit of each zero byte of `v`, exactly.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn zero_bytes(v: u64) -> u64 {
    const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((v & LOWS) + LOWS) | v | LOWS)
}

/// Gathers the eight high bits of `x` into the low byte, byte 0 as bit 0.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn gather(x: u64) -> u64 {
    (x >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Bit `k` of the result is the XOR of bits `0..=k`: set from an opening quote
/// up to (not including) its closing quote.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
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

fn invalid(raw: &str, error: String) -> Event {
    Event {
        kind: EventKind::Unknown,
        event_type: None,
        event_time: None,
        organization_id: None,
        correlation_id: None,
        payload: EventPayload::Invalid { error },
        raw_json: raw.to_owned(),
    }
}

/// Reads one element of the body array.
fn parse_element(raw: &RawValue) -> Event {
    let text = raw.get();
    if !text.starts_with('{') {
        return invalid(
            text,
            format!("event is a JSON {}, not an object", json_type(text)),
        );
    }
    // Fast path: the typed eventInfo is read inline when eventType comes first
    // (as it does in practice). If that fails (duplicate key inside eventInfo),
    // read the envelope again with eventInfo kept raw, so that the envelope
    // fields survive and the error can be reported on the event.
    let envelope = read_envelope(text, true).or_else(|_| read_envelope(text, false));
    match envelope {
        Ok(env) => env.into_event(text),
        Err(e) => invalid(text, format!("event could not be read: {e}")),
    }
}

fn read_envelope(text: &str, inline: bool) -> Result<Envelope<'_>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let env = de.deserialize_map(EnvelopeVisitor { inline })?;
    de.end()?;
    Ok(env)
}

enum Info<'de> {
    Missing,
    Raw(&'de RawValue),
    Typed(EventPayload),
}

struct Envelope<'de> {
    kind: EventKind,
    event_type: Option<String>,
    event_time: Option<EventTime>,
    organization_id: Option<String>,
    correlation_id: Option<String>,
    info: Info<'de>,
    duplicate: Option<&'static str>,
}

impl Envelope<'_> {
    fn into_event(self, raw: &str) -> Event {
        let payload = if let Some(field) = self.duplicate {
            EventPayload::Invalid {
                error: format!("duplicate field `{field}` in the event"),
            }
        } else {
            match (self.kind, self.info) {
                (EventKind::Unknown, Info::Raw(info)) => EventPayload::Unknown {
                    event_info: (info.get() != "null").then(|| raw_json(info)),
                },
                (EventKind::Unknown, _) => EventPayload::Unknown { event_info: None },
                (_, Info::Typed(payload)) => payload,
                (_, Info::Missing) => EventPayload::Invalid {
                    error: "eventInfo is missing".to_owned(),
                },
                (kind, Info::Raw(info)) => {
                    let mut de = serde_json::Deserializer::from_str(info.get());
                    match PayloadSeed(kind).deserialize(&mut de) {
                        Ok(payload) => payload,
                        Err(e) => EventPayload::Invalid {
                            error: format!("eventInfo could not be read: {e}"),
                        },
                    }
                }
            }
        };
        Event {
            kind: self.kind,
            event_type: self.event_type,
            event_time: self.event_time,
            organization_id: self.organization_id,
            correlation_id: self.correlation_id,
            payload,
            raw_json: raw.to_owned(),
        }
    }
}

fn raw_json(raw: &RawValue) -> RawJson {
    RawJson::from_text(raw.get())
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
    inline: bool,
}

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a webhook event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut env = Envelope {
            kind: EventKind::Unknown,
            event_type: None,
            event_time: None,
            organization_id: None,
            correlation_id: None,
            info: Info::Missing,
            duplicate: None,
        };
        let (mut seen_type, mut seen_time, mut seen_org, mut seen_corr, mut seen_info) =
            (false, false, false, false, false);
        // A repeated key is ambiguous; the first value is kept and the event
        // is flagged as invalid.
        macro_rules! once {
            ($seen:ident, $name:literal, $read:expr) => {
                if std::mem::replace(&mut $seen, true) {
                    env.duplicate.get_or_insert($name);
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
                    env.kind = env
                        .event_type
                        .as_deref()
                        .map_or(EventKind::Unknown, EventKind::from_event_type);
                }),
                Key::EventTime => once!(seen_time, "eventTime", {
                    env.event_time = map
                        .next_value_seed(lenient::<String>())?
                        .map(|raw| EventTime::parse(&raw));
                }),
                Key::OrganizationId => once!(seen_org, "organizationId", {
                    env.organization_id = map.next_value_seed(lenient::<String>())?;
                }),
                Key::CorrelationId => once!(seen_corr, "correlationId", {
                    env.correlation_id = map.next_value_seed(lenient::<String>())?;
                }),
                Key::EventInfo => once!(seen_info, "eventInfo", {
                    env.info = if self.inline && env.kind != EventKind::Unknown {
                        Info::Typed(map.next_value_seed(PayloadSeed(env.kind))?)
                    } else {
                        Info::Raw(map.next_value::<&'de RawValue>()?)
                    };
                }),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(env)
    }
}

/// Reads the typed `eventInfo` of a known kind.
struct PayloadSeed(EventKind);

impl<'de> DeserializeSeed<'de> for PayloadSeed {
    type Value = EventPayload;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let payload = match self.0 {
            EventKind::DeliveryOrderUpdate | EventKind::DeliveryOrderError => {
                DeliveryOrderInfo::read(d)?.map(|i| EventPayload::DeliveryOrder(Box::new(i)))
            }
            EventKind::TableOrderUpdate | EventKind::TableOrderError => {
                TableOrderInfo::read(d)?.map(|i| EventPayload::TableOrder(Box::new(i)))
            }
            EventKind::ReserveUpdate | EventKind::ReserveError => {
                ReserveInfo::read(d)?.map(|i| EventPayload::Reserve(Box::new(i)))
            }
            EventKind::StopListUpdate => StopListUpdate::read(d)?.map(EventPayload::StopList),
            EventKind::PersonalShift => PersonalShift::read(d)?.map(EventPayload::PersonalShift),
            EventKind::Unknown => {
                return RawJson::read(d).map(|event_info| EventPayload::Unknown { event_info })
            }
        };
        Ok(payload.unwrap_or_else(|| EventPayload::Invalid {
            error: "eventInfo is null or not a JSON object".to_owned(),
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

    #[test]
    fn both_mask_builders_agree() {
        const ALPHABET: &[u8] = b"\"\\[]{}az \xd0\x80\x7f";
        let mut rng = fastrand::Rng::with_seed(11);
        for _ in 0..2000 {
            let block: Vec<u8> = (0..64)
                .map(|_| ALPHABET[rng.usize(..ALPHABET.len())])
                .collect();
            let a = BlockMasks::of(&block);
            let b = BlockMasks::of_words(&block);
            assert_eq!((a.quote, a.open, a.close), (b.quote, b.open, b.close));
            assert_eq!(a.backslash != 0, b.backslash != 0);
        }
    }

    #[test]
    fn masks_mark_exactly_their_bytes() {
        let block: Vec<u8> = (0..64u8)
            .map(|i| b"\"\\[{]}ab"[usize::from(i % 8)])
            .collect();
        let m = BlockMasks::of(&block);
        let every = |k: u64| (0..8).fold(0u64, |acc, i| acc | (1 << (8 * i + k)));
        assert_eq!(m.quote, every(0));
        assert_ne!(m.backslash, 0);
        assert_eq!(m.open, every(2) | every(3));
        assert_eq!(m.close, every(4) | every(5));
        // Quotes at 2 and 4: bytes 2 and 3 are inside; a quote at 7 opens a
        // string that runs to the end of the block.
        assert_eq!(prefix_xor(0b0001_0100), 0b0000_1100);
        assert_eq!(prefix_xor(0b1001_0100), !0u64 << 7 | 0b0000_1100);
    }
}
