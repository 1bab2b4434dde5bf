//! The organizations' dictionaries over real HTTP on loopback: every read
//! answers real, cross-referenced data (no made-up placeholders), and
//! `deliveries.create` accepts exactly what the dictionaries hold.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::{eventually, Http};
use iikocloud_emulator::*;
use serde_json::{json, Value};

fn start() -> (Emulator, Http, String) {
    let emu =
        Emulator::start(EmulatorConfig::default().delivery(DeliveryConfig::fast())).expect("start");
    let http = Http::new(emu.url());
    let token = http.token();
    (emu, http, token)
}

fn read(http: &Http, token: &str, path: &str, body: Value) -> Value {
    let r = http.post(path, Some(token), &body);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    assert!(
        !r.body.contains("emulated "),
        "{path} answers a placeholder: {}",
        r.body
    );
    r.json()
}

fn ids(items: &Value) -> HashSet<String> {
    items
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {items}"))
        .iter()
        .map(|i| i["id"].as_str().expect("id").to_string())
        .collect()
}

fn named<'a>(items: &'a Value, name: &str) -> &'a Value {
    items
        .as_array()
        .and_then(|a| a.iter().find(|i| i["name"] == name))
        .unwrap_or_else(|| panic!("no {name:?} in {items}"))
}

const ORG: &str = DEFAULT_ORGANIZATION_ID;

fn orgs() -> Value {
    json!({ "organizationIds": [ORG] })
}

#[test]
fn every_dictionary_read_answers_real_data() {
    let (_emu, http, token) = start();
    let reads: Vec<(&str, Value, &str)> = vec![
        (
            "/api/1/nomenclature",
            json!({"organizationId": ORG}),
            "products",
        ),
        ("/api/2/menu", json!({}), "externalMenus"),
        ("/api/1/terminal_groups", orgs(), "terminalGroups"),
        ("/api/1/payment_types", orgs(), "paymentTypes"),
        ("/api/1/deliveries/order_types", orgs(), "orderTypes"),
        ("/api/1/discounts", orgs(), "discounts"),
        ("/api/1/cancel_causes", orgs(), "cancelCauses"),
        ("/api/1/removal_types", orgs(), "removalTypes"),
        ("/api/1/tips_types", json!({}), "tipsTypes"),
        ("/api/1/marketing_sources", orgs(), "marketingSources"),
        ("/api/1/employees/couriers", orgs(), "employees"),
        ("/api/1/regions", orgs(), "regions"),
        ("/api/1/cities", orgs(), "cities"),
        (
            "/api/1/delivery_restrictions",
            orgs(),
            "deliveryRestrictions",
        ),
        ("/api/1/organizations/settings", orgs(), "organizations"),
        (
            "/api/1/combo",
            json!({"organizationId": ORG}),
            "comboSpecifications",
        ),
        (
            "/api/1/loyalty/iiko/program",
            json!({"organizationId": ORG}),
            "Programs",
        ),
        (
            "/api/1/loyalty/iiko/customer_category",
            json!({"organizationId": ORG}),
            "guestCategories",
        ),
        (
            "/api/1/loyalty/iiko/coupons/series",
            json!({"organizationId": ORG}),
            "seriesWithNotActivatedCoupons",
        ),
        (
            "/api/1/reserve/available_restaurant_sections",
            json!({"terminalGroupIds": [DEFAULT_TERMINAL_GROUP_ID]}),
            "restaurantSections",
        ),
    ];
    for (path, body, list) in reads {
        let v = read(&http, &token, path, body);
        let items = &v[list];
        assert!(
            items.as_array().is_some_and(|a| !a.is_empty()),
            "{path}: {list} is empty: {v}"
        );
    }
}

#[test]
fn the_nomenclature_is_cross_referenced() {
    let (_emu, http, token) = start();
    let n = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": ORG}),
    );
    let groups = ids(&n["groups"]);
    let categories = ids(&n["productCategories"]);
    let sizes = ids(&n["sizes"]);
    let products = ids(&n["products"]);
    assert!(n["revision"].as_i64().unwrap() > 0);
    for p in n["products"].as_array().unwrap() {
        assert!(groups.contains(p["groupId"].as_str().unwrap()), "{p}");
        assert!(
            categories.contains(p["productCategoryId"].as_str().unwrap()),
            "{p}"
        );
        for sp in p["sizePrices"].as_array().unwrap() {
            if let Some(s) = sp["sizeId"].as_str() {
                assert!(sizes.contains(s), "{p}");
            }
            assert!(sp["price"]["currentPrice"].is_number(), "{p}");
        }
        for m in p["modifiers"].as_array().unwrap() {
            assert!(products.contains(m["id"].as_str().unwrap()), "{p}");
        }
        for g in p["groupModifiers"].as_array().unwrap() {
            assert!(groups.contains(g["id"].as_str().unwrap()), "{p}");
            for c in g["childModifiers"].as_array().unwrap() {
                assert!(products.contains(c["id"].as_str().unwrap()), "{p}");
            }
        }
    }
    // The three menu products the other tests use, at their prices.
    for (id, name, price) in MENU_PRODUCTS {
        let p = named(&n["products"], name);
        assert_eq!(p["id"], id);
        assert_eq!(
            p["sizePrices"][0]["price"]["currentPrice"].as_f64(),
            Some(price)
        );
    }
    // A pizza in two sizes, with a crust group of exactly one.
    let pizza = named(&n["products"], "Pizza Four Cheese");
    let size_names: Vec<&str> = pizza["sizePrices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|sp| {
            let id = sp["sizeId"].as_str().unwrap();
            n["sizes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["id"] == id)
                .and_then(|s| s["name"].as_str())
                .unwrap()
        })
        .collect();
    assert_eq!(size_names, ["25 cm", "32 cm"]);
    let crust = &pizza["groupModifiers"][0];
    assert_eq!(named(&n["groups"], "Crust")["id"], crust["id"]);
    assert_eq!(named(&n["groups"], "Crust")["isGroupModifier"], true);
    assert_eq!(
        (crust["minAmount"].as_i64(), crust["maxAmount"].as_i64()),
        (Some(1), Some(1))
    );
    assert_eq!(crust["childModifiers"].as_array().unwrap().len(), 3);
    assert_eq!(
        named(&n["products"], "Cheese-stuffed crust")["type"],
        "Modifier"
    );
    assert_eq!(named(&n["products"], "Cola 0.5 l")["type"], "Good");
    // Nullable fields the fixture leaves out are answered as null.
    assert!(pizza.get("seoTitle").is_some_and(Value::is_null), "{pizza}");

    // Nothing changed since this revision: empty lists, the same revision.
    let again = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": ORG, "startRevision": n["revision"]}),
    );
    assert_eq!(again["revision"], n["revision"]);
    assert_eq!(again["products"], json!([]));

    // The other organization has a menu of its own.
    let sushi = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": SECOND_ORGANIZATION_ID}),
    );
    let roll = named(&sushi["products"], "Philadelphia roll");
    assert_eq!(roll["sizePrices"].as_array().unwrap().len(), 2);
    assert!(!ids(&sushi["products"]).contains(MENU_PRODUCTS[0].0));
}

