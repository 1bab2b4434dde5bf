//! Control endpoints under `/_emulator/` for tests written in other languages.
//! They need no token, are never faulted and are not logged.

use std::time::Duration;

use iikocloud_http_server::Request;
use serde_json::{json, Map, Value};

use crate::faults::Fault;
use crate::fixtures::StopListItem;
use crate::reply::{read_body, Reply};
use crate::state::Shared;
use crate::util::lock;
use crate::webhooks::DeliveryOutcome;

fn fail(status: u16, code: &str, description: impl Into<String>) -> Reply {
    Reply::json(
        status,
        json!({"error": code, "errorDescription": description.into()}),
    )
}

fn ok(mut fields: Value) -> Reply {
    if let Value::Object(o) = &mut fields {
        o.insert("ok".into(), json!(true));
    }
    Reply::json(200, fields)
}

/// The body as a JSON value; an empty body counts as `{}`.
fn body_json(rq: &Request) -> Result<Value, Reply> {
    let raw = read_body(rq).map_err(|(s, m)| fail(s, "BAD_REQUEST", m))?;
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(raw)
        .map_err(|e| fail(400, "BAD_REQUEST", format!("Malformed JSON: {e}")))
}

fn body_object(rq: &Request) -> Result<Map<String, Value>, Reply> {
    match body_json(rq)? {
        Value::Object(o) => Ok(o),
        _ => Err(fail(400, "BAD_REQUEST", "The body must be a JSON object")),
    }
}

fn query_param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn secs(v: &Value, name: &str) -> Result<Duration, Reply> {
    v.as_f64()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| {
            fail(
                400,
                "BAD_REQUEST",
                format!("{name} must be a non-negative number of seconds"),
            )
        })
}

fn config_json(shared: &Shared) -> Value {
    let d = shared.hub.config();
    json!({
        "tokenTtlSecs": lock(&shared.tokens).ttl().as_secs_f64(),
        "deliveryTimeoutSecs": d.timeout.as_secs_f64(),
        "retryDelaysSecs": d.retry_delays.iter().map(Duration::as_secs_f64).collect::<Vec<f64>>(),
        "blockAfterFailures": d.block_after_failures,
        "catalogueDelaySecs": lock(&shared.backoffice).delay.as_secs_f64(),
    })
}

fn set_config(shared: &Shared, body: &Map<String, Value>) -> Result<Reply, Reply> {
    // Validate everything before changing anything.
    let ttl = match body.get("tokenTtlSecs") {
        Some(v) => {
            let ttl = secs(v, "tokenTtlSecs")?;
            if ttl.is_zero() {
                return Err(fail(400, "BAD_REQUEST", "tokenTtlSecs must be positive"));
            }
            Some(ttl)
        }
        None => None,
    };
    let mut delivery = shared.hub.config();
    if let Some(v) = body.get("deliveryTimeoutSecs") {
        delivery.timeout = secs(v, "deliveryTimeoutSecs")?;
    }
    if let Some(v) = body.get("retryDelaysSecs") {
        let list = v
            .as_array()
            .ok_or_else(|| fail(400, "BAD_REQUEST", "retryDelaysSecs must be an array"))?;
        delivery.retry_delays = list
            .iter()
            .map(|x| secs(x, "retryDelaysSecs[]"))
            .collect::<Result<_, _>>()?;
    }
    if let Some(v) = body.get("blockAfterFailures") {
        delivery.block_after_failures =
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    fail(
                        400,
                        "BAD_REQUEST",
                        "blockAfterFailures must be a non-negative integer",
                    )
                })?;
    }
    let catalogue_delay = match body.get("catalogueDelaySecs") {
        Some(v) => Some(secs(v, "catalogueDelaySecs")?),
        None => None,
    };
    if let Some(ttl) = ttl {
        lock(&shared.tokens).set_ttl(ttl);
    }
    if let Some(delay) = catalogue_delay {
        lock(&shared.backoffice).delay = delay;
    }
    shared.hub.set_config(delivery);
    Ok(ok(config_json(shared)))
}

