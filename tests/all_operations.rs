//! Every operation of the snapshot, against the emulator over loopback: the
//! typed call succeeds, and the emulator's answer validates against the
//! schema of the document the operation comes from (the official one or the
//! newer edition, read from `../shared/spec`, converted from OpenAPI 3.0 to
//! JSON Schema 2020-12) with the `jsonschema` crate.
//!
//! An answer the document declares with content but no schema to check it
//! by (none, or one that constrains nothing) is a failure, never a pass; an
//! answer declared with no content must come without a body.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::net::TcpStream;

use iikocloud::api::{call_by_name, call_operation, OperationCall, RequestKeys, OPERATIONS};
use iikocloud::{CallOptions, Client, Error};
use iikocloud_emulator::{
    example_request, Emulator, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
};
use serde_json::{json, Map, Value};

const OFFICIAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/spec/iikocloud.openapi.json"
);
const NEWER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/spec/iikocloud.newer-edition.openapi.json"
);

/// Fields of the back-office requests and answers that name one record, and
/// those that name several.
const ID_FIELDS: [&str; 4] = ["id", "groupId", "productId", "documentId"];
const ID_LIST_FIELDS: [&str; 3] = ["ids", "groupIds", "productIds"];

fn client(emu: &Emulator) -> Client {
    Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .retries(0)
        .build()
        .expect("client")
}

/// The document's non-standard type names, as JSON Schema types.
fn standard_type(t: &str) -> Option<Value> {
    Some(match t {
        "bool" => json!({"type": "boolean"}),
        "float" => json!({"type": "number"}),
        "int" | "integer <int32>" | "integer <int64>" => json!({"type": "integer"}),
        "uuid" | "enum" => json!({"type": "string"}),
        "Array of strings <uuid>" => json!({"type": "array", "items": {"type": "string"}}),
        other if other.starts_with("constant string '") => {
            json!({"const": other["constant string '".len()..other.len() - 1]})
        }
        _ => return None,
    })
}

/// OpenAPI 3.0 to JSON Schema 2020-12: `nullable`, the odd type names, and
/// `additionalProperties: false` moved off inheritance bases (a base that
/// forbids extra properties would refuse every derived object).
fn convert(s: &Value, bases: &HashSet<String>, name: Option<&str>) -> Value {
    match s {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, v) in o {
                match k.as_str() {
                    "nullable" | "discriminator" | "example" | "x-identifier" => {}
                    "properties" => {
                        let props: Map<String, Value> = v
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(pk, pv)| (pk.clone(), convert(pv, bases, None)))
                            .collect();
                        out.insert(k.clone(), Value::Object(props));
                    }
                    "additionalProperties" if v == &Value::Bool(false) => {
                        let is_base = name.is_some_and(|n| bases.contains(n));
                        if !is_base {
                            let key = if o.contains_key("allOf") {
                                "unevaluatedProperties"
                            } else {
                                "additionalProperties"
                            };
                            out.insert(key.into(), Value::Bool(false));
                        }
                    }
                    "type" => match v.as_str().and_then(standard_type) {
                        Some(Value::Object(t)) => out.extend(t),
                        _ => {
                            out.insert(k.clone(), v.clone());
                        }
                    },
                    "$ref" => {
                        out.insert(k.clone(), json!(encode_ref(v.as_str().unwrap_or_default())));
                    }
                    _ => {
                        out.insert(k.clone(), convert(v, bases, None));
                    }
                }
            }
            if o.get("nullable") == Some(&Value::Bool(true)) {
                return json!({"anyOf": [Value::Object(out), {"type": "null"}]});
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| convert(v, bases, None)).collect()),
        other => other.clone(),
    }
}

