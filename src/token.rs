//! The access-token cache: lazy, single-flight, refreshed before expiry.

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

pub use crate::clock::{Clock, ManualClock, SystemClock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;

use crate::error::Result;
use crate::store::{Store, StoreLock};
use crate::token_file::{FileLock, TokenFile};
use crate::Secret;

/// How long a process may hold the shared token lock in a store before the
/// others take it over (it died), and how long they wait at most.
const STORE_LOCK_TTL: Duration = Duration::from_secs(60);
const STORE_LOCK_WAIT: Duration = Duration::from_secs(75);

/// Where a token is shared with other processes.
pub(crate) enum SharedToken {
    /// A file in a directory (one machine).
    File(TokenFile),
    /// A [`Store`], under a hash of the base URL and credentials.
    Store {
        /// The store.
        store: Store,
        /// `credential_key` of the client.
        key: String,
    },
}

enum SharedLock {
    File(#[allow(dead_code)] FileLock),
    Store(#[allow(dead_code)] StoreLock),
}

#[derive(serde::Serialize, serde::Deserialize)]
struct StoredInStore {
    token: String,
    obtained_at_ms: u64,
    expires_at_ms: u64,
}

fn ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl SharedToken {
    fn store_key(key: &str) -> String {
        format!("token:{key}")
    }

    fn read(&self) -> Option<AccessToken> {
        match self {
            SharedToken::File(file) => file.read().map(|t| AccessToken {
                value: t.value,
                obtained_at: t.obtained_at,
                expires_at: t.expires_at,
            }),
            SharedToken::Store { store, key } => {
                let bytes = match store.backend().get_value(&Self::store_key(key)) {
                    Ok(b) => b?,
                    Err(e) => {
                        log::warn!("token store: cannot read ({e})");
                        return None;
                    }
                };
                let s: StoredInStore = serde_json::from_slice(&bytes).ok()?;
                if s.token.trim().is_empty() || s.expires_at_ms <= s.obtained_at_ms {
                    return None;
                }
                Some(AccessToken {
                    value: Secret::new(s.token),
                    obtained_at: UNIX_EPOCH.checked_add(Duration::from_millis(s.obtained_at_ms))?,
                    expires_at: UNIX_EPOCH.checked_add(Duration::from_millis(s.expires_at_ms))?,
                })
            }
        }
    }

    fn write(&self, token: &AccessToken, now: SystemTime) {
        match self {
            SharedToken::File(file) => {
                if let Err(e) = file.write(&token.value, token.obtained_at, token.expires_at) {
                    log::warn!(
                        "token cache file {}: cannot write ({e}); other processes will fetch their own",
                        file.path().display()
                    );
                }
            }
            SharedToken::Store { store, key } => {
                let stored = StoredInStore {
                    token: token.value.expose().to_owned(),
                    obtained_at_ms: ms(token.obtained_at),
                    expires_at_ms: ms(token.expires_at),
                };
                let ttl = token
                    .expires_at
                    .duration_since(now)
                    .unwrap_or(Duration::ZERO)
                    .max(Duration::from_secs(1));
                let result = serde_json::to_vec(&stored)
                    .map_err(|e| e.to_string())
                    .and_then(|bytes| {
                        store
                            .backend()
                            .put_value(&Self::store_key(key), &bytes, ttl)
                            .map_err(|e| e.to_string())
                    });
                if let Err(e) = result {
                    log::warn!(
                        "token store: cannot write ({e}); other processes will fetch their own"
                    );
                }
            }
        }
    }

    fn discard(&self, failed: &Secret) {
        match self {
            SharedToken::File(file) => {
                if let Err(e) = file.discard(failed) {
                    log::warn!(
                        "token cache file {}: cannot drop a refused token ({e})",
                        file.path().display()
                    );
                }
            }
            SharedToken::Store { store, key } => {
                let skey = Self::store_key(key);
                let current = match store.backend().get_value(&skey) {
                    Ok(v) => v,
                    Err(e) => {
                        log::warn!("token store: cannot drop a refused token ({e})");
                        return;
                    }
                };
                let Some(bytes) = current else { return };
                let holds_failed = serde_json::from_slice::<StoredInStore>(&bytes)
                    .map(|s| s.token == failed.expose())
                    .unwrap_or(true);
                if holds_failed {
                    // Compare-and-delete: a token another process stored in
                    // the meantime stays.
                    if let Err(e) = store.backend().delete_value_if(&skey, &bytes) {
                        log::warn!("token store: cannot drop a refused token ({e})");
                    }
                }
            }
        }
    }
}

/// An access token with the time it stops being usable.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken {
    value: Secret,
    obtained_at: SystemTime,
    expires_at: SystemTime,
}

impl AccessToken {
    /// The token, to send as `Authorization: Bearer <token>`.
    pub fn expose(&self) -> &str {
        self.value.expose()
    }

    /// The token as a redacted [`Secret`].
    pub fn secret(&self) -> &Secret {
        &self.value
    }

    /// When the token was received (by the client's clock).
    pub fn obtained_at(&self) -> SystemTime {
        self.obtained_at
    }

    /// When the token expires (by the client's clock).
    pub fn expires_at(&self) -> SystemTime {
        self.expires_at
    }

    /// Builds a token from the text the service returned: the lifetime comes
    /// from the JWT claims, or `fallback_lifetime` when there are none.
    pub fn from_issued(
        value: Secret,
        obtained_at: SystemTime,
        fallback_lifetime: Duration,
    ) -> Self {
        let expires_at = jwt_lifetime(value.expose())
            .map(|claims| claims.expiry_seen_from(obtained_at))
            .unwrap_or_else(|| add_saturating(obtained_at, fallback_lifetime));
        AccessToken {
            value,
            obtained_at,
            expires_at,
        }
    }

    fn lifetime(&self) -> Duration {
        self.expires_at
            .duration_since(self.obtained_at)
            .unwrap_or(Duration::ZERO)
    }
}

impl fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessToken")
            .field("value", &self.value)
            .field("obtained_at", &self.obtained_at)
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

fn add_saturating(t: SystemTime, d: Duration) -> SystemTime {
    t.checked_add(d)
        .unwrap_or_else(|| UNIX_EPOCH + Duration::from_secs(u32::MAX as u64 * 4))
}

/// The `exp` and `iat` claims of a JWT (seconds since the epoch).
#[derive(Debug, PartialEq)]
struct JwtTimes {
    exp: u64,
    iat: Option<u64>,
}

impl JwtTimes {
    /// Expiry on our clock. With `iat`, the token's lifetime (exp - iat) is
    /// counted from when we received it, so a skewed clock on either side does
    /// not make a fresh token look expired; without it, `exp` is taken as is.
    /// Claims are whole seconds and the token was issued up to a second after
    /// `iat`, so one second comes off to stay on the early side.
    fn expiry_seen_from(&self, obtained_at: SystemTime) -> SystemTime {
        match self.iat {
            Some(iat) if iat < self.exp => {
                add_saturating(obtained_at, Duration::from_secs(self.exp - iat - 1))
            }
            _ => add_saturating(UNIX_EPOCH, Duration::from_secs(self.exp)),
        }
    }
}

/// Reads `exp` (and `iat`) from a JWT payload; the signature is not checked,
/// since the client only needs to know when to ask for a new token.
fn jwt_lifetime(token: &str) -> Option<JwtTimes> {
    let mut parts = token.split('.');
    let (_header, payload) = (parts.next()?, parts.next()?);
    parts.next()?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let seconds = |name: &str| -> Option<u64> {
        let v = claims.get(name)?;
        v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| *f >= 0.0 && f.is_finite())
                .map(|f| f as u64)
        })
    };
    Some(JwtTimes {
        exp: seconds("exp")?,
        iat: seconds("iat"),
    })
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves the data consistent (every write
    // is a single assignment), so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Default)]
struct State {
    current: Option<AccessToken>,
    fetching: bool,
    /// Bumped after every fetch, successful or not, so waiters can tell that
    /// the fetch they waited for has finished.
    generation: u64,
    last_failure: Option<crate::Error>,
}

/// Thread-safe token cache shared by all clones of a client.
pub(crate) struct TokenCache {
    state: Mutex<State>,
    fetched: Condvar,
    clock: Arc<dyn Clock>,
    refresh_margin: Duration,
    fallback_lifetime: Duration,
    /// Shared with other processes, when configured.
    shared: Option<SharedToken>,
}

impl TokenCache {
    pub(crate) fn new(
        clock: Arc<dyn Clock>,
        refresh_margin: Duration,
        fallback_lifetime: Duration,
        shared: Option<SharedToken>,
    ) -> TokenCache {
        TokenCache {
            state: Mutex::new(State::default()),
            fetched: Condvar::new(),
            clock,
            refresh_margin,
            fallback_lifetime,
            shared,
        }
    }

    /// The token file shared with other processes, if any.
    pub(crate) fn file_path(&self) -> Option<&std::path::Path> {
        match &self.shared {
            Some(SharedToken::File(f)) => Some(f.path()),
            _ => None,
        }
    }

    /// A new token: from the shared file or store when another process
    /// already has a fresh one, else from `fetch` under the cross-process
    /// lock. A file or store that cannot be used never fails the call: it only
    /// costs a token request.
    fn obtain(&self, fetch: impl FnOnce() -> Result<Secret>) -> Result<AccessToken> {
        let issue =
            |value| AccessToken::from_issued(value, self.clock.now(), self.fallback_lifetime);
        let Some(shared) = &self.shared else {
            return fetch().map(issue);
        };
        let from_shared = || shared.read().filter(|t| self.is_fresh(t));
        if let Some(t) = from_shared() {
            return Ok(t);
        }
        let lock = match shared {
            SharedToken::File(file) => file
                .lock()
                .map(SharedLock::File)
                .map_err(|e| {
                    log::warn!(
                        "token cache file {}: cannot lock ({e}); fetching a token without it",
                        file.path().display()
                    )
                })
                .ok(),
            SharedToken::Store { store, key } => {
                // Wait for the process that is fetching (polling the store,
                // which has no way to notify), or take over its lock when it
                // dies and the lock expires.
                let deadline = std::time::Instant::now() + STORE_LOCK_WAIT;
                let mut pause = Duration::from_millis(5);
                loop {
                    match store.try_lock(&format!("token:{key}"), STORE_LOCK_TTL) {
                        Ok(Some(l)) => break Some(SharedLock::Store(l)),
                        Ok(None) => {}
                        Err(e) => {
                            log::warn!("token store: {e}; fetching a token without it");
                            break None;
                        }
                    }
                    if let Some(t) = from_shared() {
                        return Ok(t);
                    }
                    if std::time::Instant::now() >= deadline {
                        log::warn!(
                            "token store: another process held the token lock for {STORE_LOCK_WAIT:?}; fetching without it"
                        );
                        break None;
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
            }
        };
        // Another process may have refreshed while we waited for the lock.
        if let Some(t) = from_shared() {
            return Ok(t);
        }
        let token = fetch().map(issue)?;
        if lock.is_some() {
            shared.write(&token, self.clock.now());
        }
        drop(lock);
        Ok(token)
    }

    /// The cached token, without fetching; `None` when there is none or it is
    /// due for refresh.
    pub(crate) fn peek(&self) -> Option<AccessToken> {
        let state = lock(&self.state);
        state.current.clone().filter(|t| self.is_fresh(t))
    }

    /// A token that is still fresh, short tokens get a proportionally short
    /// margin, so a 2-second token is not "due" before it is even used.
    fn is_fresh(&self, token: &AccessToken) -> bool {
        let margin = self.refresh_margin.min(token.lifetime() / 10);
        match token.expires_at.checked_sub(margin) {
            Some(refresh_at) => self.clock.now() < refresh_at,
            None => false,
        }
    }

    /// Returns a fresh token, calling `fetch` at most once across all threads
    /// that ask at the same time: the others wait for that one request.
    pub(crate) fn get(&self, fetch: impl FnOnce() -> Result<Secret>) -> Result<AccessToken> {
        let mut state = lock(&self.state);
        let mut waited_for: Option<u64> = None;
        loop {
            if let Some(t) = &state.current {
                // A token fetched while we waited is used even if its lifetime
                // is shorter than the margin: fetching again would not help.
                if self.is_fresh(t) || waited_for.is_some_and(|g| g != state.generation) {
                    return Ok(t.clone());
                }
            }
            if let Some(g) = waited_for {
                if g != state.generation {
                    if let Some(e) = &state.last_failure {
                        return Err(e.clone());
                    }
                }
            }
            if !state.fetching {
                break;
            }
            waited_for = Some(state.generation);
            state = self.fetched.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.fetching = true;
        drop(state);

        // Resets `fetching` even if `fetch` panics, so no waiter hangs.
        struct Finish<'a>(&'a TokenCache, Option<Result<AccessToken>>);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                let mut state = lock(&self.0.state);
                state.fetching = false;
                state.generation = state.generation.wrapping_add(1);
                match &self.1 {
                    Some(Ok(t)) => {
                        state.current = Some(t.clone());
                        state.last_failure = None;
                    }
                    Some(Err(e)) => state.last_failure = Some(e.clone()),
                    None => {}
                }
                self.0.fetched.notify_all();
            }
        }
        let mut finish = Finish(self, None);
        let result = self.obtain(fetch);
        finish.1 = Some(result.clone());
        drop(finish);
        result
    }

    /// Drops the cached token if it is still `failed`; a token another thread
    /// has already replaced is kept.
    pub(crate) fn invalidate(&self, failed: &AccessToken) {
        let mut state = lock(&self.state);
        if state.current.as_ref().map(|t| t.value == failed.value) == Some(true) {
            state.current = None;
        }
        drop(state);
        if let Some(shared) = &self.shared {
            shared.discard(&failed.value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn jwt(claims: &str) -> String {
        let e = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        format!(
            "{}.{}.sig",
            e.encode(r#"{"alg":"HS256"}"#),
            e.encode(claims)
        )
    }

    #[test]
    fn reads_exp_and_iat() {
        assert_eq!(
            jwt_lifetime(&jwt(r#"{"exp":2000,"iat":1000}"#)),
            Some(JwtTimes {
                exp: 2000,
                iat: Some(1000)
            })
        );
        assert_eq!(
            jwt_lifetime(&jwt(r#"{"exp":2000}"#)),
            Some(JwtTimes {
                exp: 2000,
                iat: None
            })
        );
        assert_eq!(jwt_lifetime(&jwt(r#"{"sub":"x"}"#)), None);
        assert_eq!(jwt_lifetime("opaque-token"), None);
        assert_eq!(jwt_lifetime("a.!!!.c"), None);
        assert_eq!(jwt_lifetime(&jwt(r#"{"exp":-5}"#)), None);
        assert_eq!(
            jwt_lifetime(&jwt(r#"{"exp":1e300}"#)).map(|t| t.exp),
            Some(u64::MAX)
        );
    }

    #[test]
    fn lifetime_counts_from_receipt_when_iat_is_known() {
        let now = UNIX_EPOCH + Duration::from_secs(10_000_000);
        let t = AccessToken::from_issued(
            Secret::new(jwt(r#"{"exp":4600,"iat":1000}"#)),
            now,
            Duration::from_secs(1),
        );
        assert_eq!(t.expires_at(), now + Duration::from_secs(3599));
        let opaque =
            AccessToken::from_issued(Secret::new("opaque"), now, Duration::from_secs(3600));
        assert_eq!(opaque.expires_at(), now + Duration::from_secs(3600));
        let huge = AccessToken::from_issued(
            Secret::new(jwt(r#"{"exp":18446744073709551615}"#)),
            now,
            Duration::from_secs(1),
        );
        assert!(huge.expires_at() > now);
    }

    #[test]
    fn refreshes_a_minute_before_expiry() {
        let clock = Arc::new(ManualClock::new());
        let cache = TokenCache::new(
            clock.clone(),
            Duration::from_secs(60),
            Duration::from_secs(3600),
            None,
        );
        let fetches = AtomicUsize::new(0);
        let fetch = || {
            fetches.fetch_add(1, Ordering::SeqCst);
            Ok(Secret::new("opaque"))
        };
        cache.get(fetch).unwrap();
        cache.get(fetch).unwrap();
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        clock.advance(Duration::from_secs(3600 - 61));
        cache.get(fetch).unwrap();
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        clock.advance(Duration::from_secs(2));
        assert!(cache.peek().is_none());
        cache.get(fetch).unwrap();
        assert_eq!(fetches.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn invalidate_keeps_a_token_that_was_already_replaced() {
        let cache = TokenCache::new(
            Arc::new(SystemClock),
            Duration::from_secs(60),
            Duration::from_secs(3600),
            None,
        );
        let old = cache.get(|| Ok(Secret::new("one"))).unwrap();
        cache.invalidate(&old);
        let new = cache.get(|| Ok(Secret::new("two"))).unwrap();
        cache.invalidate(&old);
        assert_eq!(cache.peek(), Some(new));
    }

    #[test]
    fn a_panicking_fetch_releases_the_waiters() {
        let cache = Arc::new(TokenCache::new(
            Arc::new(SystemClock),
            Duration::from_secs(60),
            Duration::from_secs(3600),
            None,
        ));
        let c = cache.clone();
        let r = std::thread::spawn(move || c.get(|| panic!("boom"))).join();
        assert!(r.is_err());
        assert_eq!(cache.get(|| Ok(Secret::new("ok"))).unwrap().expose(), "ok");
    }
}
