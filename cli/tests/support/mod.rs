//! What the receiver tests share: a webhook body, one HTTP request over a
//! fresh connection, and `webhook serve` started on a free port.
// Each test file is its own crate and uses a part of this.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_iikocloud");

/// A one-event delivery body; `i` makes its order id, correlation id and
/// timestamp its own.
pub fn event_body(i: usize) -> String {
    format!(
        r#"[{{"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877","organizationId":"0ae7e972-848d-53c5-8a8f-3a120fa115ba","correlationId":"c-{i}","eventInfo":{{"id":"order-{i}","timestamp":{},"creationStatus":"Success","order":{{"number":{i},"status":"Unconfirmed"}}}}}}]"#,
        1_758_038_531_877u64 + i as u64
    )
}

/// One request over a fresh connection with `authorization` as the header's
/// whole value (none when `None`): the status and the body, or `None` when
/// nothing answers (a receiver killed on purpose).
pub fn try_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    authorization: Option<&str>,
    body: &str,
) -> Option<(u16, String)> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let auth = authorization.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut answer = Vec::new();
    // A receiver may close without reading a refused body: keep what came.
    let _ = s.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    let status = answer.get(9..12)?.parse().ok()?;
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Some((status, body.to_owned()))
}

/// [`try_request`] that must be answered.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    authorization: Option<&str>,
    body: &str,
) -> (u16, String) {
    try_request(addr, method, path, authorization, body)
        .unwrap_or_else(|| panic!("no answer to {method} {path} from {addr}"))
}

/// A POST of a delivery to `/hook` with a bearer token: the status.
pub fn post_hook(addr: SocketAddr, token: &str, body: &str) -> u16 {
    request(
        addr,
        "POST",
        "/hook",
        Some(&format!("Bearer {token}")),
        body,
    )
    .0
}

/// Starts `webhook serve --listen 127.0.0.1:0 ARGS...` with `envs`, its
/// stderr to `stderr`; returns the process and its first stdout line (the
/// addresses it listens on) as JSON.
pub fn spawn_serve(
    args: &[&str],
    envs: &[(&str, &str)],
    stderr: Stdio,
) -> (Child, serde_json::Value) {
    let mut child = Command::new(BIN)
        .args(["webhook", "serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .envs(envs.iter().copied())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    (child, v)
}

/// The address under `key` (`listening`, `metrics`) of serve's first line.
pub fn address(first_line: &serde_json::Value, key: &str) -> SocketAddr {
    let url = first_line[key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {first_line}"));
    let host = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or("");
    host.parse().unwrap_or_else(|e| panic!("{e}: {url}"))
}