/// Schema names like ``Wrapper`1[[...]]`` are not valid in a URI fragment:
/// percent-encode them (JSON pointers are resolved after decoding).
fn encode_ref(r: &str) -> String {
    let Some(name) = r.strip_prefix("#/components/schemas/") else {
        return r.to_string();
    };
    let mut out = String::from("#/components/schemas/");
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

struct Document {
    components: Value,
    doc: Value,
}

/// What a document declares for an operation's success.
#[derive(Debug)]
enum Declared {
    /// A JSON body of this schema (converted, with the components).
    Body(Value),
    /// The status and nothing else: no body.
    NoContent,
}

impl Document {
    fn load(path: &str) -> Document {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
            panic!("{path}: {e} (the documents sit in shared/spec beside the checkout)")
        });
        Document::of(serde_json::from_str(&text).expect("a JSON document"))
    }

    /// [`Document::load`], with each object schema that allows any field
    /// beyond its properties by saying nothing allowing none. The newer
    /// edition says nothing on all of its objects, so an answer of made-up
    /// field names (the OLAP columns' `aggregationAllowed` for
    /// `canAggregate`) would fit it; the emulator is held to the fields the
    /// edition names.
    fn load_closed(path: &str) -> Document {
        let mut document = Document::load(path);
        if let Some(schemas) = document.components["schemas"].as_object_mut() {
            for s in schemas.values_mut() {
                let open = ["additionalProperties", "unevaluatedProperties", "allOf"]
                    .iter()
                    .all(|k| s.get(*k).is_none());
                if open && s.get("properties").is_some() {
                    s["additionalProperties"] = json!(false);
                }
            }
        }
        document
    }

    fn of(doc: Value) -> Document {
        let empty = Map::new();
        let schemas = doc["components"]["schemas"].as_object().unwrap_or(&empty);
        // Schemas other schemas extend with allOf.
        let mut bases = HashSet::new();
        for s in schemas.values() {
            for part in s["allOf"].as_array().into_iter().flatten() {
                if let Some(r) = part["$ref"].as_str() {
                    bases.insert(r.rsplit('/').next().unwrap_or_default().to_string());
                }
            }
        }
        let converted: Map<String, Value> = schemas
            .iter()
            .map(|(k, v)| (k.clone(), convert(v, &bases, Some(k))))
            .collect();
        Document {
            components: json!({ "schemas": converted }),
            doc,
        }
    }

    /// What the document declares for an operation's success answer; an
    /// error when it gives nothing to check an answer by.
    fn declared_answer(&self, path: &str, method: &str, status: u16) -> Result<Declared, String> {
        let op = &self.doc["paths"][path][method.to_ascii_lowercase()];
        if !op.is_object() {
            return Err(format!("the document has no {method} {path}"));
        }
        let response = &op["responses"][status.to_string()];
        if !response.is_object() {
            return Err(format!("the document declares no {status} answer"));
        }
        let Some(content) = response.get("content") else {
            return Ok(Declared::NoContent);
        };
        let Some(json) = content.get("application/json") else {
            return Err(format!(
                "the {status} answer declares content, none of it application/json"
            ));
        };
        let s = &json["schema"];
        if !constrains(s) {
            return Err(format!(
                "the {status} answer declares content without a schema ({}): nothing to check it by",
                if s.is_null() { "none".to_string() } else { s.to_string() }
            ));
        }
        let mut root = match convert(s, &HashSet::new(), None) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        root.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
        root.insert("components".into(), self.components.clone());
        Ok(Declared::Body(Value::Object(root)))
    }
}

/// Whether a schema says anything about a value: a missing or empty one, one
/// of only prose (`description`, `nullable`, ...) or an array of such items
/// lets every answer through.
fn constrains(s: &Value) -> bool {
    const KEYWORDS: [&str; 9] = [
        "$ref",
        "type",
        "properties",
        "items",
        "allOf",
        "oneOf",
        "anyOf",
        "enum",
        "const",
    ];
    let Some(o) = s.as_object() else {
        return false;
    };
    if !KEYWORDS.iter().any(|k| o.contains_key(*k)) {
        return false;
    }
    o.get("type") != Some(&json!("array")) || o.get("items").is_some_and(constrains)
}

