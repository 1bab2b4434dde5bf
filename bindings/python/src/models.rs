//! Typed answers and webhook `eventInfo` read from JSON straight into the
//! generated models of `iikocloud.api_models`.
//!
//! The reference is `_model.Model._load` over `json.loads(text,
//! parse_float=Decimal)`: it walks the dicts with each class's `_F` plan of
//! `(attribute, wire name, type code)`. Here a class's plan is read once into
//! a [`ModelPlan`] (on first use, then kept), and the text is read once, by
//! the reader of `plain.rs` and `typed.rs`, following the plan and making the
//! Python objects as it goes: no tree of values, no dict per object, no value
//! read twice.
//!
//! The objects are the reference's, value for value:
//! * numbers keep their digits. A `d` field's number or string is the core's
//!   amount (`iikocloud::Money::from_json`, the one rule of every binding):
//!   a `Decimal` of its digits, or `None` when it is no amount (any other
//!   JSON type included, as the Rust models read it). Elsewhere an integer
//!   is an `int` and any other number a `Decimal` of its text, as
//!   `parse_float=Decimal` gives;
//! * a `t` field's string is the core's local time
//!   (`iikocloud::webhook::parse_local_time`), microseconds cut from its
//!   nanoseconds, or the string as sent when it is no time;
//! * strings keep lone surrogates, as Python's reader does;
//! * the objects and lists the plan expects follow it; a value of another
//!   type, and members the plan does not know (`extra`), are kept as sent;
//! * a union's variant is chosen by its tag, which the service writes first;
//!   when another key comes first (the core's own answers sort their keys),
//!   the tag is looked for ahead in the text, and where that cannot be told
//!   cheaply (a key with escapes) the members before it are read on to it,
//!   kept as text, and read once the variant is known.
//!
//! What this reader cannot reproduce exactly it leaves to the reference
//! (`_model._load_text`): a union tag given twice (the reference takes the
//! last), text Python reads but JSON does not allow (`NaN`, `Infinity`) or
//! that is no JSON at all (the reference raises its own error), nesting
//! deeper than [`MAX_DEPTH`]. `load_model(..., fallback=False)` raises
//! instead, for the tests that check that the native path read an input.
//!
//! Immutable values are shared where the reference makes equal copies: the
//! documented values of an enum, `Decimal`s of the same text, and in texts
//! past 16 KiB strings of the same text (see [`StringCache`]).
//!
//! The GIL is held throughout, as `json.loads` holds it: the objects are made
//! while the text is read.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyString, PyType};

use iikocloud::Money;

mod plain;
mod typed;

use plain::Reader;

use crate::convert::decimal_type;
use crate::errors::invalid_input;
use crate::objects::{datetime_parts, DateTimeParts, DateTimes, Layout};

/// Deepest nesting read natively (objects and lists, typed or not); deeper
/// input goes to the reference.
const MAX_DEPTH: u32 = 128;

/// How one value is read: the type codes of `_model.py`.
enum Code {
    /// `s`, `i`, `b`: kept as sent.
    Plain,
    /// `a` and a class that is neither a model nor an enum: kept as sent,
    /// from the raw text (exact numbers).
    Json,
    /// `d`: a number as `Decimal`.
    Decimal,
    /// `t`: a terminal-local time as a naive `datetime` (kept as sent when
    /// unreadable).
    Time,
    /// An `OpenEnum` class: a string as that class.
    Enum(EnumClass),
    /// `[X`
    List(Box<Code>),
    /// `{X`
    Map(Box<Code>),
    /// A `Model` class.
    Model(Arc<ModelRef>),
}

/// An `OpenEnum` class and an instance of each value it lists (immutable, so
/// shared by every answer, as Python shares small ints).
struct EnumClass {
    cls: Py<PyType>,
    known: HashMap<Box<str>, Py<PyAny>, Fx>,
}

/// A model class and its plan, read on first use.
pub(crate) struct ModelRef {
    pub(crate) cls: Py<PyType>,
    plan: PyOnceLock<ModelPlan>,
}

/// What `_model.Model._load` needs of a class, read from its `_F`, `_TAG`
/// and `_VARIANTS`.
struct ModelPlan {
    codes: Vec<Code>,
    wires: Vec<Box<str>>,
    by_wire: HashMap<Box<str>, usize, Fx>,
    /// The field that followed each field (the last entry: the first field)
    /// the last time; a producer writes its fields in one order, so this
    /// spares most look-ups.
    next: Box<[AtomicUsize]>,
    /// The bits of the wire names ([`key_bit`]): a key whose bit is clear
    /// names no field, found without hashing it (a member the model does
    /// not know misses the guess, and hashing it then found nothing).
    wire_bits: [u64; 4],
    union: Option<Union>,
    layout: Layout,
}

