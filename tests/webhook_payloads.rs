//! Every shared payload file parses to the expected types and values.

use std::path::PathBuf;
use std::str::FromStr;

use iikocloud::api::models::deliveries::common::{Gender, OrderServiceType, PaymentTypeKind};
use iikocloud::api::models::deliveries::response::order::{Customer, OrderItem, OrderItemStatus};
use iikocloud::api::models::table_orders::response::SplitOrderBetweenCashRegisters;
use iikocloud::webhook::{
    parse_body, CreationStatus, DeliveryStatus, ErrorCode, Event, EventKind, OrderStatus,
    ParsedBody, ReserveStatus,
};
use iikocloud::Money;

const ORG: &str = "0ae7e972-848d-53c5-8a8f-3a120fa115ba";
const TERMINAL_GROUP: &str = "8d6bc30d-6951-5da4-99e6-6ff6ae14d870";

fn payloads_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/payloads")
}

fn parse(name: &str) -> ParsedBody {
    let body = std::fs::read(payloads_dir().join(name)).expect("payload file");
    let parsed = parse_body(&body).unwrap_or_else(|e| panic!("{name}: {e}"));
    for event in &parsed {
        assert_eq!(event.problem(), None, "{name}");
    }
    parsed
}

fn one(name: &str) -> Event {
    let mut parsed = parse(name);
    assert_eq!(parsed.len(), 1, "{name}");
    assert!(!parsed.single_object);
    parsed.events.remove(0)
}

fn money(text: &str) -> Money {
    Money::from_str(text).expect("decimal")
}

/// The display name of an order item: its product's, its service's or its
/// compound template's.
fn item_name(item: &OrderItem) -> Option<&str> {
    match item {
        OrderItem::Product(p) => p.product.as_ref()?.name.as_deref(),
        OrderItem::Service(s) => s.service.as_ref()?.name.as_deref(),
        OrderItem::Compound(c) => c.template.as_ref()?.name.as_deref(),
        OrderItem::Unknown(_) => None,
    }
}

#[test]
fn the_copies_match_the_shared_payloads_when_present() {
    // The repo carries its own copies; catch drift from the shared set.
    let shared = std::env::var_os("IIKO_PAYLOADS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/payloads"));
    let Ok(entries) = std::fs::read_dir(&shared) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().expect("file name");
            let ours = std::fs::read(payloads_dir().join(name))
                .unwrap_or_else(|_| panic!("{name:?} is not copied into tests/vectors/payloads"));
            assert_eq!(
                ours,
                std::fs::read(&path).expect("shared file"),
                "{name:?} differs"
            );
        }
    }
}

