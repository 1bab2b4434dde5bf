//! Runs every case of `tests/vectors/webhook_vectors.json`, the vectors the C,
//! Python and PHP bindings run too. The format is in `tests/vectors/README.md`.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use chrono::SecondsFormat;
use iikocloud::api::models::deliveries::response::order::Customer;
use iikocloud::webhook::{
    field_text, http_status, parse_body_with, verify_authorization, Event, LocalTime, ParseOptions,
    Receiver,
};
use serde_json::{json, Map, Value};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

fn load() -> Value {
    let text =
        std::fs::read_to_string(vectors_dir().join("webhook_vectors.json")).expect("vectors");
    let doc: Value = serde_json::from_str(&text).expect("vectors are JSON");
    assert_eq!(doc["format"], "iikocloud-webhook-vectors");
    assert_eq!(doc["version"], 1);
    doc
}

fn cases<'a>(doc: &'a Value, section: &str) -> &'a Vec<Value> {
    let list = doc[section].as_array().expect("section is a list");
    assert!(!list.is_empty(), "{section} is empty");
    list
}

fn b64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("valid base64 in vectors")
}

fn case_body(case: &Value) -> Vec<u8> {
    if let Some(text) = case["body"].as_str() {
        text.as_bytes().to_vec()
    } else if let Some(encoded) = case["body_base64"].as_str() {
        b64(encoded)
    } else if let Some(file) = case["body_file"].as_str() {
        std::fs::read(vectors_dir().join(file)).expect("body_file exists")
    } else {
        panic!("case {} has no body", case["name"])
    }
}

fn case_options(case: &Value) -> ParseOptions {
    let mut options = ParseOptions::new();
    if let Some(o) = case.get("options") {
        if let Some(n) = o["max_body_bytes"].as_u64() {
            options = options.with_max_body_bytes(usize::try_from(n).expect("fits"));
        }
        if let Some(n) = o["max_depth"].as_u64() {
            options = options.with_max_depth(usize::try_from(n).expect("fits"));
        }
        if let Some(b) = o["accept_single_object"].as_bool() {
            options = options.with_accept_single_object(b);
        }
    }
    options
}

/// The value of one vector field for an event, as JSON.
fn field(event: &Event, name: &str) -> Value {
    let text = |s: Option<&str>| json!(s);
    match name {
        "kind" => json!(event.kind().as_str()),
        "kind_code" => json!(event.kind().code()),
        "event_type" => text(event.event_type()),
        "event_time" => text(event.event_time().map(|t| t.raw.as_str())),
        "event_time_utc" => json!(event
            .event_time()
            .and_then(|t| t.utc)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))),
        "event_time_us" => json!(event
            .event_time()
            .and_then(|t| t.utc)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Micros, true))),
        "organization_id" => text(event.organization_id()),
        "correlation_id" => text(event.correlation_id()),
        "invalid" => json!(event.problem().is_some()),
        "entity_id" => text(event.entity_id()),
        "order_id" => text(event.order_id()),
        "timestamp" => json!(event.timestamp()),
        "creation_status" => text(event.creation_status().map(|s| s.as_str())),
        "status" => text(event.status()),
        "order_number" => json!(event.order_number()),
        "sum" => {
            let sum = event.sum().map(|m| m.to_string());
            // The typed order reads its sum by the same rule.
            let typed = event
                .delivery()
                .and_then(|i| i.order.as_ref())
                .map(|o| o.sum)
                .or_else(|| {
                    event
                        .table_order()
                        .and_then(|i| i.order.as_ref())
                        .map(|o| o.sum)
                });
            if let Some(typed) = typed {
                assert_eq!(typed.map(|m| m.to_string()), sum, "typed order.sum");
            }
            json!(sum)
        }
        "sum_text" => json!(field_text(event.raw_json(), "eventInfo.order.sum")),
        "local_times" => local_times(event),
        "phone" => text(event.phone()),
        "error_code" => text(event.error_code()),
        "error_message" => text(event.error_message()),
        "is_new_order" => json!(event.is_new_delivery_order()),
        "item_count" => json!(item_count(event)),
        "customer_name" => text(customer_name(event)),
        "unknown_event_info" => text(event.unknown_event_info()),
        "dedup_key" => json!(event.dedup_key().as_str()),
        other => panic!("unknown vector field {other:?}"),
    }
}

/// `[{path, text, local}]` of the local times the vector lists, read here
/// by the core (`local_us` is for bindings whose times hold microseconds).
fn local_times(event: &Event) -> Value {
    let typed = event
        .delivery()
        .and_then(|i| i.order.as_ref())
        .and_then(|o| o.when_created.as_ref());
    let path = "eventInfo.order.whenCreated";
    let text = field_text(event.raw_json(), path);
    let local = text.as_deref().and_then(|t| LocalTime::parse(t).local);
    // The typed order's LocalTime is the same reading.
    assert_eq!(typed.and_then(|t| t.local), local, "typed whenCreated");
    let local = local.map(|t| t.format("%Y-%m-%dT%H:%M:%S%.9f").to_string());
    let us = local.as_ref().map(|t| t[..26].to_owned());
    json!([{ "path": path, "text": text, "local": local, "local_us": us }])
}

