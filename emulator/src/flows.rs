//! Operations with state: delivery orders (create, read, confirm, move,
//! close, cancel) and stop lists (add, remove, clear), started as commands
//! (`commands`) that send their webhook events when they finish; table
//! orders and reserves are handed to `tables`, the reads of reference data
//! to `reference`.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{json, Map, Value};

use crate::catalogue::catalogue;
use crate::commands::{self, start, Effect, StopListChange};
use crate::fixtures::{ApiKeyFixture, StopListItem};
use crate::reply::Reply;
use crate::state::Shared;
use crate::util::{format_utc, new_uuid};

type Body = Map<String, Value>;

fn str_of<'a>(body: &'a Body, key: &str) -> &'a str {
    body.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn allowed(key: &ApiKeyFixture, org: &str) -> bool {
    key.organization_ids
        .iter()
        .any(|o| o.eq_ignore_ascii_case(org))
}

/// Handles the operations with state; `None` for the others.
pub(crate) fn handle(
    shared: &Arc<Shared>,
    key: &ApiKeyFixture,
    op: &Value,
    body: &Body,
    cid: &str,
) -> Option<Reply> {
    let name = op["name"].as_str().unwrap_or_default();
    let org = str_of(body, "organizationId");
    if !org.is_empty() && !allowed(key, org) {
        return Some(Reply::bad_request(
            format!("Organization {org} is not available for this API key"),
            cid,
        ));
    }
    if let Some(reply) = crate::reference::handle(shared, key, name, body, cid) {
        return Some(reply);
    }
    let reply = match name {
        "commands.status" => commands::status(shared, body, cid),
        "deliveries.create" => create_delivery(shared, body, cid),
        "deliveries.by_id" => orders_by_id(shared, body, cid),
        "deliveries.by_revision"
        | "deliveries.by_delivery_date_and_status"
        | "deliveries.by_delivery_date_and_phone"
        | "deliveries.by_delivery_date_and_source_key_and_filter" => {
            orders_with_revision(shared, key, body, cid)
        }
        "deliveries.confirm" => move_order(shared, body, cid, "WaitCooking"),
        "deliveries.close" => move_order(shared, body, cid, "Closed"),
        "deliveries.cancel" => move_order(shared, body, cid, "Cancelled"),
        "deliveries.update_order_delivery_status" => {
            let status = str_of(body, "deliveryStatus").to_string();
            move_order(shared, body, cid, &status)
        }
        "stop_lists.add" | "stop_lists.remove" | "stop_lists.clear" => {
            stop_list(shared, name, body, cid)
        }
        "order.create"
        | "order.add_items"
        | "order.close"
        | "order.cancel"
        | "order.by_id"
        | "order.by_table"
        | "reserve.create"
        | "reserve.cancel"
        | "reserve.status_by_id" => crate::tables::handle(shared, name, body, cid),
        _ if op["command"] == true => {
            // Any other command succeeds after the delay.
            let reply = schema_answer(op, body, cid);
            start(shared, org, cid, Effect::None);
            reply
        }
        _ => return None,
    };
    Some(reply)
}

fn schema_answer(op: &Value, body: &Body, cid: &str) -> Reply {
    let status = op["success_status"]
        .as_u64()
        .and_then(|s| u16::try_from(s).ok())
        .unwrap_or(200);
    Reply::json(
        status,
        catalogue().answer(op, cid, &Value::Object(body.clone())),
    )
}

fn create_delivery(shared: &Arc<Shared>, body: &Body, cid: &str) -> Reply {
    let org = str_of(body, "organizationId").to_string();
    let order = body.get("order").cloned().unwrap_or(Value::Null);
    let order_id = order["id"]
        .as_str()
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(new_uuid);
    let terminal_group = body
        .get("terminalGroupId")
        .and_then(Value::as_str)
        .map(str::to_string);
    // Checked when the command runs on the terminal, as the service does:
    // the command is accepted, then fails with its webhook.
    let failure = shared.directory(&org).and_then(|d| d.check_order(&order));
    let info =
        match shared.begin_delivery_creation(&org, &order_id, terminal_group.as_deref(), &order) {
            Ok(info) => info,
            Err(e) => return Reply::bad_request(e.to_string(), cid),
        };
    start(
        shared,
        &org,
        cid,
        Effect::CreateDelivery { order_id, failure },
    );
    Reply::json(200, json!({"correlationId": cid, "orderInfo": info}))
}

