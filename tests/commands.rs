//! Commands end to end against the emulator: typed creation of a delivery
//! order, waiting for its command, reading it back, moving it, the webhooks
//! each step sends, and the ways a wait ends without success.

use iikocloud::api::models::web_hooks::UpdateWebHookSettingsRequest;
use std::time::Duration;

use iikocloud::api::models::deliveries::request::create_order::{
    DeliveryOrder, OrderItem, ProductOrderItem,
};
use iikocloud::api::models::deliveries::request::update_order::ConfirmDeliveryRequest;
use iikocloud::api::models::deliveries::request::{
    CloseDeliveryOrderRequest, CreateOrderRequest, OrdersByIdRequest,
};
use iikocloud::api::models::stop_lists::{
    AddProductsToStopListItem, AddProductsToStopListRequest, StopListsRequest,
};
use iikocloud::api::WaitOptions;
use iikocloud::{Client, CommandErrorKind, Error, Money};
use iikocloud_emulator::{
    DeliveryConfig, Emulator, EmulatorConfig, Fault, FaultKind, WebhookSink, DEFAULT_API_KEY,
    DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_ORGANIZATION_ID as ORG,
    DEFAULT_TERMINAL_GROUP_ID, MENU_PRODUCTS,
};
use serde_json::Value;

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
            auth_token: Some("commands-test-token".into()),
            ..Default::default()
        })
        .expect("webhook set");
    (emu, client, sink)
}

