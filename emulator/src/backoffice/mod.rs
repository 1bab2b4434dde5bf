//! The back-office families of the newer edition with state: nomenclature
//! groups, products and product categories, employees, finance accounts and
//! cash-flow categories (create, update, soft delete, restore, get, list with
//! the documented filters), incoming inventories (draft, post, unpost,
//! cancel, list by period), OLAP reports, their columns and saved presets
//! computed from the emulator's delivery orders, and the organization tree of
//! the fixture organizations.
//!
//! The nomenclature lists read an eventually consistent catalogue, as the
//! document describes: a write shows in them after [`BackOffice::delay`]
//! (about a second by default; tests set 0 through the control API).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use serde_json::{json, Map, Value};

use crate::catalogue::catalogue;
use crate::fixtures::ApiKeyFixture;
use crate::reply::Reply;
use crate::state::Shared;
use crate::util::{derived_uuid, format_utc, lock, new_uuid};

pub(crate) mod store;

use store::{BackOffice, Inventory, Kind, KINDS};

/// `{message, details}`: the error body of these families.
fn failure(status: u16, message: impl Into<String>, details: Value) -> Reply {
    Reply::json(
        status,
        json!({"message": message.into(), "details": details}),
    )
}

fn not_found(what: &str, id: &str) -> Reply {
    failure(400, format!("{what} {id} not found"), json!({"id": id}))
}

/// Handles the operations with back-office state; `None` for the others.
pub(crate) fn handle(
    shared: &Arc<Shared>,
    key: &ApiKeyFixture,
    op: &Value,
    body: &Map<String, Value>,
) -> Option<Reply> {
    let name = op["name"].as_str().unwrap_or_default();
    let (family, action) = name.rsplit_once('.')?;
    if let Some(kind) = KINDS.iter().find(|k| k.family == family) {
        return Some(entity(shared, kind, action, op, body));
    }
    match family {
        "inventory.incoming_inventory" => Some(inventory(shared, action, op, body)),
        "inventory.organizations" if action == "tree" => Some(organization_tree(shared, key)),
        "finance.account_type" if action == "list" => Some(account_types()),
        "reporting.olap" if action == "get" => Some(olap(shared, body)),
        "reporting.olap.columns" if action == "get" => Some(olap_columns(body)),
        "reporting.olap.presets" if action == "list" => Some(olap_presets()),
        "reporting.olap.presets" if action == "get" => Some(olap_preset(shared, body)),
        "platform.events" if action == "list" => Some(platform_events(shared, body)),
        "terminals.terminals" | "terminals.cash_registers" if action == "list" => {
            Some(terminals(shared, family, op, body))
        }
        "licenses" if action == "list" => Some(licenses(shared, body)),
        _ if action == "list" => {
            let rows = DIRECTORIES.iter().find(|(f, _)| *f == family)?.1;
            Some(directory(op, body, rows))
        }
        _ => None,
    }
}

fn lower(v: &Value) -> Option<String> {
    v.as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_ascii_lowercase)
}

/// The made-up answer of the operation with these fields set, those its
/// schema has (a `message` only where the answer has one).
fn answer_with(op: &Value, fields: Value) -> Value {
    let mut answer = catalogue().answer(op, "", &Value::Null);
    let schema = op["response"]["ref"].as_str().unwrap_or_default();
    if let (Value::Object(a), Value::Object(f)) = (&mut answer, fields) {
        a.extend(fields_of(schema, &f));
    }
    answer
}

/// Sets the fields the operation's answer schema has, of these.
fn set_known(answer: &mut Value, op: &Value, fields: &[(&str, Value)]) {
    let known = catalogue().field_names(op["response"]["ref"].as_str().unwrap_or_default());
    for (k, v) in fields {
        if known.iter().any(|n| n == k) {
            answer[*k] = v.clone();
        }
    }
}

