//! Requests and answers of calls by name, checked and written from the rules
//! of `wire.json` (generated from the snapshot, see `codegen/src/wire.rs`)
//! rather than through every operation's typed models.
//!
//! A request given as JSON gets what the typed path gives it: the same type
//! checks serde makes when reading it into the request model, the same rules
//! [`super::Validate`] checks (through the one [`Validator`], so the messages
//! are the same), and the same JSON on the wire (amounts as the typed writer
//! writes them, unset optional fields left out, unset required ones as
//! `null`). An answer is handed through as the service wrote it, keys in
//! their order; amounts become strings only when the caller asks. A unit test
//! compares this with the typed path on every operation's requests.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::validate::{Validator, LISTED};
use crate::time::LocalTime;
use crate::{Error, Money, Result};

/// How the keys of a request given as JSON are read.
///
/// By default every key, at every depth, must be a field of its schema under
/// the document's name (`deliveryPoint`): any other is
/// [`Error::InvalidInput`] naming its path and the nearest field
/// (`order.delivery_point: not a field of DeliveryOrder; did you mean
/// deliveryPoint?`), and nothing is sent. The service is not known to refuse
/// a field it does not know, so a misspelt optional field would otherwise be
/// dropped there without a word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestKeys {
    /// Send keys that are no field of this SDK's snapshot as given: for a
    /// field newer than the SDK, on purpose. Keys given in both spellings
    /// of one field are refused all the same.
    pub allow_unknown: bool,
    /// Also take each field under its snake-case name (`delivery_point`,
    /// the name of the Python models' attribute), sent under the document's
    /// name; both spellings of one field in one object are refused.
    pub snake_case: bool,
}

impl RequestKeys {
    /// Keys that are no field are sent as given.
    pub fn allowing_unknown(mut self, allow: bool) -> Self {
        self.allow_unknown = allow;
        self
    }

    /// Snake-case spellings are taken too.
    pub fn with_snake_case(mut self, snake_case: bool) -> Self {
        self.snake_case = snake_case;
        self
    }
}

static TABLE_JSON: &str = include_str!("wire.json");

#[derive(Deserialize)]
struct Table {
    operations: HashMap<String, OpTypes>,
    schemas: Vec<Schema>,
}

#[derive(Deserialize)]
struct OpTypes {
    /// `None`: the operation takes no body (`{}` is sent).
    request: Option<Ty>,
    /// `None`: the answer holds no amount.
    answer: Option<Ty>,
}

#[derive(Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
enum Schema {
    Obj {
        /// The snapshot's name, for messages.
        name: String,
        fields: Vec<Field>,
        /// The discriminators of the unions it is a variant of: keys it
        /// takes that are not among its fields.
        #[serde(default)]
        tags: Vec<String>,
    },
    Union {
        name: String,
        tag: String,
        /// The tag's snake-case spelling, when it differs.
        tag_s: Option<String>,
        variants: HashMap<String, usize>,
    },
    Enum,
    IntEnum,
}

#[derive(Deserialize)]
struct Field {
    #[serde(rename = "n")]
    name: String,
    /// The snake-case spelling (the Python attribute's name), when it differs.
    #[serde(rename = "s")]
    snake: Option<String>,
    #[serde(rename = "t")]
    ty: Ty,
    /// Must be set and not `null`.
    #[serde(default)]
    required: bool,
    /// Listed as required by the document: sent as `null` when unset.
    #[serde(default)]
    write_null: bool,
    min_items: Option<usize>,
    #[serde(default)]
    not_blank: bool,
    #[serde(default)]
    http_url: bool,
}

#[derive(Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Ty {
    Str {
        format: Option<String>,
        min: Option<u64>,
        max: Option<u64>,
        #[serde(rename = "enum")]
        one_of: Option<Vec<String>>,
        /// Only the length is checked; the text never reaches a message.
        #[serde(default)]
        secret: bool,
    },
    Int {
        min: Option<String>,
        max: Option<String>,
    },
    Num {
        min: Option<String>,
        max: Option<String>,
    },
    Bool,
    Any,
    List {
        of: Box<Ty>,
    },
    Map {
        of: Box<Ty>,
    },
    Ref {
        to: usize,
    },
}

fn table() -> Result<&'static Table> {
    static TABLE: OnceLock<std::result::Result<Table, String>> = OnceLock::new();
    TABLE
        .get_or_init(|| serde_json::from_str(TABLE_JSON).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| Error::invalid(format!("the built-in operation rules do not read: {e}")))
}

