//! An organization's reference data: the nomenclature, external menus and
//! price categories, payment, order and discount types, cancel causes,
//! employees, addresses, restaurant sections, delivery restrictions, combos
//! and the loyalty program (the fixture's `dictionaries`, README "Fixture
//! file format").
//!
//! Most lists hold items in the exact shape the service answers them (the
//! snapshot schema named in [`Dictionaries::prepare`]); fields the schema lets
//! be null may be left out and are answered as null. Menus, price categories
//! and employees have shapes of their own, from which several answers are
//! built. [`Directory`] is the organization's data with its lookups, used by
//! the answers and by `deliveries.create`.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Number, Value};

use crate::catalogue::catalogue;
use crate::util::is_uuid;

/// The reference data of one organization. Every section may be left out
/// (an empty list, or no object).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Dictionaries {
    /// `/api/1/nomenclature`: groups, product categories, products and sizes.
    #[serde(default)]
    pub nomenclature: NomenclatureFixture,
    /// External menus (`/api/2/menu`, `/api/2/menu/by_id`), built from the nomenclature.
    #[serde(default)]
    pub external_menus: Vec<ExternalMenuFixture>,
    /// Price categories: other prices for some products and sizes.
    #[serde(default)]
    pub price_categories: Vec<PriceCategoryFixture>,
    /// `PaymentTypes.PaymentType` items; `terminalGroups` may be left out (the
    /// organization's terminal groups are answered).
    #[serde(default)]
    pub payment_types: Vec<Value>,
    /// `OrderTypes.OrderType` items.
    #[serde(default)]
    pub order_types: Vec<Value>,
    /// `Discounts.DiscountCardTypeInfo` items.
    #[serde(default)]
    pub discounts: Vec<Value>,
    /// `CancelCauses.CancelCause` items.
    #[serde(default)]
    pub cancel_causes: Vec<Value>,
    /// `RemovalTypes.RemovalType` items.
    #[serde(default)]
    pub removal_types: Vec<Value>,
    /// `TipsTypes.TipsType` items; `organizationIds` may be left out.
    #[serde(default)]
    pub tips_types: Vec<Value>,
    /// `MarketingSources.MarketingSource` items; `organizationId` may be left out.
    #[serde(default)]
    pub marketing_sources: Vec<Value>,
    /// Employees: couriers (role `COURIER`) and the others.
    #[serde(default)]
    pub employees: Vec<EmployeeFixture>,
    /// `Address.Region` items.
    #[serde(default)]
    pub regions: Vec<Value>,
    /// `Address.City` items.
    #[serde(default)]
    pub cities: Vec<Value>,
    /// `Address.Street` items, each with the `cityId` of its city.
    #[serde(default)]
    pub streets: Vec<Value>,
    /// `Reserves.RestaurantSection` items (sections with their tables).
    #[serde(default)]
    pub restaurant_sections: Vec<Value>,
    /// `DeliveryRestrictions.DeliveryRestrictions`; `organizationId` may be left out.
    #[serde(default)]
    pub delivery_restrictions: Option<Value>,
    /// Combos (`/api/1/combo`), also shown in the external menus.
    #[serde(default)]
    pub combos: CombosFixture,
    /// The loyalty program, guest categories, coupon series and guests.
    #[serde(default)]
    pub loyalty: LoyaltyFixture,
    /// Fields of `Organizations.OrganizationSettings` beyond those the
    /// organization's `extended` fields give (`pricesVatInclusive`, ...).
    #[serde(default)]
    pub organization_settings: Map<String, Value>,
}

/// The nomenclature in the shape of `/api/1/nomenclature` (no `correlationId`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NomenclatureFixture {
    /// Its revision: a `startRevision` at least this large gets empty lists.
    #[serde(default)]
    pub revision: i64,
    /// `Nomenclature.ProductsGroupInfo` items.
    #[serde(default)]
    pub groups: Vec<Value>,
    /// `Nomenclature.ProductCategoryInfo` items.
    #[serde(default)]
    pub product_categories: Vec<Value>,
    /// `Nomenclature.ProductInfo` items: dishes, goods, modifiers and services.
    #[serde(default)]
    pub products: Vec<Value>,
    /// `Nomenclature.Size` items.
    #[serde(default)]
    pub sizes: Vec<Value>,
}

/// An external menu: categories of nomenclature products.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExternalMenuFixture {
    /// The menu's id: digits (the menu answers it as an integer).
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// Its categories, in order.
    #[serde(default)]
    pub categories: Vec<MenuCategoryFixture>,
}

/// A category of an external menu: the products it names, or those of a
/// nomenclature group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MenuCategoryFixture {
    /// Category id (UUID).
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// A nomenclature group: the category lists its products (modifiers and
    /// deleted products left out) unless `productIds` is given.
    #[serde(default)]
    pub group_id: Option<String>,
    /// The products of the category, in order.
    #[serde(default)]
    pub product_ids: Option<Vec<String>>,
}

