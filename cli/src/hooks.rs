//! Webhook debugging: `webhook parse`, `webhook verify`, `webhook listen`,
//! and the receiving endpoint the demo uses too.

use std::io::Read;
use std::net::ToSocketAddrs;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};

use iikocloud_http_server::{BodyError, Limits, Reply, Request, Response, Server, ServerConfig};

use iikocloud::webhook::{
    http_status, parse_body, verify_authorization, Deduplicator, Event, EventKind, EventPayload,
    OrderingDecision, OrderingGuard, ReceiveError, Receiver, VerifyError, STATUS_ACCEPTED,
    STATUS_BROKEN_REQUEST, STATUS_RETRY_LATER, STATUS_UNAUTHORIZED, STATUS_WRONG_METHOD,
};
use iikocloud::Secret;
use serde_json::{json, Value};

use crate::args::{GlobalOpts, ListenArgs, ParseArgs, VerifyArgs};
use crate::exit::{Exit, Failure};
use crate::output::{self, or_dash, print_json, table};

/// What the receiver decided about one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// First time seen and not older than what was applied: process it.
    New,
    /// Seen before (a repeated delivery): dropped.
    Duplicate,
    /// Older than the last applied version of its order or reserve: skipped.
    Stale {
        /// `timestamp` of the last applied event of that entity.
        last_applied: i64,
    },
    /// The event itself cannot be read (its neighbours are unaffected).
    Unreadable(String),
}

impl Verdict {
    /// A stable name for JSON output.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::New => "new",
            Verdict::Duplicate => "duplicate",
            Verdict::Stale { .. } => "stale",
            Verdict::Unreadable(_) => "unreadable",
        }
    }

    /// What the receiver does with the event, for humans.
    pub fn describe(&self) -> String {
        match self {
            Verdict::New => "new -> process".into(),
            Verdict::Duplicate => "duplicate -> dropped".into(),
            Verdict::Stale { last_applied } => {
                format!("stale: a newer version ({last_applied}) was applied -> skipped")
            }
            Verdict::Unreadable(p) => format!("unreadable -> logged: {p}"),
        }
    }
}

/// What one request brought.
#[derive(Debug)]
pub enum Outcome {
    /// Verified and parsed: each event with its verdict.
    Events(Vec<(Event, Verdict)>),
    /// Verification failed, or the body could not be read as a whole.
    Refused(ReceiveError),
    /// Not a POST; answered 405 without looking at it.
    WrongMethod,
    /// The body broke off while being read; answered 400 (a resend brings it
    /// whole).
    BrokenBody,
}

/// One request as handled: what was answered and what it held.
#[derive(Debug)]
pub struct Delivery {
    /// HTTP method.
    pub method: String,
    /// Request path.
    pub path: String,
    /// The status answered.
    pub status: u16,
    /// What the request brought.
    pub outcome: Outcome,
}

/// A webhook endpoint built from the SDK's pieces: [`Receiver`] (verify, then
/// parse), [`Deduplicator`] (repeats) and [`OrderingGuard`] (late versions).
pub struct Endpoint {
    receiver: Receiver,
    dedup: Deduplicator,
    guard: OrderingGuard,
}

impl Endpoint {
    /// An endpoint expecting `token` in the `Authorization` header.
    pub fn new(token: Secret) -> Endpoint {
        Endpoint {
            receiver: Receiver::new(token),
            // The sizes every binding uses by default, the core's.
            dedup: Deduplicator::new(
                Deduplicator::DEFAULT_CAPACITY,
                Deduplicator::DEFAULT_MAX_AGE,
            ),
            guard: OrderingGuard::new(OrderingGuard::DEFAULT_CAPACITY),
        }
    }

    /// The largest body the HTTP server should read for this endpoint; a
    /// longer one reaches [`Endpoint::serve`] as [`BodyError::TooLarge`].
    pub fn max_body_bytes(&self) -> usize {
        self.receiver.options().max_body_bytes()
    }

