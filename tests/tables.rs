//! Table orders and reserves end to end against the emulator: each command
//! is waited for, read back through the typed API, and announced by its
//! webhook event (`TableOrderUpdate`, `ReserveUpdate`).

use iikocloud::api::models::web_hooks::UpdateWebHookSettingsRequest;
use std::time::Duration;

use iikocloud::api::{call_by_name, WaitOptions};
use iikocloud::{Client, CommandErrorKind, Error};
use iikocloud_emulator::{
    DeliveryConfig, Emulator, EmulatorConfig, WebhookSink, DEFAULT_API_KEY, DEFAULT_APP_ID,
    DEFAULT_CLIENT_SECRET, DEFAULT_ORGANIZATION_ID as ORG, DEFAULT_TERMINAL_GROUP_ID,
    MENU_PRODUCTS,
};
use serde_json::{json, Value};

fn setup() -> (Emulator, Client, WebhookSink) {
    let emu = Emulator::start(EmulatorConfig::default().delivery(DeliveryConfig::fast()))
        .expect("emulator");
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()
        .expect("client");
    let sink = WebhookSink::answering(200).expect("sink");
    client
        .update_webhook_settings(&UpdateWebHookSettingsRequest {
            organization_id: Some(ORG.into()),
            web_hooks_uri: Some(sink.url()),
            auth_token: Some("tables-test-token".into()),
            ..Default::default()
        })
        .expect("webhook set");
    (emu, client, sink)
}

/// Calls a command and waits for it; the answer.
fn command(client: &Client, name: &str, request: Value) -> Result<Value, Error> {
    let answer = call_by_name(client, name, &request)?;
    let cid = answer["correlationId"].as_str().expect("correlationId");
    client.wait_command(ORG, cid, &WaitOptions::default())?;
    Ok(answer)
}

/// The webhook events of one type the sink got so far, in order.
fn events(sink: &WebhookSink, event_type: &str) -> Vec<Value> {
    sink.requests()
        .iter()
        .flat_map(|r| serde_json::from_slice::<Vec<Value>>(&r.body).unwrap_or_default())
        .filter(|e| e["eventType"] == event_type)
        .collect()
}

fn wait_for_events(sink: &WebhookSink, event_type: &str, n: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let found = events(sink, event_type);
        if found.len() >= n || std::time::Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_table_order_is_opened_added_to_closed_and_then_refuses_changes() {
    let (_emu, client, sink) = setup();
    let table = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d";
    let created = command(
        &client,
        "order.create",
        json!({
            "organizationId": ORG,
            "terminalGroupId": DEFAULT_TERMINAL_GROUP_ID,
            "order": {
                "tableIds": [table],
                "items": [{"type": "Product", "productId": MENU_PRODUCTS[0].0, "amount": 1, "price": 590}],
            },
        }),
    )
    .expect("opened");
    let id = created["orderInfo"]["id"].as_str().expect("id").to_string();
    assert_eq!(created["orderInfo"]["creationStatus"], "InProgress");

    command(
        &client,
        "order.add_items",
        json!({
            "organizationId": ORG,
            "orderId": id,
            "items": [{"type": "Product", "productId": MENU_PRODUCTS[1].0, "amount": 2, "price": 99.9}],
        }),
    )
    .expect("items added");
    let by_table = call_by_name(
        &client,
        "order.by_table",
        &json!({"organizationIds": [ORG], "tableIds": [table]}),
    )
    .expect("by table");
    let orders = by_table["orders"].as_array().expect("orders");
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0]["id"], json!(id));
    assert_eq!(orders[0]["order"]["sum"], json!(789.8));
    assert_eq!(
        orders[0]["order"]["items"].as_array().map(Vec::len),
        Some(2)
    );

    command(
        &client,
        "order.close",
        json!({"organizationId": ORG, "orderId": id}),
    )
    .expect("closed");
    let updates = wait_for_events(&sink, "TableOrderUpdate", 3);
    let statuses: Vec<&str> = updates
        .iter()
        .filter(|e| e["eventInfo"]["id"] == json!(id))
        .filter_map(|e| e["eventInfo"]["order"]["status"].as_str())
        .collect();
    assert_eq!(statuses, ["New", "New", "Closed"], "{updates:?}");

    // The terminal refuses to change a closed order: the command fails.
    let err = command(
        &client,
        "order.add_items",
        json!({
            "organizationId": ORG,
            "orderId": id,
            "items": [{"type": "Product", "productId": MENU_PRODUCTS[1].0, "amount": 1, "price": 99.9}],
        }),
    )
    .expect_err("closed");
    match &err {
        Error::Command(c) => {
            assert_eq!(c.kind, CommandErrorKind::Failed);
            assert!(err.to_string().contains("OrderIsClosed"), "{err}");
        }
        other => panic!("expected a failed command, got {other:?}"),
    }
    let by_id = client
        .api()
        .order()
        .by_id(
            &serde_json::from_value(json!({"organizationIds": [ORG], "orderIds": [id]}))
                .expect("request"),
        )
        .expect("typed by_id");
    let orders = by_id.orders.unwrap_or_default();
    let order = orders[0].order.as_ref().expect("the order");
    assert_eq!(order.status.as_ref().map(|s| s.as_str()), Some("Closed"));
    assert!(order.when_closed.is_some());
}

#[test]
fn a_reserve_is_created_read_back_and_cancelled() {
    let (_emu, client, sink) = setup();
    let created = command(
        &client,
        "reserve.create",
        json!({
            "organizationId": ORG,
            "terminalGroupId": DEFAULT_TERMINAL_GROUP_ID,
            "phone": "+79161234567",
            "durationInMinutes": 90,
            "shouldRemind": false,
            "tableIds": ["6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e"],
            "customer": {"type": "regular", "name": "Irina"},
            "guests": {"count": 3},
            "estimatedStartTime": "2026-12-01 19:00:00.000",
        }),
    )
    .expect("created");
    let id = created["reserveInfo"]["id"]
        .as_str()
        .expect("id")
        .to_string();
    let status = |client: &Client| {
        call_by_name(
            client,
            "reserve.status_by_id",
            &json!({"organizationId": ORG, "reserveIds": [id]}),
        )
        .expect("status")["reserves"][0]
            .clone()
    };
    let read = status(&client);
    assert_eq!(read["creationStatus"], "Success");
    assert_eq!(read["reserve"]["guestsCount"], 3);
    assert_eq!(read["reserve"]["durationInMinutes"], 90);
    assert_eq!(read["reserve"]["phone"], "+79161234567");

    command(
        &client,
        "reserve.cancel",
        json!({"organizationId": ORG, "reserveId": id, "cancelReason": "ClientNotAppeared"}),
    )
    .expect("cancelled");
    let read = status(&client);
    assert_eq!(read["isDeleted"], true);
    assert_eq!(read["reserve"]["cancelReason"], "ClientNotAppeared");
    let updates = wait_for_events(&sink, "ReserveUpdate", 2);
    assert_eq!(updates.len(), 2, "{updates:?}");
    assert_eq!(updates[1]["eventInfo"]["isDeleted"], true);

    let again = command(
        &client,
        "reserve.cancel",
        json!({"organizationId": ORG, "reserveId": id, "cancelReason": "ClientRefused"}),
    );
    assert!(again.is_err(), "a reserve is cancelled once");
}
