//! Every operation of the snapshot (`spec/operations.json`) that has no
//! handler of its own: the request is checked against its schema (400 naming
//! the offending field, as the service does) and the answer is made up from
//! the response schema, deterministically, so it fits the document.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{json, Map, Value};

static SNAPSHOT: &str = include_str!("../../spec/operations.json");

/// The id an example request gives fields that name a command.
const EXAMPLE_ID: &str = "00000000-0000-4000-8000-000000000000";

/// Objects nested deeper than this get only their required fields, and
/// lists deeper than this are empty: the schemas refer to themselves.
const FULL_DEPTH: usize = 4;
const MAX_DEPTH: usize = 12;

pub(crate) struct Catalogue {
    by_path: HashMap<String, Value>,
    schemas: Map<String, Value>,
}

/// The parsed snapshot, read once.
pub(crate) fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut spec: Value =
            serde_json::from_str(SNAPSHOT).expect("spec/operations.json is valid JSON");
        let schemas = match spec["schemas"].take() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let mut by_path = HashMap::new();
        if let Value::Array(ops) = spec["operations"].take() {
            for op in ops {
                if op["method"] == "POST" {
                    if let Some(p) = op["path"].as_str() {
                        by_path.insert(p.to_string(), op);
                    }
                }
            }
        }
        Catalogue { by_path, schemas }
    })
}

impl Catalogue {
    /// The POST operation at `path`.
    pub(crate) fn operation(&self, path: &str) -> Option<&Value> {
        self.by_path.get(path)
    }

    /// Fields of an object or union schema, inherited ones included (the
    /// snapshot resolves inheritance).
    fn fields(&self, name: &str) -> Vec<&Value> {
        self.schemas
            .get(name)
            .and_then(|s| s["fields"].as_array())
            .map(|fields| fields.iter().collect())
            .unwrap_or_default()
    }

    /// The schema of the items of the array field `field` of the operation's
    /// answer (`items` of a list answer).
    pub(crate) fn item_schema(&self, op: &Value, field: &str) -> Option<String> {
        let answer = op["response"]["ref"].as_str()?;
        if !self.schemas.contains_key(answer) {
            return None;
        }
        let f = self
            .fields(answer)
            .into_iter()
            .find(|f| f["name"] == field)?;
        f["type"]["items"]["ref"].as_str().map(str::to_string)
    }

    /// Names of the fields of a schema, inherited ones included.
    pub(crate) fn field_names(&self, name: &str) -> Vec<String> {
        if !self.schemas.contains_key(name) {
            return Vec::new();
        }
        self.fields(name)
            .into_iter()
            .filter_map(|f| f["name"].as_str().map(str::to_string))
            .collect()
    }

    /// The fields of a schema, inherited ones included, as the snapshot
    /// describes them (`name`, `type`, `required`, `nullable`).
    pub(crate) fn field_specs(&self, name: &str) -> Vec<Value> {
        if !self.schemas.contains_key(name) {
            return Vec::new();
        }
        self.fields(name).into_iter().cloned().collect()
    }

    /// Whether the operation's success answer has no declared shape: the
    /// snapshot writes `any` (without `one_of`) both for a status declared
    /// with no content and for content without a schema. The documents have
    /// only the first (`deliveries/update_tracking_link`); the contract walk
    /// fails the second, so it cannot creep in unnoticed.
    pub(crate) fn answers_nothing(&self, op: &Value) -> bool {
        op["response"]["type"] == "any" && op["response"].get("one_of").is_none()
    }

    /// Whether the snapshot has a schema of this name.
    #[cfg(test)]
    pub(crate) fn has_schema(&self, name: &str) -> bool {
        self.schemas.contains_key(name)
    }

    // ------------------------------------------------------------ checks

    /// Checks a value against a named schema (fixture data in its answer
    /// shape); the error names the path below `at`.
    pub(crate) fn check_value(&self, schema: &str, v: &Value, at: &str) -> Result<(), String> {
        self.check_named(schema, v, at)
    }

    /// Checks the value of one field of a schema against its type (null
    /// where the field may be null or left out).
    pub(crate) fn check_field(&self, schema: &str, field: &str, v: &Value) -> Result<(), String> {
        let fields = self.fields(schema);
        let Some(spec) = fields.iter().find(|f| f["name"] == field) else {
            return Err(format!("{field}: is not a field of {schema}"));
        };
        if v.is_null() {
            return if spec["nullable"] == true || spec["required"] != true {
                Ok(())
            } else {
                Err(format!("{field}: is required"))
            };
        }
        self.check(&spec["type"], v, field)
    }

