//! The newer edition's list answers over real HTTP on loopback: OLAP columns
//! and presets (and that `olap.get` accepts what the columns say), incoming
//! inventories listed by organization and period, the organization tree of
//! the fixtures, and the account types.

mod common;

use common::{is_uuid, Http};
use iikocloud_emulator::*;
use serde_json::{json, Value};

const COLUMNS: &str = "/api/reporting/v1/olap/columns/get";
const OLAP: &str = "/api/reporting/v1/olap/get";
const PRESETS: &str = "/api/reporting/v1/olap/presets/list";
const PRESET: &str = "/api/reporting/v1/olap/presets/get";
const INVENTORY: &str = "/api/inventory/v1/incoming_inventory";
const TREE: &str = "/api/inventory/v1/organizations/tree";

/// A client of one emulator with a token of the default key.
struct Office {
    http: Http,
    token: String,
}

impl Office {
    fn start() -> (Emulator, Office) {
        let emu = Emulator::start_default().expect("start");
        let http = Http::new(emu.url());
        let token = http.token();
        (emu, Office { http, token })
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self.http.post(path, Some(&self.token), &body);
        (r.status, r.json())
    }

    /// A 200 answer.
    fn ok(&self, path: &str, body: Value) -> Value {
        let (status, answer) = self.post(path, body);
        assert_eq!(status, 200, "{path}: {answer}");
        answer
    }

    /// A 400 in the back-office error shape; its message.
    fn refused(&self, path: &str, body: Value) -> String {
        let (status, answer) = self.post(path, body);
        assert_eq!(status, 400, "{path}: {answer}");
        assert!(answer["details"].is_object(), "{answer}");
        answer["message"].as_str().expect("message").to_string()
    }
}

fn period() -> Value {
    json!([{"name": "OpenDate.Typed", "filterType": "DateRange", "from": "2000-01-01", "to": "2100-01-01"}])
}

#[test]
fn olap_columns_are_a_list_of_what_olap_get_accepts() {
    let (_emu, office) = Office::start();
    let sales = office.ok(COLUMNS, json!({"reportType": "SALES"}));
    let columns = sales.as_array().expect("a list, not a map by name");
    assert_eq!(columns.len(), 7, "{sales}");
    for c in columns {
        let fields: Vec<&str> = c
            .as_object()
            .expect("object")
            .keys()
            .map(|k| k.as_str())
            .collect();
        for key in [
            "name",
            "displayName",
            "type",
            "tags",
            "canAggregate",
            "canFilter",
            "canGroup",
        ] {
            assert!(fields.contains(&key), "{key} missing in {c}");
        }
        assert!(c["tags"].as_array().is_some_and(|t| !t.is_empty()), "{c}");
        let name = c["name"].as_str().expect("name");
        // Each column used the way it says it can be, and the other way.
        let as_aggregate =
            json!({"reportType": "SALES", "aggregateFields": [name], "filters": period()});
        let as_group = json!({"reportType": "SALES", "aggregateFields": ["UniqOrderId.OrdersCount"], "groupByRowFields": [name], "filters": period()});
        for (request, allowed) in [
            (as_aggregate, c["canAggregate"] == true),
            (as_group, c["canGroup"] == true),
        ] {
            let (status, answer) = office.post(OLAP, request);
            assert_eq!(status, if allowed { 200 } else { 400 }, "{name}: {answer}");
        }
        let mut filters = period();
        if name != "OpenDate.Typed" {
            filters
                .as_array_mut()
                .unwrap()
                .push(json!({"name": name, "filterType": "IncludeValues", "values": ["x"]}));
            let request = json!({"reportType": "SALES", "aggregateFields": ["DishSumInt"], "filters": filters});
            let (status, _) = office.post(OLAP, request);
            assert_eq!(
                status,
                if c["canFilter"] == true { 200 } else { 400 },
                "{name}"
            );
        }
    }
    let aggregates: Vec<&str> = columns
        .iter()
        .filter(|c| c["canAggregate"] == true)
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(aggregates, ["DishSumInt", "UniqOrderId.OrdersCount"]);
    // The reports are built from the same orders, so every type has the same columns.
    for report in ["DELIVERIES", "TRANSACTIONS"] {
        assert_eq!(office.ok(COLUMNS, json!({"reportType": report})), sales);
    }
    let message = office.refused(COLUMNS, json!({"reportType": "WEEKLY"}));
    assert!(message.contains("SALES"), "{message}");
}