    /// Judges one request with the status the SDK says and its events'
    /// verdicts (in-memory look-ups, so answering is not held up).
    pub fn serve(&self, rq: Request) -> Delivery {
        let Request {
            method,
            target: path,
            headers,
            body,
            ..
        } = rq;
        if !method.eq_ignore_ascii_case("POST") {
            return Delivery {
                status: STATUS_WRONG_METHOD,
                outcome: Outcome::WrongMethod,
                method,
                path,
            };
        }
        let result = match body {
            Ok(body) => self.receiver.receive(headers, &body),
            Err(BodyError::TooLarge { limit }) => self
                .receiver
                .receive_oversized(headers, limit.saturating_add(1)),
            Err(BodyError::Broken(_)) => {
                return Delivery {
                    method,
                    path,
                    status: STATUS_BROKEN_REQUEST,
                    outcome: Outcome::BrokenBody,
                };
            }
        };
        let status = http_status(&result);
        let outcome = match result {
            Ok(parsed) => Outcome::Events(
                parsed
                    .into_iter()
                    .map(|e| {
                        let v = self.judge(&e);
                        (e, v)
                    })
                    .collect(),
            ),
            Err(e) => Outcome::Refused(e),
        };
        Delivery {
            method,
            path,
            status,
            outcome,
        }
    }

    /// Unreadable events first (they have no reliable key), then repeats,
    /// then late versions: the order of the SDK's documentation.
    fn judge(&self, event: &Event) -> Verdict {
        if let Some(problem) = event.problem() {
            return Verdict::Unreadable(problem.to_owned());
        }
        if !self.dedup.first_seen(event) {
            return Verdict::Duplicate;
        }
        match self.guard.observe(event) {
            OrderingDecision::Stale { last_applied } => Verdict::Stale { last_applied },
            _ => Verdict::New,
        }
    }
}

/// The first 8 characters of an id, enough to tell ids apart on screen.
pub fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// One line about what an event says (no type name, no secrets).
pub fn describe(event: &Event) -> String {
    if let Some(p) = event.problem() {
        return format!("UNREADABLE: {p}");
    }
    let mut parts = Vec::new();
    match event.payload() {
        EventPayload::DeliveryOrder(_) | EventPayload::TableOrder(_) | EventPayload::Reserve(_) => {
            let what = if matches!(event.payload(), EventPayload::Reserve(_)) {
                "reserve"
            } else {
                "order"
            };
            let mut s = format!("{what} {}", short(event.entity_id().unwrap_or("?")));
            if let Some(n) = event.order_number() {
                s.push_str(&format!(" #{n}"));
            }
            if let Some(st) = event.status() {
                s.push_str(&format!(" {st}"));
            }
            parts.push(s);
            if let Some(sum) = event.sum() {
                parts.push(format!("sum {sum}"));
            }
            if let Some(code) = event.error_code() {
                let msg = event
                    .error_message()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                parts.push(format!("error {code}{msg}"));
            } else if let Some(cs) = event.creation_status().filter(|c| c.as_str() != "Success") {
                parts.push(format!("creationStatus {}", cs.as_str()));
            }
        }
        EventPayload::StopList(s) => {
            let groups: Vec<String> = s
                .terminal_groups_stop_lists_updates
                .iter()
                .flatten()
                .map(|u| {
                    let full = if u.is_full == Some(true) {
                        ", full"
                    } else {
                        ""
                    };
                    format!(
                        "terminal group {}{full}",
                        short(u.id.as_deref().unwrap_or("?"))
                    )
                })
                .collect();
            parts.push(if groups.is_empty() {
                "stop lists changed".into()
            } else {
                format!("stop list changed: {}", groups.join("; "))
            });
        }
        EventPayload::PersonalShift(p) => parts.push(format!(
            "employee {} {} a shift on terminal group {}",
            short(p.id.as_deref().unwrap_or("?")),
            if p.opened == Some(true) {
                "opened"
            } else {
                "closed"
            },
            short(p.terminal_group_id.as_deref().unwrap_or("?"))
        )),
        _ => parts.push("(a type this SDK does not model; raw eventInfo kept)".into()),
    }
    parts.join(", ")
}

/// The type name to show: `eventType` as sent, for unknown types too.
pub fn type_name(event: &Event) -> &str {
    match event.kind() {
        EventKind::Unknown => event.event_type().unwrap_or("(no eventType)"),
        k => k.as_str(),
    }
}

