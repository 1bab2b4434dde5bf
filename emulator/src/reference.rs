//! The reads of reference data, answered from the organizations'
//! dictionaries (`crate::dictionaries`): nomenclature, terminal groups,
//! payment, order and discount types, cancel causes, removal and tips
//! types, marketing sources, couriers and employees, regions, cities and
//! streets, restaurant sections, delivery restrictions, combos,
//! organization settings and the loyalty reads. The menus are in `menus`.

use serde_json::{json, Map, Value};

use crate::dictionaries::{by_id, Directory, EmployeeFixture};
use crate::fixtures::{ApiKeyFixture, OrganizationFixture, TerminalGroupFixture};
use crate::reply::Reply;
use crate::scope::{key_organizations, requested, Body};
use crate::state::Shared;

/// The time zone of the emulated terminals (UTC+03:00, as their order times).
const TIME_ZONE: &str = "Russian Standard Time";

/// The role code that makes an employee a courier.
const COURIER_ROLE: &str = "COURIER";

fn str_of<'a>(body: &'a Body, key: &str) -> &'a str {
    body.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `Terminals.TerminalGroup` of a fixture terminal group.
pub(crate) fn terminal_group_json(org: &OrganizationFixture, tg: &TerminalGroupFixture) -> Value {
    json!({
        "id": tg.id,
        "organizationId": org.id,
        "name": tg.name.clone().unwrap_or_else(|| "Terminal group".into()),
        "address": org.extended.get("restaurantAddress").filter(|a| a.is_string()),
        "timeZone": TIME_ZONE,
        "externalData": null,
        "posVersion": org.extended.get("version").filter(|v| v.is_string()),
    })
}

