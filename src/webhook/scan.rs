//! The fast path of [`parse_body_with`](super::parse_body_with): a pass over
//! a well-formed body that validates its JSON, finds each event and its
//! envelope members, and checks every object inside `eventInfo` for repeated
//! keys, building nothing but a few spans per event.
//!
//! Two stages, as simdjson does it: the first classifies 64-byte blocks into
//! bit masks and lists the positions of every quote and of every bracket,
//! colon and comma outside strings; the second walks that list, checking the
//! grammar and the scalars between the positions. Most bytes (string
//! contents, whitespace) are then never looked at one by one.
//!
//! It only answers for bodies it can judge cheaply and exactly: a JSON array
//! whose keys have no escapes, whose `\u` escapes are not surrogates and
//! whose numbers stay far from what a double cannot hold. Anything else,
//! every malformed body included, gets `None`, and the caller takes the
//! careful path (serde_json), which reports errors with their position and
//! decides the rare cases. Tests and the fuzz target check that both paths
//! make the same events.

use super::blocks::{prefix_xor, splat, zero_bytes, BlockMasks};
use super::summary::{Place, Spans, Spot};

/// One element of the body array.
#[derive(Clone, Copy)]
pub(crate) struct ScannedEvent<'a> {
    /// The element's JSON text.
    pub(crate) text: &'a str,
    /// The members of an object element; `None` for any other JSON value.
    pub(crate) members: Option<Members<'a>>,
}

/// The envelope members of an event object: the JSON text of the first
/// value of each, and what was repeated.
#[derive(Clone, Copy)]
pub(crate) struct Members<'a> {
    pub(crate) event_type: Option<&'a str>,
    pub(crate) event_time: Option<&'a str>,
    pub(crate) organization_id: Option<&'a str>,
    pub(crate) correlation_id: Option<&'a str>,
    pub(crate) event_info: Option<&'a str>,
    /// Whether a kept value of `eventType`, `eventTime`, `organizationId` or
    /// `correlationId` may hold a backslash (a 64-byte block it touches has
    /// one): when not, none of them needs a look for escapes.
    pub(crate) envelope_may_have_escapes: bool,
    /// The first envelope member that came twice.
    pub(crate) repeated_member: Option<&'static str>,
    /// The first key repeated inside an object of the first `eventInfo`.
    pub(crate) event_info_repeated_key: Option<&'a str>,
    /// Where the summary's values lie in the event's text (see `summary`).
    pub(crate) event_info_spots: Spans,
}

/// Scans a body that must be a JSON array (after optional whitespace),
/// handing each element to `each` as it is found: the events are built in
/// place, with no list of scanned elements in between. `max_depth` counts
/// the array itself as 1, as the depth check does. `None` (after some calls
/// of `each`, perhaps) when the body is not one the scan judges.
pub(crate) fn scan_array_with<'a, T>(
    text: &'a str,
    max_depth: usize,
    each: impl FnMut(&ScannedEvent<'a>) -> T,
) -> Option<Vec<T>> {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            let found = scan_into(text, max_depth, &mut scratch, each);
            scratch.trim();
            found
        }
        // Not reentered today; a fresh buffer keeps it correct if it ever is.
        Err(_) => scan_into(text, max_depth, &mut Scratch::default(), each),
    })
}

/// The scan's working buffers, kept per thread: a sub-kilobyte body's parse
/// spent a fifth of its time allocating and freeing them.
#[derive(Default)]
struct Scratch {
    positions: Vec<u32>,
    blocks_with_escapes: Vec<u64>,
    keys: Vec<SeenKey>,
}

impl Scratch {
    /// Buffers past this many bytes are given back after a large body, so a
    /// thread keeps no more than a few small ones.
    const KEEP_BYTES: usize = 64 * 1024;

