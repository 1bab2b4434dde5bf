//! The blocking client.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::error::{ApiError, ApiErrorKind, Error, Result, TransportErrorKind};
use crate::models::{
    CorrelationIdResponse, OrganizationsRequest, OrganizationsResponse, StopListsRequest,
    StopListsResponse, UpdateWebhookSettingsRequest, WebhookSettings,
};
use crate::network::{self, ProxySetting, TrustRoots};
use crate::token::{AccessToken, Clock, SharedToken, SystemClock, TokenCache};
use crate::token_file::{credential_key, TokenFile};
use crate::Secret;

/// The production address of the service (Russia region).
pub const DEFAULT_BASE_URL: &str = "https://api-ru.iiko.services";
/// Default of the `Timeout` header: how long the service waits for the
/// restaurant terminal before answering 408.
pub const DEFAULT_SERVER_TIMEOUT: Duration = Duration::from_secs(15);
/// How much longer than the `Timeout` header the client waits by default, so the
/// service's own 408 arrives before the client gives up.
pub const DEFAULT_CLIENT_TIMEOUT_MARGIN: Duration = Duration::from_secs(5);
/// Default number of retries of a safe call after a transport error or a 5xx.
pub const DEFAULT_RETRIES: u32 = 2;
/// Default first backoff delay; it doubles for each retry, with jitter.
pub const DEFAULT_RETRY_BASE_DELAY: Duration = Duration::from_millis(250);
/// A token is refreshed this long before it expires (at most a tenth of its
/// lifetime, so short-lived tokens are still used).
pub const DEFAULT_REFRESH_MARGIN: Duration = Duration::from_secs(60);
/// Lifetime assumed for a token that carries no JWT `exp` claim.
pub const DEFAULT_FALLBACK_TOKEN_LIFETIME: Duration = Duration::from_secs(3600);
/// Largest response body the client reads by default (64 MiB): nomenclature
/// answers of big chains run to tens of megabytes.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;
/// Largest `Timeout` header the client accepts.
const MAX_SERVER_TIMEOUT: Duration = Duration::from_secs(3600);
const MAX_RETRY_DELAY: Duration = Duration::from_secs(10);

/// The user agent sent with every request.
pub const USER_AGENT: &str = concat!("iikocloud/", env!("CARGO_PKG_VERSION"));

/// Credentials for `POST /api/v2/access_token` or the legacy `/api/1/access_token`.
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    /// Application credentials from the developer portal plus an API key.
    V2 {
        /// Application id (not secret).
        app_id: String,
        /// Application secret.
        client_secret: Secret,
        /// API key from iikoWeb; decides which organizations the token sees.
        api_key: Secret,
    },
    /// The legacy API login (deprecated by the service, still served).
    ApiLogin(Secret),
}

impl Credentials {
    /// v2 credentials.
    pub fn v2(
        app_id: impl Into<String>,
        client_secret: impl Into<Secret>,
        api_key: impl Into<Secret>,
    ) -> Credentials {
        Credentials::V2 {
            app_id: app_id.into(),
            client_secret: client_secret.into(),
            api_key: api_key.into(),
        }
    }

    /// Legacy `apiLogin` credentials.
    pub fn api_login(api_login: impl Into<Secret>) -> Credentials {
        Credentials::ApiLogin(api_login.into())
    }

    fn check(&self) -> Result<()> {
        match self {
            Credentials::V2 {
                app_id,
                client_secret,
                api_key,
            } => {
                if app_id.trim().is_empty() {
                    return Err(Error::Config("appId is empty".into()));
                }
                if client_secret.is_blank() {
                    return Err(Error::Config("clientSecret is empty".into()));
                }
                if api_key.is_blank() {
                    return Err(Error::Config("apiKey is empty".into()));
                }
            }
            Credentials::ApiLogin(login) => {
                if login.is_blank() {
                    return Err(Error::Config("apiLogin is empty".into()));
                }
            }
        }
        Ok(())
    }

