//! The durable inbox (`iikocloud.Inbox`): the core's `iikocloud::inbox` over a
//! SQLite file or Redis. Every call may wait on a file lock or the network,
//! so each one runs without the GIL.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};

use iikocloud::inbox::{Delivery, Inbox, InboxOptions};
use iikocloud::limits::{Given, INBOX_DEAD_LETTERS};
use iikocloud::store::{Store, StoreError};
use iikocloud::webhook::Receiver;
use pyo3::prelude::*;
use pyo3::types::PyAny;

use crate::errors::{guard, simple, store_error, to_pyerr, Class};
use crate::webhook::{body_bytes, header_pairs};

/// `(id, key, body, attempts, reason)` of a dead letter.
type DeadLetterParts = (String, String, String, u32, String);

/// One event handed out by `take`; read-only.
#[pyclass(frozen, module = "iikocloud._native", name = "NativeDelivery")]
pub struct NativeDelivery {
    delivery: Delivery,
}

#[pymethods]
impl NativeDelivery {
    #[getter]
    fn id(&self) -> &str {
        self.delivery.id()
    }
    #[getter]
    fn attempt(&self) -> u32 {
        self.delivery.attempt()
    }
    #[getter]
    fn key(&self) -> &str {
        self.delivery.key()
    }
    #[getter]
    fn event_json(&self) -> &str {
        self.delivery.event_json()
    }
    #[getter]
    fn received_at_ms(&self) -> i64 {
        self.delivery.received_at_ms()
    }
    fn __repr__(&self) -> String {
        // Ids and the key only: the event body may carry personal data.
        format!(
            "NativeDelivery(id={:?}, attempt={}, key={:?})",
            self.delivery.id(),
            self.delivery.attempt(),
            self.delivery.key()
        )
    }
}

/// A durable inbox; see `iikocloud.Inbox`.
#[pyclass(frozen, module = "iikocloud._native", name = "NativeInbox")]
pub struct NativeInbox {
    /// `None` once closed. Cloned out (an `Arc`) before any I/O, so the lock
    /// is never held while waiting on the store.
    inbox: RwLock<Option<Inbox>>,
    /// Shared stores given to `receive`, opened once per URL (opening one
    /// connects or opens a file).
    stores: Mutex<HashMap<String, Store>>,
}

fn fail(py: Python<'_>, e: &StoreError) -> PyErr {
    store_error(py, e)
}

impl NativeInbox {
    fn get(&self, py: Python<'_>) -> PyResult<Inbox> {
        self.inbox
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| simple(py, Class::Iiko, "the inbox is closed"))
    }

    fn store(&self, py: Python<'_>, url: &str) -> PyResult<Store> {
        if let Some(s) = self
            .stores
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(url)
        {
            return Ok(s.clone());
        }
        let opened = py.detach(|| Store::open(url)).map_err(|e| fail(py, &e))?;
        self.stores
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(url.to_owned(), opened.clone());
        Ok(opened)
    }
}

#[pymethods]
impl NativeInbox {
    #[new]
    #[pyo3(signature = (url, visibility_timeout=None, max_attempts=None, dedup_ttl=None))]
    fn new(
        py: Python<'_>,
        url: &str,
        visibility_timeout: Option<f64>,
        max_attempts: Option<i128>,
        dedup_ttl: Option<f64>,
    ) -> PyResult<Self> {
        guard(py, || {
            // The core reads each (`inbox.*` limits): None is its default.
            let seconds = |v: Option<f64>| v.map_or(Given::Absent, Given::Seconds);
            let options = InboxOptions::read(
                seconds(visibility_timeout),
                max_attempts.map_or(Given::Absent, Given::Int),
                seconds(dedup_ttl),
            )
            .map_err(|e| to_pyerr(py, &e))?;
            let inbox = py
                .detach(|| Inbox::open_with(url, options))
                .map_err(|e| fail(py, &e))?;
            Ok(NativeInbox {
                inbox: RwLock::new(Some(inbox)),
                stores: Mutex::new(HashMap::new()),
            })
        })
    }