/// Checks the request of operation `name` and returns the JSON the typed
/// path would send. A key that is no field of its schema (unless `keys`
/// allows it), a value of the wrong type, or a rule broken, is
/// [`Error::InvalidInput`] naming the field path.
pub(crate) fn request(name: &str, mut request: Value, keys: RequestKeys) -> Result<Value> {
    let table = table()?;
    let types = table
        .operations
        .get(name)
        .ok_or_else(|| Error::invalid(format!("no operation named {name:?}")))?;
    let Some(obj) = request.as_object_mut() else {
        return Err(Error::invalid(format!(
            "{name}: the request must be a JSON object, got {}",
            kind_of(&request)
        )));
    };
    let mut walk = Walk {
        table,
        keys,
        v: Validator::default(),
        mistyped: Vec::new(),
        unknown: Vec::new(),
    };
    match &types.request {
        // The typed path reads any object and sends `{}`.
        None => {
            if !keys.allow_unknown {
                for key in obj.keys() {
                    walk.unknown.push(format!("{key}: {name} takes no fields"));
                }
            }
            obj.clear();
        }
        Some(Ty::Ref { to }) => walk.object_or_union(*to, obj, true, None),
        Some(_) => {}
    }
    if !walk.unknown.is_empty() {
        // Reported first: a misspelt key is usually why a field is missing.
        let mut problems = std::mem::take(&mut walk.unknown);
        problems.append(&mut walk.mistyped);
        let n = problems.len();
        let mut text = problems[..n.min(LISTED)].join("; ");
        if n > LISTED {
            text.push_str(&format!("; and {} more", n - LISTED));
        }
        return Err(Error::invalid(format!(
            "{name}: {text} (the keys are the document's field names; a field newer than this SDK is sent only when the call allows unknown fields)"
        )));
    }
    if !walk.mistyped.is_empty() {
        let n = walk.mistyped.len();
        let mut text = walk.mistyped[..n.min(LISTED)].join("; ");
        if n > LISTED {
            text.push_str(&format!("; and {} more", n - LISTED));
        }
        return Err(Error::invalid(format!(
            "{name}: the request does not fit: {text}"
        )));
    }
    walk.v.finish()?;
    Ok(request)
}

/// The answer of operation `name` read from its text, every amount written
/// as a JSON string (`"1250.5"`), for hosts whose JSON reader turns numbers
/// into doubles. Amounts are read from their text by the core's one rule
/// ([`Money::from_json`]), so no digit goes through a double; a number or
/// string where the schema has an amount that is no amount (a 30-digit
/// sum) is `null`, as every binding reads it. Everything else is as
/// `serde_json::from_str` reads it.
pub(crate) fn answer_with_amounts_as_text(
    name: &str,
    text: &str,
) -> std::result::Result<Value, serde_json::Error> {
    let table = table().ok();
    let ty = table.and_then(|t| t.operations.get(name)?.answer.as_ref());
    let (Some(table), Some(ty)) = (table, ty) else {
        return serde_json::from_str(text);
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = AsText {
        table,
        ty: Some(ty),
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// One value of an answer read as a `Value`, with the amounts its type
/// `ty` (by the table) holds written as strings.
#[derive(Clone, Copy)]
struct AsText<'t> {
    table: &'t Table,
    ty: Option<&'t Ty>,
}

impl<'t> AsText<'t> {
    fn plain(self) -> Self {
        AsText {
            table: self.table,
            ty: None,
        }
    }

    fn of(self, ty: &'t Ty) -> Self {
        AsText {
            table: self.table,
            ty: Some(ty),
        }
    }

    /// The type of the member `key` of an object of schema `to`.
    fn field(self, to: usize, key: &str) -> Self {
        match self.table.schemas.get(to) {
            Some(Schema::Obj { fields, .. }) => fields
                .iter()
                .find(|f| f.name == key)
                .map_or(self.plain(), |f| self.of(&f.ty)),
            _ => self.plain(),
        }
    }
}

impl<'de> DeserializeSeed<'de> for AsText<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        match self.ty {
            Some(Ty::Num { .. }) => {
                let raw = <&RawValue>::deserialize(d)?.get();
                match Money::from_json(raw) {
                    Some(m) => Ok(Value::String(m.to_string())),
                    // A number or string that is no amount reads as absent;
                    // other types are kept as sent.
                    None if raw.starts_with([
                        '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
                    ]) =>
                    {
                        Ok(Value::Null)
                    }
                    None => serde_json::from_str(raw).map_err(serde::de::Error::custom),
                }
            }
            Some(Ty::List { .. } | Ty::Map { .. } | Ty::Ref { .. }) => d.deserialize_any(self),
            _ => Value::deserialize(d),
        }
    }
}