impl ModelPlan {
    /// The field of `key`, trying the one that followed `after` last time.
    fn field(&self, after: usize, key: &str) -> Option<usize> {
        let guess = self.next[after].load(Ordering::Relaxed);
        if self.wires.get(guess).is_some_and(|w| same(w, key)) {
            return Some(guess);
        }
        let (word, bit) = key_bit(key);
        if self.wire_bits[word] & bit == 0 {
            return None;
        }
        let found = *self.by_wire.get(key)?;
        self.next[after].store(found, Ordering::Relaxed);
        Some(found)
    }

    /// Where the guesses start.
    fn first(&self) -> usize {
        self.wires.len()
    }
}

/// Where `key` is noted in [`ModelPlan::wire_bits`] (the word, and the bit
/// in it), from its length and its first and last bytes, which differ among
/// a model's few dozen names.
#[inline]
fn key_bit(key: &str) -> (usize, u64) {
    let b = key.as_bytes();
    let (first, last) = match b {
        [] => (0, 0),
        [one] => (*one, *one),
        [first, .., last] => (*first, *last),
    };
    let at = (b.len() * 37 + usize::from(first) * 3 + usize::from(last) * 11) % 256;
    (at / 64, 1 << (at % 64))
}

/// The first eight bytes of `bytes`, which has them, as a little-endian
/// word: how the hash and the string scan read a text a word at a time.
#[inline(always)]
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(w)
}

/// `a == b` for short strings without a call to `memcmp` (a field name is
/// compared with each key; the call was a twentieth of the whole read).
#[inline]
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    // Not `word`: read through it, this loop made the full read of
    // `odd_unknown_fields` 5 % slower (20.1-20.6 -> 21.6-21.7 us).
    let word = |c: &[u8]| u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    if (&mut ca).zip(&mut cb).any(|(x, y)| word(x) != word(y)) {
        return false;
    }
    ca.remainder()
        .iter()
        .zip(cb.remainder())
        .all(|(x, y)| x == y)
}

/// The variants of a union class by the value of its tag.
struct Union {
    tag: Box<str>,
    variants: HashMap<Box<str>, Arc<ModelRef>, Fx>,
}

/// A fast hash for short keys (FxHash's step). Not keyed: the hash maps'
/// keys are fixed by the generated code; the plain keys of the input go to a
/// direct-mapped table ([`KeysByText`]), where colliding texts cost a miss
/// each. The input's numbers, which go to a hash map, get a seeded hash
/// ([`DECIMALS`]).
#[derive(Default)]
struct FxHasher(u64);