/// Handles the reads of reference data; `None` for other operations.
pub(crate) fn handle(
    shared: &Shared,
    key: &ApiKeyFixture,
    name: &str,
    body: &Body,
    cid: &str,
) -> Option<Reply> {
    let answer = match name {
        "nomenclature" => nomenclature(shared, key, body, cid),
        "menu" => Ok(crate::menus::menus(shared, key, cid)),
        "menu.by_id" => crate::menus::menu_by_id(shared, key, body),
        "terminal_groups" => terminal_groups(shared, key, body, cid, false),
        "reserve.available_terminal_groups" => terminal_groups(shared, key, body, cid, true),
        "terminal_groups.is_alive" => is_alive(shared, key, body, cid),
        "payment_types" => payment_types(shared, key, body, cid),
        "deliveries.order_types" => per_organization(shared, key, body, cid, "orderTypes", |d| {
            d.data.order_types.clone()
        }),
        "discounts" => per_organization(shared, key, body, cid, "discounts", |d| {
            d.data.discounts.clone()
        }),
        "regions" => per_organization(shared, key, body, cid, "regions", |d| {
            d.data.regions.clone()
        }),
        "cities" => {
            let deleted = body.get("includeDeleted") == Some(&json!(true));
            per_organization(shared, key, body, cid, "cities", |d| {
                visible(&d.data.cities, deleted)
            })
        }
        "cancel_causes" => flat(shared, key, body, cid, "cancelCauses", |_, d| {
            d.data.cancel_causes.clone()
        }),
        "removal_types" => flat(shared, key, body, cid, "removalTypes", |_, d| {
            d.data.removal_types.clone()
        }),
        "marketing_sources" => flat(shared, key, body, cid, "marketingSources", |org, d| {
            with_field(&d.data.marketing_sources, "organizationId", json!(org))
        }),
        "tips_types" => Ok(tips_types(shared, key, cid)),
        "employees.couriers" => per_organization(shared, key, body, cid, "employees", |d| {
            couriers(d).map(employee_json).collect()
        }),
        "employees.couriers.by_role" => {
            let roles: Vec<String> = body
                .get("rolesToCheck")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|r| r.as_str().map(str::to_string))
                .collect();
            per_organization(shared, key, body, cid, "employeesWithCheckRoles", |d| {
                couriers(d).map(|e| with_roles(e, &roles)).collect()
            })
        }
        "employees.couriers.active_location" => {
            per_organization(shared, key, body, cid, "activeCourierLocations", |d| {
                active_locations(d)
            })
        }
        "employees.couriers.active_location.by_terminal" => {
            locations_by_terminal(shared, key, body, cid)
        }
        "employees.couriers.locations.by_time_offset" => {
            per_organization(shared, key, body, cid, "courierLocations", |d| {
                couriers(d)
                    .filter_map(|e| {
                        let l = e.location.as_ref()?;
                        Some(json!({
                            "courierId": e.id,
                            "locations": [{"latitude": l.latitude, "longitude": l.longitude, "serverTimestamp": l.server_timestamp}],
                        }))
                    })
                    .collect()
            })
        }
        "employees.info" => employee_info(shared, key, body, cid),
        "streets.by_city" => streets_by_city(shared, key, body, cid),
        "streets.by_id" => streets_by_id(shared, key, body, cid),
        "reserve.available_restaurant_sections" => restaurant_sections(shared, key, body, cid),
        "delivery_restrictions" => delivery_restrictions(shared, key, body, cid),
        "organizations.settings" => organization_settings(shared, key, body, cid),
        "combo" => one_organization(shared, key, body, |_, d| {
            Ok(json!({
                "comboSpecifications": d.data.combos.specifications,
                "comboCategories": d.data.combos.categories,
            }))
        }),
        "loyalty.iiko.program" => one_organization(shared, key, body, |org, d| {
            let bare = body.get("withoutMarketingCampaigns") == Some(&json!(true));
            let programs: Vec<Value> = d
                .data
                .loyalty
                .programs
                .iter()
                .map(|p| {
                    let mut p = p.clone();
                    if p["appliedOrganizations"]
                        .as_array()
                        .is_none_or(|a| a.is_empty())
                    {
                        p["appliedOrganizations"] = json!([org]);
                    }
                    if bare {
                        p["marketingCampaigns"] = json!([]);
                    }
                    p
                })
                .collect();
            Ok(json!({ "Programs": programs }))
        }),
        "loyalty.iiko.customer_category" => one_organization(shared, key, body, |_, d| {
            Ok(json!({"guestCategories": d.data.loyalty.customer_categories}))
        }),
        "loyalty.iiko.coupons.series" => one_organization(shared, key, body, |_, d| {
            Ok(json!({"seriesWithNotActivatedCoupons": d.data.loyalty.coupon_series}))
        }),
        "loyalty.iiko.customer.info" => customer_info(shared, key, body, cid),
        "loyalty.iiko.manual_condition" => one_organization(shared, key, body, |_, d| {
            Ok(json!({"manualConditions": d.data.loyalty.manual_conditions}))
        }),
        "loyalty.iiko.coupons.info" => one_organization(shared, key, body, |_, d| {
            let number = str_of(body, "number");
            let series = str_of(body, "series");
            let found: Vec<&Value> = d
                .data
                .loyalty
                .coupons
                .iter()
                .filter(|c| same(&c["number"], number))
                .filter(|c| series.is_empty() || in_series(c, series))
                .collect();
            Ok(json!({ "couponInfo": found }))
        }),
        "loyalty.iiko.coupons.by_series" => one_organization(shared, key, body, |_, d| {
            let series = str_of(body, "series");
            let free = d
                .data
                .loyalty
                .coupons
                .iter()
                .filter(|c| in_series(c, series) && c["whenActivated"].is_null() && c["isDeleted"] != true)
                .map(|c| {
                    json!({"id": c["id"], "number": c["number"], "seriesName": c["seriesName"], "seriesId": c["seriesId"]})
                });
            let size = body
                .get("pageSize")
                .and_then(Value::as_u64)
                .filter(|&n| n > 0)
                .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
            let page = body.get("page").and_then(Value::as_u64).unwrap_or(0);
            let skip = usize::try_from(page)
                .unwrap_or(usize::MAX)
                .saturating_mul(size);
            let coupons: Vec<Value> = free.skip(skip).take(size).collect();
            Ok(json!({ "notActivatedCoupon": coupons }))
        }),
        "delivery_restrictions.allowed" => crate::zones::allowed(shared, key, body, cid),
        "reserve.available_organizations" => available_organizations(shared, key, body, cid),
        _ => return None,
    };
    Some(answer.unwrap_or_else(|msg| Reply::bad_request(msg, cid)))
}