/// `organizationId` of a trigger body, defaulting to the first fixture organization.
fn org_of(shared: &Shared, body: &Map<String, Value>) -> Result<String, Reply> {
    match body.get("organizationId") {
        Some(Value::String(s)) => Ok(s.clone()),
        None | Some(Value::Null) => shared
            .fixtures
            .organizations
            .first()
            .map(|o| o.id.clone())
            .ok_or_else(|| fail(400, "BAD_REQUEST", "no organizations in the fixtures")),
        Some(_) => Err(fail(400, "BAD_REQUEST", "organizationId must be a string")),
    }
}

fn str_field<'a>(
    body: &'a Map<String, Value>,
    name: &str,
    default: &'a str,
) -> Result<&'a str, Reply> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(fail(400, "BAD_REQUEST", format!("{name} must be a string"))),
    }
}

fn events_reply(result: Result<Vec<Value>, crate::EmulatorError>) -> Reply {
    match result {
        Ok(events) => ok(json!({ "events": events })),
        Err(e) => fail(404, "NOT_FOUND", e.to_string()),
    }
}

fn trigger(shared: &Shared, what: &str, rq: &Request) -> Result<Reply, Reply> {
    let body = body_object(rq)?;
    let reply = match what {
        "delivery-order" => {
            let org = org_of(shared, &body)?;
            match shared.create_delivery_order(&org) {
                Ok(h) => ok(
                    json!({"orderId": h.id, "organizationId": h.organization_id, "number": h.number, "events": h.events}),
                ),
                Err(e) => fail(404, "NOT_FOUND", e.to_string()),
            }
        }
        "delivery-status" => {
            let order = str_field(&body, "orderId", "")?;
            let status = str_field(&body, "status", "")?;
            if order.is_empty() || status.is_empty() {
                return Err(fail(400, "BAD_REQUEST", "orderId and status are required"));
            }
            events_reply(shared.set_delivery_status(order, status))
        }
        "delivery-error" => {
            let org = org_of(shared, &body)?;
            let code = str_field(&body, "code", "ProductNotFound")?;
            events_reply(shared.trigger_delivery_error(&org, code))
        }
        "reserve-update" => events_reply(shared.trigger_reserve(&org_of(shared, &body)?, None)),
        "reserve-error" => {
            let org = org_of(shared, &body)?;
            let code = str_field(&body, "code", "DuplicatedReserveId")?;
            events_reply(shared.trigger_reserve(&org, Some(code)))
        }
        "table-order-update" => {
            events_reply(shared.trigger_table_order(&org_of(shared, &body)?, None))
        }
        "table-order-error" => {
            let org = org_of(shared, &body)?;
            let code = str_field(&body, "code", "TerminalGroupDisabled")?;
            events_reply(shared.trigger_table_order(&org, Some(code)))
        }
        "stop-list-change" => {
            let org = org_of(shared, &body)?;
            let tg = match body.get("terminalGroupId") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => {
                    return Err(fail(400, "BAD_REQUEST", "terminalGroupId must be a string"))
                }
            };
            let item = match body.get("item") {
                None | Some(Value::Null) => None,
                Some(v) => Some(
                    serde_json::from_value::<StopListItem>(v.clone())
                        .map_err(|e| fail(400, "BAD_REQUEST", format!("item: {e}")))?,
                ),
            };
            match shared.change_stop_list(&org, tg.as_deref(), item) {
                Ok(events) => ok(json!({ "events": events })),
                Err(e @ crate::EmulatorError::InvalidArgument(_)) => {
                    fail(400, "BAD_REQUEST", e.to_string())
                }
                Err(e) => fail(404, "NOT_FOUND", e.to_string()),
            }
        }
        "personal-shift" => {
            let org = org_of(shared, &body)?;
            let opened = match body.get("opened") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(fail(400, "BAD_REQUEST", "opened must be a boolean")),
            };
            events_reply(shared.trigger_personal_shift(&org, opened))
        }
        "custom" => {
            let org = org_of(shared, &body)?;
            let event_type = str_field(&body, "eventType", "")?;
            if event_type.is_empty() {
                return Err(fail(400, "BAD_REQUEST", "eventType is required"));
            }
            let info = body.get("eventInfo").cloned().unwrap_or_else(|| json!({}));
            events_reply(shared.send_event(&org, event_type, info))
        }
        "raw" => {
            let org = org_of(shared, &body)?;
            let Some(raw) = body.get("body").cloned() else {
                return Err(fail(400, "BAD_REQUEST", "body is required"));
            };
            match shared.send_raw(&org, raw) {
                Ok(b) => ok(json!({ "body": b })),
                Err(e) => fail(404, "NOT_FOUND", e.to_string()),
            }
        }
        other => fail(404, "NOT_FOUND", format!("unknown event trigger {other:?}")),
    };
    Ok(reply)
}