/// A POST over a socket of its own: the status, the `Content-Type` and the
/// body's exact bytes (the client reads an empty body as `null`, so only
/// the wire shows there was none).
fn raw_post(
    emu: &Emulator,
    token: &str,
    path: &str,
    body: &Value,
) -> (u16, Option<String>, Vec<u8>) {
    let mut socket = TcpStream::connect(emu.addr()).expect("connect");
    let body = body.to_string();
    write!(
        socket,
        "POST {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        emu.addr(),
        body.len()
    )
    .expect("request sent");
    let mut raw = Vec::new();
    socket.read_to_end(&mut raw).expect("answer read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let content_type = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("content-type")
            .then(|| value.trim().to_string())
    });
    (status, content_type, raw[split + 4..].to_vec())
}

/// The five operations that answer a JSON list whose schema the first
/// newer edition lacked: the walk must have seen each fit its schema.
const LIST_ANSWERS: [&str; 5] = [
    "finance.account_type.list",
    "inventory.incoming_inventory.list",
    "inventory.organizations.tree",
    "reporting.olap.columns.get",
    "reporting.olap.presets.list",
];

#[test]
fn every_operation_answers_typed_and_fits_the_official_schema() {
    let emu = Emulator::start_default().expect("emulator");
    let client = client(&emu);
    let official = Document::load(OFFICIAL);
    let newer = Document::load_closed(NEWER);
    let mut failures = Vec::new();
    let mut checked = 0;
    // One real order, so that the operations that move an order find it and
    // the order queries answer with a stored order, not an empty list.
    let (order_id, command_id) = create_order(&client);
    // Two table orders (one to close, one to cancel) and a reserve, for the
    // `order.*` and `reserve.*` operations that act on one.
    let table_orders = [create_table_order(&client), create_table_order(&client)];
    let reserve_id = create_reserve(&client);
    // The back-office families keep records: create first, so that the other
    // operations of a family act on a record that exists, and end with the
    // ones that retire it.
    let mut walk: Vec<_> = OPERATIONS.iter().collect();
    walk.sort_by_key(|op| {
        let rank = match op.name.rsplit('.').next().unwrap_or_default() {
            "create" => 0,
            "cancel" | "delete" | "fire" => 2,
            "restore" => 3,
            _ => 1,
        };
        if op.edition == "newer" {
            rank
        } else {
            1
        }
    });
    // Ids the creates answered, by family, put into the later requests.
    let mut created: HashMap<String, String> = HashMap::new();
    let mut passed: HashSet<&str> = HashSet::new();
    let mut no_content: Vec<&str> = Vec::new();
    for op in walk {
        if op.method != "POST" || op.path.ends_with("/access_token") {
            continue; // the GET form is deprecated; tokens are the client's own business
        }
        let mut request = example_request(op.path)
            .unwrap_or_else(|| panic!("{}: the emulator does not know it", op.name));
        let family = op.name.rsplit_once('.').map(|(f, _)| f).unwrap_or_default();
        let creates = op.edition == "newer" && op.name.ends_with(".create");
        if creates {
            // Both calls below create: let the emulator give each its own id.
            if let Some(fields) = request.as_object_mut() {
                for key in ID_FIELDS {
                    fields.remove(key);
                }
            }
        } else if let Some(id) = created.get(family) {
            let action = op.name.rsplit('.').next().unwrap_or_default();
            let names_one = ID_FIELDS
                .iter()
                .chain(&ID_LIST_FIELDS)
                .any(|k| request.get(*k).is_some());
            if !names_one && ["get", "update", "delete", "restore", "fire"].contains(&action) {
                request["id"] = json!(id);
            }
            for key in ID_FIELDS {
                if request.get(key).is_some() {
                    request[key] = json!(id);
                }
            }
            for key in ID_LIST_FIELDS {
                if request.get(key).is_some() {
                    request[key] = json!([id]);
                }
            }
        }
        for key in ["orderId"] {
            if request.get(key).is_some() {
                request[key] = json!(order_id);
            }
        }
        if let Some(ids) = request.get_mut("orderIds") {
            *ids = json!([order_id]);
        }
        if op.name.starts_with("order.") && request.get("orderId").is_some() {
            let which = usize::from(op.name == "order.cancel");
            request["orderId"] = json!(table_orders[which]);
        }
        if op.name == "order.by_id" {
            request["orderIds"] = json!(table_orders);
        }
        if op.name.starts_with("reserve.") {
            if request.get("reserveId").is_some() {
                request["reserveId"] = json!(reserve_id);
            }
            if request.get("reserveIds").is_some() {
                request["reserveIds"] = json!([reserve_id]);
            }
        }
        if op.name == "order.create" || op.name == "reserve.create" {
            // Both calls below create: each gets an id of its own.
            if let Some(order) = request.get_mut("order").and_then(Value::as_object_mut) {
                order.remove("id");
            }
            if let Some(fields) = request.as_object_mut() {
                fields.remove("id");
            }
        }
        if op.edition == "newer"
            && request.get("filters").is_some()
            && op.name != "reporting.olap.get"
        {
            request["filters"] = json!([]); // made-up filters name no field
        }
        if op.name == "reporting.olap.get" {
            request = json!({
                "reportType": "SALES",
                "aggregateFields": ["DishSumInt"],
                "groupByRowFields": ["OpenDate.Typed"],
                "filters": [{"name": "OpenDate.Typed", "filterType": "DateRange", "from": "2000-01-01", "to": "2100-01-01"}],
            });
        }
        if op.name == "commands.status" {
            request["correlationId"] = json!(command_id);
        }
        // The list reads documents by the day of their date: give the ones
        // created a real date, and the list a period holding it.
        if op.name == "inventory.incoming_inventory.create" {
            request["date"] = json!("2026-01-15T10:00:00");
        }
        if op.name == "inventory.incoming_inventory.list" {
            request["from"] = json!("2026-01-01");
            request["to"] = json!("2026-01-31");
        }
        if op.name == "reporting.olap.columns.get" {
            request["reportType"] = json!("SALES");
        }
        if op.name == "reporting.olap.presets.get" {
            let presets = call_by_name(&client, "reporting.olap.presets.list", &json!({}))
                .expect("presets listed");
            request = json!({
                "presetId": presets[0]["presetId"],
                "dateFrom": "2000-01-01",
                "dateTo": "2100-01-01",
            });
        }
        // Typed: the request read into its type, checked, sent; the answer
        // read into its type.
        let typed = match call_by_name(&client, op.name, &request) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{} (typed): {e}", op.name));
                continue;
            }
        };
        // Raw: the same request, the emulator's bytes checked against the
        // document.
        let answer = match client.call(op.path, &request, &CallOptions::default()) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{} (raw): {e}", op.name));
                continue;
            }
        };
        if creates {
            let id = ID_FIELDS.iter().find_map(|k| answer[*k].as_str());
            if let Some(id) = id {
                created.insert(family.to_string(), id.to_string());
            }
        }
        let document = if op.edition == "newer" {
            &newer
        } else {
            &official
        };
        let schema = match document.declared_answer(op.path, op.method, op.success_status) {
            Ok(Declared::Body(schema)) => schema,
            Ok(Declared::NoContent) => {
                // Declared without content: the emulator must send no body
                // (nor say it is JSON), and the client reads that as null.
                let token = client.access_token().expect("token");
                let (status, content_type, body) =
                    raw_post(&emu, token.expose(), op.path, &request);
                if status != op.success_status || !body.is_empty() || content_type.is_some() {
                    failures.push(format!(
                        "{}: declared with no content, answered {status} ({content_type:?}) with {:?}",
                        op.name,
                        String::from_utf8_lossy(&body)
                    ));
                }
                if !typed.is_null() || !answer.is_null() {
                    failures.push(format!("{}: no body read as {typed} / {answer}", op.name));
                }
                checked += 1;
                no_content.push(op.name);
                continue;
            }
            Err(missing) => {
                failures.push(format!("{}: {missing}", op.name));
                continue;
            }
        };
        // An empty list fits any item schema: it would prove nothing.
        if schema["type"] == "array" && answer.as_array().is_some_and(Vec::is_empty) {
            failures.push(format!(
                "{}: answered an empty list, which fits any item schema",
                op.name
            ));
            continue;
        }
        let validator = match jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&schema)
        {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{}: schema does not compile: {e}", op.name));
                continue;
            }
        };
        let errors: Vec<String> = validator
            .iter_errors(&answer)
            .take(3)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        if !errors.is_empty() {
            failures.push(format!("{}: {}", op.name, errors.join("; ")));
        } else {
            passed.insert(op.name);
        }
        checked += 1;
    }

    assert!(
        failures.is_empty(),
        "{} of {} operations failed:\n{}",
        failures.len(),
        checked,
        failures.join("\n")
    );
    assert!(checked >= 325, "only {checked} operations checked");
    for name in LIST_ANSWERS {
        assert!(passed.contains(name), "{name} was not checked");
    }
    // The one answer the documents declare with no content.
    assert_eq!(no_content, ["deliveries.update_tracking_link"]);
}