type Answer = Result<Reply, String>;

/// The directories of the organizations the request names.
fn directories<'a>(
    shared: &'a Shared,
    key: &ApiKeyFixture,
    body: &Body,
) -> Result<Vec<(String, &'a Directory)>, String> {
    Ok(requested(key, body)?
        .into_iter()
        .filter_map(|org| shared.directory(&org).map(|d| (org, d)))
        .collect())
}

/// `{organizationId, items}` per organization (`Common.RmsItemsResponseWrapper`).
fn per_organization(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    cid: &str,
    field: &str,
    items: impl Fn(&Directory) -> Vec<Value>,
) -> Answer {
    let wrapped: Vec<Value> = directories(shared, key, body)?
        .into_iter()
        .map(|(org, d)| json!({"organizationId": org, "items": items(d)}))
        .collect();
    let mut fields = Map::new();
    fields.insert(field.into(), Value::Array(wrapped));
    Ok(Reply::ok(cid, Value::Object(fields)))
}

/// One list of the items of every organization the request names.
fn flat(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    cid: &str,
    field: &str,
    items: impl Fn(&str, &Directory) -> Vec<Value>,
) -> Answer {
    let all: Vec<Value> = directories(shared, key, body)?
        .into_iter()
        .flat_map(|(org, d)| items(&org, d))
        .collect();
    let mut fields = Map::new();
    fields.insert(field.into(), Value::Array(all));
    Ok(Reply::ok(cid, Value::Object(fields)))
}

/// The answer of a read about one organization (`organizationId`), whose
/// schema has no `correlationId`.
/// (One that may leave `organizationId` out gets the key's first enabled
/// organization.)
fn one_organization(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    answer: impl Fn(&str, &Directory) -> Result<Value, String>,
) -> Answer {
    let org = match requested(key, body)?.into_iter().next() {
        Some(org) => org,
        None => key_organizations(shared, key)
            .into_iter()
            .next()
            .ok_or("organizationId is required")?,
    };
    let d = shared
        .directory(&org)
        .ok_or_else(|| format!("Organization {org} not found"))?;
    Ok(Reply::json(200, answer(&org, d)?))
}

fn with_field(items: &[Value], field: &str, value: Value) -> Vec<Value> {
    items
        .iter()
        .map(|i| {
            let mut i = i.clone();
            if i.get(field).is_none() {
                i[field] = value.clone();
            }
            i
        })
        .collect()
}

fn visible(items: &[Value], include_deleted: bool) -> Vec<Value> {
    items
        .iter()
        .filter(|i| include_deleted || i["isDeleted"] != true)
        .cloned()
        .collect()
}

fn nomenclature(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    one_organization(shared, key, body, |_, d| {
        let n = &d.data.nomenclature;
        // Nothing changed since the caller's revision: empty lists.
        let unchanged = body
            .get("startRevision")
            .and_then(Value::as_i64)
            .is_some_and(|r| r >= n.revision);
        let list = |items: &Vec<Value>| {
            if unchanged {
                json!([])
            } else {
                json!(items)
            }
        };
        Ok(json!({
            "correlationId": cid,
            "groups": list(&n.groups),
            "productCategories": list(&n.product_categories),
            "products": list(&n.products),
            "sizes": list(&n.sizes),
            "revision": n.revision,
        }))
    })
}

/// Terminal groups of the organizations asked about; for reserves, only
/// those with restaurant sections.
fn terminal_groups(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    cid: &str,
    for_reserves: bool,
) -> Answer {
    let groups: Vec<Value> = requested(key, body)?
        .iter()
        .filter_map(|id| shared.fixtures.organization(id))
        .map(|o| {
            let sections = shared
                .directory(&o.id)
                .map(|d| d.data.restaurant_sections.as_slice())
                .unwrap_or_default();
            let items: Vec<Value> = o
                .terminal_groups
                .iter()
                .filter(|tg| {
                    !for_reserves
                        || sections.iter().any(|s| {
                            s["terminalGroupId"]
                                .as_str()
                                .is_some_and(|t| t.eq_ignore_ascii_case(&tg.id))
                        })
                })
                .map(|tg| terminal_group_json(o, tg))
                .collect();
            json!({"organizationId": o.id, "items": items})
        })
        .collect();
    Ok(Reply::ok(
        cid,
        json!({"terminalGroups": groups, "terminalGroupsInSleep": []}),
    ))
}

