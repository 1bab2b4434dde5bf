//! The request log.

use std::sync::Mutex;
use std::time::SystemTime;

use serde_json::{json, Value};

use crate::util::{format_utc, lock, unix_millis};

/// One API request as seen by the emulator (control requests under
/// `/_emulator/` are not logged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRecord {
    /// Sequence number, increasing over the emulator's life.
    pub id: u64,
    /// HTTP method.
    pub method: String,
    /// Path without the query string.
    pub path: String,
    /// Status answered; 0 while the request is still being served, or when the
    /// connection was reset instead of answered.
    pub status: u16,
    /// `correlationId` of the answer (`None` for a reset connection or a request in flight).
    pub correlation_id: Option<String>,
    /// Name of the injected fault applied to this request, if any (see [`crate::FaultKind::name`]).
    pub fault: Option<String>,
    /// True when the request carried a well-formed `Authorization: Bearer` header
    /// with a token that was valid when the request arrived.
    pub authorized: bool,
    /// When the request arrived.
    pub at: SystemTime,
    /// `User-Agent` header.
    pub user_agent: Option<String>,
    /// `Timeout` header (recorded only; the emulator does not act on it).
    pub timeout_header: Option<String>,
    /// The `error` code of an error answer (e.g. `INVALID_TOKEN`).
    pub error: Option<String>,
}

impl RequestRecord {
    /// The JSON shape served by `GET /_emulator/requests`.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "correlationId": self.correlation_id,
            "fault": self.fault,
            "authorized": self.authorized,
            "at": format_utc(self.at),
            "atUnixMs": unix_millis(self.at),
            "userAgent": self.user_agent,
            "timeoutHeader": self.timeout_header,
            "error": self.error,
        })
    }
}

/// Append-only list of [`RequestRecord`]s with in-place completion.
#[derive(Default)]
pub(crate) struct RequestLog {
    inner: Mutex<(u64, Vec<RequestRecord>)>,
}

impl RequestLog {
    /// Appends a record (its `id` is assigned here) and returns the id.
    pub(crate) fn push(&self, mut record: RequestRecord) -> u64 {
        let mut g = lock(&self.inner);
        g.0 += 1;
        record.id = g.0;
        g.1.push(record);
        g.0
    }

    /// Fills in the answer of a record; a no-op when the log was cleared meanwhile.
    pub(crate) fn finish(
        &self,
        id: u64,
        status: u16,
        correlation_id: Option<String>,
        error: Option<String>,
    ) {
        let mut g = lock(&self.inner);
        if let Some(r) = g.1.iter_mut().rev().find(|r| r.id == id) {
            r.status = status;
            r.correlation_id = correlation_id;
            r.error = error;
        }
    }

    pub(crate) fn snapshot(&self) -> Vec<RequestRecord> {
        lock(&self.inner).1.clone()
    }

    pub(crate) fn count(&self, path: &str) -> usize {
        lock(&self.inner)
            .1
            .iter()
            .filter(|r| r.path == path)
            .count()
    }

    pub(crate) fn clear(&self) {
        lock(&self.inner).1.clear();
    }

    pub(crate) fn take(&self) -> Vec<RequestRecord> {
        std::mem::take(&mut lock(&self.inner).1)
    }
}