#[test]
fn external_menus_list_nomenclature_products_with_sizes_prices_and_modifiers() {
    let (_emu, http, token) = start();
    let n = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": ORG}),
    );
    let menus = read(&http, &token, "/api/2/menu", json!({}));
    let menu_id = menus["externalMenus"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let aggregators = named(&menus["priceCategories"], "Aggregators")["id"].clone();
    // The second organization's menu is listed as well.
    assert!(menus["externalMenus"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["name"] == "Sushi delivery"));

    let menu = read(
        &http,
        &token,
        "/api/2/menu/by_id",
        json!({"externalMenuId": menu_id, "organizationIds": [ORG]}),
    );
    assert_eq!(
        menu["id"].as_i64().map(|i| i.to_string()),
        Some(menu_id.clone())
    );
    let categories = menu["itemCategories"].as_array().unwrap();
    assert!(categories.len() >= 3);
    let mut seen = 0;
    for c in categories {
        for item in c["items"].as_array().unwrap() {
            let id = item["itemId"].as_str().unwrap();
            let p = n["products"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["id"] == id)
                .unwrap_or_else(|| panic!("{id} is not in the nomenclature"));
            assert_eq!(item["name"], p["name"]);
            let sizes = item["itemSizes"].as_array().unwrap();
            assert_eq!(sizes.len(), p["sizePrices"].as_array().unwrap().len());
            for (s, sp) in sizes.iter().zip(p["sizePrices"].as_array().unwrap()) {
                assert_eq!(
                    s["sizeId"].as_str(),
                    Some(sp["sizeId"].as_str().unwrap_or(""))
                );
                assert_eq!(
                    s["prices"][0]["price"].as_f64(),
                    sp["price"]["currentPrice"].as_f64(),
                    "{item}"
                );
                assert_eq!(s["prices"][0]["organizations"], json!([ORG]));
            }
            seen += 1;
        }
    }
    assert!(seen >= 8, "{seen} items");
    let pizza_category = named(&menu["itemCategories"], "Pizza");
    let four_cheese = named(&pizza_category["items"], "Pizza Four Cheese");
    let groups = &four_cheese["itemSizes"][0]["itemModifierGroups"];
    let crust = named(groups, "Crust");
    assert_eq!(crust["restrictions"]["minQuantity"], 1);
    assert_eq!(crust["restrictions"]["maxQuantity"], 1);
    let stuffed = named(&crust["items"], "Cheese-stuffed crust");
    assert_eq!(stuffed["prices"][0]["price"].as_f64(), Some(150.0));
    assert!(menu["comboCategories"][0]["combos"][0]["groups"]
        .as_array()
        .is_some_and(|g| g.len() == 2));

    // Another price category, other prices.
    let priced = read(
        &http,
        &token,
        "/api/2/menu/by_id",
        json!({"externalMenuId": menu_id, "organizationIds": [ORG], "priceCategoryId": aggregators}),
    );
    let margherita = named(
        &named(&priced["itemCategories"], "Pizza")["items"],
        MENU_PRODUCTS[0].1,
    );
    assert_eq!(
        margherita["itemSizes"][0]["prices"][0]["price"].as_f64(),
        Some(650.0)
    );

    for body in [
        json!({"externalMenuId": "999", "organizationIds": [ORG]}),
        json!({"externalMenuId": menu_id, "organizationIds": [ORG], "priceCategoryId": "0a0a0a0a-0000-4000-8000-000000000001"}),
    ] {
        let r = http.post("/api/2/menu/by_id", Some(&token), &body);
        assert_eq!(r.status, 400, "{}", r.body);
        assert!(r.json()["errorDescription"]
            .as_str()
            .unwrap()
            .contains("not found"));
    }
}

