//! Ignoring order and reserve events that arrive after newer ones.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::dedup::{Digest, Hashers};
use super::event::{Event, EventKind};
use crate::store::{Advance, Store, StoreError};

/// What [`OrderingGuard::observe`] says about an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderingDecision {
    /// The event is newer than every event applied for its entity (or the
    /// first one seen); it is now recorded as the last applied. Apply it.
    Apply,
    /// An event with this or a later `timestamp` was already applied for the
    /// entity; applying this one would roll the state back. Skip it.
    Stale {
        /// The `timestamp` of the last applied event.
        last_applied: i64,
    },
    /// The event has no entity (not an order or reserve event) or lacks
    /// `eventInfo.id` or `eventInfo.timestamp`; the guard cannot judge it.
    Untracked,
}

/// Tracks the last applied version of each order and reserve.
///
/// Nothing documents ordering between webhook events, and retries can bring an
/// old event after a newer one. Order and reserve events carry
/// `eventInfo.timestamp`, a version that grows with every change; this guard
/// remembers the highest one applied per entity and flags older events.
///
/// An entity is the pair (family, `eventInfo.id`), where the families are
/// delivery orders (`DeliveryOrderUpdate` and `DeliveryOrderError` share one
/// version sequence), table orders and reserves. An event is newer only when
/// its timestamp is strictly greater than the last applied one: an equal
/// timestamp is the same version again.
///
/// Memory is bounded: at most `capacity` entities are remembered, the least
/// recently observed being forgotten first. A forgotten entity's next event is
/// applied whatever its age, so size `capacity` above the number of orders
/// active at once. Thread-safe; share one instance between handlers.
///
/// Built on a [`Store`] ([`OrderingGuard::with_store`]), positions are shared
/// by every process and machine using it and only ever move forward there.
pub struct OrderingGuard {
    /// When set, positions live there, each for the given time.
    store: Option<(Store, Duration)>,
    capacity: usize,
    hashers: Hashers,
    state: Mutex<GuardState>,
}

#[derive(Default)]
struct GuardState {
    entities: HashMap<Digest, Slot>,
    /// Recency tick → entity, oldest first.
    recency: BTreeMap<u64, Digest>,
    tick: u64,
}

struct Slot {
    timestamp: i64,
    tick: u64,
}

impl fmt::Debug for OrderingGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OrderingGuard")
            .field("store", &self.store.as_ref().map(|(s, _)| s))
            .field("capacity", &self.capacity)
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

impl OrderingGuard {
    /// How many orders and reserves a binding's guard remembers when the
    /// caller does not say ([`limits::ORDERING_CAPACITY`](crate::limits::ORDERING_CAPACITY)).
    pub const DEFAULT_CAPACITY: usize = 10_000;

    /// A guard remembering at most `capacity` entities (at least 1).
    pub fn new(capacity: usize) -> OrderingGuard {
        OrderingGuard {
            store: None,
            capacity: capacity.max(1),
            hashers: Hashers::new(),
            state: Mutex::new(GuardState::default()),
        }
    }

    /// How long a shared store keeps a position when the caller does not say:
    /// a week, longer than any order or reserve stays open.
    pub const DEFAULT_STORE_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

    /// A guard whose positions live in `store`, each kept for `ttl` after its
    /// last change (size it above the life of an order, e.g. a few days).
    ///
    /// [`observe`](Self::observe) cannot report a store failure: it logs a
    /// warning and answers [`OrderingDecision::Untracked`]. Use
    /// [`try_observe`](Self::try_observe) to see the error.
    pub fn with_store(store: Store, ttl: Duration) -> OrderingGuard {
        let mut g = OrderingGuard::new(1);
        g.store = Some((store, ttl));
        g
    }

    /// Decides whether to apply the event, and records it as applied when it
    /// is newer (check and record are one atomic step).
    pub fn observe(&self, event: &Event) -> OrderingDecision {
        self.try_observe(event).unwrap_or_else(|e| {
            log::warn!("ordering store failed, cannot judge the event: {e}");
            OrderingDecision::Untracked
        })
    }

    /// [`OrderingGuard::observe`], reporting a failure of the store.
    pub fn try_observe(&self, event: &Event) -> Result<OrderingDecision, StoreError> {
        let decision = match entity_of(event) {
            Some((family, id, ts)) => self.try_observe_entity(family, id, ts)?,
            None => OrderingDecision::Untracked,
        };
        if matches!(decision, OrderingDecision::Stale { .. }) {
            crate::telemetry::judged(event, crate::telemetry::EventOutcome::Stale);
        }
        Ok(decision)
    }

