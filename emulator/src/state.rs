//! State shared by the server threads and the in-process API, and the event
//! triggers used by both.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde_json::{json, Value};

use crate::dictionaries::{CreationFailure, Directory};
use crate::error::EmulatorError;
use crate::faults::Fault;
use crate::fixtures::{Fixtures, StopListItem, TerminalGroupFixture};
use crate::records::RequestLog;
use crate::tokens::TokenStore;
use crate::util::{format_utc, lock, new_uuid, unix_millis};
use crate::webhooks::events::{self, InfoHead};
use crate::webhooks::Hub;

struct StoredOrder {
    organization_id: String,
    pos_id: String,
    external_number: String,
    order: Value,
    number: i64,
    timestamp: i64,
    /// `InProgress` until its creation command finishes, then `Success` or `Error`.
    creation_status: &'static str,
    error_info: Value,
}

/// Mutable business data: stop lists and orders.
pub(crate) struct World {
    /// Organization id -> terminal groups with their current stop lists.
    pub(crate) stop_lists: HashMap<String, Vec<TerminalGroupFixture>>,
    orders: HashMap<String, StoredOrder>,
    next_number: i64,
    last_timestamp: i64,
}

impl World {
    fn new(fixtures: &Fixtures) -> World {
        World {
            stop_lists: fixtures
                .organizations
                .iter()
                .map(|o| (o.id.clone(), o.terminal_groups.clone()))
                .collect(),
            orders: HashMap::new(),
            next_number: 1000,
            last_timestamp: 0,
        }
    }

    /// Strictly increasing millisecond timestamp, as `OrderInfo.timestamp`.
    fn next_timestamp(&mut self) -> i64 {
        let now = unix_millis(SystemTime::now());
        self.last_timestamp = now.max(self.last_timestamp + 1);
        self.last_timestamp
    }

    fn next_number(&mut self) -> i64 {
        self.next_number += 1;
        self.next_number
    }
}

/// A delivery order created in the emulator, with the event that announced it.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderHandle {
    /// Order id (`eventInfo.id`), used by [`crate::Emulator::set_delivery_status`].
    pub id: String,
    /// Organization of the order.
    pub organization_id: String,
    /// Order number (`eventInfo.order.number`).
    pub number: i64,
    /// The events enqueued for delivery (one `DeliveryOrderUpdate`).
    pub events: Vec<Value>,
}

pub(crate) struct Shared {
    pub(crate) fixtures: Fixtures,
    /// Each organization's dictionaries, by lower-case id (read only).
    directories: HashMap<String, Directory>,
    pub(crate) tokens: Mutex<TokenStore>,
    pub(crate) log: RequestLog,
    pub(crate) faults: Mutex<Vec<Fault>>,
    pub(crate) world: Mutex<World>,
    pub(crate) commands: Mutex<crate::commands::registry::Commands>,
    pub(crate) tables: Mutex<crate::tables::book::Tables>,
    pub(crate) backoffice: Mutex<crate::backoffice::store::BackOffice>,
    pub(crate) hub: Arc<Hub>,
}

impl Shared {
    pub(crate) fn new(fixtures: Fixtures, tokens: TokenStore, hub: Arc<Hub>) -> Shared {
        let world = World::new(&fixtures);
        Shared {
            directories: crate::dictionaries::directories(&fixtures),
            fixtures,
            tokens: Mutex::new(tokens),
            log: RequestLog::default(),
            faults: Mutex::new(Vec::new()),
            world: Mutex::new(world),
            commands: Mutex::new(Default::default()),
            tables: Mutex::new(Default::default()),
            backoffice: Mutex::new(Default::default()),
            hub,
        }
    }

    /// Back to the start-up state, except issued tokens and configuration.
    pub(crate) fn reset(&self) {
        self.log.clear();
        lock(&self.faults).clear();
        *lock(&self.world) = World::new(&self.fixtures);
        *lock(&self.commands) = Default::default();
        *lock(&self.tables) = Default::default();
        lock(&self.backoffice).clear();
        self.hub.reset();
    }

    /// The organization's dictionaries.
    pub(crate) fn directory(&self, organization_id: &str) -> Option<&Directory> {
        self.directories.get(&organization_id.to_ascii_lowercase())
    }

