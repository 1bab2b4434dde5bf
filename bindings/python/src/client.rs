//! `iikocloud._native.NativeClient`: the blocking core client, called with
//! the GIL released. The Python class `iikocloud.Client` wraps it and turns
//! the returned dicts into typed results.

use std::sync::RwLock;
use std::time::Duration;

use iikocloud::api::{RequestKeys, WaitOptions};
use iikocloud::limits::{
    Given, CALL_TIMEOUT, CLIENT_CLIENT_TIMEOUT, CLIENT_MAX_RESPONSE_BYTES, CLIENT_RETRIES,
    CLIENT_TIMEOUT,
};
use iikocloud::{CallOptions, Client, ClientBuilder, Secret};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyDict, PyType};

use crate::convert::{decimal_type, from_py, to_py};
use crate::errors::{detached, guard, invalid_input, to_pyerr, unreadable_answer, Answered};
use crate::limits;
use crate::logbridge;

/// A core client plus what is needed to rebuild it in a forked child.
#[pyclass(frozen, module = "iikocloud._native")]
pub struct NativeClient {
    builder: ClientBuilder,
    /// The client of the process that made it. After `fork()` the child gets
    /// a fresh one: a connection pool shared with the parent would mix both
    /// processes' bytes on one socket.
    state: RwLock<(u32, Client)>,
}

/// Reads one option of the dict `Client` passes (`iikocloud.ClientOptions`,
/// names already checked, durations in seconds): absent and `None` both keep
/// the core's default; a value of the wrong type is a `TypeError` naming the
/// option and an out-of-range number an `OverflowError`, as for a keyword
/// argument.
macro_rules! option {
    ($options:expr, $name:literal) => {
        match $options.get_item($name)? {
            Some(v) if !v.is_none() => Some(v.extract().map_err(|e: PyErr| {
                let py = $options.py();
                if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) {
                    pyo3::exceptions::PyTypeError::new_err(format!(
                        "argument '{}': {}",
                        $name,
                        e.value(py)
                    ))
                } else {
                    e
                }
            })?),
            _ => None,
        }
    };
}

impl NativeClient {
    /// Calls the operation `name` and answers its JSON text as the service
    /// wrote it (the call is made without the GIL).
    fn operation_text(
        &self,
        py: Python<'_>,
        name: &str,
        request: &Bound<'_, PyAny>,
        timeout: Option<f64>,
        allow_unknown_fields: bool,
    ) -> PyResult<String> {
        logbridge::refresh(py);
        let body = json_arg(request)?;
        let timeout = call_timeout(py, timeout)?;
        let call = iikocloud::api::OperationCall {
            timeout,
            keys: request_keys(allow_unknown_fields),
            ..Default::default()
        };
        detached(py, || {
            iikocloud::api::call_operation_text(&self.client()?, name, &body, &call)
        })
    }

    /// The client for this process (rebuilt once after a fork). Called
    /// without the GIL.
    fn client(&self) -> Result<Client, iikocloud::Error> {
        let pid = std::process::id();
        {
            let state = self.state.read().unwrap_or_else(|e| e.into_inner());
            if state.0 == pid {
                return Ok(state.1.clone());
            }
        }
        let mut state = self.state.write().unwrap_or_else(|e| e.into_inner());
        if state.0 != pid {
            let timeout = state.1.timeout();
            *state = (pid, self.builder.clone().build()?.with_timeout(timeout)?);
        }
        Ok(state.1.clone())
    }

    fn from_client(builder: ClientBuilder, client: Client) -> NativeClient {
        NativeClient {
            builder,
            state: RwLock::new((std::process::id(), client)),
        }
    }
}

/// How Python requests' keys are read: the document's names or the models'
/// snake-case attribute names, and no key that is no field unless the call
/// allows it.
fn request_keys(allow_unknown_fields: bool) -> RequestKeys {
    RequestKeys::default()
        .with_snake_case(true)
        .allowing_unknown(allow_unknown_fields)
}

