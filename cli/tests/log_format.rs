//! `--log-format`: `webhook serve` logs one JSON object per line with
//! `--log-format json` (time, level, target, message and the request's
//! fields, never the token), and text lines by default.

mod support;

use std::io::Read;
use std::process::{Command, Stdio};
use support::{address, event_body, post_hook, spawn_serve};

const TOKEN: &str = "logfmt-test-hooktoken-31c9";

/// Runs `webhook serve` with `extra` arguments, posts an accepted and a
/// refused delivery, stops it, and returns its stderr.
fn serve_and_log(extra: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("iiko-logfmt-{}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir).unwrap();
    let inbox = format!("sqlite://{}", dir.join("inbox.db").display());
    let mut args = vec!["--inbox", &inbox];
    args.extend_from_slice(extra);
    let (mut child, first) = spawn_serve(&args, &[("IIKO_WEBHOOK_TOKEN", TOKEN)], Stdio::piped());
    let addr = address(&first, "listening");
    assert_eq!(post_hook(addr, TOKEN, &event_body(1)), 200);
    assert_eq!(post_hook(addr, "not-the-token", &event_body(2)), 401);
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
