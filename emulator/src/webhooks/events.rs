//! Builders of webhook event bodies, in the shapes of api-facts §5.
//!
//! Order times are "local for the terminal"; the emulator's terminals live at
//! UTC+03:00 (like the sample payloads), while `eventTime` is UTC.

use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::dictionaries::Directory;
use crate::util::{format_time, format_utc, new_uuid};

/// Offset of the emulated terminals' local time from UTC.
const TERMINAL_UTC_OFFSET_SECS: i64 = 3 * 3600;

pub(crate) fn local(t: SystemTime) -> String {
    format_time(t, TERMINAL_UTC_OFFSET_SECS)
}

/// The event envelope `{eventType, eventTime, organizationId, correlationId, eventInfo}`.
pub(crate) fn envelope(event_type: &str, organization_id: &str, event_info: Value) -> Value {
    json!({
        "eventType": event_type,
        "eventTime": format_utc(SystemTime::now()),
        "organizationId": organization_id,
        "correlationId": new_uuid(),
        "eventInfo": event_info,
    })
}

/// `Errors.ErrorInfo` for an error code (any string; the enum is open).
pub(crate) fn error_info(code: &str) -> Value {
    let message = match code {
        "ProductNotFound" => format!("Product {} not found.", new_uuid()),
        "DuplicatedReserveId" => "Reserve with the same id already exists.".to_string(),
        "TerminalGroupDisabled" => "Terminal group is disabled.".to_string(),
        other => format!("Emulated error {other}."),
    };
    json!({
        "code": code,
        "message": message,
        "description": message,
        "additionalData": null,
        "errorReason": null,
    })
}

/// Identity of an order-like entity across its events.
pub(crate) struct InfoHead<'a> {
    pub id: &'a str,
    pub pos_id: Option<&'a str>,
    pub external_number: Option<&'a str>,
    pub organization_id: &'a str,
    pub timestamp: i64,
}

/// `OrderInfo` / `TableOrderInfo`: the same keys for delivery and table orders.
pub(crate) fn order_info(
    head: &InfoHead<'_>,
    creation_status: &str,
    error_info: Value,
    order: Value,
) -> Value {
    json!({
        "id": head.id,
        "posId": head.pos_id,
        "externalNumber": head.external_number,
        "organizationId": head.organization_id,
        "timestamp": head.timestamp,
        "creationStatus": creation_status,
        "errorInfo": error_info,
        "order": order,
    })
}

pub(crate) fn product_item(
    status: &str,
    product_id: &str,
    name: &str,
    amount: Value,
    price: Value,
    cost: Value,
) -> Value {
    json!({
        "type": "Product",
        "status": status,
        "deleted": null,
        "amount": amount,
        "comment": null,
        "whenPrinted": null,
        "size": null,
        "comboInformation": null,
        "product": {"id": product_id, "name": name},
        "modifiers": [],
        "codes": null,
        "price": price,
        "cost": cost,
        "pricePredefined": false,
        "positionId": new_uuid(),
        "taxPercent": null,
        "resultSum": cost,
    })
}

pub(crate) fn cash_payment(sum: Value) -> Value {
    json!({
        "paymentType": {"id": "8f210347-60d0-4bd1-a6b7-cd70fb82d08d", "name": "Cash", "kind": "Cash"},
        "sum": sum,
        "isPreliminary": false,
        "isExternal": false,
        "isProcessedExternally": false,
        "isFiscalizedExternally": false,
        "isPrepay": false,
    })
}

const EMPTY_LOYALTY: &str =
    r#"{"coupon":null,"appliedManualConditions":null,"dynamicDiscounts":null}"#;

fn empty_loyalty() -> Value {
    serde_json::from_str(EMPTY_LOYALTY).unwrap_or(Value::Null)
}

