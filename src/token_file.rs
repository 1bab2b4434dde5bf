//! A token cache file shared by processes (PHP-FPM workers, gunicorn, cron
//! jobs): one token request for all of them instead of one per process.
//!
//! * The file name and its `key` field are a SHA-256 of the base URL and the
//!   credentials, so two credentials never share a token and no secret is
//!   stored in clear except the token itself.
//! * The file is written, readable by its owner only (mode 0600; on Windows
//!   a DACL naming only the user, see `owner_only`), to a temporary name and
//!   renamed over the old one, so readers see the old or the new file, never
//!   half of one.
//! * A refresh takes an exclusive lock on a `.lock` file beside it: processes
//!   that need a token at the same time wait for the one that fetches it.
//! * A file that is corrupt, truncated, for another key or expired is ignored
//!   (and replaced at the next fetch), never trusted.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::owner_only::{self, Create};
use crate::Secret;

const FORMAT_VERSION: u32 = 1;
/// A token file larger than this is not ours.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// Where the shared token of one client lives.
#[derive(Clone, Debug)]
pub(crate) struct TokenFile {
    path: PathBuf,
    lock_path: PathBuf,
    key: String,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    key: String,
    token: String,
    obtained_at_ms: u64,
    expires_at_ms: u64,
}

/// A token read from the file, with its times.
pub(crate) struct StoredToken {
    pub(crate) value: Secret,
    pub(crate) obtained_at: SystemTime,
    pub(crate) expires_at: SystemTime,
}

fn to_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn from_ms(ms: u64) -> Option<SystemTime> {
    UNIX_EPOCH.checked_add(Duration::from_millis(ms))
}

/// The identity of a client's tokens: base URL and credentials, hashed.
pub(crate) fn credential_key(base_url: &str, parts: &[&str]) -> String {
    let mut h = Sha256::new();
    h.update(b"iikocloud token v1\0");
    h.update(base_url.as_bytes());
    for p in parts {
        // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl TokenFile {
    /// A token file in `dir` for the client identified by `key`.
    pub(crate) fn in_dir(dir: &Path, key: String) -> TokenFile {
        let name = format!("iikocloud-token-{}", &key[..32.min(key.len())]);
        TokenFile {
            path: dir.join(format!("{name}.json")),
            lock_path: dir.join(format!("{name}.lock")),
            key,
        }
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the stored token; `None` for a missing, unreadable or foreign
    /// file.
    pub(crate) fn read(&self) -> Option<StoredToken> {
        let file = File::open(&self.path).ok()?;
        if file.metadata().ok()?.len() > MAX_FILE_BYTES {
            return None;
        }
        let stored: Stored = serde_json::from_reader(io::BufReader::new(file)).ok()?;
        if stored.version != FORMAT_VERSION
            || stored.key != self.key
            || stored.token.trim().is_empty()
            || stored.expires_at_ms <= stored.obtained_at_ms
        {
            return None;
        }
        Some(StoredToken {
            value: Secret::new(stored.token),
            obtained_at: from_ms(stored.obtained_at_ms)?,
            expires_at: from_ms(stored.expires_at_ms)?,
        })
    }

    /// Replaces the file atomically with this token (owner only).
    pub(crate) fn write(
        &self,
        value: &Secret,
        obtained_at: SystemTime,
        expires_at: SystemTime,
    ) -> io::Result<()> {
        let stored = Stored {
            version: FORMAT_VERSION,
            key: self.key.clone(),
            token: value.expose().to_owned(),
            obtained_at_ms: to_ms(obtained_at),
            expires_at_ms: to_ms(expires_at),
        };
        let bytes = serde_json::to_vec(&stored).map_err(io::Error::other)?;
        let tmp =
            self.path
                .with_extension(format!("tmp.{}.{}", std::process::id(), fastrand::u64(..)));
        let result = (|| {
            let mut f = owner_only::open_file(&tmp, Create::New)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            fs::rename(&tmp, &self.path)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    /// Deletes the file if it still holds `failed`, so no process uses a token
    /// the service refused.
    pub(crate) fn discard(&self, failed: &Secret) -> io::Result<()> {
        let _guard = self.lock()?;
        match self.read() {
            Some(t) if t.value == *failed => match fs::remove_file(&self.path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Takes the cross-process refresh lock; released when the guard drops.
    pub(crate) fn lock(&self) -> io::Result<FileLock> {
        let file = owner_only::open_file(&self.lock_path, Create::KeepExisting)?;
        file.lock()?;
        Ok(FileLock(file))
    }
}

/// An exclusive lock on the lock file.
pub(crate) struct FileLock(File);

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "iikocloud-test-{name}-{}-{}",
            std::process::id(),
            fastrand::u32(..)
        ));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn keys_differ_per_credentials_and_hide_them() {
        let a = credential_key("https://x", &["v2", "app", "secret", "key"]);
        let b = credential_key("https://x", &["v2", "app", "secret", "key2"]);
        let c = credential_key("https://y", &["v2", "app", "secret", "key"]);
        let d = credential_key("https://x", &["v2", "app", "secretk", "ey"]);
        assert!(a != b && a != c && a != d);
        assert_eq!(a.len(), 64);
        assert!(!a.contains("secret"));
    }

    #[test]
    fn round_trip_with_private_mode() {
        let dir = temp_dir("rt");
        let f = TokenFile::in_dir(&dir, credential_key("u", &["k"]));
        assert!(f.read().is_none());
        let now = SystemTime::now();
        f.write(&Secret::new("tok"), now, now + Duration::from_secs(60))
            .unwrap();
        let t = f.read().unwrap();
        assert_eq!(t.value.expose(), "tok");
        assert_eq!(to_ms(t.expires_at), to_ms(now + Duration::from_secs(60)));
        owner_only::assert_owner_only(f.path());
        f.discard(&Secret::new("other")).unwrap();
        owner_only::assert_owner_only(&f.lock_path);
        assert!(f.read().is_some(), "a token that did not fail stays");
        f.discard(&Secret::new("tok")).unwrap();
        assert!(f.read().is_none());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn corrupt_truncated_and_foreign_files_are_ignored() {
        let dir = temp_dir("bad");
        let f = TokenFile::in_dir(&dir, credential_key("u", &["k"]));
        let other = TokenFile {
            path: f.path.clone(),
            lock_path: f.lock_path.clone(),
            key: credential_key("u", &["someone else"]),
        };
        let now = SystemTime::now();
        other
            .write(&Secret::new("theirs"), now, now + Duration::from_secs(60))
            .unwrap();
        assert!(f.read().is_none(), "another key's token is not used");
        for junk in [
            &b""[..],
            b"{",
            b"null",
            b"{\"version\":1}",
            &[0xff, 0xfe, 0x00],
        ] {
            fs::write(f.path(), junk).unwrap();
            assert!(f.read().is_none());
        }
        fs::write(f.path(), vec![b' '; (MAX_FILE_BYTES + 1) as usize]).unwrap();
        assert!(f.read().is_none());
        f.write(&Secret::new("mine"), now, now + Duration::from_secs(60))
            .unwrap();
        assert_eq!(f.read().unwrap().value.expose(), "mine");
        fs::remove_dir_all(dir).unwrap();
    }
}