impl FxHasher {
    #[inline(always)]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FxHasher {
    /// Whole words, then the last (overlapping) word; a short text as two
    /// overlapping halves or three bytes. Every byte counts, and nothing is
    /// gathered into a buffer: copying the tail into a zeroed word and
    /// reading it back stalled the multiply after it.
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        let half = |at: usize| {
            let mut h = [0; 4];
            h.copy_from_slice(&bytes[at..at + 4]);
            u64::from(u32::from_le_bytes(h))
        };
        if n >= 8 {
            let mut at = 0;
            while at + 8 < n {
                self.add(word(&bytes[at..]));
                at += 8;
            }
            self.add(word(&bytes[n - 8..]));
        } else if n >= 4 {
            self.add(half(0) | half(n - 4) << 32);
        } else if n > 0 {
            self.add(
                u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16,
            );
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Fx = BuildHasherDefault<FxHasher>;

/// Every class met so far, by address; each holds its class, so an address
/// is never reused while listed.
static MODELS: Mutex<Option<HashMap<usize, Arc<ModelRef>>>> = Mutex::new(None);

pub(crate) fn model_ref(cls: &Bound<'_, PyType>) -> Arc<ModelRef> {
    let mut models = MODELS.lock().unwrap_or_else(|e| e.into_inner());
    models
        .get_or_insert_with(HashMap::new)
        .entry(cls.as_ptr() as usize)
        .or_insert_with(|| {
            Arc::new(ModelRef {
                cls: cls.clone().unbind(),
                plan: PyOnceLock::new(),
            })
        })
        .clone()
}

/// The classes the plans refer to: the module the type codes name classes
/// of, and the two bases.
struct Bases<'py> {
    models: Bound<'py, PyAny>,
    model: Bound<'py, PyAny>,
    open_enum: Bound<'py, PyAny>,
}

impl<'py> Bases<'py> {
    fn get(py: Python<'py>) -> PyResult<Bases<'py>> {
        let runtime = py.import("iikocloud._model")?;
        Ok(Bases {
            models: py.import("iikocloud.api_models")?.into_any(),
            model: runtime.getattr("Model")?,
            open_enum: runtime.getattr("OpenEnum")?,
        })
    }

    /// The code of `_model._converter`'s `code`.
    fn code(&self, text: &str) -> PyResult<Code> {
        Ok(match text {
            "d" => Code::Decimal,
            "t" => Code::Time,
            "s" | "i" | "b" => Code::Plain,
            "a" => Code::Json,
            _ if text.starts_with('[') => Code::List(Box::new(self.code(&text[1..])?)),
            _ if text.starts_with('{') => Code::Map(Box::new(self.code(&text[1..])?)),
            name => {
                let found = self.models.getattr(name)?;
                match found.cast::<PyType>() {
                    Ok(cls) if cls.is_subclass(&self.open_enum)? => {
                        let mut known = HashMap::default();
                        for value in cls.getattr("_VALUES")?.try_iter()? {
                            let value = value?.cast_into::<PyString>()?;
                            let text: Box<str> = value.to_cow()?.into();
                            known.insert(text, cls.call1((value,))?.unbind());
                        }
                        Code::Enum(EnumClass {
                            cls: cls.clone().unbind(),
                            known,
                        })
                    }
                    Ok(cls) if cls.is_subclass(&self.model)? => Code::Model(model_ref(cls)),
                    _ => Code::Json,
                }
            }
        })
    }
}

impl ModelPlan {
    fn read(cls: &Bound<'_, PyType>) -> PyResult<ModelPlan> {
        let py = cls.py();
        let bases = Bases::get(py)?;
        let mut codes = Vec::new();
        let mut wires = Vec::new();
        let mut attrs = Vec::new();
        let mut by_wire = HashMap::default();
        for entry in cls.getattr("_F")?.try_iter()? {
            let (attr, wire, code): (Bound<'_, PyString>, String, String) = entry?.extract()?;
            let wire: Box<str> = wire.into();
            if by_wire.insert(wire.clone(), codes.len()).is_some() {
                // Not in the generated code; the reference sets every
                // attribute of a repeated wire name, which this plan cannot.
                return Err(invalid_input(
                    py,
                    &format!("{}: wire name {wire:?} listed twice", cls.name()?),
                ));
            }
            codes.push(bases.code(&code)?);
            wires.push(wire);
            attrs.push(attr);
        }
        // `_load` looks for the variants in the class's own namespace only.
        let own = cls.getattr("__dict__")?;
        let variants = own.call_method1("get", ("_VARIANTS",))?;
        let union = if variants.is_none() {
            None
        } else {
            let tag: String = own.get_item("_TAG")?.extract()?;
            let mut by_value = HashMap::default();
            for (value, name) in variants.cast::<PyDict>()?.iter() {
                let value: String = value.extract()?;
                let name: String = name.extract()?;
                let variant = bases.models.getattr(name.as_str())?;
                let variant = variant.cast::<PyType>()?;
                by_value.insert(value.into(), model_ref(variant));
            }
            Some(Union {
                tag: tag.into(),
                variants: by_value,
            })
        };
        let mut wire_bits = [0u64; 4];
        for wire in &wires {
            let (word, bit) = key_bit(wire);
            wire_bits[word] |= bit;
        }
        let next = (0..=codes.len())
            .map(|i| AtomicUsize::new(if i == codes.len() { 0 } else { i + 1 }))
            .collect();
        Ok(ModelPlan {
            codes,
            wires,
            by_wire,
            next,
            wire_bits,
            union,
            layout: Layout::of(cls, &attrs)?,
        })
    }
}

static LOAD_TEXT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `Decimal`s by their text, shared by every read: a `Decimal` is immutable,
/// answers and events repeat their prices and amounts, and making one costs
/// several times a look-up (about 230 ns, a call of the class with a `str`).
/// Short texts only; emptied when full. The texts are the input's, so the
/// hash is seeded (`iikocloud::hashing`): under the unkeyed one below,
/// texts made to share their bucket and tag (a minute's search for a
/// thousand) were each compared with all before them, and the plain read of
/// 4,000 of them took 4.7 ms instead of 0.14.
static DECIMALS: Mutex<Option<ByText>> = Mutex::new(None);
type ByText = HashMap<Box<str>, Py<PyAny>, iikocloud::hashing::OsSeeded>;
const DECIMALS_KEPT: usize = 4096;
const DECIMAL_TEXT_KEPT: usize = 24;

/// The keys of plain JSON objects (`eventInfo` of unknown and unreadable
/// events) and of a model's unknown fields (its `extra`), shared by every
/// read the same way: events repeat their keys, and
/// a string made once has its hash kept, so the dict does not hash it again
/// (making and hashing each key was a third of a small `eventInfo`'s read).
static KEYS: Mutex<Option<KeysByText>> = Mutex::new(None);
const KEY_TEXT_KEPT: usize = 40;

/// The keys kept, in slots direct-mapped by a hash of their text: a look-up
/// compares one slot, and a miss replaces it. The texts are the input's and
/// the hash is not keyed, so a body of colliding keys must cost no more than
/// missing: in a hash map each such key was compared with every one before
/// it (up to 2,048), and the full read of an `eventInfo` of 2,000 of them
/// took 5.1 ms instead of 0.6.
struct KeysByText {
    slots: Box<[KeptKey]>,
}

/// A slot of [`KeysByText`]: a key's text and its string, or nothing yet.
type KeptKey = Option<(Box<str>, Py<PyString>)>;

impl KeysByText {
    /// Slots (a power of two).
    const SLOTS: usize = 2048;

