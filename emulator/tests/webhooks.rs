//! Webhook events and their delivery to a receiver on loopback.

mod common;

use std::time::Duration;

use common::{is_uuid, Answer, Http, Receiver};
use iikocloud_emulator::*;
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(10);

struct Setup {
    emu: Emulator,
    http: Http,
    token: String,
    receiver: Receiver,
}

fn setup_with(delivery: DeliveryConfig) -> Setup {
    let emu = Emulator::start(EmulatorConfig::default().delivery(delivery)).expect("start");
    let http = Http::new(emu.url());
    let token = http.token();
    let receiver = Receiver::start();
    let s = Setup {
        emu,
        http,
        token,
        receiver,
    };
    s.configure(json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": s.receiver.url, "authToken": "hook-secret"}));
    s
}

fn setup() -> Setup {
    setup_with(DeliveryConfig::fast())
}

impl Setup {
    fn configure(&self, body: Value) {
        let r = self
            .http
            .post("/api/1/webhooks/update_settings", Some(&self.token), &body);
        assert_eq!(r.status, 200, "{}", r.body);
    }

    fn outcomes(&self) -> Vec<DeliveryOutcome> {
        self.emu.deliveries().iter().map(|d| d.outcome).collect()
    }
}

fn is_event_time(s: &str) -> bool {
    // yyyy-MM-dd HH:mm:ss.fff
    let b = s.as_bytes();
    b.len() == 23
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b' ',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            _ => c.is_ascii_digit(),
        })
}

#[test]
fn delivers_order_event_with_bare_auth_token() {
    let s = setup();
    let order = s
        .emu
        .create_delivery_order(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    assert!(s.emu.wait_for_deliveries(1, WAIT));
    let got = s.receiver.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].authorization.as_deref(), Some("hook-secret"));
    assert!(got[0]
        .content_type
        .as_deref()
        .unwrap()
        .starts_with("application/json"));
    let body = got[0].json();
    assert_eq!(body, Value::Array(order.events.clone()));
    let ev = &body[0];
    assert_eq!(ev["eventType"], "DeliveryOrderUpdate");
    assert!(
        is_event_time(ev["eventTime"].as_str().unwrap()),
        "{}",
        ev["eventTime"]
    );
    assert_eq!(ev["organizationId"], DEFAULT_ORGANIZATION_ID);
    assert!(is_uuid(ev["correlationId"].as_str().unwrap()));
    let info = &ev["eventInfo"];
    assert_eq!(info["id"], order.id.as_str());
    assert_eq!(info["organizationId"], DEFAULT_ORGANIZATION_ID);
    assert_eq!(info["creationStatus"], "Success");
    assert_eq!(info["errorInfo"], Value::Null);
    assert!(info["timestamp"].as_i64().unwrap() > 1_000_000_000_000);
    for key in ["posId", "externalNumber"] {
        assert!(info[key].is_string(), "{key}");
    }
    let o = &info["order"];
    assert_eq!(o["number"], order.number);
    assert_eq!(o["status"], "Unconfirmed");
    for key in [
        "phone",
        "sum",
        "items",
        "whenCreated",
        "customer",
        "deliveryPoint",
        "payments",
        "terminalGroupId",
        "completeBefore",
        "cookingStartTime",
        "guestsInfo",
        "orderType",
        "processedPaymentsSum",
    ] {
        assert!(o.get(key).is_some(), "order lacks {key}");
    }
    assert_eq!(o["terminalGroupId"], DEFAULT_TERMINAL_GROUP_ID);
    assert!(
        got[0].body.contains("\"sum\":1479.7"),
        "exact money on the wire"
    );

    let d = &s.emu.deliveries()[0];
    assert_eq!(d.outcome, DeliveryOutcome::Delivered);
    assert_eq!(d.attempt, 1);
    assert_eq!(d.status, Some(200));
    assert_eq!(d.url.as_deref(), Some(s.receiver.url.as_str()));
    assert_eq!(d.organization_id, DEFAULT_ORGANIZATION_ID);
    assert_eq!(d.event_types, vec!["DeliveryOrderUpdate"]);
    assert_eq!(d.body_json(), body);
}

