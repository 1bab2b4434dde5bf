//! The back-office families of the newer edition against the emulator over
//! loopback, through the typed API: nomenclature groups and products (their
//! lists are eventually consistent), employees, incoming inventories, and an
//! OLAP sales report that finds a delivery order closed through the emulator,
//! and the five answers that are JSON lists (OLAP columns and presets, the
//! organization tree, inventories by period, account types) as typed lists.

use std::time::{Duration, Instant};

use iikocloud::api::models::backoffice::{
    EmployeeCreateRequest, EmployeeFireRequest, EmployeeGetRequest, GetByIDRequest,
    GetOlapReportRequest, IncomingInventoryCreateRequest, NomenclatureGroupCreateRequest,
    NomenclatureGroupDeleteRequest, NomenclatureGroupFilter, NomenclatureGroupListRequest,
    NomenclatureGroupUndeleteRequest, NomenclatureProductCreateRequest, NomenclatureProductFilter,
    NomenclatureProductListRequest, NomenclatureProductResponse, NomenclatureProductUpdateRequest,
    OlapFilterDoc,
};
use iikocloud::api::WaitOptions;
use iikocloud::{ApiErrorKind, Client, Error, Money};
use iikocloud_emulator::{
    Emulator, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
    DEFAULT_ORGANIZATION_ID as ORG,
};
use serde_json::json;

fn setup() -> (Emulator, Client) {
    let emu = Emulator::start_default().expect("emulator");
    // Short, but not zero: the test must really wait for the catalogue.
    emu.set_catalogue_delay(Duration::from_millis(300));
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()
        .expect("client");
    (emu, client)
}

fn eq(field: &str, value: &str) -> NomenclatureProductFilter {
    NomenclatureProductFilter {
        field: Some(field.into()),
        op: Some("eq".into()),
        value: Some(json!(value)),
        ..Default::default()
    }
}

fn products(
    client: &Client,
    filters: Vec<NomenclatureProductFilter>,
) -> Vec<NomenclatureProductResponse> {
    client
        .api()
        .nomenclature()
        .product()
        .list(&NomenclatureProductListRequest {
            filters: Some(filters),
            limit: Some(100),
            offset: Some(0),
            ..Default::default()
        })
        .expect("product list")
        .items
        .unwrap_or_default()
}

/// Polls until `found` holds, as a catalogue client must.
fn wait_until(what: &str, mut found: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !found() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what}: not listed after 10 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    start.elapsed()
}