/// A new delivery order (`Deliveries.Response.Order.Order`) in status `Unconfirmed`.
/// Money values are written as literals so they stay exact (e.g. `299.7`).
pub(crate) fn new_delivery_order(number: i64, terminal_group_id: &str, now: SystemTime) -> Value {
    let items = vec![
        product_item(
            "Added",
            "b1e604c4-586f-4a06-b3d0-ff67e6c542a2",
            "Pizza Margherita 32 cm",
            json!(2),
            json!(590.0),
            json!(1180.0),
        ),
        product_item(
            "Added",
            "91e69af5-c0e2-4057-a34b-2e98edbed03e",
            "Cranberry mors 0.5 l",
            json!(3),
            json!(99.9),
            json!(299.7),
        ),
    ];
    // Built in two parts: one `json!` of this size exceeds the macro recursion limit.
    let mut order = json!({
        "parentDeliveryId": null,
        "customer": {
            "type": "regular",
            "id": new_uuid(),
            "name": "Anna",
            "surname": "Ivanova",
            "comment": null,
            "gender": "Female",
            "inBlacklist": false,
            "blacklistReason": null,
            "birthdate": null,
        },
        "phone": "+79161234567",
        "phoneExtension": null,
        "deliveryPoint": {
            "coordinates": {"latitude": 55.751244, "longitude": 37.618423},
            "address": {
                "street": {
                    "id": "1e552163-2484-59f1-8686-990a9cbac0dd",
                    "name": "Tverskaya",
                    "city": {"id": "8ece965a-a5d1-4208-ab3e-2b2b1899b48e", "name": "Moscow"},
                },
                "index": "125009",
                "house": "7",
                "building": "1",
                "flat": "42",
                "entrance": "2",
                "floor": "5",
                "doorphone": "42",
                "region": null,
                "line1": null,
            },
            "externalCartographyId": null,
            "comment": null,
        },
        "status": "Unconfirmed",
        "cancelInfo": null,
        "courierInfo": null,
        "completeBefore": local(now + Duration::from_secs(3600)),
        "whenCreated": local(now),
        "whenConfirmed": null,
        "whenPrinted": null,
        "whenCookingCompleted": null,
        "whenSended": null,
        "whenDelivered": null,
        "comment": "Emulated order",
        "problem": null,
        "operator": null,
        "marketingSource": null,
        "deliveryDuration": 60,
    });
    let rest = json!({
        "indexInCourierRoute": null,
        "cookingStartTime": local(now + Duration::from_secs(900)),
        "isDeleted": false,
        "whenReceivedByApi": format_utc(now),
        "whenReceivedFromFront": null,
        "externalCourierService": null,
        "menuId": null,
        "deliveryZone": null,
        "estimatedTime": null,
        "isAsap": true,
        "whenPacked": null,
        "priceCategory": null,
        "trackingLink": null,
        "sum": 1479.7,
        "number": number,
        "sourceKey": "emulator",
        "whenBillPrinted": null,
        "whenClosed": null,
        "conception": null,
        "guestsInfo": {"count": 2, "splitBetweenPersons": false},
        "items": items,
        "combos": [],
        "payments": [cash_payment(json!(1479.7))],
        "tips": [],
        "discounts": [],
        "orderType": {
            "id": "b78cb69b-589c-5633-b530-03a757224443",
            "name": "Delivery by courier",
            "orderServiceType": "DeliveryByCourier",
        },
        "terminalGroupId": terminal_group_id,
        "processedPaymentsSum": null,
        "loyaltyInfo": empty_loyalty(),
        "externalData": [{"key": "emulatorOrderNumber", "value": number.to_string()}],
    });
    if let (Value::Object(o), Value::Object(r)) = (&mut order, rest) {
        o.extend(r);
    }
    order
}

fn set_if_null(order: &mut Value, key: &str, value: Value) {
    if order.get(key).is_none_or(Value::is_null) {
        order[key] = value;
    }
}

fn set_item_statuses(order: &mut Value, status: &str) {
    if let Some(items) = order.get_mut("items").and_then(Value::as_array_mut) {
        for item in items {
            item["status"] = json!(status);
        }
    }
}

/// Moves a delivery order to `status`, filling the timestamps and details a real
/// order gets on the way (`whenConfirmed`, `courierInfo`, `cancelInfo`, ...).
/// Unknown statuses are written as they are.
/// The organization's dictionaries, when given, name the courier and the
/// cancel cause (their first ones).
pub(crate) fn apply_delivery_status(
    order: &mut Value,
    status: &str,
    now: SystemTime,
    directory: Option<&Directory>,
) {
    let when = json!(local(now));
    order["status"] = json!(status);
    match status {
        "WaitCooking" | "ReadyForCooking" => set_if_null(order, "whenConfirmed", when),
        "CookingStarted" => {
            set_if_null(order, "whenConfirmed", when.clone());
            set_if_null(order, "whenPrinted", when);
            set_item_statuses(order, "CookingStarted");
        }
        "CookingCompleted" => {
            set_if_null(order, "whenCookingCompleted", when);
            set_item_statuses(order, "CookingCompleted");
        }
        "Waiting" => set_if_null(order, "whenPacked", when),
        "OnWay" => {
            set_if_null(order, "whenSended", when);
            let courier = directory.and_then(Directory::courier).unwrap_or_else(|| {
                json!({"id": "5d5cbb36-8c55-4a4a-9a3e-6f1f0d1b7c21", "name": "Courier Ivan", "phone": "+79160000001"})
            });
            order["courierInfo"] = json!({
                "courier": courier,
                "isCourierSelectedManually": false,
            });
        }
        "Delivered" => {
            set_if_null(order, "whenDelivered", when);
            set_item_statuses(order, "Served");
        }
        "Closed" => {
            set_if_null(order, "whenClosed", when);
            let sum = order.get("sum").cloned().unwrap_or(Value::Null);
            order["processedPaymentsSum"] = sum;
        }
        "Cancelled" => {
            let cause = directory.and_then(Directory::cancel_cause).unwrap_or_else(
                || json!({"id": "96c48e27-95b2-56ac-ab3e-b04957f1cb90", "name": "Client refused"}),
            );
            order["cancelInfo"] = json!({
                "whenCancelled": local(now),
                "cause": cause,
                "comment": "Cancelled in the emulator",
            });
        }
        _ => {}
    }
}