#[test]
fn reference_lists_point_at_each_other() {
    let (_emu, http, token) = start();
    let payments = read(&http, &token, "/api/1/payment_types", orgs());
    let cash = named(&payments["paymentTypes"], "Cash");
    assert_eq!(cash["paymentTypeKind"], "Cash");
    let groups: Vec<&str> = cash["terminalGroups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        groups,
        [DEFAULT_TERMINAL_GROUP_ID, DEFAULT_SECOND_TERMINAL_GROUP_ID]
    );
    // The organization's default call-center payment type is one of them.
    let payment_ids = ids(&payments["paymentTypes"]);
    assert!(payment_ids.contains("8f210347-60d0-4bd1-a6b7-cd70fb82d08d"));

    let types = read(&http, &token, "/api/1/deliveries/order_types", orgs());
    assert_eq!(types["orderTypes"][0]["organizationId"], ORG);
    let services: HashSet<&str> = types["orderTypes"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["orderServiceType"].as_str().unwrap())
        .collect();
    assert_eq!(
        services,
        HashSet::from(["Common", "DeliveryByCourier", "DeliveryPickUp"])
    );

    let tips = read(&http, &token, "/api/1/tips_types", json!({}));
    for t in tips["tipsTypes"].as_array().unwrap() {
        for p in t["paymentTypesIds"].as_array().unwrap() {
            let org = t["organizationIds"][0].as_str().unwrap();
            let theirs = read(
                &http,
                &token,
                "/api/1/payment_types",
                json!({"organizationIds": [org]}),
            );
            assert!(
                ids(&theirs["paymentTypes"]).contains(p.as_str().unwrap()),
                "{t}"
            );
        }
    }

    let discounts = read(&http, &token, "/api/1/discounts", orgs());
    let n = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": ORG}),
    );
    let student = named(&discounts["discounts"][0]["items"], "Student pizza 15%");
    let category = student["productCategoryDiscounts"][0]["categoryId"]
        .as_str()
        .unwrap();
    assert!(ids(&n["productCategories"]).contains(category));

    let sources = read(&http, &token, "/api/1/marketing_sources", orgs());
    assert!(sources["marketingSources"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["organizationId"] == ORG));

    // Cities, their streets, and streets by id.
    let cities = read(&http, &token, "/api/1/cities", orgs());
    let moscow = named(&cities["cities"][0]["items"], "Moscow");
    let streets = read(
        &http,
        &token,
        "/api/1/streets/by_city",
        json!({"organizationId": ORG, "cityId": moscow["id"]}),
    );
    let tverskaya = named(&streets["streets"], "Tverskaya");
    assert!(streets["streets"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["isDeleted"] == false));
    let by_id = read(
        &http,
        &token,
        "/api/1/streets/by_id",
        json!({"organizationId": ORG, "ids": [tverskaya["id"]]}),
    );
    assert_eq!(by_id["streets"][0]["cityName"], "Moscow");
    assert_eq!(by_id["streets"][0]["streetName"], "Tverskaya");
    let with_deleted = read(
        &http,
        &token,
        "/api/1/streets/by_city",
        json!({"organizationId": ORG, "cityId": moscow["id"], "includeDeleted": true}),
    );
    assert!(
        with_deleted["streets"].as_array().unwrap().len()
            > streets["streets"].as_array().unwrap().len()
    );

    // Delivery zones name real streets and a real delivery product.
    let r = read(&http, &token, "/api/1/delivery_restrictions", orgs());
    let restrictions = &r["deliveryRestrictions"][0];
    assert_eq!(restrictions["organizationId"], ORG);
    let delivery = restrictions["defaultDeliveryServiceProductId"]
        .as_str()
        .unwrap();
    assert_eq!(
        named(&n["products"], "Delivery")["id"].as_str(),
        Some(delivery)
    );
    assert_eq!(
        restrictions["deliveryZones"][0]["addresses"][0]["streetId"],
        tverskaya["id"]
    );

    // Restaurant sections and their tables; the layout only when asked for.
    let sections = read(
        &http,
        &token,
        "/api/1/reserve/available_restaurant_sections",
        json!({"terminalGroupIds": [DEFAULT_TERMINAL_GROUP_ID], "returnSchema": true}),
    );
    let hall = named(&sections["restaurantSections"], "Main hall");
    assert_eq!(hall["terminalGroupId"], DEFAULT_TERMINAL_GROUP_ID);
    let tables = ids(&hall["tables"]);
    assert!(tables.len() >= 4);
    for t in hall["schema"]["tableElements"].as_array().unwrap() {
        assert!(tables.contains(t["tableId"].as_str().unwrap()));
    }
    let plain = read(
        &http,
        &token,
        "/api/1/reserve/available_restaurant_sections",
        json!({"terminalGroupIds": [DEFAULT_SECOND_TERMINAL_GROUP_ID]}),
    );
    assert_eq!(plain["restaurantSections"].as_array().unwrap().len(), 1);
    assert!(plain["restaurantSections"][0]["schema"].is_null());

    // Settings: the organization's own fields; an unknown enum value of the
    // second organization is not passed on.
    let settings = read(
        &http,
        &token,
        "/api/1/organizations/settings",
        json!({"organizationIds": [ORG, SECOND_ORGANIZATION_ID]}),
    );
    let pizza = &settings["organizations"][0];
    assert_eq!(pizza["deliveryServiceType"], "CourierAndSelfService");
    assert_eq!(pizza["pricesVatInclusive"], true);
    assert!(settings["organizations"][1]["deliveryServiceType"].is_null());

    // An organization of another key is refused.
    let r = http.post(
        "/api/1/payment_types",
        Some(&token),
        &json!({"organizationIds": ["0a0a0a0a-0000-4000-8000-000000000001"]}),
    );
    assert_eq!(r.status, 400);
}

