//! Plain JSON read in one pass over its text, as `json.loads(text,
//! parse_float=Decimal)` reads it: the `eventInfo` of unknown and unreadable
//! events, `raw_event_info`, `to_dict`, a model's unknown members, and any
//! value where a plan expects another type. The same reader reads the typed
//! values (`typed.rs`).
//!
//! serde_json cannot give a fractional number's text without `RawValue`, and
//! a `RawValue` per value made every nested container be read again for each
//! level above it (a third of a small unknown event's `event_info`). Here
//! every byte is looked at once, and the text is checked as it is read: an
//! unreadable event's JSON may be no JSON at all, and must then raise, not
//! give a value (the caller falls back to `json.loads`, which raises too).

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use super::{hex_unit, utf16_string, utf16_units, word, Ctx, JsonString};
use crate::errors::invalid_input;

/// Reads `text`, one JSON value with optional white space around it.
pub(super) fn read<'py>(ctx: &Ctx<'_, 'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    fn read_as<'py, const SPACED: bool>(
        ctx: &Ctx<'_, 'py>,
        text: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut reader = Reader::<SPACED>::new(ctx, text);
        let value = reader.value()?;
        reader.end()?;
        Ok(value)
    }
    if spaced(text.as_bytes()) {
        read_as::<true>(ctx, text)
    } else {
        read_as::<false>(ctx, text)
    }
}

/// Whether `text` looks written with a space after each `:` (as Python's
/// `json.dumps` writes by default), judged by its first colon within 24
/// bytes: such text is read by the reader that takes one space in line
/// (`Reader<true>`). Either reader reads any text; the guess only picks the
/// faster one, so that compact text (the service's) keeps a reader without
/// that code. A word at a time: a byte loop cost a compact read 1%.
#[inline]
pub(super) fn spaced(text: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    for (i, chunk) in text.chunks_exact(8).take(3).enumerate() {
        let x = word(chunk) ^ (ONES * u64::from(b':'));
        // The high bit of each byte that is a colon (exact up to the first).
        let colons = x.wrapping_sub(ONES) & !x & HIGHS;
        if colons != 0 {
            let colon = i * 8 + (colons.trailing_zeros() / 8) as usize;
            return text.get(colon + 1) == Some(&b' ');
        }
    }
    false
}

