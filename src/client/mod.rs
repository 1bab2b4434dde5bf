//! The blocking client: its handle and the service's typed endpoints.
//!
//! The rest has a room each: [`Credentials`] and how a token is fetched
//! (`credentials`), configuration and its checks (`builder`), the retry and
//! transport loop (`transport`) and answers turned into values or errors
//! (`answers`). Requests of the typed endpoints are checked by the generated
//! validation ([`crate::api::Validate`]), not here.

mod answers;
mod builder;
mod credentials;
mod resolver;
mod transport;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::network::{self, ProxySetting, TrustRoots};
use crate::token::{AccessToken, TokenCache};

use answers::decode;
pub use builder::ClientBuilder;
pub use credentials::Credentials;
use transport::Call;

/// The production address of the service (Russia region).
pub const DEFAULT_BASE_URL: &str = "https://api-ru.iiko.services";
// The defaults are decided with their limits (`crate::limits`), read there
// by every binding; they keep their names here.
pub use crate::limits::{
    DEFAULT_CLIENT_TIMEOUT_MARGIN, DEFAULT_FALLBACK_TOKEN_LIFETIME, DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_REFRESH_MARGIN, DEFAULT_RETRIES, DEFAULT_RETRY_BASE_DELAY, DEFAULT_SERVER_TIMEOUT,
};
/// The longest pause between two retries, whatever the base delay.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(10);

/// The user agent sent with every request.
pub const USER_AGENT: &str = concat!("iikocloud/", env!("CARGO_PKG_VERSION"));

/// Options of one raw call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// `Timeout` header for this call; the client timeout follows it with the
    /// client's margin. `None` uses the client's setting.
    pub timeout: Option<Duration>,
    /// The call is safe to repeat (it changes nothing, or changes it to the
    /// same state), so transport errors and 5xx may be retried. Off by
    /// default: many iiko calls create orders, and a repeat creates another.
    pub idempotent: bool,
}

impl CallOptions {
    /// Marks the call as safe to repeat.
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Sets the `Timeout` header for this call.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

/// An answer's JSON text as the service wrote it, and the HTTP status it
/// came with ([`Client::call_text_answer`]).
#[derive(Clone, PartialEq, Eq)]
pub struct TextAnswer {
    /// The success status: 200, or 201 for the creates.
    pub status: u16,
    /// The answer's JSON text (`null` for an answer without a body).
    pub text: String,
}

/// The status and the text's length only: an answer may carry a token.
impl std::fmt::Debug for TextAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextAnswer")
            .field("status", &self.status)
            .field("text_bytes", &self.text.len())
            .finish()
    }
}

struct Inner {
    agent: ureq::Agent,
    /// The service's host, for TLS messages.
    host: String,
    /// The proxy requests go through, if any (none when `no_proxy` covers the
    /// host).
    proxy: Option<ProxySetting>,
    trust: TrustRoots,
    ca_file: Option<std::path::PathBuf>,
    base_url: String,
    credentials: Credentials,
    client_timeout_margin: Duration,
    retries: u32,
    retry_base_delay: Duration,
    max_response_bytes: u64,
    tokens: TokenCache,
}