#[test]
fn groups_and_products_are_created_listed_updated_deleted_and_restored() {
    let (_emu, client) = setup();
    let nomenclature = client.api().nomenclature();
    let group = nomenclature
        .group()
        .create(&NomenclatureGroupCreateRequest {
            code: Some("G-1".into()),
            name: Some("Pizza".into()),
            ..Default::default()
        })
        .expect("group created");
    let group_id = group.group_id.expect("groupId");

    let price: Money = "590.45".parse().expect("decimal");
    let product = nomenclature
        .product()
        .create(&NomenclatureProductCreateRequest {
            amount_unit_id: Some("8a1b0e2c-5d6f-4a7b-9c8d-0e1f2a3b4c5d".into()),
            code: Some("P-1".into()),
            name: Some("Margherita".into()),
            r#type: Some("DISH".into()),
            parent_group_id: Some(group_id.clone()),
            default_sale_price: Some(price),
            ..Default::default()
        })
        .expect("product created");
    let product_id = product.product_id.expect("productId");

    // Eventually consistent: not listed at once, listed within the delay.
    assert!(products(&client, vec![eq("id", &product_id)]).is_empty());
    let waited = wait_until("product", || {
        !products(&client, vec![eq("id", &product_id)]).is_empty()
    });
    assert!(
        waited >= Duration::from_millis(200),
        "listed after {waited:?}"
    );
    wait_until("group", || {
        nomenclature
            .group()
            .list(&NomenclatureGroupListRequest {
                filters: Some(vec![NomenclatureGroupFilter {
                    field: Some("groupId".into()),
                    op: Some("in".into()),
                    values: Some(vec![json!(group_id)]),
                    ..Default::default()
                }]),
                limit: Some(10),
                offset: Some(0),
                ..Default::default()
            })
            .expect("group list")
            .groups
            .unwrap_or_default()
            .len()
            == 1
    });
    let listed = products(&client, vec![eq("parentGroupId", &group_id)]);
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].default_sale_price,
        Some(price),
        "exact decimal price"
    );
    assert_eq!(listed[0].name.as_deref(), Some("Margherita"));
    assert_eq!(listed[0].is_deleted, Some(false));

    // Update: the list shows the old name until the catalogue catches up.
    nomenclature
        .product()
        .update(&NomenclatureProductUpdateRequest {
            product_id: Some(product_id.clone()),
            amount_unit_id: Some("8a1b0e2c-5d6f-4a7b-9c8d-0e1f2a3b4c5d".into()),
            code: Some("P-1".into()),
            name: Some("Margherita 32 cm".into()),
            r#type: Some("DISH".into()),
            ..Default::default()
        })
        .expect("updated");
    assert_eq!(
        products(&client, vec![eq("id", &product_id)])[0]
            .name
            .as_deref(),
        Some("Margherita")
    );
    wait_until("renamed product", || {
        products(&client, vec![eq("name", "Margherita 32 cm")]).len() == 1
    });

    // Soft delete and restore of the group.
    nomenclature
        .group()
        .delete(&NomenclatureGroupDeleteRequest {
            group_ids: Some(vec![group_id.clone()]),
            ..Default::default()
        })
        .expect("deleted");
    let deleted_group = |deleted: bool| {
        nomenclature
            .group()
            .list(&NomenclatureGroupListRequest {
                filters: Some(vec![NomenclatureGroupFilter {
                    field: Some("isDeleted".into()),
                    op: Some("eq".into()),
                    value: Some(json!(deleted)),
                    ..Default::default()
                }]),
                limit: Some(10),
                offset: Some(0),
                ..Default::default()
            })
            .expect("group list")
            .groups
            .unwrap_or_default()
            .iter()
            .any(|g| g.group_id.as_deref() == Some(&group_id) && g.deleted_at.is_some() == deleted)
    };
    wait_until("deleted group", || deleted_group(true));
    nomenclature
        .group()
        .restore(&NomenclatureGroupUndeleteRequest {
            group_ids: Some(vec![group_id.clone()]),
            ..Default::default()
        })
        .expect("restored");
    wait_until("restored group", || deleted_group(false));
}

#[test]
fn an_unknown_record_and_a_bad_filter_are_errors_with_message_and_details() {
    let (_emu, client) = setup();
    let err = client
        .api()
        .nomenclature()
        .group()
        .delete(&NomenclatureGroupDeleteRequest {
            group_ids: Some(vec!["0b7e8f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b".into()]),
            ..Default::default()
        })
        .expect_err("no such group");
    let api = err.api().expect("an API error");
    assert_eq!(api.kind, ApiErrorKind::BadRequest);
    assert!(api
        .error_description
        .as_deref()
        .unwrap_or_default()
        .contains("not found"));
    assert!(
        api.details
            .as_deref()
            .unwrap_or_default()
            .contains("0b7e8f1a"),
        "{api:?}"
    );

    let err = client
        .api()
        .nomenclature()
        .product()
        .list(&NomenclatureProductListRequest {
            filters: Some(vec![NomenclatureProductFilter {
                field: Some("name".into()),
                op: Some("startswith".into()),
                value: Some(json!("M")),
                ..Default::default()
            }]),
            limit: Some(10),
            offset: Some(0),
            ..Default::default()
        })
        .expect_err("not an operator");
    assert!(matches!(err, Error::Api(_)));
    assert!(err
        .api()
        .and_then(|a| a.details.clone())
        .unwrap_or_default()
        .contains("notblank"));
}

#[test]
fn an_employee_is_hired_and_fired() {
    let (_emu, client) = setup();
    let employees = client.api().employees().employee();
    let hired = employees
        .create(&EmployeeCreateRequest {
            code: Some("E-7".into()),
            first_name: Some("Anna".into()),
            last_name: Some("Petrova".into()),
            main_organization_id: Some(ORG.into()),
            ..Default::default()
        })
        .expect("created");
    let id = hired.id.expect("id");
    assert_eq!(hired.is_fired, Some(false));
    let fired = employees
        .fire(&EmployeeFireRequest {
            ids: Some(vec![id.clone()]),
            ..Default::default()
        })
        .expect("fired");
    assert_eq!(fired.fired_ids, Some(vec![id.clone()]));
    let read = employees
        .get(&EmployeeGetRequest {
            id: Some(id.clone()),
            ..Default::default()
        })
        .expect("read back");
    assert_eq!(read.is_fired, Some(true));
    assert!(read.fire_date.is_some());
    assert_eq!(read.last_name.as_deref(), Some("Petrova"));
}

