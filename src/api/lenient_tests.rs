//! The lenient read of the generated models (`Fields` with `LENIENT`), on
//! the generated types webhook events are read into.

use serde_json::json;

use crate::api::models::deliveries::common::DeliveryStatus;
use crate::api::models::deliveries::response::order::{OrderInfo, OrderItem};
use crate::lenient::Lenient;
use crate::Money;

fn lenient<T: Lenient>(text: &str) -> Result<Option<T>, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_str(text);
    let read = T::read(&mut d)?;
    d.end()?;
    Ok(read)
}

#[test]
fn a_wrong_typed_value_reads_as_none_and_the_rest_is_kept() {
    let text = json!({
        "id": 5,
        "posId": "p-1",
        "timestamp": "not a number",
        "creationStatus": 7,
        "order": {
            "number": "12",
            "sum": "lots",
            "status": "Teleported",
            "phone": ["+7"],
            "isDeleted": "yes",
            "whenCreated": 1,
            "comment": "ring twice"
        }
    })
    .to_string();
    let info: OrderInfo = lenient(&text).unwrap().unwrap();
    assert_eq!(info.id, None);
    assert_eq!(info.pos_id.as_deref(), Some("p-1"));
    assert_eq!(info.timestamp, None);
    assert_eq!(info.creation_status, None);
    let order = info.order.unwrap();
    // A number in a string is read, as the payload read always did.
    assert_eq!(order.number, Some(12));
    assert_eq!(order.sum, None);
    // Unknown enum values are kept as sent.
    assert_eq!(
        order.status,
        Some(DeliveryStatus::Unknown("Teleported".into()))
    );
    assert_eq!(order.phone, None);
    assert_eq!(order.is_deleted, None);
    assert_eq!(order.when_created, None);
    assert_eq!(order.comment.as_deref(), Some("ring twice"));

    // The strict form (the answers of calls) fails on the same text.
    let e = serde_json::from_str::<OrderInfo>(&text).unwrap_err();
    assert!(e.to_string().contains("invalid type"), "{e}");
}

#[test]
fn an_object_field_that_is_not_an_object_reads_as_none() {
    for odd in [json!(5), json!("x"), json!([{"number": 1}]), json!(true)] {
        let text = json!({"id": "a", "order": odd, "errorInfo": odd}).to_string();
        let info: OrderInfo = lenient(&text).unwrap().unwrap();
        assert_eq!(info.id.as_deref(), Some("a"), "{text}");
        assert_eq!(info.order, None, "{text}");
        assert_eq!(info.error_info, None, "{text}");
    }
    // The whole value, too.
    assert_eq!(lenient::<OrderInfo>("[1, 2]").unwrap(), None);
    assert_eq!(lenient::<OrderInfo>("null").unwrap(), None);
}

#[test]
fn a_list_drops_the_items_that_do_not_read() {
    let text = json!({"order": {
        "items": [
            null,
            5,
            "Product",
            {"type": "Product", "amount": "much", "comment": "kept"},
            {"type": "Robot", "amount": 1}
        ],
        "payments": "none"
    }})
    .to_string();
    let info: OrderInfo = lenient(&text).unwrap().unwrap();
    let order = info.order.unwrap();
    let items = order.items.unwrap();
    assert_eq!(items.len(), 2, "{items:?}");
    let OrderItem::Product(product) = &items[0] else {
        panic!("{items:?}")
    };
    assert_eq!(product.amount, None);
    assert_eq!(product.comment.as_deref(), Some("kept"));
    // A tag this version does not know is kept whole, as in the strict form.
    assert_eq!(
        items[1],
        OrderItem::Unknown(json!({"type": "Robot", "amount": 1}))
    );
    // A list that is not a list reads as `None`.
    assert_eq!(order.payments, None);
}

#[test]
fn fields_before_the_union_tag_are_read_leniently_too() {
    let text = r#"[{"amount":"much","comment":"x","type":"Product"}]"#;
    let items: Vec<OrderItem> = lenient(text).unwrap().unwrap();
    let OrderItem::Product(product) = &items[0] else {
        panic!("{items:?}")
    };
    assert_eq!(product.amount, None);
    assert_eq!(product.comment.as_deref(), Some("x"));
    // Strictly, the same text fails.
    assert!(serde_json::from_str::<Vec<OrderItem>>(text).is_err());
}

#[test]
fn good_values_read_the_same_in_both_forms() {
    let text = json!({
        "id": "a", "timestamp": 1758038531877_i64, "creationStatus": "Success",
        "order": {"number": 7, "sum": 1780.5, "status": "Unconfirmed",
                  "items": [{"type": "Product", "amount": 2}], "whenCreated": "2025-09-16 16:02:11.877"},
        "somethingNew": {"a": 1}
    })
    .to_string();
    let strict: OrderInfo = serde_json::from_str(&text).unwrap();
    let loose: OrderInfo = lenient(&text).unwrap().unwrap();
    assert_eq!(strict, loose);
    assert_eq!(
        loose.order.as_ref().unwrap().sum,
        Some("1780.5".parse::<Money>().unwrap())
    );
    assert_eq!(loose.extra["somethingNew"], json!({"a": 1}));
}

#[test]
fn what_leniency_cannot_mend_is_still_an_error() {
    // Broken syntax, and a known field sent twice.
    assert!(lenient::<OrderInfo>(r#"{"id": "a", "order": {"number": }"#).is_err());
    let e = lenient::<OrderInfo>(r#"{"id": "a", "id": "b"}"#).unwrap_err();
    assert!(e.to_string().contains("duplicate field `id`"), "{e}");
}

#[test]
fn a_free_form_object_reads_only_from_an_object() {
    type Object = serde_json::Map<String, serde_json::Value>;
    let read = lenient::<Object>(r#"{"a": [1, {"b": null}], "c": "d"}"#).expect("reads");
    assert_eq!(
        read.map(serde_json::Value::Object),
        Some(json!({"a": [1, {"b": null}], "c": "d"}))
    );
    for text in ["[1, {}]", "\"x\"", "null", "5", "true"] {
        assert_eq!(lenient::<Object>(text).expect("reads"), None, "{text}");
    }
    assert!(lenient::<Object>(r#"{"a": [1}"#).is_err());
}
