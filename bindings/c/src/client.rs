//! `iiko_client_options`, `iiko_client` and the calls.

use std::ffi::c_char;
use std::time::{Duration, UNIX_EPOCH};

use iikocloud_core::api::models::organizations::GetOrganizationsResponse;
use iikocloud_core::api::{call_operation_text, OperationCall};
use iikocloud_core::limits::CALL_TIMEOUT;
use iikocloud_core::{CallOptions, Client, ClientBuilder};
use serde::Deserialize;
use serde_json::Value;

use crate::error::{guard, iiko_error, Failure};
use crate::ffi::{arg_str, opt_arg_str, out_ptr, owned_c_string, BoxCastable};
use crate::organizations::iiko_organizations;
use crate::status::*;

/// Settings for `iiko_client_new`: credentials, base URL, timeouts, retries and
/// token cache. Create with `iiko_client_options_new`, free with
/// `iiko_client_options_free` (it may be freed right after `iiko_client_new`).
///
/// Not thread-safe: do not use one options object from two threads at once.
#[allow(non_camel_case_types)]
pub struct iiko_client_options {
    builder: ClientBuilder,
}

impl BoxCastable for iiko_client_options {}

/// A client of the iikoCloud API: a connection pool and a token cache shared
/// by every call.
///
/// Thread-safe: one `const iiko_client *` may be used by any number of threads
/// at once (calls block the calling thread only). Free it once, with
/// `iiko_client_free`, after every thread is done with it.
#[allow(non_camel_case_types)]
pub struct iiko_client {
    client: Client,
}

impl BoxCastable for iiko_client {}

impl iiko_client {
    /// The core client behind the handle.
    pub(crate) fn core(&self) -> &Client {
        &self.client
    }
}

/// `iiko_client_call` flag: the call is safe to repeat (it changes nothing, or
/// sets the same state again), so transport errors and 5xx answers are retried.
/// Never set it on calls that create things (orders, deliveries).
pub const IIKO_CALL_IDEMPOTENT: u32 = 1;

/// Creates client options with the defaults: base URL
/// `https://api-ru.iiko.services`, Timeout header `IIKO_DEFAULT_TIMEOUT_MS`,
/// client timeout Timeout + `IIKO_DEFAULT_CLIENT_TIMEOUT_MARGIN_MS`,
/// `IIKO_DEFAULT_RETRIES` retries of safe calls from
/// `IIKO_DEFAULT_RETRY_BASE_DELAY_MS`, token refresh
/// `IIKO_DEFAULT_REFRESH_MARGIN_MS` before expiry,
/// `IIKO_DEFAULT_FALLBACK_TOKEN_LIFETIME_MS` for tokens without `exp`, answers
/// up to `IIKO_DEFAULT_MAX_RESPONSE_BYTES`. Credentials must be set before
/// `iiko_client_new`.
///
/// On success writes a new handle to `*options_out` (yours; free it with
/// `iiko_client_options_free`).
///
/// # Safety
/// `options_out` must be NULL or writable; `err_out` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_new(
    options_out: *mut *mut iiko_client_options,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        let out = out_ptr(options_out, "options_out")?;
        let options = iiko_client_options {
            builder: Client::builder(),
        };
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(options.into_raw()) };
        Ok(())
    })
}

/// Frees client options. NULL is ignored.
///
/// # Safety
/// `options` must be NULL or a live handle from `iiko_client_options_new`.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_free(options: *mut iiko_client_options) {
    crate::ffi::guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_client_options::free(options) }
    })
}

/// Updates the options in place; shared body of the setters (values are
/// checked by `iiko_client_new`, so no setter fails on a value).
///
/// # Safety
/// `options` must be NULL or a live options handle used by no other thread.
unsafe fn update(
    options: *mut iiko_client_options,
    change: impl FnOnce(ClientBuilder) -> ClientBuilder,
) -> Result<(), Failure> {
    // SAFETY: per the caller.
    let options = unsafe { iiko_client_options::try_mut(options, "options") }?;
    options.builder = change(std::mem::take(&mut options.builder));
    Ok(())
}

