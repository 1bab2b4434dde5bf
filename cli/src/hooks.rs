//! Webhook debugging: `webhook parse`, `webhook verify`, `webhook listen`,
//! and the receiving endpoint the demo uses too.

use std::io::Read;
use std::net::SocketAddr;
use std::time::Duration;

use iikocloud::webhook::{
    http_status, parse_body, verify_authorization, Deduplicator, Event, EventKind, EventPayload,
    OrderingDecision, OrderingGuard, ReceiveError, Receiver, VerifyError,
};
use iikocloud::Secret;
use serde_json::{json, Value};

use crate::args::{GlobalOpts, ListenArgs, ParseArgs, VerifyArgs};
use crate::exit::{Exit, Failure};
use crate::output::{self, or_dash, print_json, table};

/// How many events the de-duplicator and the ordering guard remember.
const MEMORY: usize = 10_000;
/// How long an event is remembered for de-duplication.
const DEDUP_AGE: Duration = Duration::from_secs(24 * 3600);

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
            dedup: Deduplicator::new(MEMORY, DEDUP_AGE),
            guard: OrderingGuard::new(MEMORY),
        }
    }

    /// Reads one request, answers it at once with the status the SDK says,
    /// then judges its events (after answering, as the SDK recommends).
    pub fn serve(&self, mut rq: tiny_http::Request) -> Delivery {
        let method = rq.method().as_str().to_owned();
        let path = rq.url().to_owned();
        if !method.eq_ignore_ascii_case("POST") {
            let _ = rq.respond(tiny_http::Response::empty(405));
            return Delivery {
                status: 405,
                outcome: Outcome::WrongMethod,
                method,
                path,
            };
        }
        // One byte over the limit is enough for the parser to report
        // `too_large`; never buffer more than that.
        let limit = self.receiver.options().max_body_bytes() as u64 + 1;
        let mut body = Vec::new();
        let read = rq.as_reader().take(limit).read_to_end(&mut body);
        let headers: Vec<(String, String)> = rq
            .headers()
            .iter()
            .map(|h| {
                (
                    h.field.as_str().as_str().to_owned(),
                    h.value.as_str().to_owned(),
                )
            })
            .collect();
        let result = match read {
            Ok(_) => self.receiver.receive(headers, &body),
            Err(_) => {
                let _ = rq.respond(tiny_http::Response::empty(400));
                return Delivery {
                    method,
                    path,
                    status: 400,
                    outcome: Outcome::BrokenBody,
                };
            }
        };
        let status = http_status(&result);
        let _ = rq.respond(tiny_http::Response::empty(status));
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
    let server = tiny_http::Server::http((a.host.as_str(), a.port))
        .map_err(|e| Failure::failed(format!("cannot listen on {}:{}: {e}", a.host, a.port)))?;
    let addr: SocketAddr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| Failure::failed("the listener has no IP address"))?;
    let url = format!("http://{addr}");
    if g.json {
        println!("{}", json!({ "listening": url }));
    } else {
        println!("listening on {url} (POST to any path; Ctrl-C to stop)");
        println!("answering as the SDK says: 200 for events (and for unreadable bodies), 401 for a wrong token");
    }
    let endpoint = Endpoint::new(a.token.clone());
    if a.count == Some(0) {
        return Ok(());
    }
    for (i, rq) in server.incoming_requests().enumerate() {
        let delivery = endpoint.serve(rq);
        if g.json {
            println!("{}", delivery_json(&delivery)?);
        } else {
            print_delivery(&delivery);
        }
        let answered = i as u64 + 1;
        if a.count.is_some_and(|n| answered >= n) {
            break;
        }
    }
    Ok(())
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