#[test]
fn couriers_employees_and_their_locations() {
    let (_emu, http, token) = start();
    let couriers = read(&http, &token, "/api/1/employees/couriers", orgs());
    let items = &couriers["employees"][0]["items"];
    let ivan = named_by(items, "displayName", "Courier Ivan");
    assert_eq!(ivan["isDeleted"], false);
    assert!(items
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["isDeleted"] == true));
    // The waiter is not a courier.
    assert!(!items
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["firstName"] == "Olga"));

    let roles = read(
        &http,
        &token,
        "/api/1/employees/couriers/by_role",
        json!({"organizationIds": [ORG], "rolesToCheck": ["COURIER", "MANAGER"]}),
    );
    let checked = named_by(
        &roles["employeesWithCheckRoles"][0]["items"],
        "id",
        ivan["id"].as_str().unwrap(),
    );
    assert_eq!(
        checked["checkRolesResult"],
        json!([{"checkedRoleCode": "COURIER", "employeeHasRole": true}, {"checkedRoleCode": "MANAGER", "employeeHasRole": false}])
    );

    let active = read(
        &http,
        &token,
        "/api/1/employees/couriers/active_location",
        orgs(),
    );
    let located = &active["activeCourierLocations"][0]["items"];
    assert!(located
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["courierId"] == ivan["id"] && l["lastActiveLatitude"].is_number()));
    let by_terminal = read(
        &http,
        &token,
        "/api/1/employees/couriers/active_location/by_terminal",
        json!({"organizationId": ORG, "terminalGroupId": DEFAULT_TERMINAL_GROUP_ID}),
    );
    assert_eq!(by_terminal["activeCourierLocations"][0]["items"], *located);
    let tracks = read(
        &http,
        &token,
        "/api/1/employees/couriers/locations/by_time_offset",
        json!({"organizationIds": [ORG], "offsetInSeconds": 600}),
    );
    assert!(tracks["courierLocations"][0]["items"][0]["locations"][0]["serverTimestamp"].is_i64());

    let info = read(
        &http,
        &token,
        "/api/1/employees/info",
        json!({"organizationId": ORG, "id": ivan["id"]}),
    );
    assert_eq!(info["employeeInfo"]["phone"], "+79160000001");
    let r = http.post(
        "/api/1/employees/info",
        Some(&token),
        &json!({"organizationId": ORG, "id": "0a0a0a0a-0000-4000-8000-000000000001"}),
    );
    assert_eq!(r.status, 400);
}

fn named_by<'a>(items: &'a Value, field: &str, value: &str) -> &'a Value {
    items
        .as_array()
        .and_then(|a| a.iter().find(|i| i[field] == value))
        .unwrap_or_else(|| panic!("no {field} = {value:?} in {items}"))
}

#[test]
fn the_known_guest_is_found_by_phone_card_and_id_and_an_unknown_one_is_400() {
    let (_emu, http, token) = start();
    let customer =
        |body: Value| http.post("/api/1/loyalty/iiko/customer/info", Some(&token), &body);
    let by_phone =
        customer(json!({"type": "phone", "phone": "+7 916 123-45-67", "organizationId": ORG}));
    assert_eq!(by_phone.status, 200, "{}", by_phone.body);
    let guest = by_phone.json();
    assert_eq!(guest["name"], "Anna");
    let id = guest["id"].as_str().unwrap();
    let card = guest["cards"][0]["number"].as_str().unwrap();
    let track = guest["cards"][0]["track"].as_str().unwrap();
    for body in [
        json!({"type": "id", "id": id, "organizationId": ORG}),
        json!({"type": "cardNumber", "cardNumber": card, "organizationId": ORG}),
        json!({"type": "cardTrack", "cardTrack": track, "organizationId": ORG}),
        json!({"type": "email", "email": guest["email"], "organizationId": ORG}),
    ] {
        let r = customer(body.clone());
        assert_eq!(r.status, 200, "{body}: {}", r.body);
        assert_eq!(r.json()["id"], id);
    }
    // Balances and categories point at the program and the guest categories.
    let program = read(
        &http,
        &token,
        "/api/1/loyalty/iiko/program",
        json!({"organizationId": ORG}),
    );
    assert_eq!(
        guest["walletBalances"][0]["id"],
        program["Programs"][0]["walletId"]
    );
    assert_eq!(program["Programs"][0]["appliedOrganizations"], json!([ORG]));
    assert!(!program["Programs"][0]["marketingCampaigns"]
        .as_array()
        .unwrap()
        .is_empty());
    let bare = read(
        &http,
        &token,
        "/api/1/loyalty/iiko/program",
        json!({"organizationId": ORG, "withoutMarketingCampaigns": true}),
    );
    assert_eq!(bare["Programs"][0]["marketingCampaigns"], json!([]));
    let categories = read(
        &http,
        &token,
        "/api/1/loyalty/iiko/customer_category",
        json!({"organizationId": ORG}),
    );
    assert!(ids(&categories["guestCategories"])
        .contains(guest["categories"][0]["id"].as_str().unwrap()));

    let unknown =
        customer(json!({"type": "phone", "phone": "+79990000000", "organizationId": ORG}));
    assert_eq!(unknown.status, 400);
    let body = unknown.json();
    assert!(body["correlationId"].is_string());
    assert!(
        body["errorDescription"]
            .as_str()
            .unwrap()
            .contains("+79990000000"),
        "{body}"
    );
}