/// Keeps only the fields the schema has, so an answer stays in its shape.
fn fields_of(schema: &str, from: &Map<String, Value>) -> Map<String, Value> {
    let known = catalogue().field_names(schema);
    from.iter()
        .filter(|(k, _)| known.iter().any(|n| n == *k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn entity(
    shared: &Arc<Shared>,
    kind: &Kind,
    action: &str,
    op: &Value,
    body: &Map<String, Value>,
) -> Reply {
    let now = format_utc(SystemTime::now());
    let mut office = lock(&shared.backoffice);
    let known = catalogue().field_names(kind.item);
    let has = |field: &str| known.iter().any(|n| n == field);
    // Employees are fired, not deleted: their records say so.
    let fires = has("isFired");
    // Some writes answer the record itself, others `{id, message}`.
    let answers_record = op["response"]["ref"] == kind.item;
    match action {
        "create" => {
            let id = body.get(kind.id).and_then(lower).unwrap_or_else(new_uuid);
            if office.get(kind, &id).is_some() {
                return failure(
                    409,
                    format!("{} {id} already exists", kind.family),
                    json!({"id": id}),
                );
            }
            let revision = office.next_revision();
            let mut record = match catalogue().make(kind.item) {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            record.extend(fields_of(kind.item, body));
            for (k, v) in [
                (kind.id, json!(id)),
                ("isDeleted", json!(false)),
                ("deletedAt", Value::Null),
                ("isFired", json!(false)),
                ("fireDate", Value::Null),
                ("revision", json!(revision)),
                ("createdAt", json!(now)),
                ("modifiedAt", json!(now)),
            ] {
                if has(k) || k == kind.id {
                    record.insert(k.to_string(), v);
                }
            }
            let record = Value::Object(record);
            office.write(kind, &id, record.clone());
            office.record_event(&event_name(kind, "Created"), None, Some(&id));
            let answer = if answers_record {
                record
            } else {
                answer_with(op, json!({kind.id: id, "message": "Created"}))
            };
            Reply::json(201, answer)
        }
        "update" => {
            let Some(id) = body.get(kind.id).and_then(lower) else {
                return failure(
                    400,
                    format!("{} is required", kind.id),
                    json!({"field": kind.id}),
                );
            };
            let Some(Value::Object(mut record)) = office.get(kind, &id).cloned() else {
                return not_found(kind.family, &id);
            };
            record.extend(fields_of(kind.item, body));
            record.insert(kind.id.into(), json!(id));
            let revision = office.next_revision();
            for (k, v) in [("revision", json!(revision)), ("modifiedAt", json!(now))] {
                if has(k) {
                    record.insert(k.into(), v);
                }
            }
            let record = Value::Object(record);
            office.write(kind, &id, record.clone());
            office.record_event(&event_name(kind, "Updated"), None, Some(&id));
            if answers_record {
                Reply::json(200, record)
            } else {
                Reply::json(
                    200,
                    answer_with(op, json!({kind.id: id, "message": "Updated"})),
                )
            }
        }
        "delete" | "fire" | "restore" => {
            let ids: Vec<String> = match body.get(kind.ids).or_else(|| body.get(kind.id)) {
                Some(Value::Array(list)) => list.iter().filter_map(lower).collect(),
                Some(v) => lower(v).into_iter().collect(),
                None => Vec::new(),
            };
            if ids.is_empty() {
                return failure(
                    400,
                    format!("{} is required", kind.ids),
                    json!({"field": kind.ids}),
                );
            }
            if let Some(missing) = ids.iter().find(|id| office.get(kind, id).is_none()) {
                return not_found(kind.family, missing);
            }
            let restore = action == "restore";
            for id in &ids {
                let Some(Value::Object(mut record)) = office.get(kind, id).cloned() else {
                    continue;
                };
                let revision = office.next_revision();
                let (flag, at) = if fires {
                    ("isFired", "fireDate")
                } else {
                    ("isDeleted", "deletedAt")
                };
                record.insert(flag.into(), json!(!restore));
                record.insert(at.into(), if restore { Value::Null } else { json!(now) });
                if has("revision") {
                    record.insert("revision".into(), json!(revision));
                }
                office.write(kind, id, Value::Object(record));
                let what = match (restore, fires) {
                    (true, _) => "Restored",
                    (false, true) => "Fired",
                    (false, false) => "Deleted",
                };
                office.record_event(&event_name(kind, what), None, Some(id));
            }
            let mut answer = answer_with(
                op,
                json!({"message": if restore { "Restored" } else { "Deleted" }}),
            );
            let one = json!(ids.first());
            set_known(
                &mut answer,
                op,
                &[
                    ("firedIds", json!(ids)),
                    ("restoredIds", json!(ids)),
                    ("affectedIds", json!(ids)),
                    ("ids", json!(ids)),
                    ("id", one),
                    ("isDeleted", json!(!restore)),
                ],
            );
            Reply::json(200, answer)
        }
        "get" => {
            let id = body.get(kind.id).or_else(|| body.get("id")).and_then(lower);
            match id.as_deref().and_then(|id| office.get(kind, id)) {
                Some(record) => Reply::json(200, record.clone()),
                None => not_found(kind.family, id.as_deref().unwrap_or_default()),
            }
        }
        "list" => {
            let filters = match parse_filters(body.get("filters"), kind.id) {
                Ok(f) => f,
                Err(reply) => return reply,
            };
            let limit = body.get("limit").and_then(Value::as_u64).unwrap_or(100);
            if !(1..=1000).contains(&limit) {
                return failure(
                    400,
                    "limit must be from 1 to 1000",
                    json!({"field": "limit"}),
                );
            }
            let offset = body.get("offset").and_then(Value::as_u64).unwrap_or(0);
            let moment = Instant::now();
            let matching: Vec<Value> = office
                .records
                .get(kind.family)
                .into_iter()
                .flat_map(|f| f.values())
                .filter_map(|r| r.in_lists(moment))
                .filter(|r| filters.iter().all(|f| f.matches(r)))
                .cloned()
                .collect();
            let total = matching.len();
            let page: Vec<Value> = matching
                .into_iter()
                .skip(usize::try_from(offset).unwrap_or(usize::MAX))
                .take(usize::try_from(limit).unwrap_or(usize::MAX))
                .collect();
            let mut answer = answer_with(op, json!({ kind.list_key: page }));
            set_known(
                &mut answer,
                op,
                &[
                    ("totalCount", json!(total)),
                    ("count", json!(total)),
                    ("limit", json!(limit)),
                    ("offset", json!(offset)),
                ],
            );
            Reply::json(200, answer)
        }
        _ => Reply::json(
            200,
            catalogue().answer(op, "", &Value::Object(body.clone())),
        ),
    }
}

/// `NomenclatureGroupCreated` for `nomenclature.group`.
fn event_name(kind: &Kind, what: &str) -> String {
    let last = kind.family.rsplit('.').next().unwrap_or_default();
    let family = kind.family.split('.').next().unwrap_or_default();
    let pascal = |s: &str| -> String {
        s.split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect()
    };
    format!("{}{}{what}", pascal(family), pascal(last))
}

/// One `{field, op, value, values}` of a list request.
struct Filter {
    field: String,
    op: String,
    value: Value,
    values: Vec<Value>,
}

fn parse_filters(filters: Option<&Value>, id_field: &str) -> Result<Vec<Filter>, Reply> {
    let mut out = Vec::new();
    for (i, f) in filters
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let field = f["field"].as_str().unwrap_or_default();
        if field.is_empty() {
            return Err(failure(
                400,
                format!("filters[{i}].field is required"),
                json!({"field": format!("filters[{i}].field")}),
            ));
        }
        let op = f["op"].as_str().unwrap_or("eq").to_ascii_lowercase();
        const OPS: [&str; 11] = [
            "eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "like", "blank", "notblank",
        ];
        if !OPS.contains(&op.as_str()) {
            return Err(failure(
                400,
                format!("filters[{i}].op {op:?} is not an operator"),
                json!({"field": format!("filters[{i}].op"), "allowed": OPS}),
            ));
        }
        out.push(Filter {
            field: if field == "id" {
                id_field.to_string()
            } else {
                field.to_string()
            },
            op,
            value: f["value"].clone(),
            values: f["values"].as_array().cloned().unwrap_or_default(),
        });
    }
    Ok(out)
}

/// Compares a record's value with a filter's: numbers as numbers, the rest
/// as case-insensitive text (ids are UUIDs in any case).
fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), _) => {
            let y = match b {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.parse().ok(),
                _ => None,
            }?;
            x.as_f64()?.partial_cmp(&y)
        }
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::String(s)) => Some(x.to_string().cmp(&s.to_ascii_lowercase())),
        (Value::String(x), Value::String(y)) => Some(x.to_lowercase().cmp(&y.to_lowercase())),
        _ => None,
    }
}

