//! The `/_emulator/` control endpoints, over real HTTP.

mod common;

use std::time::Duration;

use common::{Http, Receiver};
use iikocloud_emulator::*;
use serde_json::{json, Value};

const ORGS: &str = "/api/1/organizations";

fn start() -> (Emulator, Http) {
    let emu =
        Emulator::start(EmulatorConfig::default().delivery(DeliveryConfig::fast())).expect("start");
    let http = Http::new(emu.url());
    (emu, http)
}

fn control(http: &Http, path: &str, body: Value) -> Value {
    let r = http.post_raw(path, Some("application/json"), None, &body.to_string());
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.json()
}

#[test]
fn health_requests_and_reset_log() {
    let (emu, http) = start();
    assert_eq!(http.get("/_emulator/health").json()["ok"], true);
    let token = http.token();
    http.post(ORGS, Some(&token), &json!({}));
    let log = http.get("/_emulator/requests").json();
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[1]["path"], ORGS);
    assert_eq!(log[1]["status"], 200);
    assert_eq!(log[1]["authorized"], true);
    assert!(log[1]["correlationId"].is_string());
    assert!(log[1]["atUnixMs"].is_i64());
    let filtered = http
        .get("/_emulator/requests?path=%2Fapi%2F1%2Forganizations")
        .json();
    assert_eq!(filtered.as_array().unwrap().len(), 1);
    // The body may be empty for control POSTs.
    let r = http.post_raw("/_emulator/reset-log", None, None, "");
    assert_eq!(r.status, 200);
    assert!(emu.requests().is_empty());
}

#[test]
fn faults_over_http() {
    let (emu, http) = start();
    let token = http.token();
    control(
        &http,
        "/_emulator/faults",
        json!({"path": ORGS, "kind": "status", "status": 503, "times": 2}),
    );
    control(
        &http,
        "/_emulator/faults",
        json!({"kind": "rate_limited", "retryAfter": 7, "path": "/api/1/stop_lists"}),
    );
    let listed = http.get("/_emulator/faults").json();
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert_eq!(emu.faults()[0], Fault::new(ORGS, FaultKind::Status(503), 2));
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 503);
    assert_eq!(http.delete("/_emulator/faults").status, 200);
    assert!(emu.faults().is_empty());
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 200);

    control(
        &http,
        "/_emulator/faults",
        json!(["unauthorized", {"kind": "delay", "ms": 10}]),
    );
    assert_eq!(emu.faults().len(), 2);
    control(&http, "/_emulator/faults/clear", json!({}));
    assert!(emu.faults().is_empty());

    let r = http.post_raw("/_emulator/faults", None, None, r#"{"kind":"bogus"}"#);
    assert_eq!(r.status, 400);
    let r = http.post_raw("/_emulator/faults", None, None, "{nope");
    assert_eq!(r.status, 400);
}

#[test]
fn expire_tokens_and_config_over_http() {
    let (emu, http) = start();
    let token = http.token();
    control(&http, "/_emulator/expire-tokens", json!({}));
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 401);

    let cfg = control(
        &http,
        "/_emulator/config",
        json!({"tokenTtlSecs": 0.25, "deliveryTimeoutSecs": 0.5, "retryDelaysSecs": [0.05], "blockAfterFailures": 3}),
    );
    assert_eq!(cfg["tokenTtlSecs"], 0.25);
    assert_eq!(emu.token_ttl(), Duration::from_millis(250));
    assert_eq!(
        emu.delivery_config(),
        DeliveryConfig {
            timeout: Duration::from_millis(500),
            retry_delays: vec![Duration::from_millis(50)],
            block_after_failures: 3
        }
    );
    assert_eq!(
        http.get("/_emulator/config").json()["blockAfterFailures"],
        3
    );
    let short = http.token();
    std::thread::sleep(Duration::from_millis(350));
    assert_eq!(http.post(ORGS, Some(&short), &json!({})).status, 401);
    // Invalid values change nothing.
    let r = http.post_raw(
        "/_emulator/config",
        None,
        None,
        r#"{"tokenTtlSecs": 5, "retryDelaysSecs": "x"}"#,
    );
    assert_eq!(r.status, 400);
    assert_eq!(emu.token_ttl(), Duration::from_millis(250));
    let r = http.post_raw("/_emulator/config", None, None, r#"{"tokenTtlSecs": -1}"#);
    assert_eq!(r.status, 400);
}

