//! The C and C++ surface of the operations: `spec/operation-numbers.json`
//! (the append-only numbering), `bindings/c/src/op_table.rs` (the
//! `IIKO_OP_*` constants cbindgen puts in `include/iikocloud.h`, and the table
//! behind `iiko_operation_*`) and `include/iikocloud_ops.hpp` (`iiko::op::*`).
//!
//! Numbers are never reused or changed: an operation new to the snapshot gets
//! the next free number, one that left it keeps its number as reserved.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::numbering::{numbers_file, numbers_in};

/// One operation as the C surface sees it.
pub struct Op {
    pub number: i64,
    pub name: String,
    /// What it is for, in one line (`spec/operation-summaries.json`).
    pub summary: String,
    pub path: String,
    pub method: String,
    pub restriction_group: Option<String>,
    pub command: bool,
    pub safe_to_retry: bool,
    pub deprecated: bool,
}

/// The numbering: the committed one, extended with the snapshot's new names.
pub fn numbering(spec: &Value, root: &Path) -> Result<BTreeMap<String, i64>, String> {
    let mut names = Vec::new();
    for op in spec["operations"]
        .as_array()
        .ok_or("operations: not a list")?
    {
        names.push(
            op["name"]
                .as_str()
                .ok_or("operation without a name")?
                .to_string(),
        );
    }
    numbers_in(root, "spec/operation-numbers.json", &names)
}

pub fn numbering_file(numbers: &BTreeMap<String, i64>) -> String {
    numbers_file(
        numbers,
        "The IIKO_OP_* numbers of the C ABI: append-only. The generator gives a new operation the next number and never changes or reuses one; an operation that leaves the snapshot keeps its number, reserved.",
    )
}

/// A field of webhook events that `iiko_events_field` reads: its dotted path
/// in the event and the event types that have it.
struct EventField {
    path: String,
    kind: &'static str,
    events: Vec<String>,
}

fn walk_event(
    spec: &Value,
    schema: &str,
    prefix: &str,
    depth: usize,
    stack: &mut Vec<String>,
    out: &mut Vec<(String, &'static str)>,
) {
    let s = &spec["schemas"][schema];
    if s["kind"] != "object" || depth > 3 || stack.iter().any(|x| x == schema) {
        return;
    }
    stack.push(schema.to_string());
    for f in s["fields"].as_array().into_iter().flatten() {
        let Some(name) = f["name"].as_str() else {
            continue;
        };
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}.{name}")
        };
        let t = &f["type"];
        if let Some(r) = t["ref"].as_str() {
            match spec["schemas"][r]["kind"].as_str() {
                Some("enum") => out.push((path, "text")),
                Some("int_enum") => out.push((path, "integer")),
                _ => walk_event(spec, r, &path, depth + 1, stack, out),
            }
        } else {
            let kind = match t["type"].as_str() {
                Some("array") => continue,
                Some("number") => "exact decimal",
                Some("integer") => "integer",
                Some("boolean") => "true or false",
                _ => "text",
            };
            out.push((path, kind));
        }
    }
    stack.pop();
}

/// Every scalar field of the documented webhook events (`WebHooks.*EventInfo`),
/// up to three objects deep and outside arrays, in the document's order.
fn event_fields(spec: &Value) -> Vec<EventField> {
    let mut fields: Vec<EventField> = Vec::new();
    for name in spec["schemas"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.keys())
    {
        let Some(event) = name
            .strip_prefix("WebHooks.")
            .and_then(|n| n.strip_suffix("WebHookEventInfo"))
        else {
            continue;
        };
        let mut found = Vec::new();
        walk_event(spec, name, "", 0, &mut Vec::new(), &mut found);
        for (path, kind) in found {
            match fields.iter_mut().find(|f| f.path == path) {
                Some(f) => f.events.push(event.to_string()),
                None => fields.push(EventField {
                    path,
                    kind,
                    events: vec![event.to_string()],
                }),
            }
        }
    }
    fields
}

/// `eventInfo.order.sum` -> `ORDER_SUM`; `eventTime` -> `EVENT_TIME`;
/// `eventInfo.organizationId` (a name the event itself has) -> `INFO_ORGANIZATION_ID`.
fn field_ident(path: &str) -> String {
    const TOP: [&str; 4] = ["eventType", "eventTime", "organizationId", "correlationId"];
    let (prefix, short) = match path.strip_prefix("eventInfo.") {
        Some(short) if TOP.contains(&short) => ("INFO_", short),
        Some(short) => ("", short),
        None => ("", path),
    };
    format!(
        "{prefix}{}",
        crate::names::snake(&short.replace('.', "_")).to_ascii_uppercase()
    )
}