/// A price category: its own prices for some products and sizes; the others
/// keep their nomenclature price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PriceCategoryFixture {
    /// Price category id (UUID).
    pub id: String,
    /// Name.
    pub name: String,
    /// Prices of this category.
    #[serde(default)]
    pub prices: Vec<CategoryPrice>,
}

/// One price of a price category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CategoryPrice {
    /// Product id.
    pub product_id: String,
    /// Size id, or null for a product without sizes.
    #[serde(default)]
    pub size_id: Option<String>,
    /// The price, kept as written.
    pub price: Number,
}

/// An employee: `/api/1/employees/info` fields, the roles that make a
/// courier, and a courier's last known location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EmployeeFixture {
    /// Employee id (UUID).
    pub id: String,
    /// First name.
    #[serde(default)]
    pub first_name: Option<String>,
    /// Middle name.
    #[serde(default)]
    pub middle_name: Option<String>,
    /// Last name.
    #[serde(default)]
    pub last_name: Option<String>,
    /// Name shown on the terminal.
    #[serde(default)]
    pub display_name: Option<String>,
    /// Employee code.
    #[serde(default)]
    pub code: Option<String>,
    /// Deleted (dismissed) employees are still listed, flagged.
    #[serde(default)]
    pub is_deleted: bool,
    /// E-mail.
    #[serde(default)]
    pub email: Option<String>,
    /// Phone.
    #[serde(default)]
    pub phone: Option<String>,
    /// Mobile phone.
    #[serde(default)]
    pub cell_phone: Option<String>,
    /// Role codes (`COURIER`, `WAITER`, ...); those with `COURIER` are couriers.
    #[serde(default)]
    pub roles: Vec<String>,
    /// A courier's last known location, if any.
    #[serde(default)]
    pub location: Option<CourierLocation>,
}

/// Where a courier was last seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CourierLocation {
    /// Latitude.
    pub latitude: f64,
    /// Longitude.
    pub longitude: f64,
    /// The courier's device time, `yyyy-MM-dd HH:mm:ss.fff`.
    #[serde(default)]
    pub client_date: Option<String>,
    /// The server's time of the fix, Unix milliseconds.
    #[serde(default)]
    pub server_timestamp: i64,
}

/// Combos in the shapes of `/api/1/combo`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CombosFixture {
    /// `LoyaltyResult.ComboCategory` items.
    #[serde(default)]
    pub categories: Vec<Value>,
    /// `LoyaltyResult.ComboSpecification` items.
    #[serde(default)]
    pub specifications: Vec<Value>,
}

/// The loyalty (iikoCard) data of an organization.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoyaltyFixture {
    /// `Organization.LoyaltyProgram` items; `appliedOrganizations` empty means this organization.
    #[serde(default)]
    pub programs: Vec<Value>,
    /// `Customer.GuestCategoryShortInfo` items.
    #[serde(default)]
    pub customer_categories: Vec<Value>,
    /// `LoyaltyResult.SeriesWithNotActivatedCoupons` items.
    #[serde(default)]
    pub coupon_series: Vec<Value>,
    /// `Customer.GetCustomerInfoResponse` items: the guests
    /// `loyalty/iiko/customer/info` finds by phone, id, card number or track, or e-mail.
    #[serde(default)]
    pub customers: Vec<Value>,
    /// `LoyaltyResult.CouponInfo` items; those not activated (`whenActivated`
    /// null) and not deleted are listed by their series.
    #[serde(default)]
    pub coupons: Vec<Value>,
    /// `LoyaltyResult.ManualConditionInfo` items.
    #[serde(default)]
    pub manual_conditions: Vec<Value>,
}

/// Snapshot schemas of the lists kept in their answer shape.
pub(crate) mod schema {
    pub const GROUP: &str = "Nomenclature.ProductsGroupInfo";
    pub const PRODUCT_CATEGORY: &str = "Nomenclature.ProductCategoryInfo";
    pub const PRODUCT: &str = "Nomenclature.ProductInfo";
    pub const SIZE: &str = "Nomenclature.Size";
    pub const PAYMENT_TYPE: &str = "PaymentTypes.PaymentType";
    pub const ORDER_TYPE: &str = "OrderTypes.OrderType";
    pub const DISCOUNT: &str = "Discounts.DiscountCardTypeInfo";
    pub const CANCEL_CAUSE: &str = "CancelCauses.CancelCause";
    pub const REMOVAL_TYPE: &str = "RemovalTypes.RemovalType";
    pub const TIPS_TYPE: &str = "TipsTypes.TipsType";
    pub const MARKETING_SOURCE: &str = "MarketingSources.MarketingSource";
    pub const REGION: &str = "Address.Region";
    pub const CITY: &str = "Address.City";
    pub const STREET: &str = "Address.Street";
    pub const SECTION: &str = "Reserves.RestaurantSection";
    pub const RESTRICTIONS: &str = "DeliveryRestrictions.DeliveryRestrictions";
    pub const COMBO_CATEGORY: &str = "LoyaltyResult.ComboCategory";
    pub const COMBO: &str = "LoyaltyResult.ComboSpecification";
    pub const PROGRAM: &str = "Organization.LoyaltyProgram";
    pub const GUEST_CATEGORY: &str = "Customer.GuestCategoryShortInfo";
    pub const COUPON_SERIES: &str = "LoyaltyResult.SeriesWithNotActivatedCoupons";
    pub const CUSTOMER: &str = "Customer.GetCustomerInfoResponse";
    pub const COUPON: &str = "LoyaltyResult.CouponInfo";
    pub const MANUAL_CONDITION: &str = "LoyaltyResult.ManualConditionInfo";
    pub const SETTINGS: &str = "Organizations.OrganizationSettings";

