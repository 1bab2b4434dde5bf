//! Request checks before anything is sent.

use std::fmt::Write as _;
use std::str::FromStr;

use rust_decimal::Decimal;

use crate::time::LocalTime;
use crate::{Error, Money};

/// A request (or part of one) that can check itself against the document:
/// required fields, lengths, ranges, allowed values and formats.
pub trait Validate {
    /// Reports every problem to `v`, at `v`'s current path.
    fn validate_at(&self, v: &mut Validator);

    /// Checks the whole value; the error names the first problems' paths.
    fn validate(&self) -> Result<(), Error>
    where
        Self: Sized,
    {
        Validator::check(self)
    }
}

impl<T: Validate + ?Sized> Validate for &T {
    fn validate_at(&self, v: &mut Validator) {
        (**self).validate_at(v);
    }
}

/// How many problems an error lists before "and N more".
pub(crate) const LISTED: usize = 5;

/// Collects problems with the path of the field each is about.
#[derive(Debug, Default)]
pub struct Validator {
    path: Vec<String>,
    problems: Vec<String>,
}

impl Validator {
    /// The path of `field` below the current one (`body` for the top level).
    pub(crate) fn at(&self, field: &str) -> String {
        let mut p = String::new();
        for seg in &self.path {
            if seg.starts_with('[') || p.is_empty() {
                p.push_str(seg);
            } else {
                let _ = write!(p, ".{seg}");
            }
        }
        if field.is_empty() {
            return if p.is_empty() { "body".into() } else { p };
        }
        if p.is_empty() || field.starts_with('[') {
            format!("{p}{field}")
        } else {
            format!("{p}.{field}")
        }
    }

    /// Goes one level down, to `segment` (a field name, or `[i]` in a list).
    pub(crate) fn enter(&mut self, segment: &str) {
        self.path.push(segment.to_string());
    }

    /// Back up from [`Validator::enter`].
    pub(crate) fn leave(&mut self) {
        self.path.pop();
    }

    fn problem(&mut self, field: &str, what: impl std::fmt::Display) {
        let at = self.at(field);
        self.problems.push(format!("{at}: {what}"));
    }

    /// Records a problem with the value at the current path.
    pub fn fail(&mut self, what: impl std::fmt::Display) {
        self.problem("", what);
    }

    /// A required, non-nullable field must be set.
    pub fn required(&mut self, field: &str, present: bool) {
        if !present {
            self.problem(field, "is required");
        }
    }

    /// A UUID in its usual textual form.
    pub fn uuid(&mut self, field: &str, value: Option<&str>) {
        if let Some(s) = value {
            if uuid::Uuid::try_parse(s).is_err() {
                self.problem(field, format_args!("must be a UUID, got {s:?}"));
            }
        }
    }

    /// Every element a UUID.
    pub fn uuids(&mut self, field: &str, values: Option<&[String]>) {
        for (i, s) in values.into_iter().flatten().enumerate() {
            if uuid::Uuid::try_parse(s).is_err() {
                self.problem(
                    &format!("{field}[{i}]"),
                    format_args!("must be a UUID, got {s:?}"),
                );
            }
        }
    }

    /// A terminal-local time the service can read.
    pub fn local_time(&mut self, field: &str, value: Option<&LocalTime>) {
        if let Some(t) = value {
            if t.local.is_none() {
                self.problem(
                    field,
                    format_args!("must be yyyy-MM-dd HH:mm:ss.fff, got {:?}", t.raw),
                );
            }
        }
    }

    /// A length in characters within bounds.
    pub fn length(&mut self, field: &str, value: Option<&str>, min: Option<u64>, max: Option<u64>) {
        let Some(s) = value else { return };
        let n = s.chars().count() as u64;
        if let Some(min) = min.filter(|&m| n < m) {
            self.problem(
                field,
                format_args!("must be at least {min} characters, got {n}"),
            );
        }
        if let Some(max) = max.filter(|&m| n > m) {
            self.problem(
                field,
                format_args!("must be at most {max} characters, got {n}"),
            );
        }
    }

    /// A list of at least `min` items (a rule of `spec/rules.json`).
    pub fn min_items(&mut self, field: &str, len: Option<usize>, min: usize) {
        if let Some(n) = len.filter(|&n| n < min) {
            self.problem(
                field,
                format_args!("must have at least {min} item(s), got {n}"),
            );
        }
    }

    /// Text that is not empty or only spaces (a rule of `spec/rules.json`).
    /// The value is never quoted: the rule guards secrets.
    pub fn not_blank(&mut self, field: &str, value: Option<&str>) {
        if value.is_some_and(|s| s.trim().is_empty()) {
            self.problem(field, "must not be blank; leave it out instead");
        }
    }

    /// An absolute `http://` or `https://` URL (a rule of `spec/rules.json`).
    pub fn http_url(&mut self, field: &str, value: Option<&str>) {
        if let Some(s) = value.filter(|s| !is_http_url(s)) {
            self.problem(
                field,
                format_args!("must be an absolute http:// or https:// URL, got {s:?}"),
            );
        }
    }

    /// One of the document's values.
    pub fn one_of(&mut self, field: &str, value: Option<&str>, allowed: &[&str]) {
        if let Some(s) = value {
            if !allowed.contains(&s) {
                self.problem(
                    field,
                    format_args!("must be one of {}, got {s:?}", allowed.join(", ")),
                );
            }
        }
    }

