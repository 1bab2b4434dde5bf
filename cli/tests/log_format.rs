//! `--log-format`: `webhook serve` logs one JSON object per line with
//! `--log-format json` (time, level, target, message and the request's
//! fields, never the token), and text lines by default.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_iikocloud");
const TOKEN: &str = "logfmt-test-hooktoken-31c9";

fn body(i: usize) -> String {
    format!(
        r#"[{{"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877","organizationId":"0ae7e972-848d-53c5-8a8f-3a120fa115ba","correlationId":"c-{i}","eventInfo":{{"id":"order-{i}","timestamp":{},"creationStatus":"Success","order":{{"number":{i},"status":"Unconfirmed"}}}}}}]"#,
        1_758_038_531_877u64 + i as u64
    )
}

fn post(addr: SocketAddr, token: &str, body: &str) -> u16 {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "POST /hook HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer[9..12].parse().unwrap()
}

/// Runs `webhook serve` with `extra` arguments, posts an accepted and a
/// refused delivery, stops it, and returns its stderr.
fn serve_and_log(extra: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("iiko-logfmt-{}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir).unwrap();
    let inbox = format!("sqlite://{}", dir.join("inbox.db").display());
    let mut child: Child = Command::new(BIN)
        .args([
            "webhook",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--inbox",
            &inbox,
        ])
        .args(extra)
        .env("IIKO_WEBHOOK_TOKEN", TOKEN)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
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
    assert_eq!(post(addr, TOKEN, &body(1)), 200);
    assert_eq!(post(addr, "not-the-token", &body(2)), 401);
    // SIGTERM: the graceful stop writes its last lines; kill() as a fallback.
    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    if !stopped {
        let _ = child.kill();
    }
    let _ = child.wait();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!err.contains(TOKEN), "the token in the log:\n{err}");
    err
}

#[test]
fn json_lines_carry_time_level_target_message_and_fields() {
    let err = serve_and_log(&["--log-format", "json"]);
    let lines: Vec<serde_json::Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    for v in &lines {
        let time = v["time"].as_str().unwrap_or_else(|| panic!("no time: {v}"));
        assert!(time.ends_with('Z') && time.contains('T'), "{v}");
        assert!(v["level"].is_string() && v["message"].is_string(), "{v}");
        assert!(
            v["target"].as_str().unwrap().starts_with("iikocloud"),
            "{v}"
        );
    }
    assert!(lines.iter().any(|v| v["message"] == "serving"), "{err}");
    let requests: Vec<&serde_json::Value> =
        lines.iter().filter(|v| v["message"] == "webhook").collect();
    let statuses: Vec<i64> = requests
        .iter()
        .map(|v| v["status"].as_i64().unwrap())
        .collect();
    assert!(statuses.contains(&401), "{err}");
    assert!(requests.iter().all(|v| v["path"] == "/hook"), "{err}");
}

#[test]
fn text_is_the_default() {
    let err = serve_and_log(&[]);
    let serving = err
        .lines()
        .find(|l| l.contains(" serving "))
        .unwrap_or_else(|| panic!("no serving line:\n{err}"));
    assert!(serving.contains("UTC INFO"), "{serving}");
    assert!(serving.contains("listen=http://127.0.0.1:"), "{serving}");
    assert!(
        err.lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_err()),
        "{err}"
    );
}