#[test]
fn delivery_order_update() {
    let e = one("delivery_order_update.json");
    assert_eq!(e.kind(), EventKind::DeliveryOrderUpdate);
    assert_eq!(e.kind().code(), 1);
    assert_eq!(e.event_type(), Some("DeliveryOrderUpdate"));
    let time = e.event_time().expect("eventTime");
    assert_eq!(time.raw, "2025-09-16 16:02:11.877");
    assert_eq!(
        time.utc.expect("parsed").to_rfc3339(),
        "2025-09-16T16:02:11.877+00:00"
    );
    assert_eq!(e.organization_id(), Some(ORG));
    assert_eq!(
        e.correlation_id(),
        Some("0885102e-6dcc-5fbd-bf84-0b17c24bce32")
    );
    assert!(e.raw_json().starts_with('{') && e.raw_json().contains("WEB-2025-000871"));

    assert_eq!(e.order_id(), Some("88ad6eef-3a98-5fe9-8bdb-4af52e46d835"));
    assert_eq!(e.timestamp(), Some(1_758_038_531_877));
    assert_eq!(e.creation_status(), Some(&CreationStatus::Success));
    assert_eq!(e.status(), Some("CookingStarted"));
    assert_eq!(e.order_number(), Some(10452));
    assert_eq!(e.sum().map(|m| m.to_string()).as_deref(), Some("1780"));
    assert_eq!(e.phone(), Some("+79161234567"));
    assert_eq!(e.error_code(), None);
    assert!(!e.is_new_delivery_order());

    let info = e.delivery().expect("delivery payload");
    assert_eq!(
        info.pos_id.as_deref(),
        Some("8ab7fd52-a581-516e-ad88-ad6b880d13b2")
    );
    assert_eq!(info.external_number.as_deref(), Some("WEB-2025-000871"));
    assert_eq!(info.error_info, None);
    let order = info.order.as_ref().expect("order");
    assert_eq!(order.status, Some(DeliveryStatus::CookingStarted));

    let Some(Customer::Regular(customer)) = order.customer.as_ref() else {
        panic!("a regular customer: {:?}", order.customer);
    };
    assert_eq!(customer.name.as_deref(), Some("Анна"));
    assert_eq!(customer.surname.as_deref(), Some("Иванова"));
    assert_eq!(customer.gender, Some(Gender::Female));
    assert_eq!(customer.in_blacklist, Some(false));
    assert_eq!(
        customer
            .birthdate
            .as_ref()
            .and_then(|b| b.local)
            .map(|d| d.to_string())
            .as_deref(),
        Some("1990-03-14 00:00:00")
    );

    let point = order.delivery_point.as_ref().expect("delivery point");
    let coords = point.coordinates.as_ref().expect("coordinates");
    assert_eq!(coords.latitude, Some(money("55.751244")));
    assert_eq!(coords.longitude, Some(money("37.618423")));
    let address = point.address.as_ref().expect("address");
    let street = address.street.as_ref().expect("street");
    assert_eq!(street.name.as_deref(), Some("Тверская"));
    assert_eq!(
        street.city.as_ref().and_then(|c| c.name.as_deref()),
        Some("Москва")
    );
    assert_eq!(address.house.as_deref(), Some("7"));
    assert_eq!(address.flat.as_deref(), Some("42"));
    assert_eq!(address.doorphone.as_deref(), Some("42К"));
    assert_eq!(address.region, None);
    assert_eq!(point.comment.as_deref(), Some("Код домофона 42К"));

    let created = order.when_created.as_ref().expect("whenCreated");
    assert_eq!(created.raw, "2025-09-16 19:00:04.512");
    assert_eq!(
        created.local.map(|d| d.to_string()).as_deref(),
        Some("2025-09-16 19:00:04.512")
    );
    assert_eq!(
        order.complete_before.as_ref().map(|t| t.raw.as_str()),
        Some("2025-09-16 20:00:00.000")
    );
    assert_eq!(order.when_printed, None);
    assert_eq!(order.delivery_duration, Some(60));
    assert_eq!(order.is_asap, Some(false));
    assert_eq!(order.delivery_zone.as_deref(), Some("Зона 1"));
    assert_eq!(
        order.operator.as_ref().and_then(|o| o.name.as_deref()),
        Some("Оператор Сайт")
    );
    assert_eq!(
        order.conception.as_ref().and_then(|c| c.code.as_deref()),
        Some("1")
    );
    assert_eq!(order.guests_info.as_ref().and_then(|g| g.count), Some(2));
    assert_eq!(order.terminal_group_id.as_deref(), Some(TERMINAL_GROUP));
    assert_eq!(order.processed_payments_sum, Some(money("1780")));
    assert_eq!(
        order
            .order_type
            .as_ref()
            .and_then(|t| t.order_service_type.clone()),
        Some(OrderServiceType::DeliveryByCourier)
    );

    let items = order.items.as_deref().expect("items");
    assert_eq!(items.len(), 3);
    let OrderItem::Product(pizza) = &items[0] else {
        panic!("a product: {:?}", items[0]);
    };
    assert_eq!(pizza.status, Some(OrderItemStatus::CookingStarted));
    assert_eq!(item_name(&items[0]), Some("Пицца Маргарита"));
    assert_eq!(pizza.amount, Some(money("1")));
    assert_eq!(pizza.price, Some(money("590")));
    assert_eq!(pizza.result_sum, Some(money("710")));
    assert_eq!(
        pizza.size.as_ref().and_then(|s| s.name.as_deref()),
        Some("32 см")
    );
    let modifiers = pizza.modifiers.as_deref().expect("modifiers");
    assert_eq!(modifiers.len(), 1);
    assert_eq!(
        modifiers[0]
            .product
            .as_ref()
            .and_then(|p| p.name.as_deref()),
        Some("Двойная моцарелла")
    );
    assert_eq!(modifiers[0].price, Some(money("120")));
    assert_eq!(modifiers[0].default_amount, Some(0));

    let OrderItem::Compound(half) = &items[1] else {
        panic!("a compound: {:?}", items[1]);
    };
    assert_eq!(item_name(&items[1]), Some("Пицца 50/50"));
    let primary = half.primary_component.as_ref().expect("primary");
    assert_eq!(
        primary.product.as_ref().and_then(|p| p.name.as_deref()),
        Some("Пицца Пепперони (половина)")
    );
    assert_eq!(primary.price, Some(money("340")));
    assert!(half.secondary_component.is_some());
    assert_eq!(half.common_modifiers.as_ref().map(Vec::len), Some(1));

    let OrderItem::Product(drink) = &items[2] else {
        panic!("a product: {:?}", items[2]);
    };
    assert_eq!(drink.status, Some(OrderItemStatus::Added));
    assert_eq!(drink.amount, Some(money("2")));
    assert_eq!(drink.cost, Some(money("300")));

    let payments = order.payments.as_deref().expect("payments");
    assert_eq!(payments.len(), 1);
    let pay = &payments[0];
    assert_eq!(pay.sum, Some(money("1780")));
    assert_eq!(pay.is_prepay, Some(true));
    let pay_type = pay.payment_type.as_ref().expect("payment type");
    assert_eq!(pay_type.kind, Some(PaymentTypeKind::External));
    assert_eq!(pay_type.name.as_deref(), Some("Оплата на сайте"));
    assert!(order.tips.as_ref().is_some_and(Vec::is_empty));
    assert!(order.discounts.as_ref().is_some_and(Vec::is_empty));
    assert!(order.combos.as_ref().is_some_and(Vec::is_empty));
    let external = order.external_data.as_deref().expect("externalData");
    assert_eq!(external.len(), 1);
    assert_eq!(external[0].key.as_deref(), Some("siteOrderId"));
    let loyalty = order.loyalty_info.as_ref().expect("loyalty");
    assert_eq!(loyalty.coupon, None);
    assert_eq!(loyalty.applied_manual_conditions, None);
}

