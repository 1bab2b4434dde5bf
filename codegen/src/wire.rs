//! `src/api/wire.json`: what the core's by-name calls need of the snapshot,
//! as data instead of code. Every binding reaches the operations through
//! one entry point (`iikocloud::api::call_operation`), which checks a request
//! against these rules and hands the answer's text through; compiling a
//! typed reader and writer of every request and answer into it made the C
//! library twice its size budget.
//!
//! It holds, for each operation, its request type and its answer type, and
//! the schemas they reach: every field of a request's schemas (for the type
//! checks and the rules the typed `Validate` makes), and of the schemas only
//! answers reach, just the fields that lead to an amount (for answers with
//! amounts as text). A type is one of
//!
//! ```text
//! {"t":"str", "format":?, "min":?, "max":?, "enum":?, "secret":?}
//! {"t":"int", "min":?, "max":?}   {"t":"num", "min":?, "max":?}   (bounds as text)
//! {"t":"bool"}  {"t":"any"}  {"t":"list","of":T}  {"t":"map","of":T}  {"t":"ref","to":N}
//! ```
//!
//! and a schema `{"k":"obj","fields":[…]}`, `{"k":"union","tag":…,"variants":{…}}`,
//! `{"k":"enum"}` or `{"k":"int_enum"}`, referred to by its index. The rules
//! are the ones [`crate::rust`]'s `field_checks` writes as code, field for
//! field; a unit test of the core compares both on every operation.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::names::{attr_names, snake};
use crate::spec::{is_secret, Spec};

/// Schemas reached from `roots` through fields, list items, map values and
/// union variants.
fn closure<'a>(spec: &Spec<'a>, roots: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<String> = roots.into_iter().collect();
    while let Some(name) = stack.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Ok(s) = spec.schema(&name) else { continue };
        if s["kind"] == "union" {
            for v in s["variants"].as_object().into_iter().flatten() {
                stack.extend(v.1.as_str().map(str::to_string));
            }
            continue;
        }
        for f in spec.fields(&name).unwrap_or_default() {
            refs_of(&f["type"], &mut stack);
        }
    }
    seen
}

fn refs_of(t: &Value, out: &mut Vec<String>) {
    if let Some(r) = t["ref"].as_str() {
        out.push(r.to_string());
    }
    for k in ["items", "values"] {
        if let Some(inner) = t.get(k) {
            refs_of(inner, out);
        }
    }
}

