//! Shared state for receivers and clients that run as several processes or on
//! several machines: de-duplication keys, ordering positions and the token.
//!
//! A [`Store`] is opened from a URL:
//!
//! | URL | where the state lives | shared by |
//! |---|---|---|
//! | `memory:` | this process's memory (the default everywhere) | the threads of one process |
//! | `sqlite:///var/lib/app/iiko.db` | one SQLite file (WAL mode) | the processes of one machine; survives restarts |
//! | `redis://[:password@]host:port/db` (or `rediss://`) | a Redis server | every machine that reaches it |
//!
//! Every operation is atomic across everything sharing the store:
//!
//! * [`Store::first_seen`]: exactly one caller sees `true` for a key until the
//!   key expires, so storage stays bounded.
//! * [`Store::advance`]: a position (e.g. an order's `eventInfo.timestamp`)
//!   only ever moves forward.
//! * the token (through [`ClientBuilder::token_store`](crate::ClientBuilder::token_store)):
//!   one token request per credential set at a time, the others wait and use
//!   its result; a token the service refused (401) is dropped for all. The
//!   token is stored under a SHA-256 of the base URL and credentials, so no
//!   credential is in the store, only the token itself.
//!
//! A `Store` is a cheap handle: clone it to share one connection between the
//! de-duplicator, the ordering guard and the client.
//!
//! ```
//! use std::time::Duration;
//! use iikocloud::store::{Advance, Store};
//!
//! let store = Store::open("memory:")?;
//! let day = Duration::from_secs(24 * 3600);
//! assert!(store.first_seen("event-1", day)?);
//! assert!(!store.first_seen("event-1", day)?);
//! assert_eq!(store.advance("order-1", 10, day)?, Advance::Moved);
//! assert_eq!(store.advance("order-1", 9, day)?, Advance::Stale { current: 10 });
//! # Ok::<(), iikocloud::store::StoreError>(())
//! ```

mod memory;
#[cfg(feature = "redis")]
pub(crate) mod redis_store;
#[cfg(feature = "sqlite")]
pub(crate) mod sqlite;
pub(crate) mod url;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use url::StoreUrl;

/// Why a store operation failed. Never contains a password or token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The URL cannot be used (the message names the problem, with any
    /// password removed).
    #[error("store URL {url}: {reason}")]
    BadUrl {
        /// The URL without its password.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A setting of the store or inbox is outside its limit
    /// ([`crate::limits`]); the message names the limit.
    #[error("{0}")]
    BadOption(String),
    /// The URL names a backend this build does not include.
    #[error("store URL {url}: this build has no {feature} support (cargo feature `{feature}`)")]
    NotCompiled {
        /// The URL without its password.
        url: String,
        /// The missing cargo feature.
        feature: &'static str,
    },
    /// The backend failed (connection lost, disk full, server error).
    #[error("{backend} store {target}: {message}")]
    Backend {
        /// `"SQLite"` or `"Redis"`.
        backend: &'static str,
        /// The file or `host:port/db`.
        target: String,
        /// What went wrong.
        message: String,
    },
    /// Waiting for another process (e.g. the one fetching the token) took
    /// longer than allowed.
    #[error("store {target}: {what} did not finish within {waited:?}")]
    Timeout {
        /// The file or `host:port/db`.
        target: String,
        /// What was waited for.
        what: &'static str,
        /// How long.
        waited: Duration,
    },
}

/// What [`Store::advance`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The position was absent, expired or lower: it is now the given one.
    Moved,
    /// The stored position is equal or higher; nothing changed.
    Stale {
        /// The stored position.
        current: i64,
    },
}

/// The operations every backend implements atomically.
pub(crate) trait Backend: Send + Sync {
    fn first_seen(&self, key: &str, ttl: Duration) -> Result<bool, StoreError>;
    fn is_seen(&self, key: &str) -> Result<bool, StoreError>;
    fn forget(&self, key: &str) -> Result<(), StoreError>;
    fn advance(&self, key: &str, position: i64, ttl: Duration) -> Result<Advance, StoreError>;
    fn position(&self, key: &str) -> Result<Option<i64>, StoreError>;
    fn get_value(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    fn put_value(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), StoreError>;
    /// Deletes the value only if it still equals `expected`.
    fn delete_value_if(&self, key: &str, expected: &[u8]) -> Result<(), StoreError>;
    /// Takes the lock `key` for `owner` unless someone else holds it
    /// unexpired; an expired lock (its holder died) is taken over.
    fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StoreError>;
    fn unlock(&self, key: &str, owner: &str) -> Result<(), StoreError>;
}

/// A handle on shared state; see the [module documentation](self).
///
/// Cheap to clone (clones share one connection) and thread-safe.
#[derive(Clone)]
pub struct Store {
    backend: Arc<dyn Backend>,
    url: StoreUrl,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("url", &self.url).finish()
    }
}

