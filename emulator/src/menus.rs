//! External menus (`/api/2/menu`, `/api/2/menu/by_id`), built from the
//! organization's nomenclature: each category lists nomenclature products
//! with their sizes, prices (of the price category asked for, else the
//! nomenclature's) and modifier groups, and the combos follow.
//!
//! `menu/by_id` answers in format version 2 (`itemCategories`) whatever
//! `version` asks: the document's versions 3 and 4 have the same required
//! fields, so an answer in either shape would fit both of the `oneOf` and
//! no answer could be valid.

use serde_json::{json, Value};

use crate::dictionaries::{Directory, ExternalMenuFixture, PriceCategoryFixture};
use crate::fixtures::ApiKeyFixture;
use crate::reply::Reply;
use crate::scope::{key_organizations, requested, Body};
use crate::state::Shared;

/// The id that stands for "no price category" in the document's examples.
const NO_PRICE_CATEGORY: &str = "00000000-0000-0000-0000-000000000000";

/// `/api/2/menu`: the external menus and price categories of the key's
/// organizations (each once).
pub(crate) fn menus(shared: &Shared, key: &ApiKeyFixture, cid: &str) -> Reply {
    let mut menus: Vec<Value> = Vec::new();
    let mut categories: Vec<Value> = Vec::new();
    for org in key_organizations(shared, key) {
        let Some(d) = shared.directory(&org) else {
            continue;
        };
        for m in &d.data.external_menus {
            if !menus.iter().any(|x| x["id"] == m.id.as_str()) {
                menus.push(json!({"id": m.id, "name": m.name}));
            }
        }
        for c in &d.data.price_categories {
            if !categories.iter().any(|x| x["id"] == c.id.as_str()) {
                categories.push(json!({"id": c.id, "name": c.name}));
            }
        }
    }
    Reply::ok(
        cid,
        json!({"externalMenus": menus, "priceCategories": categories}),
    )
}

/// The price of a product (or modifier) in a size: the price category's,
/// else the nomenclature's.
fn price(
    d: &Directory,
    product: &Value,
    size_id: Option<&str>,
    category: Option<&PriceCategoryFixture>,
) -> Value {
    let id = product["id"].as_str().unwrap_or_default();
    let own = category.and_then(|c| {
        c.prices.iter().find(|p| {
            p.product_id.eq_ignore_ascii_case(id)
                && match (&p.size_id, size_id) {
                    (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                    (None, None) => true,
                    _ => false,
                }
        })
    });
    match own {
        Some(p) => Value::Number(p.price.clone()),
        None => d.price_of(product, size_id).unwrap_or(json!(0)),
    }
}

fn prices(price: Value, organizations: &[String]) -> Value {
    json!([{"organizations": organizations, "price": price, "taxCategoryId": null}])
}

/// Nutrition per 100 g, from the product's amounts.
fn nutrition(product: &Value, organizations: &[String]) -> Value {
    let n = |k: &str| product[k].as_f64().unwrap_or(0.0);
    json!({
        "fats": n("fatAmount"),
        "proteins": n("proteinsAmount"),
        "carbs": n("carbohydratesAmount"),
        "energy": n("energyAmount"),
        "organizations": organizations,
        "saturatedFattyAcid": null,
        "salt": null,
        "sugar": null,
    })
}

fn grams(product: &Value) -> f64 {
    (product["weight"].as_f64().unwrap_or(0.0) * 1000.0).round()
}

fn text(v: &Value) -> Value {
    json!(v.as_str().unwrap_or_default())
}

/// `ExternalMenuModifierItem` of a modifier product with its restrictions.
fn modifier_item(
    d: &Directory,
    modifier: &Value,
    settings: &Value,
    position: usize,
    organizations: &[String],
    category: Option<&PriceCategoryFixture>,
) -> Value {
    json!({
        "sku": text(&modifier["code"]),
        "name": text(&modifier["name"]),
        "description": text(&modifier["description"]),
        "restrictions": [restrictions(settings)],
        "allergenGroups": [],
        "nutritionPerHundredGrams": [nutrition(modifier, organizations)],
        "portionWeightGrams": grams(modifier),
        "tags": [],
        "labels": [],
        "itemId": modifier["id"],
        "isHidden": false,
        "prices": prices(price(d, modifier, None, category), organizations),
        "position": position,
        "independentQuantity": false,
        "productCategoryId": modifier["productCategoryId"],
        "customerTagGroups": [],
        "paymentSubject": null,
        "outerEanCode": null,
        "isMarked": false,
        "measureUnitType": "GRAM",
        "paymentSubjectCode": null,
        "barcodes": null,
        "buttonImageUrl": null,
    })
}

/// Min, max, free and default amounts of a modifier or modifier group.
fn restrictions(settings: &Value) -> Value {
    let n = |k: &str| settings[k].as_i64().unwrap_or(0);
    json!({
        "minQuantity": n("minAmount"),
        "maxQuantity": n("maxAmount"),
        "freeQuantity": n("freeOfChargeAmount"),
        "byDefault": n("defaultAmount"),
        "hideIfDefaultQuantity": settings["hideIfDefaultAmount"] == true,
    })
}

/// The modifier groups of a product: its group modifiers, then each single
/// modifier as a group of its own.
fn modifier_groups(
    d: &Directory,
    product: &Value,
    organizations: &[String],
    category: Option<&PriceCategoryFixture>,
) -> Vec<Value> {
    let mut groups = Vec::new();
    for g in product["groupModifiers"].as_array().into_iter().flatten() {
        let group = g["id"].as_str().and_then(|id| d.group(id));
        let items: Vec<Value> = g["childModifiers"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, c)| {
                let m = d.product(c["id"].as_str()?)?;
                Some(modifier_item(d, m, c, i, organizations, category))
            })
            .collect();
        groups.push(json!({
            "name": group.map_or(json!(""), |x| text(&x["name"])),
            "description": group.map_or(json!(""), |x| text(&x["description"])),
            "restrictions": restrictions(g),
            "items": items,
            "canBeDivided": false,
            "itemGroupId": g["id"],
            "isHidden": false,
            "childModifiersHaveMinMaxRestrictions": g["childModifiersHaveMinMaxRestrictions"] == true,
            "sku": group.map_or(json!(""), |x| text(&x["code"])),
        }));
    }
    for (i, s) in product["modifiers"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some(m) = s["id"].as_str().and_then(|id| d.product(id)) else {
            continue;
        };
        groups.push(json!({
            "name": text(&m["name"]),
            "description": "",
            "restrictions": restrictions(s),
            "items": [modifier_item(d, m, s, i, organizations, category)],
            "canBeDivided": false,
            "itemGroupId": null,
            "isHidden": false,
            "childModifiersHaveMinMaxRestrictions": false,
            "sku": text(&m["code"]),
        }));
    }
    groups
}