/// Which schemas can hold an amount somewhere below them.
fn money_reach(spec: &Spec<'_>, names: &BTreeSet<String>) -> BTreeSet<String> {
    let mut reach = BTreeSet::new();
    // Grow the set until nothing changes (schemas refer to themselves).
    loop {
        let before = reach.len();
        for name in names {
            if reach.contains(name) {
                continue;
            }
            let Ok(s) = spec.schema(name) else { continue };
            let holds = if s["kind"] == "union" {
                s["variants"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .any(|(_, v)| v.as_str().is_some_and(|v| reach.contains(v)))
            } else {
                spec.fields(name)
                    .unwrap_or_default()
                    .iter()
                    .any(|f| type_reaches_money(&f["type"], &reach))
            };
            if holds {
                reach.insert(name.clone());
            }
        }
        if reach.len() == before {
            return reach;
        }
    }
}

fn type_reaches_money(t: &Value, reach: &BTreeSet<String>) -> bool {
    if t["type"] == "number" {
        return true;
    }
    if let Some(r) = t["ref"].as_str() {
        return reach.contains(r);
    }
    ["items", "values"].iter().any(|k| {
        t.get(*k)
            .is_some_and(|inner| type_reaches_money(inner, reach))
    })
}

/// A snapshot type in the table's form.
fn ty(t: &Value, index: &BTreeMap<String, usize>, secret: bool) -> Value {
    if let Some(r) = t["ref"].as_str() {
        return match index.get(r) {
            Some(&n) => json!({"t": "ref", "to": n}),
            // Not in the table: an answer-only schema without amounts.
            None => json!({"t": "any"}),
        };
    }
    let bound = |k: &str| t.get(k).filter(|b| b.is_number()).map(Value::to_string);
    let mut out = Map::new();
    let kind = match t["type"].as_str().unwrap_or("any") {
        "string" => {
            if secret {
                out.insert("secret".into(), json!(true));
            } else if let Some(f) = t["format"].as_str() {
                if matches!(f, "uuid" | "local-date-time") {
                    out.insert("format".into(), json!(f));
                }
            }
            for k in ["minLength", "maxLength"] {
                if let Some(n) = t[k].as_u64() {
                    out.insert(
                        if k == "minLength" { "min" } else { "max" }.into(),
                        json!(n),
                    );
                }
            }
            if let (Some(values), false) = (t["enum"].as_array(), secret) {
                out.insert("enum".into(), Value::Array(values.clone()));
            }
            "str"
        }
        k @ ("integer" | "number") => {
            for (from, to) in [("minimum", "min"), ("maximum", "max")] {
                if let Some(b) = bound(from) {
                    out.insert(to.into(), json!(b));
                }
            }
            if k == "integer" {
                "int"
            } else {
                "num"
            }
        }
        "boolean" => "bool",
        "array" => {
            out.insert("of".into(), ty(&t["items"], index, false));
            "list"
        }
        "map" => {
            out.insert("of".into(), ty(&t["values"], index, false));
            "map"
        }
        _ => "any",
    };
    let mut typed = Map::from_iter([("t".to_string(), json!(kind))]);
    typed.extend(out);
    Value::Object(typed)
}

/// One field: its type, whether it must be set (`required`), whether an
/// unset one goes out as `null` (`write_null`: the document lists it as
/// required), the project's own checks (`spec/rules.json`), and its
/// snake-case spelling (`s`, the Python attribute's name) when it differs.
fn field(f: &Value, snake: &str, index: &BTreeMap<String, usize>) -> Value {
    let mut out = Map::new();
    out.insert("n".into(), f["name"].clone());
    if f["name"].as_str() != Some(snake) {
        out.insert("s".into(), json!(snake));
    }
    out.insert("t".into(), ty(&f["type"], index, is_secret(f)));
    if f["required"] == true && f["nullable"] != true {
        out.insert("required".into(), json!(true));
    }
    if f["required"] == true {
        out.insert("write_null".into(), json!(true));
    }
    let checks = &f["project_checks"];
    if let Some(n) = checks["min_items"].as_u64() {
        out.insert("min_items".into(), json!(n));
    }
    if checks["not_blank"] == true {
        out.insert("not_blank".into(), json!(true));
    }
    if checks["format"] == "http-url" {
        out.insert("http_url".into(), json!(true));
    }
    Value::Object(out)
}

fn schema(
    spec: &Spec<'_>,
    name: &str,
    index: &BTreeMap<String, usize>,
    whole: bool,
    money: &BTreeSet<String>,
) -> Result<Value, String> {
    let s = spec.schema(name)?;
    Ok(match s["kind"].as_str().unwrap_or("object") {
        "enum" => json!({"name": name, "k": "enum"}),
        "int_enum" => json!({"name": name, "k": "int_enum"}),
        "union" => {
            let variants: Map<String, Value> = s["variants"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(value, target)| {
                    let n = *index.get(target.as_str()?)?;
                    Some((value.clone(), json!(n)))
                })
                .collect();
            let tag = s["discriminator"].as_str().unwrap_or("type");
            let mut out = json!({
                "name": name,
                "k": "union",
                "tag": tag,
                "variants": variants,
            });
            let tag_snake = snake(tag);
            if tag_snake != tag {
                out["tag_s"] = json!(tag_snake);
            }
            out
        }
        _ => {
            // A union's variant struct leaves out the discriminator: the
            // union writes it.
            let tags: Vec<String> = s["inherited_discriminators"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect();
            let all = spec.fields(name)?;
            // Named over all the fields, as the Python model names them.
            let snakes = attr_names(&all);
            let fields: Vec<Value> = all
                .iter()
                .zip(&snakes)
                .filter(|(f, _)| !tags.iter().any(|t| f["name"].as_str() == Some(t)))
                .filter(|(f, _)| whole || type_reaches_money(&f["type"], money))
                .map(|(f, s)| field(f, s, index))
                .collect();
            let mut out = json!({"name": name, "k": "obj", "fields": fields});
            if !tags.is_empty() {
                // Keys of a request all the same: the variant may be used
                // alone, its discriminator written by the caller.
                out["tags"] = json!(tags);
            }
            out
        }
    })
}

/// The operation's request or answer type, when it has one.
fn op_type(t: &Value, index: &BTreeMap<String, usize>) -> Option<Value> {
    t.as_object()?;
    Some(ty(t, index, false))
}

pub fn generate(snapshot: &Value) -> Result<String, String> {
    let schemas = snapshot["schemas"]
        .as_object()
        .ok_or("no \"schemas\" object")?;
    let operations = snapshot["operations"]
        .as_array()
        .ok_or("no \"operations\" array")?;
    let spec = &Spec { schemas };
    let roots = |key: &str| -> Vec<String> {
        let mut out = Vec::new();
        for op in operations {
            refs_of(&op[key], &mut out);
        }
        out
    };
    let requests = closure(spec, roots("request"));
    let answers = closure(spec, roots("response"));
    let money = money_reach(spec, &answers);
    // Answer-only schemas without an amount below them are left out.
    let listed: BTreeSet<&String> = requests
        .iter()
        .chain(answers.iter().filter(|n| money.contains(*n)))
        .collect();
    let index: BTreeMap<String, usize> = listed
        .iter()
        .enumerate()
        .map(|(i, n)| ((*n).clone(), i))
        .collect();

    let mut out = String::from(
        "{\"about\":\"@generated by `cargo run -p iikocloud-codegen` from spec/operations.json: the request rules and the amounts of answers that src/api/wire.rs applies to calls by name. Do not edit.\",\n\"operations\":{\n",
    );
    let mut sorted: Vec<&Value> = operations.iter().collect();
    sorted.sort_by_key(|op| op["name"].as_str().unwrap_or_default().to_string());
    for (i, op) in sorted.iter().enumerate() {
        let mut entry = Map::new();
        if let Some(t) = op_type(&op["request"], &index) {
            entry.insert("request".into(), t);
        }
        if let Some(t) = op_type(&op["response"], &index) {
            // An answer without amounts needs nothing of the table.
            if type_reaches_money(&op["response"], &money) {
                entry.insert("answer".into(), t);
            }
        }
        let comma = if i + 1 < sorted.len() { "," } else { "" };
        out.push_str(&format!(
            "{}:{}{comma}\n",
            Value::from(op["name"].as_str().unwrap_or_default()),
            Value::Object(entry)
        ));
    }
    out.push_str("},\n\"schemas\":[\n");
    for (i, name) in listed.iter().enumerate() {
        let whole = requests.contains(*name);
        let s = schema(spec, name, &index, whole, &money)?;
        let comma = if i + 1 < listed.len() { "," } else { "" };
        out.push_str(&format!("{s}{comma}\n"));
    }
    out.push_str("]}\n");
    Ok(out)
}
