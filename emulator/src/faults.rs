//! Fault injection: misbehaviour armed for the next N requests to a path.

use std::time::Duration;

use serde_json::{json, Map, Value};

/// What an injected fault does to a matching request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// Sleep for this long, then answer normally.
    Delay(Duration),
    /// Answer with this HTTP status and an error body (meant for 5xx, any 100..=599 works).
    Status(u16),
    /// Answer 429 with a `Retry-After: <secs>` header and an error body.
    RateLimited {
        /// Value of the `Retry-After` header, in seconds.
        retry_after_secs: u64,
    },
    /// Close the connection without sending any HTTP response.
    ConnectionReset,
    /// Answer 200 `application/json` with a truncated, unparsable JSON body.
    MalformedBody,
    /// Answer 200 with `Content-Type: text/plain` and a non-JSON body.
    WrongContentType,
    /// Answer 401 `INVALID_TOKEN` even though the token is valid.
    Unauthorized,
    /// Handle the request as usual (an order is created, a command starts),
    /// then close the connection without answering: the answer is lost.
    AnswerLost,
}

impl FaultKind {
    /// The snake_case name used in the fault spec JSON and in [`crate::RequestRecord::fault`].
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Delay(_) => "delay",
            FaultKind::Status(_) => "status",
            FaultKind::RateLimited { .. } => "rate_limited",
            FaultKind::ConnectionReset => "connection_reset",
            FaultKind::MalformedBody => "malformed_body",
            FaultKind::WrongContentType => "wrong_content_type",
            FaultKind::Unauthorized => "unauthorized",
            FaultKind::AnswerLost => "answer_lost",
        }
    }
}

/// A fault armed for the next `times` requests whose path equals `path`
/// (`"*"` matches every API path; `/_emulator/` control paths are never faulted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Exact request path without query string, or `"*"`.
    pub path: String,
    /// What happens.
    pub kind: FaultKind,
    /// How many matching requests it still applies to.
    pub times: u32,
}

impl Fault {
    /// A fault on `path` for the next `times` matching requests.
    pub fn new(path: impl Into<String>, kind: FaultKind, times: u32) -> Fault {
        Fault {
            path: path.into(),
            kind,
            times,
        }
    }

    /// A fault on `path` for the next matching request only.
    pub fn once(path: impl Into<String>, kind: FaultKind) -> Fault {
        Fault::new(path, kind, 1)
    }

    /// True when this fault applies to a request for `path`.
    pub fn matches(&self, path: &str) -> bool {
        self.path == "*" || self.path == path
    }

    /// Parses the JSON fault spec of `POST /_emulator/faults`: one object, a bare
    /// kind string, or an array of those. See the README for the fields.
    pub fn from_json(spec: &Value) -> Result<Vec<Fault>, String> {
        match spec {
            Value::Array(items) => items.iter().map(Fault::from_json_one).collect(),
            other => Ok(vec![Fault::from_json_one(other)?]),
        }
    }

    fn from_json_one(spec: &Value) -> Result<Fault, String> {
        let empty = Map::new();
        let (kind_name, obj) = match spec {
            Value::String(s) => (s.as_str(), &empty),
            Value::Object(o) => (
                o.get("kind")
                    .and_then(Value::as_str)
                    .ok_or("fault spec needs a string field \"kind\"")?,
                o,
            ),
            _ => return Err("fault spec must be an object, a kind string or an array".into()),
        };
        let path = match obj.get("path") {
            None | Some(Value::Null) => "*".to_string(),
            Some(Value::String(p)) if !p.is_empty() => p.clone(),
            Some(_) => return Err("\"path\" must be a non-empty string".into()),
        };
        let times = match obj.get("times") {
            None | Some(Value::Null) => 1,
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or("\"times\" must be a non-negative integer")?,
        };
        let normalized = kind_name.to_ascii_lowercase().replace('-', "_");
        let kind = match normalized.as_str() {
            "delay" => {
                let ms = obj
                    .get("ms")
                    .and_then(Value::as_u64)
                    .ok_or("delay fault needs an integer \"ms\"")?;
                FaultKind::Delay(Duration::from_millis(ms))
            }
            "status" | "error" => {
                let status = obj
                    .get("status")
                    .and_then(Value::as_u64)
                    .ok_or("status fault needs an integer \"status\"")?;
                let status = u16::try_from(status)
                    .ok()
                    .filter(|s| (100..=599).contains(s))
                    .ok_or("\"status\" must be within 100..=599")?;
                FaultKind::Status(status)
            }
            "rate_limited" | "ratelimited" | "429" => {
                let secs = match obj.get("retryAfter") {
                    None | Some(Value::Null) => 1,
                    Some(v) => v
                        .as_u64()
                        .ok_or("\"retryAfter\" must be a non-negative integer")?,
                };
                FaultKind::RateLimited {
                    retry_after_secs: secs,
                }
            }
            "connection_reset" | "reset" => FaultKind::ConnectionReset,
            "malformed_body" => FaultKind::MalformedBody,
            "wrong_content_type" => FaultKind::WrongContentType,
            "unauthorized" => FaultKind::Unauthorized,
            "answer_lost" => FaultKind::AnswerLost,
            other => return Err(format!("unknown fault kind {other:?}")),
        };
        Ok(Fault { path, kind, times })
    }