#[test]
fn delivery_order_update_in_progress() {
    let e = one("delivery_order_update_in_progress.json");
    assert_eq!(e.kind(), EventKind::DeliveryOrderUpdate);
    assert_eq!(e.creation_status(), Some(&CreationStatus::InProgress));
    assert_eq!(e.order_id(), Some("88ad6eef-3a98-5fe9-8bdb-4af52e46d835"));
    assert_eq!(e.timestamp(), Some(1_758_038_403_990));
    let info = e.delivery().expect("payload");
    assert_eq!(info.order, None);
    assert_eq!(info.pos_id, None);
    assert_eq!(e.status(), None);
    assert_eq!(e.sum(), None);
    assert!(!e.is_new_delivery_order());
}

#[test]
fn delivery_order_update_cancelled() {
    let e = one("delivery_order_update_cancelled.json");
    assert_eq!(e.status(), Some("Cancelled"));
    assert_eq!(e.timestamp(), Some(1_758_039_645_318));
    let order = e.delivery().and_then(|i| i.order.as_ref()).expect("order");
    assert_eq!(order.status, Some(DeliveryStatus::Cancelled));
    let cancel = order.cancel_info.as_ref().expect("cancelInfo");
    assert_eq!(
        cancel.when_cancelled.as_ref().map(|t| t.raw.as_str()),
        Some("2025-09-16 19:20:45.000")
    );
    assert_eq!(
        cancel.cause.as_ref().and_then(|c| c.name.as_deref()),
        Some("Отказ клиента")
    );
    assert_eq!(cancel.comment.as_deref(), Some("Клиент передумал"));
    assert!(!e.is_new_delivery_order());
}

#[test]
fn delivery_order_error() {
    let e = one("delivery_order_error.json");
    assert_eq!(e.kind(), EventKind::DeliveryOrderError);
    assert_eq!(e.kind().code(), 2);
    assert_eq!(e.order_id(), Some("000d9800-070e-5919-8ec6-659454052b67"));
    assert_eq!(e.creation_status(), Some(&CreationStatus::Error));
    assert_eq!(e.error_code(), Some("ProductNotFound"));
    assert_eq!(
        e.error_message(),
        Some("Product ab3e2b45-4d53-5318-a4c7-9991e9a4885b not found.")
    );
    let err = e.error_info().expect("errorInfo");
    assert_eq!(err.code, Some(ErrorCode::ProductNotFound));
    assert_eq!(err.additional_data, None);
    assert_eq!(e.delivery().and_then(|i| i.order.as_ref()), None);
    assert!(!e.is_new_delivery_order());
}

