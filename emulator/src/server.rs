//! The HTTP side: one request in, one reply out (the server is
//! `iikocloud-http-server`; this module only speaks the emulator's rules).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::SystemTime;

use iikocloud_http_server::{self as http, Context, Request};
use serde_json::json;

use crate::faults::{take_fault, FaultKind};
use crate::records::RequestRecord;
use crate::reply::{header, parse_auth, Auth, Reply};
use crate::state::Shared;
use crate::tokens::TokenCheck;
use crate::util::{lock, new_uuid};
use crate::{api, control};

/// Answers one request: control endpoints, or the API with faults applied.
pub(crate) fn serve(shared: &Arc<Shared>, rq: Request, ctx: &Context) -> http::Reply {
    let path = rq.path().to_string();
    if path == "/metrics" {
        return http::Reply::Respond(http::Response::with_body(
            200,
            http::prometheus::CONTENT_TYPE,
            shared.hub.metrics.render(),
        ));
    }
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
        Auth::Bearer(t) => {
            let check = lock(&shared.tokens).check(t);
            match check {
                TokenCheck::Valid(_) => true,
                TokenCheck::Expired => {
                    shared.hub.metrics.token_refused("expired");
                    false
                }
                TokenCheck::Unknown => {
                    shared.hub.metrics.token_refused("unknown");
                    false
                }
            }
        }
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
    shared.hub.metrics.request(&path, status);
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