/// Sets v2 credentials: `appId` and `clientSecret` from the developer portal
/// and an `apiKey` from iikoWeb. The strings are copied; empty values are
/// refused by `iiko_client_new`.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread; the
/// strings must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_v2(
    options: *mut iiko_client_options,
    app_id: *const c_char,
    client_secret: *const c_char,
    api_key: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (app_id, client_secret, api_key) = unsafe {
            (
                arg_str(app_id, "app_id")?,
                arg_str(client_secret, "client_secret")?,
                arg_str(api_key, "api_key")?,
            )
        };
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.v2(app_id, client_secret, api_key)) }
    })
}

/// Sets legacy `apiLogin` credentials (deprecated by the service, still
/// served). The string is copied.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread;
/// `api_login` must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_api_login(
    options: *mut iiko_client_options,
    api_login: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let api_login = unsafe { arg_str(api_login, "api_login") }?;
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.api_login(api_login)) }
    })
}

/// Sets the service address, e.g. `"https://api-eu.iiko.services"` or a local
/// emulator's `"http://127.0.0.1:8080"`. Checked by `iiko_client_new`.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread;
/// `base_url` must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_base_url(
    options: *mut iiko_client_options,
    base_url: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let url = unsafe { arg_str(base_url, "base_url") }?;
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.base_url(url)) }
    })
}

/// Sets the `Timeout` header in milliseconds (sent in whole seconds, rounded
/// up): how long the service waits for the restaurant terminal before
/// answering 408. Default `IIKO_DEFAULT_TIMEOUT_MS`. Checked by
/// `iiko_client_new` as `iiko_limit_read_arg` checks `"client.timeout"`.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_timeout_ms(
    options: *mut iiko_client_options,
    timeout_ms: u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.timeout(Duration::from_millis(timeout_ms))) }
    })
}

/// Sets how long the client waits for a whole exchange, in milliseconds; it
/// must be longer than the Timeout header. Default: Timeout +
/// `IIKO_DEFAULT_CLIENT_TIMEOUT_MARGIN_MS`. Checked by `iiko_client_new`.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_client_timeout_ms(
    options: *mut iiko_client_options,
    timeout_ms: u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        unsafe {
            update(options, |b| {
                b.client_timeout(Duration::from_millis(timeout_ms))
            })
        }
    })
}

/// Sets how many times a safe call is retried after a transport error or a
/// 5xx (default `IIKO_DEFAULT_RETRIES`; 0: never) and the first backoff delay
/// in milliseconds (default `IIKO_DEFAULT_RETRY_BASE_DELAY_MS`, doubled each
/// time with jitter, at most `IIKO_MAX_RETRY_DELAY_MS`). Calls that create things are never
/// retried.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_retries(
    options: *mut iiko_client_options,
    retries: u32,
    base_delay_ms: u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        unsafe {
            update(options, |b| {
                b.retries(retries)
                    .retry_base_delay(Duration::from_millis(base_delay_ms))
            })
        }
    })
}

/// Sets the token cache: how long before expiry a token is refreshed
/// (milliseconds, default `IIKO_DEFAULT_REFRESH_MARGIN_MS`, at most a tenth of
/// the token's lifetime) and the lifetime assumed for a token without a JWT
/// `exp` (default `IIKO_DEFAULT_FALLBACK_TOKEN_LIFETIME_MS`).
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_token_cache(
    options: *mut iiko_client_options,
    refresh_margin_ms: u64,
    fallback_lifetime_ms: u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        unsafe {
            update(options, |b| {
                b.refresh_margin(Duration::from_millis(refresh_margin_ms))
                    .fallback_token_lifetime(Duration::from_millis(fallback_lifetime_ms))
            })
        }
    })
}

/// Shares the access token with other processes through a file in `dir`
/// (created with mode 0700 if missing; on Windows with a DACL for the
/// current user alone), for share-nothing hosts such as PHP-FPM workers,
/// IIS FastCGI processes or cron jobs: processes with the same base URL and
/// credentials make one token request between them, and a token the service
/// refuses is dropped for all of them. The file holds the token in clear,
/// readable by its owner only (mode 0600, or that DACL): keep `dir` private
/// to the service's user. `dir` is copied; on Unix any bytes are accepted,
/// elsewhere it must be UTF-8 (on Windows a UTF-8 path such as
/// `C:\ProgramData\app\tokens`, not the ANSI code page).
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread; `dir`
/// must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_token_cache_dir(
    options: *mut iiko_client_options,
    dir: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let dir = unsafe { arg_path(dir, "dir") }?;
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.token_cache_dir(dir)) }
    })
}