impl Default for Store {
    fn default() -> Self {
        Store::memory()
    }
}

/// The value for the backend a parsed URL names: each arm's expression with
/// the URL's path or Redis target bound, and [`StoreError::NotCompiled`] (from
/// the enclosing function) for a backend this build leaves out. The one
/// dispatch of the shared stores and the inbox.
macro_rules! by_backend {
    ($url:expr,
     memory => $memory:expr,
     sqlite($path:ident) => $sqlite:expr,
     redis($target:ident) => $redis:expr $(,)?) => {
        match $url {
            StoreUrl::Memory => $memory,
            #[cfg(feature = "sqlite")]
            StoreUrl::Sqlite($path) => $sqlite,
            #[cfg(feature = "redis")]
            StoreUrl::Redis($target) => $redis,
            #[allow(unreachable_patterns)]
            other => {
                return Err(StoreError::NotCompiled {
                    url: other.to_string(),
                    feature: match other {
                        StoreUrl::Redis(_) => "redis",
                        _ => "sqlite",
                    },
                })
            }
        }
    };
}
pub(crate) use by_backend;

impl Store {
    /// Opens the store a URL names: `memory:`, `sqlite:///path` (created if
    /// missing, readable by its owner only: mode 0600, on Windows a DACL for
    /// the user alone) or `redis://[:password@]host[:port][/db]`.
    ///
    /// A malformed URL, an unknown scheme or a backend that cannot be reached
    /// is an error here, not at the first use.
    pub fn open(url: &str) -> Result<Store, StoreError> {
        let parsed = StoreUrl::parse(url)?;
        let backend: Arc<dyn Backend> = by_backend!(&parsed,
            memory => Arc::new(memory::MemoryBackend::default()),
            sqlite(path) => Arc::new(sqlite::SqliteBackend::open(path)?),
            redis(r) => Arc::new(redis_store::RedisBackend::open(r)?),
        );
        Ok(Store {
            backend,
            url: parsed,
        })
    }

    /// A store in this process's memory.
    pub fn memory() -> Store {
        Store {
            backend: Arc::new(memory::MemoryBackend::default()),
            url: StoreUrl::Memory,
        }
    }

    /// The URL the store was opened with, without its password.
    pub fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// Whether the state is only in this process (`memory:`).
    pub fn is_memory(&self) -> bool {
        matches!(self.url, StoreUrl::Memory)
    }

    /// `true` for exactly one caller per `key` (across every process sharing
    /// the store) until the key expires `ttl` after that call; `false` for
    /// everyone else.
    pub fn first_seen(&self, key: &str, ttl: Duration) -> Result<bool, StoreError> {
        self.backend.first_seen(key, ttl)
    }

    /// Whether `key` was marked by [`first_seen`](Self::first_seen) and has
    /// not expired; marks nothing.
    pub fn is_seen(&self, key: &str) -> Result<bool, StoreError> {
        self.backend.is_seen(key)
    }

    /// Forgets a key, so the next [`first_seen`](Self::first_seen) is `true`
    /// again (e.g. when handling the event failed and a resend should count).
    pub fn forget(&self, key: &str) -> Result<(), StoreError> {
        self.backend.forget(key)
    }

    /// Moves the position of `key` to `position` if it is higher than the
    /// stored one (or there is none, or it expired), in one atomic step; the
    /// position then lives `ttl`. An equal position is
    /// [`Stale`](Advance::Stale): it is the same version again. On Redis,
    /// positions are compared as Lua numbers, exact up to 2^53 (millisecond
    /// timestamps are far below).
    pub fn advance(&self, key: &str, position: i64, ttl: Duration) -> Result<Advance, StoreError> {
        self.backend.advance(key, position, ttl)
    }