    /// Checks a request body against the operation's request schema; the
    /// error names the field path (`order.items[0].productId: ...`).
    pub(crate) fn check_request(&self, op: &Value, body: &Value) -> Result<(), String> {
        match op.get("request").filter(|r| !r.is_null()) {
            Some(t) => self.check(t, body, ""),
            None => Ok(()),
        }
    }

    fn check(&self, t: &Value, v: &Value, at: &str) -> Result<(), String> {
        let here = |what: String| {
            if at.is_empty() {
                what
            } else {
                format!("{at}: {what}")
            }
        };
        if let Some(r) = t["ref"].as_str() {
            return self.check_named(r, v, at);
        }
        match t["type"].as_str().unwrap_or("any") {
            "string" => {
                let s = v
                    .as_str()
                    .ok_or_else(|| here(format!("must be a string, got {}", kind_of(v))))?;
                if t["format"] == "uuid" && !is_uuid(s) {
                    return Err(here(format!("must be a UUID, got {s:?}")));
                }
                let n = s.chars().count() as u64;
                if let Some(max) = t["maxLength"].as_u64().filter(|&m| n > m) {
                    return Err(here(format!("must be at most {max} characters")));
                }
                if let Some(min) = t["minLength"].as_u64().filter(|&m| n < m) {
                    return Err(here(format!("must be at least {min} characters")));
                }
                if let Some(values) = t["enum"].as_array() {
                    if !values.iter().any(|e| e == v) {
                        return Err(here(format!("{s:?} is not an allowed value")));
                    }
                }
                Ok(())
            }
            "integer" => {
                if !(v.is_i64() || v.is_u64()) {
                    return Err(here(format!("must be an integer, got {}", kind_of(v))));
                }
                check_range(t, v).map_err(here)
            }
            "number" => {
                if !v.is_number() {
                    return Err(here(format!("must be a number, got {}", kind_of(v))));
                }
                check_range(t, v).map_err(here)
            }
            "boolean" => v
                .is_boolean()
                .then_some(())
                .ok_or_else(|| here(format!("must be true or false, got {}", kind_of(v)))),
            "array" => {
                let items = v
                    .as_array()
                    .ok_or_else(|| here(format!("must be a list, got {}", kind_of(v))))?;
                for (i, item) in items.iter().enumerate() {
                    self.check(&t["items"], item, &format!("{at}[{i}]"))?;
                }
                Ok(())
            }
            "map" => v
                .is_object()
                .then_some(())
                .ok_or_else(|| here(format!("must be an object, got {}", kind_of(v)))),
            _ => Ok(()),
        }
    }