fn is_alive(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let mut orgs = requested(key, body)?;
    if orgs.is_empty() {
        orgs = key.organization_ids.clone();
    }
    let asked: Vec<String> = body
        .get("terminalGroupIds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_ascii_lowercase))
        .collect();
    let statuses: Vec<Value> = orgs
        .iter()
        .filter_map(|id| shared.fixtures.organization(id))
        .flat_map(|o| {
            o.terminal_groups
                .iter()
                .filter(|tg| asked.contains(&tg.id))
                .map(|tg| json!({"isAlive": !o.disabled, "terminalGroupId": tg.id, "organizationId": o.id}))
        })
        .collect();
    Ok(Reply::ok(cid, json!({ "isAliveStatus": statuses })))
}

fn payment_types(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    flat(shared, key, body, cid, "paymentTypes", |org, d| {
        let groups: Vec<Value> = shared
            .fixtures
            .organization(org)
            .map(|o| {
                o.terminal_groups
                    .iter()
                    .map(|tg| terminal_group_json(o, tg))
                    .collect()
            })
            .unwrap_or_default();
        with_field(&d.data.payment_types, "terminalGroups", json!(groups))
    })
}

/// Tips types of all the key's organizations; one type in several
/// organizations lists them all.
fn tips_types(shared: &Shared, key: &ApiKeyFixture, cid: &str) -> Reply {
    let mut all: Vec<Value> = Vec::new();
    for org in key_organizations(shared, key) {
        let Some(d) = shared.directory(&org) else {
            continue;
        };
        for t in &d.data.tips_types {
            let id = t["id"].as_str().unwrap_or_default();
            let explicit = t.get("organizationIds").filter(|v| v.is_array());
            match all
                .iter_mut()
                .find(|x| x["id"].as_str().is_some_and(|x| x.eq_ignore_ascii_case(id)))
            {
                Some(seen) if explicit.is_none() => {
                    if let Some(list) = seen["organizationIds"].as_array_mut() {
                        list.push(json!(org));
                    }
                }
                Some(_) => {}
                None => {
                    let mut t = t.clone();
                    if explicit.is_none() {
                        t["organizationIds"] = json!([org]);
                    }
                    all.push(t);
                }
            }
        }
    }
    Reply::ok(cid, json!({ "tipsTypes": all }))
}

fn couriers(d: &Directory) -> impl Iterator<Item = &EmployeeFixture> {
    d.data
        .employees
        .iter()
        .filter(|e| e.roles.iter().any(|r| r.eq_ignore_ascii_case(COURIER_ROLE)))
}

/// `Employees.Employee`.
fn employee_json(e: &EmployeeFixture) -> Value {
    json!({
        "id": e.id,
        "firstName": e.first_name,
        "middleName": e.middle_name,
        "lastName": e.last_name,
        "displayName": e.display_name,
        "code": e.code,
        "isDeleted": e.is_deleted,
    })
}

/// `Employees.EmployeeWithCheckedRole`.
fn with_roles(e: &EmployeeFixture, roles: &[String]) -> Value {
    let mut v = employee_json(e);
    let checks: Vec<Value> = roles
        .iter()
        .map(|r| {
            json!({
                "checkedRoleCode": r,
                "employeeHasRole": e.roles.iter().any(|x| x.eq_ignore_ascii_case(r)),
            })
        })
        .collect();
    v["checkRolesResult"] = Value::Array(checks);
    v
}

fn active_locations(d: &Directory) -> Vec<Value> {
    couriers(d)
        .filter(|e| !e.is_deleted)
        .filter_map(|e| {
            let l = e.location.as_ref()?;
            Some(json!({
                "courierId": e.id,
                "lastActiveLatitude": l.latitude,
                "lastActiveLongitude": l.longitude,
                "lastActiveClientDate": l.client_date,
            }))
        })
        .collect()
}

fn locations_by_terminal(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let tg = str_of(body, "terminalGroupId");
    let orgs = requested(key, body)?;
    let Some(org) = orgs.first() else {
        return Err("organizationId is required".into());
    };
    let known = shared.fixtures.organization(org).is_some_and(|o| {
        o.terminal_groups
            .iter()
            .any(|g| g.id.eq_ignore_ascii_case(tg))
    });
    if !known {
        return Err(format!("Terminal group {tg} not found"));
    }
    let items = shared
        .directory(org)
        .map(active_locations)
        .unwrap_or_default();
    Ok(Reply::ok(
        cid,
        json!({"activeCourierLocations": [{"organizationId": org, "items": items}]}),
    ))
}

fn employee_info(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let id = str_of(body, "id");
    let found = directories(shared, key, body)?
        .into_iter()
        .find_map(|(_, d)| {
            d.data
                .employees
                .iter()
                .find(|e| e.id.eq_ignore_ascii_case(id))
        })
        .ok_or_else(|| format!("Employee {id} not found"))?;
    Ok(Reply::ok(
        cid,
        json!({"employeeInfo": {
            "id": found.id,
            "firstName": found.first_name,
            "middleName": found.middle_name,
            "lastName": found.last_name,
            "displayName": found.display_name,
            "email": found.email,
            "phone": found.phone,
            "cellPhone": found.cell_phone,
        }}),
    ))
}

/// An `Address.Street` answer item (the fixture's `cityId` left out).
fn street_json(s: &Value) -> Value {
    let mut s = s.clone();
    if let Some(m) = s.as_object_mut() {
        m.remove("cityId");
    }
    s
}

fn streets_by_city(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let city = str_of(body, "cityId");
    let deleted = body.get("includeDeleted") == Some(&json!(true));
    let streets: Vec<Value> = directories(shared, key, body)?
        .into_iter()
        .flat_map(|(_, d)| visible(&d.data.streets, deleted))
        .filter(|s| {
            s["cityId"]
                .as_str()
                .is_some_and(|c| c.eq_ignore_ascii_case(city))
        })
        .map(|s| street_json(&s))
        .collect();
    Ok(Reply::ok(cid, json!({ "streets": streets })))
}

fn streets_by_id(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let list = |k: &str| -> Vec<String> {
        body.get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_ascii_lowercase))
            .collect()
    };
    let (ids, classifiers) = (list("ids"), list("classifierIds"));
    let mut found = Vec::new();
    for (_, d) in directories(shared, key, body)? {
        for s in &d.data.streets {
            let id = s["id"].as_str().unwrap_or_default().to_ascii_lowercase();
            let classifier = s["classifierId"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase();
            let by_classifier = !classifier.is_empty() && classifiers.contains(&classifier);
            if !ids.contains(&id) && !by_classifier {
                continue;
            }
            let city_id = s["cityId"].as_str().unwrap_or_default();
            let city = by_id(&d.data.cities, city_id);
            found.push(json!({
                "id": s["id"],
                "classifierId": s["classifierId"],
                "cityId": city_id,
                "cityName": city.map_or(json!(""), |c| c["name"].clone()),
                "streetName": s["name"],
            }));
        }
    }
    Ok(Reply::ok(cid, json!({ "streets": found })))
}