    fn slot(&mut self, text: &str) -> &mut KeptKey {
        let mut hasher = FxHasher::default();
        hasher.write(text.as_bytes());
        // The top bits, the only ones every byte of the text reaches.
        let at = (hasher.finish() >> (64 - Self::SLOTS.trailing_zeros())) as usize;
        &mut self.slots[at]
    }
}

impl Default for KeysByText {
    fn default() -> Self {
        KeysByText {
            slots: std::iter::repeat_with(|| None).take(Self::SLOTS).collect(),
        }
    }
}

/// One of the shared tables ([`DECIMALS`], [`KEYS`]) as a read holds it:
/// locked at its first use and kept until the read ends, since a lock and an
/// unlock per look-up were half of a plain key's. `try_lock`, because the
/// table may be held by a read this thread interrupted (Python code the read
/// called let another thread run, or collected garbage that read a body):
/// then this read makes its values without the table.
struct Held<T: 'static> {
    table: &'static Mutex<Option<T>>,
    guard: OnceCell<Option<RefCell<MutexGuard<'static, Option<T>>>>>,
}

impl<T: Default> Held<T> {
    fn new(table: &'static Mutex<Option<T>>) -> Self {
        Held {
            table,
            guard: OnceCell::new(),
        }
    }

    /// `f` of the table, or of `None` while another read holds it.
    fn with<R>(&self, f: impl FnOnce(Option<&mut T>) -> R) -> R {
        let held = self.guard.get_or_init(|| match self.table.try_lock() {
            Ok(guard) => Some(RefCell::new(guard)),
            Err(TryLockError::Poisoned(poisoned)) => Some(RefCell::new(poisoned.into_inner())),
            Err(TryLockError::WouldBlock) => None,
        });
        match held {
            Some(guard) => f(Some(guard.borrow_mut().get_or_insert_with(T::default))),
            None => f(None),
        }
    }
}

/// The state of one read: how deep the reader is, and what it shares.
struct Ctx<'t, 'py> {
    py: Python<'py>,
    /// The whole text being read (union tags are looked for ahead in it).
    text: &'t str,
    depth: Cell<u32>,
    decimal: Bound<'py, PyType>,
    /// Plain strings made so far, to share (large texts only).
    strings: Option<RefCell<StringCache<'py>>>,
    /// The members kept for `extra` by the models being read, as places in
    /// `text` (see [`Ctx::keep_unknown`]).
    unknown: RefCell<Vec<(usize, usize)>>,
    /// The shared tables, held from their first use to the read's end.
    decimals: Held<ByText>,
    keys: Held<KeysByText>,
}

/// The plain strings made while reading one text, by their place in it: an
/// answer repeats ids, names and amounts written as text, and a Python
/// string is immutable, so handing out the one already made gives what
/// `json.loads` gives but for identity. Direct-mapped by a hash of the
/// bytes; a miss replaces the entry.
struct StringCache<'py> {
    /// `(offset, length)` of the text in `Ctx::text`, and its string.
    entries: Vec<Option<(u32, u32, Bound<'py, PyString>)>>,
}

impl StringCache<'_> {
    /// Entries (a power of two).
    const SIZE: usize = 1024;
    /// Texts shorter than this read without the cache: its table would cost
    /// more than it saves.
    const MIN_TEXT: usize = 16 * 1024;
    /// Longer strings are made each time (rarely repeated, slower to hash).
    const MAX_STRING: usize = 64;
}

impl<'t, 'py> Ctx<'t, 'py> {
    fn new(py: Python<'py>, text: &'t str) -> PyResult<Ctx<'t, 'py>> {
        Ok(Ctx {
            py,
            text,
            depth: Cell::new(0),
            decimal: decimal_type(py)?.clone(),
            unknown: RefCell::new(Vec::new()),
            decimals: Held::new(&DECIMALS),
            keys: Held::new(&KEYS),
            strings: (text.len() >= StringCache::MIN_TEXT).then(|| {
                RefCell::new(StringCache {
                    entries: vec![None; StringCache::SIZE],
                })
            }),
        })
    }

