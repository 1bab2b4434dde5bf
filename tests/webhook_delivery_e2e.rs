//! End to end: the emulator delivers webhooks over HTTP to a receiver built on
//! the SDK (`iikocloud::webhook::Receiver` + `Deduplicator`). The HTTP server
//! under the receiver is the emulator's `WebhookSink`; the receiver logic is
//! all SDK.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use iikocloud::webhook::{http_status, Deduplicator, EventKind, Receiver};
use iikocloud_emulator::{
    DeliveryConfig, DeliveryOutcome, Emulator, EmulatorConfig, SinkRequest, WebhookSink,
    DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_ORGANIZATION_ID,
};
use serde_json::{json, Value};

const TOKEN: &str = "e2e-hook-secret";
const WAIT: Duration = Duration::from_secs(10);

/// What the receiving application saw.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    kind: EventKind,
    event_type: String,
    order_id: Option<String>,
    status: Option<String>,
    sum: Option<String>,
}

/// A webhook endpoint as an application would write it with the SDK:
/// verify + parse, de-duplicate, record; answer the SDK's status.
struct App {
    receiver: Receiver,
    dedup: Deduplicator,
    seen: Mutex<Vec<Seen>>,
    duplicates: AtomicUsize,
    /// Answer 500 for this many more requests *after* processing them, like
    /// an endpoint that crashes before acknowledging.
    fail_after_processing: AtomicUsize,
}

impl App {
    fn new() -> Arc<App> {
        Arc::new(App {
            receiver: Receiver::new(TOKEN),
            dedup: Deduplicator::new(1000, Duration::from_secs(3600)),
            seen: Mutex::new(Vec::new()),
            duplicates: AtomicUsize::new(0),
            fail_after_processing: AtomicUsize::new(0),
        })
    }

