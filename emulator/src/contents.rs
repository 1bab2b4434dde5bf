//! What a create request puts into an emulated delivery or table order: its
//! items with the names, sizes, modifiers and prices of the organization's
//! nomenclature, the sum, payments and tips by their payment types, the
//! order type, marketing source and price category, phone and comment.

use serde_json::{json, Value};

use crate::dictionaries::Directory;
use crate::util::new_uuid;
use crate::webhooks::events;

/// Payment type kinds an order's payment may show (`Deliveries.Common.PaymentTypeKind`).
const ORDER_PAYMENT_KINDS: [&str; 10] = [
    "Unknown",
    "Cash",
    "Card",
    "Credit",
    "Writeoff",
    "Voucher",
    "External",
    "SmartSale",
    "Sberbank",
    "Trpos",
];

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// `{id, name}` of a dictionary item.
fn reference(v: &Value) -> Value {
    json!({"id": v["id"], "name": v["name"]})
}

/// Sets `key` only where the order's shape has it (a table order lacks some
/// of a delivery order's fields, and both schemas are closed).
fn set_existing(order: &mut Value, key: &str, value: Value) {
    if let Some(slot) = order.get_mut(key) {
        *slot = value;
    }
}

/// The order type as an order shows it: the dictionaries' `DeliveryPickUp`
/// is the order's `DeliveryByClient`.
fn order_type_json(t: &Value) -> Value {
    let service = match t["orderServiceType"].as_str() {
        Some("DeliveryPickUp") => "DeliveryByClient",
        Some(other) => other,
        None => "Common",
    };
    json!({"id": t["id"], "name": t["name"], "orderServiceType": service})
}

/// A payment or tips payment of the request as the order shows it.
fn payment_json(directory: Option<&Directory>, p: &Value) -> Value {
    let id = p["paymentTypeId"].as_str().unwrap_or_default();
    let known = directory.and_then(|d| d.payment_type(id));
    let requested = p["paymentTypeKind"].as_str().unwrap_or("Unknown");
    let kind = known
        .and_then(|t| t["paymentTypeKind"].as_str())
        .unwrap_or(requested);
    let kind = if ORDER_PAYMENT_KINDS.contains(&kind) {
        kind
    } else {
        "Unknown"
    };
    let name = known
        .and_then(|t| t["name"].as_str())
        .unwrap_or(requested)
        .to_string();
    json!({
        "paymentType": {"id": id.to_ascii_lowercase(), "name": name, "kind": kind},
        "sum": p["sum"],
        "isPreliminary": false,
        "isExternal": kind == "External",
        "isProcessedExternally": p["isProcessedExternally"] == true,
        "isFiscalizedExternally": p["isFiscalizedExternally"] == true,
        "isPrepay": p["isPrepay"] == true,
    })
}

/// The modifiers of an order item, with their total (for the whole item).
fn modifiers_json(
    directory: Option<&Directory>,
    product: Option<&Value>,
    modifiers: &Value,
    item_amount: f64,
) -> (Vec<Value>, f64) {
    let mut total = 0.0;
    let mut out = Vec::new();
    for m in modifiers.as_array().into_iter().flatten() {
        let Some(id) = m["productId"].as_str() else {
            continue;
        };
        let found = match (directory, product) {
            (Some(d), Some(p)) => d.modifier_of(p, id),
            _ => None,
        };
        let modifier_product = found
            .as_ref()
            .map(|u| u.product)
            .or_else(|| directory.and_then(|d| d.product(id)));
        let name = modifier_product
            .and_then(|p| p["name"].as_str())
            .unwrap_or("Unknown modifier");
        let listed = modifier_product
            .and_then(|p| directory.and_then(|d| d.price_of(p, None)))
            .and_then(|v| v.as_f64());
        let price = m["price"].as_f64().or(listed).unwrap_or(0.0);
        let amount = m["amount"].as_f64().unwrap_or(1.0);
        // A modifier's amount is per unit of its item.
        let sum = round2(price * amount * item_amount);
        total += sum;
        let settings = found.as_ref().map(|u| u.settings);
        let group = found
            .as_ref()
            .and_then(|u| u.group)
            .map(reference)
            .or_else(|| {
                let id = m["productGroupId"].as_str()?;
                directory.and_then(|d| d.group(id)).map(reference)
            });
        out.push(json!({
            "product": {"id": id.to_ascii_lowercase(), "name": name},
            "amount": m["amount"],
            "amountIndependentOfParentAmount": false,
            "codes": null,
            "productGroup": group,
            "price": price,
            "pricePredefined": m["price"].is_number(),
            "resultSum": sum,
            "deleted": null,
            "positionId": m["positionId"].as_str().map_or_else(new_uuid, str::to_string),
            "defaultAmount": settings.map_or(Value::Null, |s| s["defaultAmount"].clone()),
            "hideIfDefaultAmount": settings.map_or(Value::Null, |s| s["hideIfDefaultAmount"].clone()),
            "taxPercent": null,
            "freeOfChargeAmount": settings.map_or(Value::Null, |s| s["freeOfChargeAmount"].clone()),
        }));
    }
    (out, total)
}

