//! `webHooksFilter`: validation on update and matching on delivery.
//!
//! Semantics (documented in the README):
//! * no filter (absent or `null`): every event is sent;
//! * a filter object: an event type is sent only when its sub-filter is present
//!   and allows it; unknown event types (no sub-filter can name them) are sent.

use serde_json::Value;

const STATUS_FILTERS: [&str; 2] = ["deliveryOrderFilter", "tableOrderFilter"];
const SHORT_FILTERS: [&str; 5] = [
    "reserveFilter",
    "stopListUpdateFilter",
    "personalShiftFilter",
    "nomenclatureUpdateFilter",
    "businessHoursAndMappingUpdateFilter",
];

/// Checks the shape of a `webHooksFilter` value; unknown members are accepted.
pub(crate) fn validate(filter: &Value) -> Result<(), String> {
    let obj = match filter {
        Value::Null => return Ok(()),
        Value::Object(o) => o,
        _ => return Err("webHooksFilter must be an object or null".into()),
    };
    for (name, sub) in obj {
        let known =
            STATUS_FILTERS.contains(&name.as_str()) || SHORT_FILTERS.contains(&name.as_str());
        if !known {
            continue;
        }
        let sub = match sub {
            Value::Null => continue,
            Value::Object(s) => s,
            _ => return Err(format!("webHooksFilter.{name} must be an object or null")),
        };
        for (field, v) in sub {
            let ok = match field.as_str() {
                "orderStatuses" | "itemStatuses" | "returnedExternalDataKeys" => match v {
                    Value::Null => true,
                    Value::Array(a) => a.iter().all(Value::is_string),
                    _ => false,
                },
                "errors" | "updates" => v.is_null() || v.is_boolean(),
                _ => true,
            };
            if !ok {
                return Err(format!("webHooksFilter.{name}.{field} has a wrong type"));
            }
        }
    }
    Ok(())
}

fn flag(sub: &Value, name: &str) -> bool {
    sub.get(name).and_then(Value::as_bool).unwrap_or(false)
}

/// `orderStatuses`: `null`/absent allows every status, a list allows those listed.
fn status_allowed(sub: &Value, event: &Value) -> bool {
    match sub.get("orderStatuses") {
        None | Some(Value::Null) => true,
        Some(Value::Array(list)) => {
            let status = event
                .pointer("/eventInfo/order/status")
                .and_then(Value::as_str);
            match status {
                Some(s) => list.iter().any(|x| x.as_str() == Some(s)),
                None => false,
            }
        }
        Some(_) => false,
    }
}

/// True when `event` passes `filter` (`None` or `null` = no filter).
pub(crate) fn allows(filter: Option<&Value>, event: &Value) -> bool {
    let filter = match filter {
        None | Some(Value::Null) => return true,
        Some(f) => f,
    };
    let event_type = event.get("eventType").and_then(Value::as_str).unwrap_or("");
    let is_error_status = event
        .pointer("/eventInfo/creationStatus")
        .and_then(Value::as_str)
        == Some("Error");
    let sub = |name: &str| filter.get(name).filter(|v| v.is_object());
    match event_type {
        "DeliveryOrderUpdate" | "DeliveryOrderError" | "TableOrderUpdate" | "TableOrderError" => {
            let name = if event_type.starts_with("Delivery") {
                "deliveryOrderFilter"
            } else {
                "tableOrderFilter"
            };
            let Some(sub) = sub(name) else { return false };
            if event_type.ends_with("Error") || is_error_status {
                flag(sub, "errors")
            } else {
                status_allowed(sub, event)
            }
        }
        "ReserveUpdate" | "ReserveError" => {
            let Some(sub) = sub("reserveFilter") else {
                return false;
            };
            if event_type == "ReserveError" || is_error_status {
                flag(sub, "errors")
            } else {
                flag(sub, "updates")
            }
        }
        "StopListUpdate" => sub("stopListUpdateFilter").is_some_and(|s| flag(s, "updates")),
        "PersonalShift" => sub("personalShiftFilter").is_some_and(|s| flag(s, "updates")),
        "NomenclatureUpdate" => sub("nomenclatureUpdateFilter").is_some_and(|s| flag(s, "updates")),
        "BusinessHoursAndMappingUpdate" => {
            sub("businessHoursAndMappingUpdateFilter").is_some_and(|s| flag(s, "updates"))
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn delivery(status: &str) -> Value {
        json!({"eventType": "DeliveryOrderUpdate", "eventInfo": {"creationStatus": "Success", "order": {"status": status}}})
    }

    #[test]
    fn no_filter_allows_all() {
        assert!(allows(None, &delivery("New")));
        assert!(allows(
            Some(&Value::Null),
            &json!({"eventType": "PersonalShift"})
        ));
    }

    #[test]
    fn delivery_statuses_and_errors() {
        let f =
            json!({"deliveryOrderFilter": {"orderStatuses": ["CookingStarted"], "errors": false}});
        assert!(allows(Some(&f), &delivery("CookingStarted")));
        assert!(!allows(Some(&f), &delivery("Unconfirmed")));
        assert!(!allows(
            Some(&f),
            &json!({"eventType": "DeliveryOrderError"})
        ));
        assert!(!allows(Some(&f), &json!({"eventType": "StopListUpdate"})));
        let f = json!({"deliveryOrderFilter": {"orderStatuses": null, "errors": true}});
        assert!(allows(Some(&f), &delivery("Closed")));
        assert!(allows(
            Some(&f),
            &json!({"eventType": "DeliveryOrderError"})
        ));
        assert!(allows(Some(&f), &json!({"eventType": "SomethingNew"})));
    }

    #[test]
    fn short_filters() {
        let f = json!({"reserveFilter": {"updates": true, "errors": false}, "stopListUpdateFilter": {"updates": false}, "personalShiftFilter": {"updates": true}});
        assert!(allows(Some(&f), &json!({"eventType": "ReserveUpdate"})));
        assert!(!allows(Some(&f), &json!({"eventType": "ReserveError"})));
        assert!(!allows(Some(&f), &json!({"eventType": "StopListUpdate"})));
        assert!(allows(Some(&f), &json!({"eventType": "PersonalShift"})));
        assert!(!allows(Some(&f), &json!({"eventType": "TableOrderUpdate"})));
    }

    #[test]
    fn validation() {
        assert!(validate(&json!(null)).is_ok());
        assert!(validate(
            &json!({"deliveryOrderFilter": {"orderStatuses": ["New"], "errors": true}})
        )
        .is_ok());
        assert!(validate(&json!({"futureFilter": 5})).is_ok());
        assert!(validate(&json!([])).is_err());
        assert!(validate(&json!({"reserveFilter": {"updates": "yes"}})).is_err());
        assert!(validate(&json!({"deliveryOrderFilter": {"orderStatuses": [1]}})).is_err());
        assert!(validate(&json!({"tableOrderFilter": 3})).is_err());
    }
}
