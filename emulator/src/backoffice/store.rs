//! The back-office records, inventories and platform events by family and
//! id: the data the emulator's state holds, apart from the handlers
//! (backoffice/mod.rs) that reach the whole state.

use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use crate::util::{format_utc, new_uuid};

/// How long a nomenclature write takes to show in the lists by default.
const DEFAULT_CATALOGUE_DELAY: Duration = Duration::from_secs(1);

/// A family of records with the usual create, update, delete, restore, get
/// and list operations, and where its fields are.
pub(super) struct Kind {
    /// Operation-name prefix: `nomenclature.group`.
    pub(super) family: &'static str,
    /// The id field of its records, write requests and write answers.
    pub(super) id: &'static str,
    /// The id-list field of delete (or fire) and restore requests.
    pub(super) ids: &'static str,
    /// Schema of one listed record.
    pub(super) item: &'static str,
    /// Field of the list answer holding the records.
    pub(super) list_key: &'static str,
    /// Whether lists see writes only after the catalogue delay.
    pub(super) eventual: bool,
}

pub(super) const KINDS: [Kind; 6] = [
    Kind {
        family: "nomenclature.group",
        id: "groupId",
        ids: "groupIds",
        item: "NomenclatureGroupResponse",
        list_key: "groups",
        eventual: true,
    },
    Kind {
        family: "nomenclature.product",
        id: "productId",
        ids: "productIds",
        item: "NomenclatureProductResponse",
        list_key: "items",
        eventual: true,
    },
    Kind {
        family: "nomenclature.nomenclature.category",
        id: "id",
        ids: "ids",
        item: "NomenclatureCategoryResponse",
        list_key: "items",
        eventual: true,
    },
    Kind {
        family: "employees.employee",
        id: "id",
        ids: "ids",
        item: "EmployeeResponse",
        list_key: "items",
        eventual: false,
    },
    Kind {
        family: "finance.account",
        id: "id",
        ids: "ids",
        item: "AccountResponse",
        list_key: "accounts",
        eventual: false,
    },
    Kind {
        family: "finance.cash_flow_category",
        id: "id",
        ids: "ids",
        item: "CashFlowCategoryResponse",
        list_key: "cashFlowCategories",
        eventual: false,
    },
];

pub(super) struct Record {
    /// What `get` answers.
    pub(super) current: Value,
    /// What the lists show until `visible_at` (the version before the last
    /// write, or nothing for a record just created).
    pub(super) listed: Option<Value>,
    pub(super) visible_at: Instant,
}

impl Record {
    pub(super) fn in_lists(&self, now: Instant) -> Option<&Value> {
        if now >= self.visible_at {
            Some(&self.current)
        } else {
            self.listed.as_ref()
        }
    }
}

/// Back-office state, by family, then by record id (lower case).
pub(crate) struct BackOffice {
    pub(super) records: BTreeMap<&'static str, BTreeMap<String, Record>>,
    /// Incoming inventory documents by id.
    pub(super) inventories: BTreeMap<String, Inventory>,
    pub(super) next_document: u64,
    pub(super) revision: i64,
    /// What the emulator's own actions emitted, for `platform.events.list`
    /// (the newest [`MAX_EVENTS`]).
    pub(super) events: Vec<PlatformEvent>,
    pub(super) event_revision: i64,
    pub(crate) delay: Duration,
}

/// An incoming inventory document and the organization it was made for (its
/// answers do not carry it, the list filters by it).
pub(super) struct Inventory {
    pub(super) organization_id: String,
    /// What `get` answers.
    pub(super) doc: Value,
}

/// The platform events kept for `platform.events.list`.
pub(super) const MAX_EVENTS: usize = 10_000;

pub(super) struct PlatformEvent {
    pub(super) revision: i64,
    pub(super) organization_id: Option<String>,
    pub(super) item: Value,
}

impl Default for BackOffice {
    fn default() -> Self {
        BackOffice {
            records: BTreeMap::new(),
            inventories: BTreeMap::new(),
            next_document: 1,
            revision: 0,
            events: Vec::new(),
            event_revision: 0,
            delay: DEFAULT_CATALOGUE_DELAY,
        }
    }
}

impl BackOffice {
    /// Forgets every record; the delay stays as configured.
    pub(crate) fn clear(&mut self) {
        let delay = self.delay;
        *self = BackOffice {
            delay,
            ..BackOffice::default()
        };
    }

    pub(super) fn write(&mut self, kind: &Kind, id: &str, value: Value) {
        let now = Instant::now();
        let visible_at = if kind.eventual { now + self.delay } else { now };
        let family = self.records.entry(kind.family).or_default();
        match family.get_mut(id) {
            Some(r) => {
                r.listed = r.in_lists(now).cloned();
                r.current = value;
                r.visible_at = visible_at;
            }
            None => {
                family.insert(
                    id.to_string(),
                    Record {
                        current: value,
                        listed: None,
                        visible_at,
                    },
                );
            }
        }
    }

    pub(super) fn get(&self, kind: &Kind, id: &str) -> Option<&Value> {
        self.records
            .get(kind.family)
            .and_then(|f| f.get(id))
            .map(|r| &r.current)
    }

    /// Records an event of the emulator's own doing.
    pub(crate) fn record_event(
        &mut self,
        event_type: &str,
        organization_id: Option<&str>,
        entity_id: Option<&str>,
    ) {
        self.event_revision += 1;
        let mut attributes = Vec::new();
        if let Some(org) = organization_id {
            attributes.push(json!({"code": "organizationId", "value": org}));
        }
        if let Some(id) = entity_id {
            attributes.push(json!({"code": "entityId", "value": id}));
        }
        self.events.push(PlatformEvent {
            revision: self.event_revision,
            organization_id: organization_id.map(str::to_ascii_lowercase),
            item: json!({
                "id": new_uuid(),
                "eventType": event_type,
                "occurredAt": format_utc(SystemTime::now()),
                "source": "emulator",
                "attributes": attributes,
            }),
        });
        if self.events.len() > MAX_EVENTS {
            let extra = self.events.len() - MAX_EVENTS;
            self.events.drain(..extra);
        }
    }

    pub(super) fn next_revision(&mut self) -> i64 {
        self.revision += 1;
        self.revision
    }
}