/// Shares the access token through the store `store_url` names:
/// `"sqlite:///absolute/path.db"` (the processes of one machine) or
/// `"redis://[:password@]host:port/db"` (every machine); `"memory:"` shares
/// nothing beyond the client. Clients with the same base URL and credentials
/// make one token request at a time between them (the others wait and use
/// it), and a token the service refuses is dropped for all. The token is kept
/// under a SHA-256 of the base URL and credentials; no credential is stored.
/// Replaces `iiko_client_options_set_token_cache_dir` when both are set.
///
/// The store is opened now: a malformed URL is `IIKO_STATUS_INVALID_CONFIG`,
/// an unreachable one `IIKO_STATUS_TRANSPORT_CONNECT`; messages never contain
/// the password.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread;
/// `store_url` must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_token_store(
    options: *mut iiko_client_options,
    store_url: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let url = unsafe { crate::ffi::arg_str(store_url, "store_url") }?;
        let store = crate::memory::open_store(url)?;
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.token_store(store)) }
    })
}

/// Reads a path argument: raw bytes on Unix (paths need not be UTF-8 there),
/// UTF-8 elsewhere.
///
/// # Safety
/// `ptr` must be NULL or NUL-terminated.
unsafe fn arg_path(ptr: *const c_char, name: &str) -> Result<std::path::PathBuf, Failure> {
    if ptr.is_null() {
        return Err(Failure::null(name));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: non-NULL and NUL-terminated per the caller.
        let bytes = unsafe { std::ffi::CStr::from_ptr(ptr) }.to_bytes();
        Ok(std::ffi::OsStr::from_bytes(bytes).into())
    }
    #[cfg(not(unix))]
    {
        // SAFETY: per the caller.
        unsafe { arg_str(ptr, name) }.map(Into::into)
    }
}

/// `iiko_client_options_set_trust_roots`: the operating system's trust store
/// (default; the bundled Mozilla roots where the system has none): on Linux
/// the distribution's bundle, on Windows the certificate store (the current
/// user's trusted roots, which include the machine's). On every system
/// `SSL_CERT_FILE` or `SSL_CERT_DIR`, when set, replace it.
pub const IIKO_TRUST_SYSTEM: i32 = 0;
/// `iiko_client_options_set_trust_roots`: only the Mozilla roots bundled in
/// the library, whatever the system trusts.
pub const IIKO_TRUST_BUNDLED: i32 = 1;

/// Also trusts the root certificates in the PEM file at `path`, on top of
/// the roots chosen with `iiko_client_options_set_trust_roots` (a corporate
/// TLS-inspecting proxy's root, a national or a private CA). The path is
/// copied; the file is read by `iiko_client_new`, which fails with
/// `IIKO_STATUS_INVALID_CONFIG` when it cannot be read or holds no
/// certificate. The system store is read once per process and shared.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread; `path`
/// must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_ca_file(
    options: *mut iiko_client_options,
    path: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let path = unsafe { arg_path(path, "path") }?;
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.ca_file(path)) }
    })
}

/// Chooses the roots that verify the service: `IIKO_TRUST_SYSTEM` (default)
/// or `IIKO_TRUST_BUNDLED`. Verification is always on. Any other value fails
/// with `IIKO_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_trust_roots(
    options: *mut iiko_client_options,
    which: i32,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        let trust = match which {
            IIKO_TRUST_SYSTEM => iikocloud_core::TrustRoots::System,
            IIKO_TRUST_BUNDLED => iikocloud_core::TrustRoots::Bundled,
            other => {
                return Err(Failure::new(
                    IIKO_STATUS_INVALID_ARGUMENT,
                    format!(
                        "trust roots must be IIKO_TRUST_SYSTEM or IIKO_TRUST_BUNDLED, got {other}"
                    ),
                ))
            }
        };
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.trust_roots(trust)) }
    })
}