/// A document of one operation whose 200 is declared as given.
fn one_operation(ok: Value) -> Document {
    Document::of(json!({
        "paths": {"/api/x": {"post": {"responses": {"200": ok}}}},
        "components": {"schemas": {"Item": {"type": "object", "properties": {"name": {"type": "string"}}}}},
    }))
}

#[test]
fn an_answer_without_a_schema_to_check_it_by_is_reported_never_passed() {
    let content = |schema: Option<Value>| {
        let mut json = json!({});
        if let Some(s) = schema {
            json["schema"] = s;
        }
        json!({"description": "Success", "content": {"application/json": json}})
    };
    let missing = [
        content(None),
        content(Some(json!({}))),
        content(Some(json!({"description": "the answer", "nullable": true}))),
        content(Some(json!({"type": "array"}))),
        content(Some(json!({"type": "array", "items": {}}))),
        json!({"description": "Success", "content": {"text/plain": {"schema": {"type": "string"}}}}),
    ];
    for ok in missing {
        let e = one_operation(ok.clone())
            .declared_answer("/api/x", "POST", 200)
            .expect_err(&ok.to_string());
        assert!(e.contains("200 answer declares content"), "{e}");
    }
    let doc = one_operation(json!({"description": "Success"}));
    assert!(matches!(
        doc.declared_answer("/api/x", "POST", 200),
        Ok(Declared::NoContent)
    ));
    let e = doc.declared_answer("/api/x", "POST", 201).unwrap_err();
    assert!(e.contains("no 201 answer"), "{e}");
    let e = doc.declared_answer("/api/y", "POST", 200).unwrap_err();
    assert!(e.contains("no POST /api/y"), "{e}");
    let list = content(Some(
        json!({"type": "array", "items": {"$ref": "#/components/schemas/Item"}}),
    ));
    assert!(matches!(
        one_operation(list).declared_answer("/api/x", "POST", 200),
        Ok(Declared::Body(_))
    ));
}