    fn trim(&mut self) {
        fn trim_one<T>(v: &mut Vec<T>) {
            if v.capacity() * std::mem::size_of::<T>() > Scratch::KEEP_BYTES {
                *v = Vec::new();
            }
        }
        trim_one(&mut self.positions);
        trim_one(&mut self.blocks_with_escapes);
        trim_one(&mut self.keys);
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

fn scan_into<'a, T>(
    text: &'a str,
    max_depth: usize,
    scratch: &mut Scratch,
    each: impl FnMut(&ScannedEvent<'a>) -> T,
) -> Option<Vec<T>> {
    structural_index(
        text.as_bytes(),
        &mut scratch.positions,
        &mut scratch.blocks_with_escapes,
    )?;
    scratch.keys.clear();
    let mut w = Walker {
        text,
        b: text.as_bytes(),
        index: &scratch.positions,
        escapes: &scratch.blocks_with_escapes,
        next: 0,
        depth: 0,
        max_depth,
        keys: &mut scratch.keys,
        many_keys: Vec::new(),
        any_escapes: scratch.blocks_with_escapes.iter().any(|&w| w != 0),
    };
    w.body(each)
}

/// `Vec::push`, but a full vector of fewer than 64 elements grows into a new
/// allocation instead of by `realloc`: glibc's `realloc` bypasses its
/// per-thread cache. When the list started with room for one event, its
/// growth cost a two-event body's parse about 450 instructions there, a
/// twentieth of the whole (callgrind); a fresh `malloc` and a `free` cost a
/// tenth of that. With room for four, the growth of a seven-event body still
/// costs 426 instructions more by `realloc` (the Python parse of
/// `lifecycle`).
fn push_by_fresh_growth<T>(v: &mut Vec<T>, item: T) {
    if v.len() == v.capacity() && v.capacity() < 64 {
        let mut bigger = Vec::with_capacity((v.capacity() * 2).max(4));
        bigger.append(v);
        *v = bigger;
    }
    v.push(item);
}

/// The scanned elements of a body, for tests.
#[cfg(test)]
pub(crate) fn scan_array(text: &str, max_depth: usize) -> Option<Vec<ScannedEvent<'_>>> {
    scan_array_with(text, max_depth, |e| *e)
}

/// The first stage: fills `positions` with every quote, and every
/// `[ ] { } : ,` outside strings, in order; and sets bit `k % 64` of word
/// `k / 64` of `blocks_with_escapes` when 64-byte block `k` has a backslash
/// (only strings overlapping those blocks can have escapes). `None` for a
/// control character inside a string, an unterminated string, or a body too
/// large for 32-bit positions (the body limit is far below).
// The one `unsafe` here: `Vec::set_len` after writing into the spare room.
#[allow(unsafe_code)]
fn structural_index(
    b: &[u8],
    positions: &mut Vec<u32>,
    blocks_with_escapes: &mut Vec<u64>,
) -> Option<()> {
    let len = u32::try_from(b.len()).ok()?;
    positions.clear();
    positions.reserve(b.len() / 6);
    blocks_with_escapes.clear();
    blocks_with_escapes.resize(b.len() / 64 / 64 + 1, 0);
    // Whether the previous block ended inside a string, and whether its last
    // byte was a backslash that escapes the first byte of this one.
    let mut in_string = false;
    let mut carry_escape = 0u64;
    let mut tail = [b' '; 64];
    for (k, block) in b.chunks(64).enumerate() {
        let base = k as u32 * 64;
        let block = if block.len() == 64 {
            block
        } else {
            tail[..block.len()].copy_from_slice(block);
            &tail[..]
        };
        let m = BlockMasks::of(block);
        let mut quote = m.quote;
        if m.backslash != 0 || carry_escape != 0 {
            blocks_with_escapes[k / 64] |= 1 << (k % 64);
            let escaped = escaped_bytes(m.backslash, &mut carry_escape);
            // An escaped quote is content. Byte by byte, this block cost a
            // body of `\uXXXX`-escaped text (as .NET writes non-ASCII by
            // default) twice the parse of the same body in UTF-8.
            quote &= !escaped;
        }
        let mut inside = prefix_xor(quote);
        if in_string {
            inside = !inside;
        }
        in_string = inside >> 63 == 1;
        // Inside `inside` are the opening quotes and the contents.
        if m.control & inside & !quote != 0 {
            return None;
        }
        // A block has at most 64 positions. They are written into the
        // spare room and counted once per block: a `Vec::push` per position
        // stored and reloaded the length each time (5 % of a parse's
        // instructions), and gathering them elsewhere cost a `memcpy` call
        // per block.
        positions.reserve(64);
        let room = &mut positions.spare_capacity_mut()[..64];
        let mut n = 0;
        let mut bits = ((m.open | m.close | m.separator) & !inside) | quote;
        while bits != 0 {
            room[n].write(base + bits.trailing_zeros());
            n += 1;
            bits &= bits - 1;
        }
        // SAFETY: the `n` places after the length were written above.
        unsafe { positions.set_len(positions.len() + n) };
    }
    if in_string {
        return None;
    }
    // The padding of the last block is spaces: nothing past the end counts.
    debug_assert!(positions.last().is_none_or(|&p| p < len));
    Some(())
}

/// The bytes of a block that an escaping backslash precedes, from the
/// block's backslashes; `carry` is 1 when the block before ended with an
/// escaping backslash (this block's first byte is then escaped), and is set
/// for the next block. A run of backslashes escapes the byte after it when
/// its length is odd. Runs that start on an even byte and on an odd byte
/// are told apart by one subtraction, whose borrow crosses each run (the
/// method of simdjson's escape scanner).
fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    // A first byte escaped from the block before starts no escape.
    let starts = backslash & !*carry;
    // Just past each run, and on every other byte inside it: 1 where a
    // backslash escapes the byte after it.
    let escapes_and_escaped = ((starts << 1 | ODD).wrapping_sub(starts)) ^ ODD;
    let escaped = escapes_and_escaped ^ (backslash | *carry);
    *carry = (escapes_and_escaped & backslash) >> 63;
    escaped
}

/// A key of an object being checked for repeats: its signature (see
/// [`signature`]) and its span.
type SeenKey = (u64, u32, u32);

/// Keys of one object compared with each other, at most, here and on the
/// careful path (`parse::Walk`). The keys after them are looked up in a
/// [`KeySet`] of the object's keys: compared each with all before it, the
/// keys of a 1 MB `eventInfo` object of 48,000 took 2.2 s to check, and a
/// 16 MiB body can hold one of 750,000 (keys that share their first eight
/// bytes and length, which `signature` does not tell apart, cost the most).
pub(crate) const KEYS_COMPARED: usize = 64;

/// The set of a wide object's keys. Seeded, so a body cannot be made of
/// keys that collide; foldhash rather than the standard library's SipHash,
/// which cost such an object 3.4 ns a byte of scan (0.6 for the usual
/// bodies).
pub(crate) type KeySet<K> = std::collections::HashSet<K, crate::hashing::OsSeeded>;