/// `bindings/c/src/event_fields.rs`, its numbering file and PHP's `EventField`.
fn event_field_files(spec: &Value, root: &Path) -> Result<Vec<(String, String)>, String> {
    let fields = event_fields(spec);
    let names: Vec<String> = fields.iter().map(|f| f.path.clone()).collect();
    let numbers = numbers_in(root, "spec/event-field-numbers.json", &names)?;
    let mut idents = BTreeMap::new();
    for f in &fields {
        if let Some(other) = idents.insert(field_ident(&f.path), f.path.clone()) {
            return Err(format!(
                "event fields {other} and {} give the same C name",
                f.path
            ));
        }
    }
    let max = numbers.values().max().copied().unwrap_or(0);
    let mut out = String::from(
        "// @generated by `cargo run -p iikocloud-codegen` from spec/operations.json (the\n\
         // WebHooks.*EventInfo schemas) and spec/event-field-numbers.json. Do not edit.\n\
         //! The webhook event fields `iiko_events_field` reads (`IIKO_EVENT_FIELD_*`).\n\n\
         /// A webhook event field: one of the `IIKO_EVENT_FIELD_*` constants, generated\n\
         /// from the documented event schemas (`WebHooks.*EventInfo`) and numbered\n\
         /// append-only (`spec/event-field-numbers.json`); 0 is no field.\n\
         #[allow(non_camel_case_types)]\n\
         pub type iiko_event_field = i32;\n\n",
    );
    let mut sorted: Vec<&EventField> = fields.iter().collect();
    sorted.sort_by_key(|f| numbers[&f.path]);
    for f in &sorted {
        out.push_str(&format!(
            "/// `{}` ({}) of {} events.\npub const IIKO_EVENT_FIELD_{}: iiko_event_field = {};\n",
            f.path,
            f.kind,
            f.events.join(", "),
            field_ident(&f.path),
            numbers[&f.path]
        ));
    }
    out.push_str(&format!(
        "\n/// The highest field number.\npub(crate) const LAST_FIELD: iiko_event_field = {max};\n\n\
         /// Each field's path (NUL-terminated), indexed by number - 1; `None` is reserved.\n\
         pub(crate) static FIELD_PATHS: [Option<&std::ffi::CStr>; {max}] = [\n"
    ));
    for n in 1..=max {
        match fields.iter().find(|f| numbers[&f.path] == n) {
            Some(f) => out.push_str(&format!("    Some(c{:?}),\n", f.path)),
            None => out.push_str("    None,\n"),
        }
    }
    out.push_str("];\n");
    let mut php = String::from(
        "<?php\n\n// @generated by `cargo run -p iikocloud-codegen` from spec/operations.json (the\n\
         // WebHooks.*EventInfo schemas) and spec/event-field-numbers.json. Do not edit.\n\n\
         declare(strict_types=1);\n\nnamespace IikoCloud;\n\n\
         /**\n",
    );
    // Written line by line: a `\` continuation would eat the leading spaces.
    php.push_str(
        " * The documented webhook event fields {@see Event::field()} reads: the numbers of the\n",
    );
    php.push_str(" * C library's `IIKO_EVENT_FIELD_*` constants, append-only.\n */\nfinal class EventField\n{\n");
    for f in &sorted {
        php.push_str(&format!(
            "    /** `{}` ({}) of {} events. */\n    public const {} = {};\n",
            f.path,
            f.kind,
            f.events.join(", "),
            field_ident(&f.path),
            numbers[&f.path]
        ));
    }
    php.push_str("\n    private function __construct()\n    {\n    }\n}\n");
    Ok(vec![
        (
            "spec/event-field-numbers.json".into(),
            numbers_file(
                &numbers,
                "The IIKO_EVENT_FIELD_* numbers of the C ABI (webhook event fields): append-only, as spec/operation-numbers.json.",
            ),
        ),
        ("bindings/c/src/event_fields.rs".into(), out),
        ("bindings/php/src/EventField.php".into(), php),
    ])
}