    /// Every schema above, for the test that the snapshot still has them.
    #[cfg(test)]
    pub const ALL: [&str; 25] = [
        GROUP,
        PRODUCT_CATEGORY,
        PRODUCT,
        SIZE,
        PAYMENT_TYPE,
        ORDER_TYPE,
        DISCOUNT,
        CANCEL_CAUSE,
        REMOVAL_TYPE,
        TIPS_TYPE,
        MARKETING_SOURCE,
        REGION,
        CITY,
        STREET,
        SECTION,
        RESTRICTIONS,
        COMBO_CATEGORY,
        COMBO,
        PROGRAM,
        GUEST_CATEGORY,
        COUPON_SERIES,
        CUSTOMER,
        COUPON,
        MANUAL_CONDITION,
        SETTINGS,
    ];
}

/// Fields the emulator fills in itself, checked with placeholder values.
const FILLED_IN: [(&str, &str); 4] = [
    (schema::PAYMENT_TYPE, "terminalGroups"),
    (schema::TIPS_TYPE, "organizationIds"),
    (schema::MARKETING_SOURCE, "organizationId"),
    (schema::RESTRICTIONS, "organizationId"),
];

/// Adds `null` for every nullable field the value leaves out, at every depth,
/// so that the answers carry all of their schema's fields.
fn complete(schema: &str, v: &mut Value, depth: usize) {
    let Value::Object(map) = v else {
        return;
    };
    if depth > 16 {
        return;
    }
    for f in catalogue().field_specs(schema) {
        let Some(name) = f["name"].as_str() else {
            continue;
        };
        match map.get_mut(name) {
            None if f["nullable"] == true => {
                map.insert(name.to_string(), Value::Null);
            }
            None => {}
            Some(x) => complete_typed(&f["type"], x, depth + 1),
        }
    }
}

