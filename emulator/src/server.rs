//! The HTTP side: one request in, one reply out (the server is
//! `iikocloud-http-server`; this module only speaks the emulator's rules).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::SystemTime;

use iikocloud_http_server::{self as http, BodyError, Context, Request, Response};
use serde_json::{json, Value};

use crate::faults::{take_fault, FaultKind};
use crate::records::RequestRecord;
use crate::state::Shared;
use crate::tokens::TokenCheck;
use crate::util::{lock, new_uuid};
use crate::{api, control};

/// Largest request body read; bigger bodies get 413.
pub(crate) const MAX_BODY: usize = 1024 * 1024;

/// What to send back.
pub(crate) enum Reply {
    /// A JSON document.
    Json {
        status: u16,
        body: Value,
        retry_after: Option<u64>,
    },
    /// Any other body.
    Raw {
        status: u16,
        content_type: &'static str,
        body: String,
    },
    /// Close the connection without answering.
    Reset,
}

impl Reply {
    pub(crate) fn json(status: u16, body: Value) -> Reply {
        Reply::Json {
            status,
            body,
            retry_after: None,
        }
    }

    /// A success body: `correlationId` first, then the given fields.
    pub(crate) fn ok(cid: &str, fields: Value) -> Reply {
        let mut body = serde_json::Map::new();
        body.insert("correlationId".into(), json!(cid));
        if let Value::Object(f) = fields {
            body.extend(f);
        }
        Reply::json(200, Value::Object(body))
    }

    /// The service's error body `{correlationId, errorDescription, error}`.
    pub(crate) fn error(
        status: u16,
        code: &str,
        description: impl Into<String>,
        cid: &str,
    ) -> Reply {
        Reply::json(
            status,
            json!({"correlationId": cid, "errorDescription": description.into(), "error": code}),
        )
    }

    /// 400 `BAD_REQUEST`.
    pub(crate) fn bad_request(description: impl Into<String>, cid: &str) -> Reply {
        Reply::error(400, "BAD_REQUEST", description, cid)
    }

    fn into_http(self) -> http::Reply {
        let response = match self {
            Reply::Json {
                status,
                body,
                retry_after,
            } => {
                let r = Response::with_body(
                    status,
                    "application/json; charset=utf-8",
                    body.to_string(),
                );
                match retry_after {
                    Some(secs) => r.header("Retry-After", secs.to_string()),
                    None => r,
                }
            }
            Reply::Raw {
                status,
                content_type,
                body,
            } => Response::with_body(status, content_type, body),
            Reply::Reset => return http::Reply::Close,
        };
        http::Reply::Respond(response)
    }

    fn status(&self) -> u16 {
        match self {
            Reply::Json { status, .. } | Reply::Raw { status, .. } => *status,
            Reply::Reset => 0,
        }
    }

    fn error_code(&self) -> Option<String> {
        match self {
            Reply::Json { body, .. } => body
                .get("error")
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        }
    }
}

/// First value of a request header.
pub(crate) fn header(rq: &Request, name: &str) -> Option<String> {
    rq.header(name).map(str::to_string)
}

/// The body, at most [`MAX_BODY`] bytes (the server stops reading there).
pub(crate) fn read_body(rq: &Request) -> Result<&[u8], (u16, String)> {
    match &rq.body {
        Ok(b) => Ok(b),
        Err(e @ BodyError::TooLarge { .. }) => Err((413, e.to_string())),
        Err(e) => Err((400, e.to_string())),
    }
}

/// The `Authorization` header as the emulator sees it.
pub(crate) enum Auth {
    Missing,
    Malformed,
    Bearer(String),
}

pub(crate) fn parse_auth(value: Option<&str>) -> Auth {
    let Some(value) = value else {
        return Auth::Missing;
    };
    let value = value.trim();
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("Bearer") => {
            let token = token.trim();
            if token.is_empty() || token.contains(char::is_whitespace) {
                Auth::Malformed
            } else {
                Auth::Bearer(token.to_string())
            }
        }
        _ => Auth::Malformed,
    }
}

