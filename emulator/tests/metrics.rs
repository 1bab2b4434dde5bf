//! `/metrics` on the emulator's port after a scripted run: requests by path
//! and status (a 401 for an expired token, a 400, an injected 429), tokens
//! issued and refused, webhook deliveries and their retries; a reset
//! clears them.

mod common;

use std::time::Duration;

use common::{Answer, Http, Receiver};
use iikocloud_emulator::*;
use serde_json::json;

/// The value of the one sample line `series` (name and labels as written).
fn sample(text: &str, series: &str) -> f64 {
    let found: Vec<f64> = text
        .lines()
        .filter_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .collect();
    assert_eq!(found.len(), 1, "{series} in\n{text}");
    found[0]
}

#[test]
fn metrics_count_the_scripted_traffic() {
    let emu =
        Emulator::start(EmulatorConfig::default().delivery(DeliveryConfig::fast())).expect("start");
    let http = Http::new(emu.url());
    let token = http.token();
    let orgs = json!({});
    for _ in 0..2 {
        let r = http.post("/api/1/organizations", Some(&token), &orgs);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    emu.inject(Fault::once(
        "/api/1/organizations",
        FaultKind::RateLimited {
            retry_after_secs: 1,
        },
    ));
    assert_eq!(
        http.post("/api/1/organizations", Some(&token), &orgs)
            .status,
        429
    );
    let bearer = format!("Bearer {token}");
    let bad = http.post_raw(
        "/api/1/organizations",
        Some("application/json"),
        Some(&bearer),
        "{not json",
    );
    assert_eq!(bad.status, 400, "{}", bad.body);
    emu.expire_tokens();
    assert_eq!(
        http.post("/api/1/organizations", Some(&token), &orgs)
            .status,
        401
    );
    let token = http.token();

    let receiver = Receiver::start();
    receiver.plan(&[Answer::Status(500)]);
    let settings = json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": receiver.url, "authToken": "metrics-hook-secret"});
    let r = http.post("/api/1/webhooks/update_settings", Some(&token), &settings);
    assert_eq!(r.status, 200, "{}", r.body);
    emu.trigger_personal_shift(DEFAULT_ORGANIZATION_ID, true)
        .unwrap();
    assert!(emu.wait_for_successful_deliveries(1, Duration::from_secs(10)));

    let text = http.get("/metrics").body;
    let orgs_at = |status: u16| {
        sample(
            &text,
            &format!("iiko_emulator_requests_total{{http_response_status_code=\"{status}\",http_route=\"/api/1/organizations\"}}"),
        )
    };
    assert_eq!(orgs_at(200), 2.0);
    assert_eq!(orgs_at(429), 1.0);
    assert_eq!(orgs_at(400), 1.0);
    assert_eq!(orgs_at(401), 1.0);
    assert_eq!(sample(&text, "iiko_emulator_tokens_issued_total"), 2.0);
    assert_eq!(
        sample(
            &text,
            "iiko_emulator_tokens_refused_total{reason=\"expired\"}"
        ),
        1.0
    );
    assert_eq!(
        sample(
            &text,
            "iiko_emulator_webhook_deliveries_total{outcome=\"failed\"}"
        ),
        1.0
    );
    assert_eq!(
        sample(
            &text,
            "iiko_emulator_webhook_deliveries_total{outcome=\"delivered\"}"
        ),
        1.0
    );
    assert_eq!(sample(&text, "iiko_emulator_webhook_retries_total"), 1.0);
    assert!(!text.contains("metrics-hook-secret") && !text.contains(&token));
    // /metrics is not API traffic: it is neither logged nor counted.
    assert!(!text.contains("http_route=\"/metrics\""), "{text}");

    emu.reset();
    let text = http.get("/metrics").body;
    assert!(!text.contains("iiko_emulator_requests_total{"), "{text}");
}