fn complete_typed(t: &Value, v: &mut Value, depth: usize) {
    if let Some(r) = t["ref"].as_str() {
        complete(r, v, depth);
    } else if t["type"] == "array" {
        for item in v.as_array_mut().into_iter().flatten() {
            complete_typed(&t["items"], item, depth);
        }
    }
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// The `id` of an item, lower-cased.
pub(crate) fn id_of(v: &Value) -> Option<String> {
    v["id"].as_str().map(lower)
}

/// Completes and checks the items of one list; their ids must be unique.
fn prepare_list(
    items: &mut [Value],
    schema: &str,
    at: &str,
    organization_id: &str,
) -> Result<HashSet<String>, String> {
    let mut ids = HashSet::new();
    for (i, item) in items.iter_mut().enumerate() {
        let here = format!("{at}[{i}]");
        complete(schema, item, 0);
        let mut checked = item.clone();
        for (s, field) in FILLED_IN {
            if s == schema && checked.get(field).is_none() {
                checked[field] = match field {
                    "organizationId" => json!(organization_id),
                    "organizationIds" => json!([organization_id]),
                    _ => json!([]),
                };
            }
        }
        if schema == schema::STREET {
            if let Some(m) = checked.as_object_mut() {
                m.remove("cityId");
            }
        }
        catalogue().check_value(schema, &checked, &here)?;
        if let Some(id) = id_of(item) {
            if !ids.insert(id.clone()) {
                return Err(format!("{here}: duplicate id {id}"));
            }
        }
    }
    Ok(ids)
}

fn require(known: &HashSet<String>, id: &Value, what: &str, at: &str) -> Result<(), String> {
    match id.as_str() {
        None => Ok(()),
        Some(s) if known.contains(&lower(s)) => Ok(()),
        Some(s) => Err(format!("{at}: {what} {s} is not in the dictionaries")),
    }
}

impl Dictionaries {
    /// Completes every list with the nullable fields left out, checks it
    /// against its snapshot schema and checks the references between lists
    /// (groups, categories, sizes and modifiers of the products, the menus'
    /// products, the streets' cities, the sections' terminal groups).
    pub(crate) fn prepare(
        &mut self,
        organization_id: &str,
        terminal_groups: &[String],
        at: &str,
    ) -> Result<(), String> {
        let n = &mut self.nomenclature;
        let groups = prepare_list(
            &mut n.groups,
            schema::GROUP,
            &format!("{at}.nomenclature.groups"),
            organization_id,
        )?;
        let categories = prepare_list(
            &mut n.product_categories,
            schema::PRODUCT_CATEGORY,
            &format!("{at}.nomenclature.productCategories"),
            organization_id,
        )?;
        let sizes = prepare_list(
            &mut n.sizes,
            schema::SIZE,
            &format!("{at}.nomenclature.sizes"),
            organization_id,
        )?;
        let products = prepare_list(
            &mut n.products,
            schema::PRODUCT,
            &format!("{at}.nomenclature.products"),
            organization_id,
        )?;
        for (i, p) in n.products.iter().enumerate() {
            let here = format!("{at}.nomenclature.products[{i}]");
            require(&groups, &p["groupId"], "group", &here)?;
            require(&groups, &p["parentGroup"], "group", &here)?;
            require(
                &categories,
                &p["productCategoryId"],
                "product category",
                &here,
            )?;
            for sp in p["sizePrices"].as_array().into_iter().flatten() {
                require(&sizes, &sp["sizeId"], "size", &here)?;
            }
            for m in p["modifiers"].as_array().into_iter().flatten() {
                require(&products, &m["id"], "modifier", &here)?;
            }
            for g in p["groupModifiers"].as_array().into_iter().flatten() {
                require(&groups, &g["id"], "modifier group", &here)?;
                for c in g["childModifiers"].as_array().into_iter().flatten() {
                    require(&products, &c["id"], "modifier", &here)?;
                }
            }
        }
        for (i, m) in self.external_menus.iter().enumerate() {
            let here = format!("{at}.externalMenus[{i}]");
            if m.id.is_empty() || !m.id.bytes().all(|b| b.is_ascii_digit()) || m.id.len() > 9 {
                return Err(format!("{here}: id {:?} must be digits", m.id));
            }
            for (j, c) in m.categories.iter().enumerate() {
                let here = format!("{here}.categories[{j}]");
                if !is_uuid(&c.id) {
                    return Err(format!("{here}: id {:?} is not a UUID", c.id));
                }
                require(&groups, &json!(c.group_id), "group", &here)?;
                for p in c.product_ids.iter().flatten() {
                    require(&products, &json!(p), "product", &here)?;
                }
            }
        }
        for (i, c) in self.price_categories.iter().enumerate() {
            let here = format!("{at}.priceCategories[{i}]");
            if !is_uuid(&c.id) {
                return Err(format!("{here}: id {:?} is not a UUID", c.id));
            }
            for p in &c.prices {
                require(&products, &json!(p.product_id), "product", &here)?;
                require(&sizes, &json!(p.size_id), "size", &here)?;
            }
        }
        prepare_list(
            &mut self.payment_types,
            schema::PAYMENT_TYPE,
            &format!("{at}.paymentTypes"),
            organization_id,
        )?;
        let lists: [(&mut Vec<Value>, &str, &str); 9] = [
            (&mut self.order_types, schema::ORDER_TYPE, "orderTypes"),
            (&mut self.discounts, schema::DISCOUNT, "discounts"),
            (
                &mut self.cancel_causes,
                schema::CANCEL_CAUSE,
                "cancelCauses",
            ),
            (
                &mut self.removal_types,
                schema::REMOVAL_TYPE,
                "removalTypes",
            ),
            (&mut self.tips_types, schema::TIPS_TYPE, "tipsTypes"),
            (
                &mut self.marketing_sources,
                schema::MARKETING_SOURCE,
                "marketingSources",
            ),
            (&mut self.regions, schema::REGION, "regions"),
            (
                &mut self.restaurant_sections,
                schema::SECTION,
                "restaurantSections",
            ),
            (
                &mut self.loyalty.customers,
                schema::CUSTOMER,
                "loyalty.customers",
            ),
        ];
        for (list, s, name) in lists {
            prepare_list(list, s, &format!("{at}.{name}"), organization_id)?;
        }
        for (list, s, name) in [
            (
                &mut self.combos.categories,
                schema::COMBO_CATEGORY,
                "combos.categories",
            ),
            (
                &mut self.combos.specifications,
                schema::COMBO,
                "combos.specifications",
            ),
            (
                &mut self.loyalty.programs,
                schema::PROGRAM,
                "loyalty.programs",
            ),
            (
                &mut self.loyalty.customer_categories,
                schema::GUEST_CATEGORY,
                "loyalty.customerCategories",
            ),
            (
                &mut self.loyalty.coupon_series,
                schema::COUPON_SERIES,
                "loyalty.couponSeries",
            ),
            (&mut self.loyalty.coupons, schema::COUPON, "loyalty.coupons"),
            (
                &mut self.loyalty.manual_conditions,
                schema::MANUAL_CONDITION,
                "loyalty.manualConditions",
            ),
        ] {
            prepare_list(list, s, &format!("{at}.{name}"), organization_id)?;
        }
        for (i, section) in self.restaurant_sections.iter().enumerate() {
            let tg = section["terminalGroupId"].as_str().unwrap_or_default();
            if !terminal_groups.iter().any(|t| t.eq_ignore_ascii_case(tg)) {
                return Err(format!(
                    "{at}.restaurantSections[{i}]: terminal group {tg} is not one of the organization's"
                ));
            }
        }
        let cities = prepare_list(
            &mut self.cities,
            schema::CITY,
            &format!("{at}.cities"),
            organization_id,
        )?;
        prepare_list(
            &mut self.streets,
            schema::STREET,
            &format!("{at}.streets"),
            organization_id,
        )?;
        for (i, street) in self.streets.iter().enumerate() {
            let here = format!("{at}.streets[{i}]");
            if !street["cityId"].is_string() {
                return Err(format!("{here}: cityId is required"));
            }
            require(&cities, &street["cityId"], "city", &here)?;
        }
        if let Some(r) = &mut self.delivery_restrictions {
            prepare_list(
                std::slice::from_mut(r),
                schema::RESTRICTIONS,
                &format!("{at}.deliveryRestrictions"),
                organization_id,
            )?;
        }
        let mut settings = Value::Object(self.organization_settings.clone());
        settings["id"] = json!(organization_id);
        catalogue().check_value(
            schema::SETTINGS,
            &settings,
            &format!("{at}.organizationSettings"),
        )?;
        Ok(())
    }
}

/// The built-in dictionaries (those of the default fixtures' first
/// organization), which an organization without `dictionaries` gets.
fn builtin() -> &'static (Dictionaries, Vec<String>) {
    static BUILTIN: OnceLock<(Dictionaries, Vec<String>)> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        let fixtures = crate::Fixtures::default_data();
        fixtures
            .organizations
            .into_iter()
            .find_map(|o| {
                let groups = o.terminal_groups.iter().map(|g| g.id.clone()).collect();
                o.dictionaries.map(|d| (d, groups))
            })
            .unwrap_or_default()
    })
}