#[test]
fn the_map_the_emulator_answered_for_olap_columns_fails_the_newer_edition() {
    // What reporting.olap.columns.get answered before the document carried
    // its schema: a map keyed by column name.
    let old_item = json!({"name": "DishSumInt", "type": "AMOUNT", "aggregationAllowed": true,
        "groupingAllowed": false, "filteringAllowed": true, "tags": []});
    let old = json!({ "DishSumInt": old_item });
    let listed = json!([{"name": "DishSumInt", "displayName": "Dish sum", "type": "MONEY", "tags": ["Amounts"],
        "canAggregate": true, "canFilter": false, "canGroup": false}]);
    let validator = |document: &Document| {
        let path = "/api/reporting/v1/olap/columns/get";
        let Ok(Declared::Body(schema)) = document.declared_answer(path, "POST", 200) else {
            panic!("the edition declares the columns' schema");
        };
        jsonschema::draft202012::new(&schema).expect("compiles")
    };
    let as_published = validator(&Document::load(NEWER));
    assert!(!as_published.is_valid(&old));
    assert!(as_published.is_valid(&listed));
    // Every field of the edition is optional and its objects are open: a
    // list of the old items fits it as published, and fails only with the
    // objects closed, as the walk reads the edition.
    assert!(as_published.is_valid(&json!([old_item])));
    let closed = validator(&Document::load_closed(NEWER));
    assert!(!closed.is_valid(&json!([old_item])));
    assert!(!closed.is_valid(&old));
    assert!(closed.is_valid(&listed));
}

