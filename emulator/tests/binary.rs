//! The `iikocloud-emulator` binary.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use common::Http;
use serde_json::json;

/// Kills the child even when an assertion fails.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(args: &[&str]) -> (Guard, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_iikocloud-emulator"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the binary");
    let stdout = child.stdout.take().expect("stdout");
    let guard = Guard(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read the address line");
    let prefix = "iikocloud emulator listening on ";
    assert!(line.starts_with(prefix), "unexpected first line {line:?}");
    (guard, line[prefix.len()..].trim().to_string())
}

#[test]
fn port_zero_prints_its_address_and_serves() {
    let (_child, url) = spawn(&["--port", "0", "--token-ttl", "2.5"]);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    assert_ne!(port, 0);
    let http = Http::new(url);
    assert_eq!(http.get("/_emulator/health").status, 200);
    let token = http.token();
    assert_eq!(
        http.post("/api/1/organizations", Some(&token), &json!({}))
            .status,
        200
    );
    assert_eq!(http.get("/_emulator/config").json()["tokenTtlSecs"], 2.5);
}

#[test]
fn fixtures_file_and_delivery_options() {
    let dir = std::env::temp_dir().join(format!("emu-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.json");
    std::fs::write(
        &path,
        r#"{"apps":[{"appId":"a","clientSecret":"b"}],"apiKeys":[{"apiKey":"k","organizationIds":[]}],"organizations":[]}"#,
    )
    .unwrap();
    let (_child, url) = spawn(&[
        "--port",
        "0",
        "--fixtures",
        path.to_str().unwrap(),
        "--webhook-timeout",
        "0.5",
        "--webhook-retry-delays",
        "0.1,0.2",
        "--webhook-block-after",
        "3",
    ]);
    let http = Http::new(url);
    let r = http.post(
        "/api/v2/access_token",
        None,
        &json!({"appId": "a", "clientSecret": "b", "apiKey": "k"}),
    );
    assert_eq!(r.status, 200);
    let cfg = http.get("/_emulator/config").json();
    assert_eq!(cfg["deliveryTimeoutSecs"], 0.5);
    assert_eq!(cfg["retryDelaysSecs"], json!([0.1, 0.2]));
    assert_eq!(cfg["blockAfterFailures"], 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_fixtures_file_fails_with_a_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_iikocloud-emulator"))
        .args(["--port", "0", "--fixtures", "/nonexistent/fixtures.json"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}
