//! `iikocloud._native.NativeEmulator`: the emulator crate, in-process, for
//! `iikocloud.testing.Emulator`. Every call runs without the GIL: the
//! emulator's threads log through the bridge, which needs the GIL, while they
//! may hold the emulator's locks.

use std::sync::RwLock;
use std::time::Duration;

use iikocloud_emulator::{
    DeliveryConfig, DeliveryOutcome, Emulator, EmulatorConfig, Fault, Fixtures, StopListItem,
};
use pyo3::prelude::*;
use pyo3::types::PyAny;
use serde_json::Value;

use crate::convert::{from_py, to_py};
use crate::errors::{guard, invalid_input, simple, Class};
use crate::logbridge;

/// A duration of the emulator's own settings (a test tool, not a limit of
/// the SDK: `iikocloud::limits` does not cover it), in seconds.
fn seconds(py: Python<'_>, name: &str, value: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| invalid_input(py, &format!("{name} must be a positive number of seconds")))
}

#[pyclass(frozen, module = "iikocloud._native")]
pub struct NativeEmulator {
    /// `None` once stopped.
    inner: RwLock<Option<Emulator>>,
    url: String,
}

type Outcome<T> = Result<T, String>;

impl NativeEmulator {
    /// Runs `f` on the running emulator without the GIL; a stopped emulator
    /// or an emulator error is an `InvalidInputError`.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Emulator) -> Outcome<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let guard = self.inner.read().unwrap_or_else(|e| e.into_inner());
            match guard.as_ref() {
                Some(emu) => f(emu),
                None => Err("the emulator is stopped".to_owned()),
            }
        })
        .map_err(|m| invalid_input(py, &m))
    }

    fn json<'py>(
        &self,
        py: Python<'py>,
        f: impl FnOnce(&Emulator) -> Outcome<Value> + Send,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = self.with(py, f)?;
        to_py(py, &value, false)
    }
}

impl Drop for NativeEmulator {
    /// Stopping joins the emulator's threads, which may be waiting for the
    /// GIL to log; when Python's garbage collector drops an emulator that was
    /// never stopped, the GIL is released around the join.
    fn drop(&mut self) {
        let emu = self
            .inner
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(emu) = emu {
            let mut slot = Some(emu);
            let _ = Python::try_attach(|py| py.detach(|| drop(slot.take())));
            drop(slot);
        }
    }
}

fn events(r: Result<Vec<Value>, iikocloud_emulator::EmulatorError>) -> Outcome<Value> {
    r.map(Value::Array).map_err(|e| e.to_string())
}

