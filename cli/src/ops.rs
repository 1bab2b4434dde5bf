//! `ops`, `schema` and `call NAME`: every operation of the official document,
//! from the SDK's operation table and the snapshot embedded at build time.

use std::collections::BTreeMap;
use std::io::Read;

use iikocloud::api::{
    call_operation, call_operation_and_wait, operation, OperationCall, OperationInfo, RequestKeys,
    WaitOptions, OPERATIONS,
};
use iikocloud::limits::Given;
use serde_json::{json, Value};

use crate::args::{CallArgs, GlobalOpts, OpsArgs, SchemaArgs};
use crate::exit::{Exit, Failure};
use crate::output::{print_json, table};

/// `spec/operations.json` as this binary was built with it.
const SNAPSHOT: &str = include_str!("../../spec/operations.json");

fn kind(op: &OperationInfo) -> &'static str {
    if op.command {
        "command"
    } else if op.safe_to_retry {
        "read"
    } else {
        "other"
    }
}

/// `ops`.
pub fn list(g: &GlobalOpts, a: &OpsArgs) -> Result<(), Failure> {
    let selected: Vec<&OperationInfo> = OPERATIONS
        .iter()
        .filter(|o| {
            a.filter
                .as_deref()
                .is_none_or(|f| o.name.contains(f) || o.path.contains(f))
        })
        .collect();
    if g.json {
        let rows: Vec<Value> = selected
            .iter()
            .map(|o| {
                json!({
                    "name": o.name, "summary": o.summary, "method": o.method, "path": o.path,
                    "kind": kind(o), "command": o.command, "safeToRetry": o.safe_to_retry,
                    "restrictionGroup": o.restriction_group, "deprecated": o.deprecated,
                })
            })
            .collect();
        print_json(&Value::Array(rows));
        return Ok(());
    }
    let rows: Vec<Vec<String>> = selected
        .iter()
        .map(|o| {
            let mut name = o.name.to_string();
            if o.deprecated {
                name.push_str(" (deprecated)");
            }
            let mut row = vec![
                name,
                o.path.to_string(),
                kind(o).to_string(),
                o.restriction_group.unwrap_or("-").to_string(),
            ];
            if a.long {
                row.push(o.summary.to_string());
            }
            row
        })
        .collect();
    let mut headers = vec!["NAME", "PATH", "KIND", "RESTRICTION GROUP"];
    if a.long {
        headers.push("SUMMARY");
    }
    println!("{}", table(&headers, &rows));
    Ok(())
}

fn snapshot() -> Result<Value, Failure> {
    serde_json::from_str(SNAPSHOT)
        .map_err(|e| Failure::failed(format!("the embedded snapshot is unreadable: {e}")))
}

fn find_op<'a>(spec: &'a Value, name: &str) -> Result<&'a Value, Failure> {
    spec["operations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["name"] == name)
        .ok_or_else(|| unknown(name))
}

fn unknown(name: &str) -> Failure {
    // Names that extend what was typed first, then the rest of its group.
    let group = |n: &str| n.split('.').next() == name.split('.').next();
    let mut near: Vec<&str> = OPERATIONS
        .iter()
        .map(|o| o.name)
        .filter(|n| n.starts_with(name) || group(n))
        .collect();
    near.sort_by_key(|n| !n.starts_with(name));
    near.truncate(8);
    let hint = if near.is_empty() {
        "`iikocloud ops` lists them".to_string()
    } else {
        format!("did you mean one of: {}", near.join(", "))
    };
    Failure::new(Exit::Usage, format!("no operation named {name:?}; {hint}"))
}

/// Every schema the request of `op` reaches, by name.
fn reachable(spec: &Value, root: &str, out: &mut BTreeMap<String, Value>) {
    if out.contains_key(root) {
        return;
    }
    let Some(schema) = spec["schemas"].get(root) else {
        return;
    };
    out.insert(root.to_string(), schema.clone());
    let mut refs = Vec::new();
    collect_refs(schema, &mut refs);
    for r in refs {
        reachable(spec, &r, out);
    }
}

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("ref", Value::String(r)) => out.push(r.clone()),
                    ("variants", Value::Object(vs)) => {
                        out.extend(vs.values().filter_map(|r| r.as_str().map(str::to_owned)))
                    }
                    _ => collect_refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_refs(i, out)),
        _ => {}
    }
}

/// One line of a type: `uuid`, `string (1..255)`, `[Product]`, `Money`.
fn type_text(t: &Value) -> String {
    if let Some(r) = t["ref"].as_str() {
        return r.to_string();
    }
    let base = t["type"].as_str().unwrap_or("any");
    let mut s = match (base, t["format"].as_str()) {
        ("array", _) => format!("[{}]", type_text(&t["items"])),
        ("number", _) => "decimal".to_string(),
        (_, Some(f)) => f.to_string(),
        (b, None) => b.to_string(),
    };
    if let Some(values) = t["enum"].as_array() {
        let v: Vec<String> = values.iter().map(Value::to_string).collect();
        s = v.join(" | ");
    }
    let (min_len, max_len) = (t["minLength"].as_u64(), t["maxLength"].as_u64());
    if min_len.is_some() || max_len.is_some() {
        s.push_str(&format!(
            " (length {}..{})",
            min_len.unwrap_or(0),
            max_len.map_or(String::new(), |m| m.to_string())
        ));
    }
    if t.get("minimum").is_some() || t.get("maximum").is_some() {
        s.push_str(&format!(" (range {}..{})", t["minimum"], t["maximum"]).replace("null", ""));
    }
    s
}