    /// The stored position of `key`, if any.
    pub fn position(&self, key: &str) -> Result<Option<i64>, StoreError> {
        self.backend.position(key)
    }

    /// Takes a lock held until [`StoreLock::release`] or drop, or until `ttl`
    /// passes (so a holder that dies does not block the others for ever).
    /// `None` if someone else holds it.
    pub fn try_lock(&self, key: &str, ttl: Duration) -> Result<Option<StoreLock>, StoreError> {
        let owner = format!(
            "{}-{}-{:016x}",
            std::process::id(),
            now_ms(),
            fastrand::u64(..)
        );
        Ok(self.backend.try_lock(key, &owner, ttl)?.then(|| StoreLock {
            store: self.clone(),
            key: key.to_owned(),
            owner,
            released: false,
        }))
    }

    pub(crate) fn backend(&self) -> &dyn Backend {
        &*self.backend
    }
}

/// A lock taken with [`Store::try_lock`]; released on drop.
pub struct StoreLock {
    store: Store,
    key: String,
    owner: String,
    released: bool,
}

impl fmt::Debug for StoreLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreLock").field("key", &self.key).finish()
    }
}

impl StoreLock {
    /// Releases the lock now, reporting a failure (drop ignores it; the lock
    /// then expires on its own).
    pub fn release(mut self) -> Result<(), StoreError> {
        self.released = true;
        self.store.backend.unlock(&self.key, &self.owner)
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        if !self.released {
            if let Err(e) = self.store.backend.unlock(&self.key, &self.owner) {
                log::warn!("cannot release a store lock ({e}); it expires on its own");
            }
        }
    }
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A TTL in whole milliseconds, at least 1 (0 would mean "no expiry" to Redis).
pub(crate) fn ttl_ms(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn exercise(store: &Store) {
        let tag = format!("t{}", fastrand::u64(..));
        let k = |s: &str| format!("{tag}:{s}");
        let long = Duration::from_secs(60);
        assert!(store.first_seen(&k("a"), long).unwrap());
        assert!(!store.first_seen(&k("a"), long).unwrap());
        assert!(store.is_seen(&k("a")).unwrap());
        assert!(!store.is_seen(&k("b")).unwrap());
        store.forget(&k("a")).unwrap();
        assert!(store.first_seen(&k("a"), long).unwrap());
        assert!(store
            .first_seen(&k("short"), Duration::from_millis(30))
            .unwrap());
        std::thread::sleep(Duration::from_millis(60));
        assert!(store.first_seen(&k("short"), long).unwrap(), "expired");

        assert_eq!(store.position(&k("p")).unwrap(), None);
        assert_eq!(store.advance(&k("p"), 5, long).unwrap(), Advance::Moved);
        assert_eq!(
            store.advance(&k("p"), 5, long).unwrap(),
            Advance::Stale { current: 5 }
        );
        assert_eq!(
            store.advance(&k("p"), -3, long).unwrap(),
            Advance::Stale { current: 5 }
        );
        assert_eq!(
            store.advance(&k("p"), 1_758_038_531_877, long).unwrap(),
            Advance::Moved
        );
        assert_eq!(store.position(&k("p")).unwrap(), Some(1_758_038_531_877));

        let l = store.try_lock(&k("l"), long).unwrap().expect("free lock");
        assert!(store.try_lock(&k("l"), long).unwrap().is_none());
        l.release().unwrap();
        let l2 = store.try_lock(&k("l"), Duration::from_millis(30)).unwrap();
        assert!(l2.is_some());
        std::thread::sleep(Duration::from_millis(60));
        assert!(
            store.try_lock(&k("l"), long).unwrap().is_some(),
            "expired lock is taken over"
        );
        drop(l2); // releasing someone else's lock must not free it

        let b = store.backend();
        assert_eq!(b.get_value(&k("v")).unwrap(), None);
        b.put_value(&k("v"), b"one", long).unwrap();
        assert_eq!(b.get_value(&k("v")).unwrap().as_deref(), Some(&b"one"[..]));
        b.delete_value_if(&k("v"), b"two").unwrap();
        assert!(b.get_value(&k("v")).unwrap().is_some());
        b.delete_value_if(&k("v"), b"one").unwrap();
        assert!(b.get_value(&k("v")).unwrap().is_none());
    }

    #[test]
    fn memory_store_semantics() {
        exercise(&Store::memory());
        exercise(&Store::open("memory:").unwrap());
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn sqlite_store_semantics() {
        let dir = std::env::temp_dir().join(format!("iiko-store-{}", fastrand::u64(..)));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}/s.db", dir.display());
        exercise(&Store::open(&url).unwrap());
        // A second handle (as another process would) sees the same state.
        let a = Store::open(&url).unwrap();
        let b = Store::open(&url).unwrap();
        assert!(a.first_seen("shared", Duration::from_secs(60)).unwrap());
        assert!(!b.first_seen("shared", Duration::from_secs(60)).unwrap());
        crate::owner_only::assert_owner_only(&dir.join("s.db"));
        // The WAL holds the same rows: as private as the file (SQLite copies
        // the mode on Unix; on Windows the store creates them so).
        crate::owner_only::assert_owner_only(&dir.join("s.db-wal"));
        crate::owner_only::assert_owner_only(&dir.join("s.db-shm"));
        drop((a, b));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(feature = "redis")]
    #[test]
    #[ignore = "needs a redis-server at IIKO_TEST_REDIS_URL; scripts/test.sh starts one and runs these with --ignored"]
    fn redis_store_semantics() {
        let url = crate::test_redis_url();
        exercise(&Store::open(&url).expect("IIKO_TEST_REDIS_URL is set but unreachable"));
    }

    #[test]
    fn bad_urls_are_clear_and_hide_passwords() {
        for (url, needle) in [
            ("", "empty"),
            ("mysql://x", "scheme"),
            ("sqlite://", "path"),
            ("sqlite://relative.db", "absolute"),
            ("redis://:hunter2@", "host"),
            ("redis://:hunter2@h:99999/0", "port"),
            ("redis://:hunter2@h:6379/x", "database"),
            ("memory:x", "memory:"),
        ] {
            let e = Store::open(url).unwrap_err().to_string();
            assert!(e.contains(needle), "{url}: {e}");
            assert!(!e.contains("hunter2"), "{e}");
        }
        #[cfg(feature = "redis")]
        {
            // Unreachable server: an error at open, without the password.
            let e = Store::open("redis://u:hunter2@127.0.0.1:1/0").unwrap_err();
            assert!(!e.to_string().contains("hunter2"), "{e}");
            assert!(!format!("{e:?}").contains("hunter2"), "{e:?}");
        }
        let u = StoreUrl::parse("redis://u:hunter2@h:1/2").unwrap();
        assert!(!format!("{u:?} {u}").contains("hunter2"));
    }

    /// Absolute paths as each system writes them; the URL a store prints
    /// parses back to the same file.
    #[test]
    fn sqlite_paths_of_this_system() {
        let sqlite = |url: &str| match StoreUrl::parse(url) {
            Ok(StoreUrl::Sqlite(p)) => Ok(p),
            Ok(other) => panic!("{url}: {other}"),
            Err(e) => Err(e.to_string()),
        };
        #[cfg(not(windows))]
        let (good, bad) = (
            [("sqlite:///var/lib/app/iiko.db", "/var/lib/app/iiko.db")],
            ["sqlite://C:/app/iiko.db", "sqlite:///var/lib/"],
        );
        #[cfg(windows)]
        let (good, bad) = (
            [
                (
                    "sqlite:///C:/ProgramData/app/iiko.db",
                    r"C:/ProgramData/app/iiko.db",
                ),
                (
                    r"sqlite://C:\ProgramData\app\iiko.db",
                    r"C:\ProgramData\app\iiko.db",
                ),
                (r"sqlite://d:\iiko.db", r"d:\iiko.db"),
                (
                    r"sqlite://\\server\share\iiko.db",
                    r"\\server\share\iiko.db",
                ),
            ],
            [
                "sqlite:///var/lib/app/iiko.db", // no drive: relative to the current one
                "sqlite://C:iiko.db",            // relative to C:'s current directory
                r"sqlite://C:\app\",
            ],
        );
        for (url, file) in good {
            let path = sqlite(url).unwrap();
            assert_eq!(path, std::path::PathBuf::from(file), "{url}");
            let printed = StoreUrl::Sqlite(path.clone()).to_string();
            assert_eq!(sqlite(&printed).unwrap(), path, "{printed}");
        }
        for url in bad {
            assert!(sqlite(url).is_err(), "{url} was accepted");
        }
    }
}