    fn token_path(&self) -> &'static str {
        match self {
            Credentials::V2 { .. } => "/api/v2/access_token",
            Credentials::ApiLogin(_) => "/api/1/access_token",
        }
    }

    fn token_body(&self) -> Value {
        match self {
            Credentials::V2 {
                app_id,
                client_secret,
                api_key,
            } => serde_json::json!({
                "appId": app_id,
                "clientSecret": client_secret.expose(),
                "apiKey": api_key.expose(),
            }),
            Credentials::ApiLogin(login) => serde_json::json!({ "apiLogin": login.expose() }),
        }
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::V2 { app_id, .. } => f
                .debug_struct("V2")
                .field("app_id", app_id)
                .field("client_secret", &"[redacted]")
                .field("api_key", &"[redacted]")
                .finish(),
            Credentials::ApiLogin(_) => f.debug_tuple("ApiLogin").field(&"[redacted]").finish(),
        }
    }
}

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

/// Builds a [`Client`]; see [`Client::builder`].
#[derive(Clone, Debug)]
pub struct ClientBuilder {
    base_url: String,
    credentials: Option<Credentials>,
    server_timeout: Duration,
    client_timeout: Option<Duration>,
    retries: u32,
    retry_base_delay: Duration,
    refresh_margin: Duration,
    fallback_token_lifetime: Duration,
    max_response_bytes: u64,
    clock: Option<Arc<dyn Clock>>,
    token_cache_dir: Option<std::path::PathBuf>,
    token_store: Option<crate::store::Store>,
    trust: TrustRoots,
    ca_file: Option<std::path::PathBuf>,
    proxy: Option<Secret>,
    no_proxy: Option<String>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            base_url: DEFAULT_BASE_URL.to_owned(),
            credentials: None,
            server_timeout: DEFAULT_SERVER_TIMEOUT,
            client_timeout: None,
            retries: DEFAULT_RETRIES,
            retry_base_delay: DEFAULT_RETRY_BASE_DELAY,
            refresh_margin: DEFAULT_REFRESH_MARGIN,
            fallback_token_lifetime: DEFAULT_FALLBACK_TOKEN_LIFETIME,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            clock: None,
            token_cache_dir: None,
            token_store: None,
            trust: TrustRoots::System,
            ca_file: None,
            proxy: None,
            no_proxy: None,
        }
    }
}

impl ClientBuilder {
    /// Service address, e.g. `https://api-eu.iiko.services`. Default:
    /// [`DEFAULT_BASE_URL`].
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// The credentials (required).
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Shorthand for v2 credentials.
    pub fn v2(
        self,
        app_id: impl Into<String>,
        client_secret: impl Into<Secret>,
        api_key: impl Into<Secret>,
    ) -> Self {
        self.credentials(Credentials::v2(app_id, client_secret, api_key))
    }

    /// Shorthand for legacy `apiLogin` credentials.
    pub fn api_login(self, api_login: impl Into<Secret>) -> Self {
        self.credentials(Credentials::api_login(api_login))
    }