#[test]
fn an_incoming_inventory_is_posted_unposted_and_cancelled() {
    let (_emu, client) = setup();
    let docs = client.api().inventory().incoming_inventory();
    let created = docs
        .create(&IncomingInventoryCreateRequest {
            organization_id: Some(ORG.into()),
            store: Some("3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f".into()),
            date: Some("2026-11-23T10:00:00".into()),
            items: Some(vec![]),
            items_first_step: Some(vec![]),
            ..Default::default()
        })
        .expect("draft created");
    let id = created.document_id.expect("documentId");
    let by_id = GetByIDRequest {
        document_id: Some(id.clone()),
        organization_id: Some(ORG.into()),
        ..Default::default()
    };
    let status = || docs.get(&by_id).expect("read").status.unwrap_or_default();
    assert_eq!(status(), "NEW");
    docs.post(&by_id).expect("posted");
    assert_eq!(status(), "PROCESSED");
    docs.unpost(&by_id).expect("unposted");
    assert_eq!(status(), "NEW");
    docs.cancel(&by_id).expect("cancelled");
    assert_eq!(status(), "DELETED");
    let err = docs
        .post(&by_id)
        .expect_err("a cancelled document cannot be posted");
    assert!(err.to_string().contains("DELETED"), "{err}");
}

#[test]
fn a_closed_delivery_shows_in_the_olap_sales_report_with_its_sum() {
    let (_emu, client) = setup();
    let report = || {
        client
            .api()
            .reporting()
            .olap()
            .get(&GetOlapReportRequest {
                report_type: Some("SALES".into()),
                aggregate_fields: Some(vec!["DishSumInt".into(), "UniqOrderId.OrdersCount".into()]),
                group_by_row_fields: Some(vec!["Delivery.Status".into()]),
                build_summary: Some(true),
                filters: Some(vec![OlapFilterDoc {
                    name: Some("OpenDate.Typed".into()),
                    filter_type: Some("DateRange".into()),
                    from: Some(json!("2000-01-01")),
                    to: Some(json!("2100-01-01")),
                    ..Default::default()
                }]),
                ..Default::default()
            })
            .expect("report")
    };
    assert!(
        report().data.unwrap_or_default().is_empty(),
        "nothing sold yet"
    );

    let mut request = iikocloud::api::models::deliveries::request::CreateOrderRequest {
        organization_id: Some(ORG.into()),
        terminal_group_id: Some(iikocloud_emulator::DEFAULT_TERMINAL_GROUP_ID.into()),
        order: Some(
            iikocloud::api::models::deliveries::request::create_order::DeliveryOrder {
                phone: Some("+79160000000".into()),
                items: Some(vec![
                iikocloud::api::models::deliveries::request::create_order::OrderItem::Product(
                    iikocloud::api::models::deliveries::request::create_order::ProductOrderItem {
                        product_id: Some(iikocloud_emulator::MENU_PRODUCTS[1].0.into()),
                        amount: Some(Money::from(3)),
                        price: Some("99.9".parse().expect("decimal")),
                        ..Default::default()
                    },
                ),
            ]),
                ..Default::default()
            },
        ),
        ..Default::default()
    };
    let info = client
        .create_delivery_order(&mut request, &WaitOptions::default())
        .expect("order created");
    let order_id = info.id.expect("order id");
    let close = iikocloud::api::models::deliveries::request::CloseDeliveryOrderRequest {
        organization_id: Some(ORG.into()),
        order_id: Some(order_id),
        ..Default::default()
    };
    let answer = client.api().deliveries().close(&close).expect("closed");
    client
        .wait_command(
            ORG,
            answer.correlation_id.as_deref().expect("correlationId"),
            &WaitOptions::default(),
        )
        .expect("close finished");

    let report = report();
    let rows = report.data.unwrap_or_default();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["Delivery.Status"], json!("Closed"));
    assert_eq!(rows[0]["DishSumInt"], json!(299.7));
    assert_eq!(rows[0]["UniqOrderId.OrdersCount"], json!(1));
    assert_eq!(
        report.summary.unwrap_or_default()[0]["DishSumInt"],
        json!(299.7)
    );
}