/// Waits for a command and answers its final `commands/status`.
fn finished(http: &Http, token: &str, org: &str, cid: &str) -> Value {
    let mut last = Value::Null;
    let done = eventually(Duration::from_secs(10), || {
        last = http
            .post(
                "/api/1/commands/status",
                Some(token),
                &json!({"organizationId": org, "correlationId": cid}),
            )
            .json();
        last["state"] != "InProgress"
    });
    assert!(done, "still in progress: {last}");
    last
}

fn create(http: &Http, token: &str, order: Value) -> (String, Value) {
    let id = order["id"].as_str().unwrap().to_string();
    let r = http.post(
        "/api/1/deliveries/create",
        Some(token),
        &json!({"organizationId": ORG, "terminalGroupId": DEFAULT_TERMINAL_GROUP_ID, "order": order}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let cid = r.json()["correlationId"].as_str().unwrap().to_string();
    (id, finished(http, token, ORG, &cid))
}

fn by_id(http: &Http, token: &str, id: &str) -> Value {
    let r = read(
        http,
        token,
        "/api/1/deliveries/by_id",
        json!({"organizationId": ORG, "orderIds": [id]}),
    );
    r["orders"][0].clone()
}

#[test]
fn a_delivery_of_dictionary_entries_is_created_and_read_back_with_their_names() {
    let (_emu, http, token) = start();
    let n = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": ORG}),
    );
    let pizza = named(&n["products"], "Pizza Four Cheese");
    let small = named(&n["sizes"], "25 cm");
    let thin = named(&n["products"], "Thin crust");
    let mozzarella = named(&n["products"], "Extra mozzarella");
    let payments = read(&http, &token, "/api/1/payment_types", orgs());
    let card = named(&payments["paymentTypes"], "Bank card");
    let types = read(&http, &token, "/api/1/deliveries/order_types", orgs());
    let pickup = named(&types["orderTypes"][0]["items"], "Pickup");
    let sources = read(&http, &token, "/api/1/marketing_sources", orgs());
    let site = named(&sources["marketingSources"], "Website");

    let order = json!({
        "id": "3c1d0b6e-5a4f-4e2d-9c8b-7a6f5e4d3c2b",
        "phone": "+79161234567",
        "orderTypeId": pickup["id"],
        "marketingSourceId": site["id"],
        "items": [
            {
                "type": "Product", "productId": pizza["id"], "productSizeId": small["id"],
                "amount": 2, "price": 520,
                "modifiers": [
                    {"productId": thin["id"], "amount": 1, "productGroupId": pizza["groupModifiers"][0]["id"]},
                    {"productId": mozzarella["id"], "amount": 2, "price": 70}
                ]
            },
            {"type": "Product", "productId": MENU_PRODUCTS[1].0, "amount": 1, "price": 99.9}
        ],
        "payments": [{"paymentTypeKind": "Card", "sum": 1419.9, "paymentTypeId": card["id"]}]
    });
    let (id, status) = create(&http, &token, order);
    assert_eq!(status["state"], "Success", "{status}");
    let info = by_id(&http, &token, &id);
    assert_eq!(info["creationStatus"], "Success", "{info}");
    let o = &info["order"];
    let first = &o["items"][0];
    assert_eq!(first["product"]["name"], "Pizza Four Cheese");
    assert_eq!(first["size"], json!({"id": small["id"], "name": "25 cm"}));
    let modifiers = &first["modifiers"];
    assert_eq!(modifiers[0]["product"]["name"], "Thin crust");
    assert_eq!(modifiers[0]["productGroup"]["name"], "Crust");
    assert_eq!(modifiers[1]["product"]["name"], "Extra mozzarella");
    // 2 × 520 + 2 × 2 × 70 mozzarella (the thin crust is free).
    assert_eq!(first["cost"].as_f64(), Some(1320.0));
    assert_eq!(o["items"][1]["product"]["name"], MENU_PRODUCTS[1].1);
    assert_eq!(o["sum"].as_f64(), Some(1419.9));
    assert_eq!(
        o["payments"][0]["paymentType"],
        json!({"id": card["id"], "name": "Bank card", "kind": "Card"})
    );
    assert_eq!(o["payments"][0]["sum"].as_f64(), Some(1419.9));
    assert_eq!(
        o["orderType"],
        json!({"id": pickup["id"], "name": "Pickup", "orderServiceType": "DeliveryByClient"})
    );
    assert_eq!(o["marketingSource"]["name"], "Website");

    // Without an order type: the organization's default courier delivery.
    let (id, status) = create(
        &http,
        &token,
        json!({"id": "4d2e1c7f-6b5a-4f3e-8d9c-8b7a6f5e4d3c", "phone": "+79161234567",
               "items": [{"type": "Product", "productId": MENU_PRODUCTS[0].0, "amount": 1, "price": 590}]}),
    );
    assert_eq!(status["state"], "Success", "{status}");
    let o = by_id(&http, &token, &id)["order"].clone();
    assert_eq!(o["orderType"]["orderServiceType"], "DeliveryByCourier");
    // The only size of a single-size pizza is filled in.
    assert_eq!(o["items"][0]["size"]["name"], "32 cm");
}

#[test]
fn what_the_dictionaries_lack_fails_the_command_with_its_webhook() {
    let emu =
        Emulator::start(EmulatorConfig::default().delivery(DeliveryConfig::fast())).expect("start");
    let http = Http::new(emu.url());
    let token = http.token();
    let sink = WebhookSink::answering(200).expect("sink");
    let r = http.post(
        "/api/1/webhooks/update_settings",
        Some(&token),
        &json!({"organizationId": ORG, "webHooksUri": sink.url()}),
    );
    assert_eq!(r.status, 200);
    let n = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": ORG}),
    );
    let payments = read(&http, &token, "/api/1/payment_types", orgs());
    let deleted = payments["paymentTypes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["isDeleted"] == true)
        .expect("a deleted payment type")["id"]
        .clone();
    let pizza = named(&n["products"], "Pizza Four Cheese")["id"].clone();
    let tiramisu = named(&n["products"], "Tiramisu")["id"].clone();
    let cola = named(&n["products"], "Cola 0.5 l")["id"].clone();
    let unknown = "0a0a0a0a-0000-4000-8000-000000000001";
    let product = |extra: Value| {
        let mut item =
            json!({"type": "Product", "productId": MENU_PRODUCTS[0].0, "amount": 1, "price": 590});
        if let (Some(i), Value::Object(e)) = (item.as_object_mut(), extra) {
            i.extend(e);
        }
        item
    };
    let cases = [
        (
            json!({"items": [product(json!({}))], "payments": [{"paymentTypeKind": "Cash", "sum": 590, "paymentTypeId": unknown}]}),
            "PaymentTypeNotFound",
        ),
        (
            json!({"items": [product(json!({}))], "payments": [{"paymentTypeKind": "External", "sum": 590, "paymentTypeId": deleted}]}),
            "PaymentTypeNotFound",
        ),
        (
            json!({"items": [product(json!({}))], "orderTypeId": unknown}),
            "OrderTypeNotFound",
        ),
        (
            json!({"items": [product(json!({"productId": unknown}))]}),
            "ProductNotFound",
        ),
        (
            json!({"items": [product(json!({"productId": cola, "productSizeId": named(&n["sizes"], "25 cm")["id"]}))]}),
            "ProductSizeNotFound",
        ),
        (
            json!({"items": [product(json!({"productId": pizza, "modifiers": [{"productId": tiramisu, "amount": 1}]}))]}),
            "ProductNotFound",
        ),
        (
            json!({"items": [product(json!({}))], "marketingSourceId": unknown}),
            "MarketingSourceNotFound",
        ),
    ];
    for (i, (order, code)) in cases.into_iter().enumerate() {
        let mut order = order;
        let id = format!("5e2f3d8a-7c6b-4a4f-9e0d-{i:012x}");
        order["id"] = json!(id);
        order["phone"] = json!("+79161234567");
        let (id, status) = create(&http, &token, order);
        assert_eq!(status["state"], "Error", "{code}: {status}");
        assert_eq!(status["errorReason"], code);
        let info = by_id(&http, &token, &id);
        assert_eq!(info["creationStatus"], "Error");
        assert_eq!(info["errorInfo"]["code"], code);
        let sent = eventually(Duration::from_secs(10), || {
            sink.requests().iter().any(|r| {
                let events: Vec<Value> = serde_json::from_slice(&r.body).unwrap_or_default();
                events.iter().any(|e| {
                    e["eventType"] == "DeliveryOrderError"
                        && e["eventInfo"]["id"] == id.as_str()
                        && e["eventInfo"]["errorInfo"]["code"] == code
                })
            })
        });
        assert!(sent, "no DeliveryOrderError {code} for {id}");
    }
    // A Margherita is not on the sushi bar's menu.
    let r = http.post(
        "/api/1/deliveries/create",
        Some(&token),
        &json!({"organizationId": SECOND_ORGANIZATION_ID, "order": {"phone": "+79161234567",
                "items": [{"type": "Product", "productId": MENU_PRODUCTS[0].0, "amount": 1, "price": 590}]}}),
    );
    let cid = r.json()["correlationId"].as_str().unwrap().to_string();
    let status = finished(&http, &token, SECOND_ORGANIZATION_ID, &cid);
    assert_eq!(status["errorReason"], "ProductNotFound");
}

#[test]
fn fixture_files_bring_their_own_dictionaries_or_get_the_builtin_ones() {
    let mut doc: Value = serde_json::from_str(DEFAULT_FIXTURES_JSON).unwrap();
    // A new organization without dictionaries, one with its own small set,
    // and one with none at all.
    let own = "0b0b0b0b-0000-4000-8000-000000000001";
    let builtin = "0b0b0b0b-0000-4000-8000-000000000002";
    let empty = "0b0b0b0b-0000-4000-8000-000000000003";
    let tg = |n: u32| format!("0c0c0c0c-0000-4000-8000-00000000000{n}");
    let product = "0d0d0d0d-0000-4000-8000-000000000001";
    let cash = "0e0e0e0e-0000-4000-8000-000000000001";
    let organizations = doc["organizations"].as_array_mut().unwrap();
    organizations.push(json!({
        "id": own, "name": "Own dictionaries",
        "terminalGroups": [{"id": tg(1), "name": "Kitchen"}],
        "dictionaries": {
            "nomenclature": {
                "revision": 7,
                "groups": [{"id": "0f0f0f0f-0000-4000-8000-000000000001", "name": "Soups", "order": 0,
                            "isIncludedInMenu": true, "isGroupModifier": false, "imageLinks": []}],
                "products": [{"id": product, "name": "Borscht", "groupId": "0f0f0f0f-0000-4000-8000-000000000001",
                              "type": "Dish", "order": 0, "splittable": false, "useBalanceForSell": false, "canSetOpenPrice": false,
                              "sizePrices": [{"price": {"currentPrice": 320, "isIncludedInMenu": true, "nextIncludedInMenu": false}}]}]
            },
            "paymentTypes": [{"id": cash, "name": "Cash", "paymentTypeKind": "Cash", "applicableMarketingCampaigns": []}]
        }
    }));
    organizations.push(json!({"id": builtin, "name": "Built-in dictionaries", "terminalGroups": [{"id": tg(2), "name": "Hall"}]}));
    organizations.push(json!({"id": empty, "name": "No dictionaries", "terminalGroups": [{"id": tg(3)}], "dictionaries": {}}));
    doc["apiKeys"][0]["organizationIds"]
        .as_array_mut()
        .unwrap()
        .extend([json!(own), json!(builtin), json!(empty)]);
    let fixtures = Fixtures::from_json(&doc.to_string()).expect("valid fixtures");
    let emu = Emulator::start(
        EmulatorConfig::default()
            .fixtures(fixtures)
            .delivery(DeliveryConfig::fast()),
    )
    .expect("start");
    let http = Http::new(emu.url());
    let token = http.token();

    let n = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": own}),
    );
    assert_eq!(n["revision"], 7);
    let borscht = named(&n["products"], "Borscht");
    // Left out of the fixture, answered as null.
    assert!(borscht["sizePrices"][0]["sizeId"].is_null());
    assert!(borscht["code"].is_null());
    let payments = read(
        &http,
        &token,
        "/api/1/payment_types",
        json!({"organizationIds": [own]}),
    );
    assert_eq!(
        payments["paymentTypes"][0]["terminalGroups"][0]["id"],
        tg(1)
    );
    let r = http.post(
        "/api/1/deliveries/create",
        Some(&token),
        &json!({"organizationId": own, "order": {"id": "6f3a4e9b-8d7c-4b5a-8f1e-0d9c8b7a6f5e", "phone": "+79161234567",
                "items": [{"type": "Product", "productId": product, "amount": 1, "price": 320}],
                "payments": [{"paymentTypeKind": "Cash", "sum": 320, "paymentTypeId": cash}]}}),
    );
    let cid = r.json()["correlationId"].as_str().unwrap().to_string();
    assert_eq!(finished(&http, &token, own, &cid)["state"], "Success");

    // Without dictionaries: the built-in ones, on the organization's own terminal group.
    let n = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": builtin}),
    );
    assert_eq!(
        named(&n["products"], MENU_PRODUCTS[0].1)["id"],
        MENU_PRODUCTS[0].0
    );
    let sections = read(
        &http,
        &token,
        "/api/1/reserve/available_restaurant_sections",
        json!({"terminalGroupIds": [tg(2)]}),
    );
    assert!(!sections["restaurantSections"]
        .as_array()
        .unwrap()
        .is_empty());

    // `dictionaries: {}`: every list is empty.
    let n = read(
        &http,
        &token,
        "/api/1/nomenclature",
        json!({"organizationId": empty}),
    );
    assert_eq!(n["products"], json!([]));
    let causes = read(
        &http,
        &token,
        "/api/1/cancel_causes",
        json!({"organizationIds": [empty]}),
    );
    assert_eq!(causes["cancelCauses"], json!([]));
}