    /// Where the members kept by the model starting now will begin (see
    /// [`Ctx::keep_unknown`]).
    fn unknown_start(&self) -> usize {
        self.unknown.borrow().len()
    }

    /// Keeps `member` (its key, `:` and value, as sent), a member its model
    /// does not know, for `Model.extra`. The model's members are made into
    /// the text of one JSON object when it is done (`take_unknown`), which
    /// `extra` reads on first use: made as values, they were more than a
    /// third of reading an event with a hundred of them, and few readers
    /// look.
    /// The value has been checked as it was skipped, so that read does not
    /// fail. A nested model's members are taken before its parent's next
    /// one is kept, so each model's are the last ones kept.
    fn keep_unknown(&self, member: &str) -> PyResult<()> {
        let start = (member.as_ptr() as usize)
            .checked_sub(self.text.as_ptr() as usize)
            // Every reader reads the read's text or a part of it.
            .filter(|&at| at + member.len() <= self.text.len())
            .ok_or_else(|| {
                invalid_input(self.py, "not read natively: a member outside the text")
            })?;
        self.unknown
            .borrow_mut()
            .push((start, start + member.len()));
        Ok(())
    }

    /// The members kept since `start` (from [`Ctx::unknown_start`]) as the
    /// text of one JSON object, forgotten here; `None` when there are none.
    fn take_unknown(&self, start: usize) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let mut kept = self.unknown.borrow_mut();
        let Some(members) = kept.get(start..).filter(|m| !m.is_empty()) else {
            return Ok(None);
        };
        let text = self.text.as_bytes();
        // Braces, commas between, and the members.
        let len = 1 + members
            .iter()
            .map(|(from, to)| to - from + 1)
            .sum::<usize>();
        let bytes = PyBytes::new_with(self.py, len, |out| {
            let mut at = 0;
            for (i, &(from, to)) in members.iter().enumerate() {
                out[at] = if i == 0 { b'{' } else { b',' };
                out[at + 1..at + 1 + to - from].copy_from_slice(&text[from..to]);
                at += 1 + to - from;
            }
            out[at] = b'}';
            Ok(())
        })?;
        kept.truncate(start);
        Ok(Some(bytes))
    }