/// The first eight bytes and the length of the key of `len` bytes at `at`
/// in `b`, mixed: equal keys have equal signatures, and one comparison rules
/// out most unequal ones.
fn signature(b: &[u8], at: usize, len: usize) -> u64 {
    // One unaligned load where eight bytes are there (a key is followed by
    // at least `":` and a value), masked to the key; a variable-length
    // copy here was a `memmove` call per key.
    let head = match b.get(at..at + 8) {
        Some(word) => {
            let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            if len >= 8 {
                word
            } else {
                word & ((1u64 << (len * 8)) - 1)
            }
        }
        None => {
            let mut head = [0u8; 8];
            let n = len.min(8).min(b.len().saturating_sub(at));
            head[..n].copy_from_slice(&b[at..at + n]);
            u64::from_le_bytes(head)
        }
    };
    (head ^ (len as u64).rotate_right(8)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The second stage.
struct Walker<'a, 'i> {
    text: &'a str,
    b: &'a [u8],
    index: &'i [u32],
    escapes: &'i [u64],
    /// The next position of `index` to take.
    next: usize,
    depth: usize,
    max_depth: usize,
    /// The keys of the objects being checked, innermost last.
    keys: &'i mut Vec<SeenKey>,
    /// The keys of each object being checked that has more than
    /// [`KEYS_COMPARED`]: where its keys start in `keys`, how many of them
    /// the set holds, and the set; innermost last.
    many_keys: Vec<(usize, usize, KeySet<&'a [u8]>)>,
    /// Whether any block has a backslash (else no string has escapes).
    any_escapes: bool,
}

/// What is noted while walking `eventInfo`: the first repeated key, and
/// where the summary's values lie.
struct Watch<'s> {
    /// Where the first repeated key lies in the body.
    first: Option<(usize, usize)>,
    spots: &'s mut Spans,
}

#[inline]
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether every byte of `gap` is whitespace, eight at a time: an indented
/// body's gaps are a line break and a run of spaces, and byte by byte they
/// were a quarter of the walk of one (`delivery_order_update.json`).
fn all_ws(gap: &[u8]) -> bool {
    let mut words = gap.chunks_exact(8);
    for word in &mut words {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let w = u64::from_ne_bytes(bytes);
        if w != splat(b' ') && !word_all_ws(w) {
            return false;
        }
    }
    words.remainder().iter().all(|&c| is_ws(c))
}

/// Whether each byte of `w` is one of the four whitespace bytes.
#[inline]
fn word_all_ws(w: u64) -> bool {
    let of = |c: u8| zero_bytes(w ^ splat(c));
    of(b' ') | of(b'\n') | of(b'\t') | of(b'\r') == splat(0x80)
}

impl<'a> Walker<'a, '_> {
    /// Takes the next structural position.
    #[inline]
    fn take(&mut self) -> Option<usize> {
        let p = *self.index.get(self.next)?;
        self.next += 1;
        Some(p as usize)
    }

    fn peek(&self) -> Option<usize> {
        self.index.get(self.next).map(|&p| p as usize)
    }

    /// Whether only whitespace lies in `from..to` (nothing, in compact
    /// bodies).
    #[inline]
    fn blank(&self, from: usize, to: usize) -> bool {
        from == to || self.b.get(from..to).is_some_and(all_ws)
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= self.max_depth).then_some(())
    }

    /// The whole body: `[` elements `]`, whitespace around.
    fn body<T>(&mut self, mut each: impl FnMut(&ScannedEvent<'a>) -> T) -> Option<Vec<T>> {
        let open = self.take()?;
        if self.b[open] != b'[' || !self.blank(0, open) {
            return None;
        }
        self.enter()?;
        // Room for four events: under 1 KiB of `Event` (asserted in
        // event.rs), which glibc serves from its per-thread cache like one
        // event's room; a larger request first consolidates its free chunks.
        let mut events = Vec::with_capacity(4);
        let mut after = open + 1;
        // `[]`
        if let Some(p) = self.peek() {
            if self.b[p] == b']' && self.blank(after, p) {
                self.next += 1;
                return (self.next == self.index.len() && self.blank(p + 1, self.b.len()))
                    .then_some(events);
            }
        }
        loop {
            let end = self.element(after, |event| {
                push_by_fresh_growth(&mut events, each(event));
            })?;
            let sep = self.take()?;
            if !self.blank(end, sep) {
                return None;
            }
            match self.b[sep] {
                b',' => after = sep + 1,
                b']' => {
                    return (self.next == self.index.len() && self.blank(sep + 1, self.b.len()))
                        .then_some(events)
                }
                _ => return None,
            }
        }
    }

    /// One element, starting after `after` (whitespace first): hands it to
    /// `found` and returns the position just past it. Handed by reference
    /// where it was built: the scanned event is a few hundred bytes, and
    /// returning it and building it aside cost a `memcpy` call per copy,
    /// together about 7 % of a small body's parse in the profile.
    fn element(&mut self, after: usize, found: impl FnOnce(&ScannedEvent<'a>)) -> Option<usize> {
        let start = self.skip_ws(after);
        if self.b.get(start) != Some(&b'{') {
            let end = self.value(after, None, Place::Elsewhere)?;
            found(&ScannedEvent {
                text: &self.text[start..end],
                members: None,
            });
            return Some(end);
        }
        if self.take()? != start {
            return None;
        }
        self.enter()?;
        // Built in place, spots included (see above).
        let mut scanned = ScannedEvent {
            text: "",
            members: None,
        };
        let m = scanned.members.insert(Members {
            event_type: None,
            event_time: None,
            organization_id: None,
            correlation_id: None,
            event_info: None,
            envelope_may_have_escapes: false,
            repeated_member: None,
            event_info_repeated_key: None,
            event_info_spots: [(0, 0); Spot::COUNT],
        });
        let mut after_member = start + 1;
        let mut first = true;
        loop {
            let p = self.take()?;
            if !self.blank(after_member, p) {
                return None;
            }
            match self.b[p] {
                b'}' if first => break,
                b'"' => {}
                _ => return None,
            }
            first = false;
            let key = self.key_from(p)?;
            let colon = self.take()?;
            if self.b[colon] != b':' || !self.blank(p + key.len() + 2, colon) {
                return None;
            }
            let (slot, name) = match key {
                b"eventType" => (&mut m.event_type, "eventType"),
                b"eventTime" => (&mut m.event_time, "eventTime"),
                b"organizationId" => (&mut m.organization_id, "organizationId"),
                b"correlationId" => (&mut m.correlation_id, "correlationId"),
                b"eventInfo" => (&mut m.event_info, "eventInfo"),
                _ => {
                    let end = self.value(colon + 1, None, Place::Elsewhere)?;
                    match self.close(end, b'}')? {
                        Some(next) => {
                            after_member = next;
                            continue;
                        }
                        None => break,
                    }
                }
            };
            let value_start = self.skip_ws(colon + 1);
            let seen_before = slot.is_some();
            let end = if !seen_before && name == "eventInfo" {
                let mut watch = Watch {
                    first: None,
                    spots: &mut m.event_info_spots,
                };
                let end = self.value_from(value_start, Some(&mut watch), Place::Info)?;
                m.event_info_repeated_key = watch.first.map(|(from, to)| &self.text[from..to]);
                // Relative to the event's own text, which the event keeps.
                for slot in watch.spots.iter_mut().filter(|slot| slot.1 != 0) {
                    *slot = (slot.0 - start as u32, slot.1 - start as u32);
                }
                end
            } else {
                self.value_from(value_start, None, Place::Elsewhere)?
            };
            if seen_before {
                m.repeated_member.get_or_insert(name);
            } else {
                *slot = Some(&self.text[value_start..end]);
                m.envelope_may_have_escapes |=
                    name != "eventInfo" && self.may_have_escapes(value_start, end);
            }
            match self.close(end, b'}')? {
                Some(next) => after_member = next,
                None => break,
            }
        }
        self.depth -= 1;
        let end = self.index[self.next - 1] as usize + 1;
        scanned.text = &self.text[start..end];
        found(&scanned);
        Some(end)
    }

    /// After a member or item ending at `end`: `Some(next)` after a comma
    /// (the next one starts after `next`), `None` at the closing bracket.
    /// A failed check is `Err`-like: the outer `Option` is `None`.
    fn close(&mut self, end: usize, bracket: u8) -> Option<Option<usize>> {
        let p = self.take()?;
        if !self.blank(end, p) {
            return None;
        }
        match self.b[p] {
            b',' => Some(Some(p + 1)),
            c if c == bracket => Some(None),
            _ => None,
        }
    }

    #[inline]
    fn skip_ws(&self, mut at: usize) -> usize {
        while self.b.get(at).is_some_and(|&c| is_ws(c)) {
            at += 1;
        }
        at
    }

    /// A key whose opening quote is at `open` (already taken): its bytes,
    /// which must have no escapes. Bytes, not text: a `str` slice checks
    /// both ends for character boundaries, and taken as text (a call per
    /// key) the keys were a fourteenth of a delivery body's scan.
    #[inline(always)]
    fn key_from(&mut self, open: usize) -> Option<&'a [u8]> {
        let close = self.take()?;
        let key = self.b.get(open + 1..close)?;
        if self.may_have_escapes(open, close) && key.contains(&b'\\') {
            return None;
        }
        Some(key)
    }

    /// Whether the span touches a block that has a backslash. Inlined down
    /// to the test of `any_escapes`, which most bodies fail: called, this
    /// was a call per key and string.
    #[inline(always)]
    fn may_have_escapes(&self, from: usize, to: usize) -> bool {
        self.any_escapes && self.touches_escapes(from, to)
    }

    #[inline(never)]
    fn touches_escapes(&self, from: usize, to: usize) -> bool {
        (from / 64..=to / 64).any(|k| self.escapes[k / 64] & (1 << (k % 64)) != 0)
    }

    /// One value starting after `after` (whitespace first); the position
    /// just past it.
    #[inline(always)]
    fn value(
        &mut self,
        after: usize,
        watch: Option<&mut Watch<'_>>,
        place: Place,
    ) -> Option<usize> {
        let start = self.skip_ws(after);
        self.value_from(start, watch, place)
    }

    /// One value starting at `start`. Strings and scalars are read here,
    /// inlined where their member or item is: most values are those, and a
    /// call per value (the walk recursed through one function) was 5 % of
    /// a delivery body's scan. Objects and arrays are a call.
    #[inline(always)]
    fn value_from(
        &mut self,
        start: usize,
        watch: Option<&mut Watch<'_>>,
        place: Place,
    ) -> Option<usize> {
        match *self.b.get(start)? {
            b'{' | b'[' => self.nested(start, watch, place),
            b'"' => {
                if self.take()? != start {
                    return None;
                }
                let close = self.take()?;
                if self.may_have_escapes(start, close) {
                    check_escapes(&self.b[start + 1..close])?;
                }
                Some(close + 1)
            }
            _ => {
                // A scalar runs to the next structural position (or the end),
                // less the whitespace before it: found from that end, as a
                // compact body has none (forward, byte by byte, this was 3 %
                // of a delivery body's scan). Whitespace inside is
                // then part of the scalar, which `scalar` refuses.
                let limit = self.peek().unwrap_or(self.b.len());
                let mut end = limit;
                while end > start && is_ws(self.b[end - 1]) {
                    end -= 1;
                }
                scalar(self.b.get(start..end)?)?;
                Some(end)
            }
        }
    }

    /// An object or array starting at `start`.
    #[inline(never)]
    fn nested(
        &mut self,
        start: usize,
        watch: Option<&mut Watch<'_>>,
        place: Place,
    ) -> Option<usize> {
        if self.take()? != start {
            return None;
        }
        if self.b[start] == b'{' {
            self.object(start, watch, place)
        } else {
            self.array(start, watch)
        }
    }

    fn object(
        &mut self,
        open: usize,
        mut watch: Option<&mut Watch<'_>>,
        place: Place,
    ) -> Option<usize> {
        self.enter()?;
        let base = self.keys.len();
        // Bit `signature >> 56` of each key of this object: a key whose bit
        // is clear is new without looking at the others.
        let mut bloom = [0u64; 4];
        let mut after = open + 1;
        let mut first = true;
        let end = loop {
            let p = self.take()?;
            if !self.blank(after, p) {
                return None;
            }
            match self.b[p] {
                b'}' if first => break p + 1,
                b'"' => {}
                _ => return None,
            }
            first = false;
            let key = self.key_from(p)?;
            if let Some(r) = watch.as_deref_mut() {
                let sig = signature(self.b, p + 1, key.len());
                let (word, bit) = ((sig >> 62) as usize, 1u64 << ((sig >> 56) & 63));
                if bloom[word] & bit != 0 && r.first.is_none() && self.seen(base, sig, key) {
                    r.first = Some((p + 1, p + 1 + key.len()));
                }
                bloom[word] |= bit;
                self.keys.push((sig, (p + 1) as u32, key.len() as u32));
            }
            let colon = self.take()?;
            if self.b[colon] != b':' || !self.blank(p + key.len() + 2, colon) {
                return None;
            }
            let (spot, inner) = match (&watch, place) {
                (Some(_), Place::Elsewhere) | (None, _) => (None, Place::Elsewhere),
                (Some(_), _) => place.member(key),
            };
            let value_start = self.skip_ws(colon + 1);
            let value_end = self.value_from(value_start, watch.as_deref_mut(), inner)?;
            if let (Some(spot), Some(w)) = (spot, watch.as_deref_mut()) {
                let slot = &mut w.spots[spot as usize];
                if slot.1 == 0 {
                    *slot = (value_start as u32, value_end as u32);
                }
            }
            let close = self.take()?;
            if !self.blank(value_end, close) {
                return None;
            }
            match self.b[close] {
                b',' => after = close + 1,
                b'}' => break close + 1,
                _ => return None,
            }
        };
        if self.many_keys.last().is_some_and(|&(at, ..)| at == base) {
            self.many_keys.pop();
        }
        self.keys.truncate(base);
        self.depth -= 1;
        Some(end)
    }

    /// Whether `key`, of signature `sig`, is among the keys of the object
    /// whose keys start at `base` in `keys`.
    #[inline]
    fn seen(&mut self, base: usize, sig: u64, key: &[u8]) -> bool {
        if self.keys.len() - base < KEYS_COMPARED {
            return self.keys[base..]
                .iter()
                .any(|&(s, a, n)| s == sig && &self.b[a as usize..(a + n) as usize] == key);
        }
        self.seen_among_many(base, key)
    }

    /// [`Walker::seen`] for an object of [`KEYS_COMPARED`] keys or more: its
    /// set takes the keys it lacks, then is asked.
    #[cold]
    #[inline(never)]
    fn seen_among_many(&mut self, base: usize, key: &[u8]) -> bool {
        if self.many_keys.last().is_none_or(|&(at, ..)| at != base) {
            self.many_keys.push((base, base, KeySet::default()));
        }
        let b = self.b;
        match self.many_keys.last_mut() {
            Some((_, held, seen)) => {
                for &(_, a, n) in &self.keys[*held..] {
                    seen.insert(&b[a as usize..(a + n) as usize]);
                }
                *held = self.keys.len();
                seen.contains(key)
            }
            None => false,
        }
    }

    fn array(&mut self, open: usize, mut watch: Option<&mut Watch<'_>>) -> Option<usize> {
        self.enter()?;
        let mut after = open + 1;
        if let Some(p) = self.peek() {
            if self.b[p] == b']' && self.blank(after, p) {
                self.next += 1;
                self.depth -= 1;
                return Some(p + 1);
            }
        }
        let end = loop {
            let value_end = self.value(after, watch.as_deref_mut(), Place::Elsewhere)?;
            let close = self.take()?;
            if !self.blank(value_end, close) {
                return None;
            }
            match self.b[close] {
                b',' => after = close + 1,
                b']' => break close + 1,
                _ => return None,
            }
        };
        self.depth -= 1;
        Some(end)
    }
}

/// The content of a string with a backslash: every escape must be valid,
/// and a `\u` escape of a surrogate is left to the careful path (which
/// decides whether it pairs).
fn check_escapes(content: &[u8]) -> Option<()> {
    let mut i = 0;
    while i < content.len() {
        if content[i] != b'\\' {
            i += 1;
            continue;
        }
        match *content.get(i + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
            b'u' => {
                let hex = content.get(i + 2..i + 6)?;
                // A surrogate (D800 to DFFF) is judged by its first two
                // digits; the number itself is not needed (making it was a
                // tenth of the parse of a body of escaped text).
                let surrogate = matches!(hex[0], b'd' | b'D')
                    && matches!(hex[1], b'8' | b'9' | b'a' | b'b' | b'A' | b'B');
                if surrogate || !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                i += 6;
            }
            _ => return None,
        }
    }
    Some(())
}

/// `true`, `false`, `null` or a number as JSON writes it. Magnitudes
/// anywhere near what a double cannot hold (serde_json refuses those) go to
/// the careful path. The literals are told inline by a word compare: they
/// are most scalars of a delivery body, and a call each was 4 % of its scan.
#[inline(always)]
fn scalar(t: &[u8]) -> Option<()> {
    let literal = match *t {
        [a, b, c, d] => matches!(u32::from_le_bytes([a, b, c, d]), NULL | TRUE),
        [a, b, c, d, e] => u32::from_le_bytes([a, b, c, d]) == FALS && e == b'e',
        _ => false,
    };
    if literal {
        return Some(());
    }
    number(t)
}

const NULL: u32 = u32::from_le_bytes(*b"null");
const TRUE: u32 = u32::from_le_bytes(*b"true");
const FALS: u32 = u32::from_le_bytes(*b"fals");

/// A number as JSON writes it, not too near what a double cannot hold.
#[inline(never)]
fn number(t: &[u8]) -> Option<()> {
    let mut i = usize::from(t.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while t.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let int_digits = match t.get(i)? {
        b'0' => {
            i += 1;
            1
        }
        b'1'..=b'9' => digits(&mut i),
        _ => return None,
    };
    if t.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return None;
        }
    }
    let mut exponent = 0usize;
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(t.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let start = i;
        if digits(&mut i) == 0 {
            return None;
        }
        // Only its size matters: a long exponent is too big already.
        exponent = std::str::from_utf8(&t[start..i])
            .ok()?
            .parse()
            .unwrap_or(usize::MAX);
    }
    (i == t.len() && int_digits.saturating_add(exponent) < 300).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Option<Vec<ScannedEvent<'_>>> {
        scan_array(text, 64)
    }

    /// The gap check eight bytes at a time answers as byte by byte does:
    /// every byte value in every place of gaps of 0 to 24 bytes, most of
    /// them whitespace (runs of spaces, line breaks, tabs).
    #[test]
    fn gaps_judged_by_words_as_byte_by_byte() {
        let mut rng = fastrand::Rng::with_seed(5);
        let ws = [b' ', b' ', b' ', b'\n', b'\t', b'\r'];
        for _ in 0..20_000 {
            let len = rng.usize(0..=24);
            let mut gap: Vec<u8> = (0..len).map(|_| ws[rng.usize(..ws.len())]).collect();
            if len > 0 && rng.bool() {
                gap[rng.usize(..len)] = rng.u8(..);
            }
            let expected = gap.iter().all(|&c| is_ws(c));
            assert_eq!(all_ws(&gap), expected, "{gap:?}");
        }
        for len in [1, 8, 9, 17] {
            for at in 0..len {
                for c in 0..=255u8 {
                    let mut gap = vec![b' '; len];
                    gap[at] = c;
                    assert_eq!(all_ws(&gap), is_ws(c), "{c:#x} at {at} of {len}");
                }
            }
        }
    }

    /// The signature depends on the key's bytes only: not on where it lies
    /// nor on what follows it, also at the very end of the text.
    #[test]
    fn key_signatures_do_not_depend_on_their_surroundings() {
        let keys: [&[u8]; 6] = [
            b"",
            b"a",
            b"id",
            b"eventInfo",
            b"organizationId",
            b"1234567",
        ];
        for key in keys {
            let mut seen = Vec::new();
            for (before, after) in [
                ("", ""),
                ("xy", "\":1}"),
                ("abcdefgh", "zzzzzzzzz"),
                ("", "~"),
            ] {
                let text = [before.as_bytes(), key, after.as_bytes()].concat();
                seen.push(signature(&text, before.len(), key.len()));
            }
            assert!(seen.windows(2).all(|w| w[0] == w[1]), "{key:?}: {seen:?}");
        }
        let at_end = signature(b"abcdefgh", 0, 8);
        assert_ne!(at_end, signature(b"abcdefgX", 0, 8));
        assert_ne!(signature(b"ab", 0, 1), signature(b"ab", 0, 2));
    }

    #[test]
    fn finds_members_and_repeats() {
        let body = r#" [ {"eventType":"StopListUpdate","x":[1,{"a":1,"a":2}],
            "eventInfo":{"k":{"id":1,"id":2},"l":[{"z":1},{"z":2}]},"eventType":"Other"}, 42 ] "#;
        let events = scan(body).expect("well-formed");
        assert_eq!(events.len(), 2);
        let m = events[0].members.as_ref().expect("object");
        assert_eq!(m.event_type, Some(r#""StopListUpdate""#));
        assert_eq!(m.repeated_member, Some("eventType"));
        // Repeats outside eventInfo do not count; keys of sibling objects are
        // not repeats.
        assert_eq!(m.event_info_repeated_key, Some("id"));
        assert!(events[1].members.is_none());
        assert_eq!(events[1].text, "42");
        assert!(events[0].text.starts_with('{') && events[0].text.ends_with('}'));
    }

    /// Objects with more keys than are compared with each other: a repeat
    /// is found whichever side of the switch to the set its two keys lie,
    /// the first one in the text is the one reported, and keys that share
    /// their first eight bytes and length are told apart.
    #[test]
    fn repeats_in_objects_of_many_keys() {
        let repeated = |keys: &[String]| {
            let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\":0")).collect();
            let body = format!(
                r#"[{{"eventType":"X","eventInfo":{{"o":{{{}}},"p":{{"id":1,"id":2}}}}}}]"#,
                members.join(",")
            );
            let events = scan(&body).expect("well-formed");
            events[0]
                .members
                .expect("object")
                .event_info_repeated_key
                .map(str::to_owned)
        };
        let wide = |n: usize| -> Vec<String> { (0..n).map(|i| format!("key{i:012}")).collect() };
        for n in [KEYS_COMPARED - 1, KEYS_COMPARED, KEYS_COMPARED + 1, 1000] {
            // None repeated in the wide object: the later object's repeat.
            assert_eq!(repeated(&wide(n)).as_deref(), Some("id"), "{n}");
            for (first, again) in [(0, n - 1), (n - 2, n - 1), (3, n / 2)] {
                let mut keys = wide(n);
                keys.insert(again, keys[first].clone());
                assert_eq!(
                    repeated(&keys),
                    Some(keys[first].clone()),
                    "{n} {first} {again}"
                );
            }
        }
        // Two repeats past the switch: the first in the text.
        let mut keys = wide(200);
        keys.push(keys[150].clone());
        keys.push(keys[100].clone());
        assert_eq!(repeated(&keys), Some(keys[150].clone()));
    }

    #[test]
    fn every_element_kept_in_order_across_each_growth_of_the_list() {
        // Past 4, 8, ... and 64 elements: the list grows by fresh
        // allocations below 64 and by `push` above.
        for count in [0usize, 1, 2, 4, 5, 8, 9, 64, 65, 200] {
            let body = format!(
                "[{}]",
                (0..count)
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let events = scan(&body).expect("well-formed");
            let texts: Vec<String> = events.iter().map(|e| e.text.to_owned()).collect();
            let expected: Vec<String> = (0..count).map(|i| i.to_string()).collect();
            assert_eq!(texts, expected, "{count} elements");
        }
    }

    #[test]
    fn leaves_what_it_cannot_judge_to_the_careful_path() {
        for body in [
            "",
            "{}",
            "[",
            "[1,]",
            "[01]",
            "[1.]",
            "[1e]",
            "[-]",
            "[tru]",
            "[1 2]",
            r#"["a"#,
            "[\"\u{1}\"]",
            r#"["\x"]"#,
            r#"["\ud800"]"#,
            r#"["\u12"]"#,
            r#"["\u+123"]"#,
            r#"[{"a\u0041":1}]"#,
            "[1e400]",
            "[] x",
            "x []",
            r#"[{"a" 1}]"#,
            r#"[{"a":1,}]"#,
            r#"[{"a":1 "b":2}]"#,
            r#"[{,}]"#,
            r#"[{"a":}]"#,
            "[[1]2]",
        ] {
            assert!(scan(body).is_none(), "{body:?}");
        }
        assert!(scan_array("[[[1]]]", 3).is_some());
        assert!(scan_array("[[[[1]]]]", 3).is_none());
        assert!(scan(r#"[{"eventInfo":"\u00e9\n","n":-0.5e-3}]"#).is_some());
    }

    /// A scalar ends before the whitespace after it (found from the next
    /// structural position back), and only the three literals' exact words
    /// pass the word compare.
    #[test]
    fn scalars_end_before_their_whitespace_and_literals_are_exact() {
        let events = scan("[ 1 ,null\n,\ttrue\r\n, false  ,-2.5e3 ]").expect("well-formed");
        let texts: Vec<&str> = events.iter().map(|e| e.text).collect();
        assert_eq!(texts, ["1", "null", "true", "false", "-2.5e3"]);
        let events = scan(r#"[{"a":null ,"b" : true}]"#).expect("well-formed");
        assert_eq!(events[0].text, r#"{"a":null ,"b" : true}"#);
        for body in [
            "[nul]",
            "[nulll]",
            "[Null]",
            "[tru]",
            "[truee]",
            "[fals]",
            "[falsy]",
            "[falsee]",
            "[null true]",
            "[1\n2]",
            "[- 1]",
        ] {
            assert!(scan(body).is_none(), "{body:?}");
        }
    }

    /// The per-thread buffers: a small body after a large one scans as on
    /// a fresh thread, and the large body's buffers are not kept.
    #[test]
    fn buffers_are_reused_and_large_ones_given_back() {
        let big = format!("[{}]", vec![r#"{"a":[1,2,{"b":3}]}"#; 20_000].join(","));
        assert_eq!(scan(&big).map(|events| events.len()), Some(20_000));
        SCRATCH.with(|cell| {
            let scratch = cell.borrow();
            assert!(scratch.positions.capacity() * 4 <= Scratch::KEEP_BYTES);
            assert!(scratch.keys.capacity() * 16 <= Scratch::KEEP_BYTES);
        });
        let small = r#"[{"eventType":"X","eventInfo":{"id":1,"id":2,"o":{"status":"New"}}}]"#;
        let members = |text| scan(text).and_then(|events| events[0].members);
        let here = members(small).expect("scans");
        let fresh = std::thread::spawn(move || members(small))
            .join()
            .expect("no panic")
            .expect("scans");
        assert_eq!(here.event_info, fresh.event_info);
        assert_eq!(here.event_info_repeated_key, Some("id"));
        assert_eq!(here.event_info_repeated_key, fresh.event_info_repeated_key);
        assert_eq!(here.event_info_spots, fresh.event_info_spots);
    }

    #[test]
    fn strings_across_blocks_with_and_without_escapes() {
        for pad in 0..140 {
            let filler = "x".repeat(pad);
            for content in ["plain", r#"a \" quote"#, r#"back\\slash"#, "é ü"] {
                let body =
                    format!(r#"[{{"eventInfo":{{"{filler}":"{content}","b":[true,null]}}}}]"#);
                let events = scan(&body).unwrap_or_else(|| panic!("{body}"));
                let info = events[0].members.as_ref().unwrap().event_info.unwrap();
                assert!(info.ends_with(r#"[true,null]}"#), "{info}");
            }
        }
    }

    /// The structural index by its definition, a byte at a time; `Err` for
    /// a backslash outside a string, which no JSON has (the scan may index
    /// such text otherwise: the walk refuses it either way).
    fn reference_index(b: &[u8]) -> Result<Option<Vec<u32>>, ()> {
        let (mut in_string, mut escaped, mut out) = (false, false, Vec::new());
        for (i, &c) in b.iter().enumerate() {
            if in_string {
                if c < 0x20 {
                    // Escaped or not (no escape takes one).
                    return Ok(None);
                } else if escaped {
                    escaped = false;
                } else if c == b'\\' {
                    escaped = true;
                } else if c == b'"' {
                    in_string = false;
                    out.push(i as u32);
                }
            } else if c == b'"' {
                in_string = true;
                out.push(i as u32);
            } else if matches!(c, b'[' | b']' | b'{' | b'}' | b':' | b',') {
                out.push(i as u32);
            } else if c == b'\\' {
                return Err(());
            }
        }
        Ok((!in_string).then_some(out))
    }

    /// Random texts of quotes, runs of backslashes, brackets and control
    /// characters, across block boundaries: the index (escapes told by bit
    /// masks) is the byte-at-a-time one, and so is its refusal.
    #[test]
    fn escapes_told_by_masks_as_byte_by_byte() {
        let mut rng = fastrand::Rng::with_seed(11);
        let (mut positions, mut escapes) = (Vec::new(), Vec::new());
        let (mut compared, mut agreed) = (0, 0);
        for _ in 0..20_000 {
            // Structure outside strings, and strings of plain bytes,
            // escapes, runs of backslashes (some as long as a block) and,
            // rarely, a control character or a quote left open.
            let mut text = Vec::new();
            while text.len() < rng.usize(0..300) {
                if rng.u8(..3) == 0 {
                    text.push(b"{}[]:, 1"[rng.usize(..8)]);
                    continue;
                }
                text.push(b'"');
                for _ in 0..rng.usize(0..40) {
                    match rng.u8(..10) {
                        0..=3 => text.push(b"ab{}:,"[rng.usize(..6)]),
                        4..=6 => text.extend_from_slice(
                            [&b"\\\""[..], b"\\\\", b"\\n", b"\\u0410"][rng.usize(..4)],
                        ),
                        7 | 8 => text.extend(std::iter::repeat_n(b'\\', rng.usize(1..70))),
                        _ => text.push([b'\n', b'"', b'a'][rng.usize(..3)]),
                    }
                }
                text.push(b'"');
            }
            let Ok(want) = reference_index(&text) else {
                continue;
            };
            compared += 1;
            let got =
                structural_index(&text, &mut positions, &mut escapes).map(|()| positions.clone());
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&text));
            agreed += usize::from(want.is_some());
        }
        // Most texts compared, thousands of them indexed.
        assert!(compared > 10_000 && agreed > 2_500, "{compared} {agreed}");
    }

    /// Every byte a position (64 to a block), with and without escapes in
    /// the block: the list is every position in order, across the blocks
    /// and the buffer's growth.
    #[test]
    fn blocks_of_positions_only() {
        let mut positions = Vec::new();
        let mut escapes = Vec::new();
        for n in [1, 63, 64, 65, 200, 5_000] {
            let body = "[],".repeat(n);
            let count = structural_index(body.as_bytes(), &mut positions, &mut escapes);
            assert_eq!(count, Some(()));
            assert!(positions.iter().map(|&p| p as usize).eq(0..body.len()));
            // A backslash in the first block sends it down the byte-by-byte
            // path; the quotes around it are positions, its content not.
            let escaped = format!(r#""\\"{body}"#);
            structural_index(escaped.as_bytes(), &mut positions, &mut escapes).unwrap();
            let want = [0, 3].into_iter().chain(4..escaped.len() as u32);
            assert!(positions.iter().copied().eq(want), "{n}");
        }
    }
}