fn restaurant_sections(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let asked: Vec<String> = body
        .get("terminalGroupIds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_ascii_lowercase))
        .collect();
    let with_schema = body.get("returnSchema") == Some(&json!(true));
    let mut sections = Vec::new();
    let mut revision = 0;
    for org in &key.organization_ids {
        let Some(d) = shared.directory(org) else {
            continue;
        };
        for s in &d.data.restaurant_sections {
            let tg = s["terminalGroupId"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase();
            if !asked.contains(&tg) {
                continue;
            }
            let mut s = s.clone();
            for t in s["tables"].as_array().into_iter().flatten() {
                revision = revision.max(t["revision"].as_i64().unwrap_or(0));
            }
            revision = revision.max(s["schema"]["revision"].as_i64().unwrap_or(0));
            if !with_schema {
                s["schema"] = Value::Null;
            }
            sections.push(s);
        }
    }
    Ok(Reply::ok(
        cid,
        json!({"restaurantSections": sections, "revision": revision}),
    ))
}

fn delivery_restrictions(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let restrictions: Vec<Value> = directories(shared, key, body)?
        .into_iter()
        .filter_map(|(org, d)| {
            let mut r = d.data.delivery_restrictions.clone()?;
            if r.get("organizationId").is_none() {
                r["organizationId"] = json!(org);
            }
            Some(r)
        })
        .collect();
    Ok(Reply::ok(
        cid,
        json!({ "deliveryRestrictions": restrictions }),
    ))
}

/// `Organizations.OrganizationSettings`: the organization's own fields,
/// those of its `extended` fields the schema has and that fit it (an unknown
/// enum value there becomes null), then the dictionaries' settings.
fn organization_settings(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let include_disabled = body.get("includeDisabled") == Some(&json!(true));
    let mut orgs = requested(key, body)?;
    if orgs.is_empty() {
        orgs = key.organization_ids.clone();
    }
    let parameters: Option<Vec<String>> =
        body.get("parameters").and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|p| {
                    let mut c = p.chars();
                    c.next()
                        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
                        .unwrap_or_default()
                })
                .collect()
        });
    let external_keys: Option<Vec<String>> = body
        .get("returnExternalData")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        });
    let catalogue = crate::catalogue::catalogue();
    let schema = crate::dictionaries::schema::SETTINGS;
    let specs = catalogue.field_specs(schema);
    let mut out = Vec::new();
    for id in &orgs {
        let Some(o) = shared.fixtures.organization(id) else {
            continue;
        };
        if o.disabled && !include_disabled {
            continue;
        }
        let mut settings = Map::new();
        settings.insert("id".into(), json!(o.id));
        let extra = shared
            .directory(&o.id)
            .map(|d| d.data.organization_settings.clone())
            .unwrap_or_default();
        for f in &specs {
            let Some(field) = f["name"].as_str() else {
                continue;
            };
            if field == "id" {
                continue;
            }
            if parameters
                .as_ref()
                .is_some_and(|p| !p.iter().any(|x| x == field))
            {
                continue;
            }
            let value = match field {
                "name" => json!(o.name),
                "externalData" => json!(external_keys.as_ref().map(|keys| {
                    o.external_data
                        .iter()
                        .flatten()
                        .filter(|e| keys.contains(&e.key))
                        .map(|e| json!({"key": e.key, "value": e.value}))
                        .collect::<Vec<Value>>()
                })),
                _ => extra
                    .get(field)
                    .or_else(|| o.extended.get(field))
                    .cloned()
                    .unwrap_or(Value::Null),
            };
            // A value that does not fit (an unknown enum value) is left null.
            let value = if catalogue.check_field(schema, field, &value).is_ok() {
                value
            } else {
                Value::Null
            };
            settings.insert(field.to_string(), value);
        }
        out.push(Value::Object(settings));
    }
    Ok(Reply::ok(cid, json!({ "organizations": out })))
}

