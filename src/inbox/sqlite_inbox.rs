//! The inbox in a SQLite file: WAL mode, every commit synced (FULL), so an
//! event answered `200` survives a crash of the process and of the machine.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::{dead_reason, DeadLetter, Delivery, InboxBackend, InboxCounts, InboxOptions};
use crate::store::sqlite::{open_connection, retry_busy, sql_error};
use crate::store::{now_ms, ttl_ms, StoreError};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS iiko_inbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    body TEXT NOT NULL,
    received_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    visible_ms INTEGER NOT NULL,
    last_error TEXT
);
CREATE INDEX IF NOT EXISTS iiko_inbox_visible ON iiko_inbox (visible_ms, id);
CREATE TABLE IF NOT EXISTS iiko_inbox_seen (key TEXT PRIMARY KEY, expires_ms INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS iiko_inbox_dead (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    reason TEXT NOT NULL,
    dead_ms INTEGER NOT NULL
);
";

pub(crate) struct SqliteInbox {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl SqliteInbox {
    pub(crate) fn open(path: &Path) -> Result<SqliteInbox, StoreError> {
        let conn = open_connection(path, true)?;
        retry_busy(path, || conn.execute_batch(SCHEMA))?;
        Ok(SqliteInbox {
            path: path.to_owned(),
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // rusqlite rolls back an unfinished transaction on drop, so a
        // poisoned lock still holds a consistent connection.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        sql_error(&self.path, e)
    }
}

impl InboxBackend for SqliteInbox {
    fn push(&self, events: &[(String, String)], dedup_ttl: Duration) -> Result<usize, StoreError> {
        let now = now_ms();
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let mut written = 0;
        {
            let mut mark = tx
                .prepare_cached(
                    "INSERT INTO iiko_inbox_seen (key, expires_ms) VALUES (?1, ?2)
                     ON CONFLICT(key) DO UPDATE SET expires_ms = excluded.expires_ms
                     WHERE iiko_inbox_seen.expires_ms <= ?3",
                )
                .map_err(|e| self.err(e))?;
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO iiko_inbox (key, body, received_ms, visible_ms) VALUES (?1, ?2, ?3, ?3)",
                )
                .map_err(|e| self.err(e))?;
            for (key, body) in events {
                let new = mark
                    .execute(params![key, now.saturating_add(ttl_ms(dedup_ttl)), now])
                    .map_err(|e| self.err(e))?;
                if new == 1 {
                    insert
                        .execute(params![key, body, now])
                        .map_err(|e| self.err(e))?;
                    written += 1;
                }
            }
            // Bounded storage: drop expired keys now and then.
            if fastrand::u32(..256) == 0 {
                tx.execute(
                    "DELETE FROM iiko_inbox_seen WHERE expires_ms <= ?1",
                    params![now],
                )
                .map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(written)
    }

    fn dead_letter(&self, key: &str, body: &str, reason: &str) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO iiko_inbox_dead (key, body, attempts, reason, dead_ms) VALUES (?1, ?2, 0, ?3, ?4)",
                params![key, body, reason, now_ms()],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    fn take(&self, options: &InboxOptions) -> Result<Option<Delivery>, StoreError> {
        let now = now_ms();
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let found = loop {
            let row = tx
                .query_row(
                    "SELECT id, key, body, received_ms, attempts, last_error FROM iiko_inbox
                     WHERE visible_ms <= ?1 ORDER BY visible_ms, id LIMIT 1",
                    params![now],
                    |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, i64>(3)?,
                            r.get::<_, u32>(4)?,
                            r.get::<_, Option<String>>(5)?,
                        ))
                    },
                )
                .optional()
                .map_err(|e| self.err(e))?;
            let Some((id, key, body, received_ms, attempts, last_error)) = row else {
                break None;
            };
            if attempts >= options.max_attempts {
                tx.execute(
                    "INSERT INTO iiko_inbox_dead (key, body, attempts, reason, dead_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![key, body, attempts, dead_reason(attempts, last_error.as_deref()), now],
                )
                .map_err(|e| self.err(e))?;
                tx.execute("DELETE FROM iiko_inbox WHERE id = ?1", params![id])
                    .map_err(|e| self.err(e))?;
                continue;
            }
            tx.execute(
                "UPDATE iiko_inbox SET attempts = attempts + 1, visible_ms = ?2 WHERE id = ?1",
                params![id, now.saturating_add(ttl_ms(options.visibility_timeout))],
            )
            .map_err(|e| self.err(e))?;
            break Some(Delivery {
                id: id.to_string(),
                attempt: attempts + 1,
                key,
                body,
                received_at_ms: received_ms,
            });
        };
        tx.commit().map_err(|e| self.err(e))?;
        Ok(found)
    }

    fn ack(&self, delivery: &Delivery) -> Result<bool, StoreError> {
        let n = self
            .conn()
            .execute(
                "DELETE FROM iiko_inbox WHERE id = ?1 AND attempts = ?2",
                params![delivery.id, delivery.attempt],
            )
            .map_err(|e| self.err(e))?;
        Ok(n == 1)
    }

    fn release(&self, delivery: &Delivery, reason: &str) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "UPDATE iiko_inbox SET visible_ms = ?3, last_error = ?4 WHERE id = ?1 AND attempts = ?2",
                params![delivery.id, delivery.attempt, now_ms(), reason],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    fn dead_letters(&self, limit: usize) -> Result<Vec<DeadLetter>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT id, key, body, attempts, reason FROM iiko_inbox_dead ORDER BY id LIMIT ?1",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                Ok(DeadLetter {
                    id: r.get::<_, i64>(0)?.to_string(),
                    key: r.get(1)?,
                    body: r.get(2)?,
                    attempts: r.get(3)?,
                    reason: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    fn counts(&self) -> Result<InboxCounts, StoreError> {
        let conn = self.conn();
        let count = |table: &str| -> Result<u64, StoreError> {
            conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.err(e))
        };
        Ok(InboxCounts {
            pending: count("iiko_inbox")?,
            dead: count("iiko_inbox_dead")?,
        })
    }

    fn oldest_received_ms(&self) -> Result<Option<i64>, StoreError> {
        self.conn()
            .query_row("SELECT MIN(received_ms) FROM iiko_inbox", [], |r| {
                r.get::<_, Option<i64>>(0)
            })
            .map_err(|e| self.err(e))
    }
}