/// Creates a table order of menu products and waits for it; its id.
fn create_table_order(client: &Client) -> String {
    let mut request = example_request("/api/1/order/create").expect("known");
    if let Some(order) = request.get_mut("order").and_then(Value::as_object_mut) {
        order.remove("id");
        order.insert(
            "items".into(),
            json!([{"type": "Product", "productId": iikocloud_emulator::MENU_PRODUCTS[0].0, "amount": 1, "price": 590}]),
        );
    }
    let answer = call_by_name(client, "order.create", &request).expect("table order created");
    wait(client, &answer);
    answer["orderInfo"]["id"]
        .as_str()
        .expect("orderInfo.id")
        .to_string()
}

/// Creates a reserve and waits for it; its id.
fn create_reserve(client: &Client) -> String {
    let mut request = example_request("/api/1/reserve/create").expect("known");
    if let Some(fields) = request.as_object_mut() {
        fields.remove("id");
    }
    let answer = call_by_name(client, "reserve.create", &request).expect("reserve created");
    wait(client, &answer);
    answer["reserveInfo"]["id"]
        .as_str()
        .expect("reserveInfo.id")
        .to_string()
}

fn wait(client: &Client, answer: &Value) {
    let cid = answer["correlationId"].as_str().expect("correlationId");
    client
        .wait_command(
            iikocloud_emulator::DEFAULT_ORGANIZATION_ID,
            cid,
            &iikocloud::api::WaitOptions::default(),
        )
        .expect("command finished");
}

/// Creates a delivery order of menu products and waits for it; its id and
/// its command's correlationId.
fn create_order(client: &Client) -> (String, String) {
    let mut request = example_request("/api/1/deliveries/create").expect("known");
    let id = "7a0e1d2c-3b4a-4c5d-8e6f-708192a3b4c5";
    request["order"]["id"] = json!(id);
    request["order"]["items"] = json!([{
        "type": "Product",
        "productId": iikocloud_emulator::MENU_PRODUCTS[0].0,
        "amount": 2,
        "price": 590,
    }]);
    // Dictionary entries of every kind an order shows back (a size, a
    // modifier of a group, a payment, an order type, a marketing source), so
    // that the order reads below are checked with them.
    let fixtures = iikocloud_emulator::Fixtures::default_data();
    let d = fixtures
        .organization(iikocloud_emulator::DEFAULT_ORGANIZATION_ID)
        .and_then(|o| o.dictionaries.clone())
        .expect("built-in dictionaries");
    let sized = d
        .nomenclature
        .products
        .iter()
        .find(|p| {
            p["sizePrices"].as_array().is_some_and(|s| s.len() > 1)
                && p["groupModifiers"]
                    .as_array()
                    .is_some_and(|g| !g.is_empty())
        })
        .expect("a product in sizes with a modifier group");
    let group = &sized["groupModifiers"][0];
    let price = sized["sizePrices"][0]["price"]["currentPrice"].clone();
    request["order"]["items"]
        .as_array_mut()
        .expect("items")
        .push(json!({
            "type": "Product",
            "productId": sized["id"],
            "productSizeId": sized["sizePrices"][0]["sizeId"],
            "amount": 1,
            "price": price,
            "modifiers": [{"productId": group["childModifiers"][0]["id"], "amount": 1, "productGroupId": group["id"]}],
        }));
    let cash = d
        .payment_types
        .iter()
        .find(|p| p["paymentTypeKind"] == "Cash")
        .expect("a cash payment type");
    request["order"]["payments"] =
        json!([{"paymentTypeKind": "Cash", "sum": 1000, "paymentTypeId": cash["id"]}]);
    let courier = d
        .order_types
        .iter()
        .find(|t| t["orderServiceType"] == "DeliveryByCourier")
        .expect("a courier order type");
    request["order"]["orderTypeId"] = courier["id"].clone();
    request["order"]["marketingSourceId"] = d.marketing_sources[0]["id"].clone();
    let answer = call_by_name(client, "deliveries.create", &request).expect("order created");
    let cid = answer["correlationId"]
        .as_str()
        .expect("correlationId")
        .to_string();
    client
        .wait_command(
            iikocloud_emulator::DEFAULT_ORGANIZATION_ID,
            &cid,
            &iikocloud::api::WaitOptions::default(),
        )
        .expect("creation succeeds");
    (id.to_string(), cid)
}

