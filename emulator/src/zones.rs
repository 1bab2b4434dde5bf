//! `delivery_restrictions/allowed`: whether the organizations deliver to a
//! place, from their delivery zones and restrictions (`deliveryRestrictions`
//! of the dictionaries).
//!
//! A place is the order's `orderLocation` (inside a zone's polygon), else
//! the street of its `deliveryAddress` (`streetId`, or `streetName` among
//! the organization's streets) bound to a zone. Each restriction of a zone
//! that holds the place allows delivery from its terminal group unless
//! `deliverySum` is below its minimum; the others are rejected as out of
//! the zone. Days of the week and hours are not checked. Self-service
//! (`isCourierDelivery: false`) is allowed from every terminal group.

use serde_json::{json, Value};

use crate::dictionaries::Directory;
use crate::fixtures::ApiKeyFixture;
use crate::reply::Reply;
use crate::scope::{key_organizations, requested, Body};
use crate::state::Shared;

/// Whether the point lies inside the polygon (ray casting; latitude as y,
/// longitude as x).
fn inside(lat: f64, lon: f64, polygon: &[(f64, f64)]) -> bool {
    let mut odd = false;
    let n = polygon.len();
    for i in 0..n {
        let (yi, xi) = polygon[i];
        let (yj, xj) = polygon[(i + n - 1) % n];
        if (yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi {
            odd = !odd;
        }
    }
    odd
}

fn polygon(zone: &Value) -> Vec<(f64, f64)> {
    zone["coordinates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| Some((c["latitude"].as_f64()?, c["longitude"].as_f64()?)))
        .collect()
}

/// The street id the address names, among the organization's streets.
fn street_of(d: &Directory, address: &Value) -> Option<String> {
    if let Some(id) = address["streetId"].as_str() {
        return Some(id.to_ascii_lowercase());
    }
    let name = address["streetName"].as_str()?;
    d.data
        .streets
        .iter()
        .find(|s| {
            s["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .and_then(|s| s["id"].as_str())
        .map(str::to_ascii_lowercase)
}

/// Whether the zone holds the place asked about.
fn holds(d: &Directory, zone: &Value, body: &Body) -> bool {
    let location = body.get("orderLocation").unwrap_or(&Value::Null);
    if let (Some(lat), Some(lon)) = (
        location["latitude"].as_f64(),
        location["longitude"].as_f64(),
    ) {
        return inside(lat, lon, &polygon(zone));
    }
    let address = body.get("deliveryAddress").unwrap_or(&Value::Null);
    let Some(street) = street_of(d, address) else {
        return false;
    };
    zone["addresses"].as_array().into_iter().flatten().any(|a| {
        a["streetId"]
            .as_str()
            .is_some_and(|s| s.eq_ignore_ascii_case(&street))
    })
}

pub(crate) fn allowed(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    cid: &str,
) -> Result<Reply, String> {
    let mut orgs = requested(key, body)?;
    if orgs.is_empty() {
        orgs = key_organizations(shared, key);
    }
    let courier = body.get("isCourierDelivery") != Some(&json!(false));
    let sum = body.get("deliverySum").and_then(Value::as_f64);
    let mut allowed_items = Vec::new();
    let mut rejected = Vec::new();
    for org in &orgs {
        let Some(d) = shared.directory(org) else {
            continue;
        };
        let Some(r) = &d.data.delivery_restrictions else {
            continue;
        };
        if !courier {
            let minutes = r["defaultSelfServiceDurationInMinutes"].clone();
            for tg in shared
                .fixtures
                .organization(org)
                .map(|o| o.terminal_groups.as_slice())
                .unwrap_or_default()
            {
                allowed_items.push(json!({
                    "terminalGroupId": tg.id,
                    "organizationId": org,
                    "deliveryDurationInMinutes": minutes,
                    "zone": null,
                    "deliveryServiceProductId": null,
                }));
            }
            continue;
        }
        let zones = r["deliveryZones"].as_array().cloned().unwrap_or_default();
        for item in r["restrictions"].as_array().into_iter().flatten() {
            let zone_name = item["zone"].as_str().unwrap_or_default();
            let zone = zones.iter().find(|z| z["name"] == zone_name);
            let tg = item["terminalGroupId"].clone();
            if !zone.is_some_and(|z| holds(d, z, body)) {
                rejected.push(json!({
                    "terminalGroupId": tg,
                    "organizationId": org,
                    "zone": item["zone"],
                    "rejectCode": "OutOfTerminalZone",
                    "rejectHint": format!("The address is outside the zone {zone_name}"),
                    "rejectItemData": null,
                }));
                continue;
            }
            let min = item["minSum"].as_f64().or(r["defaultMinSum"].as_f64());
            if let (Some(min), Some(sum)) = (min, sum) {
                if sum < min {
                    rejected.push(json!({
                        "terminalGroupId": tg,
                        "organizationId": org,
                        "zone": item["zone"],
                        "rejectCode": "SumIsLessThenMinimum",
                        "rejectHint": format!("The minimum order sum in the zone {zone_name} is {min}"),
                        "rejectItemData": {"dateFrom": null, "dateTo": null, "allowedWeekDays": null, "minSum": min},
                    }));
                    continue;
                }
            }
            let product = if item["deliveryServiceProductId"].is_null() {
                r["defaultDeliveryServiceProductId"].clone()
            } else {
                item["deliveryServiceProductId"].clone()
            };
            allowed_items.push(json!({
                "terminalGroupId": tg,
                "organizationId": org,
                "deliveryDurationInMinutes": item["deliveryDurationInMinutes"],
                "zone": item["zone"],
                "deliveryServiceProductId": product,
            }));
        }
    }
    let is_allowed = !allowed_items.is_empty();
    let cause = match (is_allowed, rejected.first()) {
        (false, Some(r)) => r["rejectHint"].clone(),
        (false, None) => json!("No delivery zone holds the address"),
        (true, _) => Value::Null,
    };
    let location = body
        .get("orderLocation")
        .filter(|l| l["latitude"].is_number() && l["longitude"].is_number())
        .map(|l| json!({"latitude": l["latitude"], "longitude": l["longitude"]}));
    Ok(Reply::ok(
        cid,
        json!({
            "isAllowed": is_allowed,
            "rejectCause": cause,
            "addressExternalId": null,
            "location": location,
            "allowedItems": allowed_items,
            "rejectedItems": rejected,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_in_a_square() {
        let square = [(0.0, 0.0), (0.0, 2.0), (2.0, 2.0), (2.0, 0.0)];
        assert!(inside(1.0, 1.0, &square));
        assert!(!inside(3.0, 1.0, &square));
        assert!(!inside(1.0, -0.5, &square));
    }
}
