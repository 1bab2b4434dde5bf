//! `sqlite:///path`: one file shared by the processes of a machine.
//!
//! WAL mode lets readers run beside the one writer; every read-modify-write
//! is a single statement or an `IMMEDIATE` transaction, so SQLite's write lock
//! makes it atomic across processes. A busy file is waited for (busy timeout),
//! not reported.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::{now_ms, ttl_ms, Advance, Backend, StoreError};

/// How long a statement waits for another process's write lock.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) fn sql_error(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend {
        backend: "SQLite",
        target: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Opens (creating it readable by its owner only) a SQLite file in WAL mode
/// with a busy timeout. `synchronous=FULL` makes each commit durable against
/// power loss, not only against a crash of the process.
pub(crate) fn open_connection(path: &Path, full_sync: bool) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(sql_error(path, "the directory does not exist"));
        }
    }
    // Create the file private before SQLite does (it would use mode 0644,
    // or on Windows the directory's ACL): it may hold a token. An existing
    // file keeps its permissions.
    let _ = crate::owner_only::open_file(path, crate::owner_only::Create::New);
    let conn = Connection::open(path).map_err(|e| sql_error(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sql_error(path, e))?;
    // The switch reads the file, which opens the WAL of a database already
    // in WAL mode; a new (empty) one gets its WAL at the next statement, and
    // SQLite would delete a WAL file found beside an empty database.
    #[cfg(windows)]
    if std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
        private_companions(path);
    }
    let mode: String = retry_busy(path, || {
        conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
    })?;
    #[cfg(windows)]
    private_companions(path);
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(sql_error(
            path,
            format!("cannot switch to WAL mode (got {mode}); is it on a network file system?"),
        ));
    }
    let sync = if full_sync { "FULL" } else { "NORMAL" };
    conn.execute_batch(&format!("PRAGMA synchronous={sync};"))
        .map_err(|e| sql_error(path, e))?;
    Ok(conn)
}

/// Runs a setup step (the switch to WAL, the schema) again while another
/// process holds the file: SQLite answers some of these "database is locked"
/// at once, without waiting out the busy timeout, when several processes
/// open a new file together.
pub(crate) fn retry_busy<T>(
    path: &Path,
    mut step: impl FnMut() -> rusqlite::Result<T>,
) -> Result<T, StoreError> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match step() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5 + fastrand::u64(..20)));
            }
            other => return other.map_err(|e| sql_error(path, e)),
        }
    }
}

/// SQLite on Unix gives the `-wal` and `-shm` files (which hold the same
/// data) the database file's mode; on Windows they would inherit the
/// directory's ACL. So when the database is private to this user (as one
/// created here is), they are created first, empty and as private; SQLite
/// then uses them as they are. Failures are left to SQLite's own open.
#[cfg(windows)]
fn private_companions(path: &Path) {
    for suffix in ["-wal", "-shm"] {
        let mut companion = path.as_os_str().to_owned();
        companion.push(suffix);
        if let Err(e) = crate::owner_only::create_private_like(path, Path::new(&companion)) {
            log::debug!("{}{suffix}: {e}", path.display());
        }
    }
}