impl<'de> Visitor<'de> for AsText<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let each = match self.ty {
            Some(Ty::List { of }) => self.of(of),
            _ => self.plain(),
        };
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(each)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        let mut out = Map::new();
        match self.ty {
            Some(Ty::Map { of }) => {
                while let Some(key) = map.next_key::<String>()? {
                    let value = map.next_value_seed(self.of(of))?;
                    out.insert(key, value);
                }
            }
            Some(Ty::Ref { to }) => match self.table.schemas.get(*to) {
                Some(Schema::Union { tag, variants, .. }) => {
                    // The variant is known once the tag is read: the service
                    // writes it first; keys before it wait as raw text.
                    let mut early: Vec<(String, &'de RawValue)> = Vec::new();
                    let mut chosen: Option<Option<usize>> = None;
                    while let Some(key) = map.next_key::<String>()? {
                        if let Some(variant) = chosen {
                            let seed = variant.map_or(self.plain(), |v| self.field(v, &key));
                            let value = map.next_value_seed(seed)?;
                            out.insert(key, value);
                            continue;
                        }
                        let raw: &'de RawValue = map.next_value()?;
                        if key == *tag {
                            let name = serde_json::from_str::<&str>(raw.get()).ok();
                            let variant = name.and_then(|n| variants.get(n)).copied();
                            chosen = Some(variant);
                            for (k, r) in early.drain(..) {
                                let seed = variant.map_or(self.plain(), |v| self.field(v, &k));
                                out.insert(k, reread(seed, r).map_err(serde::de::Error::custom)?);
                            }
                            let value =
                                reread(self.plain(), raw).map_err(serde::de::Error::custom)?;
                            out.insert(key, value);
                            continue;
                        }
                        early.push((key, raw));
                    }
                    for (k, r) in early {
                        out.insert(
                            k,
                            reread(self.plain(), r).map_err(serde::de::Error::custom)?,
                        );
                    }
                }
                Some(Schema::Obj { .. }) => {
                    while let Some(key) = map.next_key::<String>()? {
                        let value = map.next_value_seed(self.field(*to, &key))?;
                        out.insert(key, value);
                    }
                }
                _ => return plain_map(self, map, out),
            },
            _ => return plain_map(self, map, out),
        }
        Ok(Value::Object(out))
    }
}

fn plain_map<'de, A: MapAccess<'de>>(
    seed: AsText<'_>,
    mut map: A,
    mut out: Map<String, Value>,
) -> std::result::Result<Value, A::Error> {
    while let Some(key) = map.next_key::<String>()? {
        let value = map.next_value_seed(seed.plain())?;
        out.insert(key, value);
    }
    Ok(Value::Object(out))
}

/// A value kept as raw text, read now that its type is known.
fn reread(seed: AsText<'_>, raw: &RawValue) -> std::result::Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    seed.deserialize(&mut de)
}

/// One pass over a request: keys that are no field, type problems (what
/// reading it into the typed model would refuse) and rule problems (what
/// `Validate` would), each apart.
struct Walk<'t> {
    table: &'t Table,
    keys: RequestKeys,
    v: Validator,
    mistyped: Vec<String>,
    unknown: Vec<String>,
}

