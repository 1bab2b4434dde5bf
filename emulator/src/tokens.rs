//! Access tokens: JWT-shaped strings with an expiry kept at sub-second precision.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::json;

use crate::util::{new_uuid, unix_secs_f64};

struct TokenEntry {
    api_key: String,
    expires_at: Instant,
}

/// Result of looking a token up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenCheck {
    /// Valid; carries the API key the token was issued for.
    Valid(String),
    /// Known but past its expiry (or expired on purpose).
    Expired,
    /// Never issued by this emulator.
    Unknown,
}

pub(crate) struct TokenStore {
    tokens: HashMap<String, TokenEntry>,
    ttl: Duration,
}

impl TokenStore {
    pub(crate) fn new(ttl: Duration) -> TokenStore {
        TokenStore {
            tokens: HashMap::new(),
            ttl,
        }
    }

    pub(crate) fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Changes the lifetime of tokens issued from now on.
    pub(crate) fn set_ttl(&mut self, ttl: Duration) {
        self.ttl = ttl;
    }

    /// Issues a token for `api_key`. `subject` goes into the `sub` claim; it must
    /// not be a secret (the JWT payload is readable by anyone). Expiry is
    /// enforced at `now + ttl` with sub-second precision.
    pub(crate) fn issue(&mut self, api_key: &str, subject: Option<&str>) -> String {
        self.prune();
        let now_instant = Instant::now();
        let now = unix_secs_f64(SystemTime::now());
        let ttl = self.ttl.as_secs_f64();
        let header = json!({"alg": "HS256", "typ": "JWT"});
        // JWT claims are whole seconds; `exp` is rounded up, so the real
        // (sub-second) expiry enforced below is at most one second earlier.
        let payload = json!({
            "iss": "iikocloud-emulator",
            "sub": subject,
            "jti": new_uuid(),
            "iat": now.floor() as i64,
            "exp": (now + ttl).ceil() as i64,
        });
        let mut sig = [0u8; 32];
        for b in &mut sig {
            *b = fastrand::u8(..);
        }
        let token = format!(
            "{}.{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(payload.to_string()),
            URL_SAFE_NO_PAD.encode(sig)
        );
        self.tokens.insert(
            token.clone(),
            TokenEntry {
                api_key: api_key.to_string(),
                expires_at: now_instant + self.ttl,
            },
        );
        token
    }

    pub(crate) fn check(&self, token: &str) -> TokenCheck {
        match self.tokens.get(token) {
            None => TokenCheck::Unknown,
            Some(e) if Instant::now() >= e.expires_at => TokenCheck::Expired,
            Some(e) => TokenCheck::Valid(e.api_key.clone()),
        }
    }

    /// Makes every token issued so far expired (new tokens are unaffected).
    pub(crate) fn expire_all(&mut self) {
        let now = Instant::now();
        for e in self.tokens.values_mut() {
            if e.expires_at > now {
                e.expires_at = now;
            }
        }
    }

    /// Forgets tokens long expired so a long-running emulator does not grow.
    fn prune(&mut self) {
        if self.tokens.len() < 10_000 {
            return;
        }
        let horizon = Instant::now()
            .checked_sub(Duration::from_secs(3600))
            .unwrap_or_else(Instant::now);
        self.tokens.retain(|_, e| e.expires_at > horizon);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issues_jwt_shaped_tokens() {
        let mut store = TokenStore::new(Duration::from_secs(3600));
        let t = store.issue("k", Some("login"));
        let parts: Vec<&str> = t.split('.').collect();
        assert_eq!(parts.len(), 3);
        let payload: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        let iat = payload["iat"].as_i64().unwrap();
        let exp = payload["exp"].as_i64().unwrap();
        assert!((3600..=3601).contains(&(exp - iat)));
        assert_eq!(store.check(&t), TokenCheck::Valid("k".into()));
        assert_eq!(store.check("nope"), TokenCheck::Unknown);
        store.expire_all();
        assert_eq!(store.check(&t), TokenCheck::Expired);
        let t2 = store.issue("k", None);
        assert_eq!(store.check(&t2), TokenCheck::Valid("k".into()));
    }

    #[test]
    fn short_ttl_expires() {
        let mut store = TokenStore::new(Duration::from_millis(30));
        let t = store.issue("k", None);
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(store.check(&t), TokenCheck::Expired);
    }
}
