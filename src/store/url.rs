//! Store and inbox URLs: parsed once, printed without passwords.

use std::fmt;
use std::path::PathBuf;

use super::StoreError;
use crate::Secret;

/// A parsed store or inbox URL. `Debug` and `Display` never show a password.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreUrl {
    /// `memory:`
    Memory,
    /// `sqlite:///absolute/path`
    Sqlite(PathBuf),
    /// `redis://` or `rediss://`
    Redis(RedisTarget),
}

/// Where a Redis server is; see [`StoreUrl`].
#[derive(Clone, PartialEq, Eq)]
pub struct RedisTarget {
    /// The whole URL, password included, for the connection only.
    pub(crate) full: Secret,
    /// `rediss://` (TLS).
    pub tls: bool,
    /// Host name or address.
    pub host: String,
    /// Port (6379 when not given).
    pub port: u16,
    /// Database number (0 when not given).
    pub db: i64,
}

impl fmt::Display for RedisTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "rediss" } else { "redis" };
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        write!(f, "{scheme}://{host}:{}/{}", self.port, self.db)
    }
}

impl fmt::Debug for RedisTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RedisTarget({self})")
    }
}

impl fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreUrl::Memory => f.write_str("memory:"),
            StoreUrl::Sqlite(p) => write!(f, "sqlite://{}", p.display()),
            StoreUrl::Redis(r) => r.fmt(f),
        }
    }
}

impl fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreUrl({self})")
    }
}

/// The URL for error messages: scheme, host and path, never the user part.
fn redacted(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            let userinfo = if authority.contains('@') { "***@" } else { "" };
            format!("{scheme}://{userinfo}{host}{path}")
        }
        None => url.chars().take(64).collect(),
    }
}

#[cfg(not(windows))]
const NOT_ABSOLUTE: &str =
    "the path must be absolute (three slashes: sqlite:///var/lib/app/iiko.db)";
#[cfg(windows)]
const NOT_ABSOLUTE: &str = "the path must be absolute, with its drive \
     (sqlite:///C:/ProgramData/app/iiko.db or sqlite://C:\\ProgramData\\app\\iiko.db)";

/// The file a `sqlite://` URL names, when its path is absolute: on Unix
/// `/var/lib/app/iiko.db`; on Windows `C:\ProgramData\app\iiko.db` (or
/// `\\server\share\iiko.db`), or, as file URLs write a drive,
/// `/C:/ProgramData/app/iiko.db`.
fn sqlite_file(path: &str) -> Option<PathBuf> {
    #[cfg(windows)]
    let path = match path.as_bytes() {
        [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => &path[1..],
        _ => path,
    };
    let file = PathBuf::from(path);
    file.is_absolute().then_some(file)
}

impl StoreUrl {
    /// Parses `memory:`, `sqlite:///path` or `redis[s]://[user[:password]@]host[:port][/db]`.
    pub fn parse(url: &str) -> Result<StoreUrl, StoreError> {
        let bad = |reason: &str| StoreError::BadUrl {
            url: redacted(url),
            reason: reason.to_owned(),
        };
        let url_trimmed = url.trim();
        if url_trimmed.is_empty() {
            return Err(bad(
                "empty; use memory:, sqlite:///path or redis://host:port/db",
            ));
        }
        if url_trimmed == "memory:" || url_trimmed == "memory://" {
            return Ok(StoreUrl::Memory);
        }
        if url_trimmed.starts_with("memory:") {
            return Err(bad("a memory store takes no path; write memory:"));
        }
        if let Some(path) = url_trimmed.strip_prefix("sqlite://") {
            if path.is_empty() {
                return Err(bad("no path; write sqlite:///absolute/path.db"));
            }
            let Some(file) = sqlite_file(path) else {
                return Err(bad(NOT_ABSOLUTE));
            };
            if path.contains('?') || path.contains('#') {
                return Err(bad("a SQLite path takes no query or fragment"));
            }
            if path.ends_with('/') || (cfg!(windows) && path.ends_with('\\')) {
                return Err(bad("the path names a directory, not a file"));
            }
            return Ok(StoreUrl::Sqlite(file));
        }
        let (tls, rest) = if let Some(r) = url_trimmed.strip_prefix("redis://") {
            (false, r)
        } else if let Some(r) = url_trimmed.strip_prefix("rediss://") {
            (true, r)
        } else {
            return Err(bad(
                "unknown scheme; use memory:, sqlite:///path or redis://host:port/db",
            ));
        };
        if rest.contains('?') || rest.contains('#') {
            return Err(bad("a Redis URL takes no query or fragment"));
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            let (h, after) = v6
                .split_once(']')
                .ok_or_else(|| bad("unclosed [ in the host"))?;
            (h, after.strip_prefix(':'))
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            }
        };
        if host.is_empty() {
            return Err(bad("no host; write redis://host:port/db"));
        }
        let port = match port {
            None => 6379,
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| bad("the port must be a number from 1 to 65535"))?,
        };
        let db = match path.trim_start_matches('/') {
            "" => 0,
            d => d
                .parse::<i64>()
                .ok()
                .filter(|d| *d >= 0)
                .ok_or_else(|| bad("the database (the path) must be a number such as /0"))?,
        };
        Ok(StoreUrl::Redis(RedisTarget {
            full: Secret::new(url_trimmed),
            tls,
            host: host.to_owned(),
            port,
            db,
        }))
    }
}
