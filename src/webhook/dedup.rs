//! Dropping events the service delivers more than once.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

pub use crate::clock::{Clock, ManualClock, SystemClock};

use super::event::{Event, EventKey};
use crate::store::{Store, StoreError};

/// A 128-bit digest of a key under per-instance random keys: fixed-size
/// entries, and collisions are out of reach even for crafted input.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Digest(u64, u64);

#[derive(Debug)]
pub(crate) struct Hashers(RandomState, RandomState);

impl Hashers {
    pub(crate) fn new() -> Hashers {
        Hashers(RandomState::new(), RandomState::new())
    }

    pub(crate) fn digest(&self, key: &str) -> Digest {
        Digest(self.0.hash_one(key), self.1.hash_one(key))
    }
}

/// Remembers recently seen events and reports repeats.
///
/// The service resends a body when it gets no `200` in time, and nothing
/// documents how often, so the same event can arrive several times. Keys are
/// [`EventKey`]s. Memory is bounded: at most `capacity` keys (the oldest is
/// forgotten first), each forgotten after `max_age`. Entries are fixed-size
/// digests, not the key text.
///
/// Thread-safe: share one instance (e.g. in an `Arc`) between request
/// handlers. For de-duplication across processes, machines or restarts, build
/// it on a [`Store`] with [`Deduplicator::with_store`] (SQLite or Redis).
pub struct Deduplicator {
    /// When set, keys live there (with `max_age` as their expiry) and the
    /// in-memory state is unused.
    store: Option<Store>,
    capacity: usize,
    max_age: Duration,
    clock: Arc<dyn Clock>,
    hashers: Hashers,
    state: Mutex<DedupState>,
}

#[derive(Default)]
struct DedupState {
    /// Digest → sequence number of its live queue entry.
    seen: HashMap<Digest, u64>,
    /// Insertion order, which is also age order unless the wall clock jumps
    /// back (then an entry lives a little longer; capacity still bounds it). Entries
    /// whose sequence number no longer matches `seen` are dead (forgotten).
    order: VecDeque<Entry>,
    next_seq: u64,
}

struct Entry {
    digest: Digest,
    at: SystemTime,
    seq: u64,
}

impl DedupState {
    fn is_live(&self, e: &Entry) -> bool {
        self.seen.get(&e.digest) == Some(&e.seq)
    }

    fn pop_front(&mut self) {
        if let Some(e) = self.order.pop_front() {
            if self.is_live(&e) {
                self.seen.remove(&e.digest);
            }
        }
    }
}

impl fmt::Debug for Deduplicator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deduplicator")
            .field("store", &self.store)
            .field("capacity", &self.capacity)
            .field("max_age", &self.max_age)
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

impl Deduplicator {
    /// How many events a binding's de-duplicator remembers when the caller
    /// does not say ([`limits::DEDUP_CAPACITY`](crate::limits::DEDUP_CAPACITY)).
    pub const DEFAULT_CAPACITY: usize = 10_000;
    /// How long a binding's de-duplicator remembers an event when the caller
    /// does not say: a day, longer than the service keeps resending.
    pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(24 * 3600);

    /// A de-duplicator remembering at most `capacity` events (at least 1), each
    /// for `max_age`.
    pub fn new(capacity: usize, max_age: Duration) -> Deduplicator {
        Deduplicator::with_clock(capacity, max_age, Arc::new(SystemClock))
    }

    /// Like [`Deduplicator::new`], reading time from `clock`.
    pub fn with_clock(capacity: usize, max_age: Duration, clock: Arc<dyn Clock>) -> Deduplicator {
        Deduplicator {
            store: None,
            capacity: capacity.max(1),
            max_age,
            clock,
            hashers: Hashers::new(),
            state: Mutex::new(DedupState::default()),
        }
    }

    /// A de-duplicator whose keys live in `store`, each for `max_age`: a key
    /// is first seen by exactly one caller among every process (and, with
    /// Redis, every machine) sharing the store.
    ///
    /// [`first_seen`](Self::first_seen) cannot report a store failure; when
    /// the store fails it logs a warning and answers `true` (an event handled
    /// twice is better than one lost). Use
    /// [`try_first_seen`](Self::try_first_seen) to see the error.
    pub fn with_store(store: Store, max_age: Duration) -> Deduplicator {
        let mut d = Deduplicator::new(1, max_age);
        d.store = Some(store);
        d
    }

    /// The store keys live in, if any.
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// `true` if the event was not seen within `max_age` (and records it now),
    /// `false` for a repeat.
    pub fn first_seen(&self, event: &Event) -> bool {
        let first = self.first_seen_key(&event.dedup_key());
        if !first {
            crate::telemetry::judged(event, crate::telemetry::EventOutcome::Duplicate);
        }
        first
    }