#[test]
fn events_and_deliveries_over_http() {
    let (emu, http) = start();
    let receiver = Receiver::start();
    let token = http.token();
    http.post(
        "/api/1/webhooks/update_settings",
        Some(&token),
        &json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": receiver.url, "authToken": "tok"}),
    );
    let created = control(
        &http,
        "/_emulator/events/delivery-order",
        json!({"organizationId": DEFAULT_ORGANIZATION_ID}),
    );
    let order_id = created["orderId"].as_str().unwrap().to_string();
    assert_eq!(created["events"][0]["eventType"], "DeliveryOrderUpdate");
    let moved = control(
        &http,
        "/_emulator/events/delivery-status",
        json!({"orderId": order_id, "status": "OnWay"}),
    );
    assert_eq!(moved["events"][0]["eventInfo"]["order"]["status"], "OnWay");
    // organizationId defaults to the first fixture organization.
    control(
        &http,
        "/_emulator/events/delivery-error",
        json!({"code": "InvalidPhone"}),
    );
    control(&http, "/_emulator/events/reserve-update", json!({}));
    control(&http, "/_emulator/events/reserve-error", json!({}));
    control(&http, "/_emulator/events/table-order-update", json!({}));
    control(&http, "/_emulator/events/table-order-error", json!({}));
    control(&http, "/_emulator/events/stop-list-change", json!({}));
    control(
        &http,
        "/_emulator/events/personal-shift",
        json!({"opened": false}),
    );
    control(
        &http,
        "/_emulator/events/custom",
        json!({"eventType": "NomenclatureUpdate", "eventInfo": {"revision": 5}}),
    );
    let raw = control(
        &http,
        "/_emulator/events/raw",
        json!({"body": {"not": "an array"}}),
    );
    assert_eq!(raw["body"], json!({"not": "an array"}));

    let waited = control(
        &http,
        "/_emulator/wait-deliveries",
        json!({"count": 11, "timeoutMs": 5000, "outcome": "delivered"}),
    );
    assert_eq!(waited["ok"], true, "{waited}");
    let log = http.get("/_emulator/deliveries").json();
    let types: Vec<Value> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["eventTypes"][0].clone())
        .collect();
    assert_eq!(
        types,
        vec![
            json!("DeliveryOrderUpdate"),
            json!("DeliveryOrderUpdate"),
            json!("DeliveryOrderError"),
            json!("ReserveUpdate"),
            json!("ReserveError"),
            json!("TableOrderUpdate"),
            json!("TableOrderError"),
            json!("StopListUpdate"),
            json!("PersonalShift"),
            json!("NomenclatureUpdate"),
            json!(""),
        ]
    );
    assert_eq!(log[0]["outcome"], "delivered");
    assert_eq!(log[0]["status"], 200);
    assert_eq!(log[0]["url"], receiver.url);
    assert_eq!(log[0]["organizationId"], DEFAULT_ORGANIZATION_ID);
    assert_eq!(receiver.count(), 11);
    assert_eq!(receiver.received()[10].json(), json!({"not": "an array"}));

    let hooks = http.get("/_emulator/webhooks").json();
    assert_eq!(hooks[0]["blocked"], false);
    assert_eq!(hooks[0]["webHooksUri"], receiver.url);

    let r = http.post_raw(
        "/_emulator/events/delivery-status",
        None,
        None,
        r#"{"orderId": "nope", "status": "Closed"}"#,
    );
    assert_eq!(r.status, 404);
    let r = http.post_raw(
        "/_emulator/events/delivery-order",
        None,
        None,
        r#"{"organizationId": "nope"}"#,
    );
    assert_eq!(r.status, 404);
    let r = http.post_raw("/_emulator/events/whatever", None, None, "{}");
    assert_eq!(r.status, 404);

    control(&http, "/_emulator/reset-deliveries", json!({}));
    assert!(emu.deliveries().is_empty());
    let waited = control(
        &http,
        "/_emulator/wait-deliveries",
        json!({"count": 1, "timeoutMs": 50}),
    );
    assert_eq!(waited["ok"], false);
}

#[test]
fn full_reset() {
    let (emu, http) = start();
    let token = http.token();
    http.post(
        "/api/1/webhooks/update_settings",
        Some(&token),
        &json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": "http://127.0.0.1:9/x"}),
    );
    emu.trigger_stop_list_change(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    emu.inject(Fault::once("*", FaultKind::Status(500)));
    control(&http, "/_emulator/reset", json!({}));
    assert!(emu.requests().is_empty());
    assert!(emu.faults().is_empty());
    assert!(emu.webhook_settings(DEFAULT_ORGANIZATION_ID).is_none());
    // Stop lists are back to the fixture; the old token still works.
    let v = http
        .post(
            "/api/1/stop_lists",
            Some(&token),
            &json!({"organizationIds": [DEFAULT_ORGANIZATION_ID]}),
        )
        .json();
    assert_eq!(
        v["terminalGroupStopLists"][0]["items"][0]["items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn unknown_control_endpoint() {
    let (_emu, http) = start();
    let r = http.get("/_emulator/nope");
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"], "NOT_FOUND");
}
