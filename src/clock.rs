//! Time sources, injectable so tests can move time forward.

use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

/// A source of the current time, injectable so tests can move time forward.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current wall-clock time.
    fn now(&self) -> SystemTime;
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that moves only when told to, for tests.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<SystemTime>,
}

impl ManualClock {
    /// A clock standing at the current system time.
    pub fn new() -> ManualClock {
        ManualClock {
            now: Mutex::new(SystemTime::now()),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now = now.checked_add(by).unwrap_or(*now);
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