    fn enter(&self) -> PyResult<()> {
        let depth = self.depth.get() + 1;
        if depth > MAX_DEPTH {
            return Err(invalid_input(self.py, "not read natively: nested too deep"));
        }
        self.depth.set(depth);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get() - 1);
    }

    fn plan<'a>(&self, model: &'a ModelRef) -> PyResult<&'a ModelPlan> {
        model
            .plan
            .get_or_try_init(self.py, || ModelPlan::read(model.cls.bind(self.py)))
    }

    fn none(&self) -> Bound<'py, PyAny> {
        self.py.None().into_bound(self.py)
    }

    fn bool(&self, v: bool) -> Bound<'py, PyAny> {
        PyBool::new(self.py, v).to_owned().into_any()
    }

    fn int(&self, v: i64) -> Bound<'py, PyAny> {
        match v.into_pyobject(self.py) {
            Ok(i) => i.into_any(),
            Err(never) => match never {},
        }
    }

    /// A string of a field of code `code`: a time, an enum value, or kept.
    fn string(&self, code: &Code, text: &str) -> PyResult<Bound<'py, PyAny>> {
        match code {
            Code::Time => self.time(text),
            Code::Enum(e) => match e.known.get(text) {
                Some(v) => Ok(v.bind(self.py).clone()),
                None => e.cls.bind(self.py).call1((text,)),
            },
            _ => Ok(self.plain_string(text).into_any()),
        }
    }

    /// A string value, shared with an equal one made before from the same
    /// text when the cache has it.
    fn plain_string(&self, text: &str) -> Bound<'py, PyString> {
        let Some(cache) = self.strings.as_ref() else {
            return PyString::new(self.py, text);
        };
        // Only slices of the text (no escapes) are kept: the entry names
        // its place there.
        let place = (text.as_ptr() as usize)
            .checked_sub(self.text.as_ptr() as usize)
            .filter(|&at| at + text.len() <= self.text.len())
            .filter(|_| text.len() <= StringCache::MAX_STRING)
            .and_then(|at| Some((u32::try_from(at).ok()?, u32::try_from(text.len()).ok()?)));
        let Some((offset, len)) = place else {
            return PyString::new(self.py, text);
        };
        let mut hasher = FxHasher(text.len() as u64);
        hasher.write(text.as_bytes());
        let slot = (hasher.finish() >> 54) as usize & (StringCache::SIZE - 1);
        let mut cache = cache.borrow_mut();
        if let Some((at, len, string)) = &cache.entries[slot] {
            if self.text.get(*at as usize..(*at + *len) as usize) == Some(text) {
                return string.clone();
            }
        }
        let string = PyString::new(self.py, text);
        cache.entries[slot] = Some((offset, len, string.clone()));
        string
    }

    /// A `d` field's value from its raw JSON text (a number, or whatever
    /// else was sent there): the core's amount as `Decimal`, or None.
    fn decimal_leaf(&self, raw: &str) -> PyResult<Bound<'py, PyAny>> {
        if let Some(text) = as_the_rule_writes(raw) {
            // The common case (`1780.0`, `12.5`): the rule's text is a
            // prefix of the number's; formatting the amount again cost a
            // fifth of a large answer's reading.
            debug_assert_eq!(
                Money::from_json(raw).map(|m| m.to_string()).as_deref(),
                Some(text)
            );
            return self.decimal(text);
        }
        // Whatever the JSON type: the core's amount or None (`true`, a list,
        // a string with a lone surrogate are no amount, as in Rust).
        self.amount(Money::from_json(raw))
    }

    /// A number of plain JSON from its text: an integer as `int`, anything
    /// else as `Decimal` of the text (`parse_float=Decimal`).
    fn number(&self, text: &str) -> PyResult<Bound<'py, PyAny>> {
        let integer = !text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
        if integer {
            return match text.parse::<i64>() {
                Ok(i) => Ok(self.int(i)),
                Err(_) => self.py.get_type::<PyInt>().call1((text,)),
            };
        }
        self.decimal(text)
    }

    /// A `d` field: the core's amount as `Decimal`, `None` when the value is
    /// no amount.
    fn amount(&self, amount: Option<Money>) -> PyResult<Bound<'py, PyAny>> {
        match amount {
            Some(m) => self.decimal(&m.to_string()),
            None => Ok(self.none()),
        }
    }

    /// A plain object's key (see [`KEYS`]).
    fn key(&self, text: &str) -> Bound<'py, PyString> {
        if text.len() > KEY_TEXT_KEPT {
            return PyString::new(self.py, text);
        }
        self.keys.with(|kept| {
            let Some(kept) = kept else {
                return PyString::new(self.py, text);
            };
            let slot = kept.slot(text);
            if let Some((kept_text, k)) = slot {
                if same(kept_text, text) {
                    return k.bind(self.py).clone();
                }
            }
            let k = PyString::new(self.py, text);
            *slot = Some((text.into(), k.clone().unbind()));
            k
        })
    }

    /// `Decimal(text)`, shared with the one made before of the same text.
    fn decimal(&self, text: &str) -> PyResult<Bound<'py, PyAny>> {
        if text.len() > DECIMAL_TEXT_KEPT {
            return self.decimal.call1((text,));
        }
        let kept = self
            .decimals
            .with(|kept| kept.map(|kept| kept.get(text).map(|d| d.bind(self.py).clone())));
        match kept {
            Some(Some(d)) => Ok(d),
            None => self.decimal.call1((text,)),
            Some(None) => {
                // Made outside the table's borrow: the class is Python code.
                let d = self.decimal.call1((text,))?;
                self.decimals.with(|kept| {
                    if let Some(kept) = kept {
                        if kept.len() >= DECIMALS_KEPT {
                            kept.clear();
                        }
                        kept.insert(text.into(), d.clone().unbind());
                    }
                });
                Ok(d)
            }
        }
    }

    /// A `t` field's string: the core's local time, or the string as sent.
    fn time(&self, text: &str) -> PyResult<Bound<'py, PyAny>> {
        match local_time(text) {
            Some(parts) => DateTimes::get(self.py)?.naive(self.py, parts),
            None => Ok(self.plain_string(text).into_any()),
        }
    }
}

/// A JSON string's value: text, or UTF-16 code units when it has a lone
/// surrogate escape (which Python keeps in a `str`, and Rust cannot).
enum JsonString<'a> {
    Text(Cow<'a, str>),
    Utf16(Vec<u16>),
}