/// Sends requests through a proxy: `"http://host:port"` or
/// `"https://host:port"`, with optional `user:password@` (percent-encode `@`,
/// `:` and `/` in them). Calls tunnel with CONNECT; TLS to the service stays
/// end to end. Without it `HTTPS_PROXY`/`ALL_PROXY`/`HTTP_PROXY` apply. The
/// URL is a secret: messages show only its host and port. Checked by
/// `iiko_client_new`; a refusing proxy gives `IIKO_STATUS_TRANSPORT_PROXY`.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread; `url`
/// must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_proxy(
    options: *mut iiko_client_options,
    url: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let url = unsafe { arg_str(url, "url") }?;
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.proxy(url)) }
    })
}

/// Hosts reached without the proxy, comma-separated: `"example.com"`,
/// `".example.com"` (subdomains) or `"*"`; replaces `NO_PROXY`.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread; `hosts`
/// must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_no_proxy(
    options: *mut iiko_client_options,
    hosts: *const c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let hosts = unsafe { arg_str(hosts, "hosts") }?;
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.no_proxy(hosts)) }
    })
}

/// Sets the largest answer body read, in bytes (default
/// `IIKO_DEFAULT_MAX_RESPONSE_BYTES`); a larger answer fails with
/// `IIKO_STATUS_TRANSPORT_OTHER`. 0 is refused by `iiko_client_new`, as
/// `iiko_limit_read_arg` refuses it for `"client.max_response_bytes"`.
///
/// # Safety
/// `options` must be NULL or a live handle used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_options_set_max_response_bytes(
    options: *mut iiko_client_options,
    max_bytes: u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        unsafe { update(options, |b| b.max_response_bytes(max_bytes)) }
    })
}

/// Creates a client from the options (which are copied: free them whenever
/// you like). Makes no request: the token is fetched on first use.
///
/// On success writes a new handle to `*client_out` (yours; free it with
/// `iiko_client_free`). Fails with `IIKO_STATUS_INVALID_CONFIG` when the
/// options are unusable (no credentials, a bad base URL, timeouts).
///
/// # Safety
/// `options` must be NULL or a live options handle not being changed by
/// another thread; `client_out` and `err_out` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_new(
    options: *const iiko_client_options,
    client_out: *mut *mut iiko_client,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let options = unsafe { iiko_client_options::try_ref(options, "options") }?;
        let out = out_ptr(client_out, "client_out")?;
        let client = options.builder.clone().build()?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(iiko_client { client }.into_raw()) };
        Ok(())
    })
}

/// Frees a client. NULL is ignored. No call on it may be running or start
/// afterwards.
///
/// # Safety
/// `client` must be NULL or a live handle from `iiko_client_new`.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_free(client: *mut iiko_client) {
    crate::ffi::guard_value((), || {
        // SAFETY: per this function's contract.
        unsafe { iiko_client::free(client) }
    })
}

/// Borrows the client of a call.
///
/// # Safety
/// `client` must be NULL or a live client handle.
unsafe fn client_ref<'a>(client: *const iiko_client) -> Result<&'a Client, Failure> {
    // SAFETY: per the caller.
    unsafe { iiko_client::try_ref(client, "client") }.map(|c| &c.client)
}

/// Parses a JSON argument into a request shape of ours.
fn parse_request<'a, T: Deserialize<'a>>(json: &'a str, name: &str) -> Result<T, Failure> {
    serde_json::from_str(json).map_err(|e| Failure::invalid_json(name, &e))
}

/// The four named endpoint functions are this: the generated operation's
/// checks, its retry rule and the answer's text as the service wrote it, the
/// same path `iiko_client_call_operation` takes.
fn call_named(client: &Client, name: &str, request: &Value) -> Result<String, Failure> {
    Ok(call_operation_text(
        client,
        name,
        request,
        &OperationCall::default(),
    )?)
}