    /// The fault in the JSON spec shape (as listed by `GET /_emulator/faults`).
    pub fn to_json(&self) -> Value {
        let mut v = json!({"path": self.path, "kind": self.kind.name(), "times": self.times});
        match &self.kind {
            FaultKind::Delay(d) => {
                v["ms"] = json!(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            }
            FaultKind::Status(s) => v["status"] = json!(s),
            FaultKind::RateLimited { retry_after_secs } => {
                v["retryAfter"] = json!(retry_after_secs)
            }
            _ => {}
        }
        v
    }
}

/// Takes one use of the first fault matching `path`, dropping it when used up.
pub(crate) fn take_fault(faults: &mut Vec<Fault>, path: &str) -> Option<FaultKind> {
    faults.retain(|f| f.times > 0);
    let index = faults.iter().position(|f| f.matches(path))?;
    let fault = &mut faults[index];
    fault.times -= 1;
    let kind = fault.kind.clone();
    if fault.times == 0 {
        faults.remove(index);
    }
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        let f = Fault::from_json(
            &json!({"path": "/api/1/organizations", "kind": "status", "status": 503, "times": 2}),
        )
        .unwrap();
        assert_eq!(
            f,
            vec![Fault::new(
                "/api/1/organizations",
                FaultKind::Status(503),
                2
            )]
        );
        let f = Fault::from_json(&json!({"kind":"delay","ms":3000})).unwrap();
        assert_eq!(f[0].kind, FaultKind::Delay(Duration::from_secs(3)));
        assert_eq!(f[0].path, "*");
        assert_eq!(f[0].times, 1);
        let f = Fault::from_json(&json!({"kind":"rate_limited","retryAfter":7})).unwrap();
        assert_eq!(
            f[0].kind,
            FaultKind::RateLimited {
                retry_after_secs: 7
            }
        );
        for (s, k) in [
            ("connection_reset", FaultKind::ConnectionReset),
            ("malformed_body", FaultKind::MalformedBody),
            ("wrong_content_type", FaultKind::WrongContentType),
            ("unauthorized", FaultKind::Unauthorized),
        ] {
            assert_eq!(Fault::from_json(&json!(s)).unwrap()[0].kind, k);
            assert_eq!(Fault::from_json(&json!({"kind": s})).unwrap()[0].kind, k);
        }
        let many = Fault::from_json(&json!(["unauthorized", {"kind":"status","status":500}]));
        assert_eq!(many.unwrap().len(), 2);
        assert!(Fault::from_json(&json!({"kind":"status","status":700})).is_err());
        assert!(Fault::from_json(&json!({"kind":"nope"})).is_err());
        assert!(Fault::from_json(&json!(42)).is_err());
        assert!(Fault::from_json(&json!({"kind":"delay"})).is_err());
    }

    #[test]
    fn round_trips_json() {
        for f in [
            Fault::new("*", FaultKind::Delay(Duration::from_millis(5)), 3),
            Fault::new("/x", FaultKind::Status(502), 1),
            Fault::new(
                "/x",
                FaultKind::RateLimited {
                    retry_after_secs: 2,
                },
                1,
            ),
            Fault::new("/x", FaultKind::ConnectionReset, 4),
        ] {
            assert_eq!(Fault::from_json(&f.to_json()).unwrap(), vec![f]);
        }
    }

    #[test]
    fn counts_are_consumed() {
        let mut faults = vec![
            Fault::new("/a", FaultKind::Unauthorized, 2),
            Fault::new("*", FaultKind::MalformedBody, 1),
        ];
        assert_eq!(take_fault(&mut faults, "/a"), Some(FaultKind::Unauthorized));
        assert_eq!(
            take_fault(&mut faults, "/b"),
            Some(FaultKind::MalformedBody)
        );
        assert_eq!(take_fault(&mut faults, "/b"), None);
        assert_eq!(take_fault(&mut faults, "/a"), Some(FaultKind::Unauthorized));
        assert_eq!(take_fault(&mut faults, "/a"), None);
        assert!(faults.is_empty());
    }
}