impl Filter {
    fn matches(&self, record: &Value) -> bool {
        let v = &record[&self.field];
        let blank = v.is_null() || v.as_str() == Some("");
        let cmp = || compare(v, &self.value);
        match self.op.as_str() {
            "eq" => cmp() == Some(Ordering::Equal),
            "ne" => cmp() != Some(Ordering::Equal),
            "gt" => cmp() == Some(Ordering::Greater),
            "gte" => matches!(cmp(), Some(Ordering::Greater | Ordering::Equal)),
            "lt" => cmp() == Some(Ordering::Less),
            "lte" => matches!(cmp(), Some(Ordering::Less | Ordering::Equal)),
            "in" => self
                .values
                .iter()
                .any(|x| compare(v, x) == Some(Ordering::Equal)),
            "nin" => !self
                .values
                .iter()
                .any(|x| compare(v, x) == Some(Ordering::Equal)),
            "like" => match (v.as_str(), self.value.as_str()) {
                (Some(s), Some(p)) => s.to_lowercase().contains(&p.to_lowercase()),
                _ => false,
            },
            "blank" => blank,
            "notblank" => !blank,
            _ => false,
        }
    }
}

// ------------------------------------------------------ incoming inventory

fn inventory(shared: &Arc<Shared>, action: &str, op: &Value, body: &Map<String, Value>) -> Reply {
    let now = format_utc(SystemTime::now());
    let mut office = lock(&shared.backoffice);
    let id = body.get("documentId").and_then(lower);
    let saved = |doc: &Value| {
        answer_with(
            op,
            json!({
                "documentId": doc["documentId"],
                "documentNumber": doc["number"],
                "message": "OK",
            }),
        )
    };
    if action == "create" {
        let id = id.unwrap_or_else(new_uuid);
        if office.inventories.contains_key(&id) {
            return failure(
                409,
                format!("document {id} already exists"),
                json!({"documentId": id}),
            );
        }
        let number = format!("{}", office.next_document);
        office.next_document += 1;
        let mut doc = match catalogue().make("IncomingInventoryGetResponse") {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        for key in [
            "accountShortage",
            "accountSurplus",
            "comment",
            "conception",
            "date",
            "isAutomatic",
            "isEditable",
            "store",
        ] {
            if let Some(v) = body.get(key) {
                doc.insert(key.into(), v.clone());
            }
        }
        doc.insert("documentId".into(), json!(id));
        doc.insert(
            "number".into(),
            json!(body
                .get("number")
                .and_then(Value::as_str)
                .unwrap_or(&number)),
        );
        doc.insert("status".into(), json!("NEW"));
        doc.insert("dateCreated".into(), json!(now));
        doc.insert("dateModified".into(), json!(now));
        let doc = Value::Object(doc);
        let answer = saved(&doc);
        let organization_id = body
            .get("organizationId")
            .and_then(lower)
            .unwrap_or_default();
        office.inventories.insert(
            id,
            Inventory {
                organization_id,
                doc,
            },
        );
        return Reply::json(201, answer);
    }
    if action == "list" {
        return inventory_list(&office, body);
    }
    let Some(id) = id else {
        return failure(
            400,
            "documentId is required",
            json!({"field": "documentId"}),
        );
    };
    let Some(Inventory { doc, .. }) = office.inventories.get_mut(&id) else {
        return not_found("incoming inventory", &id);
    };
    let status = doc["status"].as_str().unwrap_or_default().to_string();
    let next = match (action, status.as_str()) {
        ("get", _) => return Reply::json(200, doc.clone()),
        ("update", "NEW") => None,
        // A repeated transition (a resend after a lost answer) finds the
        // document where it wanted it and succeeds without a change.
        ("post", "NEW" | "PROCESSED") => Some("PROCESSED"),
        ("unpost", "PROCESSED" | "NEW") => Some("NEW"),
        ("cancel", "NEW" | "DELETED") => Some("DELETED"),
        (_, _) => {
            return failure(
                400,
                format!("cannot {action} a document in status {status}"),
                json!({"documentId": id, "status": status}),
            )
        }
    };
    if action == "update" {
        for key in [
            "accountShortage",
            "accountSurplus",
            "comment",
            "conception",
            "date",
            "store",
        ] {
            if let Some(v) = body.get(key) {
                doc[key] = v.clone();
            }
        }
    }
    if let Some(next) = next {
        doc["status"] = json!(next);
    }
    doc["dateModified"] = json!(now);
    let answer = saved(doc);
    Reply::json(200, answer)
}

/// `inventory.incoming_inventory.list`: the organization's documents dated
/// from `from` to `to` (both days included), as list items.
fn inventory_list(office: &BackOffice, body: &Map<String, Value>) -> Reply {
    let day = |field: &str| -> Result<String, Reply> {
        let text = body.get(field).and_then(Value::as_str).unwrap_or_default();
        if is_day(text) {
            Ok(text.to_string())
        } else {
            Err(failure(
                400,
                format!("{field} must be a date in YYYY-MM-DD format, got {text:?}"),
                json!({"field": field}),
            ))
        }
    };
    let (from, to) = match (day("from"), day("to")) {
        (Ok(from), Ok(to)) => (from, to),
        (Err(reply), _) | (_, Err(reply)) => return reply,
    };
    let organization = body
        .get("organizationId")
        .and_then(lower)
        .unwrap_or_default();
    let items: Vec<Value> = office
        .inventories
        .values()
        .filter(|i| i.organization_id == organization)
        .filter(|i| {
            // The document's own day: its date is an ISO 8601 date-time.
            let date = i.doc["date"].as_str().unwrap_or_default();
            date.get(..10)
                .is_some_and(|d| is_day(d) && d >= from.as_str() && d <= to.as_str())
        })
        .map(|i| inventory_item(&i.doc))
        .collect();
    Reply::json(200, Value::Array(items))
}

/// A stored document as an `IncomingInventoryListItem`: the fields both
/// shapes have, its status as the two flags, its store as `storeFrom`. The
/// sums stay null: the emulator keeps no book stock to weigh the counted
/// amounts against, so it knows no shortage or surplus.
fn inventory_item(doc: &Value) -> Value {
    let mut item = match doc {
        Value::Object(m) => fields_of("IncomingInventoryListItem", m),
        _ => Map::new(),
    };
    let status = doc["status"].as_str().unwrap_or_default();
    item.insert("processed".into(), json!(status == "PROCESSED"));
    item.insert("deleted".into(), json!(status == "DELETED"));
    item.insert("storeFrom".into(), doc["store"].clone());
    for sum in ["sum", "shortageSum", "surplusSum"] {
        item.insert(sum.into(), Value::Null);
    }
    Value::Object(item)
}

/// `YYYY-MM-DD` with a month and day in range.
fn is_day(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !digits(0..4) {
        return false;
    }
    if !digits(5..7) || !digits(8..10) {
        return false;
    }
    let month = (b[5] - b'0') * 10 + (b[6] - b'0');
    let day = (b[8] - b'0') * 10 + (b[9] - b'0');
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

// ------------------------------------------------------------------ OLAP

/// A column of the emulator's OLAP reports. `olap.get` accepts exactly what
/// this says and `olap.columns.get` lists it, so the two cannot disagree.
struct OlapField {
    name: &'static str,
    display_name: &'static str,
    kind: &'static str,
    tags: &'static [&'static str],
    /// An aggregate (a sum or a count per row), else a field to group by.
    aggregate: bool,
    /// Whether `filters` may name it: the date range is the only filter
    /// the emulator applies.
    filter: bool,
}

const OLAP_FIELDS: [OlapField; 7] = [
    OlapField {
        name: "OpenDate.Typed",
        display_name: "Open date",
        kind: "DATE",
        tags: &["Date and time"],
        aggregate: false,
        filter: true,
    },
    OlapField {
        name: "OrderNum",
        display_name: "Order number",
        kind: "INTEGER",
        tags: &["Order"],
        aggregate: false,
        filter: false,
    },
    OlapField {
        name: "Delivery.Number",
        display_name: "Delivery number",
        kind: "INTEGER",
        tags: &["Delivery"],
        aggregate: false,
        filter: false,
    },
    OlapField {
        name: "OrderType",
        display_name: "Order type",
        kind: "STRING",
        tags: &["Order"],
        aggregate: false,
        filter: false,
    },
    OlapField {
        name: "Delivery.Status",
        display_name: "Delivery status",
        kind: "ENUM",
        tags: &["Delivery"],
        aggregate: false,
        filter: false,
    },
    OlapField {
        name: "DishSumInt",
        display_name: "Dish sum",
        kind: "MONEY",
        tags: &["Amounts"],
        aggregate: true,
        filter: false,
    },
    OlapField {
        name: "UniqOrderId.OrdersCount",
        display_name: "Orders",
        kind: "INTEGER",
        tags: &["Order", "Amounts"],
        aggregate: true,
        filter: false,
    },
];

/// The report types. All are built from the emulator's delivery orders
/// (SALES from the closed ones), so they share their columns.
const OLAP_REPORTS: [&str; 3] = ["SALES", "TRANSACTIONS", "DELIVERIES"];

fn report_type(body: &Map<String, Value>) -> Result<&'static str, Reply> {
    let asked = body
        .get("reportType")
        .and_then(Value::as_str)
        .unwrap_or_default();
    OLAP_REPORTS
        .iter()
        .find(|r| **r == asked)
        .copied()
        .ok_or_else(|| {
            failure(
                400,
                format!("reportType {asked:?} is not SALES, TRANSACTIONS or DELIVERIES"),
                json!({"field": "reportType"}),
            )
        })
}