/// The UTF-16 code units of the content of a JSON string (quotes left
/// out) that the reader has checked: for a string with a lone surrogate
/// escape, which Python keeps in a `str` and Rust cannot.
fn utf16_units(inner: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(at) = rest.find('\\') {
        units.extend(rest[..at].encode_utf16());
        let esc = &rest.as_bytes()[at + 1..];
        let (unit, used) = match esc[0] {
            b'b' => (0x08, 1),
            b'f' => (0x0c, 1),
            b'n' => (u16::from(b'\n'), 1),
            b'r' => (u16::from(b'\r'), 1),
            b't' => (u16::from(b'\t'), 1),
            b'u' => (hex_unit(&esc[1..5]).unwrap_or(0), 5),
            other => (u16::from(other), 1),
        };
        units.push(unit);
        rest = &rest[at + 1 + used..];
    }
    units.extend(rest.encode_utf16());
    units
}

/// Each byte's value as a hex digit; 0xFF for a byte that is none.
const HEX_DIGIT: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = match c as u8 {
            d @ b'0'..=b'9' => d - b'0',
            d @ b'a'..=b'f' => d - b'a' + 10,
            d @ b'A'..=b'F' => d - b'A' + 10,
            _ => 0xFF,
        };
        c += 1;
    }
    table
};

/// The UTF-16 unit that `digits` (its first four bytes, hex digits) write,
/// or `None` when one is no hex digit: four lookups and one test, no branch
/// per digit (text escaped as `\uXXXX` is four digits an escape).
#[inline]
fn hex_unit(digits: &[u8]) -> Option<u16> {
    let &[a, b, c, d] = digits.first_chunk::<4>()?;
    let [a, b, c, d] = [a, b, c, d].map(|x| HEX_DIGIT[usize::from(x)]);
    if (a | b | c | d) & 0xF0 != 0 {
        return None;
    }
    Some(u16::from(a) << 12 | u16::from(b) << 8 | u16::from(c) << 4 | u16::from(d))
}

/// A `str` from UTF-16 code units that may hold lone surrogates (decoded
/// with `surrogatepass`, as Python's own JSON reader keeps them).
fn utf16_string<'py>(py: Python<'py>, units: &[u16]) -> PyResult<Bound<'py, PyString>> {
    let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    Ok(PyBytes::new(py, &bytes)
        .call_method1("decode", ("utf-16-le", "surrogatepass"))?
        .cast_into::<PyString>()?)
}

/// The text the core's rule gives back (`Money`'s `Display`) for a JSON
/// number `raw` of the plain form: `-`, digits, optionally `.` and digits,
/// no exponent, at most 28 digits (JSON has no leading zeros). That is `raw`
/// without the fraction's trailing zeros (and its `.` if nothing is left),
/// `-0` being `0`. `None` for any other form: `Money::from_json` reads it.
fn as_the_rule_writes(raw: &str) -> Option<&str> {
    let b = raw.as_bytes();
    let unsigned = b.strip_prefix(b"-").unwrap_or(b);
    let int = unsigned.iter().take_while(|c| c.is_ascii_digit()).count();
    let (digits, text) = match &unsigned[int..] {
        [] => (int, raw),
        [b'.', frac @ ..] if !frac.is_empty() && frac.iter().all(u8::is_ascii_digit) => {
            let kept = frac.len() - frac.iter().rev().take_while(|&&c| c == b'0').count();
            let end = raw.len() - frac.len() + kept;
            // No fraction left: the `.` goes too.
            let end = if kept == 0 { end - 1 } else { end };
            (int + frac.len(), &raw[..end])
        }
        _ => return None,
    };
    if int == 0 || digits > 28 {
        return None;
    }
    Some(if text == "-0" { "0" } else { text })
}

/// The parts of the service's local time in `s` by the core's rule
/// (`parse_local_time`) for a naive `datetime`; `None` for no time.
fn local_time(s: &str) -> Option<DateTimeParts> {
    datetime_parts(&iikocloud::webhook::parse_local_time(s)?)
}

/// The service's local time in `text` by the core's rule, as a naive
/// `datetime` (microseconds: the digits past them dropped), or `None`: the
/// reference reader's `_parse_time`, so both readers give one answer.
#[pyfunction]
pub fn local_time_of<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    // A string with a lone surrogate has no UTF-8, and is no time.
    let Ok(text) = text.to_cow() else {
        return Ok(None);
    };
    local_time(&text)
        .map(|parts| DateTimes::get(py)?.naive(py, parts))
        .transpose()
}

/// The amount in `text` (a number's text, or a string's content) by the
/// core's rule, as `Decimal`, or `None`: the reference reader's `_decimal`.
#[pyfunction]
pub fn amount_of<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Ok(text) = text.to_cow() else {
        return Ok(None);
    };
    text.parse::<Money>()
        .ok()
        .map(|m| crate::convert::decimal(py, &m.to_string()))
        .transpose()
}

