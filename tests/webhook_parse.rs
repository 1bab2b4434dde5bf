//! Parser behaviour beyond the shared payloads: unknown types, fields and enum
//! values, nulls, wrong types, broken events among good ones, body errors and
//! very large orders.

use iikocloud::api::models::deliveries::response::order::{Customer, OrderItem};
use iikocloud::webhook::{
    parse_body, parse_body_with, parse_event, CreationStatus, DeliveryStatus, ErrorCode, Event,
    EventKind, EventPayload, ParseError, ParseErrorKind, ParseOptions, MAX_DEPTH_CEILING,
};
use serde_json::{json, Value};

const ORDER_ID: &str = "88ad6eef-3a98-5fe9-8bdb-4af52e46d835";

fn delivery(order: Value) -> Value {
    json!({
        "eventType": "DeliveryOrderUpdate",
        "eventTime": "2025-09-16 16:02:11.877",
        "organizationId": "0ae7e972-848d-53c5-8a8f-3a120fa115ba",
        "correlationId": "0885102e-6dcc-5fbd-bf84-0b17c24bce32",
        "eventInfo": {
            "id": ORDER_ID,
            "organizationId": "0ae7e972-848d-53c5-8a8f-3a120fa115ba",
            "timestamp": 1758038531877_i64,
            "creationStatus": "Success",
            "errorInfo": null,
            "order": order
        }
    })
}

fn events(body: &Value) -> Vec<Event> {
    parse_body(body.to_string().as_bytes())
        .expect("body parses")
        .events
}

fn first(body: &Value) -> Event {
    events(body).remove(0)
}

fn kind_of(body: &[u8]) -> ParseErrorKind {
    parse_body(body).expect_err("body must fail").kind()
}