#[test]
fn presets_list_names_the_reports_presets_get_runs() {
    let (emu, office) = Office::start();
    let order = emu
        .create_delivery_order(DEFAULT_ORGANIZATION_ID)
        .expect("order");
    emu.set_delivery_status(&order.id, "Closed")
        .expect("closed");
    emu.create_delivery_order(SECOND_ORGANIZATION_ID)
        .expect("an open order");

    let presets = office.ok(PRESETS, json!({}));
    let presets = presets.as_array().expect("a list");
    assert_eq!(presets.len(), 3);
    for p in presets {
        assert!(is_uuid(p["presetId"].as_str().expect("presetId")), "{p}");
        assert!(p["name"].as_str().is_some_and(|n| !n.is_empty()), "{p}");
        let report = office.ok(
            PRESET,
            json!({"presetId": p["presetId"], "dateFrom": "2000-01-01", "dateTo": "2100-01-01"}),
        );
        assert!(
            !report["data"].as_array().expect("data").is_empty(),
            "{p}: {report}"
        );
        assert_eq!(
            report["summary"].as_array().map(Vec::len),
            Some(1),
            "{report}"
        );
    }
    let by_day = presets
        .iter()
        .find(|p| p["name"] == "Sales by day")
        .expect("Sales by day");
    let report = office.ok(
        PRESET,
        json!({"presetId": by_day["presetId"], "dateFrom": "2000-01-01", "dateTo": "2100-01-01"}),
    );
    // The same report as olap.get with the preset's configuration.
    let direct = office.ok(
        OLAP,
        json!({
            "reportType": "SALES",
            "groupByRowFields": ["OpenDate.Typed"],
            "aggregateFields": ["DishSumInt", "UniqOrderId.OrdersCount"],
            "filters": period(),
            "buildSummary": true,
        }),
    );
    assert_eq!(report, direct);
    assert_eq!(
        report["summary"][0]["UniqOrderId.OrdersCount"],
        json!(1),
        "only the closed order is a sale"
    );
    // dateTo is excluded: a period ending on the order's day misses it.
    let day = report["data"][0]["OpenDate.Typed"]
        .as_str()
        .expect("day")
        .to_string();
    let before = office.ok(
        PRESET,
        json!({"presetId": by_day["presetId"], "dateFrom": "2000-01-01", "dateTo": day}),
    );
    assert_eq!(before["data"], json!([]));

    let message = office.refused(
        PRESET,
        json!({"presetId": "00000000-0000-4000-8000-000000000000", "dateFrom": "2000-01-01", "dateTo": "2100-01-01"}),
    );
    assert!(message.contains("not found"), "{message}");
    let message = office.refused(
        PRESET,
        json!({"presetId": by_day["presetId"], "dateFrom": "1 Jan", "dateTo": "2100-01-01"}),
    );
    assert!(message.contains("dateFrom"), "{message}");
}

#[test]
fn incoming_inventories_are_listed_by_organization_and_period() {
    let (_emu, office) = Office::start();
    let store = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
    let create = |org: &str, date: &str| -> String {
        let (status, answer) = office.post(
            &format!("{INVENTORY}/create"),
            json!({"organizationId": org, "store": store, "date": date, "items": [], "itemsFirstStep": [], "comment": date}),
        );
        assert_eq!(status, 201, "{answer}");
        answer["documentId"]
            .as_str()
            .expect("documentId")
            .to_string()
    };
    let first = create(DEFAULT_ORGANIZATION_ID, "2026-03-01T09:00:00.000+03:00");
    let posted = create(DEFAULT_ORGANIZATION_ID, "2026-03-05T23:30:00");
    let cancelled = create(DEFAULT_ORGANIZATION_ID, "2026-03-10T08:00:00");
    let elsewhere = create(SECOND_ORGANIZATION_ID, "2026-03-02T10:00:00");
    let by_id = |id: &str| json!({"organizationId": DEFAULT_ORGANIZATION_ID, "documentId": id});
    office.ok(&format!("{INVENTORY}/post"), by_id(&posted));
    office.ok(&format!("{INVENTORY}/cancel"), by_id(&cancelled));

    let list = |org: &str, from: &str, to: &str| -> Vec<Value> {
        let answer = office.ok(
            &format!("{INVENTORY}/list"),
            json!({"organizationId": org, "from": from, "to": to}),
        );
        answer.as_array().expect("a list").clone()
    };
    let ids = |items: &[Value]| -> Vec<String> {
        items
            .iter()
            .map(|i| i["documentId"].as_str().expect("documentId").to_string())
            .collect()
    };
    // Both ends are included; another organization's document is not listed.
    let march = list(DEFAULT_ORGANIZATION_ID, "2026-03-01", "2026-03-10");
    assert_eq!(ids(&march), {
        let mut all = vec![first.clone(), posted.clone(), cancelled.clone()];
        all.sort();
        all
    });
    assert_eq!(
        ids(&list(DEFAULT_ORGANIZATION_ID, "2026-03-02", "2026-03-05")),
        std::slice::from_ref(&posted)
    );
    assert_eq!(
        ids(&list(SECOND_ORGANIZATION_ID, "2026-03-01", "2026-03-31")),
        [elsewhere]
    );
    assert!(list(DEFAULT_ORGANIZATION_ID, "2026-04-01", "2026-04-30").is_empty());

    let item = |id: &str| {
        march
            .iter()
            .find(|i| i["documentId"] == id)
            .expect("listed")
            .clone()
    };
    let read = office.ok(&format!("{INVENTORY}/get"), by_id(&first));
    let one = item(&first);
    for key in [
        "number",
        "date",
        "comment",
        "dateCreated",
        "dateModified",
        "isEditable",
    ] {
        assert_eq!(one[key], read[key], "{key} as get reads it");
    }
    assert_eq!(one["storeFrom"], json!(store));
    assert_eq!(
        (one["processed"].clone(), one["deleted"].clone()),
        (json!(false), json!(false))
    );
    assert_eq!(item(&posted)["processed"], json!(true));
    assert_eq!(item(&cancelled)["deleted"], json!(true));
    assert!(
        one.get("status").is_none() && one.get("items").is_none(),
        "{one}"
    );

    let message = office.refused(
        &format!("{INVENTORY}/list"),
        json!({"organizationId": DEFAULT_ORGANIZATION_ID, "from": "March", "to": "2026-03-10"}),
    );
    assert!(message.contains("from"), "{message}");
}