    /// An amount within bounds (given as decimal text, exact).
    pub fn money_range(
        &mut self,
        field: &str,
        value: Option<&Money>,
        min: Option<&str>,
        max: Option<&str>,
    ) {
        let Some(m) = value else { return };
        let d = m.as_decimal();
        if let Some(min) = min.and_then(|t| Decimal::from_str(t).ok()) {
            if d < min {
                self.problem(field, format_args!("must be at least {min}, got {d}"));
            }
        }
        if let Some(max) = max.and_then(|t| Decimal::from_str(t).ok()) {
            if d > max {
                self.problem(field, format_args!("must be at most {max}, got {d}"));
            }
        }
    }

    /// An integer within bounds.
    pub fn int_range(
        &mut self,
        field: &str,
        value: Option<i64>,
        min: Option<&str>,
        max: Option<&str>,
    ) {
        let Some(n) = value else { return };
        let bound = |t: Option<&str>| t.and_then(|t| t.parse::<f64>().ok());
        if let Some(min) = bound(min).filter(|&m| (n as f64) < m) {
            self.problem(field, format_args!("must be at least {min}, got {n}"));
        }
        if let Some(max) = bound(max).filter(|&m| (n as f64) > m) {
            self.problem(field, format_args!("must be at most {max}, got {n}"));
        }
    }

    /// Checks a nested object under `field`.
    pub fn nested<T: Validate + ?Sized>(&mut self, field: &str, value: Option<&T>) {
        if let Some(inner) = value {
            self.path.push(field.to_string());
            inner.validate_at(self);
            self.path.pop();
        }
    }

    /// Checks each element of a list under `field[i]`.
    pub fn each<T: Validate>(&mut self, field: &str, values: Option<&[T]>) {
        let values = values.unwrap_or_default();
        self.elements(field, values.len(), &|i| &values[i]);
    }

    /// The loop of [`Validator::each`], compiled once rather than for each
    /// element type: `element(i)` is the `i`th of `len` elements.
    fn elements<'a>(
        &mut self,
        field: &str,
        len: usize,
        element: &dyn Fn(usize) -> &'a dyn Validate,
    ) {
        for i in 0..len {
            self.path.push(field.to_string());
            self.path.push(format!("[{i}]"));
            element(i).validate_at(self);
            self.path.pop();
            self.path.pop();
        }
    }

    /// Checks `value` whole: [`Validate::validate`], compiled once rather
    /// than for each request type.
    fn check(value: &dyn Validate) -> Result<(), Error> {
        let mut v = Validator::default();
        value.validate_at(&mut v);
        v.finish()
    }

    /// The problems found, as one input error.
    pub fn finish(self) -> Result<(), Error> {
        if self.problems.is_empty() {
            return Ok(());
        }
        let n = self.problems.len();
        let mut text = self.problems[..n.min(LISTED)].join("; ");
        if n > LISTED {
            let _ = write!(text, "; and {} more", n - LISTED);
        }
        Err(Error::invalid(text))
    }
}

/// Whether `uri` is an absolute `http://` or `https://` URL with a host and
/// no surrounding spaces or control characters.
fn is_http_url(uri: &str) -> bool {
    if uri.trim() != uri || uri.chars().any(char::is_control) {
        return false;
    }
    let Ok(parsed) = uri.parse::<ureq::http::Uri>() else {
        return false;
    };
    let scheme_ok = parsed
        .scheme_str()
        .is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"));
    scheme_ok && parsed.host().is_some_and(|h| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_urls() {
        assert!(is_http_url("https://pos.example.com/iiko/hook?x=1"));
        assert!(is_http_url("http://127.0.0.1:9000/h"));
        for bad in [
            "",
            "/relative",
            "ftp://x/y",
            "https://",
            " https://x.y",
            "https://x.y/\n",
        ] {
            assert!(!is_http_url(bad), "{bad:?}");
        }
    }

    #[test]
    fn paths_name_the_field() {
        let mut v = Validator::default();
        v.path.push("order".into());
        v.path.push("items".into());
        v.path.push("[2]".into());
        v.money_range("amount", Some(&Money::from(-1)), Some("0"), None);
        v.path.clear();
        v.required("organizationId", false);
        v.uuid("terminalGroupId", Some("nope"));
        let e = v.finish().unwrap_err().to_string();
        assert!(
            e.contains("order.items[2].amount: must be at least 0, got -1"),
            "{e}"
        );
        assert!(e.contains("organizationId: is required"), "{e}");
        assert!(e.contains("terminalGroupId: must be a UUID"), "{e}");
    }

    #[test]
    fn bounds_and_lists() {
        let mut v = Validator::default();
        v.length("comment", Some("abcdef"), Some(0), Some(5));
        v.one_of("kind", Some("X"), &["A", "B"]);
        v.int_range("count", Some(0), Some("1"), Some("10"));
        v.uuids(
            "ids",
            Some(&["441e1320-3f58-4702-9f9e-aa34cdef9c04".into(), "x".into()]),
        );
        let e = v.finish().unwrap_err().to_string();
        assert!(
            e.contains("comment: must be at most 5 characters, got 6"),
            "{e}"
        );
        assert!(e.contains("kind: must be one of A, B"), "{e}");
        assert!(e.contains("count: must be at least 1"), "{e}");
        assert!(e.contains("ids[1]: must be a UUID"), "{e}");
        assert!(Validator::default().finish().is_ok());
    }
}