/// The JSON of one event for `--json`: derived fields plus the typed event.
fn event_json(event: &Event) -> Result<Value, Failure> {
    Ok(json!({
        "eventType": event.event_type(),
        "kind": event.kind().as_str(),
        "kindCode": event.kind().code(),
        "summary": describe(event),
        "dedupKey": event.dedup_key().as_str(),
        "problem": event.problem(),
        "event": output::to_value(event)?,
    }))
}

/// `webhook parse [FILE]`.
pub fn parse(g: &GlobalOpts, a: &ParseArgs) -> Result<(), Failure> {
    let mut body = Vec::new();
    let source = match a.file.as_deref() {
        Some(p) if p.as_os_str() != "-" => {
            body = std::fs::read(p)
                .map_err(|e| Failure::input(format!("cannot read {}: {e}", p.display())))?;
            p.display().to_string()
        }
        _ => {
            std::io::stdin()
                .read_to_end(&mut body)
                .map_err(|e| Failure::input(format!("cannot read stdin: {e}")))?;
            "stdin".to_owned()
        }
    };
    let parsed = parse_body(&body).map_err(|e| {
        Failure::input(format!("malformed webhook body ({source}): {e}"))
            .with("kind", "malformed_body")
            .with("parseError", e.kind().as_str())
    })?;
    let invalid = parsed.invalid_events().count();
    if g.json {
        let events = parsed
            .iter()
            .map(event_json)
            .collect::<Result<Vec<_>, _>>()?;
        print_json(&json!({
            "count": parsed.len(),
            "invalid": invalid,
            "singleObject": parsed.single_object,
            "events": events,
        }));
    } else {
        println!("{} event(s) in {source}", parsed.len());
        if parsed.single_object {
            println!("note: the body is a single event object, not the documented array");
        }
        if !parsed.is_empty() {
            let rows: Vec<Vec<String>> = parsed
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    vec![
                        (i + 1).to_string(),
                        type_name(e).to_owned(),
                        or_dash(e.event_time().map(|t| t.raw.clone())),
                        or_dash(e.organization_id()),
                        describe(e),
                    ]
                })
                .collect();
            println!(
                "{}",
                table(
                    &["#", "TYPE", "EVENT TIME (UTC)", "ORGANIZATION", "DETAILS"],
                    &rows
                )
            );
        }
    }
    if a.strict && invalid > 0 {
        return Err(Failure::input(format!(
            "{invalid} event(s) cannot be read (--strict)"
        )));
    }
    Ok(())
}

/// `webhook verify`.
pub fn verify(g: &GlobalOpts, a: &VerifyArgs) -> Result<(), Failure> {
    match verify_authorization(Some(a.header.expose().as_bytes()), a.token.expose()) {
        Ok(()) => {
            if g.json {
                print_json(&json!({ "authentic": true }));
            } else {
                println!("authentic: the header carries the expected token");
            }
            Ok(())
        }
        Err(VerifyError::EmptyExpectedToken) => Err(Failure::usage(
            "the expected token (--token / IIKO_WEBHOOK_TOKEN) is empty",
        )),
        Err(e) => {
            if g.json {
                print_json(&json!({
                    "authentic": false,
                    "reason": e.as_str(),
                    "message": e.to_string(),
                }));
            } else {
                println!("not authentic ({}): {e}", e.as_str());
            }
            // The verdict is already on stdout; only the exit code is left.
            Err(Failure::new(Exit::Unverified, String::new()))
        }
    }
}

