//! Rust and Python names for the document's names.

use std::collections::HashSet;

use serde_json::Value;

/// `CreateOrder` / `create_order` / `by-id` -> `create_order`.
pub fn snake(s: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_string();
    if out.is_empty() {
        return "field".into();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("n{out}");
    }
    out
}

/// `by_id` / `orderInfo` -> `ById` / `OrderInfo`.
pub fn pascal(s: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in s.chars() {
        if !c.is_ascii_alphanumeric() {
            upper = true;
            continue;
        }
        if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) || out.is_empty() {
        out.insert(0, 'N');
    }
    out
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
    "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// An identifier, raw when it is a keyword (`type` -> `r#type`).
pub fn ident(s: &str) -> String {
    if matches!(s, "self" | "Self" | "super" | "crate") {
        return format!("{s}_");
    }
    if KEYWORDS.contains(&s) {
        format!("r#{s}")
    } else {
        s.to_string()
    }
}

/// A Rust string literal for any text.
pub fn lit(s: &str) -> String {
    format!("{s:?}")
}

const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// A Python identifier for a snake-case name, avoiding keywords and the
/// names the surrounding code reserves.
pub(crate) fn py_ident(name: &str, reserved: &[&str]) -> String {
    if PYTHON_KEYWORDS.contains(&name) || reserved.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// Python names of the model attributes of one schema (unique, not clashing
/// with the model's own methods). They are also the snake-case spelling the
/// core accepts for a request's keys ([`crate::wire`]).
pub(crate) fn attr_names(fields: &[&Value]) -> Vec<String> {
    const RESERVED: &[&str] = &["extra", "to_dict", "from_dict", "replace", "self"];
    let mut used: HashSet<String> = HashSet::new();
    fields
        .iter()
        .map(|f| {
            let base = py_ident(&snake(f["name"].as_str().unwrap_or("field")), RESERVED);
            let mut name = base.clone();
            let mut n = 2;
            while !used.insert(name.clone()) {
                name = format!("{base}_{n}");
                n += 1;
            }
            name
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(snake("CreateOrder"), "create_order");
        assert_eq!(snake("orderInfo"), "order_info");
        assert_eq!(snake("IDs"), "i_ds");
        assert_eq!(snake("externalNumber"), "external_number");
        assert_eq!(snake("HTTPStatus"), "http_status");
        assert_eq!(snake("by_id"), "by_id");
        assert_eq!(pascal("by_id"), "ById");
        assert_eq!(pascal("iiko"), "Iiko");
        assert_eq!(ident("type"), "r#type");
    }
}