/// The position of the first byte after JSON white space from `at`.
fn skip_space(text: &[u8], mut at: usize) -> usize {
    while matches!(text.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The position of the first `"` in `bytes` not escaped by a backslash (the
/// end of a string whose opening quote is just before `bytes`).
fn string_end(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let next = at + bytes[at..].iter().position(|&b| b == b'"' || b == b'\\')?;
        if bytes[next] == b'"' {
            return Some(next);
        }
        at = next + 2;
        if at > bytes.len() {
            return None;
        }
    }
}

/// The end of the JSON value starting at `at` (a container is skipped to
/// its matching bracket, strings inside it jumped over); `None` when the text
/// ends first.
fn skip_value(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'"' => Some(at + 2 + string_end(text.get(at + 1..)?)?),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                let skip = text
                    .get(i..)?
                    .iter()
                    .position(|&b| matches!(b, b'"' | b'{' | b'[' | b'}' | b']'))?;
                i += skip;
                match text[i] {
                    b'"' => i += 2 + string_end(text.get(i + 1..)?)?,
                    b'{' | b'[' => {
                        depth += 1;
                        i += 1;
                    }
                    _ => {
                        depth -= 1;
                        i += 1;
                        if depth == 0 {
                            return Some(i);
                        }
                    }
                }
            }
        }
        _ => {
            let len = text[at..]
                .iter()
                .position(|&b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(text.len() - at);
            Some(at + len)
        }
    }
}

/// Reads `text` into the model `model` (or the model of its member
/// `member`), natively; the error says why not.
pub(crate) fn read<'py>(
    py: Python<'py>,
    model: &ModelRef,
    text: &str,
    member: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    fn read_as<'py, const SPACED: bool>(
        ctx: &Ctx<'_, 'py>,
        model: &ModelRef,
        text: &str,
        member: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut reader = Reader::<SPACED>::new(ctx, text);
        let value = match member {
            None => reader.model_or_plain(model)?,
            Some(name) => reader.member(name, model)?,
        };
        reader.end()?;
        Ok(value)
    }
    let ctx = Ctx::new(py, text)?;
    if plain::spaced(text.as_bytes()) {
        read_as::<true>(&ctx, model, text, member)
    } else {
        read_as::<false>(&ctx, model, text, member)
    }
}

/// The reference reading (`_model._load_text`), for input the native reader
/// leaves to it.
pub(crate) fn reference<'py>(
    cls: &Bound<'py, PyType>,
    json: &Bound<'py, PyAny>,
    member: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    LOAD_TEXT
        .import(cls.py(), "iikocloud._model", "_load_text")?
        .call1((cls, json, member))
}

pub(crate) fn read_plain<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    plain::read(&Ctx::new(py, text)?, text)
}

/// An event's member `member` (or the whole event) as plain Python values,
/// as `json.loads(raw_json, parse_float=Decimal)` and `.get(member)` make
/// them, from the texts the parse kept: `info`, the text of `eventInfo` where
/// its place is known, and `info_absent`, whether the parse saw none. `None`
/// when the member is absent or the event no object. Raises
/// `InvalidInputError` for what it leaves to `json.loads` (NaN, nesting
/// past the limit).
pub(crate) fn plain_member<'py>(
    py: Python<'py>,
    raw_json: &str,
    info: Option<&str>,
    info_absent: bool,
    member: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    // Where the parse found eventInfo, its text: no envelope to build.
    // Without it (absent, a repeated key), the whole event is read.
    if member == Some("eventInfo") {
        if let Some(info) = info {
            return read_plain(py, info);
        }
        if info_absent {
            return Ok(py.None().into_bound(py));
        }
    }
    let whole = read_plain(py, raw_json.trim_matches(JSON_SPACE))?;
    let Some(name) = member else {
        return Ok(whole);
    };
    match whole.cast::<PyDict>() {
        Ok(dict) => Ok(dict
            .get_item(name)?
            .unwrap_or_else(|| py.None().into_bound(py))),
        Err(_) => Ok(py.None().into_bound(py)),
    }
}

/// JSON's white space (RFC 8259), the only characters allowed around a value.
const JSON_SPACE: &[char] = &[' ', '\t', '\n', '\r'];

/// Reads an answer's JSON text into `cls` for `NativeClient`: natively, or
/// through the Python reader (given the text as `str`) when it must.
pub fn load_answer<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    text: &str,
) -> PyResult<Bound<'py, PyAny>> {
    match read(py, &model_ref(cls), text, None) {
        Ok(value) => Ok(value),
        Err(_) => reference(cls, PyString::new(py, text).as_any(), None),
    }
}