/// Writes a schema as an indented outline, expanding each schema the first
/// time it appears on the way down (recursive shapes stop at their name).
fn outline(spec: &Value, name: &str, indent: usize, stack: &mut Vec<String>, out: &mut String) {
    let pad = "  ".repeat(indent);
    let Some(schema) = spec["schemas"].get(name) else {
        return;
    };
    if stack.iter().any(|s| s == name) {
        out.push_str(&format!("{pad}(recursive: {name})\n"));
        return;
    }
    stack.push(name.to_string());
    match schema["kind"].as_str() {
        Some("enum") | Some("int_enum") => {
            let v: Vec<String> = schema["values"]
                .as_array()
                .into_iter()
                .flatten()
                .map(Value::to_string)
                .collect();
            out.push_str(&format!("{pad}one of {}\n", v.join(", ")));
        }
        Some(k) => {
            for f in schema["fields"].as_array().into_iter().flatten() {
                let t = &f["type"];
                let required = if f["required"] == true {
                    ", required"
                } else {
                    ""
                };
                let nullable = if f["nullable"] == true {
                    ", nullable"
                } else {
                    ""
                };
                out.push_str(&format!(
                    "{pad}{}: {}{required}{nullable}\n",
                    f["name"].as_str().unwrap_or("?"),
                    type_text(t)
                ));
                let inner = t["ref"].as_str().or(t["items"]["ref"].as_str());
                if let Some(inner) = inner {
                    outline(spec, inner, indent + 1, stack, out);
                }
            }
            if k == "union" {
                let tag = schema["discriminator"].as_str().unwrap_or("type");
                for (value, variant) in schema["variants"].as_object().into_iter().flatten() {
                    out.push_str(&format!(
                        "{pad}when {tag} = {value:?}: {}\n",
                        variant.as_str().unwrap_or("?")
                    ));
                    if let Some(v) = variant.as_str() {
                        outline(spec, v, indent + 1, stack, out);
                    }
                }
            }
        }
        None => {}
    }
    stack.pop();
}

/// `schema NAME`.
pub fn schema(g: &GlobalOpts, a: &SchemaArgs) -> Result<(), Failure> {
    let spec = snapshot()?;
    let op = find_op(&spec, &a.name)?;
    let request = op["request"]["ref"].as_str();
    if g.json {
        let mut schemas = BTreeMap::new();
        if let Some(r) = request {
            reachable(&spec, r, &mut schemas);
        }
        print_json(&json!({"operation": op, "schemas": schemas}));
        return Ok(());
    }
    let info = operation(&a.name).ok_or_else(|| unknown(&a.name))?;
    println!("{}", info.summary);
    println!("{} {}  ({})", info.method, info.path, kind(info));
    if let Some(g) = info.restriction_group {
        println!("restriction group: {g}");
    }
    match request {
        None => println!("request: {{}} (no body)"),
        Some(r) => {
            println!("request: {r}");
            let mut out = String::new();
            outline(&spec, r, 1, &mut Vec::new(), &mut out);
            print!("{out}");
        }
    }
    if let Some(r) = op["response"]["ref"].as_str() {
        println!(
            "answer: {r} (`iikocloud schema --json {}` lists every shape)",
            a.name
        );
    }
    Ok(())
}

/// Reads a request given as `@FILE`, `-` (stdin), a path to a file, or JSON text.
pub fn read_request(arg: Option<&str>) -> Result<String, Failure> {
    let from_file = |path: &str| {
        std::fs::read_to_string(path)
            .map_err(|e| Failure::input(format!("cannot read the request from {path}: {e}")))
    };
    match arg {
        None => Ok("{}".to_owned()),
        Some("-") => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| Failure::input(format!("cannot read the request from stdin: {e}")))?;
            Ok(s)
        }
        Some(s) if s.starts_with('@') => from_file(&s[1..]),
        Some(s) if !s.trim_start().starts_with(['{', '[']) && std::path::Path::new(s).is_file() => {
            from_file(s)
        }
        Some(s) => Ok(s.to_owned()),
    }
}

/// `call NAME [REQUEST]`: the operation checked, sent and its answer printed.
pub fn call(client: &iikocloud::Client, a: &CallArgs, text: &str) -> Result<Value, Failure> {
    let name = a.path.as_str();
    if operation(name).is_none() {
        return Err(unknown(name));
    }
    // The request is not quoted in the message: it may hold personal data.
    let request: Value = serde_json::from_str(text)
        .map_err(|e| Failure::input(format!("the request is not valid JSON: {e}")))?;
    let options = OperationCall {
        keys: RequestKeys::default().allowing_unknown(a.allow_unknown_fields),
        ..Default::default()
    };
    if a.wait {
        let wait = WaitOptions::read(Given::Seconds(a.wait_timeout), Given::Absent, Given::Absent)?;
        Ok(call_operation_and_wait(
            client, name, &request, &options, &wait,
        )?)
    } else {
        Ok(call_operation(client, name, &request, &options)?)
    }
}