/// `ExternalMenuItem` (format 2) of a nomenclature product.
fn menu_item(
    d: &Directory,
    product: &Value,
    organizations: &[String],
    category: Option<&PriceCategoryFixture>,
) -> Value {
    let code = product["code"].as_str().unwrap_or_default();
    let size_prices: Vec<&Value> = product["sizePrices"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let single = size_prices.len() == 1;
    let sizes: Vec<Value> = size_prices
        .iter()
        .map(|sp| {
            let size_id = sp["sizeId"].as_str();
            let size = size_id.and_then(|s| d.size(s));
            let size_name = size.and_then(|s| s["name"].as_str());
            let sku = match size_name {
                Some(n) if !single => format!("{code}-{}", n.replace(' ', "")),
                _ => code.to_string(),
            };
            json!({
                "sku": sku,
                "sizeCode": size_name.map(|n| n.replace(' ', "")),
                "sizeName": size_name,
                // The document: one size is the default, of several none is.
                "isDefault": single,
                "portionWeightGrams": grams(product),
                "itemModifierGroups": modifier_groups(d, product, organizations, category),
                // The document: empty for the only, default size.
                "sizeId": size_id.unwrap_or_default(),
                "nutritionPerHundredGrams": [nutrition(product, organizations)],
                "prices": prices(price(d, product, size_id, category), organizations),
                "nutritions": [nutrition(product, organizations)],
                "isHidden": sp["price"]["isIncludedInMenu"] == false,
                "measureUnitType": "GRAM",
                "buttonImageUrl": null,
            })
        })
        .collect();
    json!({
        "sku": code,
        "name": text(&product["name"]),
        "description": text(&product["description"]),
        "allergens": [],
        "tags": [],
        "labels": [],
        "itemSizes": sizes,
        "itemId": product["id"],
        "modifierSchemaId": text(&product["modifierSchemaId"]),
        "taxCategory": [],
        "modifierSchemaName": product["modifierSchemaName"],
        "type": "DISH",
        "canBeDivided": false,
        "canSetOpenPrice": product["canSetOpenPrice"] == true,
        "useBalanceForSell": product["useBalanceForSell"] == true,
        "measureUnit": text(&product["measureUnit"]),
        "productCategoryId": product["productCategoryId"],
        "customerTagGroups": [],
        "paymentSubject": null,
        "paymentSubjectCode": null,
        "outerEanCode": null,
        "isMarked": false,
        "isHidden": false,
        "barcodes": null,
        "orderItemType": product["orderItemType"].as_str().unwrap_or("Product"),
    })
}

/// The products of a menu category: those it names, else those of its
/// group (no modifiers, nothing deleted), in the nomenclature's order.
fn category_products<'a>(
    d: &'a Directory,
    c: &crate::dictionaries::MenuCategoryFixture,
) -> Vec<&'a Value> {
    if let Some(ids) = &c.product_ids {
        return ids.iter().filter_map(|id| d.product(id)).collect();
    }
    let Some(group) = &c.group_id else {
        return Vec::new();
    };
    let mut products: Vec<&Value> = d
        .data
        .nomenclature
        .products
        .iter()
        .filter(|p| {
            p["groupId"]
                .as_str()
                .is_some_and(|g| g.eq_ignore_ascii_case(group))
                && p["type"] != "Modifier"
                && p["isDeleted"] != true
        })
        .collect();
    products.sort_by_key(|p| p["order"].as_i64().unwrap_or(0));
    products
}