#[test]
fn invalid_requests_are_refused_before_sending_with_the_field_path() {
    let emu = Emulator::start_default().expect("emulator");
    let client = client(&emu);
    let mut request = example_request("/api/1/deliveries/create").expect("known");
    request["organizationId"] = json!("not-a-uuid");
    let before = emu.requests().len();
    let e = call_by_name(&client, "deliveries.create", &request).unwrap_err();
    assert!(matches!(e, Error::InvalidInput(_)), "{e:?}");
    assert!(
        e.to_string().contains("organizationId: must be a UUID"),
        "{e}"
    );
    // Nothing reached the network (not even a token request).
    assert_eq!(emu.requests().len(), before);

    let mut request = example_request("/api/1/deliveries/create").expect("known");
    request["order"]["items"][0]["amount"] = json!(-1);
    let e = call_by_name(&client, "deliveries.create", &request).unwrap_err();
    assert!(
        e.to_string()
            .contains("order.items[0].amount: must be at least 0"),
        "{e}"
    );
    let e = call_by_name(&client, "no.such.operation", &json!({})).unwrap_err();
    assert!(e.to_string().contains("no operation named"), "{e}");
}

#[test]
fn a_misspelt_key_never_leaves_the_machine_unless_the_call_allows_unknown_fields() {
    let emu = Emulator::start_default().expect("emulator");
    let client = client(&emu);
    let example = example_request("/api/1/deliveries/create").expect("known");
    let before = emu.requests().len();
    // At the top, nested, and in a list item.
    let mut top = example.clone();
    top["terminalGroupID"] = top["terminalGroupId"].take();
    let mut nested = example.clone();
    nested["order"]["complete_before"] = json!("2026-12-01 12:00:00.000");
    let mut item = example.clone();
    item["order"]["items"][0]["coment"] = json!("no onions");
    for (request, expected) in [
        (
            &top,
            "terminalGroupID: not a field of CreateOrderRequest; did you mean terminalGroupId?",
        ),
        (
            &nested,
            "order.complete_before: not a field of DeliveryOrder; did you mean completeBefore?",
        ),
        (
            &item,
            "order.items[0].coment: not a field of CompoundOrderItem; did you mean comment?",
        ),
    ] {
        let e = call_by_name(&client, "deliveries.create", request).unwrap_err();
        assert!(matches!(e, Error::InvalidInput(_)), "{e:?}");
        assert!(e.to_string().contains(expected), "{e}");
    }
    assert_eq!(emu.requests().len(), before, "nothing was sent");

    // Allowed on purpose: sent as given, so the emulator (which knows the
    // document) is the one to refuse it.
    let options = OperationCall {
        keys: RequestKeys::default().allowing_unknown(true),
        ..Default::default()
    };
    let e = call_operation(&client, "deliveries.create", &item, &options).unwrap_err();
    assert_eq!(e.http_status(), Some(400), "{e}");
    assert!(e.to_string().contains("coment"), "{e}");
    assert!(emu.request_count("/api/1/deliveries/create") > 0);
}

#[test]
fn the_emulator_refuses_a_request_that_does_not_fit_naming_the_field() {
    let emu = Emulator::start_default().expect("emulator");
    let client = client(&emu);
    let e = client
        .call(
            "/api/1/terminal_groups",
            &json!({"organizationIds": ["nope"]}),
            &CallOptions::default(),
        )
        .unwrap_err();
    assert_eq!(e.http_status(), Some(400), "{e}");
    assert!(
        e.to_string().contains("organizationIds[0]: must be a UUID"),
        "{e}"
    );
}