#[pymethods]
impl NativeEmulator {
    #[new]
    #[pyo3(signature = (*, token_ttl=None, fixtures_json=None, fast_delivery=true, port=0,
        tls_cert=None, tls_key=None))]
    fn new(
        py: Python<'_>,
        token_ttl: Option<f64>,
        fixtures_json: Option<String>,
        fast_delivery: bool,
        port: u16,
        tls_cert: Option<std::path::PathBuf>,
        tls_key: Option<std::path::PathBuf>,
    ) -> PyResult<NativeEmulator> {
        guard(py, || {
            logbridge::refresh(py);
            let mut config = EmulatorConfig::default();
            if let Some(ttl) = token_ttl {
                config = config.token_ttl(seconds(py, "token_ttl", ttl)?);
            }
            if let Some(text) = fixtures_json {
                let fixtures = Fixtures::from_json(&text)
                    .map_err(|e| invalid_input(py, &format!("fixtures: {e}")))?;
                config = config.fixtures(fixtures);
            }
            if fast_delivery {
                config = config.delivery(DeliveryConfig::fast());
            }
            config.bind.set_port(port);
            match (tls_cert, tls_key) {
                (Some(cert), Some(key)) => {
                    let identity = iikocloud_emulator::TlsIdentity::from_pem_files(&cert, &key)
                        .map_err(|e| invalid_input(py, &format!("tls_cert/tls_key: {e}")))?;
                    config = config.tls(identity);
                }
                (None, None) => {}
                _ => {
                    return Err(invalid_input(
                        py,
                        "give both tls_cert and tls_key, or neither",
                    ))
                }
            }
            let emu = py.detach(|| Emulator::start(config)).map_err(|e| {
                simple(py, Class::Iiko, &format!("the emulator did not start: {e}"))
            })?;
            let url = emu.url();
            Ok(NativeEmulator {
                inner: RwLock::new(Some(emu)),
                url,
            })
        })
    }

    #[getter]
    fn url(&self) -> String {
        self.url.clone()
    }

    /// Stops the server and its delivery threads; idempotent.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            py.detach(|| {
                let emu = self.inner.write().unwrap_or_else(|e| e.into_inner()).take();
                drop(emu);
            });
            Ok(())
        })
    }

    #[getter]
    fn running(&self, py: Python<'_>) -> PyResult<bool> {
        guard(py, || {
            Ok(py.detach(|| {
                self.inner
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .is_some()
            }))
        })
    }

    fn requests<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            self.json(py, |e| {
                Ok(Value::Array(
                    e.requests().iter().map(|r| r.to_json()).collect(),
                ))
            })
        })
    }

    fn request_count(&self, py: Python<'_>, path: String) -> PyResult<usize> {
        guard(py, || self.with(py, |e| Ok(e.request_count(&path))))
    }

    fn clear_requests(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            self.with(py, |e| {
                e.clear_requests();
                Ok(())
            })
        })
    }

    /// Arms faults from the emulator's JSON fault spec (one object or a list).
    fn inject(&self, py: Python<'_>, spec: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(py, || {
            let spec = from_py(spec)?;
            let faults = Fault::from_json(&spec).map_err(|e| invalid_input(py, &e))?;
            self.with(py, |e| {
                faults.into_iter().for_each(|f| e.inject(f));
                Ok(())
            })
        })
    }

    fn faults<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            self.json(py, |e| {
                Ok(Value::Array(
                    e.faults().iter().map(|f| f.to_json()).collect(),
                ))
            })
        })
    }

    fn clear_faults(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            self.with(py, |e| {
                e.clear_faults();
                Ok(())
            })
        })
    }

    fn expire_tokens(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            self.with(py, |e| {
                e.expire_tokens();
                Ok(())
            })
        })
    }

    fn set_token_ttl(&self, py: Python<'_>, ttl: f64) -> PyResult<()> {
        guard(py, || {
            let ttl: Duration = seconds(py, "ttl", ttl)?;
            self.with(py, |e| {
                e.set_token_ttl(ttl);
                Ok(())
            })
        })
    }

    fn set_catalogue_delay(&self, py: Python<'_>, delay: f64) -> PyResult<()> {
        guard(py, || {
            let delay: Duration = seconds(py, "delay", delay)?;
            self.with(py, |e| {
                e.set_catalogue_delay(delay);
                Ok(())
            })
        })
    }

    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            self.with(py, |e| {
                e.reset();
                Ok(())
            })
        })
    }

    fn deliveries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            self.json(py, |e| {
                Ok(Value::Array(
                    e.deliveries().iter().map(|d| d.to_json()).collect(),
                ))
            })
        })
    }

    fn clear_deliveries(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            self.with(py, |e| {
                e.clear_deliveries();
                Ok(())
            })
        })
    }

    /// Waits (without the GIL) until `n` delivery records exist; with
    /// `delivered`, only records answered 200 count. False on timeout.
    #[pyo3(signature = (n, timeout, delivered=false))]
    fn wait_for_deliveries(
        &self,
        py: Python<'_>,
        n: usize,
        timeout: f64,
        delivered: bool,
    ) -> PyResult<bool> {
        guard(py, || {
            let t = seconds(py, "timeout", timeout)?;
            self.with(py, |e| {
                Ok(if delivered {
                    e.wait_for_delivery_log(t, |log| {
                        log.iter()
                            .filter(|r| r.outcome == DeliveryOutcome::Delivered)
                            .count()
                            >= n
                    })
                } else {
                    e.wait_for_deliveries(n, t)
                })
            })
        })
    }

    fn wait_for_delivery_idle(&self, py: Python<'_>, timeout: f64) -> PyResult<bool> {
        guard(py, || {
            let t = seconds(py, "timeout", timeout)?;
            self.with(py, |e| Ok(e.wait_for_delivery_idle(t)))
        })
    }

    fn is_webhook_blocked(&self, py: Python<'_>, organization_id: String) -> PyResult<bool> {
        guard(py, || {
            self.with(py, |e| Ok(e.is_webhook_blocked(&organization_id)))
        })
    }

    fn webhook_states<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            self.json(py, |e| {
                Ok(Value::Array(
                    e.webhook_states().iter().map(|s| s.to_json()).collect(),
                ))
            })
        })
    }

    fn create_delivery_order<'py>(
        &self,
        py: Python<'py>,
        organization_id: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            self.json(py, |e| {
                let h = e
                    .create_delivery_order(&organization_id)
                    .map_err(|e| e.to_string())?;
                Ok(serde_json::json!({
                    "id": h.id,
                    "organizationId": h.organization_id,
                    "number": h.number,
                    "events": h.events,
                }))
            })
        })
    }

    fn set_delivery_status<'py>(
        &self,
        py: Python<'py>,
        order_id: String,
        status: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            self.json(py, |e| events(e.set_delivery_status(&order_id, &status)))
        })
    }

    /// One of the simple triggers by name, with an optional error code.
    #[pyo3(signature = (kind, organization_id, code=None, opened=true))]
    fn trigger<'py>(
        &self,
        py: Python<'py>,
        kind: String,
        organization_id: String,
        code: Option<String>,
        opened: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            let org = organization_id.as_str();
            let code = code.unwrap_or_else(|| "Common".to_owned());
            self.json(py, |e| match kind.as_str() {
                "delivery_error" => events(e.trigger_delivery_error(org, &code)),
                "reserve_update" => events(e.trigger_reserve_update(org)),
                "reserve_error" => events(e.trigger_reserve_error(org, &code)),
                "table_order_update" => events(e.trigger_table_order_update(org)),
                "table_order_error" => events(e.trigger_table_order_error(org, &code)),
                "stop_list_change" => events(e.trigger_stop_list_change(org)),
                "personal_shift" => events(e.trigger_personal_shift(org, opened)),
                other => Err(format!("unknown trigger {other:?}")),
            })
        })
    }

    fn add_stop_list_item<'py>(
        &self,
        py: Python<'py>,
        organization_id: String,
        terminal_group_id: String,
        item: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            let item: StopListItem = serde_json::from_value(from_py(item)?)
                .map_err(|e| invalid_input(py, &format!("stop list item: {e}")))?;
            self.json(py, |e| {
                events(e.add_stop_list_item(&organization_id, &terminal_group_id, item))
            })
        })
    }

    fn send_event<'py>(
        &self,
        py: Python<'py>,
        organization_id: String,
        event_type: String,
        event_info: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            let info = from_py(event_info)?;
            self.json(py, |e| {
                events(e.send_event(&organization_id, &event_type, info))
            })
        })
    }

    /// Enqueues `body` (JSON text, sent byte for byte as parsed JSON).
    fn send_raw<'py>(
        &self,
        py: Python<'py>,
        organization_id: String,
        body: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            let body = from_py(body)?;
            self.json(py, |e| {
                e.send_raw(&organization_id, body)
                    .map_err(|e| e.to_string())
            })
        })
    }

    fn __repr__(&self) -> String {
        format!("NativeEmulator(url={:?})", self.url)
    }
}