/// The built-in dictionaries for an organization with these terminal
/// groups: the built-in organization's terminal groups are replaced by
/// this one's (by position; the last one stands in for the rest).
pub(crate) fn builtin_for(terminal_groups: &[String]) -> Dictionaries {
    let (dictionaries, theirs) = builtin();
    let Some(last) = terminal_groups.last() else {
        return dictionaries.clone();
    };
    let map: HashMap<String, String> = theirs
        .iter()
        .enumerate()
        .map(|(i, t)| (lower(t), terminal_groups.get(i).unwrap_or(last).clone()))
        .collect();
    let mut v = serde_json::to_value(dictionaries).unwrap_or(Value::Null);
    replace_strings(&mut v, &map);
    serde_json::from_value(v).unwrap_or_else(|_| dictionaries.clone())
}

fn replace_strings(v: &mut Value, map: &HashMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(to) = map.get(&lower(s)) {
                *s = to.clone();
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| replace_strings(x, map)),
        Value::Object(o) => o.values_mut().for_each(|x| replace_strings(x, map)),
        _ => {}
    }
}

/// Points an example request (`crate::example_request`) at the built-in
/// dictionaries where an unknown id would only get an error: the known
/// guest's card, the first external menu, employee and city.
pub(crate) fn fit_example(operation: &str, request: &mut Value) {
    let (d, _) = builtin();
    let first_id = |items: &[Value]| {
        items
            .first()
            .and_then(|v| v["id"].as_str())
            .map(str::to_string)
    };
    match operation {
        "loyalty.iiko.customer.info" => {
            let card = d
                .loyalty
                .customers
                .first()
                .and_then(|c| c["cards"][0]["number"].as_str());
            if let (Some(card), Some(m)) = (card, request.as_object_mut()) {
                m.retain(|k, _| k == "organizationId");
                m.insert("type".into(), json!("cardNumber"));
                m.insert("cardNumber".into(), json!(card));
            }
        }
        "menu.by_id" => {
            if let Some(menu) = d.external_menus.first() {
                request["externalMenuId"] = json!(menu.id);
            }
        }
        "employees.info" => {
            if let Some(e) = d.employees.first() {
                request["id"] = json!(e.id);
            }
        }
        "employees.couriers.by_role" => {
            request["rolesToCheck"] = json!(["COURIER"]);
        }
        "streets.by_city" => {
            if let Some(city) = first_id(&d.cities) {
                request["cityId"] = json!(city);
            }
        }
        _ => {}
    }
}