    /// [`OrderingGuard::observe_entity`], reporting a failure of the store.
    pub fn try_observe_entity(
        &self,
        family: &str,
        id: &str,
        timestamp: i64,
    ) -> Result<OrderingDecision, StoreError> {
        if let Some((store, ttl)) = &self.store {
            return Ok(
                match store.advance(&format!("position:{family}|{id}"), timestamp, *ttl)? {
                    Advance::Moved => OrderingDecision::Apply,
                    Advance::Stale { current } => OrderingDecision::Stale {
                        last_applied: current,
                    },
                },
            );
        }
        Ok(self.observe_entity_local(family, id, timestamp))
    }

    /// Whether the event is newer than the last applied one for its entity,
    /// without recording anything. `true` for untracked events.
    pub fn is_newer(&self, event: &Event) -> bool {
        let Some((family, id, ts)) = entity_of(event) else {
            return true;
        };
        if let Some((store, _)) = &self.store {
            return match store.position(&format!("position:{family}|{id}")) {
                Ok(p) => p.is_none_or(|last| ts > last),
                Err(e) => {
                    log::warn!("ordering store failed: {e}");
                    true
                }
            };
        }
        let digest = self.digest(family, id);
        self.lock()
            .entities
            .get(&digest)
            .is_none_or(|slot| ts > slot.timestamp)
    }

    /// [`OrderingGuard::observe`] for an entity given by hand: `family` is any
    /// label of your choosing (the event-based calls use `"delivery"`,
    /// `"table"` and `"reserve"`).
    pub fn observe_entity(&self, family: &str, id: &str, timestamp: i64) -> OrderingDecision {
        self.try_observe_entity(family, id, timestamp)
            .unwrap_or_else(|e| {
                log::warn!("ordering store failed, cannot judge the event: {e}");
                OrderingDecision::Untracked
            })
    }

    fn observe_entity_local(&self, family: &str, id: &str, timestamp: i64) -> OrderingDecision {
        let digest = self.digest(family, id);
        let mut state = self.lock();
        let tick = state.tick;
        state.tick = tick.wrapping_add(1);
        let previous = state.entities.get(&digest).map(|s| (s.timestamp, s.tick));
        if let Some((_, old_tick)) = previous {
            state.recency.remove(&old_tick);
        }
        let decision = match previous {
            Some((last, _)) if timestamp <= last => OrderingDecision::Stale { last_applied: last },
            _ => OrderingDecision::Apply,
        };
        let timestamp = previous.map_or(timestamp, |(last, _)| last.max(timestamp));
        if previous.is_none() {
            while state.entities.len() >= self.capacity {
                let Some((_, oldest)) = state.recency.pop_first() else {
                    break;
                };
                state.entities.remove(&oldest);
            }
        }
        state.entities.insert(digest, Slot { timestamp, tick });
        state.recency.insert(tick, digest);
        decision
    }

    /// Forgets the event's entity (e.g. after the order was closed for good)
    /// in memory; positions in a store expire on their own.
    pub fn forget(&self, event: &Event) {
        if let Some((family, id, _)) = entity_of(event) {
            let digest = self.digest(family, id);
            let mut state = self.lock();
            if let Some(slot) = state.entities.remove(&digest) {
                state.recency.remove(&slot.tick);
            }
        }
    }

    /// Number of entities remembered.
    pub fn len(&self) -> usize {
        self.lock().entities.len()
    }

    /// Whether no entity is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets everything.
    pub fn clear(&self) {
        let mut state = self.lock();
        state.entities.clear();
        state.recency.clear();
    }

    fn digest(&self, family: &str, id: &str) -> Digest {
        self.hashers.digest(&format!("{family}|{id}"))
    }

    fn lock(&self) -> MutexGuard<'_, GuardState> {
        // No code that can panic runs while the state is half-updated.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn entity_of(event: &Event) -> Option<(&'static str, &str, i64)> {
    let family = match event.kind() {
        EventKind::DeliveryOrderUpdate | EventKind::DeliveryOrderError => "delivery",
        EventKind::TableOrderUpdate | EventKind::TableOrderError => "table",
        EventKind::ReserveUpdate | EventKind::ReserveError => "reserve",
        _ => return None,
    };
    Some((family, event.entity_id()?, event.timestamp()?))
}