#[test]
fn reads_the_document_gives_no_body_may_be_sent_none() {
    let (_emu, http, token) = start();
    let bearer = format!("Bearer {token}");
    for path in ["/api/2/menu", "/api/1/tips_types"] {
        let r = http.post_raw(path, Some("application/json"), Some(&bearer), "");
        assert_eq!(r.status, 200, "{path}: {}", r.body);
    }
    // Others still need their JSON object.
    let r = http.post_raw(
        "/api/1/nomenclature",
        Some("application/json"),
        Some(&bearer),
        "",
    );
    assert_eq!(r.status, 400);
    assert!(r.body.contains("Malformed JSON"), "{}", r.body);
}

#[test]
fn coupons_manual_conditions_and_reserve_organizations() {
    let (_emu, http, token) = start();
    let one = json!({"organizationId": ORG});
    let series = read(
        &http,
        &token,
        "/api/1/loyalty/iiko/coupons/series",
        one.clone(),
    );
    let summer = named_by(
        &series["seriesWithNotActivatedCoupons"],
        "number",
        "SUMMER-2026",
    );
    let free = read(
        &http,
        &token,
        "/api/1/loyalty/iiko/coupons/by_series",
        json!({"organizationId": ORG, "series": "SUMMER-2026"}),
    );
    let numbers: Vec<&str> = free["notActivatedCoupon"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["number"].as_str().unwrap())
        .collect();
    // SUMMER-0001 is activated already.
    assert_eq!(numbers, ["SUMMER-0002", "SUMMER-0003"]);
    assert!(free["notActivatedCoupon"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["seriesId"] == summer["id"]));
    let paged = read(
        &http,
        &token,
        "/api/1/loyalty/iiko/coupons/by_series",
        json!({"organizationId": ORG, "series": summer["id"], "pageSize": 1, "page": 1}),
    );
    assert_eq!(paged["notActivatedCoupon"][0]["number"], "SUMMER-0003");
    let info = read(
        &http,
        &token,
        "/api/1/loyalty/iiko/coupons/info",
        json!({"organizationId": ORG, "number": "SUMMER-0001"}),
    );
    assert_eq!(
        info["couponInfo"][0]["whenActivated"],
        "2026-01-10 19:35:02.000"
    );
    let none = read(
        &http,
        &token,
        "/api/1/loyalty/iiko/coupons/info",
        json!({"organizationId": ORG, "number": "NOPE"}),
    );
    assert_eq!(none["couponInfo"], json!([]));
    let conditions = read(&http, &token, "/api/1/loyalty/iiko/manual_condition", one);
    named_by(&conditions["manualConditions"], "caption", "Birthday week");

    // The organizations and terminal groups that take reserves.
    let orgs = read(
        &http,
        &token,
        "/api/1/reserve/available_organizations",
        json!({"returnAdditionalInfo": true}),
    );
    let list = orgs["organizations"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{orgs}");
    assert_eq!(list[0]["responseType"], "Extended");
    assert_eq!(list[0]["deliveryServiceType"], "CourierAndSelfService");
    // An unknown enum value of the fixture is not passed on; neither are extra fields.
    assert!(list[1]["deliveryServiceType"].is_null());
    assert!(list[0].get("futureField").is_none());
    let groups = read(
        &http,
        &token,
        "/api/1/reserve/available_terminal_groups",
        json!({"organizationIds": [ORG, SECOND_ORGANIZATION_ID]}),
    );
    assert_eq!(
        groups["terminalGroups"][0]["items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        groups["terminalGroups"][1]["items"][0]["id"],
        SECOND_TERMINAL_GROUP_ID
    );
}

#[test]
fn delivery_zones_decide_where_the_organization_delivers() {
    let (_emu, http, token) = start();
    let allowed = |extra: Value| {
        let mut body = json!({"organizationIds": [ORG], "isCourierDelivery": true});
        if let (Some(b), Value::Object(e)) = (body.as_object_mut(), extra) {
            b.extend(e);
        }
        read(&http, &token, "/api/1/delivery_restrictions/allowed", body)
    };
    // Tverskaya 7: the Center zone, from the kitchen, in 45 minutes.
    let center = allowed(
        json!({"orderLocation": {"latitude": 55.757, "longitude": 37.6125}, "deliverySum": 900}),
    );
    assert_eq!(center["isAllowed"], true, "{center}");
    assert_eq!(center["allowedItems"][0]["zone"], "Center");
    assert_eq!(
        center["allowedItems"][0]["terminalGroupId"],
        DEFAULT_TERMINAL_GROUP_ID
    );
    assert_eq!(center["allowedItems"][0]["deliveryDurationInMinutes"], 45);
    assert_eq!(
        center["rejectedItems"][0]["rejectCode"],
        "OutOfTerminalZone"
    );
    // The North zone wants at least 1200.
    let north = allowed(
        json!({"orderLocation": {"latitude": 55.79, "longitude": 37.6}, "deliverySum": 900}),
    );
    assert_eq!(north["isAllowed"], false, "{north}");
    let short = north["rejectedItems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["zone"] == "North")
        .unwrap();
    assert_eq!(short["rejectCode"], "SumIsLessThenMinimum");
    assert_eq!(short["rejectItemData"]["minSum"].as_f64(), Some(1200.0));
    // Far away: nowhere.
    let far = allowed(json!({"orderLocation": {"latitude": 55.6, "longitude": 37.4}}));
    assert_eq!(far["isAllowed"], false);
    assert!(far["rejectCause"].is_string());
    // By the street an address names.
    let street = allowed(json!({"deliveryAddress": {"streetName": "Tverskaya", "house": "7"}}));
    assert_eq!(street["isAllowed"], true, "{street}");
    // Self-service: every terminal group.
    let pickup = allowed(json!({"isCourierDelivery": false}));
    assert_eq!(pickup["allowedItems"].as_array().unwrap().len(), 2);
}

#[test]
fn triggered_orders_use_their_organizations_dictionaries() {
    let (emu, http, token) = start();
    let order = emu
        .create_delivery_order(SECOND_ORGANIZATION_ID)
        .expect("order");
    let o = &order.events[0]["eventInfo"]["order"];
    assert_eq!(o["items"][0]["product"]["name"], "Philadelphia roll");
    assert_eq!(o["items"][0]["size"]["name"], "8 pcs");
    // 2 × 540 + 3 × 480 (a California roll, 8 pcs).
    assert_eq!(o["sum"].as_f64(), Some(2520.0));
    assert_eq!(o["payments"][0]["paymentType"]["name"], "Cash");
    assert_eq!(o["orderType"]["name"], "Courier delivery");
    let on_way = emu.set_delivery_status(&order.id, "OnWay").expect("on way");
    let courier = &on_way[0]["eventInfo"]["order"]["courierInfo"]["courier"];
    assert_eq!(courier["name"], "Courier Alexey");
    let cancelled = emu
        .set_delivery_status(&order.id, "Cancelled")
        .expect("cancelled");
    let causes = read(
        &http,
        &token,
        "/api/1/cancel_causes",
        json!({"organizationIds": [SECOND_ORGANIZATION_ID]}),
    );
    assert_eq!(
        cancelled[0]["eventInfo"]["order"]["cancelInfo"]["cause"]["id"],
        causes["cancelCauses"][0]["id"]
    );
    // The default organization's triggered order keeps its exact menu.
    let pizza = emu.create_delivery_order(ORG).expect("order");
    let o = &pizza.events[0]["eventInfo"]["order"];
    assert_eq!(o["items"][0]["product"]["id"], MENU_PRODUCTS[0].0);
    assert_eq!(o["sum"], json!(1479.7));
}