#[test]
fn platform_events_terminals_licenses_and_directories_come_from_the_emulator() {
    use iikocloud::api::models::backoffice::{
        AmountUnitFilter, AmountUnitListRequest, EventListRequest, GetLicenseListRequest,
        TerminalListRequest,
    };
    let (emu, client) = setup();
    let api = client.api();
    let group = api
        .nomenclature()
        .group()
        .create(&NomenclatureGroupCreateRequest {
            code: Some("G-2".into()),
            name: Some("Drinks".into()),
            ..Default::default()
        })
        .expect("group created")
        .group_id
        .expect("groupId");
    emu.create_delivery_order(ORG)
        .expect("an order the emulator makes");
    let events = api
        .platform()
        .events()
        .list(&EventListRequest::default())
        .expect("events");
    let items = events.items.unwrap_or_default();
    let types: Vec<&str> = items
        .iter()
        .filter_map(|e| e.event_type.as_deref())
        .collect();
    assert!(types.contains(&"NomenclatureGroupCreated"), "{types:?}");
    assert!(types.contains(&"DeliveryOrderUpdate"), "{types:?}");
    let created = items
        .iter()
        .find(|e| e.event_type.as_deref() == Some("NomenclatureGroupCreated"))
        .expect("the group's event");
    assert!(
        created
            .attributes
            .iter()
            .flatten()
            .any(|a| a.value == Some(json!(group))),
        "{created:?}"
    );
    // Only what came after a revision.
    let later = api
        .platform()
        .events()
        .list(&EventListRequest {
            from_revision: events.revision,
            ..Default::default()
        })
        .expect("events");
    assert_eq!(later.items.unwrap_or_default().len(), 0);

    let terminals = api
        .terminals()
        .terminals()
        .list(&TerminalListRequest {
            organization_id: Some(ORG.into()),
            ..Default::default()
        })
        .expect("terminals");
    assert_eq!(
        terminals.items.unwrap_or_default()[0].id.as_deref(),
        Some(iikocloud_emulator::DEFAULT_TERMINAL_GROUP_ID)
    );
    let licenses = api
        .licenses()
        .list(&GetLicenseListRequest {
            organization_ids: Some(vec![ORG.into()]),
            ..Default::default()
        })
        .expect("licenses");
    let orgs = licenses.organization_licenses.unwrap_or_default();
    assert_eq!(orgs.len(), 1);
    assert_eq!(orgs[0].licenses.as_ref().map(Vec::len), Some(1));
    let units = api
        .nomenclature()
        .amount_unit()
        .list(&AmountUnitListRequest {
            filters: Some(vec![AmountUnitFilter {
                field: Some("code".into()),
                op: Some("eq".into()),
                value: Some(json!("kg")),
                ..Default::default()
            }]),
            ..Default::default()
        })
        .expect("amount units");
    let units = units.items.unwrap_or_default();
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].name.as_deref(), Some("Kilogram"));
    let sizes = api
        .nomenclature()
        .product_size()
        .list(&Default::default())
        .expect("product sizes");
    let names: Vec<_> = sizes
        .items
        .unwrap_or_default()
        .into_iter()
        .filter_map(|s| s.name)
        .collect();
    assert_eq!(names, ["25 cm", "32 cm"]);
    let allergens = api
        .nomenclature()
        .allergen_group()
        .list(&Default::default())
        .expect("allergen groups");
    assert_eq!(allergens.total_count, Some(3));
}