/// The index of the first byte from `i` on that ends a string's run of
/// plain characters: a quote, a backslash or a control character (`b.len()`
/// when none does). Eight bytes at a time: the byte-by-byte loop it replaces
/// was a quarter of an unknown event's plain reading. (Tested through the
/// reader, against `json.loads`, by tests/test_native_plain.py: this crate's
/// Rust tests do not run.)
#[inline(always)]
fn plain_run_end(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `x` less than `n` (n <= 0x80) is set in
    // `below(x, n)`; a borrow can also set it in a byte after the first such
    // byte, never before, so the lowest set bit is exact.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = word(chunk);
        let special = below(w ^ (ONES * u64::from(b'"')), 1)
            | below(w ^ (ONES * u64::from(b'\\')), 1)
            | below(w, 0x20);
        if special != 0 {
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while b
        .get(i)
        .is_some_and(|&c| c != b'"' && c != b'\\' && c >= 0x20)
    {
        i += 1;
    }
    i.min(b.len())
}

/// Reads JSON text from its first byte, checking it as it goes. The plain
/// values are read here; the typed ones, by a model's plan, in `typed.rs`.
///
/// `SPACED`: the text has a space after its colons and commas (see
/// [`spaced`]); white space is taken the same either way, only which of it
/// is read in line differs.
pub(super) struct Reader<'c, 't, 'py, 's, const SPACED: bool> {
    pub(super) ctx: &'c Ctx<'t, 'py>,
    pub(super) text: &'s str,
    pub(super) b: &'s [u8],
    /// The next byte to read.
    pub(super) at: usize,
}

impl<'c, 't, 'py, 's, const SPACED: bool> Reader<'c, 't, 'py, 's, SPACED> {
    pub(super) fn new(ctx: &'c Ctx<'t, 'py>, text: &'s str) -> Self {
        Reader {
            ctx,
            text,
            b: text.as_bytes(),
            at: 0,
        }
    }
}

impl<'py, 's, const SPACED: bool> Reader<'_, '_, 'py, 's, SPACED> {
    /// Only white space is left.
    pub(super) fn end(&mut self) -> PyResult<()> {
        self.skip_ws();
        if self.at != self.b.len() {
            return Err(self.bad("text after the value"));
        }
        Ok(())
    }

    pub(super) fn bad(&self, expected: &str) -> PyErr {
        invalid_input(
            self.ctx.py,
            &format!(
                "not JSON the native reader takes: {expected} at byte {}",
                self.at
            ),
        )
    }

    /// Where `part`, a slice of the text, starts in it.
    #[inline]
    pub(super) fn offset(&self, part: &str) -> usize {
        part.as_ptr() as usize - self.b.as_ptr() as usize
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    /// (Always in line: once the reader came in two kinds, the compiler
    /// stopped putting it in line by itself, and compact reads paid a call.)
    #[inline(always)]
    pub(super) fn skip_ws(&mut self) {
        if SPACED && self.peek() == Some(b' ') {
            self.at += 1;
        }
        if matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.skip_ws_run();
        }
    }

    /// The white space from `at` on, which is some: apart from the check
    /// above, compact text (the usual) is read without this code in line.
    #[inline(never)]
    fn skip_ws_run(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
            // Indented text: after a line break, spaces eight at a time.
            while self.b.get(self.at..self.at + 8) == Some(b"        ") {
                self.at += 8;
            }
        }
    }

    /// Skips white space, then `byte`.
    #[inline]
    pub(super) fn expect(&mut self, byte: u8, what: &str) -> PyResult<()> {
        self.skip_ws();
        if self.peek() != Some(byte) {
            return Err(self.bad(what));
        }
        self.at += 1;
        Ok(())
    }

    pub(super) fn value(&mut self) -> PyResult<Bound<'py, PyAny>> {
        self.skip_ws();
        let ctx = self.ctx;
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => match self.plain_str() {
                Some(text) => Ok(ctx.plain_string(text).into_any()),
                None => match self.escaped_string()? {
                    JsonString::Text(t) => Ok(ctx.plain_string(&t).into_any()),
                    JsonString::Utf16(units) => Ok(utf16_string(ctx.py, &units)?.into_any()),
                },
            },
            Some(b'-' | b'0'..=b'9') => {
                let number = self.number()?;
                ctx.number(number)
            }
            Some(b't') => self.literal("true").map(|()| ctx.bool(true)),
            Some(b'f') => self.literal("false").map(|()| ctx.bool(false)),
            Some(b'n') => self.literal("null").map(|()| ctx.none()),
            // NaN and Infinity too: json.loads takes them, the caller's
            // fallback then reads them.
            _ => Err(self.bad("a value")),
        }
    }

    pub(super) fn literal(&mut self, word: &str) -> PyResult<()> {
        if !self.b[self.at..].starts_with(word.as_bytes()) {
            return Err(self.bad(word));
        }
        self.at += word.len();
        Ok(())
    }

    /// The string at `at`, checked as it is read (escapes well formed, no
    /// control character), then decoded when it has escapes.
    #[inline(always)]
    pub(super) fn string(&mut self) -> PyResult<JsonString<'s>> {
        match self.plain_str() {
            Some(text) => Ok(JsonString::Text(Cow::Borrowed(text))),
            None => self.escaped_string(),
        }
    }

    /// The string at `at` when it has no escape (most strings, every key but
    /// a rare one), found without a call and handed back as a slice, which
    /// stays in registers (a `JsonString` went through memory, and was read
    /// back before it was written: a fifth of a model's reading); `None`,
    /// `at` unmoved, for the others.
    #[inline(always)]
    pub(super) fn plain_str(&mut self) -> Option<&'s str> {
        let start = self.at + 1;
        let end = plain_run_end(self.b, start);
        if self.b.get(end) != Some(&b'"') {
            return None;
        }
        self.at = end + 1;
        // Both ends are ASCII quotes, so character boundaries.
        Some(&self.text[start..end])
    }

    /// [`Reader::string`] past a first backslash or control character:
    /// checked and decoded in one pass (checked, then decoded again, each
    /// escape cost twice: an eighth of the full read of a body of escaped
    /// text). A lone surrogate escape leaves the decoding to `utf16_units`,
    /// which keeps it in UTF-16 as Python does.
    #[inline(never)]
    pub(super) fn escaped_string(&mut self) -> PyResult<JsonString<'s>> {
        let start = self.at;
        let b = self.b;
        let mut i = start + 1;
        // The value up to `copied`, from the first escape on.
        let mut out: Option<String> = None;
        let mut copied = i;
        let mut lone = false;
        loop {
            i = plain_run_end(b, i);
            match b.get(i) {
                Some(b'"') => break,
                Some(b'\\') => {
                    // Room for the rest of the string, which decodes to no
                    // more bytes than it is written in, for one that ends in
                    // the next 256 bytes (names, addresses, comments): a
                    // string grown a few characters at a time reallocated
                    // several times.
                    let value = out
                        .get_or_insert_with(|| String::with_capacity((b.len() - start).min(256)));
                    if copied < i {
                        value.push_str(&self.text[copied..i]);
                    }
                    // Escapes one after another (non-ASCII text escaped as
                    // `\uXXXX`, as .NET writes it by default) are read here
                    // without looking for a run of plain bytes between them.
                    loop {
                        let Some((c, used)) = self.escape_at(i) else {
                            self.at = i;
                            return Err(self.bad("a valid escape"));
                        };
                        match c {
                            Some(c) if !lone => value.push(c),
                            Some(_) => {}
                            None => lone = true,
                        }
                        i += used;
                        if b.get(i) != Some(&b'\\') {
                            break;
                        }
                    }
                    copied = i;
                }
                Some(&c) if c < 0x20 => {
                    self.at = i;
                    return Err(self.bad("no control character in a string"));
                }
                Some(_) => i += 1,
                None => {
                    self.at = i;
                    return Err(self.bad("the end of a string"));
                }
            }
        }
        self.at = i + 1;
        // Both ends are quotes (ASCII), so both are character boundaries.
        Ok(match out {
            _ if lone => JsonString::Utf16(utf16_units(&self.text[start + 1..i])),
            Some(mut value) => {
                value.push_str(&self.text[copied..i]);
                JsonString::Text(Cow::Owned(value))
            }
            None => JsonString::Text(Cow::Borrowed(&self.text[start + 1..i])),
        })
    }

    /// The escape whose backslash is at `at`: its character (`None` for a
    /// surrogate without its pair, valid JSON that Python keeps) and its
    /// length; `None` when it is no valid escape. A high surrogate with the
    /// escape of a low one right after it makes one character of both.
    fn escape_at(&self, at: usize) -> Option<(Option<char>, usize)> {
        let simple = |c| Some((Some(c), 2));
        match self.b.get(at + 1)? {
            b'"' => simple('"'),
            b'\\' => simple('\\'),
            b'/' => simple('/'),
            b'b' => simple('\u{8}'),
            b'f' => simple('\u{c}'),
            b'n' => simple('\n'),
            b'r' => simple('\r'),
            b't' => simple('\t'),
            b'u' => {
                let unit = hex_unit(self.b.get(at + 2..at + 6)?)?;
                Some(match unit {
                    0xD800..=0xDBFF => {
                        let low = self
                            .b
                            .get(at + 6..at + 12)
                            .filter(|next| next.starts_with(b"\\u"))
                            .and_then(|next| hex_unit(&next[2..]))
                            .filter(|low| (0xDC00..=0xDFFF).contains(low));
                        match low {
                            Some(low) => {
                                let c = 0x10000
                                    + ((u32::from(unit) - 0xD800) << 10)
                                    + (u32::from(low) - 0xDC00);
                                (char::from_u32(c), 12)
                            }
                            None => (None, 6),
                        }
                    }
                    0xDC00..=0xDFFF => (None, 6),
                    _ => (char::from_u32(u32::from(unit)), 6),
                })
            }
            _ => None,
        }
    }

    /// The text of the number at `at`, checked against JSON's grammar
    /// (no leading zero, digits after `.` and after the exponent).
    pub(super) fn number(&mut self) -> PyResult<&'s str> {
        let start = self.at;
        let digits = |b: &[u8], mut i: usize| {
            let from = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            (i > from).then_some(i)
        };
        let mut i = start;
        if self.b.get(i) == Some(&b'-') {
            i += 1;
        }
        i = match self.b.get(i) {
            Some(b'0') => i + 1,
            _ => digits(self.b, i).ok_or_else(|| self.bad("a digit"))?,
        };
        if self.b.get(i) == Some(&b'.') {
            i = digits(self.b, i + 1).ok_or_else(|| self.bad("a digit after the point"))?;
        }
        if matches!(self.b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(self.b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            i = digits(self.b, i).ok_or_else(|| self.bad("a digit in the exponent"))?;
        }
        self.at = i;
        Ok(&self.text[start..i])
    }

    /// One level deeper, by the read's own count and limit.
    pub(super) fn enter(&self) -> PyResult<()> {
        self.ctx.enter()
    }

    fn object(&mut self) -> PyResult<Bound<'py, PyAny>> {
        // A repeated key keeps its last value, as in json.loads.
        self.dict_with(Self::value)
    }

    fn array(&mut self) -> PyResult<Bound<'py, PyAny>> {
        self.list_with(Self::value)
    }

    /// The object at `at` as a dict, each value read by `value`.
    #[inline(always)]
    pub(super) fn dict_with(
        &mut self,
        mut value: impl FnMut(&mut Self) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let out = PyDict::new(self.ctx.py);
        self.members(|r, key| {
            let key = match key {
                Key::Plain(key) => r.ctx.key(key),
                _ => {
                    let key = r.escaped_key()?;
                    r.dict_key(key)?
                }
            };
            out.set_item(key, value(r)?)
        })?;
        Ok(out.into_any())
    }

    /// The list at `at`, each item read by `item`.
    #[inline(always)]
    pub(super) fn list_with(
        &mut self,
        mut item: impl FnMut(&mut Self) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut items = Vec::new();
        self.items(|r| {
            items.push(item(r)?);
            Ok(())
        })?;
        Ok(PyList::new(self.ctx.py, items)?.into_any())
    }

    /// Reads the object at `at`: `member` is handed each key (never
    /// `Key::End`; a `Key::Escaped` it reads with [`Reader::escaped_key`])
    /// and reads the value after it.
    #[inline(always)]
    pub(super) fn members(
        &mut self,
        mut member: impl FnMut(&mut Self, Key<'s>) -> PyResult<()>,
    ) -> PyResult<()> {
        self.enter()?;
        self.at += 1;
        let mut first = true;
        loop {
            match self.key(&mut first)? {
                Key::End => break,
                key => member(self, key)?,
            }
        }
        self.ctx.leave();
        Ok(())
    }

    /// Reads the list at `at`, `item` reading each item.
    #[inline(always)]
    pub(super) fn items(
        &mut self,
        mut item: impl FnMut(&mut Self) -> PyResult<()>,
    ) -> PyResult<()> {
        self.enter()?;
        self.at += 1;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.at += 1;
        } else {
            loop {
                item(self)?;
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.at += 1,
                    Some(b']') => {
                        self.at += 1;
                        break;
                    }
                    _ => return Err(self.bad("',' or ']'")),
                }
            }
        }
        self.ctx.leave();
        Ok(())
    }

    /// The next key of the object being read and the `:` after it; `first`:
    /// no member read yet. A key without escapes (nearly every one) comes
    /// as a slice of the text (see [`Reader::plain_str`]), one with escapes
    /// is left to [`Reader::escaped_key`].
    #[inline(always)]
    pub(super) fn key(&mut self, first: &mut bool) -> PyResult<Key<'s>> {
        self.skip_ws();
        match self.peek() {
            Some(b'}') => {
                self.at += 1;
                return Ok(Key::End);
            }
            Some(b',') if !*first => {
                self.at += 1;
                self.skip_ws();
            }
            _ if *first => {}
            _ => return Err(self.bad("',' or '}'")),
        }
        *first = false;
        if self.peek() != Some(b'"') {
            return Err(self.bad("a key"));
        }
        let Some(key) = self.plain_str() else {
            return Ok(Key::Escaped);
        };
        self.expect(b':', "':'")?;
        Ok(Key::Plain(key))
    }

    /// The key at `at` that [`Reader::key`] left (`Key::Escaped`), and the
    /// `:` after it.
    #[inline(never)]
    pub(super) fn escaped_key(&mut self) -> PyResult<JsonString<'s>> {
        let key = self.string()?;
        self.expect(b':', "':'")?;
        Ok(key)
    }

    /// A key as a Python string for a dict (see `Ctx::key`).
    pub(super) fn dict_key(&self, key: JsonString<'_>) -> PyResult<Bound<'py, PyString>> {
        match key {
            JsonString::Text(t) => Ok(self.ctx.key(&t)),
            JsonString::Utf16(units) => utf16_string(self.ctx.py, &units),
        }
    }

    /// Skips the value at `at`, checking it as [`Reader::value`] does,
    /// without making it; its text.
    pub(super) fn skip(&mut self) -> PyResult<&'s str> {
        self.skip_ws();
        let start = self.at;
        match self.peek() {
            Some(b'{') => self.members(|r, key| {
                if matches!(key, Key::Escaped) {
                    r.escaped_key()?;
                }
                r.skip().map(drop)
            })?,
            Some(b'[') => self.items(|r| r.skip().map(drop))?,
            Some(b'"') => {
                self.string()?;
            }
            Some(b'-' | b'0'..=b'9') => {
                let number = self.number()?;
                // Python's `int` refuses more digits than its limit (640 at
                // the least): what is skipped may be made later (`extra`),
                // so `json.loads` says whether it can be.
                if number.len() > INT_DIGITS_ALWAYS_TAKEN && !number.contains(['.', 'e', 'E']) {
                    return Err(self.bad("an integer short enough for any digit limit"));
                }
            }
            Some(b't') => self.literal("true")?,
            Some(b'f') => self.literal("false")?,
            Some(b'n') => self.literal("null")?,
            _ => return Err(self.bad("a value")),
        }
        Ok(&self.text[start..self.at])
    }
}

/// The most digits (and sign) of an integer that `int` takes whatever
/// `sys.set_int_max_str_digits` says (its least limit).
const INT_DIGITS_ALWAYS_TAKEN: usize = 640;

/// What [`Reader::key`] found.
pub(super) enum Key<'s> {
    /// The object's closing brace.
    End,
    /// A key without escapes, `:` read after it.
    Plain(&'s str),
    /// A key with escapes, left at its opening quote.
    Escaped,
}