fn order_request(order_id: &str, product: &str) -> CreateOrderRequest {
    CreateOrderRequest {
        organization_id: Some(ORG.into()),
        terminal_group_id: Some(DEFAULT_TERMINAL_GROUP_ID.into()),
        order: Some(DeliveryOrder {
            id: Some(order_id.into()),
            phone: Some("+79160000000".into()),
            items: Some(vec![OrderItem::Product(ProductOrderItem {
                product_id: Some(product.into()),
                amount: Some(Money::from(2)),
                price: Some(Money::from(590)),
                ..Default::default()
            })]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn event_types(sink: &WebhookSink) -> Vec<String> {
    sink.requests()
        .iter()
        .flat_map(|r| {
            serde_json::from_slice::<Vec<Value>>(&r.body)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|e| e["eventType"].as_str().map(str::to_string))
        })
        .collect()
}

#[test]
fn a_delivery_order_is_created_waited_for_read_back_and_closed() {
    let (_emu, client, sink) = setup();
    let id = "0d6c9a4e-1f2b-4c3d-8e5f-6a7b8c9d0e1f";
    let created = client
        .api()
        .deliveries()
        .create(&order_request(id, MENU_PRODUCTS[0].0))
        .expect("create");
    let info = created.order_info.expect("orderInfo");
    assert_eq!(info.id.as_deref(), Some(id));
    assert_eq!(
        info.creation_status.as_ref().map(|s| s.as_str()),
        Some("InProgress")
    );
    let cid = created.correlation_id.expect("correlationId");
    client
        .wait_command(ORG, &cid, &WaitOptions::default())
        .expect("the creation succeeds");

    let by_id = |client: &Client| {
        client
            .api()
            .deliveries()
            .by_id(&OrdersByIdRequest {
                organization_id: Some(ORG.into()),
                order_ids: Some(vec![id.into()]),
                ..Default::default()
            })
            .expect("by_id")
            .orders
            .unwrap_or_default()
    };
    let orders = by_id(&client);
    assert_eq!(orders.len(), 1);
    let order = orders[0].order.as_ref().expect("the order");
    assert_eq!(
        order.status.as_ref().map(|s| s.as_str()),
        Some("Unconfirmed")
    );
    assert_eq!(
        order.sum.as_ref().map(Money::to_string).as_deref(),
        Some("1180")
    );

    let confirm = client
        .api()
        .deliveries()
        .confirm(&ConfirmDeliveryRequest {
            organization_id: Some(ORG.into()),
            order_id: Some(id.into()),
            ..Default::default()
        })
        .expect("confirm");
    client
        .wait_command(
            ORG,
            &confirm.correlation_id.unwrap(),
            &WaitOptions::default(),
        )
        .expect("confirmed");
    let close = client
        .api()
        .deliveries()
        .close(&CloseDeliveryOrderRequest {
            organization_id: Some(ORG.into()),
            order_id: Some(id.into()),
            ..Default::default()
        })
        .expect("close");
    client
        .wait_command(ORG, &close.correlation_id.unwrap(), &WaitOptions::default())
        .expect("closed");
    let orders = by_id(&client);
    let status = orders[0].order.as_ref().and_then(|o| o.status.clone());
    assert_eq!(status.as_ref().map(|s| s.as_str()), Some("Closed"));

    assert!(sink.wait_for_requests(3, Duration::from_secs(5)));
    assert_eq!(
        event_types(&sink),
        [
            "DeliveryOrderUpdate",
            "DeliveryOrderUpdate",
            "DeliveryOrderUpdate"
        ]
    );
}

#[test]
fn an_unknown_product_fails_the_command_and_sends_an_order_error() {
    let (_emu, client, sink) = setup();
    let id = "1e7d0b5f-2a3c-4d4e-9f60-7b8c9d0e1f2a";
    let created = client
        .api()
        .deliveries()
        .create(&order_request(id, "ffffffff-0000-4000-8000-000000000001"))
        .expect("accepted: products are checked on the terminal");
    let err = client
        .wait_command(
            ORG,
            &created.correlation_id.unwrap(),
            &WaitOptions::default(),
        )
        .unwrap_err();
    let Error::Command(c) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(c.kind, CommandErrorKind::Failed);
    assert_eq!(c.reason.as_deref(), Some("ProductNotFound"));
    assert!(err.to_string().contains("failed: ProductNotFound"), "{err}");
    assert!(sink.wait_for_requests(1, Duration::from_secs(5)));
    assert_eq!(event_types(&sink), ["DeliveryOrderError"]);
}

#[test]
fn a_resend_with_the_same_order_id_does_not_create_a_second_order() {
    let (_emu, client, _sink) = setup();
    let id = "2f8e1c60-3b4d-4e5f-a071-8c9d0e1f2a3b";
    let request = order_request(id, MENU_PRODUCTS[1].0);
    client.api().deliveries().create(&request).expect("first");
    let again = client.api().deliveries().create(&request).unwrap_err();
    assert_eq!(again.http_status(), Some(400), "{again}");
    assert!(again.to_string().contains("already exists"), "{again}");
}

#[test]
fn waiting_ends_with_its_own_errors_for_time_and_unknown_ids() {
    let (_emu, client, _sink) = setup();
    let created = client
        .api()
        .deliveries()
        .create(&order_request(
            "3a9f2d71-4c5e-4f60-8182-9d0e1f2a3b4c",
            MENU_PRODUCTS[0].0,
        ))
        .expect("create");
    let quick = WaitOptions {
        timeout: Duration::from_millis(20),
        first_pause: Duration::from_millis(10),
        ..WaitOptions::default()
    };
    let err = client
        .wait_command(ORG, &created.correlation_id.unwrap(), &quick)
        .unwrap_err();
    assert!(
        matches!(&err, Error::Command(c) if c.kind == CommandErrorKind::TimedOut),
        "{err:?}"
    );
    assert!(err.to_string().contains("may yet finish"), "{err}");

    let err = client
        .wait_command(
            ORG,
            "4b0a3e82-5d6f-4071-9293-0e1f2a3b4c5d",
            &WaitOptions::default(),
        )
        .unwrap_err();
    assert!(
        matches!(&err, Error::Command(c) if c.kind == CommandErrorKind::Expired),
        "{err:?}"
    );
}

#[test]
fn stop_list_commands_change_the_stop_lists_and_send_updates() {
    let (_emu, client, sink) = setup();
    let product = "5c1b4f93-6e70-4182-a3a4-1f2a3b4c5d6e";
    let added = client
        .api()
        .stop_lists()
        .add(&AddProductsToStopListRequest {
            organization_id: Some(ORG.into()),
            terminal_group_id: Some(DEFAULT_TERMINAL_GROUP_ID.into()),
            items: Some(vec![AddProductsToStopListItem {
                product_id: Some(product.into()),
                balance: Some(Money::from(0)),
                ..Default::default()
            }]),
            ..Default::default()
        })
        .expect("add");
    client
        .wait_command(ORG, &added.correlation_id.unwrap(), &WaitOptions::default())
        .expect("added");
    let lists = client
        .stop_lists(&StopListsRequest {
            organization_ids: Some(vec![ORG.into()]),
            ..Default::default()
        })
        .expect("stop lists");
    let listed: Vec<String> = lists
        .terminal_group_stop_lists
        .iter()
        .flatten()
        .flat_map(|o| o.items.iter().flatten())
        .flat_map(|g| g.items.iter().flatten())
        .filter_map(|i| i.product_id.clone())
        .collect();
    assert!(listed.iter().any(|p| p == product), "{listed:?}");
    assert!(sink.wait_for_requests(1, Duration::from_secs(5)));
    assert_eq!(event_types(&sink), ["StopListUpdate"]);
}

fn count_orders(client: &Client) -> usize {
    client
        .api()
        .deliveries()
        .by_revision(
            &iikocloud::api::models::deliveries::request::OrdersByRevisionRequest {
                organization_ids: Some(vec![ORG.into()]),
                start_revision: Some(0),
                ..Default::default()
            },
        )
        .expect("by_revision")
        .orders_by_organizations
        .unwrap_or_default()
        .iter()
        .map(|o| o.orders.as_ref().map_or(0, Vec::len))
        .sum()
}

const CREATE: &str = "/api/1/deliveries/create";

#[test]
fn an_order_sent_without_an_id_gets_one() {
    let (_emu, client, _sink) = setup();
    let mut request = order_request("x", MENU_PRODUCTS[0].0);
    request.order.as_mut().unwrap().id = None;
    let answer = client.api().deliveries().create(&request).expect("create");
    let id = answer.order_info.and_then(|i| i.id).expect("an id");
    assert!(uuid_like(&id), "{id}");
}

fn uuid_like(s: &str) -> bool {
    s.len() == 36 && s.chars().filter(|c| *c == '-').count() == 4
}

#[test]
fn a_lost_answer_after_the_order_was_made_does_not_make_a_second() {
    let (emu, client, _sink) = setup();
    emu.inject(Fault::new(CREATE, FaultKind::AnswerLost, 1));
    let mut request = order_request("x", MENU_PRODUCTS[0].0);
    request.order.as_mut().unwrap().id = None;
    let info = client
        .create_delivery_order(&mut request, &WaitOptions::default())
        .expect("created once");
    let id = request
        .order
        .as_ref()
        .and_then(|o| o.id.clone())
        .expect("the id stays with the caller");
    assert_eq!(info.id.as_deref(), Some(id.as_str()));
    assert_eq!(
        info.creation_status.as_ref().map(|s| s.as_str()),
        Some("Success")
    );
    // Looked up, not sent again.
    assert_eq!(emu.request_count(CREATE), 1);
    assert_eq!(count_orders(&client), 1);
}

#[test]
fn a_create_lost_before_it_arrived_is_sent_once_more_with_the_same_id() {
    let (emu, client, _sink) = setup();
    emu.inject(Fault::new(CREATE, FaultKind::ConnectionReset, 1));
    let mut request = order_request("6d2c5e04-7f81-4293-b4b5-2a3b4c5d6e7f", MENU_PRODUCTS[0].0);
    let info = client
        .create_delivery_order(&mut request, &WaitOptions::default())
        .expect("created on the resend");
    assert_eq!(
        info.id.as_deref(),
        Some("6d2c5e04-7f81-4293-b4b5-2a3b4c5d6e7f")
    );
    assert_eq!(emu.request_count(CREATE), 2);
    assert_eq!(count_orders(&client), 1);
}

#[test]
fn commands_are_never_retried_and_reads_are() {
    let (emu, client, _sink) = setup();
    emu.inject(Fault::new(CREATE, FaultKind::Status(503), 1));
    let err = client
        .api()
        .deliveries()
        .create(&order_request(
            "7e3d6f15-8092-43a4-85c6-3b4c5d6e7f80",
            MENU_PRODUCTS[0].0,
        ))
        .unwrap_err();
    assert_eq!(err.http_status(), Some(503));
    assert_eq!(emu.request_count(CREATE), 1, "a command is sent once");
    let by_id = "/api/1/deliveries/by_id";
    emu.inject(Fault::new(by_id, FaultKind::Status(503), 1));
    client
        .api()
        .deliveries()
        .by_id(&OrdersByIdRequest {
            organization_id: Some(ORG.into()),
            order_ids: Some(vec!["7e3d6f15-8092-43a4-85c6-3b4c5d6e7f80".into()]),
            ..Default::default()
        })
        .expect("a read is retried after a 503");
    assert_eq!(emu.request_count(by_id), 2);
}