    /// The `Timeout` header: how long the service waits for the restaurant
    /// terminal (whole seconds, rounded up; 1 s to 1 h). Default 15 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.server_timeout = timeout;
        self
    }

    /// How long the client waits for a whole exchange. Must be longer than
    /// [`timeout`](Self::timeout). Default: `timeout` + 5 s.
    pub fn client_timeout(mut self, timeout: Duration) -> Self {
        self.client_timeout = Some(timeout);
        self
    }

    /// Retries of safe calls after a transport error or a 5xx. Default 2.
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// First retry delay; doubled each time, with jitter, at most 10 s.
    pub fn retry_base_delay(mut self, delay: Duration) -> Self {
        self.retry_base_delay = delay;
        self
    }

    /// How long before expiry the token is refreshed. Default 60 s.
    pub fn refresh_margin(mut self, margin: Duration) -> Self {
        self.refresh_margin = margin;
        self
    }

    /// Lifetime assumed for tokens without a JWT `exp` claim. Default 1 h.
    pub fn fallback_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.fallback_token_lifetime = lifetime;
        self
    }

    /// Largest response body read; a larger one is a transport error.
    pub fn max_response_bytes(mut self, limit: u64) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// The clock for token expiry (tests move it forward).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Shares the token with other processes through a file in `dir` (created
    /// with mode 0700 if missing). For share-nothing runtimes (PHP-FPM,
    /// gunicorn workers, cron jobs): processes using the same base URL and
    /// credentials make one token request between them, and a token the
    /// service refuses is dropped for all of them. The file name is a hash of
    /// the base URL and credentials; the file holds the token in clear, with
    /// mode 0600, so keep `dir` private to the service's user.
    pub fn token_cache_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.token_cache_dir = Some(dir.into());
        self
    }

    /// Shares the token through a [`Store`](crate::store::Store): a SQLite
    /// file (processes of one machine) or Redis (every machine). Clients with
    /// the same base URL and credentials make one token request at a time
    /// between them (the others wait for it and use it), and a token the
    /// service refuses (401) is dropped for all. The token is stored under a
    /// SHA-256 of the base URL and credentials; no credential is stored. A
    /// `memory:` store shares nothing beyond this client and its clones.
    /// Replaces [`token_cache_dir`](Self::token_cache_dir) when both are set.
    pub fn token_store(mut self, store: crate::store::Store) -> Self {
        self.token_store = Some(store);
        self
    }

    /// Which roots verify the service's certificate: the system store
    /// (default; the bundled Mozilla roots where the system has none) or only
    /// the bundled roots. Verification is always on.
    pub fn trust_roots(mut self, trust: TrustRoots) -> Self {
        self.trust = trust;
        self
    }

    /// Trusts the root certificates in this PEM file too, on top of
    /// [`trust_roots`](Self::trust_roots): a corporate TLS-inspecting proxy's
    /// root, a national root CA, a staging service's private CA. A file that
    /// cannot be read or holds no certificate fails [`build`](Self::build).
    pub fn ca_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.ca_file = Some(path.into());
        self
    }

    /// Sends requests through this proxy: `http://host:port` or
    /// `https://host:port`, with optional `user:password@` (percent-encode
    /// `@`, `:` and `/` in them). The client tunnels with `CONNECT`; TLS to
    /// the service stays end to end. Without it the environment's
    /// `HTTPS_PROXY`/`ALL_PROXY`/`HTTP_PROXY` (and `NO_PROXY`) apply. The URL is
    /// kept as a secret: `Debug`, logs and errors show only its host and port.
    pub fn proxy(mut self, url: impl Into<Secret>) -> Self {
        self.proxy = Some(url.into());
        self
    }

    /// Hosts reached without the proxy, comma-separated: `example.com` (that
    /// host), `.example.com` (its subdomains), `*` (all). Replaces
    /// `NO_PROXY`; applies to the explicit or the environment's proxy.
    pub fn no_proxy(mut self, hosts: impl Into<String>) -> Self {
        self.no_proxy = Some(hosts.into());
        self
    }

    /// Checks the configuration and builds the client.
    pub fn build(self) -> Result<Client> {
        let credentials = self.credentials.ok_or_else(|| {
            Error::Config("no credentials: set v2 credentials or an apiLogin".into())
        })?;
        credentials.check()?;
        let base_url = check_base_url(&self.base_url)?;
        if self.server_timeout < Duration::from_secs(1) || self.server_timeout > MAX_SERVER_TIMEOUT
        {
            return Err(Error::Config(format!(
                "timeout must be between 1 s and 1 h, got {:?}",
                self.server_timeout
            )));
        }
        let client_timeout = self
            .client_timeout
            .unwrap_or(self.server_timeout + DEFAULT_CLIENT_TIMEOUT_MARGIN);
        if client_timeout <= self.server_timeout {
            return Err(Error::Config(format!(
                "client timeout ({client_timeout:?}) must be longer than the Timeout header \
                 ({:?}), or the client gives up before the service can answer 408",
                self.server_timeout
            )));
        }
        if self.max_response_bytes == 0 {
            return Err(Error::Config("max_response_bytes must be above 0".into()));
        }
        let roots = network::root_certs(self.trust, self.ca_file.as_deref())?;
        let proxy = network::proxy_setting(self.proxy.as_ref(), self.no_proxy.as_deref())?;
        let proxied = network::proxied(&proxy, &base_url);
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build())
            .proxy(proxy.proxy.clone())
            .http_status_as_error(false)
            .user_agent(USER_AGENT)
            .max_redirects(0)
            .timeout_global(Some(client_timeout))
            .timeout_connect(Some(client_timeout.min(Duration::from_secs(10))))
            .build()
            .into();
        let clock = self.clock.unwrap_or_else(|| Arc::new(SystemClock));
        let shared_token = match (&self.token_store, &self.token_cache_dir) {
            (Some(store), _) if store.is_memory() => None,
            (Some(store), _) => Some(SharedToken::Store {
                store: store.clone(),
                key: token_key(&base_url, &credentials),
            }),
            (None, Some(dir)) => Some(SharedToken::File(open_token_dir(
                dir,
                &base_url,
                &credentials,
            )?)),
            (None, None) => None,
        };
        let host = base_url
            .parse::<ureq::http::Uri>()
            .ok()
            .and_then(|u| u.host().map(str::to_owned))
            .unwrap_or_default();
        Ok(Client {
            inner: Arc::new(Inner {
                agent,
                host,
                proxy: proxied.then_some(proxy),
                trust: self.trust,
                ca_file: self.ca_file,
                base_url,
                credentials,
                client_timeout_margin: client_timeout - self.server_timeout,
                retries: self.retries,
                retry_base_delay: self.retry_base_delay,
                max_response_bytes: self.max_response_bytes,
                tokens: TokenCache::new(
                    clock,
                    self.refresh_margin,
                    self.fallback_token_lifetime,
                    shared_token,
                ),
            }),
            server_timeout: self.server_timeout,
        })
    }
}

