//! `redis://host:port/db`: state shared by every machine reaching the server.
//!
//! First-seen keys are `SET NX PX`, forward-only positions and owner-checked
//! deletes are Lua scripts (Redis runs a script atomically), locks are
//! `SET NX PX` with a random owner.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use redis::{Connection, RedisError, Script};

use super::url::RedisTarget;
use super::{ttl_ms, Advance, Backend, StoreError};

/// Connecting and each command give up after this long, so a dead server
/// makes calls fail instead of hang.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// One connection, reopened after a failure; shared by the threads of a
/// handle (each command holds it briefly).
pub(crate) struct RedisConn {
    client: redis::Client,
    target: String,
    conn: Mutex<Option<Connection>>,
}

impl RedisConn {
    pub(crate) fn open(target: &RedisTarget) -> Result<RedisConn, StoreError> {
        let client = redis::Client::open(target.full.expose()).map_err(|e| StoreError::BadUrl {
            url: target.to_string(),
            reason: scrub(&e, target),
        })?;
        let c = RedisConn {
            client,
            target: target.to_string(),
            conn: Mutex::new(None),
        };
        // Fail at open, not at the first event, when the server is wrong.
        c.with(|conn| redis::cmd("PING").query::<String>(conn))?;
        Ok(c)
    }

    pub(crate) fn error(&self, message: impl Into<String>) -> StoreError {
        StoreError::Backend {
            backend: "Redis",
            target: self.target.clone(),
            message: message.into(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Connection>> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the connection (opening it if needed). A failed command is
    /// not repeated, since it may have been applied; the connection is
    /// reopened for the next call.
    pub(crate) fn with<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, RedisError>,
    ) -> Result<T, StoreError> {
        let mut guard = self.lock();
        if guard.is_none() {
            let conn = self
                .client
                .get_connection_with_timeout(CONNECT_TIMEOUT)
                .map_err(|e| self.error(format!("cannot connect: {}", self.clean(&e))))?;
            conn.set_read_timeout(Some(IO_TIMEOUT))
                .and_then(|_| conn.set_write_timeout(Some(IO_TIMEOUT)))
                .map_err(|e| self.error(self.clean(&e)))?;
            *guard = Some(conn);
        }
        let Some(conn) = guard.as_mut() else {
            return Err(self.error("no connection"));
        };
        match f(conn) {
            Ok(v) => Ok(v),
            Err(e) => {
                if e.is_io_error()
                    || e.is_connection_dropped()
                    || e.is_connection_refusal()
                    || e.is_timeout()
                    || e.is_unrecoverable_error()
                {
                    *guard = None;
                }
                Err(self.error(self.clean(&e)))
            }
        }
    }

    fn clean(&self, e: &RedisError) -> String {
        let text = e.to_string();
        // The crate does not print URLs today; make sure no password leaks
        // if a future version does.
        if text.contains("://") {
            "connection error (details withheld: they contained the URL)".to_owned()
        } else {
            text
        }
    }
}

fn scrub(e: &RedisError, target: &RedisTarget) -> String {
    let text = e.to_string();
    if text.contains(target.full.expose()) || text.contains("://") {
        "invalid Redis URL".to_owned()
    } else {
        text
    }
}

pub(crate) struct RedisBackend {
    conn: RedisConn,
    advance: Script,
    delete_if: Script,
}

const PREFIX: &str = "iikocloud:";

fn k(kind: &str, key: &str) -> String {
    format!("{PREFIX}{kind}:{key}")
}

impl RedisBackend {
    pub(crate) fn open(target: &RedisTarget) -> Result<RedisBackend, StoreError> {
        Ok(RedisBackend {
            conn: RedisConn::open(target)?,
            advance: Script::new(
                r"local cur = redis.call('GET', KEYS[1])
                  if cur and tonumber(cur) >= tonumber(ARGV[1]) then return cur end
                  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
                  return false",
            ),
            delete_if: Script::new(
                r"if redis.call('GET', KEYS[1]) == ARGV[1] then
                    return redis.call('DEL', KEYS[1])
                  end
                  return 0",
            ),
        })
    }
}

impl Backend for RedisBackend {
    fn first_seen(&self, key: &str, ttl: Duration) -> Result<bool, StoreError> {
        let set: Option<String> = self.conn.with(|c| {
            redis::cmd("SET")
                .arg(k("seen", key))
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(ttl_ms(ttl))
                .query(c)
        })?;
        Ok(set.is_some())
    }

    fn is_seen(&self, key: &str) -> Result<bool, StoreError> {
        let n: i64 = self
            .conn
            .with(|c| redis::cmd("EXISTS").arg(k("seen", key)).query(c))?;
        Ok(n > 0)
    }

    fn forget(&self, key: &str) -> Result<(), StoreError> {
        self.conn
            .with(|c| redis::cmd("DEL").arg(k("seen", key)).query::<i64>(c))
            .map(drop)
    }

    fn advance(&self, key: &str, position: i64, ttl: Duration) -> Result<Advance, StoreError> {
        let current: Option<String> = self.conn.with(|c| {
            self.advance
                .key(k("pos", key))
                .arg(position)
                .arg(ttl_ms(ttl))
                .invoke(c)
        })?;
        match current {
            None => Ok(Advance::Moved),
            Some(text) => text
                .parse()
                .map(|current| Advance::Stale { current })
                .map_err(|_| {
                    self.conn
                        .error(format!("position of {key:?} is not a number"))
                }),
        }
    }

    fn position(&self, key: &str) -> Result<Option<i64>, StoreError> {
        let v: Option<String> = self
            .conn
            .with(|c| redis::cmd("GET").arg(k("pos", key)).query(c))?;
        v.map(|t| {
            t.parse().map_err(|_| {
                self.conn
                    .error(format!("position of {key:?} is not a number"))
            })
        })
        .transpose()
    }

    fn get_value(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn
            .with(|c| redis::cmd("GET").arg(k("val", key)).query(c))
    }

    fn put_value(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), StoreError> {
        self.conn.with(|c| {
            redis::cmd("SET")
                .arg(k("val", key))
                .arg(value)
                .arg("PX")
                .arg(ttl_ms(ttl))
                .query::<()>(c)
        })
    }

    fn delete_value_if(&self, key: &str, expected: &[u8]) -> Result<(), StoreError> {
        self.conn
            .with(|c| {
                self.delete_if
                    .key(k("val", key))
                    .arg(expected)
                    .invoke::<i64>(c)
            })
            .map(drop)
    }

    fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StoreError> {
        let set: Option<String> = self.conn.with(|c| {
            redis::cmd("SET")
                .arg(k("lock", key))
                .arg(owner)
                .arg("NX")
                .arg("PX")
                .arg(ttl_ms(ttl))
                .query(c)
        })?;
        Ok(set.is_some())
    }

    fn unlock(&self, key: &str, owner: &str) -> Result<(), StoreError> {
        self.conn
            .with(|c| {
                self.delete_if
                    .key(k("lock", key))
                    .arg(owner)
                    .invoke::<i64>(c)
            })
            .map(drop)
    }
}