/// Why `deliveries.create` fails: the error code and its message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CreationFailure {
    pub code: &'static str,
    pub message: String,
}

impl CreationFailure {
    fn new(code: &'static str, message: String) -> CreationFailure {
        CreationFailure { code, message }
    }
}

/// One organization's dictionaries with their lookups.
pub(crate) struct Directory {
    pub(crate) data: Dictionaries,
    products: HashMap<String, usize>,
    groups: HashMap<String, usize>,
    sizes: HashMap<String, usize>,
}

fn index(items: &[Value]) -> HashMap<String, usize> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, v)| id_of(v).map(|id| (id, i)))
        .collect()
}

/// The item of `items` with this id (case-insensitive).
pub(crate) fn by_id<'a>(items: &'a [Value], id: &str) -> Option<&'a Value> {
    items
        .iter()
        .find(|v| v["id"].as_str().is_some_and(|x| x.eq_ignore_ascii_case(id)))
}

fn is_deleted(v: &Value) -> bool {
    v["isDeleted"] == true
}

/// A modifier of a product as an order item may name it: the modifier
/// product, its settings on the product, and its group, if any.
pub(crate) struct ModifierUse<'a> {
    pub product: &'a Value,
    pub settings: &'a Value,
    pub group: Option<&'a Value>,
}

impl Directory {
    pub(crate) fn new(data: Dictionaries) -> Directory {
        Directory {
            products: index(&data.nomenclature.products),
            groups: index(&data.nomenclature.groups),
            sizes: index(&data.nomenclature.sizes),
            data,
        }
    }

    pub(crate) fn product(&self, id: &str) -> Option<&Value> {
        let i = *self.products.get(&lower(id))?;
        self.data.nomenclature.products.get(i)
    }

    pub(crate) fn group(&self, id: &str) -> Option<&Value> {
        let i = *self.groups.get(&lower(id))?;
        self.data.nomenclature.groups.get(i)
    }

    pub(crate) fn size(&self, id: &str) -> Option<&Value> {
        let i = *self.sizes.get(&lower(id))?;
        self.data.nomenclature.sizes.get(i)
    }

    /// A payment type orders may use (known, not deleted).
    pub(crate) fn payment_type(&self, id: &str) -> Option<&Value> {
        by_id(&self.data.payment_types, id).filter(|v| !is_deleted(v))
    }

    /// An order type orders may use (known, not deleted).
    pub(crate) fn order_type(&self, id: &str) -> Option<&Value> {
        by_id(&self.data.order_types, id).filter(|v| !is_deleted(v))
    }

    /// The order type for a service type (`Common`, `DeliveryByCourier`,
    /// `DeliveryPickUp`): the default one, else the first.
    pub(crate) fn order_type_for(&self, service: &str) -> Option<&Value> {
        let of_kind = || {
            self.data
                .order_types
                .iter()
                .filter(|t| !is_deleted(t) && t["orderServiceType"] == service)
        };
        of_kind()
            .find(|t| t["isDefault"] == true)
            .or_else(|| of_kind().next())
    }

    pub(crate) fn marketing_source(&self, id: &str) -> Option<&Value> {
        by_id(&self.data.marketing_sources, id).filter(|v| !is_deleted(v))
    }

    pub(crate) fn tips_type(&self, id: &str) -> Option<&Value> {
        by_id(&self.data.tips_types, id)
    }

