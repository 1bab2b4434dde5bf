//! The schemas webhook events are read into: the `WebHooks.*WebHookEventInfo`
//! schemas and every schema they reach. The Rust models compile these
//! always (the webhook reader uses them) and the rest only with the
//! `operations` feature.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::spec::Spec;

/// Whether a schema is the `eventInfo` envelope of a webhook event type
/// (the same test as `events::kinds`).
pub fn is_event_schema(name: &str) -> bool {
    name.starts_with("WebHooks.") && name.ends_with("WebHookEventInfo")
}

/// The event schemas and everything they reach, through fields, lists, maps
/// and union variants.
pub fn event_closure(spec: &Spec<'_>) -> Result<BTreeSet<String>, String> {
    let mut stack: Vec<String> = spec
        .schemas
        .keys()
        .filter(|n| is_event_schema(n))
        .cloned()
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(name) = stack.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let schema = spec.schema(&name)?;
        for target in schema["variants"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(_, v)| v.as_str())
        {
            stack.push(target.to_string());
        }
        for f in spec.fields(&name)? {
            refs_of(&f["type"], &mut stack);
        }
    }
    Ok(seen)
}

/// The schema names a type reference holds, at any depth.
fn refs_of(t: &Value, out: &mut Vec<String>) {
    if let Some(r) = t["ref"].as_str() {
        out.push(r.to_string());
    }
    for inner in ["items", "values"] {
        if t.get(inner).is_some_and(Value::is_object) {
            refs_of(&t[inner], out);
        }
    }
}
