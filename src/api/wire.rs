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

use serde::Deserialize;
use serde_json::{Map, Value};

use super::validate::{Validator, LISTED};
use crate::webhook::LocalTime;
use crate::{Error, Money, Result};

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
        fields: Vec<Field>,
    },
    Union {
        tag: String,
        variants: HashMap<String, usize>,
    },
    Enum,
    IntEnum,
}

#[derive(Deserialize)]
struct Field {
    #[serde(rename = "n")]
    name: String,
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
/// path would send. A value of the wrong type, or a rule broken, is
/// [`Error::InvalidInput`] naming the field path.
pub(crate) fn request(name: &str, mut request: Value) -> Result<Value> {
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
        v: Validator::default(),
        mistyped: Vec::new(),
    };
    match &types.request {
        // The typed path reads any object and sends `{}`.
        None => obj.clear(),
        Some(Ty::Ref { to }) => walk.object_or_union(*to, obj, true),
        Some(_) => {}
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

/// Writes every amount of an answer of operation `name` as a JSON string
/// (`"1250.5"`), for hosts whose JSON reader turns numbers into doubles. An
/// answer whose schema holds no amount is left as it is.
pub(crate) fn amounts_as_text(name: &str, answer: &mut Value) -> Result<()> {
    let table = table()?;
    if let Some(t) = table.operations.get(name).and_then(|o| o.answer.as_ref()) {
        amounts(table, t, answer);
    }
    Ok(())
}

fn amounts(table: &Table, t: &Ty, x: &mut Value) {
    match t {
        Ty::Num { .. } if x.is_number() => {
            if let Ok(m) = Money::deserialize(&*x) {
                *x = Value::String(m.to_string());
            }
        }
        Ty::List { of } => {
            for item in x.as_array_mut().into_iter().flatten() {
                amounts(table, of, item);
            }
        }
        Ty::Map { of } => {
            for item in x.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
                amounts(table, of, item);
            }
        }
        Ty::Ref { to } => match table.schemas.get(*to) {
            Some(Schema::Obj { fields }) => {
                if let Some(obj) = x.as_object_mut() {
                    for f in fields {
                        if let Some(v) = obj.get_mut(&f.name) {
                            amounts(table, &f.ty, v);
                        }
                    }
                }
            }
            Some(Schema::Union { tag, variants }) => {
                if let Some(to) = x.as_object().and_then(|obj| variant(tag, variants, obj)) {
                    amounts(table, &Ty::Ref { to }, x);
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// One pass over a request: type problems (what reading it into the typed
/// model would refuse) apart from rule problems (what `Validate` would).
struct Walk<'t> {
    table: &'t Table,
    v: Validator,
    mistyped: Vec<String>,
}

impl Walk<'_> {
    fn mistyped(&mut self, field: &str, what: &str, got: &Value) {
        let at = self.v.at(field);
        self.mistyped
            .push(format!("{at}: must be {what}, got {}", kind_of(got)));
    }

    /// The fields of object schema `to` (or of the variant a union's
    /// discriminator chooses) in `obj`, at the validator's current path.
    fn object_or_union(&mut self, to: usize, obj: &mut Map<String, Value>, rules: bool) {
        match self.table.schemas.get(to) {
            Some(Schema::Obj { fields }) => {
                for f in fields {
                    self.field(f, obj, rules);
                }
            }
            Some(Schema::Union { tag, variants }) => {
                // An unknown or missing discriminator: kept as sent, unchecked.
                if let Some(chosen) = variant(tag, variants, obj) {
                    self.object_or_union(chosen, obj, rules);
                }
            }
            _ => {}
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
                        self.object_or_union(*to, obj, rules);
                        self.v.leave();
                    }
                }
                Some(Schema::Obj { .. }) => {
                    let Some(obj) = x.as_object_mut() else {
                        return self.mistyped(field, "an object", x);
                    };
                    self.v.enter(field);
                    self.object_or_union(*to, obj, rules);
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
                Schema::Union { tag, variants } => {
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
                Schema::Obj { fields } => {
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
        let (mut fitting, mut refused, mut mistyped) = (0, 0, 0);
        for op in super::super::OPERATIONS.iter() {
            let types = &table.operations[op.name];
            for _ in 0..60 {
                let request = match &types.request {
                    Some(t) => maker.value(t, 0),
                    None => json!({"ignored": 1}),
                };
                let by_rules = super::request(op.name, request.clone());
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
        eprintln!("{fitting} fitting, {refused} refused, {mistyped} mistyped");
        assert!(
            fitting > 3000 && refused > 3000 && mistyped > 1000,
            "{fitting} {refused} {mistyped}"
        );
    }

    #[test]
    fn answers_get_amounts_as_text_where_the_schema_has_amounts() {
        let mut answer = json!({
            "orders": [{"id": "x", "order": {"sum": 12345678901234.56, "items": [
                {"type": "Product", "amount": 2, "price": 0.1, "resultSum": 1250.5, "productId": "p"}
            ], "phone": "+7", "number": 17}}],
            "correlationId": "c",
            "maxRevision": 4
        });
        amounts_as_text("deliveries.by_id", &mut answer).unwrap();
        let order = &answer["orders"][0]["order"];
        assert_eq!(order["sum"], json!("12345678901234.56"));
        assert_eq!(order["items"][0]["price"], json!("0.1"));
        assert_eq!(order["items"][0]["resultSum"], json!("1250.5"));
        // Not amounts: left as numbers.
        assert_eq!(order["number"], json!(17));
        assert_eq!(answer["maxRevision"], json!(4));
    }

    #[test]
    fn a_request_of_the_wrong_shape_names_the_operation_and_the_path() {
        let e = request("stop_lists", json!([1])).unwrap_err().to_string();
        assert!(
            e.contains("stop_lists: the request must be a JSON object, got a list"),
            "{e}"
        );
        let e = request("stop_lists", json!({"organizationIds": "x"}))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("stop_lists: the request does not fit: organizationIds: must be a list, got a string"),
            "{e}"
        );
        let e = request(
            "deliveries.create",
            json!({"organizationId": crate::api::new_order_id(), "order": {"phone": "+79990000000", "items": [], "deliveryPoint": 7}}),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("order.deliveryPoint: must be an object, got a number"),
            "{e}"
        );
    }
}