    /// The size of an order item: the one asked for, else the product's
    /// only or default size; `Err` for a size the product does not have.
    pub(crate) fn item_size<'a>(
        &'a self,
        product: &'a Value,
        asked: Option<&str>,
    ) -> Result<Option<&'a Value>, ()> {
        let prices: Vec<&Value> = product["sizePrices"]
            .as_array()
            .into_iter()
            .flatten()
            .collect();
        let sized = |sp: &&Value| sp["sizeId"].as_str().and_then(|s| self.size(s));
        match asked {
            Some(id) => prices
                .iter()
                .find(|sp| {
                    sp["sizeId"]
                        .as_str()
                        .is_some_and(|s| s.eq_ignore_ascii_case(id))
                })
                .and_then(sized)
                .map(Some)
                .ok_or(()),
            None => {
                let sizes: Vec<&Value> = prices.iter().filter_map(sized).collect();
                Ok(sizes
                    .iter()
                    .find(|s| s["isDefault"] == true)
                    .or(sizes.first())
                    .copied())
            }
        }
    }

    /// The nomenclature price of a product in a size (`None`: no size).
    pub(crate) fn price_of(&self, product: &Value, size: Option<&str>) -> Option<Value> {
        product["sizePrices"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|sp| match (sp["sizeId"].as_str(), size) {
                (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                (None, None) => true,
                _ => false,
            })
            .or_else(|| product["sizePrices"].get(0))
            .map(|sp| sp["price"]["currentPrice"].clone())
    }

    /// A modifier the product allows: one of its own modifiers or a child of
    /// one of its modifier groups.
    pub(crate) fn modifier_of<'a>(
        &'a self,
        product: &'a Value,
        modifier_id: &str,
    ) -> Option<ModifierUse<'a>> {
        let same = |v: &Value| {
            v["id"]
                .as_str()
                .is_some_and(|x| x.eq_ignore_ascii_case(modifier_id))
        };
        let modifier = self.product(modifier_id)?;
        if let Some(settings) = product["modifiers"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|m| same(m))
        {
            return Some(ModifierUse {
                product: modifier,
                settings,
                group: None,
            });
        }
        product["groupModifiers"]
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|g| {
                let settings = g["childModifiers"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|c| same(c))?;
                Some(ModifierUse {
                    product: modifier,
                    settings,
                    group: g["id"].as_str().and_then(|id| self.group(id)),
                })
            })
    }

    /// `{id, name, phone}` of the first courier not deleted.
    pub(crate) fn courier(&self) -> Option<Value> {
        let e =
            self.data.employees.iter().find(|e| {
                !e.is_deleted && e.roles.iter().any(|r| r.eq_ignore_ascii_case("COURIER"))
            })?;
        let name = e.display_name.clone().unwrap_or_else(|| {
            [e.first_name.as_deref(), e.last_name.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ")
        });
        Some(json!({"id": e.id, "name": name, "phone": e.cell_phone.as_ref().or(e.phone.as_ref())}))
    }

    /// `{id, name}` of the first cancel cause not deleted.
    pub(crate) fn cancel_cause(&self) -> Option<Value> {
        let c = self.data.cancel_causes.iter().find(|c| !is_deleted(c))?;
        Some(json!({"id": c["id"], "name": c["name"]}))
    }

    /// Why the service would refuse this delivery order, if it would: a
    /// product, size or modifier outside the nomenclature, or a payment,
    /// order or marketing source type outside the dictionaries.
    pub(crate) fn check_order(&self, order: &Value) -> Option<CreationFailure> {
        for item in order["items"].as_array().into_iter().flatten() {
            if let Some(f) = self.check_item(item) {
                return Some(f);
            }
        }
        let payments = order["payments"].as_array().into_iter().flatten();
        let tips = order["tips"].as_array().into_iter().flatten();
        for p in payments.chain(tips) {
            if let Some(id) = p["paymentTypeId"].as_str() {
                if self.payment_type(id).is_none() {
                    return Some(CreationFailure::new(
                        "PaymentTypeNotFound",
                        format!("Payment type {id} not found."),
                    ));
                }
            }
        }
        if let Some(id) = order["orderTypeId"].as_str() {
            if self.order_type(id).is_none() {
                return Some(CreationFailure::new(
                    "OrderTypeNotFound",
                    format!("Order type {id} not found."),
                ));
            }
        }
        if let Some(id) = order["marketingSourceId"].as_str() {
            if self.marketing_source(id).is_none() {
                return Some(CreationFailure::new(
                    "MarketingSourceNotFound",
                    format!("Marketing source {id} not found."),
                ));
            }
        }
        None
    }

    fn check_item(&self, item: &Value) -> Option<CreationFailure> {
        let not_found =
            |id: &str| CreationFailure::new("ProductNotFound", format!("Product {id} not found."));
        let known = |id: &str| self.product(id).filter(|p| !is_deleted(p));
        match item["type"].as_str() {
            Some("Product") => {
                let id = item["productId"].as_str()?;
                let Some(product) = known(id) else {
                    return Some(not_found(id));
                };
                if self
                    .item_size(product, item["productSizeId"].as_str())
                    .is_err()
                {
                    let size = item["productSizeId"].as_str().unwrap_or_default();
                    return Some(CreationFailure::new(
                        "ProductSizeNotFound",
                        format!("Size {size} of product {id} not found."),
                    ));
                }
                self.check_modifiers(product, id, &item["modifiers"])
            }
            Some("Compound") => {
                for part in ["primaryComponent", "secondaryComponent"] {
                    let component = &item[part];
                    let Some(id) = component["productId"].as_str() else {
                        continue;
                    };
                    let Some(product) = known(id) else {
                        return Some(not_found(id));
                    };
                    let modifiers = [&component["modifiers"], &item["commonModifiers"]];
                    if let Some(f) = modifiers
                        .iter()
                        .find_map(|m| self.check_modifiers(product, id, m))
                    {
                        return Some(f);
                    }
                }
                None
            }
            _ => None,
        }
    }

    fn check_modifiers(
        &self,
        product: &Value,
        product_id: &str,
        modifiers: &Value,
    ) -> Option<CreationFailure> {
        for m in modifiers.as_array().into_iter().flatten() {
            let Some(id) = m["productId"].as_str() else {
                continue;
            };
            if self.product(id).is_none() {
                return Some(CreationFailure::new(
                    "ProductNotFound",
                    format!("Modifier {id} not found."),
                ));
            }
            if self.modifier_of(product, id).is_none() {
                return Some(CreationFailure::new(
                    "ProductNotFound",
                    format!("Modifier {id} is not a modifier of product {product_id}."),
                ));
            }
        }
        None
    }
}

