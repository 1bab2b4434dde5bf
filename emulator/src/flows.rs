//! Operations with state: commands and `commands/status`, delivery orders
//! (create, read, confirm, move, close, cancel), stop lists (add, remove,
//! clear) and the menu's products. Each command finishes a moment after it
//! is answered (as on a real terminal) and then sends its webhook events.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Map, Value};

use crate::catalogue::catalogue;
use crate::fixtures::{ApiKeyFixture, StopListItem};
use crate::server::Reply;
use crate::state::Shared;
use crate::util::{format_utc, lock, new_uuid};

/// How long a command stays `InProgress`.
pub(crate) const COMMAND_DELAY: Duration = Duration::from_millis(150);

/// Products of the emulated menu: id, name, price. Orders may name only
/// these; any other product fails the creation with `ProductNotFound`.
pub const MENU_PRODUCTS: [(&str, &str, f64); 3] = [
    (
        "b1e604c4-586f-4a06-b3d0-ff67e6c542a2",
        "Pizza Margherita 32 cm",
        590.0,
    ),
    (
        "91e69af5-c0e2-4057-a34b-2e98edbed03e",
        "Cranberry mors 0.5 l",
        99.9,
    ),
    (
        "0c3f7a1e-6d52-4b8e-9f0a-3d2c1b4a5e6f",
        "Pizza Pepperoni 32 cm",
        690.0,
    ),
];

/// A command's work, run when it finishes; `Err` is its failure reason.
pub(crate) type Apply = Box<dyn FnOnce(&Shared) -> Result<(), String> + Send>;

/// What a command does when it finishes.
pub(crate) enum Effect {
    /// Nothing beyond `Success`.
    None,
    /// A delivery order created; it fails when it names an unknown product.
    CreateDelivery {
        order_id: String,
        unknown_product: Option<String>,
    },
    /// A delivery order moves to a status.
    DeliveryStatus { order_id: String, status: String },
    /// Stop-list positions added, removed or cleared on a terminal group.
    StopList {
        terminal_group_id: String,
        change: StopListChange,
    },
    /// Anything else, done by a closure (table orders, reserves).
    Apply(Apply),
}

pub(crate) enum StopListChange {
    Add(Vec<StopListItem>),
    Remove(Vec<(String, Option<String>)>),
    Clear,
}

pub(crate) struct Command {
    organization_id: String,
    /// `None` while in progress; then the error code of a failure, or empty.
    finished: Option<Result<(), String>>,
}

/// Commands by correlationId.
#[derive(Default)]
pub(crate) struct Commands {
    by_id: HashMap<String, Command>,
}

/// Registers a command answered with `cid` and finishes it after
/// [`COMMAND_DELAY`] on a thread of its own.
pub(crate) fn start(shared: &Arc<Shared>, org: &str, cid: &str, effect: Effect) {
    lock(&shared.commands).by_id.insert(
        cid.to_string(),
        Command {
            organization_id: org.to_ascii_lowercase(),
            finished: None,
        },
    );
    let (shared, cid, org) = (Arc::clone(shared), cid.to_string(), org.to_string());
    let spawned = std::thread::Builder::new()
        .name("emu-command".into())
        .spawn(move || {
            std::thread::sleep(COMMAND_DELAY);
            let outcome = finish(&shared, &org, effect);
            if let Some(c) = lock(&shared.commands).by_id.get_mut(&cid) {
                c.finished = Some(outcome);
            }
        });
    if let Err(e) = spawned {
        log::warn!("cannot start a command thread: {e}");
    }
}

fn finish(shared: &Shared, org: &str, effect: Effect) -> Result<(), String> {
    match effect {
        Effect::None => Ok(()),
        Effect::CreateDelivery {
            order_id,
            unknown_product,
        } => {
            shared.finish_delivery_creation(&order_id, unknown_product.as_deref());
            match unknown_product {
                Some(_) => Err("ProductNotFound".into()),
                None => Ok(()),
            }
        }
        Effect::DeliveryStatus { order_id, status } => shared
            .set_delivery_status(&order_id, &status)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Effect::StopList {
            terminal_group_id,
            change,
        } => shared
            .apply_stop_list_change(org, &terminal_group_id, change)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Effect::Apply(apply) => apply(shared),
    }
}

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
    let reply = match name {
        "commands.status" => status(shared, body, cid),
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
        "nomenclature" => nomenclature(op, body, cid),
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

fn status(shared: &Shared, body: &Body, cid: &str) -> Reply {
    let asked = str_of(body, "correlationId").to_ascii_lowercase();
    let org = str_of(body, "organizationId").to_ascii_lowercase();
    let commands = lock(&shared.commands);
    let Some(c) = commands
        .by_id
        .get(&asked)
        .filter(|c| c.organization_id == org)
    else {
        return Reply::error(
            410,
            "CORRELATION_ID_NOT_FOUND",
            format!("No command {asked} for this organization (unknown or expired)"),
            cid,
        );
    };
    match &c.finished {
        None => Reply::json(200, json!({"state": "InProgress"})),
        Some(Ok(())) => Reply::json(200, json!({"state": "Success"})),
        Some(Err(code)) => Reply::json(
            200,
            json!({"state": "Error", "exception": null, "errorReason": code}),
        ),
    }
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
    let items = order["items"].as_array().cloned().unwrap_or_default();
    let unknown_product = items
        .iter()
        .filter(|i| i["type"] == "Product")
        .filter_map(|i| i["productId"].as_str())
        .find(|p| {
            !MENU_PRODUCTS
                .iter()
                .any(|(id, _, _)| id.eq_ignore_ascii_case(p))
        })
        .map(str::to_string);
    let info =
        match shared.begin_delivery_creation(&org, &order_id, terminal_group.as_deref(), &order) {
            Ok(info) => info,
            Err(e) => return Reply::bad_request(e.to_string(), cid),
        };
    start(
        shared,
        &org,
        cid,
        Effect::CreateDelivery {
            order_id,
            unknown_product,
        },
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

fn nomenclature(op: &Value, body: &Body, cid: &str) -> Reply {
    let cat = catalogue();
    let mut answer = cat.answer(op, cid, &Value::Object(body.clone()));
    let product_schema = "Nomenclature.ProductInfo";
    let products: Vec<Value> = MENU_PRODUCTS
        .iter()
        .map(|(id, name, price)| {
            let mut p = cat.make(product_schema);
            p["id"] = json!(id);
            p["name"] = json!(name);
            if let Some(prices) = p.pointer_mut("/sizePrices/0/price/currentPrice") {
                *prices = json!(price);
            }
            p
        })
        .collect();
    answer["products"] = Value::Array(products);
    Reply::json(200, answer)
}
