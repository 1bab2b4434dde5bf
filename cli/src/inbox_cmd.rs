//! `webhook serve` (a production receiver writing to a durable inbox) and
//! `webhook consume` (taking events out of it).

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use iikocloud::inbox::{Inbox, InboxOptions};
use iikocloud::limits::Given;
use iikocloud::store::Store;
use iikocloud::webhook::{
    ParseOptions, Receiver, STATUS_ACCEPTED, STATUS_BROKEN_REQUEST, STATUS_RETRY_LATER,
    STATUS_WRONG_METHOD,
};
use iikocloud_http_server::{BodyError, Limits, Reply, Response, Server, ServerConfig};
use serde_json::json;

use crate::args::{ConsumeArgs, GlobalOpts, ServeArgs};
use crate::exit::Failure;
use crate::stop;

/// One log line of serve or consume (`--log-format`). Only fields chosen
/// here are logged: never a header, a body or a URL with its password.
fn log_line(level: &str, msg: &str, fields: serde_json::Value) {
    crate::logfmt::line(level, "iikocloud::webhook", msg, fields);
}

/// `webhook serve`.
pub fn serve(g: &GlobalOpts, a: &ServeArgs) -> Result<(), Failure> {
    #[cfg(windows)]
    if let Some(name) = a.service.name.clone() {
        let (g, a) = (g.clone(), a.clone());
        let log_file = a.service.log_file.clone();
        return crate::service::run(&name, log_file, move |stop| serve_until(&g, &a, stop));
    }
    serve_until(g, a, stop::console_flag()?)
}

/// `webhook serve` until `stop` is set.
fn serve_until(_g: &GlobalOpts, a: &ServeArgs, stop: Arc<AtomicBool>) -> Result<(), Failure> {
    if a.auth_token.is_blank() {
        return Err(Failure::usage(
            "the expected token (--auth-token / IIKO_WEBHOOK_TOKEN) is empty; it would refuse every delivery",
        ));
    }
    let bind: SocketAddr = a
        .listen
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| {
            Failure::usage(format!(
                "--listen {:?}: not an address such as 127.0.0.1:8080",
                a.listen
            ))
        })?;
    // The flags were read by the core's limits when parsed; read here again
    // into the core's types.
    let options = InboxOptions::read(Given::Absent, Given::Absent, Given::Seconds(a.dedup_ttl))?;
    let max_body_bytes = usize::try_from(a.max_body_bytes).unwrap_or(usize::MAX);
    let inbox = Inbox::open_with(a.inbox.expose(), options)
        .map_err(|e| Failure::usage(format!("--inbox: {e}")))?;
    let store = match &a.store {
        Some(url) => {
            Some(Store::open(url.expose()).map_err(|e| Failure::usage(format!("--store: {e}")))?)
        }
        None => None,
    };
    let receiver = Receiver::new(a.auth_token.clone())
        .with_options(ParseOptions::new().with_max_body_bytes(max_body_bytes));
    let metrics = a
        .metrics
        .as_deref()
        .map(crate::metrics::start)
        .transpose()?;
    let inbox_name = inbox.url().to_string();
    let handler_inbox = inbox.clone();
    let server = Server::start(
        ServerConfig::loopback("webhook-serve")
            .bind(bind)
            .limits(Limits {
                max_body_bytes,
                request_timeout: Duration::from_secs(20),
                ..Limits::default()
            }),
        move |rq, _ctx| {
            let started = Instant::now();
            let inbox = &handler_inbox;
            if rq.path() == "/health" {
                return Reply::Respond(match inbox.counts() {
                    Ok(c) => Response::with_body(
                        200,
                        "application/json",
                        json!({"status": "ok", "pending": c.pending, "dead": c.dead}).to_string(),
                    ),
                    Err(e) => Response::with_body(
                        503,
                        "application/json",
                        json!({"status": "unavailable", "error": e.to_string()}).to_string(),
                    ),
                });
            }
            if !rq.method.eq_ignore_ascii_case("POST") {
                return Reply::Respond(
                    Response::empty(STATUS_WRONG_METHOD).header("Allow", "POST"),
                );
            }
            let peer = rq.peer.to_string();
            let path = rq.path().to_owned();
            let received = match &rq.body {
                Ok(body) => inbox.receive(
                    &receiver,
                    store.as_ref(),
                    rq.headers.iter().map(|(k, v)| (k, v)),
                    body,
                ),
                // Verified before anything is said about the body; the core
                // decides what to answer and notes it in the dead letters.
                Err(BodyError::TooLarge { limit }) => inbox.receive_oversized(
                    &receiver,
                    rq.headers.iter().map(|(k, v)| (k, v)),
                    limit.saturating_add(1),
                ),
                Err(BodyError::Broken(_)) => iikocloud::inbox::Received {
                    status: STATUS_BROKEN_REQUEST,
                    stored: 0,
                    repeats: 0,
                    error: Some("broken_body".into()),
                },
            };
            let level = match received.status {
                STATUS_ACCEPTED => "info",
                STATUS_RETRY_LATER => "error",
                _ => "warn",
            };
            log_line(
                level,
                "webhook",
                json!({
                    "peer": peer,
                    "path": path,
                    "status": received.status,
                    "stored": received.stored,
                    "repeats": received.repeats,
                    "error": received.error,
                    "ms": started.elapsed().as_secs_f64() * 1000.0,
                }),
            );
            Reply::Respond(Response::empty(received.status))
        },
    )
    .map_err(|e| Failure::failed(format!("cannot listen on {}: {e}", a.listen)))?;
    let url = format!("http://{}", server.addr());
    let metrics_url = metrics.as_ref().map(|(_, u)| u.clone());
    println!(
        "{}",
        json!({ "listening": url, "inbox": inbox_name, "metrics": metrics_url })
    );
    let _ = std::io::stdout().flush();
    log_line(
        "info",
        "serving",
        json!({ "listen": url, "inbox": inbox_name }),
    );
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
    }
    log_line("info", "stopping: answering requests in flight", json!({}));
    server.shutdown();
    if let Some((m, _)) = metrics {
        m.shutdown();
    }
    log_line("info", "stopped", json!({}));
    Ok(())
}