/// Directories of the fixtures' organizations; one without `dictionaries`
/// gets the built-in ones.
pub(crate) fn directories(fixtures: &crate::Fixtures) -> HashMap<String, Directory> {
    fixtures
        .organizations
        .iter()
        .map(|o| {
            let data = match &o.dictionaries {
                Some(d) => d.clone(),
                None => {
                    let groups: Vec<String> =
                        o.terminal_groups.iter().map(|g| g.id.clone()).collect();
                    builtin_for(&groups)
                }
            };
            (lower(&o.id), Directory::new(data))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    #[test]
    fn the_snapshot_has_every_schema_of_the_dictionaries() {
        for s in schema::ALL {
            assert!(catalogue().has_schema(s), "{s}");
        }
    }

    #[test]
    fn the_menu_products_are_in_the_nomenclature_at_their_prices() {
        let f = Fixtures::default_data();
        let d = Directory::new(
            f.organization(DEFAULT_ORGANIZATION_ID)
                .and_then(|o| o.dictionaries.clone())
                .expect("dictionaries"),
        );
        for (id, name, price) in MENU_PRODUCTS {
            let p = d.product(id).expect(id);
            assert_eq!(p["name"], name);
            let size = d.item_size(p, None).expect("a size");
            let size_id = size.and_then(|s| s["id"].as_str());
            let listed = d.price_of(p, size_id).and_then(|v| v.as_f64());
            assert_eq!(listed, Some(price), "{name}");
        }
        // Tests elsewhere read the first product as the 590 Margherita.
        assert_eq!(d.data.nomenclature.products[0]["id"], MENU_PRODUCTS[0].0);
    }

    #[test]
    fn nullable_fields_left_out_are_answered_as_null() {
        let f = Fixtures::default_data();
        let org = f.organization(DEFAULT_ORGANIZATION_ID).unwrap();
        let p = &org.dictionaries.as_ref().unwrap().nomenclature.products[0];
        assert!(
            p["seoTitle"].is_null() && p.get("seoTitle").is_some(),
            "{p}"
        );
        assert!(p["sizePrices"][0]["price"]["nextPrice"].is_null());
    }

    #[test]
    fn bad_dictionaries_are_refused_with_their_path() {
        let mut doc: Value = serde_json::from_str(DEFAULT_FIXTURES_JSON).unwrap();
        let products = "/organizations/0/dictionaries/nomenclature/products";
        *doc.pointer_mut(&format!("{products}/0/groupId")).unwrap() =
            json!("0a0a0a0a-0000-4000-8000-000000000001");
        let e = Fixtures::from_json(&doc.to_string()).unwrap_err();
        assert!(
            e.contains("nomenclature.products[0]: group 0a0a0a0a-0000-4000-8000-000000000001"),
            "{e}"
        );
        let mut doc: Value = serde_json::from_str(DEFAULT_FIXTURES_JSON).unwrap();
        *doc.pointer_mut("/organizations/0/dictionaries/paymentTypes/0/paymentTypeKind")
            .unwrap() = json!("Barter");
        let e = Fixtures::from_json(&doc.to_string()).unwrap_err();
        assert!(
            e.contains("paymentTypes[0].paymentTypeKind: \"Barter\" is not an allowed value"),
            "{e}"
        );
        let mut doc: Value = serde_json::from_str(DEFAULT_FIXTURES_JSON).unwrap();
        doc.pointer_mut("/organizations/0/dictionaries/orderTypes/0")
            .and_then(Value::as_object_mut)
            .map(|o| o.remove("name"));
        let e = Fixtures::from_json(&doc.to_string()).unwrap_err();
        assert!(e.contains("orderTypes[0].name: is required"), "{e}");
    }

    #[test]
    fn an_organization_without_dictionaries_gets_the_builtin_ones_on_its_terminal_groups() {
        let d = builtin_for(&["0a0a0a0a-0000-4000-8000-00000000000a".to_string()]);
        assert!(!d.nomenclature.products.is_empty());
        for s in &d.restaurant_sections {
            assert_eq!(
                s["terminalGroupId"], "0a0a0a0a-0000-4000-8000-00000000000a",
                "{s}"
            );
        }
    }
}