    fn check_org(&self, organization_id: &str) -> Result<String, EmulatorError> {
        self.fixtures
            .organization(organization_id)
            .map(|o| o.id.clone())
            .ok_or_else(|| EmulatorError::UnknownOrganization(organization_id.to_string()))
    }

    /// Id of the organization's first terminal group, or a fresh id when it has none
    /// (events still need one).
    fn first_terminal_group(&self, world: &World, org: &str) -> String {
        world
            .stop_lists
            .get(org)
            .and_then(|tgs| tgs.first())
            .map(|tg| tg.id.clone())
            .unwrap_or_else(new_uuid)
    }

    fn emit(&self, org: &str, events: Vec<Value>) -> Vec<Value> {
        {
            let mut office = lock(&self.backoffice);
            for e in &events {
                let id = e["eventInfo"]["id"].as_str();
                office.record_event(e["eventType"].as_str().unwrap_or("Unknown"), Some(org), id);
            }
        }
        self.hub.enqueue_events(org, &events);
        events
    }

    pub(crate) fn create_delivery_order(
        &self,
        organization_id: &str,
    ) -> Result<OrderHandle, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let mut world = lock(&self.world);
        let id = new_uuid();
        let number = world.next_number();
        let tg = self.first_terminal_group(&world, &org);
        let now = SystemTime::now();
        let mut order = events::new_delivery_order(number, &tg, now);
        if let Some(d) = self.directory(&org) {
            crate::contents::fit_made_up_order(&mut order, d);
        }
        let timestamp = world.next_timestamp();
        let stored = StoredOrder {
            organization_id: org.clone(),
            pos_id: new_uuid(),
            external_number: format!("EMU-{number}"),
            order,
            number,
            timestamp,
            creation_status: "Success",
            error_info: Value::Null,
        };
        let head = InfoHead {
            id: &id,
            pos_id: Some(&stored.pos_id),
            external_number: Some(&stored.external_number),
            organization_id: &org,
            timestamp,
        };
        let info = events::order_info(&head, "Success", Value::Null, stored.order.clone());
        let event = events::envelope("DeliveryOrderUpdate", &org, info);
        world.orders.insert(id.clone(), stored);
        // Enqueue under the world lock so events of one order keep their order.
        let events = self.emit(&org, vec![event]);
        Ok(OrderHandle {
            id,
            organization_id: org,
            number,
            events,
        })
    }

    pub(crate) fn set_delivery_status(
        &self,
        order_id: &str,
        status: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        if status.is_empty() {
            return Err(EmulatorError::InvalidArgument("empty status".into()));
        }
        let mut world = lock(&self.world);
        let timestamp = world.next_timestamp();
        let stored = world
            .orders
            .get_mut(&order_id.to_ascii_lowercase())
            .ok_or_else(|| EmulatorError::UnknownOrder(order_id.to_string()))?;
        let directory = self.directory(&stored.organization_id);
        events::apply_delivery_status(&mut stored.order, status, SystemTime::now(), directory);
        stored.timestamp = timestamp;
        let org = stored.organization_id.clone();
        let head = InfoHead {
            id: &order_id.to_ascii_lowercase(),
            pos_id: Some(&stored.pos_id),
            external_number: Some(&stored.external_number),
            organization_id: &org,
            timestamp,
        };
        let info = events::order_info(&head, "Success", Value::Null, stored.order.clone());
        let event = events::envelope("DeliveryOrderUpdate", &org, info);
        Ok(self.emit(&org, vec![event]))
    }

    /// Stores a delivery order created through the API, still in progress;
    /// returns its `orderInfo`. An id already taken is refused, which is what
    /// makes a resend with the same `order.id` safe.
    pub(crate) fn begin_delivery_creation(
        &self,
        organization_id: &str,
        order_id: &str,
        terminal_group_id: Option<&str>,
        request: &Value,
    ) -> Result<Value, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let mut world = lock(&self.world);
        if world.orders.contains_key(order_id) {
            return Err(EmulatorError::InvalidArgument(format!(
                "Order with id {order_id} already exists"
            )));
        }
        let number = world.next_number();
        let tg = match terminal_group_id {
            Some(tg) => tg.to_ascii_lowercase(),
            None => self.first_terminal_group(&world, &org),
        };
        let now = SystemTime::now();
        let mut order = events::new_delivery_order(number, &tg, now);
        crate::contents::fill_from_request(
            &mut order,
            request,
            self.directory(&org),
            Some("DeliveryByCourier"),
        );
        let timestamp = world.next_timestamp();
        let external_number = request["externalNumber"]
            .as_str()
            .map_or_else(|| format!("EMU-{number}"), str::to_string);
        let head = InfoHead {
            id: order_id,
            pos_id: None,
            external_number: Some(&external_number),
            organization_id: &org,
            timestamp,
        };
        let info = events::order_info(&head, "InProgress", Value::Null, Value::Null);
        world.orders.insert(
            order_id.to_string(),
            StoredOrder {
                organization_id: org,
                pos_id: new_uuid(),
                external_number,
                order,
                number,
                timestamp,
                creation_status: "InProgress",
                error_info: Value::Null,
            },
        );
        Ok(info)
    }

    /// Finishes an API-created order: `Success` with a `DeliveryOrderUpdate`,
    /// or, when it names something outside the dictionaries, `Error` with a
    /// `DeliveryOrderError`.
    pub(crate) fn finish_delivery_creation(
        &self,
        order_id: &str,
        failure: Option<&CreationFailure>,
    ) {
        let mut world = lock(&self.world);
        let timestamp = world.next_timestamp();
        let Some(stored) = world.orders.get_mut(order_id) else {
            return;
        };
        stored.timestamp = timestamp;
        let org = stored.organization_id.clone();
        let (event_type, order) = match failure {
            None => {
                stored.creation_status = "Success";
                ("DeliveryOrderUpdate", stored.order.clone())
            }
            Some(failure) => {
                stored.creation_status = "Error";
                let mut info = events::error_info(failure.code);
                info["message"] = json!(failure.message);
                info["description"] = info["message"].clone();
                stored.error_info = info;
                ("DeliveryOrderError", Value::Null)
            }
        };
        let head = InfoHead {
            id: order_id,
            pos_id: (stored.creation_status == "Success").then_some(stored.pos_id.as_str()),
            external_number: Some(&stored.external_number),
            organization_id: &org,
            timestamp,
        };
        let info = events::order_info(
            &head,
            stored.creation_status,
            stored.error_info.clone(),
            order,
        );
        let event = events::envelope(event_type, &org, info);
        self.emit(&org, vec![event]);
    }

    /// `orderInfo` of the organization's delivery orders that `pick` selects
    /// (by id and POS id), oldest first.
    pub(crate) fn delivery_orders(
        &self,
        organization_id: &str,
        pick: impl Fn(&str, Option<&str>) -> bool,
    ) -> Vec<Value> {
        let world = lock(&self.world);
        let mut found: Vec<(&String, &StoredOrder)> = world
            .orders
            .iter()
            .filter(|(_, o)| o.organization_id.eq_ignore_ascii_case(organization_id))
            .filter(|(id, o)| {
                let pos = (o.creation_status == "Success").then_some(o.pos_id.as_str());
                pick(id, pos)
            })
            .collect();
        found.sort_by_key(|(_, o)| o.number);
        found
            .into_iter()
            .map(|(id, o)| {
                let success = o.creation_status == "Success";
                let head = InfoHead {
                    id,
                    pos_id: success.then_some(o.pos_id.as_str()),
                    external_number: Some(&o.external_number),
                    organization_id: &o.organization_id,
                    timestamp: o.timestamp,
                };
                let order = if success {
                    o.order.clone()
                } else {
                    Value::Null
                };
                events::order_info(&head, o.creation_status, o.error_info.clone(), order)
            })
            .collect()
    }

    /// The latest order revision (`maxRevision`).
    pub(crate) fn revision(&self) -> i64 {
        lock(&self.world).last_timestamp
    }

    /// Whether the organization has this terminal group.
    pub(crate) fn has_terminal_group(
        &self,
        organization_id: &str,
        terminal_group_id: &str,
    ) -> bool {
        let world = lock(&self.world);
        world.stop_lists.iter().any(|(org, groups)| {
            org.eq_ignore_ascii_case(organization_id)
                && groups
                    .iter()
                    .any(|g| g.id.eq_ignore_ascii_case(terminal_group_id))
        })
    }

    /// Applies a stop-list command and sends `StopListUpdate`.
    pub(crate) fn apply_stop_list_change(
        &self,
        organization_id: &str,
        terminal_group_id: &str,
        change: crate::commands::registry::StopListChange,
    ) -> Result<Vec<Value>, EmulatorError> {
        use crate::commands::registry::StopListChange;
        let org = self.check_org(organization_id)?;
        let mut world = lock(&self.world);
        let group = world
            .stop_lists
            .entry(org.clone())
            .or_default()
            .iter_mut()
            .find(|g| g.id.eq_ignore_ascii_case(terminal_group_id))
            .ok_or_else(|| EmulatorError::UnknownTerminalGroup(terminal_group_id.to_string()))?;
        match change {
            StopListChange::Add(items) => {
                for item in items {
                    group.stop_list.retain(|i| {
                        !(i.product_id == item.product_id && i.size_id == item.size_id)
                    });
                    group.stop_list.push(item);
                }
            }
            StopListChange::Remove(keys) => group.stop_list.retain(|i| {
                !keys
                    .iter()
                    .any(|(p, s)| *p == i.product_id && *s == i.size_id)
            }),
            StopListChange::Clear => group.stop_list.clear(),
        }
        let tg_id = group.id.clone();
        let event = events::envelope(
            "StopListUpdate",
            &org,
            events::stop_list_info(std::slice::from_ref(&tg_id)),
        );
        Ok(self.emit(&org, vec![event]))
    }

    pub(crate) fn trigger_delivery_error(
        &self,
        organization_id: &str,
        code: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let mut world = lock(&self.world);
        let number = world.next_number();
        let external = format!("EMU-{number}");
        let head = InfoHead {
            id: &new_uuid(),
            pos_id: None,
            external_number: Some(&external),
            organization_id: &org,
            timestamp: world.next_timestamp(),
        };
        let info = events::order_info(&head, "Error", events::error_info(code), Value::Null);
        let event = events::envelope("DeliveryOrderError", &org, info);
        Ok(self.emit(&org, vec![event]))
    }

    pub(crate) fn trigger_reserve(
        &self,
        organization_id: &str,
        error_code: Option<&str>,
    ) -> Result<Vec<Value>, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let mut world = lock(&self.world);
        let number = world.next_number();
        let external = format!("BOOK-{number}");
        let id = new_uuid();
        let head = InfoHead {
            id: &id,
            pos_id: None,
            external_number: Some(&external),
            organization_id: &org,
            timestamp: world.next_timestamp(),
        };
        let event = match error_code {
            None => events::envelope(
                "ReserveUpdate",
                &org,
                events::reserve_update_info(&head, SystemTime::now()),
            ),
            Some(code) => events::envelope(
                "ReserveError",
                &org,
                events::reserve_error_info(&head, code),
            ),
        };
        Ok(self.emit(&org, vec![event]))
    }

    pub(crate) fn trigger_table_order(
        &self,
        organization_id: &str,
        error_code: Option<&str>,
    ) -> Result<Vec<Value>, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let mut world = lock(&self.world);
        let number = world.next_number();
        let tg = self.first_terminal_group(&world, &org);
        let id = new_uuid();
        let pos_id = new_uuid();
        let head = InfoHead {
            id: &id,
            pos_id: Some(&pos_id),
            external_number: None,
            organization_id: &org,
            timestamp: world.next_timestamp(),
        };
        let event = match error_code {
            None => {
                let order = events::new_table_order(number, &tg, SystemTime::now());
                let info = events::order_info(&head, "Success", Value::Null, order);
                events::envelope("TableOrderUpdate", &org, info)
            }
            Some(code) => {
                let info =
                    events::order_info(&head, "Error", events::error_info(code), Value::Null);
                events::envelope("TableOrderError", &org, info)
            }
        };
        Ok(self.emit(&org, vec![event]))
    }

    /// Adds `item` (or a generated one) to a terminal group's stop list and
    /// announces the change with a `StopListUpdate`.
    pub(crate) fn change_stop_list(
        &self,
        organization_id: &str,
        terminal_group_id: Option<&str>,
        item: Option<StopListItem>,
    ) -> Result<Vec<Value>, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let mut world = lock(&self.world);
        let groups = world.stop_lists.entry(org.clone()).or_default();
        let group = match terminal_group_id {
            Some(tg) => groups
                .iter_mut()
                .find(|g| g.id.eq_ignore_ascii_case(tg))
                .ok_or_else(|| EmulatorError::UnknownTerminalGroup(tg.to_string()))?,
            None => groups
                .first_mut()
                .ok_or_else(|| EmulatorError::NoTerminalGroups(org.clone()))?,
        };
        let item = match item {
            Some(mut i) => {
                if !crate::util::is_uuid(&i.product_id) {
                    return Err(EmulatorError::InvalidArgument(
                        "productId must be a UUID".into(),
                    ));
                }
                i.product_id.make_ascii_lowercase();
                i
            }
            None => StopListItem {
                balance: serde_json::Number::from(0),
                product_id: new_uuid(),
                size_id: None,
                sku: Some(format!("EMU-{}", group.stop_list.len() + 1)),
                date_add: Some(format_utc(SystemTime::now())),
            },
        };
        // Replace an existing position of the same product and size.
        group
            .stop_list
            .retain(|i| !(i.product_id == item.product_id && i.size_id == item.size_id));
        group.stop_list.push(item);
        let tg_id = group.id.clone();
        let event = events::envelope(
            "StopListUpdate",
            &org,
            events::stop_list_info(std::slice::from_ref(&tg_id)),
        );
        Ok(self.emit(&org, vec![event]))
    }

    pub(crate) fn trigger_personal_shift(
        &self,
        organization_id: &str,
        opened: bool,
    ) -> Result<Vec<Value>, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let world = lock(&self.world);
        let tg = self.first_terminal_group(&world, &org);
        let info = events::personal_shift_info("f21f3e37-950f-5459-bf35-6d75d7764c44", opened, &tg);
        let event = events::envelope("PersonalShift", &org, info);
        Ok(self.emit(&org, vec![event]))
    }

    /// A new order number, a strictly increasing timestamp and the first
    /// terminal group of the organization, for entities kept elsewhere
    /// (table orders, reserves).
    pub(crate) fn next_entity(
        &self,
        organization_id: &str,
    ) -> Result<(String, i64, i64, String), EmulatorError> {
        let org = self.check_org(organization_id)?;
        let mut world = lock(&self.world);
        let number = world.next_number();
        let timestamp = world.next_timestamp();
        let tg = self.first_terminal_group(&world, &org);
        Ok((org, number, timestamp, tg))
    }

    /// A strictly increasing timestamp shared with the delivery orders.
    pub(crate) fn next_timestamp(&self) -> i64 {
        lock(&self.world).next_timestamp()
    }

    pub(crate) fn send_event(
        &self,
        organization_id: &str,
        event_type: &str,
        event_info: Value,
    ) -> Result<Vec<Value>, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let _world = lock(&self.world);
        let event = events::envelope(event_type, &org, event_info);
        Ok(self.emit(&org, vec![event]))
    }

    pub(crate) fn send_raw(
        &self,
        organization_id: &str,
        body: Value,
    ) -> Result<Value, EmulatorError> {
        let org = self.check_org(organization_id)?;
        let _world = lock(&self.world);
        self.hub.enqueue_raw(&org, body.clone());
        Ok(body)
    }

    /// The stop list response entry of one organization (wire shape).
    pub(crate) fn stop_list_json(
        &self,
        organization_id: &str,
        terminal_groups: Option<&[String]>,
        return_size: bool,
    ) -> Value {
        let world = lock(&self.world);
        let groups = world
            .stop_lists
            .get(organization_id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let items: Vec<Value> = groups
            .iter()
            .filter(|g| terminal_groups.is_none_or(|ids| ids.contains(&g.id)))
            .map(|g| {
                let positions: Vec<Value> = g
                    .stop_list
                    .iter()
                    .map(|i| {
                        json!({
                            "balance": i.balance,
                            "productId": i.product_id,
                            "sizeId": if return_size { i.size_id.clone() } else { None },
                            "sku": i.sku,
                            "dateAdd": i.date_add,
                        })
                    })
                    .collect();
                json!({"terminalGroupId": g.id, "items": positions})
            })
            .collect();
        json!({"organizationId": organization_id, "items": items})
    }
}