fn same(v: &Value, wanted: &str) -> bool {
    v.as_str()
        .is_some_and(|s| !wanted.is_empty() && s.eq_ignore_ascii_case(wanted))
}

/// A coupon of the series named by its number (name) or id.
fn in_series(coupon: &Value, series: &str) -> bool {
    same(&coupon["seriesName"], series) || same(&coupon["seriesId"], series)
}

/// The fields of `schema` taken from `from`, a value that does not fit its
/// field (an unknown enum value) answered as null.
fn fitted(schema: &str, base: Map<String, Value>, from: &Map<String, Value>) -> Map<String, Value> {
    let catalogue = crate::catalogue::catalogue();
    let mut out = base;
    for f in catalogue.field_specs(schema) {
        let Some(field) = f["name"].as_str() else {
            continue;
        };
        if out.contains_key(field) {
            continue;
        }
        let Some(value) = from.get(field) else {
            continue;
        };
        let fits = catalogue.check_field(schema, field, value).is_ok();
        out.insert(
            field.to_string(),
            if fits { value.clone() } else { Value::Null },
        );
    }
    out
}

/// `reserve/available_organizations`: the key's organizations that have
/// restaurant sections, in the shape `returnAdditionalInfo` asks for (the
/// `extended` fields that fit the schema; no `extraFields`).
fn available_organizations(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let asked = requested(key, body)?;
    let extended = body.get("returnAdditionalInfo") == Some(&json!(true));
    let include_disabled = body.get("includeDisabled") == Some(&json!(true));
    let external_keys: Option<Vec<String>> = body
        .get("returnExternalData")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        });
    let mut out = Vec::new();
    for id in &key.organization_ids {
        let Some(o) = shared.fixtures.organization(id) else {
            continue;
        };
        let with_sections = shared
            .directory(&o.id)
            .is_some_and(|d| !d.data.restaurant_sections.is_empty());
        if !with_sections
            || (o.disabled && !include_disabled)
            || (!asked.is_empty() && !asked.contains(&o.id))
        {
            continue;
        }
        let external = external_keys.as_ref().map(|keys| {
            o.external_data
                .iter()
                .flatten()
                .filter(|e| keys.contains(&e.key))
                .map(|e| json!({"key": e.key, "value": e.value}))
                .collect::<Vec<Value>>()
        });
        let mut base = Map::new();
        base.insert("id".into(), json!(o.id));
        base.insert("name".into(), json!(o.name));
        base.insert("code".into(), json!(o.code));
        base.insert("externalData".into(), json!(external));
        let simple = {
            let mut m = base.clone();
            m.insert("responseType".into(), json!("Simple"));
            Value::Object(m)
        };
        let answer = if extended {
            let mut m = fitted("Organizations.ExtendedOrganizationInfo", base, &o.extended);
            m.insert("responseType".into(), json!("Extended"));
            let full = Value::Object(m);
            // Extended only when the fixture has every field it requires.
            let whole = crate::catalogue::catalogue().check_value(
                "Organizations.ExtendedOrganizationInfo",
                &full,
                "",
            );
            if whole.is_ok() {
                full
            } else {
                simple
            }
        } else {
            simple
        };
        out.push(answer);
    }
    Ok(Reply::ok(cid, json!({ "organizations": out })))
}