#[test]
fn the_organization_tree_holds_the_keys_organizations_under_their_legal_entities() {
    let (_emu, office) = Office::start();
    let tree = office.ok(TREE, json!({}));
    let entities = tree.as_array().expect("a list");
    assert_eq!(entities.len(), 2, "{tree}");
    let company = &entities[0];
    assert_eq!(company["jurPersonId"], json!(DEFAULT_LEGAL_ENTITY_ID));
    assert_eq!(company["name"], json!("Emulator Restaurants LLC"));
    assert_eq!(company["code"], json!("ER-01"));
    assert_eq!(company["type"], json!("JUR_PERSON"));
    let fixtures = Fixtures::default_data();
    let children = company["children"].as_array().expect("children");
    let ids: Vec<&str> = children
        .iter()
        .filter_map(|c| c["organizationId"].as_str())
        .collect();
    assert_eq!(ids, [DEFAULT_ORGANIZATION_ID, SECOND_ORGANIZATION_ID]);
    for child in children {
        let org = fixtures
            .organization(child["organizationId"].as_str().unwrap())
            .expect("a fixture organization");
        assert_eq!(child["name"], json!(org.name));
        assert_eq!(child["code"], json!(org.code));
        assert_eq!(child["iikoUid"], json!(org.id));
        assert_eq!(child["type"], json!("Rms"));
        assert_eq!(child["children"], json!([]), "a leaf");
    }
    assert_eq!(children[0]["version"], json!("9.7.5012.0"));
    assert_eq!(children[1]["isCloud"], json!(false));
    // The closed cafe names no legal entity: one of its own, the same each time.
    let own = &entities[1];
    let cafe = &own["children"][0];
    assert_eq!(cafe["organizationId"], json!(DISABLED_ORGANIZATION_ID));
    let own_id = own["jurPersonId"].as_str().expect("jurPersonId");
    assert!(
        is_uuid(own_id) && own_id != DISABLED_ORGANIZATION_ID,
        "{own}"
    );
    assert_eq!(
        (own["name"].clone(), own["code"].clone()),
        (Value::Null, Value::Null)
    );
    assert_eq!(office.ok(TREE, json!({})), tree);

    let empty = office.http.token_for(EMPTY_API_KEY);
    let r = office.http.post(TREE, Some(&empty), &json!({}));
    assert_eq!((r.status, r.json()), (200, json!([])));
}

#[test]
fn account_types_are_a_list_of_codes() {
    let (_emu, office) = Office::start();
    let answer = office.ok("/api/finance/v1/account-type/list", json!({}));
    let codes: Vec<&str> = answer
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| {
            assert_eq!(t.as_object().map(|o| o.len()), Some(1), "{t}");
            t["code"].as_str().expect("code")
        })
        .collect();
    assert!(
        codes.contains(&"CASH") && codes.contains(&"EXPENSES"),
        "{codes:?}"
    );
    let mut unique = codes.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), codes.len(), "{codes:?}");
}