/// Answers one request: control endpoints, or the API with faults applied.
pub(crate) fn serve(shared: &Arc<Shared>, rq: Request, ctx: &Context) -> http::Reply {
    let path = rq.path().to_string();
    if path == "/_emulator" || path.starts_with("/_emulator/") {
        let reply = catch_unwind(AssertUnwindSafe(|| {
            control::handle(shared, &rq, &path, &rq.target)
        }))
        .unwrap_or_else(|_| {
            Reply::json(
                500,
                json!({"error": "PANIC", "errorDescription": "control handler panicked"}),
            )
        });
        return reply.into_http();
    }

    let cid = new_uuid();
    let method = rq.method.clone();
    let auth = parse_auth(header(&rq, "Authorization").as_deref());
    let authorized = match &auth {
        Auth::Bearer(t) => matches!(lock(&shared.tokens).check(t), TokenCheck::Valid(_)),
        _ => false,
    };
    let fault = take_fault(&mut lock(&shared.faults), &path);
    let id = shared.log.push(RequestRecord {
        id: 0,
        method: method.clone(),
        path: path.clone(),
        status: 0,
        correlation_id: None,
        fault: fault.as_ref().map(|f| f.name().to_string()),
        authorized,
        at: SystemTime::now(),
        user_agent: header(&rq, "User-Agent"),
        timeout_header: header(&rq, "Timeout"),
        error: None,
    });

    let reply = catch_unwind(AssertUnwindSafe(|| match fault {
        None => api::process(shared, &rq, &method, &path, &auth, &cid),
        Some(kind) => apply_fault(shared, &rq, ctx, kind, &method, &path, &auth, &cid),
    }))
    .unwrap_or_else(|_| {
        log::warn!("handler for {path} panicked");
        Reply::error(
            500,
            "INTERNAL_SERVER_ERROR",
            "Internal emulator error",
            &cid,
        )
    });

    let status = reply.status();
    let answered_cid = if matches!(reply, Reply::Reset) {
        None
    } else {
        Some(cid)
    };
    shared
        .log
        .finish(id, status, answered_cid, reply.error_code());
    log::debug!("{method} {path} -> {status}");
    reply.into_http()
}

#[allow(clippy::too_many_arguments)]
fn apply_fault(
    shared: &Arc<Shared>,
    rq: &Request,
    ctx: &Context,
    kind: FaultKind,
    method: &str,
    path: &str,
    auth: &Auth,
    cid: &str,
) -> Reply {
    match kind {
        FaultKind::Delay(d) => {
            // Cut short by shutdown, so stopping never waits for a delay.
            ctx.sleep(d);
            api::process(shared, rq, method, path, auth, cid)
        }
        FaultKind::Status(code) => {
            let name = match code {
                500 => "INTERNAL_SERVER_ERROR",
                502 => "BAD_GATEWAY",
                503 => "SERVICE_UNAVAILABLE",
                504 => "GATEWAY_TIMEOUT",
                408 => "REQUEST_TIMEOUT",
                429 => "TOO_MANY_REQUESTS",
                _ => "INJECTED_ERROR",
            };
            Reply::error(code, name, format!("Injected fault: HTTP {code}"), cid)
        }
        FaultKind::RateLimited { retry_after_secs } => Reply::Json {
            status: 429,
            body: json!({
                "correlationId": cid,
                "errorDescription": format!("Too many requests, retry after {retry_after_secs} s"),
                "error": "TOO_MANY_REQUESTS",
            }),
            retry_after: Some(retry_after_secs),
        },
        FaultKind::ConnectionReset => Reply::Reset,
        FaultKind::MalformedBody => Reply::Raw {
            status: 200,
            content_type: "application/json; charset=utf-8",
            // Valid JSON cut off in the middle of a value.
            body: format!("{{\"correlationId\":\"{cid}\",\"organizations\":[{{\"id\":\"441e13"),
        },
        FaultKind::WrongContentType => Reply::Raw {
            status: 200,
            content_type: "text/plain; charset=utf-8",
            body: format!("iikocloud emulator: injected wrong content type (correlationId {cid})"),
        },
        FaultKind::AnswerLost => {
            let _done = api::process(shared, rq, method, path, auth, cid);
            Reply::Reset
        }
        FaultKind::Unauthorized => {
            Reply::error(401, "INVALID_TOKEN", "Injected fault: token rejected", cid)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_header_parsing() {
        assert!(matches!(parse_auth(None), Auth::Missing));
        assert!(matches!(parse_auth(Some("Bearer abc")), Auth::Bearer(t) if t == "abc"));
        assert!(matches!(parse_auth(Some("bearer  abc ")), Auth::Bearer(t) if t == "abc"));
        assert!(matches!(parse_auth(Some("abc")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("Bearer")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("Bearer ")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("Basic abc")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("Bearer a b")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("")), Auth::Malformed));
    }
}