/// Digits of a phone number, for matching `+7 916 ...` with `79161...`.
fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// `loyalty/iiko/customer/info`: the guest found by the criterion `type`
/// names; an unknown guest is a 400 with the error body, as the document
/// declares for this operation.
fn customer_info(shared: &Shared, key: &ApiKeyFixture, body: &Body, cid: &str) -> Answer {
    let kind = str_of(body, "type");
    let wanted = match kind {
        "phone" => str_of(body, "phone"),
        "cardTrack" => str_of(body, "cardTrack"),
        "cardNumber" => str_of(body, "cardNumber"),
        "email" => str_of(body, "email"),
        "id" => str_of(body, "id"),
        other => return Err(format!("Unknown customer search type {other:?}")),
    };
    let mut orgs = requested(key, body)?;
    if orgs.is_empty() {
        orgs = key_organizations(shared, key);
    }
    let matches = |c: &Value| -> bool {
        let eq = |v: &Value| {
            v.as_str()
                .is_some_and(|s| !wanted.is_empty() && s.eq_ignore_ascii_case(wanted))
        };
        let cards = || c["cards"].as_array().into_iter().flatten();
        match kind {
            "phone" => c["phone"]
                .as_str()
                .is_some_and(|p| !digits(wanted).is_empty() && digits(p) == digits(wanted)),
            "cardTrack" => cards().any(|card| eq(&card["track"])),
            "cardNumber" => cards().any(|card| eq(&card["number"])),
            "email" => eq(&c["email"]),
            _ => eq(&c["id"]),
        }
    };
    let found = orgs.iter().find_map(|org| {
        shared
            .directory(org)?
            .data
            .loyalty
            .customers
            .iter()
            .find(|c| c["isDeleted"] != true && matches(c))
    });
    match found {
        Some(c) => Ok(Reply::json(200, c.clone())),
        None => {
            let what = match kind {
                "cardTrack" => "card track",
                "cardNumber" => "card number",
                other => other,
            };
            Ok(Reply::error(
                400,
                "BAD_REQUEST",
                format!("There is no user with {what} {wanted}"),
                cid,
            ))
        }
    }
}