/// `2025-09-01 00:00:00.000` (terminal time) as the menu writes combo dates.
fn menu_date(local: &Value) -> String {
    let s = local.as_str().unwrap_or("2099-12-31 23:59:59.000");
    let (date, time) = s.split_once(' ').unwrap_or((s, "00:00:00.000"));
    let time = time.split('.').next().unwrap_or("00:00:00");
    format!("{date}T{time}+03:00")
}

/// The active combos as the menu's combo categories.
fn combo_categories(d: &Directory) -> Vec<Value> {
    d.data
        .combos
        .categories
        .iter()
        .map(|cat| {
            let combos: Vec<Value> = d
                .data
                .combos
                .specifications
                .iter()
                .filter(|s| s["categoryId"] == cat["id"] && s["isActive"] != false)
                .map(|s| {
                    let groups: Vec<Value> = s["groups"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|g| {
                            let items: Vec<Value> = g["products"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .map(|p| {
                                    json!({
                                        "itemId": p["productId"],
                                        "forbiddenModifiers": p["forbiddenModifiers"].as_array().cloned().unwrap_or_default(),
                                        "sizeId": p["sizeId"],
                                        "priceModificationAmount": p["priceModificationAmount"],
                                        "sizes": [],
                                    })
                                })
                                .collect();
                            json!({
                                "id": g["id"],
                                "name": text(&g["name"]),
                                "isMainGroup": g["isMainGroup"] == true,
                                "items": items,
                                "skipStep": g["skipStep"] == true,
                            })
                        })
                        .collect();
                    json!({
                        "name": text(&s["name"]),
                        "price": s["priceModification"].as_f64().unwrap_or(0.0),
                        "groups": groups,
                        "image": [],
                        "description": "",
                        "sizes": [],
                        "priceStrategy": "FIXED",
                        "startDate": menu_date(&s["startDate"]),
                        "expirationDate": menu_date(&s["expirationDate"]),
                        "id": s["sourceActionId"],
                    })
                })
                .collect();
            json!({"id": cat["id"], "name": cat["name"], "combos": combos})
        })
        .collect()
}

fn menu_json(
    d: &Directory,
    menu: &ExternalMenuFixture,
    organizations: &[String],
    category: Option<&PriceCategoryFixture>,
) -> Value {
    let categories: Vec<Value> = menu
        .categories
        .iter()
        .map(|c| {
            let items: Vec<Value> = category_products(d, c)
                .into_iter()
                .map(|p| menu_item(d, p, organizations, category))
                .collect();
            json!({
                "id": c.id,
                "name": c.name,
                "description": c.description.clone().unwrap_or_default(),
                "buttonImageUrl": null,
                "headerImageUrl": null,
                "iikoGroupId": c.group_id,
                "items": items,
                "scheduleId": null,
                "scheduleName": null,
                "schedules": [],
                "isHidden": false,
                "tags": [],
                "labels": [],
            })
        })
        .collect();
    let product_categories: Vec<Value> = d
        .data
        .nomenclature
        .product_categories
        .iter()
        .map(|c| json!({"id": c["id"], "name": c["name"], "isDeleted": c["isDeleted"] == true}))
        .collect();
    json!({
        "productCategories": product_categories,
        "customerTagGroups": [],
        "revision": d.data.nomenclature.revision,
        "formatVersion": 2,
        "id": menu.id.parse::<i64>().unwrap_or(0),
        "name": menu.name,
        "description": menu.description.clone().unwrap_or_default(),
        "buttonImageUrl": null,
        "intervals": [],
        "itemCategories": categories,
        "comboCategories": combo_categories(d),
    })
}

/// `/api/2/menu/by_id`: the menu of the first organization asked about
/// that has it; an unknown menu or price category is a 400.
pub(crate) fn menu_by_id(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
) -> Result<Reply, String> {
    let organizations = requested(key, body)?;
    let menu_id = body
        .get("externalMenuId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let found = organizations.into_iter().find_map(|org| {
        let d = shared.directory(&org)?;
        let menu = d.data.external_menus.iter().find(|m| m.id == menu_id)?;
        Some((org, d, menu))
    });
    let Some((org, d, menu)) = found else {
        return Err(format!("External menu {menu_id} not found"));
    };
    let category = match body.get("priceCategoryId").and_then(Value::as_str) {
        None | Some("") | Some(NO_PRICE_CATEGORY) => None,
        Some(id) => Some(
            d.data
                .price_categories
                .iter()
                .find(|c| c.id.eq_ignore_ascii_case(id))
                .ok_or_else(|| format!("Price category {id} not found"))?,
        ),
    };
    Ok(Reply::json(200, menu_json(d, menu, &[org], category)))
}