impl Walk<'_> {
    fn mistyped(&mut self, field: &str, what: &str, got: &Value) {
        let at = self.v.at(field);
        self.mistyped
            .push(format!("{at}: must be {what}, got {}", kind_of(got)));
    }

    /// The fields of object schema `to` (or of the variant a union's
    /// discriminator chooses) in `obj`, at the validator's current path.
    /// `tag`: the discriminator of the union `to` is a variant of, a key
    /// the variant's own fields leave out.
    fn object_or_union(
        &mut self,
        to: usize,
        obj: &mut Map<String, Value>,
        rules: bool,
        tag: Option<&str>,
    ) {
        let table = self.table;
        match table.schemas.get(to) {
            Some(Schema::Obj { name, fields, tags }) => {
                let fields: Vec<&Field> = fields.iter().collect();
                let tags: Vec<&str> = tags.iter().map(String::as_str).chain(tag).collect();
                self.keys_of(name, &fields, &tags, obj);
                for f in fields {
                    self.field(f, obj, rules);
                }
            }
            Some(Schema::Union {
                name,
                tag,
                tag_s,
                variants,
            }) => {
                if let Some(spelt) = tag_s.as_deref() {
                    self.snake_to_wire(&[(spelt, tag.as_str())], obj);
                }
                if let Some(chosen) = variant(tag, variants, obj) {
                    return self.object_or_union(chosen, obj, rules, Some(tag));
                }
                // A missing or unknown discriminator: the fields are not
                // checked (a variant newer than this SDK may have others),
                // but a key no variant has is still no field.
                let mut names: Vec<&String> = variants.keys().collect();
                names.sort();
                let given = obj.get(tag.as_str()).and_then(Value::as_str);
                if let Some(given) = given.filter(|_| !self.keys.allow_unknown) {
                    // A known variant in other letters is a slip, not news.
                    if let Some(known) = names.iter().find(|n| n.eq_ignore_ascii_case(given)) {
                        let at = self.v.at(tag);
                        self.unknown.push(format!(
                            "{at}: {given:?} is no variant of {}; did you mean {known:?}?",
                            short(name)
                        ));
                    }
                }
                let mut all: Vec<&Field> = Vec::new();
                for &to in variants.values() {
                    if let Some(Schema::Obj { fields, .. }) = table.schemas.get(to) {
                        for f in fields {
                            if !all.iter().any(|g| g.name == f.name) {
                                all.push(f);
                            }
                        }
                    }
                }
                all.sort_by(|a, b| a.name.cmp(&b.name));
                self.keys_of(name, &all, &[tag.as_str()], obj);
            }
            _ => {}
        }
    }

    /// The keys of `obj` against the fields of schema `schema`: snake-case
    /// spellings renamed when the call takes them, and any other key that is
    /// no field (nor one of the discriminators `tags`) reported with the
    /// nearest field's name, unless the call allows unknown fields.
    fn keys_of(
        &mut self,
        schema: &str,
        fields: &[&Field],
        tags: &[&str],
        obj: &mut Map<String, Value>,
    ) {
        if self.keys.snake_case {
            // A spelling that is another field's wire name stays that field.
            let pairs: Vec<(&str, &str)> = fields
                .iter()
                .filter_map(|f| Some((f.snake.as_deref()?, f.name.as_str())))
                .filter(|(snake, _)| !fields.iter().any(|f| f.name == *snake))
                .collect();
            self.snake_to_wire(&pairs, obj);
        }
        if self.keys.allow_unknown {
            return;
        }
        let known = |key: &str| tags.contains(&key) || fields.iter().any(|f| f.name == key);
        let strays: Vec<String> = obj.keys().filter(|k| !known(k)).cloned().collect();
        for key in strays {
            let at = self.v.at(&key);
            let names = fields
                .iter()
                .map(|f| f.name.as_str())
                .chain(tags.iter().copied());
            let hint = match nearest(&key, names) {
                Some(n) => format!("; did you mean {n}?"),
                None => String::new(),
            };
            self.unknown
                .push(format!("{at}: not a field of {}{hint}", short(schema)));
        }
    }

    /// Renames each key given in its snake-case spelling (`pairs`: snake,
    /// wire) to the wire name, keeping the keys' order. Both spellings of
    /// one field is a problem: which value was meant?
    fn snake_to_wire(&mut self, pairs: &[(&str, &str)], obj: &mut Map<String, Value>) {
        if !pairs.iter().any(|(snake, _)| obj.contains_key(*snake)) {
            return;
        }
        let taken = std::mem::take(obj);
        for (key, value) in &taken {
            match pairs.iter().find(|(snake, _)| snake == key) {
                Some((_, wire)) if taken.contains_key(*wire) => {
                    let at = self.v.at(key);
                    self.unknown
                        .push(format!("{at}: the same field as {wire}; give it once"));
                }
                Some((_, wire)) => {
                    obj.insert((*wire).to_string(), value.clone());
                }
                None => {
                    obj.insert(key.clone(), value.clone());
                }
            }
        }
    }

    /// One field of an object: the checks `Validate` makes of it, in its
    /// order (required, the project's rules, then the value's own).
    fn field(&mut self, f: &Field, obj: &mut Map<String, Value>, rules: bool) {
        let name = f.name.as_str();
        let given = obj.get(name).filter(|x| !x.is_null());
        if rules {
            if f.required {
                self.v.required(name, given.is_some());
            }
            if let Some(n) = f.min_items {
                self.v
                    .min_items(name, given.and_then(Value::as_array).map(Vec::len), n);
            }
            if f.not_blank {
                self.v.not_blank(name, given.and_then(Value::as_str));
            }
            if f.http_url {
                self.v.http_url(name, given.and_then(Value::as_str));
            }
        }
        match obj.get_mut(name).filter(|x| !x.is_null()) {
            Some(x) => self.value(name, &f.ty, x, rules),
            // As the typed writer sends an unset field.
            None if f.write_null => {
                obj.insert(name.to_string(), Value::Null);
            }
            None => {
                obj.remove(name);
            }
        }
    }

    /// A value of type `t` under `field`. `rules`: whether `Validate`
    /// reaches it (it checks fields of objects, and the objects and UUIDs of
    /// lists; list items and map values are otherwise only read).
    fn value(&mut self, field: &str, t: &Ty, x: &mut Value, rules: bool) {
        match t {
            Ty::Str {
                format,
                min,
                max,
                one_of,
                secret,
            } => {
                let Some(s) = x.as_str() else {
                    return self.mistyped(field, "a string", x);
                };
                if !rules {
                    return;
                }
                if *secret {
                    self.v.length(field, Some(s), *min, *max);
                    return;
                }
                match format.as_deref() {
                    Some("uuid") => self.v.uuid(field, Some(s)),
                    Some("local-date-time") => self.v.local_time(field, Some(&LocalTime::parse(s))),
                    _ => {}
                }
                self.v.length(field, Some(s), *min, *max);
                if let Some(values) = one_of {
                    let allowed: Vec<&str> = values.iter().map(String::as_str).collect();
                    self.v.one_of(field, Some(s), &allowed);
                }
            }
            Ty::Int { min, max } => {
                let Some(n) = x.as_i64() else {
                    return self.mistyped(field, "an integer", x);
                };
                if rules && (min.is_some() || max.is_some()) {
                    self.v
                        .int_range(field, Some(n), min.as_deref(), max.as_deref());
                }
            }
            Ty::Num { min, max } => {
                let Ok(m) = Money::deserialize(&*x) else {
                    return self.mistyped(field, "an amount (a number or a decimal string)", x);
                };
                // The typed writer's form: a number, or a string when no
                // double holds the amount exactly.
                if let Ok(written) = serde_json::to_value(m) {
                    *x = written;
                }
                if rules && (min.is_some() || max.is_some()) {
                    self.v
                        .money_range(field, Some(&m), min.as_deref(), max.as_deref());
                }
            }
            Ty::Bool => {
                if !x.is_boolean() {
                    self.mistyped(field, "true or false", x);
                }
            }
            Ty::Any => {}
            Ty::List { of } => self.list(field, of, x, rules),
            Ty::Map { of } => {
                let Some(entries) = x.as_object_mut() else {
                    return self.mistyped(field, "an object", x);
                };
                self.v.enter(field);
                for (key, item) in entries.iter_mut() {
                    self.value(key, of, item, false);
                }
                self.v.leave();
            }
            Ty::Ref { to } => match self.table.schemas.get(*to) {
                // Any text: an unknown value is the caller's choice (the
                // service may know it).
                Some(Schema::Enum) if !x.is_string() => self.mistyped(field, "a string", x),
                Some(Schema::IntEnum) if x.as_i64().is_none() => {
                    self.mistyped(field, "an integer", x);
                }
                // A union reads anything; one it does not know stays as sent.
                Some(Schema::Union { .. }) => {
                    if let Some(obj) = x.as_object_mut() {
                        self.v.enter(field);
                        self.object_or_union(*to, obj, rules, None);
                        self.v.leave();
                    }
                }
                Some(Schema::Obj { .. }) => {
                    let Some(obj) = x.as_object_mut() else {
                        return self.mistyped(field, "an object", x);
                    };
                    self.v.enter(field);
                    self.object_or_union(*to, obj, rules, None);
                    self.v.leave();
                }
                _ => {}
            },
        }
    }

    fn list(&mut self, field: &str, of: &Ty, x: &mut Value, rules: bool) {
        let Some(items) = x.as_array_mut() else {
            return self.mistyped(field, "a list", x);
        };
        // `Validate` descends into lists of objects and checks lists of UUIDs.
        let objects = matches!(of, Ty::Ref { to } if matches!(
            self.table.schemas.get(*to),
            Some(Schema::Obj { .. } | Schema::Union { .. })
        ));
        let uuids = matches!(of, Ty::Str { format: Some(f), .. } if f == "uuid");
        for (i, item) in items.iter_mut().enumerate() {
            if objects {
                // Validate's `each`: the path is `field` then `[i]`.
                self.v.enter(field);
                self.value(&format!("[{i}]"), of, item, rules);
                self.v.leave();
            } else {
                let at = format!("{field}[{i}]");
                self.value(&at, of, item, false);
                if rules && uuids {
                    if let Some(s) = item.as_str() {
                        self.v.uuid(&at, Some(s));
                    }
                }
            }
        }
    }
}