    /// [`Deduplicator::first_seen`], reporting a failure of the store.
    pub fn try_first_seen(&self, event: &Event) -> Result<bool, StoreError> {
        let first = self.try_first_seen_str(&format!("event:{}", event.dedup_key().as_str()))?;
        if !first {
            crate::telemetry::judged(event, crate::telemetry::EventOutcome::Duplicate);
        }
        Ok(first)
    }

    /// Whether this is the first event that makes `event`'s delivery order
    /// new, once per order id: `true` for the first `DeliveryOrderUpdate`
    /// with a new-order status ([`Event::is_new_delivery_order`]) of an order,
    /// `false` for the same order's later new-order events (the service sends
    /// both `Unconfirmed` and `WaitCooking` for one order) and for every
    /// other event. Remembered for `max_age`, in the store when there is one.
    /// On a store failure, logs it and answers `true`, as
    /// [`first_seen`](Self::first_seen) does.
    pub fn first_new_order(&self, event: &Event) -> bool {
        self.try_first_new_order(event).unwrap_or_else(|e| {
            log::warn!("de-duplication store failed, treating the order as new: {e}");
            true
        })
    }

    /// [`Deduplicator::first_new_order`], reporting a failure of the store.
    pub fn try_first_new_order(&self, event: &Event) -> Result<bool, StoreError> {
        if !event.is_new_delivery_order() {
            return Ok(false);
        }
        let Some(id) = event.entity_id() else {
            return Ok(false);
        };
        let org = event.organization_id().unwrap_or("");
        self.try_first_seen_str(&format!("new-order:{org}|{id}"))
    }

    /// [`Deduplicator::first_seen`] for a key.
    pub fn first_seen_key(&self, key: &EventKey) -> bool {
        self.try_first_seen_str(&format!("event:{}", key.as_str()))
            .unwrap_or_else(|e| {
                log::warn!("de-duplication store failed, treating the event as new: {e}");
                true
            })
    }

    fn try_first_seen_str(&self, key: &str) -> Result<bool, StoreError> {
        if let Some(store) = &self.store {
            return store.first_seen(key, self.max_age);
        }
        Ok(self.first_seen_local(key))
    }

    fn first_seen_local(&self, key: &str) -> bool {
        let digest = self.hashers.digest(key);
        let now = self.clock.now();
        let mut state = self.lock();
        self.expire(&mut state, now);
        if state.seen.contains_key(&digest) {
            return false;
        }
        while state.seen.len() >= self.capacity && !state.order.is_empty() {
            state.pop_front();
        }
        if state.order.len() >= self.capacity.saturating_mul(2) {
            // Many forgotten entries: drop them so the queue stays bounded.
            let DedupState { seen, order, .. } = &mut *state;
            order.retain(|e| seen.get(&e.digest) == Some(&e.seq));
        }
        let seq = state.next_seq;
        state.next_seq = seq.wrapping_add(1);
        state.seen.insert(digest, seq);
        state.order.push_back(Entry {
            digest,
            at: now,
            seq,
        });
        true
    }

    /// Forgets an event, so that its next delivery counts as new (e.g. when
    /// handling it failed and a resend should be processed).
    pub fn forget(&self, event: &Event) {
        self.forget_key(&event.dedup_key());
    }

    /// [`Deduplicator::forget`] for a key.
    pub fn forget_key(&self, key: &EventKey) {
        let key = format!("event:{}", key.as_str());
        if let Some(store) = &self.store {
            if let Err(e) = store.forget(&key) {
                log::warn!("de-duplication store: cannot forget a key: {e}");
            }
            return;
        }
        let digest = self.hashers.digest(&key);
        // The queue entry stays, dead, until it reaches the front.
        self.lock().seen.remove(&digest);
    }

    /// Number of events currently remembered in memory (0 with a store,
    /// which bounds itself by expiry).
    pub fn len(&self) -> usize {
        self.lock().seen.len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets everything kept in memory (a store is left alone).
    pub fn clear(&self) {
        let mut state = self.lock();
        state.seen.clear();
        state.order.clear();
    }

    fn lock(&self) -> MutexGuard<'_, DedupState> {
        // No code that can panic runs while the state is half-updated, so a
        // poisoned lock still guards consistent data.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn expire(&self, state: &mut DedupState, now: SystemTime) {
        while let Some(front) = state.order.front() {
            let young = now.duration_since(front.at).unwrap_or(Duration::ZERO) < self.max_age;
            if young && state.is_live(front) {
                break;
            }
            state.pop_front();
        }
    }
}