#[test]
fn order_moves_through_statuses_with_increasing_timestamps() {
    let s = setup();
    let order = s
        .emu
        .create_delivery_order(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    let statuses = [
        "WaitCooking",
        "CookingStarted",
        "CookingCompleted",
        "Waiting",
        "OnWay",
        "Delivered",
        "Closed",
    ];
    for st in statuses {
        let ev = s.emu.set_delivery_status(&order.id, st).unwrap();
        assert_eq!(ev[0]["eventInfo"]["order"]["status"], st);
    }
    let cancelled = s
        .emu
        .create_delivery_order(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    let ev = s
        .emu
        .set_delivery_status(&cancelled.id, "Cancelled")
        .unwrap();
    assert!(ev[0]["eventInfo"]["order"]["cancelInfo"]["cause"]["name"].is_string());

    assert!(s.emu.wait_for_successful_deliveries(10, WAIT));
    let bodies: Vec<Value> = s
        .receiver
        .received()
        .iter()
        .map(|r| r.json()[0].clone())
        .collect();
    let first: Vec<&Value> = bodies
        .iter()
        .filter(|b| b["eventInfo"]["id"] == order.id.as_str())
        .collect();
    assert_eq!(first.len(), 8);
    let seen: Vec<&str> = first
        .iter()
        .map(|b| b["eventInfo"]["order"]["status"].as_str().unwrap())
        .collect();
    assert_eq!(seen[0], "Unconfirmed");
    assert_eq!(&seen[1..], &statuses);
    let stamps: Vec<i64> = first
        .iter()
        .map(|b| b["eventInfo"]["timestamp"].as_i64().unwrap())
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] < w[1]), "{stamps:?}");
    let closed = first[7]["eventInfo"]["order"].clone();
    assert!(closed["whenClosed"].is_string());
    assert!(closed["courierInfo"].is_object());

    assert!(matches!(
        s.emu.set_delivery_status("nope", "Closed"),
        Err(EmulatorError::UnknownOrder(_))
    ));
    assert!(matches!(
        s.emu
            .create_delivery_order("00000000-0000-4000-8000-000000000000"),
        Err(EmulatorError::UnknownOrganization(_))
    ));
}

#[test]
fn retries_after_500_until_200() {
    let s = setup();
    s.receiver.plan(&[Answer::Status(500), Answer::Status(503)]);
    s.emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, true)
        .unwrap();
    assert!(s.emu.wait_for_successful_deliveries(1, WAIT));
    assert_eq!(
        s.outcomes(),
        vec![
            DeliveryOutcome::Failed,
            DeliveryOutcome::Failed,
            DeliveryOutcome::Delivered
        ]
    );
    let log = s.emu.deliveries();
    assert_eq!(
        log.iter().map(|d| d.attempt).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(log[0].status, Some(500));
    assert_eq!(log[1].status, Some(503));
    assert!(log.iter().all(|d| d.batch_id == log[0].batch_id));
    let got = s.receiver.received();
    assert_eq!(got.len(), 3);
    assert!(
        got.iter().all(|r| r.body == got[0].body),
        "same body every attempt"
    );
    // Retry schedule: 100 ms then 200 ms.
    assert!(got[1].at.duration_since(got[0].at).unwrap() >= Duration::from_millis(100));
    assert!(got[2].at.duration_since(got[1].at).unwrap() >= Duration::from_millis(200));
    assert!(!s.emu.is_webhook_blocked(DEFAULT_ORGANIZATION_ID));
}