pub fn ops(spec: &Value, numbers: &BTreeMap<String, i64>) -> Result<Vec<Op>, String> {
    let mut out = Vec::new();
    for op in spec["operations"]
        .as_array()
        .ok_or("operations: not a list")?
    {
        let s = |k: &str| op[k].as_str().map(str::to_string);
        let name = s("name").ok_or("operation without a name")?;
        out.push(Op {
            number: numbers[&name],
            summary: crate::summary(op).to_string(),
            path: s("path").ok_or("operation without a path")?,
            method: s("method").unwrap_or_else(|| "POST".into()),
            restriction_group: s("restriction_group"),
            command: op["command"] == Value::Bool(true),
            safe_to_retry: op["safe_to_retry"] == Value::Bool(true),
            deprecated: op["deprecated"] == Value::Bool(true),
            name,
        });
    }
    // Two names must never make the same identifier.
    let mut idents = BTreeMap::new();
    for op in &out {
        if let Some(other) = idents.insert(ident(&op.name), &op.name) {
            return Err(format!("{other} and {} give the same C name", op.name));
        }
    }
    out.sort_by_key(|o| o.number);
    Ok(out)
}

/// `deliveries.create` -> `deliveries_create`.
pub fn ident(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

fn describe(op: &Op) -> String {
    let kind = if op.command {
        "a command: answers a correlationId; never retried"
    } else if op.safe_to_retry {
        "a read: retried after a transport error or 5xx"
    } else {
        "not retried"
    };
    let group = op
        .restriction_group
        .as_deref()
        .map(|g| format!("; restriction group \"{g}\""))
        .unwrap_or_default();
    let dep = if op.deprecated { "; deprecated" } else { "" };
    format!("`{} {}` ({kind}{group}{dep})", op.method, op.path)
}

/// `bindings/c/src/op_table.rs`.
pub fn table(ops: &[Op], numbers: &BTreeMap<String, i64>) -> String {
    let max = numbers.values().max().copied().unwrap_or(0);
    let mut out = String::from(
        "// @generated by `cargo run -p iikocloud-codegen` from spec/operations.json and\n\
         // spec/operation-numbers.json. Do not edit.\n\
         //! The operation numbers (`IIKO_OP_*`) and what each operation is.\n\n\
         use std::ffi::CStr;\n\n\
         /// An operation's number: one of the `IIKO_OP_*` constants, from 1 to\n\
         /// `iiko_operation_count()`. Numbers are only ever appended: an operation keeps\n\
         /// its number in every release, and one the service retires leaves its number\n\
         /// reserved (its accessors answer NULL / -1). 0 is no operation.\n\
         #[allow(non_camel_case_types)]\n\
         pub type iiko_operation = i32;\n\n",
    );
    for op in ops {
        out.push_str(&format!(
            "/// `{}`: {}\n/// {}.\npub const IIKO_OP_{}: iiko_operation = {};\n",
            op.name,
            op.summary,
            describe(op),
            ident(&op.name).to_ascii_uppercase(),
            op.number
        ));
    }
    let reserved: Vec<String> = numbers
        .iter()
        .filter(|(name, _)| !ops.iter().any(|o| &o.name == *name))
        .map(|(name, n)| format!("{n} ({name})"))
        .collect();
    if !reserved.is_empty() {
        out.push_str(&format!(
            "\n// Reserved, no longer in the snapshot: {}.\n",
            reserved.join(", ")
        ));
    }
    out.push_str(&format!(
        "\n/// The highest operation number.\npub(crate) const LAST: iiko_operation = {max};\n\n\
         /// One operation, for the `iiko_operation_*` accessors.\n\
         pub(crate) struct Entry {{\n    pub name: &'static CStr,\n    pub path: &'static CStr,\n    \
         pub restriction_group: Option<&'static CStr>,\n    pub command: bool,\n    \
         pub safe_to_retry: bool,\n    pub deprecated: bool,\n}}\n\n\
         /// Indexed by number - 1; `None` is a reserved number.\n\
         pub(crate) static TABLE: [Option<Entry>; {max}] = [\n"
    ));
    for n in 1..=max {
        match ops.iter().find(|o| o.number == n) {
            Some(op) => out.push_str(&format!(
                "    Some(Entry {{ name: c{}, path: c{}, restriction_group: {}, command: {}, safe_to_retry: {}, deprecated: {} }}),\n",
                rust_str(&op.name),
                rust_str(&op.path),
                op.restriction_group
                    .as_deref()
                    .map_or("None".to_string(), |g| format!("Some(c{})", rust_str(g))),
                op.command,
                op.safe_to_retry,
                op.deprecated
            )),
            None => out.push_str("    None,\n"),
        }
    }
    out.push_str("];\n");
    out
}

/// Identifiers C++ reserves; an operation name equal to one gets a `_` suffix.
const CPP_KEYWORDS: [&str; 20] = [
    "and", "auto", "case", "class", "default", "delete", "do", "enum", "export", "for", "if",
    "int", "new", "not", "or", "register", "return", "switch", "this", "union",
];

/// `include/iikocloud_ops.hpp`: the operations, and `events` (the generated
/// `iiko::EventType`) before them.
pub fn cpp(ops: &[Op], events: &str) -> String {
    let mut out = String::from(
        "/* @generated by `cargo run -p iikocloud-codegen` from spec/operations.json. Do not edit.\n\
         *\n\
         * iiko::op: one function per operation of the snapshot, over\n\
         * iiko_client_call_operation. The request and the answer are JSON text;\n\
         * the request is checked by the library before anything is sent, the\n\
         * operation's retry rule applies, and failures throw iiko::Error\n\
         * (iiko::CommandError for a command that failed, timed out or expired).\n\
         * Commands also get a `_wait` function that follows the command to its end.\n\
         * Also iiko::EventType, the event types of the document.\n\
         * Included by iikocloud.hpp, after iiko::Client. */\n\
         #ifndef IIKOCLOUD_OPS_HPP\n#define IIKOCLOUD_OPS_HPP\n\n\
         #include <cstdint>\n#include <string>\n\n\
         namespace iiko {\n\n",
    );
    out.push_str(events);
    out.push_str("\nnamespace op {\n");
    for op in ops {
        let mut f = ident(&op.name);
        if CPP_KEYWORDS.contains(&f.as_str()) {
            f.push('_');
        }
        let constant = format!("IIKO_OP_{}", ident(&op.name).to_ascii_uppercase());
        out.push_str(&format!(
            "\n/** `{}`: {}\n *  {}. */\ninline std::string {f}(const Client &client, const std::string &request_json = \"{{}}\",\n                       const CallOptions &options = CallOptions()) {{\n    return client.call_operation({constant}, request_json, options);\n}}\n",
            op.name,
            op.summary.replace("*/", "* /"),
            describe(op).replace("*/", "* /"),
        ));
        if op.command {
            out.push_str(&format!(
                "/** `{}`, then waits for its command to end (see Client::call_operation_wait). */\ninline std::string {f}_wait(const Client &client, const std::string &request_json,\n                       const CallOptions &options = CallOptions()) {{\n    return client.call_operation_wait({constant}, request_json, options);\n}}\n",
                op.name
            ));
        }
    }
    out.push_str("\n} // namespace op\n} // namespace iiko\n\n#endif\n");
    out
}

/// Every file this module writes, as (path from the root, content).
pub fn files(spec: &Value, root: &Path) -> Result<Vec<(String, String)>, String> {
    let numbers = numbering(spec, root)?;
    let ops = ops(spec, &numbers)?;
    let mut files = vec![
        (
            "spec/operation-numbers.json".into(),
            numbering_file(&numbers),
        ),
        ("bindings/c/src/op_table.rs".into(), table(&ops, &numbers)),
        (
            "include/iikocloud_ops.hpp".into(),
            cpp(
                &ops,
                &crate::events::cpp(&crate::events::kinds(spec, root)?),
            ),
        ),
    ];
    files.extend(event_field_files(spec, root)?);
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_appended_and_never_reused() {
        let dir = std::env::temp_dir().join(format!("iiko-numbers-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("spec")).unwrap();
        let spec = |names: &[&str]| serde_json::json!({"operations": names.iter().map(|n| serde_json::json!({"name": n, "path": "/x"})).collect::<Vec<_>>()});
        let first = numbering(&spec(&["b", "a"]), &dir).unwrap();
        // In the snapshot's order.
        assert_eq!((first["b"], first["a"]), (1, 2));
        std::fs::write(
            dir.join("spec/operation-numbers.json"),
            numbering_file(&first),
        )
        .unwrap();
        // "a" leaves, "0" and "c" arrive: the old numbers stay, the new ones follow.
        let next = numbering(&spec(&["c", "b", "0"]), &dir).unwrap();
        assert_eq!((next["b"], next["a"], next["c"], next["0"]), (1, 2, 3, 4));
        let ops = ops(&spec(&["c", "b", "0"]), &next).unwrap();
        assert!(table(&ops, &next).contains("Reserved, no longer in the snapshot: 2 (a)"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