/// The event on one line: JSON strings cannot hold a raw line break, so the
/// line breaks of a pretty-printed event are whitespace and can go.
fn one_line(event: &str) -> String {
    event.replace(['\n', '\r'], " ")
}

/// `webhook consume`.
pub fn consume(g: &GlobalOpts, a: &ConsumeArgs) -> Result<(), Failure> {
    #[cfg(windows)]
    if let Some(name) = a.service.name.clone() {
        if a.exec.is_none() {
            // A service's stdout is its log file: events printed there would be acknowledged, then lost to the handler.
            return Err(Failure::usage(
                "--service: give --exec CMD, the handler each event goes to (a service has no stdout to print events to)",
            ));
        }
        let (g, a) = (g.clone(), a.clone());
        let log_file = a.service.log_file.clone();
        return crate::service::run(&name, log_file, move |stop| consume_until(&g, &a, stop));
    }
    consume_until(g, a, stop::console_flag()?)
}

/// `webhook consume` until `stop` is set (or the inbox is drained, or `--count`).
fn consume_until(g: &GlobalOpts, a: &ConsumeArgs, stop: Arc<AtomicBool>) -> Result<(), Failure> {
    let options = InboxOptions::read(
        Given::Seconds(a.visibility_timeout),
        Given::Int(i128::from(a.max_attempts)),
        Given::Absent,
    )?;
    let inbox = Inbox::open_with(a.inbox.expose(), options)
        .map_err(|e| Failure::usage(format!("--inbox: {e}")))?;
    let metrics = a
        .metrics
        .as_deref()
        .map(crate::metrics::start)
        .transpose()?;
    if let Some((_, url)) = &metrics {
        log_line("info", "metrics", json!({ "metrics": url }));
    }
    let mut done: u64 = 0;
    let mut pause = Duration::from_millis(20);
    let mut stdout = std::io::stdout().lock();
    while !stop.load(Ordering::SeqCst) && a.count.is_none_or(|n| done < n) {
        let delivery = match inbox.take() {
            Ok(Some(d)) => {
                pause = Duration::from_millis(20);
                d
            }
            Ok(None) if a.drain => break,
            Ok(None) => {
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
            Err(e) => {
                // A restarting Redis or a busy file: wait and try again.
                log_line(
                    "warn",
                    "inbox unavailable, retrying",
                    json!({"error": e.to_string()}),
                );
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(2));
                continue;
            }
        };
        let line = if g.json {
            json!({
                "id": delivery.id(),
                "attempt": delivery.attempt(),
                "key": delivery.key(),
                "receivedAtMs": delivery.received_at_ms(),
                "event": serde_json::value::RawValue::from_string(one_line(delivery.event_json())).ok(),
            })
            .to_string()
        } else {
            one_line(delivery.event_json())
        };
        let handled: Result<(), String> = match &a.exec {
            None => writeln!(stdout, "{line}")
                .and_then(|_| stdout.flush())
                .map_err(|e| format!("cannot write to stdout: {e}")),
            Some(cmd) => run_exec(cmd, &line),
        };
        match handled {
            Ok(()) => {
                // Acknowledge after the output, so a crash in between means
                // a repeat, never a loss. Retry through a restarting server.
                let mut tries = 0;
                loop {
                    match inbox.ack(&delivery) {
                        Ok(true) => break,
                        Ok(false) => {
                            log_line(
                                "warn",
                                "acknowledged too late: the event was handed out again",
                                json!({"id": delivery.id()}),
                            );
                            break;
                        }
                        Err(e) if tries < 50 => {
                            tries += 1;
                            log_line(
                                "warn",
                                "cannot acknowledge, retrying",
                                json!({"error": e.to_string()}),
                            );
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        Err(e) => return Err(Failure::failed(format!("cannot acknowledge: {e}"))),
                    }
                }
                done += 1;
            }
            Err(reason) => {
                if let Err(e) = inbox.release(&delivery, &reason) {
                    log_line(
                        "warn",
                        "cannot hand the event back; it returns after the visibility timeout",
                        json!({"error": e.to_string()}),
                    );
                }
                if a.exec.is_none() {
                    // stdout is gone (a closed pipe): nothing more can be printed.
                    return Err(Failure::failed(reason));
                }
                log_line(
                    "warn",
                    "handler failed",
                    json!({"id": delivery.id(), "reason": reason}),
                );
            }
        }
    }
    Ok(())
}

/// Runs CMD with the event line on stdin: `sh -c CMD`, on Windows
/// `cmd /d /c CMD` (its own quoting rules: the text goes to cmd as it is).
fn run_exec(cmd: &str, line: &str) -> Result<(), String> {
    #[cfg(not(windows))]
    let mut command = {
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmd);
        c
    };
    #[cfg(windows)]
    let mut command = {
        use std::os::windows::process::CommandExt;
        let mut c = Command::new("cmd");
        c.args(["/d", "/c"]).raw_arg(cmd);
        c
    };
    let mut child = command
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run --exec: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input is not an error.
        let _ = writeln!(stdin, "{line}");
    }
    let status = child.wait().map_err(|e| format!("--exec: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("--exec command failed ({status})"))
    }
}