/// `Reserves.ReserveInfo` of a new table reservation.
pub(crate) fn reserve_update_info(head: &InfoHead<'_>, now: SystemTime) -> Value {
    json!({
        "id": head.id,
        "externalNumber": head.external_number,
        "organizationId": head.organization_id,
        "timestamp": head.timestamp,
        "creationStatus": "Success",
        "errorInfo": null,
        "isDeleted": false,
        "reserve": {
            "customer": {"type": "one-time", "name": "Petr"},
            "guestsCount": 4,
            "comment": "Window table",
            "durationInMinutes": 120,
            "shouldRemind": true,
            "status": "New",
            "cancelReason": null,
            "tableIds": [new_uuid()],
            "estimatedStartTime": local(now + Duration::from_secs(7200)),
            "guestsComingTime": null,
            "phone": "+79031112233",
            "eventType": null,
            "order": null,
        },
    })
}

/// `Reserves.ReserveInfo` of a reserve that failed to save.
pub(crate) fn reserve_error_info(head: &InfoHead<'_>, code: &str) -> Value {
    json!({
        "id": head.id,
        "externalNumber": head.external_number,
        "organizationId": head.organization_id,
        "timestamp": head.timestamp,
        "creationStatus": "Error",
        "errorInfo": error_info(code),
        "isDeleted": false,
        "reserve": null,
    })
}

/// `TableOrders.Response.TableOrder` of a new table order (status `New`).
pub(crate) fn new_table_order(number: i64, terminal_group_id: &str, now: SystemTime) -> Value {
    json!({
        "tableIds": [new_uuid()],
        "customer": null,
        "phone": null,
        "status": "New",
        "whenCreated": local(now),
        "waiter": {"id": "12b894cc-ff25-5865-b137-e497dba91eb4", "name": "Olga", "phone": null},
        "tabName": null,
        "splitOrderBetweenCashRegisters": "Disabled",
        "menuId": null,
        "priceCategory": null,
        "sum": 420.35,
        "number": number,
        "sourceKey": null,
        "whenBillPrinted": null,
        "whenClosed": null,
        "conception": null,
        "guestsInfo": {"count": 1, "splitBetweenPersons": false},
        "items": [product_item(
            "Added",
            "95f8029f-b3d0-45e4-bbc3-c2bde232a19d",
            "Borscht",
            json!(1),
            json!(420.35),
            json!(420.35),
        )],
        "combos": [],
        "payments": [],
        "tips": [],
        "discounts": [],
        "orderType": {"id": "cea8d799-d488-5141-8b3a-c007acc39f8e", "name": "Dine in", "orderServiceType": "Common"},
        "terminalGroupId": terminal_group_id,
        "processedPaymentsSum": null,
        "loyaltyInfo": empty_loyalty(),
        "externalData": null,
    })
}

/// `StopLists.WebHookOnStopListChangeData` for the given terminal groups.
pub(crate) fn stop_list_info(terminal_group_ids: &[String]) -> Value {
    let updates: Vec<Value> = terminal_group_ids
        .iter()
        .map(|id| json!({"id": id, "isFull": false}))
        .collect();
    json!({ "terminalGroupsStopListsUpdates": updates })
}

/// `Employees.PersonalShift`.
pub(crate) fn personal_shift_info(
    employee_id: &str,
    opened: bool,
    terminal_group_id: &str,
) -> Value {
    json!({
        "id": employee_id,
        "roleId": "c74b432f-ad81-51ed-9204-12eb70420cef",
        "opened": opened,
        "terminalGroupId": terminal_group_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_shapes() {
        let now = SystemTime::now();
        let mut order = new_delivery_order(7, "tg", now);
        for key in [
            "phone",
            "status",
            "completeBefore",
            "whenCreated",
            "cookingStartTime",
            "sum",
            "number",
            "guestsInfo",
            "items",
            "orderType",
            "terminalGroupId",
            "processedPaymentsSum",
        ] {
            assert!(order.get(key).is_some(), "missing {key}");
        }
        assert_eq!(order["sum"].to_string(), "1479.7");
        apply_delivery_status(&mut order, "Cancelled", now, None);
        assert_eq!(order["status"], "Cancelled");
        assert!(order["cancelInfo"]["cause"]["name"].is_string());
        apply_delivery_status(&mut order, "Closed", now, None);
        assert_eq!(order["processedPaymentsSum"].to_string(), "1479.7");
    }
}