#[test]
fn reserve_update() {
    let e = one("reserve_update.json");
    assert_eq!(e.kind(), EventKind::ReserveUpdate);
    assert_eq!(e.kind().code(), 5);
    assert_eq!(e.entity_id(), Some("2c1fe1a8-6405-5d20-a27a-147c98563569"));
    assert_eq!(e.order_id(), None);
    assert_eq!(e.status(), Some("New"));
    assert_eq!(e.phone(), Some("+79031112233"));
    let info = e.reserve().expect("payload");
    assert_eq!(info.external_number.as_deref(), Some("BOOK-3318"));
    assert_eq!(info.is_deleted, Some(false));
    let reserve = info.reserve.as_ref().expect("reserve");
    assert_eq!(reserve.status, Some(ReserveStatus::New));
    assert_eq!(reserve.guests_count, Some(4));
    assert_eq!(reserve.duration_in_minutes, Some(120));
    assert_eq!(reserve.should_remind, Some(true));
    assert_eq!(reserve.comment.as_deref(), Some("У окна"));
    assert_eq!(
        reserve.table_ids,
        Some(vec!["2ec521bb-1f36-51e0-b429-fca59cb9027a".to_owned()])
    );
    assert_eq!(
        reserve
            .estimated_start_time
            .as_ref()
            .and_then(|t| t.local)
            .map(|t| t.to_string())
            .as_deref(),
        Some("2025-09-20 19:30:00")
    );
    let Some(Customer::Regular(customer)) = reserve.customer.as_ref() else {
        panic!("a regular customer: {:?}", reserve.customer);
    };
    assert_eq!(customer.name.as_deref(), Some("Пётр"));
    assert_eq!(customer.gender, Some(Gender::Male));
    assert_eq!(reserve.order, None);
    assert_eq!(reserve.event_type, None);
    assert_eq!(e.sum(), None);
}

#[test]
fn reserve_update_banquet() {
    let e = one("reserve_update_banquet.json");
    assert_eq!(e.status(), Some("Started"));
    assert_eq!(e.order_number(), Some(731));
    assert_eq!(e.sum().map(|m| m.to_string()).as_deref(), Some("18400"));
    let reserve = e
        .reserve()
        .and_then(|i| i.reserve.as_ref())
        .expect("reserve");
    assert_eq!(reserve.guests_count, Some(12));
    assert_eq!(reserve.event_type.as_deref(), Some("День рождения"));
    assert_eq!(reserve.table_ids.as_ref().map(Vec::len), Some(2));
    let order = reserve.order.as_ref().expect("banquet order");
    let items = order.items.as_deref().expect("items");
    assert_eq!(items.len(), 2);
    assert_eq!(item_name(&items[0]), Some("Банкетное меню на персону"));
    let OrderItem::Product(menu) = &items[0] else {
        panic!("a product: {:?}", items[0]);
    };
    assert_eq!(menu.amount, Some(money("12")));
    assert_eq!(menu.cost, Some(money("18000")));
    let payments = order.payments.as_deref().expect("payments");
    assert_eq!(payments.len(), 1);
    assert_eq!(payments[0].sum, Some(money("5000")));
    assert_eq!(
        payments[0]
            .payment_type
            .as_ref()
            .and_then(|p| p.kind.clone()),
        Some(PaymentTypeKind::Card)
    );
    assert_eq!(order.loyalty_info, None);
    assert!(order.external_data.as_ref().is_none_or(Vec::is_empty));
}

#[test]
fn reserve_error() {
    let e = one("reserve_error.json");
    assert_eq!(e.kind(), EventKind::ReserveError);
    assert_eq!(e.kind().code(), 6);
    assert_eq!(e.error_code(), Some("DuplicatedReserveId"));
    assert_eq!(
        e.error_message(),
        Some("Reserve with the same id already exists.")
    );
    assert_eq!(e.reserve().and_then(|i| i.reserve.as_ref()), None);
}

#[test]
fn table_order_update() {
    let e = one("table_order_update.json");
    assert_eq!(e.kind(), EventKind::TableOrderUpdate);
    assert_eq!(e.kind().code(), 3);
    assert_eq!(e.order_id(), Some("f49731fe-f7d5-57bc-97bb-a589e293667a"));
    assert_eq!(e.status(), Some("Bill"));
    assert_eq!(e.order_number(), Some(5581));
    assert_eq!(e.sum().map(|m| m.to_string()).as_deref(), Some("1342"));
    assert_eq!(e.phone(), None);
    assert!(!e.is_new_delivery_order());
    let info = e.table_order().expect("payload");
    assert_eq!(info.external_number, None);
    let order = info.order.as_ref().expect("order");
    assert_eq!(order.status, Some(OrderStatus::Bill));
    assert_eq!(
        order.waiter.as_ref().and_then(|w| w.name.as_deref()),
        Some("Ольга")
    );
    assert_eq!(
        order.split_order_between_cash_registers,
        Some(SplitOrderBetweenCashRegisters::Disabled)
    );
    let items = order.items.as_deref().expect("items");
    assert_eq!(items.len(), 4);
    let OrderItem::Service(service) = &items[3] else {
        panic!("a service: {:?}", items[3]);
    };
    assert_eq!(item_name(&items[3]), Some("Обслуживание 10%"));
    assert_eq!(service.cost, Some(money("122")));
    let discounts = order.discounts.as_deref().expect("discounts");
    assert_eq!(discounts.len(), 1);
    assert_eq!(discounts[0].sum, Some(money("-122")));
    assert_eq!(
        discounts[0]
            .discount_type
            .as_ref()
            .and_then(|d| d.name.as_deref()),
        Some("Счастливый час 10%")
    );
    assert_eq!(order.processed_payments_sum, Some(money("0")));
    assert_eq!(order.customer, None);
}