fn open_token_dir(
    dir: &std::path::Path,
    base_url: &str,
    credentials: &Credentials,
) -> Result<TokenFile> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| {
        Error::Config(format!(
            "token cache directory {} cannot be created: {e}",
            dir.display()
        ))
    })?;
    if !dir.is_dir() {
        return Err(Error::Config(format!(
            "token cache directory {} is not a directory",
            dir.display()
        )));
    }
    Ok(TokenFile::in_dir(dir, token_key(base_url, credentials)))
}

/// The hash that identifies a client's tokens in a file or store.
fn token_key(base_url: &str, credentials: &Credentials) -> String {
    match credentials {
        Credentials::V2 {
            app_id,
            client_secret,
            api_key,
        } => credential_key(
            base_url,
            &["v2", app_id, client_secret.expose(), api_key.expose()],
        ),
        Credentials::ApiLogin(login) => credential_key(base_url, &["v1", login.expose()]),
    }
}

fn check_base_url(url: &str) -> Result<String> {
    let trimmed = url.trim_end_matches('/');
    let uri: ureq::http::Uri = trimmed
        .parse()
        .map_err(|_| Error::Config(format!("base URL {url:?} is not a valid URL")))?;
    match uri.scheme_str() {
        Some("http") | Some("https") => {}
        _ => {
            return Err(Error::Config(format!(
                "base URL {url:?} must start with https:// (or http:// for a local emulator)"
            )))
        }
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(Error::Config(format!("base URL {url:?} has no host")));
    }
    if uri.query().is_some() {
        return Err(Error::Config(format!(
            "base URL {url:?} must not have a query"
        )));
    }
    Ok(trimmed.to_owned())
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
/// use iikocloud::{Client, models::OrganizationsRequest};
///
/// let client = Client::builder()
///     .v2("my-app-id", "my-client-secret", "my-api-key")
///     .build()?;
/// for org in client.organizations(&OrganizationsRequest::default())?.organizations {
///     println!("{} {}", org.id, org.name.unwrap_or_default());
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

/// A request ready to send.
struct Call<'a> {
    path: &'a str,
    body: Vec<u8>,
    idempotent: bool,
    authorized: bool,
    server_timeout: Duration,
}

/// An HTTP answer, any status.
struct Answer {
    status: u16,
    body: Vec<u8>,
    retry_after: Option<Duration>,
    content_type: Option<String>,
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
        if timeout < Duration::from_secs(1) || timeout > MAX_SERVER_TIMEOUT {
            return Err(Error::invalid(format!(
                "timeout must be between 1 s and 1 h, got {timeout:?}"
            )));
        }
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

    /// Organizations available to the API key (`POST /api/1/organizations`).
    pub fn organizations(&self, request: &OrganizationsRequest) -> Result<OrganizationsResponse> {
        if let Some(ids) = &request.organization_ids {
            check_uuids("organizationIds", ids)?;
        }
        self.typed("/api/1/organizations", request, true)
    }

    /// Webhook settings of an organization (`POST /api/1/webhooks/settings`).
    pub fn webhook_settings(&self, organization_id: &str) -> Result<WebhookSettings> {
        check_uuid("organizationId", organization_id)?;
        self.typed(
            "/api/1/webhooks/settings",
            &serde_json::json!({ "organizationId": organization_id }),
            true,
        )
    }