/// A valid access token: the cached one, or a new one when there is none or it
/// expires within the refresh margin. Concurrent callers share one request.
///
/// On success writes the token to `*token_out` (yours; free it with
/// `iiko_string_free`; it is a credential: do not log it) and, when
/// `expires_at_ms_out` is not NULL, its expiry in milliseconds since the Unix
/// epoch to `*expires_at_ms_out`.
///
/// # Safety
/// `client` must be NULL or a live client; the out pointers must be NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_access_token(
    client: *const iiko_client,
    token_out: *mut *mut c_char,
    expires_at_ms_out: *mut i64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let client = unsafe { client_ref(client) }?;
        let out = out_ptr(token_out, "token_out")?;
        let token = client.access_token()?;
        let expires_ms = token
            .expires_at()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        // SAFETY: checked non-NULL / NULL-tested; writable per the contract.
        unsafe {
            out.write(owned_c_string(token.expose()));
            if !expires_at_ms_out.is_null() {
                expires_at_ms_out.write(expires_ms);
            }
        }
        Ok(())
    })
}

/// Organizations the API key can see (`POST /api/1/organizations`).
///
/// `request_json` is the request body as UTF-8 JSON, e.g.
/// `{"organizationIds":["…"],"returnAdditionalInfo":true}`; NULL means `{}`
/// (every organization, Simple shape). The generated operation
/// `organizations` (`IIKO_OP_ORGANIZATIONS`) checks and sends it, as
/// `iiko_client_call_operation` would: a key that is no field of the request
/// is refused (`IIKO_STATUS_INVALID_ARGUMENT`, naming the nearest field), ids
/// must be UUIDs.
///
/// On success writes a new handle to `*organizations_out` (yours; free it with
/// `iiko_organizations_free`): typed accessors plus the full answer as JSON.
///
/// # Safety
/// `client` must be NULL or a live client; `request_json` must be NULL or
/// NUL-terminated; the out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_organizations(
    client: *const iiko_client,
    request_json: *const c_char,
    organizations_out: *mut *mut iiko_organizations,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (client, json) = unsafe {
            (
                client_ref(client)?,
                opt_arg_str(request_json, "request_json")?,
            )
        };
        let out = out_ptr(organizations_out, "organizations_out")?;
        let request = parse_request::<Value>(json.unwrap_or("{}"), "request_json")?;
        let json = call_named(client, "organizations", &request)?;
        // The generated reader keeps what it cannot type, so only an answer
        // that is no object fails here: the service's fault, as before.
        let response: GetOrganizationsResponse = serde_json::from_str(&json).map_err(|e| {
            let e = iikocloud_core::error::without_quoted_values(&e.to_string());
            Failure::new(
                IIKO_STATUS_API_DECODE,
                format!("/api/1/organizations: the answer does not fit: {e}"),
            )
        })?;
        let handle = iiko_organizations::new(&response, json);
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(handle.into_raw()) };
        Ok(())
    })
}

/// Webhook settings of an organization (`POST /api/1/webhooks/settings`):
/// the generated operation `webhooks.settings` with
/// `{"organizationId": organization_id}`.
///
/// On success writes the answer as JSON to `*json_out` (yours; free it with
/// `iiko_string_free`): `{"correlationId", "apiLoginName", "webHooksUri",
/// "authToken", "webHooksFilter", …}`. `authToken` is your webhook token in
/// clear: do not log the JSON.
///
/// # Safety
/// `client` must be NULL or a live client; `organization_id` must be NULL or
/// NUL-terminated; the out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_webhook_settings(
    client: *const iiko_client,
    organization_id: *const c_char,
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (client, id) = unsafe {
            (
                client_ref(client)?,
                arg_str(organization_id, "organization_id")?,
            )
        };
        let out = out_ptr(json_out, "json_out")?;
        let request = serde_json::json!({ "organizationId": id });
        let json = call_named(client, "webhooks.settings", &request)?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(owned_c_string(&json)) };
        Ok(())
    })
}