/// A blocking client of the iikoCloud API.
///
/// `Client` is `Send + Sync` and cheap to clone: clones share one connection
/// pool and one token cache, so create it once and hand it to every thread.
///
/// ```no_run
/// use iikocloud::api::models::organizations::OrganizationInfo;
/// use iikocloud::Client;
///
/// let client = Client::builder()
///     .v2("my-app-id", "my-client-secret", "my-api-key")
///     .build()?;
/// let answer = client.organizations(&Default::default())?;
/// for org in answer.organizations.unwrap_or_default() {
///     if let OrganizationInfo::Simple(org) = org {
///         println!("{:?} {:?}", org.id, org.name);
///     }
/// }
/// # Ok::<(), iikocloud::Error>(())
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    server_timeout: Duration,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base_url)
            .field("credentials", &self.inner.credentials)
            .field("timeout", &self.server_timeout)
            .field("retries", &self.inner.retries)
            .field("trust", &self.inner.trust)
            .field("ca_file", &network::show_path(&self.inner.ca_file))
            .field("proxy", &self.inner.proxy)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Starts configuring a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The base URL in use (without a trailing slash).
    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    /// The `Timeout` header this handle sends.
    pub fn timeout(&self) -> Duration {
        self.server_timeout
    }

    /// A handle that sends another `Timeout` header (and waits that much
    /// longer), sharing this client's pool and token cache.
    pub fn with_timeout(&self, timeout: Duration) -> Result<Client> {
        crate::limits::CLIENT_TIMEOUT.check_duration(timeout)?;
        Ok(Client {
            inner: self.inner.clone(),
            server_timeout: timeout,
        })
    }

    /// A valid access token, fetched if there is none or it is about to
    /// expire. Concurrent callers share one token request.
    pub fn access_token(&self) -> Result<AccessToken> {
        self.inner.tokens.get(|| self.fetch_token())
    }

    /// The token file shared with other processes, if one is configured.
    pub fn token_cache_file(&self) -> Option<&std::path::Path> {
        self.inner.tokens.file_path()
    }

    /// The cached token, if there is a fresh one; never makes a request.
    pub fn cached_token(&self) -> Option<AccessToken> {
        self.inner.tokens.peek()
    }

    // The four endpoints this client had before every operation was
    // generated keep their names as one-line aliases of the generated
    // operations: same types, checks, retry rule and answers as
    // `client.api()`, so there is one surface with two spellings.

    /// `client.api().organizations().get(request)`: organizations available
    /// to the API key (`POST /api/1/organizations`).
    #[cfg(feature = "operations")]
    pub fn organizations(
        &self,
        request: &crate::api::models::organizations::GetOrganizationsRequest,
    ) -> Result<crate::api::models::organizations::GetOrganizationsResponse> {
        self.api().organizations().get(request)
    }

    /// `client.api().webhooks().settings(request)`: webhook settings of an
    /// organization (`POST /api/1/webhooks/settings`).
    #[cfg(feature = "operations")]
    pub fn webhook_settings(
        &self,
        request: &crate::api::models::web_hooks::GetWebHookSettingsRequest,
    ) -> Result<crate::api::models::web_hooks::GetWebHookSettingsResponse> {
        self.api().webhooks().settings(request)
    }

    /// `client.api().webhooks().update_settings(request)`: sets the webhook
    /// of an organization (`POST /api/1/webhooks/update_settings`). A command
    /// in the document, so never retried.
    #[cfg(feature = "operations")]
    pub fn update_webhook_settings(
        &self,
        request: &crate::api::models::web_hooks::UpdateWebHookSettingsRequest,
    ) -> Result<crate::api::models::common::CorrelationIdResponse> {
        self.api().webhooks().update_settings(request)
    }

    /// `client.api().stop_lists().get(request)`: out-of-stock items
    /// (`POST /api/1/stop_lists`).
    #[cfg(feature = "operations")]
    pub fn stop_lists(
        &self,
        request: &crate::api::models::stop_lists::StopListsRequest,
    ) -> Result<crate::api::models::stop_lists::StopListsResponse> {
        self.api().stop_lists().get(request)
    }

    /// Calls any endpoint with a JSON object body, with the same token
    /// handling, timeouts and errors as the typed calls. Not retried unless
    /// `options.idempotent` says the call is safe to repeat.
    ///
    /// The answer's numbers are `f64` in a [`Value`]: for amounts, read the
    /// answer into types with [`crate::Money`] fields ([`Client::call_as`]),
    /// or take its text ([`Client::call_text`]).
    pub fn call(&self, path: &str, body: &Value, options: &CallOptions) -> Result<Value> {
        self.call_as(path, body, options)
    }

    /// [`Client::call`] with any serializable body (one JSON object) and the
    /// answer read into any type: a struct of your own, a generated model of
    /// [`crate::api::models`], or a [`Value`]. [`crate::Money`] fields are
    /// exact decimals of what the service wrote (it writes doubles in their
    /// shortest form, which `Money` keeps digit for digit), so sums of them
    /// add up where `f64` would drift; [`Client::call_text`] passes numbers of
    /// any length through as text.
    ///
    /// ```no_run
    /// # fn demo(client: &iikocloud::Client) -> iikocloud::Result<()> {
    /// use iikocloud::{CallOptions, Money};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Balance {
    ///     balance: Option<Money>,
    /// }
    /// let body = serde_json::json!({"organizationId": "441e1320-3f58-4702-9f9e-aa34cdef9c04"});
    /// let answer: Balance = client.call_as("/api/1/some/endpoint", &body, &CallOptions::default())?;
    /// # let _ = answer.balance; Ok(()) }
    /// ```
    pub fn call_as<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &(impl Serialize + ?Sized),
        options: &CallOptions,
    ) -> Result<T> {
        check_path(path)?;
        let body = serde_json::to_vec(body).map_err(|e| Error::invalid(e.to_string()))?;
        if body.first() != Some(&b'{') {
            return Err(Error::invalid("the body must be a JSON object"));
        }
        let server_timeout = match options.timeout {
            Some(t) => self.with_timeout(t)?.server_timeout,
            None => self.server_timeout,
        };
        let answer = self.execute(&Call {
            path,
            body,
            idempotent: options.idempotent,
            authorized: true,
            server_timeout,
        })?;
        decode(path, &answer)
    }

    /// [`Client::call`] with the body and the answer as JSON text, passed
    /// through unchanged: every number keeps all its digits both ways, where
    /// a [`Value`] holds it as an `f64` (17 significant digits). For raw calls
    /// that carry money. The body must be one JSON object; the answer is
    /// checked to be JSON and returned as the service wrote it.
    pub fn call_text(&self, path: &str, body_json: &str, options: &CallOptions) -> Result<String> {
        self.call_text_answer(path, body_json, options)
            .map(|answer| answer.text)
    }

    /// [`Client::call_text`] with the HTTP status the answer came with (200,
    /// or 201 for the creates), for callers that read the text themselves
    /// and report an answer they cannot read as the core does
    /// ([`Error::Decode`] keeps the status).
    pub fn call_text_answer(
        &self,
        path: &str,
        body_json: &str,
        options: &CallOptions,
    ) -> Result<TextAnswer> {
        check_path(path)?;
        serde_json::from_str::<serde::de::IgnoredAny>(body_json).map_err(|e| {
            let e = crate::error::without_quoted_values(&e.to_string());
            Error::invalid(format!("the body is not JSON: {e}"))
        })?;
        if !body_json.trim_start().starts_with('{') {
            return Err(Error::invalid("the body must be a JSON object"));
        }
        self.post_text(path, body_json.as_bytes().to_vec(), options)
    }

    /// [`Client::call_text_answer`] for a body this crate wrote (a checked
    /// JSON object, to a known path): sends it and returns the answer.
    pub(crate) fn post_text(
        &self,
        path: &str,
        body: Vec<u8>,
        options: &CallOptions,
    ) -> Result<TextAnswer> {
        let server_timeout = match options.timeout {
            Some(t) => self.with_timeout(t)?.server_timeout,
            None => self.server_timeout,
        };
        let answer = self.execute(&Call {
            path,
            body,
            idempotent: options.idempotent,
            authorized: true,
            server_timeout,
        })?;
        // The same check and error as the parsed answers, then the text itself
        // (JSON that parsed is UTF-8; no body is `null`, as decode reads it).
        decode::<serde::de::IgnoredAny>(path, &answer)?;
        let text = if answers::is_empty(&answer) {
            "null".to_owned()
        } else {
            String::from_utf8_lossy(&answer.body).into_owned()
        };
        Ok(TextAnswer {
            status: answer.status,
            text,
        })
    }

    /// Sends a typed request's body (JSON, checked) and reads the typed
    /// answer; used by the generated operations only.
    #[cfg(feature = "operations")]
    pub(crate) fn typed<T: DeserializeOwned>(
        &self,
        path: &str,
        body: Vec<u8>,
        idempotent: bool,
    ) -> Result<T> {
        decode(path, &self.send_typed(path, body, idempotent)?)
    }

    /// The part of [`Client::typed`] that does not depend on the answer's
    /// type, compiled once rather than for each of them.
    #[cfg(feature = "operations")]
    fn send_typed(&self, path: &str, body: Vec<u8>, idempotent: bool) -> Result<answers::Answer> {
        self.execute(&Call {
            path,
            body,
            idempotent,
            authorized: true,
            server_timeout: self.server_timeout,
        })
    }
}

/// A raw call's path: one absolute path on the service's host, never another
/// host (`//evil`), a parent (`..`) or a query.
fn check_path(path: &str) -> Result<()> {
    let ok = path.starts_with('/')
        && !path.starts_with("//")
        && !path.split('/').any(|seg| seg == "..")
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.~".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "path must look like /api/1/endpoint (letters, digits, - _ . ~ and /), got {path:?}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_is_send_sync_and_debug_hides_secrets() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Client>();
        let c = Client::builder()
            .v2("app", "very-secret", "key-123")
            .build()
            .unwrap();
        let d = format!("{c:?}");
        assert!(
            d.contains("app") && !d.contains("very-secret") && !d.contains("key-123"),
            "{d}"
        );
        let c = Client::builder().api_login("login-xyz").build().unwrap();
        assert!(!format!("{c:?}").contains("login-xyz"));
    }

    #[test]
    fn raw_paths() {
        assert!(check_path("/api/1/deliveries/by_id").is_ok());
        for bad in [
            "api/1/x",
            "//evil.com/x",
            "/api/../x",
            "/api/1/x?y=1",
            "/a b",
            "http://x/y",
        ] {
            assert!(check_path(bad).is_err(), "{bad:?}");
        }
    }
}