    fn handle(&self, rq: &SinkRequest) -> u16 {
        let headers = rq.headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let result = self.receiver.receive(headers, &rq.body);
        let status = http_status(&result);
        if let Ok(parsed) = result {
            for event in parsed {
                if !self.dedup.first_seen(&event) {
                    self.duplicates.fetch_add(1, Ordering::SeqCst);
                    continue;
                }
                self.seen.lock().unwrap().push(Seen {
                    kind: event.kind(),
                    event_type: event.event_type().unwrap_or("").to_string(),
                    order_id: event.order_id().map(str::to_string),
                    status: event.status().map(str::to_string),
                    sum: event.sum().map(|m| m.to_string()),
                });
            }
        }
        let fail = self
            .fail_after_processing
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if fail {
            500
        } else {
            status
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

struct Setup {
    emu: Emulator,
    sink: WebhookSink,
    app: Arc<App>,
    agent: ureq::Agent,
    token: String,
}

impl Setup {
    fn new(delivery: DeliveryConfig) -> Setup {
        let emu = Emulator::start(EmulatorConfig::default().delivery(delivery)).expect("emulator");
        let app = App::new();
        let handler_app = Arc::clone(&app);
        let sink = WebhookSink::start(move |rq| handler_app.handle(rq)).expect("sink");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .build()
            .into();
        let mut s = Setup {
            emu,
            sink,
            app,
            agent,
            token: String::new(),
        };
        let v = s.post(
            "/api/v2/access_token",
            json!({"appId": DEFAULT_APP_ID, "clientSecret": DEFAULT_CLIENT_SECRET, "apiKey": DEFAULT_API_KEY}),
        );
        s.token = v["token"].as_str().expect("token").to_string();
        s
    }

    fn post(&self, path: &str, body: Value) -> Value {
        let mut rq = self
            .agent
            .post(format!("{}{}", self.emu.url(), path))
            .header("Content-Type", "application/json");
        if !self.token.is_empty() {
            rq = rq.header("Authorization", format!("Bearer {}", self.token));
        }
        let mut resp = rq.send(body.to_string().as_bytes()).expect("POST");
        assert_eq!(resp.status().as_u16(), 200, "{path}");
        let text = resp.body_mut().read_to_string().expect("body");
        serde_json::from_str(&text).expect("JSON")
    }

    /// Points the organization's webhook at the SDK receiver.
    fn configure(&self, auth_token: &str) {
        self.post(
            "/api/1/webhooks/update_settings",
            json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": self.sink.url(), "authToken": auth_token}),
        );
    }

    fn outcomes(&self) -> Vec<DeliveryOutcome> {
        self.emu.deliveries().iter().map(|d| d.outcome).collect()
    }
}

#[test]
fn every_event_type_arrives_and_parses() {
    let s = Setup::new(DeliveryConfig::fast());
    s.configure(TOKEN);
    let org = DEFAULT_ORGANIZATION_ID;
    let order = s.emu.create_delivery_order(org).unwrap();
    s.emu
        .set_delivery_status(&order.id, "CookingStarted")
        .unwrap();
    s.emu.set_delivery_status(&order.id, "Cancelled").unwrap();
    s.emu
        .trigger_delivery_error(org, "ProductNotFound")
        .unwrap();
    s.emu.trigger_table_order_update(org).unwrap();
    s.emu
        .trigger_table_order_error(org, "TerminalGroupDisabled")
        .unwrap();
    s.emu.trigger_reserve_update(org).unwrap();
    s.emu
        .trigger_reserve_error(org, "DuplicatedReserveId")
        .unwrap();
    s.emu.trigger_stop_list_change(org).unwrap();
    s.emu.trigger_personal_shift(org, true).unwrap();
    s.emu
        .send_event(org, "NomenclatureUpdate", json!({"revision": 1}))
        .unwrap();
    assert!(s.emu.wait_for_successful_deliveries(11, WAIT));

    let seen = s.app.seen();
    let kinds: Vec<EventKind> = seen.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![
            EventKind::DeliveryOrderUpdate,
            EventKind::DeliveryOrderUpdate,
            EventKind::DeliveryOrderUpdate,
            EventKind::DeliveryOrderError,
            EventKind::TableOrderUpdate,
            EventKind::TableOrderError,
            EventKind::ReserveUpdate,
            EventKind::ReserveError,
            EventKind::StopListUpdate,
            EventKind::PersonalShift,
            EventKind::Unknown,
        ]
    );
    assert_eq!(seen[10].event_type, "NomenclatureUpdate");
    for (e, status) in seen[..3]
        .iter()
        .zip(["Unconfirmed", "CookingStarted", "Cancelled"])
    {
        assert_eq!(e.order_id.as_deref(), Some(order.id.as_str()));
        assert_eq!(e.status.as_deref(), Some(status));
        assert_eq!(e.sum.as_deref(), Some("1479.7"), "exact money");
    }
    assert_eq!(s.app.duplicates.load(Ordering::SeqCst), 0);
    // The emulator sent the bare token; the SDK accepted it.
    assert!(s
        .sink
        .requests()
        .iter()
        .all(|r| r.header("Authorization") == Some(TOKEN)));
}

#[test]
fn a_500_gets_the_retry_and_the_repeat_is_deduplicated() {
    let s = Setup::new(DeliveryConfig::fast());
    s.configure(TOKEN);
    // The endpoint processes the first delivery but fails to acknowledge it.
    s.app.fail_after_processing.store(1, Ordering::SeqCst);
    let order = s
        .emu
        .create_delivery_order(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    assert!(s.emu.wait_for_successful_deliveries(1, WAIT));
    assert_eq!(
        s.outcomes(),
        vec![DeliveryOutcome::Failed, DeliveryOutcome::Delivered]
    );
    let log = s.emu.deliveries();
    assert_eq!(log[0].status, Some(500));
    assert_eq!(log[1].attempt, 2);
    assert_eq!(log[0].body, log[1].body, "the retry repeats the same body");
    // Processed once; the retry was recognised as a duplicate.
    let seen = s.app.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].order_id.as_deref(), Some(order.id.as_str()));
    assert_eq!(s.app.duplicates.load(Ordering::SeqCst), 1);
}

#[test]
fn the_same_events_sent_twice_are_dropped_by_the_deduplicator() {
    let s = Setup::new(DeliveryConfig::fast());
    s.configure(TOKEN);
    // Build real events, then send the very same bodies again, as a service
    // repeating a delivery would.
    let order = s
        .emu
        .create_delivery_order(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    let shift = s
        .emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, false)
        .unwrap();
    s.emu
        .send_raw(DEFAULT_ORGANIZATION_ID, Value::Array(order.events.clone()))
        .unwrap();
    s.emu
        .send_raw(DEFAULT_ORGANIZATION_ID, Value::Array(shift))
        .unwrap();
    // A genuinely new change of the same order is not a duplicate.
    s.emu.set_delivery_status(&order.id, "WaitCooking").unwrap();
    assert!(s.emu.wait_for_successful_deliveries(5, WAIT));
    let statuses: Vec<Option<String>> = s.app.seen().iter().map(|e| e.status.clone()).collect();
    assert_eq!(
        statuses,
        vec![
            Some("Unconfirmed".to_string()),
            None,
            Some("WaitCooking".to_string())
        ]
    );
    assert_eq!(s.app.duplicates.load(Ordering::SeqCst), 2);
}

#[test]
fn a_receiver_that_keeps_rejecting_gets_blocked_until_settings_change() {
    let s = Setup::new(DeliveryConfig {
        timeout: Duration::from_secs(1),
        retry_delays: vec![Duration::from_millis(30); 5],
        block_after_failures: 3,
    });
    // The service is configured with a token the SDK receiver does not expect:
    // every delivery is answered 401.
    s.configure("not-the-token");
    s.emu
        .trigger_stop_list_change(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    assert!(s.emu.wait_for_deliveries(3, WAIT));
    assert!(s.emu.wait_for_delivery_idle(WAIT));
    assert_eq!(
        s.outcomes(),
        vec![
            DeliveryOutcome::Failed,
            DeliveryOutcome::Failed,
            DeliveryOutcome::GaveUp
        ]
    );
    assert!(s.emu.deliveries().iter().all(|d| d.status == Some(401)));
    assert!(s.emu.is_webhook_blocked(DEFAULT_ORGANIZATION_ID));
    assert!(s.app.seen().is_empty(), "nothing unverified was processed");

    // While blocked, nothing is sent.
    s.emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, true)
        .unwrap();
    assert!(s.emu.wait_for_deliveries(4, WAIT));
    assert_eq!(
        s.emu.deliveries()[3].outcome,
        DeliveryOutcome::DroppedBlocked
    );
    assert_eq!(s.sink.requests().len(), 3);

    // Fixing the settings unblocks; the next event reaches the receiver.
    s.configure(TOKEN);
    assert!(!s.emu.is_webhook_blocked(DEFAULT_ORGANIZATION_ID));
    s.emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, false)
        .unwrap();
    assert!(s.emu.wait_for_successful_deliveries(1, WAIT));
    let seen = s.app.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].kind, EventKind::PersonalShift);
}

#[test]
fn an_unreadable_but_authentic_body_is_acknowledged_not_retried() {
    let s = Setup::new(DeliveryConfig::fast());
    s.configure(TOKEN);
    // Not an array nor an event object: the SDK answers 200 so the service
    // does not retry the same bytes into a block.
    s.emu.send_raw(DEFAULT_ORGANIZATION_ID, json!(42)).unwrap();
    assert!(s.emu.wait_for_deliveries(1, WAIT));
    assert!(s.emu.wait_for_delivery_idle(WAIT));
    assert_eq!(s.outcomes(), vec![DeliveryOutcome::Delivered]);
    assert!(s.app.seen().is_empty());
}