    fn check_named(&self, name: &str, v: &Value, at: &str) -> Result<(), String> {
        let Some(schema) = self.schemas.get(name) else {
            return Ok(());
        };
        let join = |field: &str| {
            if at.is_empty() {
                field.to_string()
            } else {
                format!("{at}.{field}")
            }
        };
        match schema["kind"].as_str() {
            Some("int_enum") => {
                let known = schema["values"]
                    .as_array()
                    .is_some_and(|vs| vs.iter().any(|x| x == v));
                if known {
                    Ok(())
                } else {
                    Err(format!("{at}: {v} is not an allowed value"))
                }
            }
            Some("enum") => {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("{at}: must be a string"))?;
                let known = schema["values"]
                    .as_array()
                    .is_some_and(|vs| vs.iter().any(|x| x == s));
                if known {
                    Ok(())
                } else {
                    Err(format!("{at}: {s:?} is not an allowed value"))
                }
            }
            Some("union") => {
                let tag = schema["discriminator"].as_str().unwrap_or("type");
                let value = v.get(tag).and_then(Value::as_str);
                match value.and_then(|t| schema["variants"][t].as_str()) {
                    Some(variant) => self.check_named(variant, v, at),
                    None => Err(format!(
                        "{}: must be one of {}",
                        join(tag),
                        schema["variants"]
                            .as_object()
                            .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
                            .unwrap_or_default()
                    )),
                }
            }
            _ => {
                let obj = v.as_object().ok_or_else(|| {
                    if at.is_empty() {
                        "the body must be a JSON object".to_string()
                    } else {
                        format!("{at}: must be an object, got {}", kind_of(v))
                    }
                })?;
                let fields = self.fields(name);
                for f in &fields {
                    let field = f["name"].as_str().unwrap_or_default();
                    match obj.get(field) {
                        None | Some(Value::Null)
                            if f["required"] == true && f["nullable"] != true =>
                        {
                            return Err(format!("{}: is required", join(field)));
                        }
                        None | Some(Value::Null) => {}
                        Some(x) => self.check(&f["type"], x, &join(field))?,
                    }
                }
                if schema["closed"] == true {
                    if let Some(extra) = obj
                        .keys()
                        .find(|k| !fields.iter().any(|f| f["name"] == k.as_str()))
                    {
                        return Err(format!("{}: is not a field of this request", join(extra)));
                    }
                }
                Ok(())
            }
        }
    }

    // ------------------------------------------------------------ answers

    /// A request that fits the operation's request schema (`{}` when it
    /// takes no body): every required field, and the optional ones near the top.
    pub(crate) fn example_request(&self, op: &Value) -> Value {
        let mut made = Maker {
            cat: self,
            cid: EXAMPLE_ID,
            request: &Value::Null,
            counter: 0,
        };
        match op.get("request").filter(|r| !r.is_null()) {
            Some(t) => made.value(t, 0, ""),
            None => json!({}),
        }
    }

    /// A made-up value of a named schema.
    pub(crate) fn make(&self, schema: &str) -> Value {
        let mut made = Maker {
            cat: self,
            cid: EXAMPLE_ID,
            request: &Value::Null,
            counter: 0,
        };
        made.named(schema, 1)
    }

    /// A made-up answer that fits the operation's response schema.
    pub(crate) fn answer(&self, op: &Value, cid: &str, request: &Value) -> Value {
        let mut made = Maker {
            cat: self,
            cid,
            request,
            counter: 0,
        };
        made.value(&op["response"], 0, "")
    }
}

struct Maker<'a> {
    cat: &'a Catalogue,
    cid: &'a str,
    request: &'a Value,
    counter: u64,
}