fn wait_deliveries(shared: &Shared, rq: &Request) -> Result<Reply, Reply> {
    let body = body_object(rq)?;
    let count = body
        .get("count")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(1);
    let timeout_ms = body
        .get("timeoutMs")
        .and_then(Value::as_u64)
        .unwrap_or(5000)
        .min(60_000);
    let outcome = str_field(&body, "outcome", "")?.to_string();
    let matches = |o: DeliveryOutcome| outcome.is_empty() || o.name() == outcome;
    let reached = shared
        .hub
        .wait_for(Duration::from_millis(timeout_ms), |log| {
            log.iter().filter(|r| matches(r.outcome)).count() >= count
        });
    let seen = shared
        .hub
        .records()
        .iter()
        .filter(|r| matches(r.outcome))
        .count();
    Ok(Reply::json(200, json!({"ok": reached, "count": seen})))
}

fn route(shared: &Shared, rq: &Request, path: &str, url: &str) -> Result<Reply, Reply> {
    let method = rq.method.clone();
    let sub = path
        .trim_start_matches("/_emulator")
        .trim_start_matches('/');
    let reply = match (method.as_str(), sub) {
        ("GET", "health") => ok(json!({})),
        ("GET", "requests") => {
            let filter = query_param(url, "path");
            let list: Vec<Value> = shared
                .log
                .snapshot()
                .iter()
                .filter(|r| filter.as_ref().is_none_or(|p| &r.path == p))
                .map(|r| r.to_json())
                .collect();
            Reply::json(200, Value::Array(list))
        }
        ("POST", "reset-log") => {
            shared.log.clear();
            ok(json!({}))
        }
        ("POST", "reset-deliveries") => {
            shared.hub.clear_log();
            ok(json!({}))
        }
        ("POST", "reset") => {
            shared.reset();
            ok(json!({}))
        }
        ("GET", "faults") => Reply::json(
            200,
            Value::Array(lock(&shared.faults).iter().map(Fault::to_json).collect()),
        ),
        ("POST", "faults") => {
            let spec = body_json(rq)?;
            let faults = Fault::from_json(&spec).map_err(|e| fail(400, "BAD_REQUEST", e))?;
            let mut all = lock(&shared.faults);
            all.extend(faults);
            ok(json!({"faults": all.iter().map(Fault::to_json).collect::<Vec<_>>()}))
        }
        ("DELETE", "faults") | ("POST", "faults/clear") => {
            lock(&shared.faults).clear();
            ok(json!({}))
        }
        ("POST", "expire-tokens") => {
            lock(&shared.tokens).expire_all();
            ok(json!({}))
        }
        ("GET", "config") => Reply::json(200, config_json(shared)),
        ("POST", "config") => {
            let body = body_object(rq)?;
            set_config(shared, &body)?
        }
        ("GET", "deliveries") => Reply::json(
            200,
            Value::Array(shared.hub.records().iter().map(|r| r.to_json()).collect()),
        ),
        ("POST", "wait-deliveries") => wait_deliveries(shared, rq)?,
        ("GET", "webhooks") => Reply::json(
            200,
            Value::Array(shared.hub.states().iter().map(|s| s.to_json()).collect()),
        ),
        ("POST", events) if events.starts_with("events/") => {
            trigger(shared, &events["events/".len()..], rq)?
        }
        _ => fail(
            404,
            "NOT_FOUND",
            format!("no control endpoint {method} {path}"),
        ),
    };
    Ok(reply)
}

/// Handles one `/_emulator/...` request.
pub(crate) fn handle(shared: &Shared, rq: &Request, path: &str, url: &str) -> Reply {
    route(shared, rq, path, url).unwrap_or_else(|reply| reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_params() {
        assert_eq!(
            query_param("/x?path=%2Fapi%2F1%2Forganizations&y=1", "path").as_deref(),
            Some("/api/1/organizations")
        );
        assert_eq!(query_param("/x?y=1", "path"), None);
        assert_eq!(query_param("/x", "path"), None);
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%zz"), "%zz");
    }
}