#[test]
fn table_order_error() {
    let e = one("table_order_error.json");
    assert_eq!(e.kind(), EventKind::TableOrderError);
    assert_eq!(e.kind().code(), 4);
    assert_eq!(e.error_code(), Some("TerminalGroupDisabled"));
    assert_eq!(e.error_message(), Some("Terminal group is disabled."));
    assert_eq!(
        e.table_order().and_then(|i| i.external_number.as_deref()),
        Some("QR-77")
    );
}

#[test]
fn stop_list_update() {
    let e = one("stop_list_update.json");
    assert_eq!(e.kind(), EventKind::StopListUpdate);
    assert_eq!(e.kind().code(), 7);
    let updates = e
        .stop_list()
        .expect("payload")
        .terminal_groups_stop_lists_updates
        .as_deref()
        .expect("updates");
    assert_eq!(updates.len(), 2);
    assert_eq!(updates[0].id.as_deref(), Some(TERMINAL_GROUP));
    assert_eq!(updates[0].is_full, Some(false));
    assert_eq!(
        updates[1].id.as_deref(),
        Some("ffe857a4-ab67-5d5d-a78f-334a2e8a6a44")
    );
    assert_eq!(updates[1].is_full, Some(true));
    assert_eq!(e.entity_id(), None);
    assert_eq!(e.timestamp(), None);
}

#[test]
fn personal_shift() {
    let e = one("personal_shift.json");
    assert_eq!(e.kind(), EventKind::PersonalShift);
    assert_eq!(e.kind().code(), 8);
    let shift = e.personal_shift().expect("payload");
    assert_eq!(
        shift.id.as_deref(),
        Some("f21f3e37-950f-5459-bf35-6d75d7764c44")
    );
    assert_eq!(
        shift.role_id.as_deref(),
        Some("c74b432f-ad81-51ed-9204-12eb70420cef")
    );
    assert_eq!(shift.opened, Some(true));
    assert_eq!(shift.terminal_group_id.as_deref(), Some(TERMINAL_GROUP));
    assert_eq!(
        e.event_time().map(|t| t.raw.as_str()),
        Some("2025-09-16 06:58:02.640")
    );
}

#[test]
fn multi_all_types_in_order() {
    let parsed = parse("multi_all_types.json");
    let kinds: Vec<u32> = parsed.iter().map(|e| e.kind().code()).collect();
    assert_eq!(kinds, vec![1, 2, 5, 6, 3, 4, 7, 8]);
    // Each event equals the one parsed from its own file.
    for (event, file) in parsed.iter().zip([
        "delivery_order_update.json",
        "delivery_order_error.json",
        "reserve_update.json",
        "reserve_error.json",
        "table_order_update.json",
        "table_order_error.json",
        "stop_list_update.json",
        "personal_shift.json",
    ]) {
        let alone = one(file);
        assert_eq!(event.payload(), alone.payload(), "{file}");
        assert_eq!(event.dedup_key(), alone.dedup_key(), "{file}");
    }
}

#[test]
fn edge_empty_array() {
    let parsed = parse("edge_empty_array.json");
    assert!(parsed.is_empty());
    assert!(!parsed.single_object);
}

#[test]
fn edge_single_object_is_one_flagged_event() {
    let parsed = parse("edge_single_object_not_array.json");
    assert!(parsed.single_object);
    assert_eq!(parsed.len(), 1);
    let e = &parsed.events[0];
    assert_eq!(e.kind(), EventKind::StopListUpdate);
    assert_eq!(
        e.stop_list()
            .and_then(|s| s.terminal_groups_stop_lists_updates.as_ref())
            .map(Vec::len),
        Some(2)
    );
    assert_eq!(e.dedup_key(), one("stop_list_update.json").dedup_key());
}
