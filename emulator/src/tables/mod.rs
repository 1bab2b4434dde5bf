//! Table orders and reserves with state. Creating, adding items, closing and
//! cancelling are commands: answered at once, finished a moment later, and
//! each finish sends its webhook event (`TableOrderUpdate`, `ReserveUpdate`).
//! `order.by_id`, `order.by_table` and `reserve.status_by_id` read them back.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{json, Map, Value};

use crate::commands::{start, Effect};
use crate::contents::fill_from_request;
use crate::reply::Reply;
use crate::state::Shared;
use crate::util::{lock, new_uuid};
use crate::webhooks::events::{self, InfoHead};

type Body = Map<String, Value>;

pub(crate) mod book;

use book::{Reserve, TableOrder};

fn str_of<'a>(body: &'a Body, key: &str) -> &'a str {
    body.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn ids_of(body: &Body, key: &str) -> Vec<String> {
    body.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_ascii_lowercase))
        .collect()
}

pub(crate) fn handle(shared: &Arc<Shared>, name: &str, body: &Body, cid: &str) -> Reply {
    match name {
        "order.create" => create_order(shared, body, cid),
        "order.add_items" => change_order(shared, body, cid, Change::AddItems),
        "order.close" => change_order(shared, body, cid, Change::Close),
        "order.cancel" => change_order(shared, body, cid, Change::Cancel),
        "order.by_id" => {
            let wanted = ids_of(body, "orderIds");
            let pos = ids_of(body, "posOrderIds");
            orders_reply(shared, body, cid, |id, o| {
                wanted.iter().any(|w| w == id) || pos.contains(&o.pos_id)
            })
        }
        "order.by_table" => {
            let tables = ids_of(body, "tableIds");
            orders_reply(shared, body, cid, |_, o| {
                o.order["tableIds"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .any(|t| tables.iter().any(|w| w.eq_ignore_ascii_case(t)))
            })
        }
        "reserve.create" => create_reserve(shared, body, cid),
        "reserve.cancel" => cancel_reserve(shared, body, cid),
        "reserve.status_by_id" => {
            let org = str_of(body, "organizationId").to_ascii_lowercase();
            let wanted = ids_of(body, "reserveIds");
            let tables = lock(&shared.tables);
            let reserves: Vec<Value> = wanted
                .iter()
                .filter_map(|id| tables.reserves.get(id).map(|r| (id, r)))
                .filter(|(_, r)| r.organization_id.eq_ignore_ascii_case(&org))
                .map(|(id, r)| reserve_info(id, r))
                .collect();
            Reply::json(200, json!({"correlationId": cid, "reserves": reserves}))
        }
        _ => Reply::bad_request(format!("{name} has no handler"), cid),
    }
}

// ------------------------------------------------------------ table orders

fn order_info(id: &str, o: &TableOrder) -> Value {
    let success = o.creation_status == "Success";
    let head = InfoHead {
        id,
        pos_id: success.then_some(o.pos_id.as_str()),
        external_number: None,
        organization_id: &o.organization_id,
        timestamp: o.timestamp,
    };
    let order = if success {
        o.order.clone()
    } else {
        Value::Null
    };
    events::order_info(&head, o.creation_status, Value::Null, order)
}

fn orders_reply(
    shared: &Shared,
    body: &Body,
    cid: &str,
    pick: impl Fn(&str, &TableOrder) -> bool,
) -> Reply {
    let orgs = ids_of(body, "organizationIds");
    let tables = lock(&shared.tables);
    let mut found: Vec<(&String, &TableOrder)> = tables
        .orders
        .iter()
        .filter(|(_, o)| {
            orgs.iter()
                .any(|g| g.eq_ignore_ascii_case(&o.organization_id))
        })
        .filter(|(id, o)| pick(id, o))
        .collect();
    found.sort_by_key(|(_, o)| o.timestamp);
    let orders: Vec<Value> = found.into_iter().map(|(id, o)| order_info(id, o)).collect();
    Reply::json(200, json!({"correlationId": cid, "orders": orders}))
}

/// Sends `TableOrderUpdate` with the order as it is now.
fn announce_order(shared: &Shared, id: &str) -> Result<(), String> {
    let timestamp = shared.next_timestamp();
    let (org, info) = {
        let mut tables = lock(&shared.tables);
        let o = tables.orders.get_mut(id).ok_or("the order is gone")?;
        o.timestamp = timestamp;
        (o.organization_id.clone(), order_info(id, o))
    };
    shared
        .send_event(&org, "TableOrderUpdate", info)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn create_order(shared: &Arc<Shared>, body: &Body, cid: &str) -> Reply {
    let request = body.get("order").cloned().unwrap_or(Value::Null);
    let id = request["id"]
        .as_str()
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(new_uuid);
    let (org, number, timestamp, first_tg) =
        match shared.next_entity(str_of(body, "organizationId")) {
            Ok(x) => x,
            Err(e) => return Reply::bad_request(e.to_string(), cid),
        };
    let tg = body
        .get("terminalGroupId")
        .and_then(Value::as_str)
        .map_or(first_tg, str::to_ascii_lowercase);
    let mut order = events::new_table_order(number, &tg, SystemTime::now());
    fill_from_request(&mut order, &request, shared.directory(&org), None);
    if let Some(o) = order.as_object_mut() {
        o.remove("comment"); // a table order has none (its schema is closed)
    }
    if let Some(t) = request.get("tableIds").filter(|t| t.is_array()) {
        order["tableIds"] = t.clone();
    }
    let stored = TableOrder {
        organization_id: org.clone(),
        pos_id: new_uuid(),
        timestamp,
        creation_status: "InProgress",
        order,
    };
    let info = {
        let mut tables = lock(&shared.tables);
        if tables.orders.contains_key(&id) {
            return Reply::bad_request(format!("Order with id {id} already exists"), cid);
        }
        let info = order_info(&id, &stored);
        tables.orders.insert(id.clone(), stored);
        info
    };
    start(
        shared,
        &org,
        cid,
        Effect::Apply(Box::new(move |shared: &Shared| {
            if let Some(o) = lock(&shared.tables).orders.get_mut(&id) {
                o.creation_status = "Success";
            }
            announce_order(shared, &id)
        })),
    );
    Reply::json(200, json!({"correlationId": cid, "orderInfo": info}))
}

#[derive(Clone, Copy)]
enum Change {
    AddItems,
    Close,
    Cancel,
}

fn change_order(shared: &Arc<Shared>, body: &Body, cid: &str, change: Change) -> Reply {
    let org = str_of(body, "organizationId").to_string();
    let id = str_of(body, "orderId").to_ascii_lowercase();
    {
        let tables = lock(&shared.tables);
        let known = tables
            .orders
            .get(&id)
            .is_some_and(|o| o.organization_id.eq_ignore_ascii_case(&org));
        if !known {
            return Reply::bad_request(format!("Table order {id} not found"), cid);
        }
    }
    let request = Value::Object(body.clone());
    let organization = org.clone();
    start(
        shared,
        &org,
        cid,
        Effect::Apply(Box::new(move |shared: &Shared| {
            {
                let mut tables = lock(&shared.tables);
                let o = tables.orders.get_mut(&id).ok_or("the order is gone")?;
                // As on a terminal, a closed or deleted order refuses changes
                // when the command runs, not when it is accepted.
                let status = o.order["status"].as_str().unwrap_or_default();
                if matches!(status, "Closed" | "Deleted") {
                    return Err(format!("OrderIs{status}"));
                }
                let now = events::local(SystemTime::now());
                match change {
                    Change::AddItems => {
                        let mut added = json!({});
                        let directory = shared.directory(&organization);
                        fill_from_request(&mut added, &request, directory, None);
                        let sum = o.order["sum"].as_f64().unwrap_or(0.0)
                            + added["sum"].as_f64().unwrap_or(0.0);
                        if let (Some(list), Some(new)) =
                            (o.order["items"].as_array_mut(), added["items"].as_array())
                        {
                            list.extend(new.iter().cloned());
                        }
                        o.order["sum"] = json!((sum * 100.0).round() / 100.0);
                    }
                    Change::Close => {
                        o.order["status"] = json!("Closed");
                        o.order["whenClosed"] = json!(now);
                    }
                    Change::Cancel => o.order["status"] = json!("Deleted"),
                }
            }
            announce_order(shared, &id)
        })),
    );
    Reply::ok(cid, json!({}))
}

// ---------------------------------------------------------------- reserves

fn reserve_info(id: &str, r: &Reserve) -> Value {
    let head = InfoHead {
        id,
        pos_id: None,
        external_number: r.external_number.as_deref(),
        organization_id: &r.organization_id,
        timestamp: r.timestamp,
    };
    let mut info = events::reserve_update_info(&head, SystemTime::now());
    info["creationStatus"] = json!(r.creation_status);
    info["isDeleted"] = json!(r.is_deleted);
    info["reserve"] = if r.creation_status == "Success" {
        r.reserve.clone()
    } else {
        Value::Null
    };
    info
}

fn announce_reserve(shared: &Shared, id: &str) -> Result<(), String> {
    let timestamp = shared.next_timestamp();
    let (org, info) = {
        let mut tables = lock(&shared.tables);
        let r = tables.reserves.get_mut(id).ok_or("the reserve is gone")?;
        r.timestamp = timestamp;
        (r.organization_id.clone(), reserve_info(id, r))
    };
    shared
        .send_event(&org, "ReserveUpdate", info)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn create_reserve(shared: &Arc<Shared>, body: &Body, cid: &str) -> Reply {
    let id = body
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(new_uuid);
    let (org, number, timestamp, _) = match shared.next_entity(str_of(body, "organizationId")) {
        Ok(x) => x,
        Err(e) => return Reply::bad_request(e.to_string(), cid),
    };
    let external_number = body
        .get("externalNumber")
        .and_then(Value::as_str)
        .map_or_else(|| format!("BOOK-{number}"), str::to_string);
    let head = InfoHead {
        id: &id,
        pos_id: None,
        external_number: Some(&external_number),
        organization_id: &org,
        timestamp,
    };
    let mut reserve = events::reserve_update_info(&head, SystemTime::now())["reserve"].take();
    for (from, to) in [
        ("tableIds", "tableIds"),
        ("estimatedStartTime", "estimatedStartTime"),
        ("durationInMinutes", "durationInMinutes"),
        ("phone", "phone"),
        ("comment", "comment"),
        ("shouldRemind", "shouldRemind"),
    ] {
        if let Some(v) = body.get(from).filter(|v| !v.is_null()) {
            reserve[to] = v.clone();
        }
    }
    if let Some(count) = body.get("guests").and_then(|g| g.get("count")) {
        reserve["guestsCount"] = count.clone();
    }
    if let Some(name) = body.get("customer").and_then(|c| c.get("name")) {
        reserve["customer"] = json!({"type": "one-time", "name": name});
    }
    let stored = Reserve {
        organization_id: org.clone(),
        external_number: Some(external_number),
        timestamp,
        creation_status: "InProgress",
        is_deleted: false,
        reserve,
    };
    let info = {
        let mut tables = lock(&shared.tables);
        if tables.reserves.contains_key(&id) {
            return Reply::bad_request(format!("Reserve with id {id} already exists"), cid);
        }
        let info = reserve_info(&id, &stored);
        tables.reserves.insert(id.clone(), stored);
        info
    };
    start(
        shared,
        &org,
        cid,
        Effect::Apply(Box::new(move |shared: &Shared| {
            if let Some(r) = lock(&shared.tables).reserves.get_mut(&id) {
                r.creation_status = "Success";
            }
            announce_reserve(shared, &id)
        })),
    );
    Reply::json(200, json!({"correlationId": cid, "reserveInfo": info}))
}

fn cancel_reserve(shared: &Arc<Shared>, body: &Body, cid: &str) -> Reply {
    let org = str_of(body, "organizationId").to_string();
    let id = str_of(body, "reserveId").to_ascii_lowercase();
    let known = lock(&shared.tables)
        .reserves
        .get(&id)
        .is_some_and(|r| r.organization_id.eq_ignore_ascii_case(&org));
    if !known {
        return Reply::bad_request(format!("Reserve {id} not found"), cid);
    }
    let reason = body
        .get("cancelReason")
        .cloned()
        .unwrap_or(json!("ClientRefused"));
    start(
        shared,
        &org,
        cid,
        Effect::Apply(Box::new(move |shared: &Shared| {
            if let Some(r) = lock(&shared.tables).reserves.get_mut(&id) {
                if r.is_deleted {
                    return Err("ReserveIsCancelled".into());
                }
                r.is_deleted = true;
                r.reserve["status"] = json!("Closed");
                r.reserve["cancelReason"] = reason;
            }
            announce_reserve(shared, &id)
        })),
    );
    Reply::ok(cid, json!({}))
}
