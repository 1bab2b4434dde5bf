//! `webhook serve --metrics`: deliveries (one of them repeated, one with a
//! wrong token) counted at `/metrics` in the Prometheus text format.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_iikocloud");
const TOKEN: &str = "metrics-test-hooktoken-77a1";

fn event_body(i: usize) -> String {
    format!(
        r#"[{{"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877","organizationId":"0ae7e972-848d-53c5-8a8f-3a120fa115ba","correlationId":"c-{i}","eventInfo":{{"id":"order-{i}","timestamp":{},"creationStatus":"Success","order":{{"number":{i},"status":"Unconfirmed"}}}}}}]"#,
        1_758_038_531_877u64 + i as u64
    )
}

/// One request over a fresh connection; the status and the body.
fn request(addr: SocketAddr, method: &str, path: &str, token: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

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
    let mut child = Command::new(BIN)
        .args([
            "webhook",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--inbox",
            &inbox,
        ])
        .args(["--metrics", "127.0.0.1:0"])
        .env("IIKO_WEBHOOK_TOKEN", TOKEN)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    let addr: SocketAddr = v["listening"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .parse()
        .unwrap();
    let metrics: SocketAddr = v["metrics"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .trim_end_matches("/metrics")
        .parse()
        .unwrap();

    for i in [1, 2, 3, 2] {
        assert_eq!(request(addr, "POST", "/hook", TOKEN, &event_body(i)).0, 200);
    }
    assert_eq!(
        request(addr, "POST", "/hook", "wrong", &event_body(4)).0,
        401
    );
    let (status, text) = request(metrics, "GET", "/metrics", "", "");
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