#[test]
fn the_list_answers_come_typed_with_the_documents_fields() {
    use iikocloud::api::models::backoffice::{
        AccountTypeListRequest, GetOlapColumnsRequest, ListRequest, OlapPresetReportRequest,
        OlapPresetsListRequest, OrganizationRequest,
    };
    let (_emu, client) = setup();
    let api = client.api();

    let columns = api
        .reporting()
        .olap()
        .columns()
        .get(&GetOlapColumnsRequest {
            report_type: Some("SALES".into()),
            ..Default::default()
        })
        .expect("columns");
    assert_eq!(columns.len(), 7);
    // Every field the emulator sends is one the document names.
    assert!(columns.iter().all(|c| c.extra.is_empty()), "{columns:?}");
    let dish = columns
        .iter()
        .find(|c| c.name.as_deref() == Some("DishSumInt"))
        .expect("DishSumInt");
    assert_eq!(
        (
            dish.display_name.as_deref(),
            dish.r#type.as_deref(),
            dish.can_aggregate,
            dish.can_filter,
            dish.can_group,
        ),
        (
            Some("Dish sum"),
            Some("MONEY"),
            Some(true),
            Some(false),
            Some(false)
        )
    );
    assert_eq!(dish.tags.as_deref(), Some(&["Amounts".to_string()][..]));
    let e = api
        .reporting()
        .olap()
        .columns()
        .get(&GetOlapColumnsRequest {
            report_type: Some("WEEKLY".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.http_status(), Some(400), "{e}");

    let tree = api
        .inventory()
        .organizations()
        .tree(&OrganizationRequest::default())
        .expect("tree");
    assert_eq!(tree.len(), 2);
    let company = &tree[0];
    assert_eq!(
        (
            company.jur_person_id.as_deref(),
            company.name.as_deref(),
            company.code.as_deref(),
            company.r#type.as_deref()
        ),
        (
            Some(iikocloud_emulator::DEFAULT_LEGAL_ENTITY_ID),
            Some("Emulator Restaurants LLC"),
            Some("ER-01"),
            Some("JUR_PERSON")
        )
    );
    let children = company.children.as_deref().expect("children");
    let pizza = &children[0];
    assert_eq!(pizza.organization_id.as_deref(), Some(ORG));
    assert_eq!(pizza.name.as_deref(), Some("Emulator Pizza (Central)"));
    assert_eq!(pizza.code.as_deref(), Some("EMU-PIZZA"));
    assert_eq!(pizza.r#type.as_deref(), Some("Rms"));
    assert_eq!(pizza.children.as_deref(), Some(&[][..]), "a leaf");
    assert!(children.iter().all(|o| o.extra.is_empty()));

    let presets = api
        .reporting()
        .olap()
        .presets()
        .list(&OlapPresetsListRequest::default())
        .expect("presets");
    assert_eq!(presets.len(), 3);
    assert!(presets
        .iter()
        .all(|p| p.name.is_some() && p.extra.is_empty()));
    let report = api
        .reporting()
        .olap()
        .presets()
        .get(&OlapPresetReportRequest {
            preset_id: presets[0].preset_id.clone(),
            date_from: Some("2000-01-01".into()),
            date_to: Some("2100-01-01".into()),
            ..Default::default()
        })
        .expect("the preset's report");
    assert_eq!(report.summary.map(|s| s.len()), Some(1));

    let docs = api.inventory().incoming_inventory();
    let created = docs
        .create(&IncomingInventoryCreateRequest {
            organization_id: Some(ORG.into()),
            store: Some("3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f".into()),
            date: Some("2026-11-23T10:00:00".into()),
            comment: Some("Monthly count".into()),
            items: Some(vec![]),
            items_first_step: Some(vec![]),
            ..Default::default()
        })
        .expect("draft created");
    let listed = docs
        .list(&ListRequest {
            organization_id: Some(ORG.into()),
            from: Some("2026-11-01".into()),
            to: Some("2026-11-30".into()),
            ..Default::default()
        })
        .expect("list");
    assert_eq!(listed.len(), 1);
    let item = &listed[0];
    assert_eq!(item.document_id, created.document_id);
    assert_eq!(item.comment.as_deref(), Some("Monthly count"));
    assert_eq!(
        item.store_from.as_deref(),
        Some("3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f")
    );
    assert_eq!((item.processed, item.deleted), (Some(false), Some(false)));
    assert!(item.extra.is_empty(), "{item:?}");

    let types = api
        .finance()
        .account_type()
        .list(&AccountTypeListRequest::default())
        .expect("account types");
    assert!(types.iter().any(|t| t.code.as_deref() == Some("CASH")));
    assert!(types.iter().all(|t| t.extra.is_empty()));
}