#[test]
fn unknown_event_types_keep_their_type_and_raw_info() {
    let body = json!([
        {"eventType": "KitchenOrderUpdate", "organizationId": "o", "eventInfo": {"id": "k1", "items": [1, 2]}},
        {"eventType": "NomenclatureUpdate", "eventInfo": {"revision": 7}},
        {"eventType": "BusinessHoursAndMappingUpdate", "eventInfo": null},
        {"eventType": "SomethingNew2030"},
    ]);
    let evs = events(&body);
    assert_eq!(evs.len(), 4);
    for e in &evs {
        assert_eq!(e.kind(), EventKind::Unknown);
        assert_eq!(e.kind().code(), 0);
        assert_eq!(e.problem(), None);
    }
    assert_eq!(evs[0].event_type(), Some("KitchenOrderUpdate"));
    assert_eq!(evs[0].organization_id(), Some("o"));
    assert_eq!(
        evs[0].unknown_event_info(),
        Some(r#"{"id":"k1","items":[1,2]}"#)
    );
    assert_eq!(evs[1].unknown_event_info(), Some(r#"{"revision":7}"#));
    assert_eq!(evs[2].unknown_event_info(), None);
    assert_eq!(evs[3].event_type(), Some("SomethingNew2030"));
    assert_eq!(evs[3].unknown_event_info(), None);
    // Unknown events still get distinct, stable keys.
    assert_ne!(evs[0].dedup_key(), evs[1].dedup_key());
    assert_eq!(
        evs[0].dedup_key(),
        first(&json!([body[0].clone()])).dedup_key()
    );
}

#[test]
fn unknown_fields_are_ignored_everywhere() {
    let mut body = delivery(json!({
        "status": "OnWay", "sum": 10.5, "number": 7, "futureField": {"deep": [1, {"x": null}]},
        "items": [{"type": "Product", "amount": 1, "product": {"id": "p", "name": "Tea", "extra": 1}, "newThing": true}]
    }));
    body["futureEnvelopeField"] = json!([1, 2, 3]);
    body["eventInfo"]["anotherNewField"] = json!("x");
    let e = first(&json!([body]));
    assert_eq!(e.problem(), None);
    assert_eq!(e.status(), Some("OnWay"));
    assert_eq!(e.sum().map(|m| m.to_string()).as_deref(), Some("10.5"));
    let order = e.delivery().and_then(|i| i.order.as_ref()).expect("order");
    let Some([OrderItem::Product(tea)]) = order.items.as_deref() else {
        panic!("one product: {:?}", order.items);
    };
    assert_eq!(
        tea.product.as_ref().and_then(|p| p.name.as_deref()),
        Some("Tea")
    );
    // Fields this version does not know are kept, at every level.
    assert_eq!(tea.extra.get("newThing"), Some(&json!(true)));
    assert_eq!(
        order.extra.get("futureField"),
        Some(&json!({"deep": [1, {"x": null}]}))
    );
}

#[test]
fn unknown_enum_values_are_kept_as_sent() {
    let mut body = delivery(json!({
        "status": "Teleported",
        "customer": {"type": "onetime", "name": "Гость"},
        "items": [{"type": "Hologram", "status": "Levitating", "amount": 1}],
        "payments": [{"paymentType": {"kind": "Crypto"}, "sum": 1}]
    }));
    body["eventInfo"]["creationStatus"] = json!("Pending");
    body["eventInfo"]["errorInfo"] = json!({"code": "BrandNewCode", "message": "m"});
    let e = first(&json!([body]));
    assert_eq!(e.problem(), None);
    assert_eq!(e.status(), Some("Teleported"));
    assert_eq!(
        e.creation_status(),
        Some(&CreationStatus::Unknown("Pending".into()))
    );
    assert_eq!(e.error_code(), Some("BrandNewCode"));
    assert_eq!(
        e.error_info().and_then(|i| i.code.clone()),
        Some(ErrorCode::Unknown("BrandNewCode".into()))
    );
    let order = e.delivery().and_then(|i| i.order.as_ref()).expect("order");
    // A union's unknown tag keeps the whole object as sent.
    assert_eq!(
        order.customer,
        Some(Customer::Unknown(
            json!({"type": "onetime", "name": "Гость"})
        ))
    );
    assert_eq!(
        order.items,
        Some(vec![OrderItem::Unknown(
            json!({"type": "Hologram", "status": "Levitating", "amount": 1})
        )])
    );
    assert!(!e.is_new_delivery_order());
}

#[test]
fn nulls_read_as_none() {
    let body = json!([{
        "eventType": "DeliveryOrderUpdate", "eventTime": null, "organizationId": null,
        "correlationId": null,
        "eventInfo": {"id": null, "timestamp": null, "creationStatus": null, "order": {
            "status": null, "sum": null, "number": null, "phone": null, "items": null,
            "payments": null, "customer": null, "whenCreated": null,
            "deliveryPoint": {"address": null, "coordinates": {"latitude": null}}
        }}
    }]);
    let e = first(&body);
    assert_eq!(e.problem(), None);
    assert_eq!(e.kind(), EventKind::DeliveryOrderUpdate);
    assert_eq!(
        (e.event_time(), e.organization_id(), e.correlation_id()),
        (None, None, None)
    );
    assert_eq!(
        (e.order_id(), e.timestamp(), e.creation_status()),
        (None, None, None)
    );
    assert_eq!(
        (e.status(), e.sum(), e.order_number(), e.phone()),
        (None, None, None, None)
    );
    let order = e.delivery().and_then(|i| i.order.as_ref()).expect("order");
    assert_eq!((&order.items, &order.payments), (&None, &None));
    let point = order.delivery_point.as_ref().expect("point");
    assert_eq!(point.address, None);
    assert_eq!(point.coordinates.as_ref().and_then(|c| c.latitude), None);
}

#[test]
fn missing_envelope_fields_are_none() {
    let body = json!([
        {},
        {"eventType": "PersonalShift"},
        {"eventInfo": {"id": "x"}},
        {"eventType": "StopListUpdate", "eventTime": "16.09.2025 16:45", "eventInfo": {}}
    ]);
    let evs = events(&body);
    assert_eq!(evs[0].kind(), EventKind::Unknown);
    assert_eq!(evs[0].event_type(), None);
    assert_eq!(
        evs[0].payload(),
        &EventPayload::Unknown { event_info: None }
    );
    // A known type without eventInfo is reported, not guessed.
    assert_eq!(evs[1].kind(), EventKind::PersonalShift);
    assert_eq!(evs[1].problem(), Some("eventInfo is missing"));
    assert_eq!(evs[2].kind(), EventKind::Unknown);
    assert_eq!(evs[2].unknown_event_info(), Some(r#"{"id":"x"}"#));
    // A surprising time format keeps its text.
    let time = evs[3].event_time().expect("eventTime");
    assert_eq!((time.raw.as_str(), time.utc), ("16.09.2025 16:45", None));
    assert_eq!(
        evs[3]
            .stop_list()
            .map(|s| s.terminal_groups_stop_lists_updates.is_none()),
        Some(true)
    );
}

#[test]
fn one_malformed_event_does_not_hide_the_others() {
    let good = delivery(json!({"status": "Unconfirmed", "sum": 1780.0, "number": 10452}));
    let body = json!([
        good,
        {"eventType": "DeliveryOrderUpdate", "correlationId": "c2", "eventInfo": "oops"},
        {"eventType": 5, "eventInfo": {}},
        42,
        "text",
        null,
        [],
        {"eventType": "ReserveUpdate", "eventInfo": [1, 2]},
        good,
    ]);
    let evs = events(&body);
    assert_eq!(evs.len(), 9);
    for i in [0, 8] {
        assert_eq!(evs[i].problem(), None);
        assert_eq!(evs[i].order_id(), Some(ORDER_ID));
        assert!(evs[i].is_new_delivery_order());
    }
    assert_eq!(evs[1].kind(), EventKind::DeliveryOrderUpdate);
    assert_eq!(evs[1].correlation_id(), Some("c2"));
    assert_eq!(
        evs[1].problem(),
        Some("eventInfo is null or not a JSON object")
    );
    assert_eq!(evs[2].event_type(), None);
    assert_eq!(evs[2].kind(), EventKind::Unknown);
    assert_eq!(
        evs[3].problem(),
        Some("event is a JSON number, not an object")
    );
    assert_eq!(evs[3].raw_json(), "42");
    assert_eq!(
        evs[4].problem(),
        Some("event is a JSON string, not an object")
    );
    assert_eq!(
        evs[5].problem(),
        Some("event is a JSON null, not an object")
    );
    assert_eq!(
        evs[6].problem(),
        Some("event is a JSON array, not an object")
    );
    assert_eq!(evs[7].kind(), EventKind::ReserveUpdate);
    assert!(evs[7].problem().is_some());
}

#[test]
fn wrong_typed_fields_read_leniently() {
    let body = json!([delivery(json!({
        "status": 3,
        "sum": "1780.50",
        "number": "10452",
        "phone": 79161234567_i64,
        "processedPaymentsSum": true,
        "deliveryDuration": 60.0,
        "indexInCourierRoute": 1.5,
        "isAsap": "yes",
        "customer": "Анна",
        "items": {"not": "a list"},
        "payments": [null, "cash", {"sum": "12.30"}, 7],
        "whenCreated": 20250916,
        "completeBefore": "2025-09-16 20:00:00",
        "tips": [{"sum": {"amount": 5}}]
    }))]);
    let e = first(&body);
    assert_eq!(e.problem(), None);
    let order = e.delivery().and_then(|i| i.order.as_ref()).expect("order");
    assert_eq!(order.status, None);
    assert_eq!(order.sum.map(|m| m.to_string()).as_deref(), Some("1780.5"));
    assert_eq!(order.number, Some(10452));
    assert_eq!(order.phone, None);
    assert_eq!(order.processed_payments_sum, None);
    assert_eq!(order.delivery_duration, Some(60));
    assert_eq!(order.index_in_courier_route, None);
    assert_eq!(order.is_asap, None);
    assert_eq!(order.customer, None);
    assert_eq!(order.items, None);
    let payments = order.payments.as_deref().expect("payments");
    assert_eq!(payments.len(), 1);
    assert_eq!(
        payments[0].sum.map(|m| m.to_string()).as_deref(),
        Some("12.3")
    );
    assert_eq!(order.when_created, None);
    let due = order.complete_before.as_ref().expect("completeBefore");
    assert_eq!(
        due.local.map(|t| t.to_string()).as_deref(),
        Some("2025-09-16 20:00:00")
    );
    let tips = order.tips.as_deref().expect("tips");
    assert_eq!(tips.len(), 1);
    assert_eq!(tips[0].sum, None);
}

#[test]
fn exact_sums() {
    for (sent, expected) in [
        ("1780.0", "1780"),
        ("1234.56", "1234.56"),
        ("0.30000000000000004", "0.30000000000000004"),
        ("99999999999.99", "99999999999.99"),
        ("-122.0", "-122"),
        ("1e3", "1000"),
        ("\"12.50\"", "12.5"),
        ("18446744073709551615", "18446744073709551615"),
    ] {
        let body = format!(
            r#"[{{"eventType":"TableOrderUpdate","eventInfo":{{"id":"t","order":{{"sum":{sent}}}}}}}]"#
        );
        let parsed = parse_body(body.as_bytes()).expect("parses");
        assert_eq!(
            parsed.events[0].sum().map(|m| m.to_string()).as_deref(),
            Some(expected),
            "{sent}"
        );
    }
}

#[test]
fn duplicate_keys_flag_the_event_and_keep_the_envelope() {
    let inner = r#"[{"eventType":"DeliveryOrderUpdate","organizationId":"org","correlationId":"c",
        "eventInfo":{"id":"a","id":"b","order":null}},
        {"eventType":"PersonalShift","eventType":"StopListUpdate","eventInfo":{}}]"#;
    let evs = parse_body(inner.as_bytes()).expect("parses").events;
    assert_eq!(evs[0].kind(), EventKind::DeliveryOrderUpdate);
    assert_eq!(evs[0].organization_id(), Some("org"));
    assert_eq!(evs[0].correlation_id(), Some("c"));
    let problem = evs[0].problem().expect("flagged");
    assert!(problem.contains("duplicate field `id`"), "{problem}");
    assert_eq!(evs[1].kind(), EventKind::PersonalShift);
    assert_eq!(
        evs[1].problem(),
        Some("duplicate field `eventType` in the event")
    );
}

#[test]
fn event_info_before_event_type_reads_the_same() {
    let normal = delivery(json!({"status": "WaitCooking", "sum": 5, "number": 1}));
    let text = normal.to_string();
    let info = serde_json::to_string(&normal["eventInfo"]).expect("json");
    let reordered = format!(
        r#"[{{"eventInfo":{info},"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877","organizationId":"0ae7e972-848d-53c5-8a8f-3a120fa115ba","correlationId":"0885102e-6dcc-5fbd-bf84-0b17c24bce32"}}]"#
    );
    let a = parse_body(format!("[{text}]").as_bytes()).expect("parses");
    let b = parse_body(reordered.as_bytes()).expect("parses");
    assert_eq!(a.events[0].payload(), b.events[0].payload());
    assert_eq!(a.events[0].dedup_key(), b.events[0].dedup_key());
    assert!(b.events[0].is_new_delivery_order());
}

#[test]
fn new_order_rule() {
    let status = |s: &str, kind: &str| {
        let mut body = delivery(json!({ "status": s }));
        body["eventType"] = json!(kind);
        first(&json!([body])).is_new_delivery_order()
    };
    assert!(status("New", "DeliveryOrderUpdate"));
    assert!(status("Unconfirmed", "DeliveryOrderUpdate"));
    assert!(status("WaitCooking", "DeliveryOrderUpdate"));
    for later in [
        "ReadyForCooking",
        "CookingStarted",
        "CookingCompleted",
        "Waiting",
        "OnWay",
        "Delivered",
        "Closed",
        "Cancelled",
        "new",
    ] {
        assert!(!status(later, "DeliveryOrderUpdate"), "{later}");
    }
    assert!(!status("New", "DeliveryOrderError"));
    assert!(!status("New", "TableOrderUpdate"));
    assert_eq!(
        DeliveryStatus::Unknown("New".into()).is_initial(),
        DeliveryStatus::Unconfirmed.is_initial()
    );
}

#[test]
fn additional_data_is_kept_verbatim() {
    let mut body = delivery(Value::Null);
    body["eventInfo"]["creationStatus"] = json!("Error");
    body["eventInfo"]["errorInfo"] =
        json!({"code": "Common", "description": "old text", "additionalData": {"a": [1, "x"]}});
    let e = first(&json!([body]));
    assert_eq!(e.error_message(), Some("old text"));
    let extra = e
        .error_info()
        .and_then(|i| i.additional_data.as_ref())
        .expect("additionalData");
    assert_eq!(extra, &json!({"a": [1, "x"]}));
}

#[test]
fn huge_orders_read_completely() {
    let items: Vec<Value> = (0..5000)
        .map(|i| {
            json!({"type": "Product", "status": "Added", "amount": 1, "price": 10.25,
                   "cost": 10.25, "product": {"id": format!("p{i}"), "name": format!("Блюдо {i}")},
                   "modifiers": [{"product": {"id": "m", "name": "Соус"}, "amount": 1, "price": 0.5}]})
        })
        .collect();
    let body = json!([delivery(
        json!({"status": "Unconfirmed", "sum": 51250.0, "items": items})
    )]);
    let e = first(&body);
    let order = e.delivery().and_then(|i| i.order.as_ref()).expect("order");
    let items = order.items.as_deref().expect("items");
    assert_eq!(items.len(), 5000);
    let OrderItem::Product(last) = &items[4999] else {
        panic!("a product: {:?}", items[4999]);
    };
    assert_eq!(
        last.product.as_ref().and_then(|p| p.name.as_deref()),
        Some("Блюдо 4999")
    );
    assert_eq!(
        last.modifiers.as_deref().expect("modifiers")[0]
            .price
            .map(|m| m.to_string())
            .as_deref(),
        Some("0.5")
    );
    assert_eq!(e.sum().map(|m| m.to_string()).as_deref(), Some("51250"));
}

#[test]
fn body_errors() {
    assert_eq!(kind_of(b""), ParseErrorKind::InvalidJson);
    assert_eq!(kind_of(b"   \n"), ParseErrorKind::InvalidJson);
    assert_eq!(kind_of(b"[{]"), ParseErrorKind::InvalidJson);
    assert_eq!(kind_of(b"[] x"), ParseErrorKind::InvalidJson);
    assert_eq!(kind_of(b"[1,]"), ParseErrorKind::InvalidJson);
    assert_eq!(kind_of(b"<html>"), ParseErrorKind::InvalidJson);
    for (body, found) in [
        (&b"5"[..], "number"),
        (b"\"[]\"", "string"),
        (b"null", "null"),
        (b"true", "boolean"),
    ] {
        assert_eq!(
            parse_body(body),
            Err(ParseError::NotAnArray { found }),
            "{found}"
        );
    }
    let err = parse_body(b"[\"ok\", \"\xff\"]").expect_err("not UTF-8");
    assert_eq!(err, ParseError::InvalidUtf8 { valid_up_to: 8 });
    assert!(parse_body(b"\xEF\xBB\xBF[]")
        .expect("BOM skipped")
        .is_empty());

    let small = ParseOptions::new().with_max_body_bytes(10);
    assert_eq!(
        parse_body_with(b"[{}, {}, {}]", &small),
        Err(ParseError::TooLarge {
            size: 12,
            limit: 10
        })
    );
    assert!(parse_body_with(b"[{}, {}]", &small).is_ok());

    let strict = ParseOptions::new().with_accept_single_object(false);
    assert_eq!(
        parse_body_with(br#"{"eventType":"PersonalShift"}"#, &strict),
        Err(ParseError::NotAnArray { found: "object" })
    );
    assert_eq!(
        parse_body_with(b"{", &strict).map_err(|e| e.kind()),
        Err(ParseErrorKind::InvalidJson)
    );
}

#[test]
fn depth_limits() {
    let nested = |depth: usize| {
        // The body array is level 1, the event level 2, eventInfo level 3.
        let inner = depth - 3;
        format!(
            r#"[{{"eventType":"X","eventInfo":{{"a":{}1{}}}}}]"#,
            "[".repeat(inner),
            "]".repeat(inner)
        )
    };
    assert!(parse_body(nested(64).as_bytes()).is_ok());
    assert_eq!(
        parse_body(nested(65).as_bytes()),
        Err(ParseError::TooDeep { limit: 64 })
    );
    let generous = ParseOptions::new().with_max_depth(10_000);
    assert_eq!(generous.max_depth(), MAX_DEPTH_CEILING);
    assert!(parse_body_with(nested(128).as_bytes(), &generous).is_ok());
    assert_eq!(
        parse_body_with(nested(129).as_bytes(), &generous),
        Err(ParseError::TooDeep { limit: 128 })
    );
    // Brackets inside strings do not count; unbalanced input is still caught.
    let in_string = format!(r#"[{{"eventType":"X","eventInfo":"{}"}}]"#, "[".repeat(500));
    assert!(parse_body(in_string.as_bytes()).is_ok());
    assert_eq!(
        kind_of("[".repeat(100_000).as_bytes()),
        ParseErrorKind::TooDeep
    );
}

#[test]
fn stored_raw_json_parses_back_to_the_same_event() {
    let body = json!([
        delivery(json!({"status": "OnWay", "sum": 1.1})),
        {"eventType": "Other", "eventInfo": {"x": 1}},
        7
    ]);
    for e in events(&body) {
        assert_eq!(parse_event(e.raw_json()), e);
    }
    let broken = parse_event("{not json");
    assert!(broken.problem().is_some());
    assert_eq!(broken.raw_json(), "{not json");
}

#[test]
fn events_serialize_to_json() {
    let body = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/vectors/payloads/multi_all_types.json"),
    )
    .expect("payload");
    for e in parse_body(&body).expect("parses") {
        let v: Value = serde_json::to_value(&e).expect("serializes");
        assert_eq!(v["kind"], json!(e.kind().as_str()));
        assert_eq!(v["eventTime"], json!(e.event_time().map(|t| t.raw.clone())));
        // The payload is written with the wire names of its generated model.
        if let Some(id) = e.entity_id() {
            let info = v["payload"].as_object().and_then(|p| p.values().next());
            assert_eq!(info.map(|i| &i["id"]), Some(&json!(id)), "{v}");
            assert_eq!(info.map(|i| &i["timestamp"]), Some(&json!(e.timestamp())));
        }
    }
}