/// Writes what a create request says into the emulated order. A request
/// without an order type keeps the order's, or, with `default_service`, gets
/// the dictionaries' order type of that service type.
pub(crate) fn fill_from_request(
    order: &mut Value,
    request: &Value,
    directory: Option<&Directory>,
    default_service: Option<&str>,
) {
    let mut sum = 0.0;
    let mut items = Vec::new();
    for item in request["items"].as_array().into_iter().flatten() {
        let Some(product_id) = item["productId"].as_str() else {
            continue;
        };
        let product = directory.and_then(|d| d.product(product_id));
        let name = product
            .and_then(|p| p["name"].as_str())
            .unwrap_or("Unknown product");
        let size = match (directory, product) {
            (Some(d), Some(p)) => d
                .item_size(p, item["productSizeId"].as_str())
                .ok()
                .flatten(),
            _ => None,
        };
        let size_id = size.and_then(|s| s["id"].as_str());
        let listed = product
            .and_then(|p| directory.and_then(|d| d.price_of(p, size_id)))
            .and_then(|v| v.as_f64());
        let price = item["price"].as_f64().or(listed).unwrap_or(0.0);
        let amount = item["amount"].as_f64().unwrap_or(1.0);
        let (modifiers, modifiers_sum) =
            modifiers_json(directory, product, &item["modifiers"], amount);
        let cost = round2(price * amount + modifiers_sum);
        sum += cost;
        let mut out = events::product_item(
            "Added",
            &product_id.to_ascii_lowercase(),
            name,
            json!(amount),
            json!(price),
            json!(cost),
        );
        out["size"] = size.map_or(Value::Null, reference);
        out["modifiers"] = Value::Array(modifiers);
        out["pricePredefined"] = json!(item["price"].is_number());
        if let Some(comment) = item["comment"].as_str() {
            out["comment"] = json!(comment);
        }
        if let Some(position) = item["positionId"].as_str() {
            out["positionId"] = json!(position);
        }
        items.push(out);
    }
    order["items"] = Value::Array(items);
    order["sum"] = json!(round2(sum));
    let payments: Vec<Value> = request["payments"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| payment_json(directory, p))
        .collect();
    order["payments"] = Value::Array(payments);
    let tips: Vec<Value> = request["tips"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let mut tip = payment_json(directory, t);
            let tips_type = t["tipsTypeId"]
                .as_str()
                .and_then(|id| directory.and_then(|d| d.tips_type(id)));
            if let (Some(tt), Some(m)) = (tips_type, tip.as_object_mut()) {
                m.insert("tipsType".into(), reference(tt));
            }
            tip
        })
        .collect();
    set_existing(order, "tips", Value::Array(tips));
    let order_type = match (
        request["orderTypeId"].as_str(),
        request["orderServiceType"].as_str(),
    ) {
        (Some(id), _) => directory.and_then(|d| d.order_type(id)),
        (None, Some(service)) => {
            let service = if service == "DeliveryByClient" {
                "DeliveryPickUp"
            } else {
                service
            };
            directory.and_then(|d| d.order_type_for(service))
        }
        (None, None) => default_service.and_then(|s| directory.and_then(|d| d.order_type_for(s))),
    };
    if let Some(t) = order_type {
        set_existing(order, "orderType", order_type_json(t));
    }
    if let Some(source) = request["marketingSourceId"]
        .as_str()
        .and_then(|id| directory.and_then(|d| d.marketing_source(id)))
    {
        set_existing(order, "marketingSource", reference(source));
    }
    if let Some(category) = request["priceCategoryId"].as_str().and_then(|id| {
        directory.and_then(|d| {
            d.data
                .price_categories
                .iter()
                .find(|c| c.id.eq_ignore_ascii_case(id))
        })
    }) {
        set_existing(
            order,
            "priceCategory",
            json!({"id": category.id, "name": category.name}),
        );
    }
    if let Some(menu) = request["menuId"].as_str() {
        set_existing(order, "menuId", json!(menu));
    }
    if let Some(phone) = request["phone"].as_str() {
        order["phone"] = json!(phone);
    }
    order["comment"] = request.get("comment").cloned().unwrap_or(Value::Null);
}

/// A triggered delivery order (`events::new_delivery_order`) names the
/// default organization's menu; an organization whose nomenclature lacks
/// those products gets two of its own dishes instead, paid with its cash
/// payment type, with its courier order type.
pub(crate) fn fit_made_up_order(order: &mut Value, directory: &Directory) {
    let known = order["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["product"]["id"].as_str())
        .all(|id| directory.product(id).is_some());
    if known {
        return;
    }
    let dishes = directory.data.nomenclature.products.iter().filter(|p| {
        p["type"] == "Dish"
            && p["isDeleted"] != true
            && p["sizePrices"].as_array().is_some_and(|s| !s.is_empty())
    });
    let mut total = 0.0;
    let items: Vec<Value> = dishes
        .zip([2.0, 3.0])
        .map(|(p, amount)| {
            let size = directory.item_size(p, None).ok().flatten();
            let size_id = size.and_then(|s| s["id"].as_str());
            let price = directory.price_of(p, size_id).unwrap_or(json!(0));
            total += price.as_f64().unwrap_or(0.0) * amount;
            json!({"type": "Product", "productId": p["id"], "productSizeId": size_id, "amount": amount, "price": price})
        })
        .collect();
    let cash = directory
        .data
        .payment_types
        .iter()
        .find(|t| t["paymentTypeKind"] == "Cash" && t["isDeleted"] != true);
    let payments: Vec<Value> = cash
        .into_iter()
        .map(|c| json!({"paymentTypeKind": "Cash", "sum": round2(total), "paymentTypeId": c["id"]}))
        .collect();
    let request = json!({
        "items": items,
        "payments": payments,
        "phone": order["phone"],
        "comment": order["comment"],
    });
    fill_from_request(order, &request, Some(directory), Some("DeliveryByCourier"));
}
