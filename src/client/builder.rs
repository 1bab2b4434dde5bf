//! Configuration of a client, checked when it is built.

use std::sync::Arc;
use std::time::Duration;

use super::credentials::token_key;
use super::resolver::CachingResolver;
use super::{
    Client, Credentials, Inner, DEFAULT_BASE_URL, DEFAULT_CLIENT_TIMEOUT_MARGIN,
    DEFAULT_FALLBACK_TOKEN_LIFETIME, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REFRESH_MARGIN,
    DEFAULT_RETRIES, DEFAULT_RETRY_BASE_DELAY, DEFAULT_SERVER_TIMEOUT, USER_AGENT,
};
use crate::error::{Error, Result};
use crate::limits;
use crate::network::{self, TrustRoots};
use crate::token::{Clock, SharedToken, SystemClock, TokenCache};
use crate::token_file::TokenFile;
use crate::Secret;

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
    /// with mode 0700 if missing; on Windows with a DACL that lets only the
    /// current user in). For share-nothing runtimes (PHP-FPM, IIS FastCGI,
    /// gunicorn workers, cron jobs): processes using the same base URL and
    /// credentials make one token request between them, and a token the
    /// service refuses is dropped for all of them. The file name is a hash of
    /// the base URL and credentials; the file holds the token in clear,
    /// readable by its owner only (mode 0600, or that DACL on Windows), so
    /// keep `dir` private to the service's user.
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
        limits::CLIENT_TIMEOUT
            .check_duration(self.server_timeout)
            .map_err(as_config)?;
        let client_timeout = self
            .client_timeout
            .unwrap_or(self.server_timeout + DEFAULT_CLIENT_TIMEOUT_MARGIN);
        limits::CLIENT_CLIENT_TIMEOUT
            .check_duration(client_timeout)
            .map_err(as_config)?;
        if client_timeout <= self.server_timeout {
            return Err(Error::Config(format!(
                "client timeout ({client_timeout:?}) must be longer than the Timeout header \
                 ({:?}), or the client gives up before the service can answer 408",
                self.server_timeout
            )));
        }
        limits::CLIENT_MAX_RESPONSE_BYTES
            .read_raw(self.max_response_bytes)
            .map_err(as_config)?;
        let roots = network::root_certs(self.trust, self.ca_file.as_deref())?;
        let proxy = network::proxy_setting(self.proxy.as_ref(), self.no_proxy.as_deref())?;
        let proxied = network::proxied(&proxy, &base_url);
        let config = ureq::Agent::config_builder()
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build())
            .proxy(proxy.proxy.clone())
            .http_status_as_error(false)
            .user_agent(USER_AGENT)
            .max_redirects(0)
            .timeout_global(Some(client_timeout))
            .timeout_connect(Some(client_timeout.min(Duration::from_secs(10))))
            .build();
        let agent = ureq::Agent::with_parts(
            config,
            ureq::unversioned::transport::DefaultConnector::default(),
            CachingResolver::default(),
        );
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

/// A limit the configuration breaks is a configuration error.
fn as_config(e: Error) -> Error {
    match e {
        Error::InvalidInput(m) => Error::Config(m),
        other => other,
    }
}

fn open_token_dir(
    dir: &std::path::Path,
    base_url: &str,
    credentials: &Credentials,
) -> Result<TokenFile> {
    crate::owner_only::create_dir_all(dir).map_err(|e| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Client;

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
}