    /// Sets the webhook of an organization (`POST /api/1/webhooks/update_settings`).
    pub fn update_webhook_settings(
        &self,
        request: &UpdateWebhookSettingsRequest,
    ) -> Result<CorrelationIdResponse> {
        check_uuid("organizationId", &request.organization_id)?;
        check_webhook_uri(&request.web_hooks_uri)?;
        if request.auth_token.as_ref().is_some_and(Secret::is_blank) {
            return Err(Error::invalid(
                "authToken is empty; leave it out or set a long random token",
            ));
        }
        // Setting the same settings twice leaves the same state: safe to retry.
        self.typed("/api/1/webhooks/update_settings", request, true)
    }

    /// Out-of-stock items (`POST /api/1/stop_lists`).
    pub fn stop_lists(&self, request: &StopListsRequest) -> Result<StopListsResponse> {
        if request.organization_ids.is_empty() {
            return Err(Error::invalid(
                "organizationIds must name at least one organization",
            ));
        }
        check_uuids("organizationIds", &request.organization_ids)?;
        if let Some(ids) = &request.terminal_groups_ids {
            check_uuids("terminalGroupsIds", ids)?;
        }
        self.typed("/api/1/stop_lists", request, true)
    }

    /// Calls any endpoint with a JSON object body, with the same token
    /// handling, timeouts and errors as the typed calls. Not retried unless
    /// `options.idempotent` says the call is safe to repeat.
    pub fn call(&self, path: &str, body: &Value, options: &CallOptions) -> Result<Value> {
        check_path(path)?;
        if !body.is_object() {
            return Err(Error::invalid("the body must be a JSON object"));
        }
        let server_timeout = match options.timeout {
            Some(t) => self.with_timeout(t)?.server_timeout,
            None => self.server_timeout,
        };
        let answer = self.execute(&Call {
            path,
            body: serde_json::to_vec(body).map_err(|e| Error::invalid(e.to_string()))?,
            idempotent: options.idempotent,
            authorized: true,
            server_timeout,
        })?;
        decode(path, &answer)
    }

    pub(crate) fn typed<T: DeserializeOwned>(
        &self,
        path: &str,
        request: &(impl Serialize + ?Sized),
        idempotent: bool,
    ) -> Result<T> {
        let body = serde_json::to_vec(request).map_err(|e| Error::invalid(e.to_string()))?;
        let answer = self.execute(&Call {
            path,
            body,
            idempotent,
            authorized: true,
            server_timeout: self.server_timeout,
        })?;
        decode(path, &answer)
    }

    fn fetch_token(&self) -> Result<Secret> {
        #[derive(serde::Deserialize)]
        struct TokenAnswer {
            token: Option<String>,
        }
        let credentials = &self.inner.credentials;
        let path = credentials.token_path();
        let answer = self.execute(&Call {
            path,
            body: credentials.token_body().to_string().into_bytes(),
            idempotent: true,
            authorized: false,
            server_timeout: self.server_timeout,
        })?;
        // A token answer's body is the token: an error must not carry it.
        let parsed: TokenAnswer = decode(path, &answer).map_err(|e| match e {
            Error::Decode {
                path,
                status,
                message,
                correlation_id,
                ..
            } => Error::Decode {
                path,
                status,
                message,
                correlation_id,
                body: String::new(),
            },
            other => other,
        })?;
        match parsed.token {
            Some(t) if !t.trim().is_empty() => Ok(Secret::new(t)),
            _ => Err(Error::Decode {
                path: path.to_owned(),
                status: answer.status,
                message: "the answer has no token".into(),
                correlation_id: error_fields(&answer.body).correlation_id,
                body: String::new(),
            }),
        }
    }

