//! The HTTP side: the tiny_http receive loop, one thread per request, replies.

use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::SystemTime;

use serde_json::{json, Value};
use tiny_http::{Header, Request, Response};

use crate::faults::{take_fault, FaultKind};
use crate::records::RequestRecord;
use crate::state::Shared;
use crate::tokens::TokenCheck;
use crate::util::{lock, new_uuid};
use crate::{api, control};

/// Largest request body read; bigger bodies get 413.
pub(crate) const MAX_BODY: u64 = 1024 * 1024;

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
pub(crate) fn header(rq: &Request, name: &'static str) -> Option<String> {
    rq.headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str().to_string())
}

/// Reads the body, at most [`MAX_BODY`] bytes.
pub(crate) fn read_body(rq: &mut Request) -> Result<Vec<u8>, (u16, String)> {
    let mut buf = Vec::new();
    rq.as_reader()
        .take(MAX_BODY + 1)
        .read_to_end(&mut buf)
        .map_err(|e| (400, format!("cannot read the request body: {e}")))?;
    if buf.len() as u64 > MAX_BODY {
        return Err((413, format!("request body larger than {MAX_BODY} bytes")));
    }
    Ok(buf)
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

/// Runs the receive loop until `stopping` is set and the server is unblocked.
pub(crate) fn run(server: Arc<tiny_http::Server>, shared: Arc<Shared>, stopping: Arc<AtomicBool>) {
    loop {
        let rq = match server.recv() {
            Ok(rq) => rq,
            Err(_) if stopping.load(Ordering::SeqCst) => return,
            Err(e) => {
                log::warn!("receive failed: {e}");
                if stopping.load(Ordering::SeqCst) {
                    return;
                }
                continue;
            }
        };
        let shared = Arc::clone(&shared);
        // One thread per request: a delayed answer must not hold up the others.
        let spawned = thread::Builder::new()
            .name("emu-request".into())
            .spawn(move || serve(&shared, rq));
        if let Err(e) = spawned {
            log::warn!("cannot spawn request thread: {e}");
        }
    }
}

fn serve(shared: &Shared, mut rq: Request) {
    let url = rq.url().to_string();
    let path = url.split('?').next().unwrap_or("").to_string();
    if path == "/_emulator" || path.starts_with("/_emulator/") {
        let reply = catch_unwind(AssertUnwindSafe(|| {
            control::handle(shared, &mut rq, &path, &url)
        }))
        .unwrap_or_else(|_| {
            Reply::json(
                500,
                json!({"error": "PANIC", "errorDescription": "control handler panicked"}),
            )
        });
        send(rq, reply, shared);
        return;
    }

    let cid = new_uuid();
    let method = rq.method().as_str().to_string();
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
        None => api::process(shared, &mut rq, &method, &path, &auth, &cid),
        Some(kind) => apply_fault(shared, &mut rq, kind, &method, &path, &auth, &cid),
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
    send(rq, reply, shared);
}

fn apply_fault(
    shared: &Shared,
    rq: &mut Request,
    kind: FaultKind,
    method: &str,
    path: &str,
    auth: &Auth,
    cid: &str,
) -> Reply {
    match kind {
        FaultKind::Delay(d) => {
            thread::sleep(d);
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
        FaultKind::Unauthorized => {
            Reply::error(401, "INVALID_TOKEN", "Injected fault: token rejected", cid)
        }
    }
}

fn header_line(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

fn send(rq: Request, reply: Reply, shared: &Shared) {
    let (status, content_type, body, retry_after) = match reply {
        Reply::Json {
            status,
            body,
            retry_after,
        } => (
            status,
            "application/json; charset=utf-8",
            body.to_string(),
            retry_after,
        ),
        Reply::Raw {
            status,
            content_type,
            body,
        } => (status, content_type, body, None),
        Reply::Reset => {
            let closed = rq
                .remote_addr()
                .is_some_and(|peer| shared.front.reset(*peer));
            if !closed {
                log::warn!("connection to reset was not found");
            }
            // Dropping the request makes tiny_http write a 500 into the socket
            // we just closed; nothing reaches the client.
            drop(rq);
            return;
        }
    };
    let mut response = Response::from_string(body).with_status_code(status);
    if let Some(h) = header_line("Content-Type", content_type) {
        response.add_header(h);
    }
    if let Some(secs) = retry_after {
        if let Some(h) = header_line("Retry-After", &secs.to_string()) {
            response.add_header(h);
        }
    }
    if let Err(e) = rq.respond(response) {
        log::debug!("could not send the answer: {e}");
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
