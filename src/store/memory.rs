//! `memory:`: the state of one process, behind one mutex.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::{now_ms, ttl_ms, Advance, Backend, StoreError};

#[derive(Default)]
pub(crate) struct MemoryBackend {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    seen: HashMap<String, i64>,
    positions: HashMap<String, (i64, i64)>,
    values: HashMap<String, (Vec<u8>, i64)>,
    locks: HashMap<String, (String, i64)>,
    ops: u64,
}

impl State {
    /// Every 1024 writes, drops what expired, so memory stays bounded by the
    /// keys written within their TTL.
    fn tick(&mut self, now: i64) {
        self.ops = self.ops.wrapping_add(1);
        if self.ops.is_multiple_of(1024) {
            self.seen.retain(|_, exp| *exp > now);
            self.positions.retain(|_, (_, exp)| *exp > now);
            self.values.retain(|_, (_, exp)| *exp > now);
            self.locks.retain(|_, (_, exp)| *exp > now);
        }
    }
}

impl MemoryBackend {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update is a single map operation: a poisoned lock guards
        // consistent data.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn expiry(now: i64, ttl: Duration) -> i64 {
    now.saturating_add(ttl_ms(ttl))
}

impl Backend for MemoryBackend {
    fn first_seen(&self, key: &str, ttl: Duration) -> Result<bool, StoreError> {
        let now = now_ms();
        let mut s = self.lock();
        s.tick(now);
        if s.seen.get(key).is_some_and(|exp| *exp > now) {
            return Ok(false);
        }
        s.seen.insert(key.to_owned(), expiry(now, ttl));
        Ok(true)
    }

    fn is_seen(&self, key: &str) -> Result<bool, StoreError> {
        let now = now_ms();
        Ok(self.lock().seen.get(key).is_some_and(|exp| *exp > now))
    }

    fn forget(&self, key: &str) -> Result<(), StoreError> {
        self.lock().seen.remove(key);
        Ok(())
    }

    fn advance(&self, key: &str, position: i64, ttl: Duration) -> Result<Advance, StoreError> {
        let now = now_ms();
        let mut s = self.lock();
        s.tick(now);
        if let Some((current, exp)) = s.positions.get(key) {
            if *exp > now && *current >= position {
                return Ok(Advance::Stale { current: *current });
            }
        }
        s.positions
            .insert(key.to_owned(), (position, expiry(now, ttl)));
        Ok(Advance::Moved)
    }

    fn position(&self, key: &str) -> Result<Option<i64>, StoreError> {
        let now = now_ms();
        Ok(self
            .lock()
            .positions
            .get(key)
            .filter(|(_, exp)| *exp > now)
            .map(|(p, _)| *p))
    }

    fn get_value(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let now = now_ms();
        Ok(self
            .lock()
            .values
            .get(key)
            .filter(|(_, exp)| *exp > now)
            .map(|(v, _)| v.clone()))
    }

    fn put_value(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), StoreError> {
        let now = now_ms();
        let mut s = self.lock();
        s.tick(now);
        s.values
            .insert(key.to_owned(), (value.to_vec(), expiry(now, ttl)));
        Ok(())
    }

    fn delete_value_if(&self, key: &str, expected: &[u8]) -> Result<(), StoreError> {
        let mut s = self.lock();
        if s.values.get(key).is_some_and(|(v, _)| v == expected) {
            s.values.remove(key);
        }
        Ok(())
    }

    fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StoreError> {
        let now = now_ms();
        let mut s = self.lock();
        s.tick(now);
        if s.locks.get(key).is_some_and(|(_, exp)| *exp > now) {
            return Ok(false);
        }
        s.locks
            .insert(key.to_owned(), (owner.to_owned(), expiry(now, ttl)));
        Ok(true)
    }

    fn unlock(&self, key: &str, owner: &str) -> Result<(), StoreError> {
        let mut s = self.lock();
        if s.locks.get(key).is_some_and(|(o, _)| o == owner) {
            s.locks.remove(key);
        }
        Ok(())
    }
}