/// `reporting.olap.columns.get`: the columns of the report type.
fn olap_columns(body: &Map<String, Value>) -> Reply {
    if let Err(reply) = report_type(body) {
        return reply;
    }
    let columns: Vec<Value> = OLAP_FIELDS
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "displayName": f.display_name,
                "type": f.kind,
                "tags": f.tags,
                "canAggregate": f.aggregate,
                "canFilter": f.filter,
                "canGroup": !f.aggregate,
            })
        })
        .collect();
    Reply::json(200, Value::Array(columns))
}

/// What one report asks for, checked against the columns.
struct OlapQuery {
    report: &'static str,
    aggregates: Vec<String>,
    groups: Vec<String>,
    /// The days of `OpenDate.Typed` counted (`yyyy-MM-dd`).
    from: String,
    to: String,
    include_low: bool,
    include_high: bool,
    summary: bool,
}

/// Refuses a field the columns do not offer for that use.
fn check_olap_fields(aggregates: &[String], groups: &[String]) -> Result<(), Reply> {
    if aggregates.is_empty() {
        return Err(failure(
            400,
            "aggregateFields must not be empty",
            json!({"field": "aggregateFields"}),
        ));
    }
    let uses = aggregates
        .iter()
        .map(|f| (f, true))
        .chain(groups.iter().map(|f| (f, false)));
    for (name, aggregated) in uses {
        let Some(field) = OLAP_FIELDS.iter().find(|f| f.name == name) else {
            return Err(failure(
                400,
                format!("unknown field {name:?}; see olap/columns/get"),
                json!({"field": name}),
            ));
        };
        if field.aggregate != aggregated {
            let (list, can) = if aggregated {
                ("aggregateFields", "canAggregate")
            } else {
                ("groupByRowFields/groupByColFields", "canGroup")
            };
            return Err(failure(
                400,
                format!("{name} cannot be in {list}: its {can} is false (olap/columns/get)"),
                json!({"field": name}),
            ));
        }
    }
    Ok(())
}