fn orders_by_id(shared: &Shared, body: &Body, cid: &str) -> Reply {
    let org = str_of(body, "organizationId");
    let wanted: Vec<String> = ["orderIds", "posOrderIds"]
        .iter()
        .flat_map(|k| {
            body.get(*k)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|v| v.as_str().map(str::to_ascii_lowercase))
        .collect();
    let orders = shared.delivery_orders(org, |id, pos| {
        wanted.iter().any(|w| w == id || Some(w.as_str()) == pos)
    });
    Reply::json(200, json!({"correlationId": cid, "orders": orders}))
}

fn orders_with_revision(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Reply {
    let mut orgs: Vec<String> = body
        .get("organizationIds")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if let Some(o) = body.get("organizationId").and_then(Value::as_str) {
        orgs.push(o.to_string());
    }
    if let Some(bad) = orgs.iter().find(|o| !allowed(key, o)) {
        return Reply::bad_request(
            format!("Organization {bad} is not available for this API key"),
            cid,
        );
    }
    let by_org: Vec<Value> = orgs
        .iter()
        .map(|o| json!({"organizationId": o, "orders": shared.delivery_orders(o, |_, _| true)}))
        .collect();
    Reply::json(
        200,
        json!({"correlationId": cid, "maxRevision": shared.revision(), "ordersByOrganizations": by_org}),
    )
}

fn move_order(shared: &Arc<Shared>, body: &Body, cid: &str, status: &str) -> Reply {
    let org = str_of(body, "organizationId");
    let order_id = str_of(body, "orderId").to_ascii_lowercase();
    if shared
        .delivery_orders(org, |id, _| id == order_id)
        .is_empty()
    {
        return Reply::bad_request(format!("Order {order_id} not found"), cid);
    }
    start(
        shared,
        org,
        cid,
        Effect::DeliveryStatus {
            order_id,
            status: status.to_string(),
        },
    );
    Reply::ok(cid, json!({}))
}

fn stop_list(shared: &Arc<Shared>, name: &str, body: &Body, cid: &str) -> Reply {
    let org = str_of(body, "organizationId");
    let tg = str_of(body, "terminalGroupId").to_string();
    let items = body
        .get("items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let change = match name {
        "stop_lists.add" => StopListChange::Add(
            items
                .iter()
                .map(|i| StopListItem {
                    balance: i["balance"]
                        .as_number()
                        .cloned()
                        .unwrap_or_else(|| serde_json::Number::from(0)),
                    product_id: i["productId"]
                        .as_str()
                        .unwrap_or_default()
                        .to_ascii_lowercase(),
                    size_id: i["sizeId"].as_str().map(str::to_ascii_lowercase),
                    sku: None,
                    date_add: Some(format_utc(SystemTime::now())),
                })
                .collect(),
        ),
        "stop_lists.remove" => StopListChange::Remove(
            items
                .iter()
                .map(|i| {
                    (
                        i["productId"]
                            .as_str()
                            .unwrap_or_default()
                            .to_ascii_lowercase(),
                        i["sizeId"].as_str().map(str::to_ascii_lowercase),
                    )
                })
                .collect(),
        ),
        _ => StopListChange::Clear,
    };
    if !shared.has_terminal_group(org, &tg) {
        return Reply::bad_request(format!("Terminal group {tg} not found"), cid);
    }
    start(
        shared,
        org,
        cid,
        Effect::StopList {
            terminal_group_id: tg,
            change,
        },
    );
    Reply::ok(cid, json!({}))
}
