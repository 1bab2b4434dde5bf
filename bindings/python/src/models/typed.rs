//! Typed JSON read by a model's plan, in one pass over the text: the same
//! reader as plain JSON (`plain.rs`), which also reads whatever the plan
//! does not know (unknown members, a value of another type than the plan's).
//!
//! serde_json read each unknown member and each `d` field twice: once as a
//! `RawValue` to keep a number's digits, then again from that text. Here
//! every value is read once, where it lies.

use std::borrow::Cow;

use pyo3::prelude::*;

use super::plain::{Key, Reader};
use super::{
    skip_space, skip_value, string_end, utf16_string, Code, JsonString, ModelPlan, ModelRef,
};
use crate::errors::invalid_input;
use crate::objects::Building;

impl<'py, 's, const SPACED: bool> Reader<'_, '_, 'py, 's, SPACED> {
    /// The value at `at` as the plan's code `code` reads it.
    pub(super) fn typed(&mut self, code: &Code) -> PyResult<Bound<'py, PyAny>> {
        self.skip_ws();
        let ctx = self.ctx;
        match (code, self.peek()) {
            (Code::Json, _) => self.value(),
            (Code::Decimal, Some(b'-' | b'0'..=b'9')) => {
                let number = self.number()?;
                ctx.decimal_leaf(number)
            }
            // Whatever else it holds: the core's amount or None.
            (Code::Decimal, _) => {
                let raw = self.skip()?;
                ctx.decimal_leaf(raw)
            }
            (Code::Model(model), Some(b'{')) => self.model(model),
            (Code::List(item), Some(b'[')) => self.list(item),
            (Code::Map(item), Some(b'{')) => self.dict(item),
            (_, Some(b'"')) => match self.plain_str() {
                Some(text) => ctx.string(code, text),
                None => self.escaped_typed_string(code),
            },
            // Numbers, literals, and containers the plan does not expect
            // there: kept as sent.
            _ => self.value(),
        }
    }

    /// A string with escapes where the plan's code `code` expects a leaf.
    #[inline(never)]
    fn escaped_typed_string(&mut self, code: &Code) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.ctx;
        match self.escaped_string()? {
            JsonString::Text(t) => ctx.string(code, &t),
            JsonString::Utf16(units) => {
                let value = utf16_string(ctx.py, &units)?;
                match code {
                    Code::Enum(e) => e.cls.bind(ctx.py).call1((value,)),
                    // A lone surrogate is no time: the string as sent.
                    _ => Ok(value.into_any()),
                }
            }
        }
    }

    /// The model of the object at `at`, any other value kept as sent (the
    /// top of an answer).
    pub(super) fn model_or_plain(&mut self, model: &ModelRef) -> PyResult<Bound<'py, PyAny>> {
        self.skip_ws();
        if self.peek() == Some(b'{') {
            return self.model(model);
        }
        self.value()
    }

    /// The model of the object at `at`, `None` for any other value
    /// (`webhooks.Event.event_info` of an `eventInfo` that is no object).
    pub(super) fn model_or_none(&mut self, model: &ModelRef) -> PyResult<Bound<'py, PyAny>> {
        self.skip_ws();
        if self.peek() == Some(b'{') {
            return self.model(model);
        }
        self.skip()?;
        Ok(self.ctx.none())
    }

    /// The member `name` of the object at `at` as the model `model`, `None`
    /// when absent, no object, or the text no object. The last one counts,
    /// as in a dict.
    pub(super) fn member(&mut self, name: &str, model: &ModelRef) -> PyResult<Bound<'py, PyAny>> {
        self.skip_ws();
        if self.peek() != Some(b'{') {
            self.skip()?;
            return Ok(self.ctx.none());
        }
        let mut found = None;
        self.members(|r, key| {
            let matched = match key {
                Key::Plain(key) => key == name,
                _ => matches!(r.escaped_key()?, JsonString::Text(k) if k == name),
            };
            // Read where it lies: skipped and read again, it cost a small
            // event's member read a fifth more.
            if matched {
                found = Some(r.model_or_none(model)?);
            } else {
                r.skip()?;
            }
            Ok(())
        })?;
        Ok(found.unwrap_or_else(|| self.ctx.none()))
    }

    /// [`Reader::key`] as a `JsonString`, with where the member starts;
    /// `None` after the closing brace (for the union's look for its tag,
    /// off the members' fast loop).
    fn next_key(&mut self, first: &mut bool) -> PyResult<Option<(JsonString<'s>, usize)>> {
        Ok(match self.key(first)? {
            Key::End => None,
            Key::Plain(k) => Some((JsonString::Text(Cow::Borrowed(k)), self.offset(k) - 1)),
            Key::Escaped => {
                let start = self.at;
                Some((self.escaped_key()?, start))
            }
        })
    }

    fn list(&mut self, item: &Code) -> PyResult<Bound<'py, PyAny>> {
        self.list_with(|r| r.typed(item))
    }

    fn dict(&mut self, item: &Code) -> PyResult<Bound<'py, PyAny>> {
        self.dict_with(|r| r.typed(item))
    }

    /// `Model._load` of the object at `at`: its union's variant, the fields
    /// by wire name, the rest kept as text for `extra` (see
    /// [`Ctx::keep_unknown`]).
    fn model(&mut self, model: &ModelRef) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.ctx;
        ctx.enter()?;
        let open = self.at;
        self.at += 1;
        let mut plan = ctx.plan(model)?;
        let mut cls = &model.cls;
        let mut first = true;
        // Members read before the variant was known, as text, to read once
        // it is: the key, where the member starts, and its value.
        let mut early: Vec<(JsonString<'s>, usize, &'s str)> = Vec::new();
        // Tags read, not looked for ahead (which makes sure there is one).
        let mut tags: Vec<&str> = Vec::new();
        // The object's closing brace has been read (looking for a tag).
        let mut closed = false;
        while let Some(union) = plan.union.as_ref() {
            let is_tag =
                |key: &JsonString<'_>| matches!(key, JsonString::Text(k) if **k == *union.tag);
            // Among the members read, or the first one: the service writes
            // the tag first.
            let mut tag = early
                .iter()
                .rev()
                .find(|(k, ..)| is_tag(k))
                .map(|(.., raw)| *raw);
            if tag.is_none() && first {
                match self.next_key(&mut first)? {
                    Some((key, start)) => {
                        let raw = self.skip()?;
                        if is_tag(&key) {
                            tag = Some(raw);
                        }
                        early.push((key, start, raw));
                    }
                    None => closed = true,
                }
            }
            let tag = match tag {
                Some(raw) => {
                    // A second one is only seen later.
                    tags.push(&union.tag);
                    Some(raw)
                }
                None if closed => None,
                // Another key first (the core's own answers sort their
                // keys): looked for ahead in the text, which spares the
                // members before it a second reading.
                None => match self.tag_ahead(open, &union.tag) {
                    Some(ahead) => ahead,
                    // Where that cannot be told cheaply, read on to it.
                    None => loop {
                        let Some((key, start)) = self.next_key(&mut first)? else {
                            closed = true;
                            break None;
                        };
                        let raw = self.skip()?;
                        let found = is_tag(&key);
                        early.push((key, start, raw));
                        if found {
                            tags.push(&union.tag);
                            break Some(raw);
                        }
                    },
                },
            };
            // No tag, one of another type, or a value naming no variant:
            // the class itself, as the reference.
            let Some(variant) = tag
                .and_then(|raw| self.tag_string(raw))
                .and_then(|v| union.variants.get(&*v))
            else {
                break;
            };
            plan = ctx.plan(variant)?;
            cls = &variant.cls;
        }
        let mut building = plan.layout.start(cls.bind(ctx.py))?;
        let unknown = ctx.unknown_start();
        let mut after = plan.first();
        for (key, start, raw) in early {
            let mut inner = Reader::<SPACED>::new(ctx, raw);
            if !inner.any_field(plan, &mut building, key, &mut after)? {
                ctx.keep_unknown(&self.text[start..self.offset(raw) + raw.len()])?;
            }
        }
        // The members left (none when looking for a tag read them all).
        if !closed {
            loop {
                // Where an unknown member starts (its key's opening quote).
                let start = match self.key(&mut first)? {
                    Key::End => break,
                    Key::Plain(key) => {
                        if !tags.is_empty() && tags.contains(&key) {
                            return Err(not_native(ctx.py, "a union tag given twice"));
                        }
                        if self.field(plan, &mut building, key, &mut after)? {
                            continue;
                        }
                        self.offset(key) - 1
                    }
                    Key::Escaped => {
                        let start = self.at;
                        let key = self.escaped_key()?;
                        if matches!(&key, JsonString::Text(k) if tags.contains(&&**k)) {
                            return Err(not_native(ctx.py, "a union tag given twice"));
                        }
                        if self.any_field(plan, &mut building, key, &mut after)? {
                            continue;
                        }
                        start
                    }
                };
                self.skip()?;
                ctx.keep_unknown(&self.text[start..self.at])?;
            }
        }
        ctx.leave();
        building.finish(ctx.take_unknown(unknown)?)
    }

    /// Reads the value at `at` as the member `key` of a model being built,
    /// when the model has a field of that wire name (`after`: the field
    /// before, which the plan's guess starts from); `false`, the value left
    /// unread, when it has none.
    #[inline(always)]
    fn field(
        &mut self,
        plan: &ModelPlan,
        building: &mut Building<'_, 'py>,
        key: &str,
        after: &mut usize,
    ) -> PyResult<bool> {
        let Some(at) = plan.field(*after, key) else {
            return Ok(false);
        };
        building.set(at, self.typed(&plan.codes[at])?);
        *after = at;
        Ok(true)
    }

    /// [`Reader::field`] of a key that had escapes (or a lone surrogate,
    /// which names no field).
    #[inline(never)]
    fn any_field(
        &mut self,
        plan: &ModelPlan,
        building: &mut Building<'_, 'py>,
        key: JsonString<'_>,
        after: &mut usize,
    ) -> PyResult<bool> {
        match key {
            JsonString::Text(key) => self.field(plan, building, &key, after),
            JsonString::Utf16(_) => Ok(false),
        }
    }

    /// The string a tag's raw value holds, when it is a string without lone
    /// surrogates; checked here, as a tag found ahead has not been yet.
    fn tag_string(&self, raw: &'s str) -> Option<Cow<'s, str>> {
        if !raw.starts_with('"') {
            return None;
        }
        match Reader::<SPACED>::new(self.ctx, raw).string() {
            Ok(JsonString::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// The raw value of the member `tag` of the object opening at `open`,
    /// looked for ahead in text not read yet: `Some(None)` when the object
    /// has no such member, `None` when that cannot be told cheaply (a key
    /// with escapes, the tag twice, text that is no JSON: the reader then
    /// reads on to the tag, and a second one later leaves the object to the
    /// reference). The scan stays within the text whatever it holds; the
    /// reading that follows checks it.
    fn tag_ahead(&self, open: usize, tag: &str) -> Option<Option<&'s str>> {
        let text = self.b;
        let mut at = skip_space(text, open + 1);
        let mut found = None;
        if text.get(at) == Some(&b'}') {
            return Some(None);
        }
        loop {
            if text.get(at) != Some(&b'"') {
                return None;
            }
            let key_end = at + 1 + string_end(&text[at + 1..])?;
            let name = &text[at + 1..key_end];
            if name.contains(&b'\\') {
                return None;
            }
            at = skip_space(text, key_end + 1);
            if text.get(at) != Some(&b':') {
                return None;
            }
            let value_at = skip_space(text, at + 1);
            let value_end = skip_value(text, value_at)?;
            if name == tag.as_bytes() {
                if found.is_some() {
                    return None;
                }
                found = Some(self.text.get(value_at..value_end)?);
            }
            at = skip_space(text, value_end);
            match text.get(at) {
                Some(b'}') => return Some(found),
                Some(b',') => at = skip_space(text, at + 1),
                _ => return None,
            }
        }
    }
}

/// The error of input left to the reference reader.
fn not_native(py: Python<'_>, why: &str) -> PyErr {
    invalid_input(py, &format!("not read natively: {why}"))
}