impl Maker<'_> {
    fn uuid(&mut self) -> String {
        self.counter += 1;
        // Deterministic, valid version-4 shape.
        let n = self.counter;
        format!("5e1f0000-0000-4000-8000-{n:012x}")
    }

    fn value(&mut self, t: &Value, depth: usize, field: &str) -> Value {
        if let Some(r) = t["ref"].as_str() {
            return self.named(r, depth);
        }
        match t["type"].as_str().unwrap_or("any") {
            "string" => self.string(t, field),
            "integer" => {
                let n = t["minimum"].as_i64().unwrap_or(1);
                json!(t["maximum"].as_i64().map_or(n, |max| n.min(max)))
            }
            "number" => {
                let min = t["minimum"].as_f64();
                let max = t["maximum"].as_f64();
                let v = match (min, max) {
                    (Some(a), Some(b)) => (a + b) / 2.0,
                    (Some(a), None) => a + 1.5,
                    (None, Some(b)) => b.min(1.5),
                    (None, None) => 12.5,
                };
                json!(v)
            }
            "boolean" => json!(false),
            "array" => {
                if depth >= FULL_DEPTH {
                    json!([])
                } else {
                    json!([self.value(&t["items"], depth + 1, field)])
                }
            }
            "map" => json!({}),
            _ => match t["one_of"]
                .as_array()
                .and_then(|v| v.first())
                .and_then(Value::as_str)
            {
                Some(first) => self.named(first, depth),
                None => Value::Null,
            },
        }
    }

    fn string(&mut self, t: &Value, field: &str) -> Value {
        if let Some(first) = t["enum"].as_array().and_then(|e| e.first()) {
            return first.clone();
        }
        // Echo the organization asked about, as the service would; an
        // example request names the fixtures' own (some families type it
        // as a plain string, not a UUID).
        if field == "organizationId" || field == "organizationIds" {
            if let Some(o) = self.request["organizationId"]
                .as_str()
                .or_else(|| self.request["organizationIds"][0].as_str())
            {
                return json!(o);
            }
            return json!(crate::DEFAULT_ORGANIZATION_ID);
        }
        match t["format"].as_str() {
            Some("uuid") => {
                if field == "correlationId" {
                    return json!(self.cid);
                }
                if field == "terminalGroupId"
                    || field == "terminalGroupsIds"
                    || field == "terminalGroupIds"
                {
                    return json!(crate::DEFAULT_TERMINAL_GROUP_ID);
                }
                json!(self.uuid())
            }
            Some("local-date-time") => json!("2026-01-15 12:30:00.000"),
            Some("date-time") => json!("2026-01-15T12:30:00Z"),
            Some("date") => json!("2026-01-15"),
            Some("date-span") => json!("00:30:00"),
            _ if field.ends_with("Uri") || field.ends_with("Url") => {
                json!("http://127.0.0.1:9/hook")
            }
            _ => {
                let min = t["minLength"].as_u64().unwrap_or(0) as usize;
                let max = t["maxLength"].as_u64().map_or(usize::MAX, |m| m as usize);
                let mut s = format!("emulated {field}");
                if s.chars().count() > max {
                    s = "x".repeat(max.max(min));
                }
                while s.chars().count() < min {
                    s.push('x');
                }
                json!(s)
            }
        }
    }

    fn named(&mut self, name: &str, depth: usize) -> Value {
        let Some(schema) = self.cat.schemas.get(name) else {
            return Value::Null;
        };
        match schema["kind"].as_str() {
            Some("enum") | Some("int_enum") => schema["values"]
                .as_array()
                .and_then(|v| v.first())
                .cloned()
                .unwrap_or(Value::Null),
            Some("union") => {
                let tag = schema["discriminator"].as_str().unwrap_or("type");
                let first = schema["variants"]
                    .as_object()
                    .and_then(|m| m.iter().next())
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()));
                match first {
                    Some((value, variant)) => {
                        let mut v = self.named(&variant, depth);
                        if let Value::Object(m) = &mut v {
                            m.insert(tag.to_string(), json!(value));
                        }
                        v
                    }
                    None => self.object(name, depth),
                }
            }
            _ => self.object(name, depth),
        }
    }

    fn object(&mut self, name: &str, depth: usize) -> Value {
        let mut out = Map::new();
        let fields: Vec<Value> = self.cat.fields(name).into_iter().cloned().collect();
        for f in fields {
            let field = f["name"].as_str().unwrap_or_default().to_string();
            let required = f["required"] == true;
            let nullable = f["nullable"] == true;
            if let Some(c) = f["const"].as_str() {
                out.insert(field, json!(c));
                continue;
            }
            let wanted = required || (depth < FULL_DEPTH && !nullable);
            if !wanted {
                continue;
            }
            if depth >= MAX_DEPTH {
                // Past any sensible nesting: null where allowed, else the
                // smallest value of the type.
                if nullable {
                    out.insert(field, Value::Null);
                    continue;
                }
            }
            let v = self.value(&f["type"], depth + 1, &field);
            if v.is_null() && !nullable && f["type"]["type"] != "any" {
                continue;
            }
            out.insert(field, v);
        }
        Value::Object(out)
    }
}

fn check_range(t: &Value, v: &Value) -> Result<(), String> {
    let n = v.as_f64().unwrap_or(0.0);
    if let Some(min) = t["minimum"].as_f64().filter(|&m| n < m) {
        return Err(format!("must be at least {min}"));
    }
    if let Some(max) = t["maximum"].as_f64().filter(|&m| n > m) {
        return Err(format!("must be at most {max}"));
    }
    Ok(())
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

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.chars().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_gets_an_answer_of_its_schema_shape() {
        let cat = catalogue();
        assert!(cat.by_path.len() >= 224, "{}", cat.by_path.len());
        for op in cat.by_path.values() {
            let a = cat.answer(op, "00000000-0000-4000-8000-000000000000", &json!({}));
            if op["response"]["ref"].is_string() {
                assert!(a.is_object(), "{}: {a}", op["name"]);
            }
        }
    }

    #[test]
    fn requests_are_checked_with_field_paths() {
        let cat = catalogue();
        let op = cat.operation("/api/1/deliveries/create").unwrap();
        let e = cat.check_request(op, &json!({})).unwrap_err();
        assert!(e.contains("is required"), "{e}");
        let e = cat
            .check_request(op, &json!({"organizationId": "nope", "order": {}}))
            .unwrap_err();
        assert!(e.contains("organizationId: must be a UUID"), "{e}");
    }
}