/// `reporting.olap.get`'s request as a query.
fn olap_query(body: &Map<String, Value>) -> Result<OlapQuery, Reply> {
    let report = report_type(body)?;
    let names = |key: &str| -> Vec<String> {
        body.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let aggregates = names("aggregateFields");
    let mut groups = names("groupByRowFields");
    groups.extend(names("groupByColFields"));
    check_olap_fields(&aggregates, &groups)?;
    let filters: Vec<&Value> = body
        .get("filters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    // A filter the emulator would not apply is refused, not ignored.
    for f in &filters {
        let name = f["name"].as_str().unwrap_or_default();
        if !OLAP_FIELDS.iter().any(|c| c.name == name && c.filter) {
            return Err(failure(
                400,
                format!(
                    "{name:?} cannot be filtered on: its canFilter is false (olap/columns/get)"
                ),
                json!({"field": "filters"}),
            ));
        }
    }
    let Some(range) = filters
        .iter()
        .find(|f| f["filterType"] == "DateRange" && f["name"] == "OpenDate.Typed")
    else {
        return Err(failure(
            400,
            "a DateRange filter on OpenDate.Typed is required",
            json!({"field": "filters"}),
        ));
    };
    Ok(OlapQuery {
        report,
        aggregates,
        groups,
        from: range["from"].as_str().unwrap_or("0000-00-00").to_string(),
        to: range["to"].as_str().unwrap_or("9999-99-99").to_string(),
        include_low: range["includeLow"].as_bool().unwrap_or(true),
        include_high: range["includeHigh"].as_bool().unwrap_or(false),
        summary: body
            .get("buildSummary")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

/// `reporting.olap.get`.
fn olap(shared: &Arc<Shared>, body: &Map<String, Value>) -> Reply {
    match olap_query(body) {
        Ok(query) => Reply::json(200, olap_report(shared, &query)),
        Err(reply) => reply,
    }
}

/// A report: SALES counts closed delivery orders, the others every delivery
/// order; rows grouped by the requested fields, with the requested
/// aggregates (sums are exact decimals as JSON numbers).
fn olap_report(shared: &Arc<Shared>, q: &OlapQuery) -> Value {
    let mut rows: BTreeMap<Vec<String>, (Map<String, Value>, rust_decimal::Decimal, u64)> =
        BTreeMap::new();
    let orgs: Vec<String> = shared
        .fixtures
        .organizations
        .iter()
        .map(|o| o.id.clone())
        .collect();
    for org in &orgs {
        for info in shared.delivery_orders(org, |_, _| true) {
            let order = &info["order"];
            if order.is_null() {
                continue;
            }
            let status = order["status"].as_str().unwrap_or_default();
            if q.report == "SALES" && status != "Closed" {
                continue;
            }
            let created = order["whenCreated"].as_str().unwrap_or_default();
            let day = created.get(..10).unwrap_or_default().to_string();
            let low_ok = if q.include_low {
                day >= q.from
            } else {
                day > q.from
            };
            let high_ok = if q.include_high {
                day <= q.to
            } else {
                day < q.to
            };
            if !(low_ok && high_ok) {
                continue;
            }
            let mut row = Map::new();
            for g in &q.groups {
                let v = match g.as_str() {
                    "OpenDate.Typed" => json!(day),
                    "OrderNum" | "Delivery.Number" => order["number"].clone(),
                    "OrderType" => order["orderType"]["name"].clone(),
                    "Delivery.Status" => json!(status),
                    _ => Value::Null,
                };
                row.insert(g.clone(), v);
            }
            let key: Vec<String> = q.groups.iter().map(|g| row[g].to_string()).collect();
            // The amount as written in the order, digit for digit.
            let sum = order["sum"]
                .as_number()
                .map(ToString::to_string)
                .and_then(|t| {
                    t.parse::<rust_decimal::Decimal>()
                        .or_else(|_| rust_decimal::Decimal::from_scientific(&t))
                        .ok()
                })
                .unwrap_or_default();
            let entry = rows
                .entry(key)
                .or_insert((row, rust_decimal::Decimal::ZERO, 0));
            entry.1 += sum;
            entry.2 += 1;
        }
    }
    let mut total = (rust_decimal::Decimal::ZERO, 0u64);
    let data: Vec<Value> = rows
        .into_values()
        .map(|(mut row, sum, count)| {
            total.0 += sum;
            total.1 += count;
            for a in &q.aggregates {
                row.insert(a.clone(), aggregate(a, sum, count));
            }
            Value::Object(row)
        })
        .collect();
    let summary = if q.summary {
        let mut row = Map::new();
        for a in &q.aggregates {
            row.insert(a.clone(), aggregate(a, total.0, total.1));
        }
        vec![Value::Object(row)]
    } else {
        Vec::new()
    };
    json!({"data": data, "summary": summary})
}

fn aggregate(field: &str, sum: rust_decimal::Decimal, count: u64) -> Value {
    match field {
        "DishSumInt" => serde_json::from_str(&sum.normalize().to_string()).unwrap_or(Value::Null),
        "UniqOrderId.OrdersCount" => json!(count),
        _ => Value::Null,
    }
}

/// A saved report configuration: `olap.presets.list` names it,
/// `olap.presets.get` runs it over a period.
struct OlapPreset {
    id: &'static str,
    name: &'static str,
    report: &'static str,
    groups: &'static [&'static str],
    aggregates: &'static [&'static str],
}

const OLAP_PRESETS: [OlapPreset; 3] = [
    OlapPreset {
        id: "c7a1e0f2-3b4d-4e5f-8a6b-7c8d9e0f1a01",
        name: "Sales by day",
        report: "SALES",
        groups: &["OpenDate.Typed"],
        aggregates: &["DishSumInt", "UniqOrderId.OrdersCount"],
    },
    OlapPreset {
        id: "c7a1e0f2-3b4d-4e5f-8a6b-7c8d9e0f1a02",
        name: "Sales by order type",
        report: "SALES",
        groups: &["OrderType"],
        aggregates: &["DishSumInt"],
    },
    OlapPreset {
        id: "c7a1e0f2-3b4d-4e5f-8a6b-7c8d9e0f1a03",
        name: "Deliveries by status",
        report: "DELIVERIES",
        groups: &["Delivery.Status"],
        aggregates: &["UniqOrderId.OrdersCount"],
    },
];

/// `reporting.olap.presets.list`.
fn olap_presets() -> Reply {
    let presets: Vec<Value> = OLAP_PRESETS
        .iter()
        .map(|p| json!({"presetId": p.id, "name": p.name}))
        .collect();
    Reply::json(200, Value::Array(presets))
}

/// `reporting.olap.presets.get`: the preset's report from `dateFrom`
/// (included) to `dateTo` (excluded), with its totals.
fn olap_preset(shared: &Arc<Shared>, body: &Map<String, Value>) -> Reply {
    let asked = body
        .get("presetId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(preset) = OLAP_PRESETS
        .iter()
        .find(|p| p.id.eq_ignore_ascii_case(asked))
    else {
        return failure(
            400,
            format!("preset {asked} not found; see olap/presets/list"),
            json!({"field": "presetId"}),
        );
    };
    let mut days = Vec::new();
    for field in ["dateFrom", "dateTo"] {
        let text = body.get(field).and_then(Value::as_str).unwrap_or_default();
        if !is_day(text) {
            return failure(
                400,
                format!("{field} must be a date in yyyy-MM-dd format, got {text:?}"),
                json!({"field": field}),
            );
        }
        days.push(text.to_string());
    }
    let owned = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let query = OlapQuery {
        report: preset.report,
        aggregates: owned(preset.aggregates),
        groups: owned(preset.groups),
        from: days[0].clone(),
        to: days[1].clone(),
        include_low: true,
        include_high: false,
        summary: true,
    };
    Reply::json(200, olap_report(shared, &query))
}

/// `inventory.organizations.tree`: the organizations linked to the caller's
/// key (disabled ones too: they still belong to the structure), under their
/// legal entities in fixture order. An organization whose fixture names no
/// legal entity stands for one of its own, with an id derived from its own
/// and no name or code.
fn organization_tree(shared: &Arc<Shared>, key: &ApiKeyFixture) -> Reply {
    let mut entities: Vec<Value> = Vec::new();
    for org in shared
        .fixtures
        .organizations
        .iter()
        .filter(|o| key.organization_ids.contains(&o.id))
    {
        let node = json!({
            "organizationId": org.id,
            "iikoUid": org.id,
            "parentId": null,
            "name": org.name,
            "code": org.code,
            "type": "Rms",
            "isCloud": org.extended.get("isCloud").filter(|v| v.is_boolean()),
            "version": org.extended.get("version").filter(|v| v.is_string()),
            "crmId": null,
            "rating": null,
            "children": [],
        });
        let (id, name, code) = match &org.legal_entity {
            Some(e) => (e.id.clone(), json!(e.name), json!(e.code)),
            None => (
                derived_uuid(&format!("jur-person:{}", org.id)),
                Value::Null,
                Value::Null,
            ),
        };
        match entities.iter_mut().find(|e| e["jurPersonId"] == id) {
            Some(entity) => {
                if let Some(children) = entity["children"].as_array_mut() {
                    children.push(node);
                }
            }
            None => entities.push(json!({
                "jurPersonId": id,
                "name": name,
                "code": code,
                "type": "JUR_PERSON",
                "children": [node],
            })),
        }
    }
    Reply::json(200, Value::Array(entities))
}

/// `finance.account_type.list`: the account types of the iiko back office's
/// chart of accounts (a fixed list: nothing in the emulator adds one).
fn account_types() -> Reply {
    const CODES: [&str; 16] = [
        "CASH",
        "ACCOUNTS_RECEIVABLE",
        "INVENTORY_ASSETS",
        "DEBTS_OF_EMPLOYEES",
        "OTHER_CURRENT_ASSET",
        "FIXED_ASSET",
        "ACCOUNTS_PAYABLE",
        "EMPLOYEES_LIABILITY",
        "OTHER_CURRENT_LIABILITY",
        "LONG_TERM_LIABILITY",
        "EQUITY",
        "INCOME",
        "COST_OF_GOODS_SOLD",
        "EXPENSES",
        "OTHER_INCOME",
        "OTHER_EXPENSES",
    ];
    let types: Vec<Value> = CODES.iter().map(|c| json!({ "code": c })).collect();
    Reply::json(200, Value::Array(types))
}

// ------------------------------------------- platform, terminals, licenses

fn platform_events(shared: &Arc<Shared>, body: &Map<String, Value>) -> Reply {
    let office = lock(&shared.backoffice);
    let types: Vec<&str> = body
        .get("eventTypes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let from = body
        .get("fromRevision")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let org = body.get("organizationId").and_then(lower);
    let items: Vec<Value> = office
        .events
        .iter()
        .filter(|e| e.revision > from)
        .filter(|e| types.is_empty() || types.iter().any(|t| e.item["eventType"] == *t))
        .filter(|e| org.is_none() || e.organization_id.is_none() || e.organization_id == org)
        .map(|e| e.item.clone())
        .collect();
    Reply::json(
        200,
        json!({"items": items, "revision": office.event_revision, "totalCount": items.len()}),
    )
}

fn terminals(shared: &Arc<Shared>, family: &str, op: &Value, body: &Map<String, Value>) -> Reply {
    let org = body
        .get("organizationId")
        .and_then(lower)
        .unwrap_or_default();
    let Some(fixture) = shared
        .fixtures
        .organizations
        .iter()
        .find(|o| o.id.eq_ignore_ascii_case(&org))
    else {
        return failure(
            400,
            format!("organization {org} not found"),
            json!({"field": "organizationId"}),
        );
    };
    let search = body
        .get("search")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_lowercase();
    let items: Vec<Value> = fixture
        .terminal_groups
        .iter()
        .enumerate()
        .map(|(i, tg)| {
            let name = tg
                .name
                .clone()
                .unwrap_or_else(|| format!("Terminal {}", i + 1));
            if family == "terminals.terminals" {
                json!({
                    "id": tg.id,
                    "name": name,
                    "computerName": format!("POS-{}", i + 1),
                    "isAnonymous": false,
                    "restaurantSectionIds": [],
                })
            } else {
                json!({
                    "id": tg.id,
                    "name": format!("Cash register of {name}"),
                    "number": format!("{}", i + 1),
                    "status": "Active",
                    "terminalGroupIds": [tg.id],
                })
            }
        })
        .filter(|t| {
            search.is_empty()
                || t["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_lowercase()
                    .contains(&search)
        })
        .collect();
    let mut answer = answer_with(op, json!({"items": items}));
    let total = items.len();
    set_known(
        &mut answer,
        op,
        &[
            ("totalCount", json!(total)),
            ("limit", body.get("limit").cloned().unwrap_or(json!(total))),
            ("offset", body.get("offset").cloned().unwrap_or(json!(0))),
        ],
    );
    Reply::json(200, answer)
}

fn licenses(shared: &Arc<Shared>, body: &Map<String, Value>) -> Reply {
    let asked: Vec<String> = body
        .get("organizationIds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(lower)
        .collect();
    let organizations: Vec<Value> = shared
        .fixtures
        .organizations
        .iter()
        .filter(|o| asked.is_empty() || asked.contains(&o.id.to_ascii_lowercase()))
        .map(|o| {
            json!({
                "organizationId": o.id,
                "licenses": [{
                    "organizationId": o.id,
                    "moduleId": "iikoCloud API",
                    "licenseStart": "2026-01-01T00:00:00Z",
                    "expires": "2027-01-01T00:00:00Z",
                    "quantity": 1,
                }],
            })
        })
        .collect();
    Reply::json(
        200,
        json!({"correlationId": new_uuid(), "organizationLicenses": organizations}),
    )
}

/// One seeded directory entry: id, code, name.
type Row = (&'static str, &'static str, &'static str);

/// The seeded directories of the nomenclature, by family.
const DIRECTORIES: [(&str, &[Row]); 11] = [
    ("nomenclature.amount_unit", &AMOUNT_UNITS),
    (
        "nomenclature.container",
        &[
            (
                "2b7c1d4e-8f90-4a1b-9c2d-3e4f5a6b7c01",
                "box",
                "Takeaway box",
            ),
            ("2b7c1d4e-8f90-4a1b-9c2d-3e4f5a6b7c02", "cup", "Cup 0.5 l"),
        ],
    ),
    (
        "nomenclature.allergen_group",
        &[
            ("3c8d2e5f-9a01-4b2c-8d3e-4f5a6b7c8d01", "gluten", "Gluten"),
            ("3c8d2e5f-9a01-4b2c-8d3e-4f5a6b7c8d02", "milk", "Milk"),
            ("3c8d2e5f-9a01-4b2c-8d3e-4f5a6b7c8d03", "nuts", "Nuts"),
        ],
    ),
    (
        "nomenclature.custom_category",
        &[
            ("4d9e3f60-ab12-4c3d-9e4f-5a6b7c8d9e01", "vegan", "Vegan"),
            ("4d9e3f60-ab12-4c3d-9e4f-5a6b7c8d9e02", "spicy", "Spicy"),
        ],
    ),
    (
        "nomenclature.modifier_schema",
        &[(
            "5eaf4071-bc23-4d4e-8f50-6b7c8d9eaf01",
            "pizza",
            "Pizza toppings",
        )],
    ),
    (
        "nomenclature.place_type",
        &[
            ("6fb05182-cd34-4e5f-9061-7c8d9eafb001", "hot", "Hot kitchen"),
            ("6fb05182-cd34-4e5f-9061-7c8d9eafb002", "bar", "Bar"),
        ],
    ),
    (
        "nomenclature.producer",
        &[("70c16293-de45-4f60-8172-8d9eafc0c101", "own", "Own kitchen")],
    ),
    (
        "nomenclature.product_size",
        &[
            ("81d273a4-ef56-4071-9283-9eafc0d1d201", "25", "25 cm"),
            ("81d273a4-ef56-4071-9283-9eafc0d1d202", "32", "32 cm"),
        ],
    ),
    (
        "nomenclature.product_tag",
        &[("92e384b5-f067-4182-83a4-afc0d1e2e301", "new", "New")],
    ),
    (
        "nomenclature.menu",
        &[
            ("a3f495c6-0178-4293-94b5-c0d1e2f3f401", "main", "Main menu"),
            ("a3f495c6-0178-4293-94b5-c0d1e2f3f402", "bar", "Bar menu"),
        ],
    ),
    (
        "nomenclature.product_scale",
        &[(
            "b405a6d7-1289-43a4-85c6-d1e2f304a501",
            "pizza",
            "Pizza sizes",
        )],
    ),
];

/// Units of measure of the seeded catalogue: id, code, name.
const AMOUNT_UNITS: [Row; 4] = [
    ("8a1b0e2c-5d6f-4a7b-9c8d-0e1f2a3b4c5d", "pcs", "Piece"),
    ("6f2e4d1c-0b9a-4c8d-8e7f-1a2b3c4d5e6f", "kg", "Kilogram"),
    ("1d2c3b4a-5f6e-4d7c-9b8a-7f6e5d4c3b2a", "l", "Litre"),
    ("9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", "portion", "Portion"),
];

/// A seeded directory: `{items, limit, offset, totalCount}` with filters.
fn directory(op: &Value, body: &Map<String, Value>, rows: &[Row]) -> Reply {
    let filters = match parse_filters(body.get("filters"), "id") {
        Ok(f) => f,
        Err(reply) => return reply,
    };
    // Only the fields the directory's item has (some have no `code`).
    let item = catalogue().item_schema(op, "items").unwrap_or_default();
    let all: Vec<Value> = rows
        .iter()
        .map(|(id, code, name)| json!({"id": id, "code": code, "name": name, "isDeleted": false}))
        .filter(|r| filters.iter().all(|f| f.matches(r)))
        .map(|r| match r {
            Value::Object(m) => Value::Object(fields_of(&item, &m)),
            other => other,
        })
        .collect();
    let total = all.len();
    let limit = body.get("limit").and_then(Value::as_u64).unwrap_or(100);
    let offset = body.get("offset").and_then(Value::as_u64).unwrap_or(0);
    let page: Vec<Value> = all
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .collect();
    let mut answer = answer_with(op, json!({"items": page}));
    set_known(
        &mut answer,
        op,
        &[
            ("totalCount", json!(total)),
            ("limit", json!(limit)),
            ("offset", json!(offset)),
        ],
    );
    Reply::json(200, answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_runs_a_report_its_columns_allow() {
        for p in &OLAP_PRESETS {
            assert!(OLAP_REPORTS.contains(&p.report), "{}", p.name);
            let owned = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
            assert!(
                check_olap_fields(&owned(p.aggregates), &owned(p.groups)).is_ok(),
                "{}",
                p.name
            );
        }
    }

    #[test]
    fn days_are_checked_for_shape_and_range() {
        assert!(is_day("2026-01-31"));
        for bad in [
            "2026-1-31",
            "2026-13-01",
            "2026-00-10",
            "2026-01-32",
            "20260131",
            "",
        ] {
            assert!(!is_day(bad), "{bad}");
        }
    }
}