/// A request given as JSON text or as a Python object of JSON values.
pub fn json_arg(obj: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if let Ok(text) = obj.cast::<pyo3::types::PyString>() {
        let text = text.to_cow()?;
        return serde_json::from_str(&text)
            .map_err(|e| invalid_input(obj.py(), &format!("the request is not JSON: {e}")));
    }
    if obj.is_none() {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    from_py(obj)
}

/// The wait settings as the core reads them (`wait.timeout`,
/// `wait.first_pause`, `wait.max_pause`); `None` keeps a default.
fn wait_options(
    py: Python<'_>,
    timeout: Option<f64>,
    first_pause: Option<f64>,
    max_pause: Option<f64>,
) -> PyResult<WaitOptions> {
    let given = |v: Option<f64>| v.map_or(Given::Absent, Given::Seconds);
    WaitOptions::read(given(timeout), given(first_pause), given(max_pause))
        .map_err(|e| to_pyerr(py, &e))
}

/// One call's `Timeout` as the core reads it (`call.timeout`).
fn call_timeout(py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Duration>> {
    limits::seconds(py, &CALL_TIMEOUT, timeout)
}

/// Reads, checks and writes back the request of operation `name` without
/// sending it (`iikocloud::api::prepare_request`): the JSON text that would
/// go out, or `InvalidInputError`.
#[pyfunction]
#[pyo3(signature = (name, request, *, allow_unknown_fields=false))]
pub fn prepare_request(
    py: Python<'_>,
    name: String,
    request: &Bound<'_, PyAny>,
    allow_unknown_fields: bool,
) -> PyResult<String> {
    guard(py, || {
        let body = json_arg(request)?;
        let out =
            iikocloud::api::prepare_request_with(&name, &body, request_keys(allow_unknown_fields))
                .map_err(|e| to_pyerr(py, &e))?;
        Ok(out.to_string())
    })
}

/// Every operation of the core's table: `(name, method, path, command,
/// safe_to_retry, deprecated, restriction_group)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn operations() -> Vec<(
    &'static str,
    &'static str,
    &'static str,
    bool,
    bool,
    bool,
    Option<&'static str>,
)> {
    iikocloud::api::OPERATIONS
        .iter()
        .map(|o| {
            (
                o.name,
                o.method,
                o.path,
                o.command,
                o.safe_to_retry,
                o.deprecated,
                o.restriction_group,
            )
        })
        .collect()
}

#[pymethods]
impl NativeClient {
    #[new]
    fn new(py: Python<'_>, options: &Bound<'_, PyDict>) -> PyResult<NativeClient> {
        let app_id: Option<String> = option!(options, "app_id");
        let client_secret: Option<String> = option!(options, "client_secret");
        let api_key: Option<String> = option!(options, "api_key");
        let api_login: Option<String> = option!(options, "api_login");
        let base_url: Option<String> = option!(options, "base_url");
        let timeout: Option<f64> = option!(options, "timeout");
        let client_timeout: Option<f64> = option!(options, "client_timeout");
        let retries: Option<i128> = option!(options, "retries");
        let max_response_bytes: Option<i128> = option!(options, "max_response_bytes");
        let token_cache_dir: Option<std::path::PathBuf> = option!(options, "token_cache_dir");
        let ca_file: Option<std::path::PathBuf> = option!(options, "ca_file");
        let trust: Option<String> = option!(options, "trust");
        let proxy: Option<String> = option!(options, "proxy");
        let no_proxy: Option<String> = option!(options, "no_proxy");
        let token_store: Option<String> = option!(options, "token_store");
        guard(py, || {
            logbridge::refresh(py);
            let mut b = Client::builder();
            b = match (app_id, client_secret, api_key, api_login) {
                (Some(app), Some(secret), Some(key), None) => b.v2(app, secret, key),
                (None, None, None, Some(login)) => b.api_login(Secret::new(login)),
                (None, None, None, None) => {
                    return Err(invalid_input(
                        py,
                        "no credentials: pass app_id, client_secret and api_key, or api_login",
                    ))
                }
                (_, _, _, Some(_)) => {
                    return Err(invalid_input(
                        py,
                        "pass either app_id, client_secret and api_key, or api_login, not both",
                    ))
                }
                _ => {
                    return Err(invalid_input(
                        py,
                        "v2 credentials need all three of app_id, client_secret and api_key",
                    ))
                }
            };
            if let Some(url) = base_url {
                b = b.base_url(url);
            }
            // Each value as the core reads it; what is not given keeps the
            // builder's default (the same core constant).
            if let Some(t) = limits::seconds(py, &CLIENT_TIMEOUT, timeout)? {
                b = b.timeout(t);
            }
            if let Some(t) = limits::seconds(py, &CLIENT_CLIENT_TIMEOUT, client_timeout)? {
                b = b.client_timeout(t);
            }
            if retries.is_some() {
                let r = limits::whole(py, &CLIENT_RETRIES, retries)?.unwrap_or_default();
                b = b.retries(u32::try_from(r).unwrap_or(u32::MAX));
            }
            if max_response_bytes.is_some() {
                let m = limits::whole(py, &CLIENT_MAX_RESPONSE_BYTES, max_response_bytes)?;
                b = b.max_response_bytes(m.unwrap_or_default());
            }
            if let Some(dir) = token_cache_dir {
                b = b.token_cache_dir(dir);
            }
            if let Some(url) = token_store {
                let store = py
                    .detach(|| iikocloud::store::Store::open(&url))
                    .map_err(|e| crate::errors::store_error(py, &e))?;
                b = b.token_store(store);
            }
            if let Some(path) = ca_file {
                b = b.ca_file(path);
            }
            match trust.as_deref() {
                None | Some("system") => {}
                Some("bundled") => b = b.trust_roots(iikocloud::TrustRoots::Bundled),
                Some(other) => {
                    return Err(invalid_input(
                        py,
                        &format!("trust must be \"system\" or \"bundled\", got {other:?}"),
                    ))
                }
            }
            if let Some(url) = proxy {
                b = b.proxy(Secret::new(url));
            }
            if let Some(hosts) = no_proxy {
                b = b.no_proxy(hosts);
            }
            let client = b.clone().build().map_err(|e| to_pyerr(py, &e))?;
            Ok(NativeClient::from_client(b, client))
        })
    }

    /// The base URL in use, without a trailing slash.
    #[getter]
    fn base_url(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || {
            Ok(detached(py, || self.client())?.base_url().to_owned())
        })
    }

    /// The `Timeout` header of this handle, in seconds.
    #[getter]
    fn timeout(&self, py: Python<'_>) -> PyResult<f64> {
        guard(py, || {
            Ok(detached(py, || self.client())?.timeout().as_secs_f64())
        })
    }

    /// A handle with another `Timeout` header sharing this one's pool and
    /// token cache.
    fn with_timeout(&self, py: Python<'_>, timeout: f64) -> PyResult<NativeClient> {
        guard(py, || {
            let t = limits::seconds_or_default(py, &CLIENT_TIMEOUT, Some(timeout))?;
            let client = detached(py, || self.client()?.with_timeout(t))?;
            Ok(NativeClient::from_client(self.builder.clone(), client))
        })
    }

    /// Seconds since the epoch at which the cached token expires, or `None`
    /// when there is no fresh token. Never makes a request.
    fn token_expires_at(&self, py: Python<'_>) -> PyResult<Option<f64>> {
        guard(py, || {
            let token = detached(py, || Ok(self.client()?.cached_token()))?;
            Ok(token.and_then(|t| {
                t.expires_at()
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()
                    .map(|d| d.as_secs_f64())
            }))
        })
    }

    /// Fetches a token now if there is no fresh one (warm-up); returns nothing,
    /// so the token never reaches Python.
    fn ensure_token(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            logbridge::refresh(py);
            detached(py, || self.client()?.access_token().map(drop))
        })
    }

    /// Any endpoint: `body` is a dict; the answer is the parsed JSON.
    #[pyo3(signature = (path, body=None, *, timeout=None, idempotent=false, decimals=false))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        path: String,
        body: Option<&Bound<'py, PyAny>>,
        timeout: Option<f64>,
        idempotent: bool,
        decimals: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            logbridge::refresh(py);
            let body = match body {
                Some(b) if !b.is_none() => from_py(b)?,
                _ => serde_json::Value::Object(Default::default()),
            };
            let mut options = CallOptions::default();
            if let Some(t) = call_timeout(py, timeout)? {
                options = options.timeout(t);
            }
            if idempotent {
                options = options.idempotent();
            }
            if !decimals {
                let answer = detached(py, || self.client()?.call(&path, &body, &options))?;
                return to_py(py, &answer, false);
            }
            // Decimals: the answer's text, read by Python's json with
            // parse_float=Decimal, so amounts keep every digit (a Value holds
            // them as f64).
            let body = serde_json::to_string(&body)
                .map_err(|e| crate::errors::invalid_input(py, &e.to_string()))?;
            let answer = detached(py, || {
                self.client()?.call_text_answer(&path, &body, &options)
            })?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("parse_float", decimal_type(py)?)?;
            py.import("json")?
                .getattr("loads")?
                .call((answer.text.as_str(),), Some(&kwargs))
                .map_err(|e| {
                    let answered = Answered::Path(&path, answer.status);
                    unreadable_answer(py, answered, &answer.text, e)
                })
        })
    }

    /// Calls the operation `name` (e.g. `deliveries.create`) with `request`,
    /// JSON text or a dict (`Decimal` sent exactly). The core checks it as
    /// the operation's typed request (a violation is `InvalidInputError`
    /// naming the field) and sends it with the operation's retry rule
    /// (commands are never repeated). Returns the answer as the service
    /// wrote its JSON text, so the caller parses money with
    /// `parse_float=Decimal`. Keys may be the document's names or the
    /// models' snake-case ones; any other key is refused unless
    /// `allow_unknown_fields`.
    #[pyo3(signature = (name, request, *, timeout=None, allow_unknown_fields=false))]
    fn call_operation<'py>(
        &self,
        py: Python<'py>,
        name: String,
        request: &Bound<'py, PyAny>,
        timeout: Option<f64>,
        allow_unknown_fields: bool,
    ) -> PyResult<String> {
        guard(py, || {
            self.operation_text(py, &name, request, timeout, allow_unknown_fields)
        })
    }

    /// `call_operation` answering the generated model `model` (a class of
    /// `iikocloud.api_models`), read from the answer's text by
    /// `models::load_answer` without a `str` of it in between.
    #[pyo3(signature = (name, request, model, *, timeout=None, allow_unknown_fields=false))]
    fn call_operation_model<'py>(
        &self,
        py: Python<'py>,
        name: String,
        request: &Bound<'py, PyAny>,
        model: &Bound<'py, PyType>,
        timeout: Option<f64>,
        allow_unknown_fields: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            let text = self.operation_text(py, &name, request, timeout, allow_unknown_fields)?;
            crate::models::load_answer(py, model, &text)
                .map_err(|e| unreadable_answer(py, Answered::Operation(&name), &text, e))
        })
    }

    /// The core's `call_operation_and_wait`: a command by name, followed until
    /// it succeeds (for `deliveries.create`, the safe creation that never
    /// creates twice); answers the JSON text of the command's answer.
    #[pyo3(signature = (name, request, *, timeout=None, wait_timeout=None,
        allow_unknown_fields=false))]
    fn call_operation_and_wait<'py>(
        &self,
        py: Python<'py>,
        name: String,
        request: &Bound<'py, PyAny>,
        timeout: Option<f64>,
        wait_timeout: Option<f64>,
        allow_unknown_fields: bool,
    ) -> PyResult<String> {
        guard(py, || {
            logbridge::refresh(py);
            let body = json_arg(request)?;
            let call = iikocloud::api::OperationCall {
                timeout: call_timeout(py, timeout)?,
                keys: request_keys(allow_unknown_fields),
                ..Default::default()
            };
            let wait = wait_options(py, wait_timeout, None, None)?;
            let answer = detached(py, || {
                iikocloud::api::call_operation_and_wait(&self.client()?, &name, &body, &call, &wait)
            })?;
            Ok(answer.to_string())
        })
    }

    /// Polls `commands/status` until the command succeeds (returns `None`),
    /// fails (`CommandFailedError`), runs out of `timeout` seconds
    /// (`CommandTimeoutError`) or is forgotten by the service
    /// (`CommandExpiredError`).
    #[pyo3(signature = (organization_id, correlation_id, *, timeout=None, first_pause=None,
        max_pause=None))]
    fn wait_command(
        &self,
        py: Python<'_>,
        organization_id: String,
        correlation_id: String,
        timeout: Option<f64>,
        first_pause: Option<f64>,
        max_pause: Option<f64>,
    ) -> PyResult<()> {
        guard(py, || {
            logbridge::refresh(py);
            let options = wait_options(py, timeout, first_pause, max_pause)?;
            detached(py, || {
                self.client()?
                    .wait_command(&organization_id, &correlation_id, &options)
            })
        })
    }

    /// `Client::create_delivery_order`: creates the order (`request` is the
    /// JSON of `deliveries.create`), waits for its command and reads it back,
    /// never creating it twice. Returns `(order_id, order_info_json)`.
    #[pyo3(signature = (request, *, timeout=None, first_pause=None, max_pause=None,
        allow_unknown_fields=false))]
    fn create_delivery_order<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
        timeout: Option<f64>,
        first_pause: Option<f64>,
        max_pause: Option<f64>,
        allow_unknown_fields: bool,
    ) -> PyResult<(String, String)> {
        guard(py, || {
            logbridge::refresh(py);
            let options = wait_options(py, timeout, first_pause, max_pause)?;
            let body = json_arg(request)?;
            let mut typed =
                iikocloud::api::create_order_request(&body, request_keys(allow_unknown_fields))
                    .map_err(|e| to_pyerr(py, &e))?;
            let info = detached(py, || {
                self.client()?.create_delivery_order(&mut typed, &options)
            })?;
            let order_id = typed
                .order
                .as_ref()
                .and_then(|o| o.id.clone())
                .unwrap_or_default();
            let text = serde_json::to_string(&info)
                .map_err(|e| to_pyerr(py, &iikocloud::Error::InvalidInput(e.to_string())))?;
            Ok((order_id, text))
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || {
            let c = detached(py, || self.client())?;
            Ok(format!(
                "NativeClient(base_url={:?}, timeout={})",
                c.base_url(),
                c.timeout().as_secs_f64()
            ))
        })
    }
}