    /// The URL without its password.
    #[getter]
    fn url(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.get(py)?.url().to_string())
    }

    #[getter]
    fn closed(&self) -> bool {
        self.inbox
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .is_none()
    }

    /// `(status, stored, repeats, error)`; never raises for a bad request.
    #[pyo3(signature = (token, headers, body, store=None))]
    fn receive(
        &self,
        py: Python<'_>,
        token: &str,
        headers: &Bound<'_, PyAny>,
        body: &Bound<'_, PyAny>,
        store: Option<&str>,
    ) -> PyResult<(u16, usize, usize, Option<String>)> {
        guard(py, || {
            let inbox = self.get(py)?;
            let pairs = header_pairs(headers)?;
            let bytes = body_bytes(body)?;
            let store = store.map(|u| self.store(py, u)).transpose()?;
            let receiver = Receiver::new(token);
            let r = py.detach(|| {
                inbox.receive(
                    &receiver,
                    store.as_ref(),
                    pairs.iter().map(|(n, v)| (n.as_bytes(), v.as_slice())),
                    &bytes,
                )
            });
            Ok((r.status, r.stored, r.repeats, r.error))
        })
    }

    /// Writes `(key, event JSON)` pairs; returns how many were new.
    fn push(&self, py: Python<'_>, events: Vec<(String, String)>) -> PyResult<usize> {
        guard(py, || {
            let inbox = self.get(py)?;
            py.detach(|| inbox.push(&events)).map_err(|e| fail(py, &e))
        })
    }

    fn take(&self, py: Python<'_>) -> PyResult<Option<NativeDelivery>> {
        guard(py, || {
            let inbox = self.get(py)?;
            Ok(py
                .detach(|| inbox.take())
                .map_err(|e| fail(py, &e))?
                .map(|delivery| NativeDelivery { delivery }))
        })
    }

    fn ack(&self, py: Python<'_>, delivery: PyRef<'_, NativeDelivery>) -> PyResult<bool> {
        guard(py, || {
            let inbox = self.get(py)?;
            let d = &delivery.delivery;
            py.detach(|| inbox.ack(d)).map_err(|e| fail(py, &e))
        })
    }

    fn release(
        &self,
        py: Python<'_>,
        delivery: PyRef<'_, NativeDelivery>,
        reason: &str,
    ) -> PyResult<()> {
        guard(py, || {
            let inbox = self.get(py)?;
            let d = &delivery.delivery;
            py.detach(|| inbox.release(d, reason))
                .map_err(|e| fail(py, &e))
        })
    }

    /// `[(id, key, body, attempts, reason)]`, oldest first; at most `limit`
    /// (`inbox.dead_letters`: None is the core's default).
    #[pyo3(signature = (limit=None))]
    fn dead_letters(&self, py: Python<'_>, limit: Option<i128>) -> PyResult<Vec<DeadLetterParts>> {
        guard(py, || {
            let limit = crate::limits::whole(py, &INBOX_DEAD_LETTERS, limit)?.unwrap_or_default();
            let limit = usize::try_from(limit).unwrap_or(usize::MAX);
            let inbox = self.get(py)?;
            let letters = py
                .detach(|| inbox.dead_letters(limit))
                .map_err(|e| fail(py, &e))?;
            Ok(letters
                .into_iter()
                .map(|d| (d.id, d.key, d.body, d.attempts, d.reason))
                .collect())
        })
    }

    /// `(pending, dead)`.
    fn counts(&self, py: Python<'_>) -> PyResult<(u64, u64)> {
        guard(py, || {
            let inbox = self.get(py)?;
            let c = py.detach(|| inbox.counts()).map_err(|e| fail(py, &e))?;
            Ok((c.pending, c.dead))
        })
    }

    /// Drops the connection or file handle (the data stays); later calls
    /// raise `IikoError`.
    fn close(&self, py: Python<'_>) {
        let inbox = self.inbox.write().unwrap_or_else(|e| e.into_inner()).take();
        let stores = std::mem::take(&mut *self.stores.lock().unwrap_or_else(|e| e.into_inner()));
        // Dropping may close a connection or checkpoint the file.
        py.detach(move || drop((inbox, stores)));
    }

    fn __repr__(&self) -> String {
        match &*self.inbox.read().unwrap_or_else(|e| e.into_inner()) {
            Some(i) => format!("NativeInbox({})", i.url()),
            None => "NativeInbox(closed)".to_owned(),
        }
    }
}
