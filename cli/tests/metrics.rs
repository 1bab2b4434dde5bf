//! `webhook serve --metrics`: deliveries (one of them repeated, one with a
//! wrong token) counted at `/metrics` in the Prometheus text format.

mod support;

use std::process::Stdio;
use support::{address, event_body, post_hook, request, spawn_serve};

const TOKEN: &str = "metrics-test-hooktoken-77a1";

/// The value of the one sample of `name` whose labels include all of `labels`.
fn sample(text: &str, name: &str, labels: &[&str]) -> f64 {
    let found: Vec<f64> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.split(['{', ' ']).next() == Some(name))
        .filter(|l| labels.iter().all(|want| l.contains(want)))
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(found.len(), 1, "{name} {labels:?} in\n{text}");
    found[0]
}

#[test]
fn serve_counts_requests_and_events_at_metrics() {
    let dir = std::env::temp_dir().join(format!("iiko-metrics-{}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir).unwrap();
    let inbox = format!("sqlite://{}", dir.join("inbox.db").display());
    let (mut child, first) = spawn_serve(
        &["--inbox", &inbox, "--metrics", "127.0.0.1:0"],
        &[("IIKO_WEBHOOK_TOKEN", TOKEN)],
        Stdio::null(),
    );
    let addr = address(&first, "listening");
    let metrics = address(&first, "metrics");

    for i in [1, 2, 3, 2] {
        assert_eq!(post_hook(addr, TOKEN, &event_body(i)), 200);
    }
    assert_eq!(post_hook(addr, "wrong", &event_body(4)), 401);
    let (status, text) = request(metrics, "GET", "/metrics", None, "");
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(status, 200);

    assert!(
        text.contains("# TYPE iiko_webhook_requests_total counter"),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "iiko_webhook_requests_total",
            &["http_response_status_code=\"200\""]
        ),
        4.0
    );
    assert_eq!(
        sample(
            &text,
            "iiko_webhook_requests_total",
            &["http_response_status_code=\"401\""]
        ),
        1.0
    );
    let events = |outcome: &str| {
        sample(
            &text,
            "iiko_webhook_events_total",
            &[
                &format!("iiko_event_outcome=\"{outcome}\""),
                "iiko_event_type=\"DeliveryOrderUpdate\"",
            ],
        )
    };
    assert_eq!(events("new"), 3.0);
    assert_eq!(events("duplicate"), 1.0);
    assert_eq!(
        sample(
            &text,
            "iiko_webhook_event_lag_seconds_count",
            &["DeliveryOrderUpdate"]
        ),
        4.0
    );
}