    /// Sends a call: attaches the token, retries what may be retried, and
    /// turns every non-2xx answer into an error.
    fn execute(&self, call: &Call<'_>) -> Result<Answer> {
        let mut attempt = 0u32;
        let mut refreshed_after_401 = false;
        loop {
            let token = if call.authorized {
                Some(self.access_token()?)
            } else {
                None
            };
            let result = self.send_once(call, token.as_ref());
            let retryable = call.idempotent && attempt < self.inner.retries;
            match result {
                Ok(answer) if (200..300).contains(&answer.status) => return Ok(answer),
                Ok(answer) if answer.status == 401 && call.authorized && !refreshed_after_401 => {
                    // The token may have expired early or been revoked: one new
                    // token, one more try. A second 401 is an auth error.
                    refreshed_after_401 = true;
                    if let Some(t) = &token {
                        self.inner.tokens.invalidate(t);
                    }
                    log::debug!("{}: 401, refreshing the token once", call.path);
                }
                Ok(answer) if answer.status >= 500 && retryable => {
                    attempt += 1;
                    self.backoff(call.path, attempt, &format!("HTTP {}", answer.status));
                }
                Ok(answer) => return Err(api_error(call.path, &answer)),
                Err(e) if retryable && worth_retrying(&e) => {
                    attempt += 1;
                    self.backoff(call.path, attempt, &e.to_string());
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn backoff(&self, path: &str, attempt: u32, cause: &str) {
        let base = self
            .inner
            .retry_base_delay
            .saturating_mul(1u32 << (attempt - 1).min(16))
            .min(MAX_RETRY_DELAY);
        // Full jitter between half and the whole delay spreads out clients
        // that failed together.
        let delay = base.mul_f64(0.5 + fastrand::f64() * 0.5);
        log::debug!(
            "{path}: {cause}; retry {attempt} in {} ms",
            delay.as_millis()
        );
        std::thread::sleep(delay);
    }

    fn send_once(&self, call: &Call<'_>, token: Option<&AccessToken>) -> Result<Answer> {
        let url = format!("{}{}", self.inner.base_url, call.path);
        let timeout_secs =
            call.server_timeout.as_secs() + u64::from(call.server_timeout.subsec_nanos() > 0);
        let started = Instant::now();
        let mut request = self
            .inner
            .agent
            .post(&url)
            .config()
            .timeout_global(Some(call.server_timeout + self.inner.client_timeout_margin))
            .build()
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("Timeout", timeout_secs.to_string());
        if let Some(t) = token {
            request = request.header("Authorization", format!("Bearer {}", t.expose()));
        }
        let outcome = request.send(&call.body[..]).and_then(|mut response| {
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let retry_after = header("Retry-After").and_then(|v| parse_retry_after(&v));
            let content_type = header("Content-Type");
            let body = response
                .body_mut()
                .with_config()
                .limit(self.inner.max_response_bytes)
                .read_to_vec()?;
            Ok(Answer {
                status,
                body,
                retry_after,
                content_type,
            })
        });
        let elapsed = started.elapsed().as_millis();
        match outcome {
            Ok(answer) => {
                log::debug!(
                    "POST {} -> {} in {elapsed} ms, correlationId {}",
                    call.path,
                    answer.status,
                    error_fields(&answer.body)
                        .correlation_id
                        .as_deref()
                        .unwrap_or("-")
                );
                Ok(answer)
            }
            Err(e) => {
                let error = transport_error(call.path, e, &self.inner);
                log::debug!("POST {} failed in {elapsed} ms: {error}", call.path);
                Err(error)
            }
        }
    }
}

/// `Retry-After` in seconds; the HTTP-date form is not used by the service.
fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// A certificate or a proxy's refusal will not change on a retry.
fn worth_retrying(e: &Error) -> bool {
    match e {
        Error::Transport {
            kind: TransportErrorKind::Tls,
            ..
        } => false,
        Error::Transport {
            kind: TransportErrorKind::Proxy,
            source: Some(s),
            ..
        } => !matches!(
            s.downcast_ref::<ureq::Error>(),
            Some(ureq::Error::ConnectProxyFailed(_))
        ),
        _ => true,
    }
}

/// The rustls error behind a failed handshake: ureq passes it on as is, or
/// (from the handshake's I/O) wrapped in an `io::Error`.
fn rustls_error(e: &ureq::Error) -> Option<&rustls::Error> {
    match e {
        ureq::Error::Rustls(r) => Some(r),
        ureq::Error::Io(io) => io.get_ref()?.downcast_ref::<rustls::Error>(),
        _ => None,
    }
}

/// Words for a proxy's refusal, from ureq's "proxy server responded 407/..."
fn proxy_refusal(label: &str, reason: &str) -> String {
    let status: Option<u16> = reason
        .split(|c: char| !c.is_ascii_digit())
        .find(|part| part.len() == 3)
        .and_then(|part| part.parse().ok());
    match status {
        Some(407) => format!(
            "the proxy {label} asks for credentials (HTTP 407): check the user and password \
             in the proxy URL"
        ),
        Some(403) => format!(
            "the proxy {label} refused the connection (HTTP 403): ask its administrator to \
             allow this host"
        ),
        Some(s) => format!("the proxy {label} could not open a tunnel to the service (HTTP {s})"),
        None => format!("the proxy {label} failed: {reason}"),
    }
}

fn transport_error(path: &str, e: ureq::Error, inner: &Inner) -> Error {
    use std::io::ErrorKind as Io;
    let limit = inner.max_response_bytes;
    let proxy_label = inner.proxy.as_ref().and_then(|p| p.label.as_deref());
    let tls = rustls_error(&e).map(|r| network::tls_words(&inner.host, r));
    let kind = match &e {
        _ if tls.is_some() => TransportErrorKind::Tls,
        ureq::Error::ConnectProxyFailed(_) => TransportErrorKind::Proxy,
        ureq::Error::Timeout(_) => TransportErrorKind::Timeout,
        ureq::Error::HostNotFound => TransportErrorKind::Dns,
        ureq::Error::ConnectionFailed => TransportErrorKind::Connect,
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::Pem(_) => {
            TransportErrorKind::Tls
        }
        // std reports a failed getaddrinfo as an uncategorized io::Error with
        // this text; ureq passes it on as is.
        ureq::Error::Io(io) if io.to_string().contains("failed to lookup address") => {
            TransportErrorKind::Dns
        }
        ureq::Error::Io(io) => match io.kind() {
            Io::TimedOut | Io::WouldBlock => TransportErrorKind::Timeout,
            Io::ConnectionRefused
            | Io::AddrNotAvailable
            | Io::NetworkUnreachable
            | Io::HostUnreachable => TransportErrorKind::Connect,
            _ => TransportErrorKind::Io,
        },
        ureq::Error::Protocol(_) => TransportErrorKind::Io,
        _ => TransportErrorKind::Other,
    };
    // With a proxy in use the only host this client resolves and connects
    // to is the proxy: a failure there is the proxy's.
    let kind = match (kind, proxy_label) {
        (TransportErrorKind::Dns | TransportErrorKind::Connect, Some(_)) => {
            TransportErrorKind::Proxy
        }
        (kind, _) => kind,
    };
    let message = match &e {
        _ if tls.is_some() => tls.unwrap_or_default(),
        ureq::Error::ConnectProxyFailed(reason) => {
            proxy_refusal(proxy_label.unwrap_or("in use"), reason)
        }
        other if kind == TransportErrorKind::Proxy => format!(
            "the proxy {} could not be reached: {other}; check the proxy address",
            proxy_label.unwrap_or("in use")
        ),
        ureq::Error::BodyExceedsLimit(_) => {
            format!("the response is larger than the {limit}-byte limit (max_response_bytes)")
        }
        other => other.to_string(),
    };
    Error::Transport {
        kind,
        path: path.to_owned(),
        message,
        source: Some(Arc::new(e)),
    }
}

/// What an error body says, in any of the shapes the service uses.
#[derive(Default)]
struct ErrorFields {
    correlation_id: Option<String>,
    description: Option<String>,
    code: Option<String>,
    details: Option<String>,
}

fn error_fields(body: &[u8]) -> ErrorFields {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) else {
        return ErrorFields::default();
    };
    let text = |key: &str| match map.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(Value::String(_)) => None,
        Some(other) => Some(other.to_string()),
    };
    ErrorFields {
        correlation_id: text("correlationId"),
        description: text("errorDescription").or_else(|| text("message")),
        code: text("error").or_else(|| text("code")),
        details: text("details"),
    }
}

fn api_error(path: &str, answer: &Answer) -> Error {
    let fields = error_fields(&answer.body);
    let kind = ApiErrorKind::from_status(answer.status);
    Error::Api(Box::new(ApiError {
        status: answer.status,
        kind,
        path: path.to_owned(),
        error_description: fields.description,
        error_code: fields.code,
        details: fields.details,
        correlation_id: fields.correlation_id,
        retry_after: answer.retry_after,
        body: String::from_utf8_lossy(&answer.body).into_owned(),
    }))
}

fn decode<T: DeserializeOwned>(path: &str, answer: &Answer) -> Result<T> {
    serde_json::from_slice(&answer.body).map_err(|e| {
        // serde quotes offending values; in an answer they may be tokens.
        let message = crate::error::without_quoted_values(&e.to_string());
        let not_json = answer
            .content_type
            .as_deref()
            .is_some_and(|c| !c.to_ascii_lowercase().contains("json"));
        let mut message = message;
        if not_json {
            message.push_str(&format!(
                " (Content-Type was {:?}, not JSON)",
                answer.content_type.as_deref().unwrap_or_default()
            ));
        }
        Error::Decode {
            path: path.to_owned(),
            status: answer.status,
            message,
            correlation_id: error_fields(&answer.body).correlation_id,
            body: String::from_utf8_lossy(&answer.body).into_owned(),
        }
    })
}

/// Whether `s` is a UUID in the usual hyphenated form.
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36 && uuid::Uuid::try_parse(s).is_ok()
}

fn check_uuid(field: &str, value: &str) -> Result<()> {
    if is_uuid(value) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{field} must be a UUID like 7f2c6b2e-0000-4000-8000-000000000000, got {value:?}"
        )))
    }
}