/// The default credentials and ids of the emulator's fixtures.
/// The emulator's example request of the operation at `path` (JSON text),
/// as the all-operations walk of the tests sends it; `None` for a path it
/// does not know.
#[pyfunction]
pub fn example_request(path: &str) -> Option<String> {
    iikocloud_emulator::example_request(path).map(|r| r.to_string())
}

pub fn constants(m: &Bound<'_, PyModule>) -> PyResult<()> {
    use iikocloud_emulator as e;
    m.add("EMULATOR_APP_ID", e::DEFAULT_APP_ID)?;
    m.add("EMULATOR_CLIENT_SECRET", e::DEFAULT_CLIENT_SECRET)?;
    m.add("EMULATOR_API_KEY", e::DEFAULT_API_KEY)?;
    m.add("EMULATOR_EMPTY_API_KEY", e::EMPTY_API_KEY)?;
    m.add("EMULATOR_API_LOGIN_NAME", e::DEFAULT_API_LOGIN_NAME)?;
    m.add("EMULATOR_ORGANIZATION_ID", e::DEFAULT_ORGANIZATION_ID)?;
    m.add("EMULATOR_SECOND_ORGANIZATION_ID", e::SECOND_ORGANIZATION_ID)?;
    m.add(
        "EMULATOR_DISABLED_ORGANIZATION_ID",
        e::DISABLED_ORGANIZATION_ID,
    )?;
    m.add("EMULATOR_TERMINAL_GROUP_ID", e::DEFAULT_TERMINAL_GROUP_ID)?;
    Ok(())
}