/// The number of items of the event's order: 0 when `items` is missing,
/// null or not a list, `None` without an order.
fn item_count(event: &Event) -> Option<usize> {
    let items = if let Some(o) = event.delivery().and_then(|i| i.order.as_ref()) {
        &o.items
    } else if let Some(o) = event.table_order().and_then(|i| i.order.as_ref()) {
        &o.items
    } else {
        &event
            .reserve()
            .and_then(|i| i.reserve.as_ref())
            .and_then(|r| r.order.as_ref())?
            .items
    };
    Some(items.as_ref().map_or(0, Vec::len))
}

fn customer_name(event: &Event) -> Option<&str> {
    // Deliveries and reserves have a customer union on `type`; table orders
    // a regular customer.
    fn union(c: &Option<Customer>) -> Option<&str> {
        match c.as_ref()? {
            Customer::Regular(r) => r.name.as_deref(),
            Customer::OneTime(o) => o.name.as_deref(),
            Customer::Unknown(_) => None,
        }
    }
    if let Some(o) = event.delivery().and_then(|i| i.order.as_ref()) {
        union(&o.customer)
    } else if let Some(o) = event.table_order().and_then(|i| i.order.as_ref()) {
        o.customer.as_ref()?.name.as_deref()
    } else {
        union(&event.reserve()?.reserve.as_ref()?.customer)
    }
}

fn check_events(name: &str, case: &Value, events: &[Event], failures: &mut Vec<String>) {
    let Some(expected) = case["events"].as_array() else {
        return;
    };
    for (i, (want, event)) in expected.iter().zip(events).enumerate() {
        let want: &Map<String, Value> = want.as_object().expect("event expectation is an object");
        for (key, value) in want {
            let got = field(event, key);
            if &got != value {
                failures.push(format!(
                    "{name}: event {i}: {key}: expected {value}, got {got}"
                ));
            }
        }
    }
}

#[test]
fn verify_vectors() {
    let doc = load();
    let mut failures = Vec::new();
    for case in cases(&doc, "verify") {
        let name = case["name"].as_str().expect("name");
        let header: Option<Vec<u8>> = match (&case["header"], case["header_base64"].as_str()) {
            (_, Some(encoded)) => Some(b64(encoded)),
            (Value::String(s), None) => Some(s.as_bytes().to_vec()),
            _ => None,
        };
        let token = case["expected_token"].as_str().expect("token");
        let result = verify_authorization(header.as_deref(), token);
        let got_valid = result.is_ok();
        let got_error = result.err().map(|e| e.as_str());
        if case["valid"] != json!(got_valid) || case["error"] != json!(got_error) {
            failures.push(format!(
                "{name}: expected valid={} error={}, got valid={got_valid} error={got_error:?}",
                case["valid"], case["error"]
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn parse_vectors() {
    let doc = load();
    let mut failures = Vec::new();
    for case in cases(&doc, "parse") {
        let name = case["name"].as_str().expect("name");
        let result = parse_body_with(&case_body(case), &case_options(case));
        let outcome = match &result {
            Ok(_) => "ok",
            Err(e) => e.kind().as_str(),
        };
        if case["outcome"] != outcome {
            failures.push(format!(
                "{name}: expected outcome {}, got {outcome} ({result:?})",
                case["outcome"]
            ));
            continue;
        }
        let Ok(parsed) = result else { continue };
        if case["single_object"] != json!(parsed.single_object) {
            failures.push(format!("{name}: single_object is {}", parsed.single_object));
        }
        if case["event_count"] != json!(parsed.len()) {
            failures.push(format!(
                "{name}: expected {} events, got {}",
                case["event_count"],
                parsed.len()
            ));
        }
        check_events(name, case, &parsed.events, &mut failures);
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn receive_vectors() {
    let doc = load();
    let mut failures = Vec::new();
    for case in cases(&doc, "receive") {
        let name = case["name"].as_str().expect("name");
        let headers: Vec<(String, String)> = case["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .map(|pair| {
                (
                    pair[0].as_str().expect("header name").to_owned(),
                    pair[1].as_str().expect("header value").to_owned(),
                )
            })
            .collect();
        let receiver = Receiver::new(case["expected_token"].as_str().expect("token"))
            .with_options(case_options(case));
        let result = receiver.receive(headers, &case_body(case));
        let status = http_status(&result);
        let outcome = match &result {
            Ok(_) => "ok".to_owned(),
            Err(e) => e.name(),
        };
        if case["status"] != json!(status) || case["outcome"] != json!(outcome) {
            failures.push(format!(
                "{name}: expected {} {}, got {status} {outcome}",
                case["status"], case["outcome"]
            ));
        }
        if let (Some(want), Ok(parsed)) = (case["event_count"].as_u64(), &result) {
            if usize::try_from(want).ok() != Some(parsed.len()) {
                failures.push(format!(
                    "{name}: expected {want} events, got {}",
                    parsed.len()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