fn check_uuids(field: &str, values: &[String]) -> Result<()> {
    values.iter().try_for_each(|v| check_uuid(field, v))
}

fn check_webhook_uri(uri: &str) -> Result<()> {
    let bad = || {
        Error::invalid(format!(
            "webHooksUri must be an absolute http:// or https:// URL, got {uri:?}"
        ))
    };
    if uri.trim() != uri || uri.chars().any(char::is_control) {
        return Err(bad());
    }
    let parsed: ureq::http::Uri = uri.parse().map_err(|_| bad())?;
    let scheme_ok = parsed
        .scheme_str()
        .is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"));
    if !scheme_ok || parsed.host().is_none_or(str::is_empty) {
        return Err(bad());
    }
    Ok(())
}

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
    fn bad_configuration_fails_at_build() {
        let err = |b: ClientBuilder| b.build().unwrap_err().to_string();
        assert!(err(Client::builder()).contains("no credentials"));
        assert!(err(Client::builder().v2("", "s", "k")).contains("appId"));
        assert!(err(Client::builder().v2("a", " ", "k")).contains("clientSecret"));
        assert!(err(Client::builder().v2("a", "s", "")).contains("apiKey"));
        assert!(err(Client::builder().api_login("")).contains("apiLogin"));
        let ok = Client::builder().api_login("l");
        assert!(err(ok.clone().base_url("ftp://x")).contains("https://"));
        assert!(err(ok.clone().base_url("not a url")).contains("not a valid URL"));
        assert!(err(ok.clone().timeout(Duration::from_millis(10))).contains("between 1 s"));
        assert!(err(ok
            .clone()
            .timeout(Duration::from_secs(15))
            .client_timeout(Duration::from_secs(15)))
        .contains("longer than the Timeout header"));
        let c = ok.base_url("http://127.0.0.1:1/").build().unwrap();
        assert_eq!(c.base_url(), "http://127.0.0.1:1");
        assert_eq!(c.timeout(), DEFAULT_SERVER_TIMEOUT);
    }

    #[test]
    fn request_checks() {
        assert!(is_uuid("0ae7e972-848d-53c5-8a8f-3a120fa115ba"));
        assert!(!is_uuid("0ae7e972848d53c58a8f3a120fa115ba"));
        assert!(!is_uuid("{0ae7e972-848d-53c5-8a8f-3a120fa115b}"));
        assert!(check_webhook_uri("https://pos.example.com/iiko/hook?x=1").is_ok());
        assert!(check_webhook_uri("http://127.0.0.1:9000/h").is_ok());
        for bad in [
            "",
            "/relative",
            "ftp://x/y",
            "https://",
            " https://x.y",
            "https://x.y/\n",
        ] {
            assert!(check_webhook_uri(bad).is_err(), "{bad:?}");
        }
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

    #[test]
    fn error_bodies_in_every_shape() {
        let f = error_fields(br#"{"correlationId":"c","errorDescription":"d","error":"E"}"#);
        assert_eq!(
            (
                f.correlation_id.as_deref(),
                f.description.as_deref(),
                f.code.as_deref()
            ),
            (Some("c"), Some("d"), Some("E"))
        );
        let f = error_fields(br#"{"message":"m","details":null}"#);
        assert_eq!(f.description.as_deref(), Some("m"));
        assert!(f.details.is_none());
        let f = error_fields(br#"{"message":"m","details":"name: required"}"#);
        assert_eq!(f.details.as_deref(), Some("name: required"));
        let f = error_fields(br#"{"message":"m","details":{"field":"name"}}"#);
        assert_eq!(f.details.as_deref(), Some(r#"{"field":"name"}"#));
        let f = error_fields(b"<html>502 Bad Gateway</html>");
        assert!(f.description.is_none());
        assert_eq!(parse_retry_after(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}