/// The variant schema a union value's discriminator names, when it is one
/// this version knows.
fn variant(
    tag: &str,
    variants: &HashMap<String, usize>,
    obj: &Map<String, Value>,
) -> Option<usize> {
    obj.get(tag)
        .and_then(Value::as_str)
        .and_then(|v| variants.get(v))
        .copied()
}

/// The last part of a snapshot name (`Deliveries.Request.CreateOrder.DeliveryOrder`
/// is `DeliveryOrder`).
fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The field name a misspelt `key` most likely meant: one that differs only
/// in case, `_` and `-` (`delivery_point`, `DeliveryPoint`), else the
/// closest by edit distance when it is close enough to be a slip (at most
/// two edits, and at most a third of the key).
fn nearest<'a>(key: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let plain = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let key = plain(key);
    let mut best: Option<(usize, &str)> = None;
    for name in names {
        let distance = strsim::damerau_levenshtein(&key, &plain(name));
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, name));
        }
    }
    let (distance, name) = best?;
    let close = distance == 0 || (distance <= 2 && distance * 3 <= key.chars().count());
    close.then_some(name)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SEND_UNKNOWN: RequestKeys = RequestKeys {
        allow_unknown: true,
        snake_case: false,
    };

    /// Makes requests from the table: mostly fitting, with wrong types, bad
    /// formats, values out of bounds and missing required fields mixed in.
    struct Maker<'t> {
        table: &'t Table,
        rng: fastrand::Rng,
    }

    impl Maker<'_> {
        fn chance(&mut self, percent: u8) -> bool {
            self.rng.u8(0..100) < percent
        }

        fn wrong(&mut self) -> Value {
            match self.rng.u8(0..5) {
                0 => json!(7),
                1 => json!("text"),
                2 => json!([1]),
                3 => json!({"x": 1}),
                _ => json!(true),
            }
        }

        fn value(&mut self, t: &Ty, depth: usize) -> Value {
            if self.chance(4) {
                return self.wrong();
            }
            match t {
                Ty::Str {
                    format,
                    min,
                    max,
                    one_of,
                    ..
                } => {
                    if let Some(values) = one_of {
                        if !self.chance(15) {
                            return json!(values[self.rng.usize(..values.len())]);
                        }
                    }
                    match format.as_deref() {
                        Some("uuid") if !self.chance(10) => {
                            return json!(crate::api::new_order_id());
                        }
                        Some("local-date-time") if !self.chance(10) => {
                            return json!("2026-11-24 10:15:00.123");
                        }
                        _ => {}
                    }
                    let lo = min.unwrap_or(0) as usize;
                    let hi = max.map_or(lo + 12, |m| m as usize);
                    let n = if self.chance(10) {
                        hi + 1
                    } else if lo > 0 && self.chance(10) {
                        lo - 1
                    } else {
                        self.rng.usize(lo..=hi.max(lo))
                    };
                    json!("ab c".repeat(n).chars().take(n).collect::<String>())
                }
                Ty::Int { min, max } => {
                    if self.chance(5) {
                        return json!(1.5);
                    }
                    let bound =
                        |b: &Option<String>| b.as_deref().and_then(|t| t.parse::<f64>().ok());
                    let (lo, hi) = (bound(min).unwrap_or(-5.0), bound(max).unwrap_or(50.0));
                    json!(self.rng.i64((lo as i64 - 1)..=(hi as i64 + 1)))
                }
                Ty::Num { .. } => match self.rng.u8(0..6) {
                    0 => json!("12.34"),
                    1 => json!("twelve"),
                    2 => json!(-0.5),
                    3 => json!(12345678901234567890u64),
                    _ => json!(self.rng.i64(-2..200) as f64 / 4.0),
                },
                Ty::Bool => json!(self.rng.bool()),
                Ty::Any => json!({"any": [1, "two"]}),
                Ty::List { of } => {
                    let n = if depth > 3 { 0 } else { self.rng.usize(0..3) };
                    Value::Array((0..n).map(|_| self.value(of, depth + 1)).collect())
                }
                Ty::Map { of } => {
                    let n = if depth > 3 { 0 } else { self.rng.usize(0..2) };
                    Value::Object(
                        (0..n)
                            .map(|i| (format!("k{i}"), self.value(of, depth + 1)))
                            .collect(),
                    )
                }
                Ty::Ref { to } => self.schema(*to, depth),
            }
        }

        fn schema(&mut self, to: usize, depth: usize) -> Value {
            let table = self.table;
            match &table.schemas[to] {
                Schema::Enum => json!(if self.chance(50) {
                    "Unheard"
                } else {
                    "Delivery"
                }),
                Schema::IntEnum => json!(self.rng.i64(0..4)),
                Schema::Union { tag, variants, .. } => {
                    let mut names: Vec<&String> = variants.keys().collect();
                    names.sort();
                    if self.chance(10) || names.is_empty() {
                        return json!({ tag.as_str(): "Unheard", "x": 1 });
                    }
                    let name = names[self.rng.usize(..names.len())];
                    let mut v = self.schema(variants[name], depth);
                    if let Some(obj) = v.as_object_mut() {
                        obj.insert(tag.clone(), json!(name));
                    }
                    v
                }
                Schema::Obj { fields, .. } => {
                    let mut obj = Map::new();
                    for f in fields {
                        let keep = if f.required {
                            95
                        } else if depth > 2 {
                            10
                        } else {
                            50
                        };
                        if self.chance(keep) {
                            let v = if self.chance(5) {
                                Value::Null
                            } else {
                                self.value(&f.ty, depth + 1)
                            };
                            obj.insert(f.name.clone(), v);
                        }
                    }
                    if self.chance(10) {
                        obj.insert("notInTheDocument".into(), json!([1, {"a": null}]));
                    }
                    Value::Object(obj)
                }
            }
        }
    }

    /// The rules of `wire.json` against the typed models, on requests made
    /// from every operation's schema: the same answer (the same JSON out, or
    /// the same rule message; a type problem refused by both).
    #[test]
    fn calls_by_name_check_and_write_requests_as_the_typed_models_do() {
        let table = table().unwrap();
        let mut maker = Maker {
            table,
            rng: fastrand::Rng::with_seed(20261124),
        };
        let (mut fitting, mut refused, mut mistyped, mut strict_refused) = (0, 0, 0, 0);
        for op in super::super::OPERATIONS.iter() {
            let types = &table.operations[op.name];
            for _ in 0..60 {
                let request = match &types.request {
                    Some(t) => maker.value(t, 0),
                    None => json!({"ignored": 1}),
                };
                // The typed models keep keys they do not know in `extra`
                // and send them: the by-name path does so when asked.
                let by_rules = super::request(op.name, request.clone(), SEND_UNKNOWN);
                // Refusing unknown keys only refuses: what passes goes out
                // the same, and the one made-up key never passes.
                let strict = super::request(op.name, request.clone(), RequestKeys::default());
                if let Ok(sent) = &strict {
                    assert_eq!(Some(sent), by_rules.as_ref().ok(), "{}: {request}", op.name);
                }
                if request.to_string().contains("notInTheDocument") {
                    let e = strict.expect_err("an unknown key passed").to_string();
                    assert!(e.contains("not a field of"), "{}: {e}", op.name);
                    strict_refused += 1;
                }
                if !request.is_object() {
                    // The typed path sent what a top-level union read (a
                    // list, say); a body is always an object here.
                    let e = by_rules.unwrap_err().to_string();
                    assert!(e.contains("must be a JSON object"), "{}: {e}", op.name);
                    continue;
                }
                let typed = super::super::prepare_typed(op.name, &request);
                match (&typed, &by_rules) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{}: {request}", op.name);
                        fitting += 1;
                    }
                    (Err(Error::InvalidInput(a)), Err(Error::InvalidInput(b)))
                        if a.contains("does not fit") =>
                    {
                        assert!(
                            b.contains("does not fit"),
                            "{}: typed {a:?}, by rules {b:?}: {request}",
                            op.name
                        );
                        mistyped += 1;
                    }
                    (Err(Error::InvalidInput(a)), Err(Error::InvalidInput(b))) => {
                        assert_eq!(a, b, "{}: {request}", op.name);
                        refused += 1;
                    }
                    _ => panic!(
                        "{}: typed {typed:?}, by rules {by_rules:?}: {request}",
                        op.name
                    ),
                }
            }
        }
        // Each kind of outcome is well represented, so the test compares
        // something in every case.
        eprintln!("{fitting} fitting, {refused} refused, {mistyped} mistyped, {strict_refused} unknown keys");
        assert!(
            fitting > 3000 && refused > 3000 && mistyped > 1000 && strict_refused > 1000,
            "{fitting} {refused} {mistyped} {strict_refused}"
        );
    }

    #[test]
    fn answers_get_amounts_as_text_where_the_schema_has_amounts() {
        // The items' tag first and last; amounts past a double's digits.
        let text = r#"{
            "orders": [{"id": "x", "order": {"sum": 1234567890123456789012345678, "items": [
                {"type": "Product", "amount": 2, "price": 0.1, "resultSum": 1250.50, "productId": "p"},
                {"price": 12345678901234567890.12, "amount": -0.0, "type": "Product", "x": 1.5}
            ], "phone": "+7", "number": 17, "discountsInfo": null}}],
            "correlationId": "c",
            "maxRevision": 4
        }"#;
        let answer = answer_with_amounts_as_text("deliveries.by_id", text).unwrap();
        let order = &answer["orders"][0]["order"];
        assert_eq!(order["sum"], json!("1234567890123456789012345678"));
        assert_eq!(order["items"][0]["price"], json!("0.1"));
        assert_eq!(order["items"][0]["resultSum"], json!("1250.5"));
        assert_eq!(order["items"][1]["price"], json!("12345678901234567890.12"));
        assert_eq!(order["items"][1]["amount"], json!("0"));
        // Not amounts: left as numbers.
        assert_eq!(order["items"][1]["x"], json!(1.5));
        assert_eq!(order["number"], json!(17));
        assert_eq!(answer["maxRevision"], json!(4));
        // No amount by the rule: absent, as in every binding.
        let text = r#"{"orders": [{"order": {"sum": 123456789012345678901234567890, "items": [
            {"type": "Product", "price": "12.50"}, {"type": "Product", "price": true}]}}]}"#;
        let answer = answer_with_amounts_as_text("deliveries.by_id", text).unwrap();
        let order = &answer["orders"][0]["order"];
        assert_eq!(order["sum"], Value::Null);
        assert_eq!(order["items"][0]["price"], json!("12.5"));
        assert_eq!(order["items"][1]["price"], json!(true));
        // Without the table's type, as serde_json reads it.
        let same: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            answer_with_amounts_as_text("no.such.operation", text).unwrap(),
            same
        );
    }

    fn order(order: Value) -> Value {
        json!({
            "organizationId": "7f2c6b2e-0000-4000-8000-000000000001",
            "terminalGroupId": "7f2c6b2e-0000-4000-8000-000000000002",
            "order": order,
        })
    }

    fn item(extra: Value) -> Value {
        let mut item = json!({"type": "Product", "productId": "7f2c6b2e-0000-4000-8000-000000000003", "amount": 2, "price": 10});
        item.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        item
    }

    #[test]
    fn a_key_that_is_no_field_is_refused_with_its_path_and_the_nearest_field() {
        let strict = RequestKeys::default();
        let refused = |request: Value| request_err("deliveries.create", request, strict);
        // At the top, nested, in a list item, and in a union's variant.
        let e = refused(json!({"organisationId": "x", "order": {}}));
        assert!(
            e.contains(
                "organisationId: not a field of CreateOrderRequest; did you mean organizationId?"
            ),
            "{e}"
        );
        let e = refused(order(
            json!({"phone": "+79990001122", "items": [item(json!({}))], "delivery_point": {}}),
        ));
        assert!(
            e.contains(
                "order.delivery_point: not a field of DeliveryOrder; did you mean deliveryPoint?"
            ),
            "{e}"
        );
        assert!(
            e.contains("allows unknown fields"),
            "the way out is named: {e}"
        );
        let e = refused(order(
            json!({"phone": "+79990001122", "items": [item(json!({})), item(json!({"coment": "x"}))]}),
        ));
        assert!(
            e.contains(
                "order.items[1].coment: not a field of ProductOrderItem; did you mean comment?"
            ),
            "{e}"
        );
        let e = refused(order(
            json!({"phone": "+79990001122", "items": [item(json!({"product_id": "p"}))]}),
        ));
        assert!(e.contains("order.items[0].product_id: not a field of ProductOrderItem; did you mean productId?"), "{e}");
        // Far from every field: no guess.
        let e = refused(order(
            json!({"phone": "+79990001122", "items": [item(json!({}))], "zzzzzzzz": 1}),
        ));
        assert!(
            e.contains("order.zzzzzzzz: not a field of DeliveryOrder ("),
            "{e}"
        );
        // A known variant in other letters is a slip; an unheard one is news,
        // but its keys must still be some variant's.
        let e = refused(order(
            json!({"phone": "+79990001122", "items": [{"type": "product", "productId": "p", "amount": 1}]}),
        ));
        assert!(e.contains("order.items[0].type: \"product\" is no variant of OrderItem; did you mean \"Product\"?"), "{e}");
        let news = order(
            json!({"phone": "+79990001122", "items": [{"type": "Gift", "productId": "p", "amount": 1}]}),
        );
        request("deliveries.create", news, strict).expect("an unheard variant with known keys");
        let e = refused(order(
            json!({"phone": "+79990001122", "items": [{"type": "Gift", "giftId": "p"}]}),
        ));
        assert!(
            e.contains("order.items[0].giftId: not a field of OrderItem"),
            "{e}"
        );
        // An operation that takes no body takes no key either.
        let e = request_err("tips_types", json!({"x": 1}), strict);
        assert!(e.contains("x: tips_types takes no fields"), "{e}");
    }

    fn request_err(name: &str, request: Value, keys: RequestKeys) -> String {
        match super::request(name, request.clone(), keys) {
            Ok(sent) => panic!("{name}: {request} was accepted as {sent}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn unknown_keys_go_out_as_given_only_when_the_call_allows_them() {
        let keys = RequestKeys::default().allowing_unknown(true);
        let sent = request(
            "deliveries.create",
            order(json!({"phone": "+79990001122", "items": [item(json!({"newerField": [1]}))], "newerToo": true})),
            keys,
        )
        .unwrap();
        assert_eq!(sent["order"]["newerToo"], json!(true));
        assert_eq!(sent["order"]["items"][0]["newerField"], json!([1]));
        // Two spellings of one field are refused even then.
        let both = order(
            json!({"phone": "+79990001122", "items": [item(json!({}))], "completeBefore": "2026-01-01 10:00:00.000", "complete_before": "2026-01-01 11:00:00.000"}),
        );
        let e = request_err("deliveries.create", both, keys.with_snake_case(true));
        assert!(
            e.contains("order.complete_before: the same field as completeBefore; give it once"),
            "{e}"
        );
    }

    #[test]
    fn snake_case_keys_are_sent_under_the_document_names_when_the_call_takes_them() {
        let keys = RequestKeys::default().with_snake_case(true);
        let given = json!({
            "organization_id": "7f2c6b2e-0000-4000-8000-000000000001",
            "terminal_group_id": "7f2c6b2e-0000-4000-8000-000000000002",
            "order": {
                "phone": "+79990001122",
                "order_service_type": "DeliveryByCourier",
                "complete_before": "2026-01-01 10:00:00.000",
                "items": [{"type": "Product", "product_id": "7f2c6b2e-0000-4000-8000-000000000003", "amount": 2, "price": 349.5}],
                "payments": [{"payment_type_kind": "Cash", "sum": 699, "payment_type_id": "7f2c6b2e-0000-4000-8000-000000000004"}],
            }
        });
        let sent = request("deliveries.create", given, keys).unwrap();
        let wire = json!({
            "organizationId": "7f2c6b2e-0000-4000-8000-000000000001",
            "terminalGroupId": "7f2c6b2e-0000-4000-8000-000000000002",
            "order": {
                "phone": "+79990001122",
                "orderServiceType": "DeliveryByCourier",
                "completeBefore": "2026-01-01 10:00:00.000",
                "items": [{"type": "Product", "productId": "7f2c6b2e-0000-4000-8000-000000000003", "amount": 2, "price": 349.5}],
                "payments": [{"paymentTypeKind": "Cash", "sum": 699, "paymentTypeId": "7f2c6b2e-0000-4000-8000-000000000004"}],
            }
        });
        let mut expected = request("deliveries.create", wire, RequestKeys::default()).unwrap();
        assert_eq!(sent, expected);
        // Checked as the wire names are: the rules see the renamed keys.
        let e = request_err(
            "deliveries.create",
            json!({"organization_id": "not-a-uuid", "order": {"phone": "+7", "items": []}}),
            keys,
        );
        assert!(e.contains("organizationId: must be a UUID"), "{e}");
        // Without the option, the snake spelling is no field.
        expected["order"]["items"][0]["product_id"] =
            expected["order"]["items"][0]["productId"].take();
        let e = request_err("deliveries.create", expected, RequestKeys::default());
        assert!(e.contains("order.items[0].product_id: not a field of ProductOrderItem; did you mean productId?"), "{e}");
    }

    #[test]
    fn a_request_of_the_wrong_shape_names_the_operation_and_the_path() {
        let strict = RequestKeys::default();
        let e = request("stop_lists", json!([1]), strict)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("stop_lists: the request must be a JSON object, got a list"),
            "{e}"
        );
        let e = request("stop_lists", json!({"organizationIds": "x"}), strict)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("stop_lists: the request does not fit: organizationIds: must be a list, got a string"),
            "{e}"
        );
        let e = request(
            "deliveries.create",
            json!({"organizationId": crate::api::new_order_id(), "order": {"phone": "+79990000000", "items": [], "deliveryPoint": 7}}),
            strict,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("order.deliveryPoint: must be an object, got a number"),
            "{e}"
        );
    }
}