#[test]
fn no_answer_within_timeout_counts_as_failure() {
    let s = setup_with(DeliveryConfig {
        timeout: Duration::from_millis(300),
        retry_delays: vec![Duration::from_millis(50)],
        block_after_failures: 0,
    });
    s.receiver
        .plan(&[Answer::Slow(Duration::from_millis(1500))]);
    s.emu
        .trigger_reserve_update(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    assert!(s.emu.wait_for_successful_deliveries(1, WAIT));
    let log = s.emu.deliveries();
    assert_eq!(log[0].outcome, DeliveryOutcome::Failed);
    assert_eq!(log[0].status, None);
    assert!(log[0].error.is_some());
    assert_eq!(log[1].outcome, DeliveryOutcome::Delivered);
}

#[test]
fn gives_up_after_the_schedule_and_keeps_order() {
    let s = setup_with(DeliveryConfig {
        timeout: Duration::from_secs(1),
        retry_delays: vec![Duration::from_millis(20)],
        block_after_failures: 0,
    });
    s.receiver.plan(&[
        Answer::Status(500),
        Answer::Status(500),
        Answer::Status(500),
    ]);
    let first = s
        .emu
        .trigger_table_order_update(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    let second = s
        .emu
        .trigger_table_order_error(DEFAULT_ORGANIZATION_ID, "TerminalGroupDisabled")
        .unwrap();
    assert!(s.emu.wait_for_successful_deliveries(1, WAIT));
    assert_eq!(
        s.outcomes(),
        vec![
            DeliveryOutcome::Failed,
            DeliveryOutcome::GaveUp,
            DeliveryOutcome::Failed,
            DeliveryOutcome::Delivered
        ]
    );
    let got = s.receiver.received();
    assert_eq!(got[0].json(), Value::Array(first));
    assert_eq!(got[1].json(), got[0].json());
    assert_eq!(got[2].json(), Value::Array(second.clone()));
    assert_eq!(got[3].json(), Value::Array(second));
}

#[test]
fn repeated_failures_block_until_settings_are_updated() {
    let s = setup_with(DeliveryConfig {
        timeout: Duration::from_secs(1),
        retry_delays: vec![Duration::from_millis(20); 5],
        block_after_failures: 3,
    });
    s.receiver.set_default(500);
    s.emu
        .trigger_stop_list_change(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    s.emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, true)
        .unwrap();
    assert!(s.emu.wait_for_deliveries(4, WAIT));
    assert!(s.emu.wait_for_delivery_idle(WAIT));
    assert_eq!(
        s.outcomes(),
        vec![
            DeliveryOutcome::Failed,
            DeliveryOutcome::Failed,
            DeliveryOutcome::GaveUp,
            DeliveryOutcome::DroppedBlocked
        ]
    );
    assert!(s.emu.is_webhook_blocked(DEFAULT_ORGANIZATION_ID));
    assert_eq!(s.receiver.count(), 3);

    // Further events are not sent while blocked.
    s.receiver.set_default(200);
    s.emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, false)
        .unwrap();
    assert!(s.emu.wait_for_deliveries(5, WAIT));
    assert_eq!(
        s.emu.deliveries()[4].outcome,
        DeliveryOutcome::DroppedBlocked
    );
    assert_eq!(s.receiver.count(), 3);
    let states = s.emu.webhook_states();
    assert!(states[0].blocked);
    assert_eq!(states[0].consecutive_failures, 3);
    let hooks = s.http.get("/_emulator/webhooks").json();
    assert_eq!(hooks[0]["blocked"], true);

    // Updating the settings (same URL) unblocks.
    s.configure(json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": s.receiver.url, "authToken": "hook-secret"}));
    assert!(!s.emu.is_webhook_blocked(DEFAULT_ORGANIZATION_ID));
    s.emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, true)
        .unwrap();
    assert!(s.emu.wait_for_successful_deliveries(1, WAIT));
    assert_eq!(s.receiver.count(), 4);
    assert_eq!(
        s.receiver.received()[3].json()[0]["eventType"],
        "PersonalShift"
    );
}

#[test]
fn filter_is_honoured() {
    let s = setup();
    s.configure(json!({
        "organizationId": DEFAULT_ORGANIZATION_ID,
        "webHooksUri": s.receiver.url,
        "webHooksFilter": {
            "deliveryOrderFilter": {"orderStatuses": ["CookingStarted"], "errors": false},
            "stopListUpdateFilter": {"updates": true},
            "reserveFilter": {"updates": false, "errors": true}
        }
    }));
    let order = s
        .emu
        .create_delivery_order(DEFAULT_ORGANIZATION_ID)
        .unwrap(); // Unconfirmed: filtered
    s.emu
        .set_delivery_status(&order.id, "CookingStarted")
        .unwrap(); // sent
    s.emu
        .trigger_delivery_error(DEFAULT_ORGANIZATION_ID, "ProductNotFound")
        .unwrap(); // filtered
    s.emu
        .trigger_stop_list_change(DEFAULT_ORGANIZATION_ID)
        .unwrap(); // sent
    s.emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, true)
        .unwrap(); // no sub-filter: filtered
    s.emu
        .trigger_reserve_update(DEFAULT_ORGANIZATION_ID)
        .unwrap(); // filtered
    s.emu
        .trigger_reserve_error(DEFAULT_ORGANIZATION_ID, "DuplicatedReserveId")
        .unwrap(); // sent
    s.emu
        .send_raw(
            DEFAULT_ORGANIZATION_ID,
            json!([{"eventType": "PersonalShift"}]),
        )
        .unwrap(); // raw: sent
    assert!(s.emu.wait_for_deliveries(8, WAIT));
    assert!(s.emu.wait_for_delivery_idle(WAIT));
    let sent: Vec<String> = s
        .receiver
        .received()
        .iter()
        .map(|r| r.json()[0]["eventType"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        sent,
        vec![
            "DeliveryOrderUpdate",
            "StopListUpdate",
            "ReserveError",
            "PersonalShift"
        ]
    );
    let filtered = s
        .emu
        .deliveries()
        .iter()
        .filter(|d| d.outcome == DeliveryOutcome::Filtered)
        .count();
    assert_eq!(filtered, 4);
}

#[test]
fn without_settings_nothing_is_sent() {
    let s = setup();
    s.emu
        .trigger_personal_shift(SECOND_ORGANIZATION_ID, true)
        .unwrap();
    assert!(s.emu.wait_for_deliveries(1, WAIT));
    let d = &s.emu.deliveries()[0];
    assert_eq!(d.outcome, DeliveryOutcome::DroppedNoSettings);
    assert_eq!(d.url, None);
    assert_eq!(d.organization_id, SECOND_ORGANIZATION_ID);
    assert_eq!(s.receiver.count(), 0);
}

#[test]
fn stop_list_change_shows_up_in_stop_lists() {
    let s = setup();
    let before = s
        .http
        .post(
            "/api/1/stop_lists",
            Some(&s.token),
            &json!({"organizationIds": [DEFAULT_ORGANIZATION_ID]}),
        )
        .json();
    let count = |v: &Value| {
        v["terminalGroupStopLists"][0]["items"][0]["items"]
            .as_array()
            .unwrap()
            .len()
    };
    let events = s
        .emu
        .trigger_stop_list_change(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    assert_eq!(events[0]["eventType"], "StopListUpdate");
    assert_eq!(
        events[0]["eventInfo"],
        json!({"terminalGroupsStopListsUpdates": [{"id": DEFAULT_TERMINAL_GROUP_ID, "isFull": false}]})
    );
    let after = s
        .http
        .post(
            "/api/1/stop_lists",
            Some(&s.token),
            &json!({"organizationIds": [DEFAULT_ORGANIZATION_ID]}),
        )
        .json();
    assert_eq!(count(&after), count(&before) + 1);

    let item = StopListItem {
        balance: serde_json::from_str("0.3").unwrap(),
        product_id: "ee46395b-6b55-41b7-ab79-4d847de69c3b".into(),
        size_id: None,
        sku: Some("NEW".into()),
        date_add: None,
    };
    s.emu
        .add_stop_list_item(SECOND_ORGANIZATION_ID, SECOND_TERMINAL_GROUP_ID, item)
        .unwrap();
    let r = s.http.post(
        "/api/1/stop_lists",
        Some(&s.token),
        &json!({"organizationIds": [SECOND_ORGANIZATION_ID]}),
    );
    assert!(r.body.contains("\"balance\":0.3,"), "{}", r.body);
    assert!(matches!(
        s.emu.add_stop_list_item(
            SECOND_ORGANIZATION_ID,
            DEFAULT_TERMINAL_GROUP_ID,
            StopListItem {
                balance: 1.into(),
                product_id: "ee46395b-6b55-41b7-ab79-4d847de69c3b".into(),
                size_id: None,
                sku: None,
                date_add: None
            }
        ),
        Err(EmulatorError::UnknownTerminalGroup(_))
    ));
}

#[test]
fn event_shapes_of_every_type() {
    let s = setup();
    let err = &s
        .emu
        .trigger_delivery_error(DEFAULT_ORGANIZATION_ID, "ProductNotFound")
        .unwrap()[0];
    assert_eq!(err["eventType"], "DeliveryOrderError");
    assert_eq!(err["eventInfo"]["creationStatus"], "Error");
    assert_eq!(err["eventInfo"]["errorInfo"]["code"], "ProductNotFound");
    assert!(err["eventInfo"]["errorInfo"]["message"].is_string());
    assert_eq!(err["eventInfo"]["order"], Value::Null);

    let r = &s
        .emu
        .trigger_reserve_update(DEFAULT_ORGANIZATION_ID)
        .unwrap()[0];
    assert_eq!(r["eventType"], "ReserveUpdate");
    assert_eq!(r["eventInfo"]["isDeleted"], false);
    assert_eq!(r["eventInfo"]["reserve"]["status"], "New");
    for key in [
        "customer",
        "guestsCount",
        "durationInMinutes",
        "shouldRemind",
        "tableIds",
        "estimatedStartTime",
    ] {
        assert!(r["eventInfo"]["reserve"].get(key).is_some(), "{key}");
    }
    let r = &s
        .emu
        .trigger_reserve_error(DEFAULT_ORGANIZATION_ID, "DuplicatedReserveId")
        .unwrap()[0];
    assert_eq!(r["eventType"], "ReserveError");
    assert_eq!(r["eventInfo"]["errorInfo"]["code"], "DuplicatedReserveId");
    assert_eq!(r["eventInfo"]["reserve"], Value::Null);

    let t = &s
        .emu
        .trigger_table_order_update(DEFAULT_ORGANIZATION_ID)
        .unwrap()[0];
    assert_eq!(t["eventType"], "TableOrderUpdate");
    assert_eq!(t["eventInfo"]["order"]["status"], "New");
    assert!(t["eventInfo"]["order"]["tableIds"].is_array());
    let t = &s
        .emu
        .trigger_table_order_error(DEFAULT_ORGANIZATION_ID, "TerminalGroupDisabled")
        .unwrap()[0];
    assert_eq!(t["eventType"], "TableOrderError");
    assert_eq!(t["eventInfo"]["errorInfo"]["code"], "TerminalGroupDisabled");

    let p = &s
        .emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, false)
        .unwrap()[0];
    assert_eq!(p["eventType"], "PersonalShift");
    assert_eq!(p["eventInfo"]["opened"], false);
    assert_eq!(p["eventInfo"]["terminalGroupId"], DEFAULT_TERMINAL_GROUP_ID);
    assert!(is_uuid(p["eventInfo"]["id"].as_str().unwrap()));

    let c = &s
        .emu
        .send_event(
            DEFAULT_ORGANIZATION_ID,
            "KitchenOrderUpdate",
            json!({"x": 1}),
        )
        .unwrap()[0];
    assert_eq!(c["eventType"], "KitchenOrderUpdate");
    assert_eq!(c["eventInfo"], json!({"x": 1}));
    assert!(s.emu.wait_for_successful_deliveries(7, WAIT));
}

#[test]
fn raw_bodies_are_sent_as_is() {
    let s = setup();
    s.emu.send_raw(DEFAULT_ORGANIZATION_ID, json!([])).unwrap();
    s.emu
        .send_raw(
            DEFAULT_ORGANIZATION_ID,
            json!({"eventType": "PersonalShift"}),
        )
        .unwrap();
    assert!(s.emu.wait_for_successful_deliveries(2, WAIT));
    let got = s.receiver.received();
    assert_eq!(got[0].body, "[]");
    assert_eq!(got[1].json(), json!({"eventType": "PersonalShift"}));
}

#[test]
fn delivery_log_can_be_waited_on_and_cleared() {
    let s = setup();
    assert!(!s.emu.wait_for_deliveries(1, Duration::from_millis(50)));
    s.emu
        .trigger_personal_shift(DEFAULT_ORGANIZATION_ID, true)
        .unwrap();
    assert!(s
        .emu
        .wait_for_delivery_log(WAIT, |log| log.iter().any(|d| d.outcome.was_sent())));
    s.emu.clear_deliveries();
    assert!(s.emu.deliveries().is_empty());
    let mut config = s.emu.delivery_config();
    config.retry_delays.clear();
    s.emu.set_delivery_config(config.clone());
    assert_eq!(s.emu.delivery_config(), config);
}

#[test]
fn webhook_sink_records_and_answers() {
    let sink = WebhookSink::start(|rq| {
        if rq.body.is_empty() {
            204
        } else {
            panic!("boom")
        }
    })
    .unwrap();
    assert!(sink.url().starts_with("http://127.0.0.1:") && sink.url().ends_with("/webhook"));
    let http = Http::new(format!("http://{}", sink.addr()));
    assert_eq!(http.post_raw("/webhook", None, Some("tok"), "").status, 204);
    // A panicking handler answers 500.
    assert_eq!(
        http.post_raw("/webhook?x=1", Some("application/json"), None, "[]")
            .status,
        500
    );
    assert!(sink.wait_for_requests(2, WAIT));
    assert!(!sink.wait_for_requests(3, Duration::from_millis(20)));
    let got = sink.requests();
    assert_eq!(got[0].method, "POST");
    assert_eq!(got[0].header("authorization"), Some("tok"));
    assert_eq!(got[1].url, "/webhook?x=1");
    assert_eq!(got[1].body_text(), "[]");
    sink.stop();
}