/// `webhook listen`.
pub fn listen(g: &GlobalOpts, a: &ListenArgs) -> Result<(), Failure> {
    if a.token.is_blank() {
        return Err(Failure::usage(
            "the expected token (--token / IIKO_WEBHOOK_TOKEN) is empty; it would refuse \
             every delivery",
        ));
    }
    let bind = (a.host.as_str(), a.port)
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| Failure::failed(format!("cannot resolve {}:{}", a.host, a.port)))?;
    let endpoint = Endpoint::new(a.token.clone());
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let done_tx = Mutex::new(done_tx);
    let answered = AtomicU64::new(0);
    let printing = Mutex::new(());
    let (json_out, count) = (g.json, a.count);
    let server = Server::start(
        ServerConfig::loopback("webhook-listen")
            .bind(bind)
            .limits(receiver_limits(&endpoint)),
        move |rq, _| {
            let n = answered.fetch_add(1, Ordering::SeqCst) + 1;
            if count.is_some_and(|max| n > max) {
                // Past --count while stopping: the service will resend.
                return Reply::Respond(Response::empty(STATUS_RETRY_LATER));
            }
            let delivery = endpoint.serve(rq);
            {
                let _one_at_a_time = printing.lock().unwrap_or_else(|p| p.into_inner());
                if json_out {
                    match delivery_json(&delivery) {
                        Ok(v) => println!("{v}"),
                        Err(e) => eprintln!("{}", e.message),
                    }
                } else {
                    print_delivery(&delivery);
                }
            }
            if count.is_some_and(|max| n >= max) {
                let _ = done_tx.lock().unwrap_or_else(|p| p.into_inner()).send(());
            }
            Reply::Respond(Response::empty(delivery.status))
        },
    )
    .map_err(|e| Failure::failed(format!("cannot listen on {}:{}: {e}", a.host, a.port)))?;
    let url = format!("http://{}", server.addr());
    if g.json {
        println!("{}", json!({ "listening": url }));
    } else {
        println!("listening on {url} (POST to any path; Ctrl-C to stop)");
        println!(
            "answering as the SDK says: {STATUS_ACCEPTED} for events (and for unreadable bodies), \
             {STATUS_UNAUTHORIZED} for a wrong token"
        );
    }
    if a.count == Some(0) {
        return Ok(());
    }
    // Without --count nothing sends: this waits until Ctrl-C ends the process.
    let _ = done_rx.recv();
    // Answers what is still in flight before exiting.
    server.shutdown();
    Ok(())
}

/// The HTTP server's limits for a webhook endpoint: bodies up to the
/// parser's limit, everything else as the server's defaults.
pub fn receiver_limits(endpoint: &Endpoint) -> Limits {
    Limits {
        max_body_bytes: endpoint.max_body_bytes(),
        ..Limits::default()
    }
}

fn print_delivery(d: &Delivery) {
    let head = format!(
        "[{}] {} {} -> {}",
        output::clock_now(),
        d.method,
        d.path,
        d.status
    );
    match &d.outcome {
        Outcome::Events(events) => {
            println!("{head}: {} event(s)", events.len());
            for (e, v) in events {
                println!("  {}  {}  => {}", type_name(e), describe(e), v.describe());
            }
        }
        Outcome::Refused(e) if e.is_authentic() => println!(
            "{head}: authentic but unreadable body, acknowledged so the service does not resend it: {e}"
        ),
        Outcome::Refused(e) => println!("{head}: rejected, body not parsed: {e}"),
        Outcome::WrongMethod => println!("{head}: ignored (webhooks are POSTed)"),
        Outcome::BrokenBody => println!("{head}: the body broke off while being read"),
    }
}

fn delivery_json(d: &Delivery) -> Result<Value, Failure> {
    let mut v = json!({
        "at": output::clock_now(),
        "method": d.method,
        "path": d.path,
        "status": d.status,
    });
    match &d.outcome {
        Outcome::Events(events) => {
            v["outcome"] = json!("accepted");
            let list = events
                .iter()
                .map(|(e, verdict)| {
                    let mut j = event_json(e)?;
                    j["verdict"] = json!(verdict.name());
                    Ok(j)
                })
                .collect::<Result<Vec<_>, Failure>>()?;
            v["events"] = Value::Array(list);
        }
        Outcome::Refused(e) => {
            v["outcome"] = json!(if e.is_authentic() {
                "unparseable"
            } else {
                "rejected"
            });
            v["error"] = json!(e.name());
            v["message"] = json!(e.to_string());
        }
        Outcome::WrongMethod => v["outcome"] = json!("wrong_method"),
        Outcome::BrokenBody => v["outcome"] = json!("broken_body"),
    }
    Ok(v)
}
