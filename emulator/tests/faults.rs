//! Fault injection, over real HTTP on loopback.

mod common;

use std::time::{Duration, Instant};

use common::Http;
use iikocloud_emulator::*;
use serde_json::json;

const ORGS: &str = "/api/1/organizations";

fn start() -> (Emulator, Http, String) {
    let emu = Emulator::start_default().expect("start");
    let http = Http::new(emu.url());
    let token = http.token();
    (emu, http, token)
}

#[test]
fn status_fault_fires_n_times_then_is_gone() {
    let (emu, http, token) = start();
    emu.inject(Fault::new(ORGS, FaultKind::Status(503), 2));
    for _ in 0..2 {
        let r = http.post(ORGS, Some(&token), &json!({}));
        assert_eq!(r.status, 503);
        assert_eq!(r.error_code(), "SERVICE_UNAVAILABLE");
    }
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 200);
    assert!(emu.faults().is_empty());
    let log = emu.requests();
    let faults: Vec<Option<&str>> = log.iter().map(|r| r.fault.as_deref()).collect();
    assert_eq!(faults, vec![None, Some("status"), Some("status"), None]);
    assert_eq!(log[1].status, 503);
    // Faulted requests still count as authorized when their token was valid.
    assert!(log[1].authorized);
}

#[test]
fn fault_matches_only_its_path_and_star_matches_all() {
    let (emu, http, token) = start();
    emu.inject(Fault::new("/api/1/stop_lists", FaultKind::Status(500), 1));
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 200);
    assert_eq!(emu.faults().len(), 1);
    emu.inject(Fault::new("*", FaultKind::Status(502), 1));
    // The first armed fault that matches wins.
    let r = http.post(
        "/api/1/stop_lists",
        Some(&token),
        &json!({"organizationIds": []}),
    );
    assert_eq!(r.status, 500);
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(r.status, 502);
    assert_eq!(r.error_code(), "BAD_GATEWAY");
    // Token endpoint is faultable too.
    emu.inject(Fault::once("*", FaultKind::Status(500)));
    let r = http.post("/api/v2/access_token", None, &json!({}));
    assert_eq!(r.status, 500);
    emu.inject(Fault::new("*", FaultKind::Status(500), 5));
    emu.clear_faults();
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 200);
}

#[test]
fn delay_then_normal_answer() {
    let (emu, http, token) = start();
    emu.inject(Fault::new(
        ORGS,
        FaultKind::Delay(Duration::from_millis(300)),
        1,
    ));
    let t = Instant::now();
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["organizations"].as_array().unwrap().len(), 2);
    assert_eq!(
        emu.requests().last().unwrap().fault.as_deref(),
        Some("delay")
    );
    let t = Instant::now();
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 200);
    assert!(t.elapsed() < Duration::from_millis(300));
}

#[test]
fn rate_limited_has_retry_after() {
    let (emu, http, token) = start();
    emu.inject(Fault::new(
        ORGS,
        FaultKind::RateLimited {
            retry_after_secs: 7,
        },
        1,
    ));
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(r.status, 429);
    assert_eq!(r.header("Retry-After").as_deref(), Some("7"));
    assert_eq!(r.error_code(), "TOO_MANY_REQUESTS");
}

#[test]
fn connection_reset_gives_a_transport_error() {
    let (emu, http, token) = start();
    emu.inject(Fault::new(ORGS, FaultKind::ConnectionReset, 1));
    let result = http.try_post(
        ORGS,
        Some("application/json"),
        Some(&format!("Bearer {token}")),
        "{}",
    );
    assert!(
        result.is_err(),
        "expected a connection error, got {result:?}"
    );
    let rec = emu.requests().into_iter().last().unwrap();
    assert_eq!(rec.status, 0);
    assert_eq!(rec.fault.as_deref(), Some("connection_reset"));
    assert_eq!(rec.correlation_id, None);
    // The server keeps serving, on new connections too.
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 200);
    assert_eq!(
        Http::new(emu.url())
            .post(ORGS, Some(&token), &json!({}))
            .status,
        200
    );
}

#[test]
fn malformed_body_and_wrong_content_type() {
    let (emu, http, token) = start();
    emu.inject(Fault::new(ORGS, FaultKind::MalformedBody, 1));
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(r.status, 200);
    assert!(r
        .header("Content-Type")
        .unwrap()
        .starts_with("application/json"));
    assert!(
        serde_json::from_str::<serde_json::Value>(&r.body).is_err(),
        "{}",
        r.body
    );

    emu.inject(Fault::new(ORGS, FaultKind::WrongContentType, 1));
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(r.status, 200);
    assert!(r.header("Content-Type").unwrap().starts_with("text/plain"));
    assert!(serde_json::from_str::<serde_json::Value>(&r.body).is_err());
    let faults: Vec<_> = emu
        .requests()
        .iter()
        .filter_map(|r| r.fault.clone())
        .collect();
    assert_eq!(faults, vec!["malformed_body", "wrong_content_type"]);
}

#[test]
fn unauthorized_despite_valid_token() {
    let (emu, http, token) = start();
    emu.inject(Fault::new(ORGS, FaultKind::Unauthorized, 1));
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(r.status, 401);
    assert_eq!(r.error_code(), "INVALID_TOKEN");
    assert!(emu.requests().last().unwrap().authorized);
    // The token still works: a client retrying with a new token (or the same) succeeds.
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 200);
}

#[test]
fn faults_do_not_touch_control_endpoints() {
    let (emu, http, _token) = start();
    emu.inject(Fault::new("*", FaultKind::Status(500), 3));
    assert_eq!(http.get("/_emulator/health").status, 200);
    assert_eq!(http.get("/_emulator/faults").json()[0]["times"], 3);
    assert_eq!(emu.requests().len(), 1, "control requests are not logged");
}