pub(crate) struct SqliteBackend {
    path: PathBuf,
    conn: Mutex<Connection>,
    writes: AtomicU64,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS iiko_seen (key TEXT PRIMARY KEY, expires_ms INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS iiko_positions (key TEXT PRIMARY KEY, position INTEGER NOT NULL, expires_ms INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS iiko_values (key TEXT PRIMARY KEY, value BLOB NOT NULL, expires_ms INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS iiko_locks (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_ms INTEGER NOT NULL) WITHOUT ROWID;
";

impl SqliteBackend {
    pub(crate) fn open(path: &Path) -> Result<SqliteBackend, StoreError> {
        let conn = open_connection(path, false)?;
        retry_busy(path, || conn.execute_batch(SCHEMA))?;
        Ok(SqliteBackend {
            path: path.to_owned(),
            conn: Mutex::new(conn),
            writes: AtomicU64::new(0),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic inside rusqlite leaves no half-done transaction behind (it
        // rolls back on drop), so a poisoned lock is still usable.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        sql_error(&self.path, e)
    }

    /// Every 1024 writes of this handle, deletes expired rows so the file
    /// stays bounded.
    fn sweep(&self, conn: &Connection, now: i64) {
        if self.writes.fetch_add(1, Ordering::Relaxed) % 1024 != 1023 {
            return;
        }
        for table in ["iiko_seen", "iiko_positions", "iiko_values", "iiko_locks"] {
            if let Err(e) = conn.execute(
                &format!("DELETE FROM {table} WHERE expires_ms <= ?1"),
                params![now],
            ) {
                log::warn!("{}: cannot delete expired rows: {e}", self.path.display());
            }
        }
    }
}

impl Backend for SqliteBackend {
    fn first_seen(&self, key: &str, ttl: Duration) -> Result<bool, StoreError> {
        let now = now_ms();
        let conn = self.conn();
        // One statement: inserted, or replaced an expired row, or nothing.
        let changed = conn
            .execute(
                "INSERT INTO iiko_seen (key, expires_ms) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET expires_ms = excluded.expires_ms
                 WHERE iiko_seen.expires_ms <= ?3",
                params![key, now.saturating_add(ttl_ms(ttl)), now],
            )
            .map_err(|e| self.err(e))?;
        self.sweep(&conn, now);
        Ok(changed == 1)
    }

    fn is_seen(&self, key: &str) -> Result<bool, StoreError> {
        self.conn()
            .query_row(
                "SELECT 1 FROM iiko_seen WHERE key = ?1 AND expires_ms > ?2",
                params![key, now_ms()],
                |_| Ok(()),
            )
            .optional()
            .map(|r| r.is_some())
            .map_err(|e| self.err(e))
    }

    fn forget(&self, key: &str) -> Result<(), StoreError> {
        self.conn()
            .execute("DELETE FROM iiko_seen WHERE key = ?1", params![key])
            .map(drop)
            .map_err(|e| self.err(e))
    }

    fn advance(&self, key: &str, position: i64, ttl: Duration) -> Result<Advance, StoreError> {
        let now = now_ms();
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let current: Option<i64> = tx
            .query_row(
                "SELECT position FROM iiko_positions WHERE key = ?1 AND expires_ms > ?2",
                params![key, now],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        if let Some(current) = current.filter(|c| *c >= position) {
            return Ok(Advance::Stale { current });
        }
        tx.execute(
            "INSERT OR REPLACE INTO iiko_positions (key, position, expires_ms) VALUES (?1, ?2, ?3)",
            params![key, position, now.saturating_add(ttl_ms(ttl))],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        self.sweep(&conn, now);
        Ok(Advance::Moved)
    }

    fn position(&self, key: &str) -> Result<Option<i64>, StoreError> {
        self.conn()
            .query_row(
                "SELECT position FROM iiko_positions WHERE key = ?1 AND expires_ms > ?2",
                params![key, now_ms()],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    fn get_value(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn()
            .query_row(
                "SELECT value FROM iiko_values WHERE key = ?1 AND expires_ms > ?2",
                params![key, now_ms()],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    fn put_value(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), StoreError> {
        let now = now_ms();
        let conn = self.conn();
        conn.execute(
            "INSERT OR REPLACE INTO iiko_values (key, value, expires_ms) VALUES (?1, ?2, ?3)",
            params![key, value, now.saturating_add(ttl_ms(ttl))],
        )
        .map_err(|e| self.err(e))?;
        self.sweep(&conn, now);
        Ok(())
    }

    fn delete_value_if(&self, key: &str, expected: &[u8]) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "DELETE FROM iiko_values WHERE key = ?1 AND value = ?2",
                params![key, expected],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StoreError> {
        let now = now_ms();
        let changed = self
            .conn()
            .execute(
                "INSERT INTO iiko_locks (key, owner, expires_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, expires_ms = excluded.expires_ms
                 WHERE iiko_locks.expires_ms <= ?4",
                params![key, owner, now.saturating_add(ttl_ms(ttl)), now],
            )
            .map_err(|e| self.err(e))?;
        Ok(changed == 1)
    }

    fn unlock(&self, key: &str, owner: &str) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "DELETE FROM iiko_locks WHERE key = ?1 AND owner = ?2",
                params![key, owner],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }
}