/// Sets the webhook of an organization (`POST /api/1/webhooks/update_settings`).
///
/// `request_json`: `{"organizationId":"…","webHooksUri":"https://…",
/// "authToken":"…","webHooksFilter":{…}}` (`authToken` and `webHooksFilter`
/// optional; choose a long random token). The generated operation
/// `webhooks.update_settings` checks and sends it: the URI must be absolute
/// http(s), a key that is no field is `IIKO_STATUS_INVALID_ARGUMENT`. A
/// command, so never retried.
///
/// On success, when `json_out` is not NULL, writes the answer
/// (`{"correlationId":"…"}`) to `*json_out` (yours; free it with
/// `iiko_string_free`).
///
/// # Safety
/// `client` must be NULL or a live client; `request_json` must be NULL or
/// NUL-terminated; the out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_update_webhook_settings(
    client: *const iiko_client,
    request_json: *const c_char,
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (client, json) =
            unsafe { (client_ref(client)?, arg_str(request_json, "request_json")?) };
        let request = parse_request::<Value>(json, "request_json")?;
        let json = call_named(client, "webhooks.update_settings", &request)?;
        if !json_out.is_null() {
            // SAFETY: non-NULL; writable per the contract.
            unsafe { json_out.write(owned_c_string(&json)) };
        }
        Ok(())
    })
}

/// Out-of-stock items (`POST /api/1/stop_lists`).
///
/// `request_json`: `{"organizationIds":["…"],"returnSize":false,
/// "terminalGroupsIds":["…"]}` (at least one organization), checked and sent
/// by the generated operation `stop_lists`.
///
/// On success writes the answer as JSON to `*json_out` (yours; free it with
/// `iiko_string_free`), as the service wrote it: balances keep every digit.
///
/// # Safety
/// `client` must be NULL or a live client; `request_json` must be NULL or
/// NUL-terminated; the out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_stop_lists(
    client: *const iiko_client,
    request_json: *const c_char,
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (client, json) =
            unsafe { (client_ref(client)?, arg_str(request_json, "request_json")?) };
        let out = out_ptr(json_out, "json_out")?;
        let request = parse_request::<Value>(json, "request_json")?;
        let json = call_named(client, "stop_lists", &request)?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(owned_c_string(&json)) };
        Ok(())
    })
}

/// Calls any endpoint (`POST <base URL><path>`) with a JSON object body, with
/// the same token handling, timeouts and errors as the typed calls.
///
/// `path` looks like `"/api/1/nomenclature"`; `body_json` must be a JSON
/// object (NULL means `{}`); `timeout_ms` is this call's Timeout header (0: the
/// client's; read as `iiko_limit_read_arg` reads `"call.timeout"`); `flags` is 0 or `IIKO_CALL_IDEMPOTENT` (unknown bits are refused
/// with `IIKO_STATUS_INVALID_ARGUMENT`). Without `IIKO_CALL_IDEMPOTENT` the
/// call is never retried.
///
/// The body is sent and the answer returned as written, so numbers keep
/// every digit both ways (amounts never pass through a double).
///
/// On success writes the answer as JSON to `*json_out` (yours; free it with
/// `iiko_string_free`).
///
/// # Safety
/// `client` must be NULL or a live client; the strings must be NULL or
/// NUL-terminated; the out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_call(
    client: *const iiko_client,
    path: *const c_char,
    body_json: *const c_char,
    timeout_ms: u64,
    flags: u32,
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (client, path, body) = unsafe {
            (
                client_ref(client)?,
                arg_str(path, "path")?,
                opt_arg_str(body_json, "body_json")?,
            )
        };
        let out = out_ptr(json_out, "json_out")?;
        if flags & !IIKO_CALL_IDEMPOTENT != 0 {
            return Err(Failure::invalid_argument(format!(
                "unknown flags 0x{flags:x}; use 0 or IIKO_CALL_IDEMPOTENT"
            )));
        }
        // Checked here for IIKO_STATUS_INVALID_JSON, then sent as written:
        // numbers keep every digit (see Client::call_text).
        let body = body.unwrap_or("{}");
        parse_request::<serde::de::IgnoredAny>(body, "body_json")?;
        let mut options = CallOptions::default();
        if flags & IIKO_CALL_IDEMPOTENT != 0 {
            options = options.idempotent();
        }
        if let Some(ms) = crate::limits::read_raw(&CALL_TIMEOUT, timeout_ms)? {
            options = options.timeout(Duration::from_millis(ms));
        }
        let json = client.call_text(path, body, &options)?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(owned_c_string(&json)) };
        Ok(())
    })
}
