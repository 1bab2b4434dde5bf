//! Webhook settings and delivery.
//!
//! Every organization has at most one [`WebhookSettings`] record and one FIFO
//! queue of batches (one batch = one POST body). A worker thread per
//! organization sends the queue in order; a failed batch is retried on the
//! configured schedule before the next batch is tried. Consecutive failed
//! attempts (across batches) block the webhook; `update_settings` unblocks it.

pub(crate) mod events;
pub(crate) mod filter;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use crate::util::{format_utc, lock, unix_millis};

/// Timing of webhook delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryConfig {
    /// How long one attempt may take (connect + send + answer) before it counts as failed.
    pub timeout: Duration,
    /// Pause before each retry; a batch gets `1 + retry_delays.len()` attempts at most.
    pub retry_delays: Vec<Duration>,
    /// Consecutive failed attempts (across batches) after which the webhook is
    /// blocked; 0 never blocks.
    pub block_after_failures: u32,
}

impl Default for DeliveryConfig {
    /// 5 s timeout, retries after 1 s, 5 s and 30 s, blocked after 12 failed attempts.
    fn default() -> Self {
        DeliveryConfig {
            timeout: Duration::from_secs(5),
            retry_delays: vec![
                Duration::from_secs(1),
                Duration::from_secs(5),
                Duration::from_secs(30),
            ],
            block_after_failures: 12,
        }
    }
}

impl DeliveryConfig {
    /// Fast settings for tests: 1 s timeout, retries after 100, 200 and 400 ms,
    /// blocked after 8 consecutive failed attempts (two fully failed batches).
    pub fn fast() -> DeliveryConfig {
        DeliveryConfig {
            timeout: Duration::from_secs(1),
            retry_delays: vec![
                Duration::from_millis(100),
                Duration::from_millis(200),
                Duration::from_millis(400),
            ],
            block_after_failures: 8,
        }
    }
}

/// Stored webhook settings of one organization.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookSettings {
    /// Organization the settings belong to.
    pub organization_id: String,
    /// `webHooksUri`.
    pub uri: String,
    /// `authToken`, sent as the bare `Authorization` header value.
    pub auth_token: Option<String>,
    /// `webHooksFilter` exactly as stored (`None` = no filter = every event).
    pub filter: Option<Value>,
}

/// What happened to one delivery attempt or one batch that was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryOutcome {
    /// Answered 200.
    Delivered,
    /// Non-200 or no answer; a retry is scheduled.
    Failed,
    /// Non-200 or no answer, and no retry follows: the schedule is exhausted or
    /// this failure blocked the webhook. The batch is dropped.
    GaveUp,
    /// Not sent: the webhook is blocked.
    DroppedBlocked,
    /// Not sent: the organization has no webhook settings.
    DroppedNoSettings,
    /// Not sent: every event was excluded by `webHooksFilter`.
    Filtered,
}

impl DeliveryOutcome {
    /// snake_case name used in the JSON log.
    pub fn name(self) -> &'static str {
        match self {
            DeliveryOutcome::Delivered => "delivered",
            DeliveryOutcome::Failed => "failed",
            DeliveryOutcome::GaveUp => "gave_up",
            DeliveryOutcome::DroppedBlocked => "dropped_blocked",
            DeliveryOutcome::DroppedNoSettings => "dropped_no_settings",
            DeliveryOutcome::Filtered => "filtered",
        }
    }

    /// True for outcomes of an actual HTTP attempt.
    pub fn was_sent(self) -> bool {
        matches!(
            self,
            DeliveryOutcome::Delivered | DeliveryOutcome::Failed | DeliveryOutcome::GaveUp
        )
    }
}

/// One entry of the delivery log: an HTTP attempt, or a batch that was not sent.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryRecord {
    /// Sequence number of the record.
    pub id: u64,
    /// Batch (POST body) this record is about; attempts of one batch share it.
    pub batch_id: u64,
    /// Organization whose webhook it is.
    pub organization_id: String,
    /// Target URL (`None` when there were no settings).
    pub url: Option<String>,
    /// 1 for the first attempt, 2 for the first retry, ...; 0 when not sent.
    pub attempt: u32,
    /// HTTP status answered by the receiver.
    pub status: Option<u16>,
    /// Transport error (timeout, refused, ...) when there was no answer.
    pub error: Option<String>,
    /// The body (JSON text) sent or that would have been sent.
    pub body: String,
    /// `eventType` of each event in the body.
    pub event_types: Vec<String>,
    /// When the attempt finished (or the batch was dropped).
    pub at: SystemTime,
    /// Outcome.
    pub outcome: DeliveryOutcome,
}

impl DeliveryRecord {
    /// The body parsed as JSON (`Value::Null` if it is not JSON).
    pub fn body_json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The JSON shape served by `GET /_emulator/deliveries`.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "batchId": self.batch_id,
            "organizationId": self.organization_id,
            "url": self.url,
            "attempt": self.attempt,
            "status": self.status,
            "error": self.error,
            "body": self.body_json(),
            "eventTypes": self.event_types,
            "at": format_utc(self.at),
            "atUnixMs": unix_millis(self.at),
            "outcome": self.outcome.name(),
        })
    }
}

struct Batch {
    id: u64,
    body: String,
    event_types: Vec<String>,
}

#[derive(Default)]
struct OrgHook {
    settings: Option<WebhookSettings>,
    blocked: bool,
    consecutive_failures: u32,
    queue: VecDeque<Batch>,
    worker: bool,
    busy: bool,
}

#[derive(Default)]
struct HubState {
    orgs: HashMap<String, OrgHook>,
    next_batch: u64,
}

/// State of one organization's webhook, for inspection.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookState {
    /// Organization id.
    pub organization_id: String,
    /// Current settings, if any.
    pub settings: Option<WebhookSettings>,
    /// True when deliveries are blocked.
    pub blocked: bool,
    /// Failed attempts since the last success or settings update.
    pub consecutive_failures: u32,
    /// Batches waiting (including one being retried).
    pub queued: usize,
}

impl WebhookState {
    /// JSON shape served by `GET /_emulator/webhooks`.
    pub fn to_json(&self) -> Value {
        json!({
            "organizationId": self.organization_id,
            "webHooksUri": self.settings.as_ref().map(|s| s.uri.clone()),
            "webHooksFilter": self.settings.as_ref().and_then(|s| s.filter.clone()),
            "blocked": self.blocked,
            "consecutiveFailures": self.consecutive_failures,
            "queued": self.queued,
        })
    }
}

pub(crate) struct Hub {
    config: Mutex<DeliveryConfig>,
    state: Mutex<HubState>,
    /// Signals queue changes, settings changes and stop to the workers.
    work: Condvar,
    log: Mutex<(u64, Vec<DeliveryRecord>)>,
    /// Signals every new log record.
    logged: Condvar,
    stopping: AtomicBool,
    agent: ureq::Agent,
    /// The emulator's metrics (the server's too; here because both use them).
    pub(crate) metrics: crate::metrics::Metrics,
}

fn event_types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            e.get("eventType")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

impl Hub {
    pub(crate) fn new(config: DeliveryConfig) -> Hub {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Deliver only where the settings say: no proxies from the
            // environment, no redirects.
            .proxy(None)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .user_agent(concat!("iikocloud-emulator/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Hub {
            config: Mutex::new(config),
            state: Mutex::new(HubState::default()),
            work: Condvar::new(),
            log: Mutex::new((0, Vec::new())),
            logged: Condvar::new(),
            stopping: AtomicBool::new(false),
            agent,
            metrics: Default::default(),
        }
    }

    pub(crate) fn config(&self) -> DeliveryConfig {
        lock(&self.config).clone()
    }

    pub(crate) fn set_config(&self, config: DeliveryConfig) {
        *lock(&self.config) = config;
        self.work.notify_all();
    }

    pub(crate) fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Take the state lock so no worker misses the wake-up between its
        // check and its wait.
        let _g = lock(&self.state);
        self.work.notify_all();
    }

    /// Stores settings and unblocks the webhook.
    pub(crate) fn update_settings(&self, settings: WebhookSettings) {
        let mut st = lock(&self.state);
        let hook = st.orgs.entry(settings.organization_id.clone()).or_default();
        hook.settings = Some(settings);
        hook.blocked = false;
        hook.consecutive_failures = 0;
        drop(st);
        self.work.notify_all();
    }

    pub(crate) fn settings(&self, organization_id: &str) -> Option<WebhookSettings> {
        lock(&self.state)
            .orgs
            .get(organization_id)
            .and_then(|h| h.settings.clone())
    }

    pub(crate) fn states(&self) -> Vec<WebhookState> {
        let st = lock(&self.state);
        let mut v: Vec<WebhookState> = st
            .orgs
            .iter()
            .map(|(id, h)| WebhookState {
                organization_id: id.clone(),
                settings: h.settings.clone(),
                blocked: h.blocked,
                consecutive_failures: h.consecutive_failures,
                queued: h.queue.len(),
            })
            .collect();
        v.sort_by(|a, b| a.organization_id.cmp(&b.organization_id));
        v
    }

    pub(crate) fn is_blocked(&self, organization_id: &str) -> bool {
        lock(&self.state)
            .orgs
            .get(organization_id)
            .is_some_and(|h| h.blocked)
    }

    /// Forgets settings, queues, blocks and the log (workers keep running idle).
    pub(crate) fn reset(&self) {
        let mut st = lock(&self.state);
        for hook in st.orgs.values_mut() {
            hook.settings = None;
            hook.blocked = false;
            hook.consecutive_failures = 0;
            hook.queue.clear();
        }
        drop(st);
        self.clear_log();
        self.metrics.clear();
    }

    fn record(
        &self,
        batch: &Batch,
        organization_id: &str,
        url: Option<&str>,
        attempt: u32,
        answer: Option<&Result<u16, String>>,
        outcome: DeliveryOutcome,
    ) {
        let (status, error) = match answer {
            Some(Ok(s)) => (Some(*s), None),
            Some(Err(e)) => (None, Some(e.clone())),
            None => (None, None),
        };
        let mut log = lock(&self.log);
        log.0 += 1;
        let record = DeliveryRecord {
            id: log.0,
            batch_id: batch.id,
            organization_id: organization_id.to_string(),
            url: url.map(str::to_string),
            attempt,
            status,
            error,
            body: batch.body.clone(),
            event_types: batch.event_types.clone(),
            at: SystemTime::now(),
            outcome,
        };
        log.1.push(record);
        drop(log);
        self.logged.notify_all();
        self.metrics.delivery(attempt, outcome.name());
        // Logged after the lock is released: a logger may block (e.g. a bridge
        // into another runtime) and must not hold up the delivery log.
        log::debug!(
            "webhook {} batch {} attempt {}: {}",
            organization_id,
            batch.id,
            attempt,
            outcome.name()
        );
    }

    fn not_sent(&self, batch: &Batch, org: &str, url: Option<&str>, outcome: DeliveryOutcome) {
        self.record(batch, org, url, 0, None, outcome);
    }

    /// Queues generated events for delivery, applying the organization's filter.
    pub(crate) fn enqueue_events(self: &Arc<Self>, organization_id: &str, events: &[Value]) {
        let mut st = lock(&self.state);
        let filter = st
            .orgs
            .get(organization_id)
            .and_then(|h| h.settings.as_ref())
            .and_then(|s| s.filter.clone());
        let kept: Vec<Value> = events
            .iter()
            .filter(|e| filter::allows(filter.as_ref(), e))
            .cloned()
            .collect();
        let has_settings = st
            .orgs
            .get(organization_id)
            .is_some_and(|h| h.settings.is_some());
        if has_settings && kept.is_empty() {
            let batch = self.new_batch(&mut st, events);
            let url = self.url_of(&st, organization_id);
            drop(st);
            self.not_sent(
                &batch,
                organization_id,
                url.as_deref(),
                DeliveryOutcome::Filtered,
            );
            return;
        }
        self.enqueue_locked(st, organization_id, Value::Array(kept));
    }

    /// Queues a body exactly as given (no filtering).
    pub(crate) fn enqueue_raw(self: &Arc<Self>, organization_id: &str, body: Value) {
        let st = lock(&self.state);
        self.enqueue_locked(st, organization_id, body);
    }

    fn new_batch(&self, st: &mut HubState, events: &[Value]) -> Batch {
        st.next_batch += 1;
        Batch {
            id: st.next_batch,
            body: Value::Array(events.to_vec()).to_string(),
            event_types: event_types(events),
        }
    }

    fn url_of(&self, st: &HubState, organization_id: &str) -> Option<String> {
        st.orgs
            .get(organization_id)
            .and_then(|h| h.settings.as_ref())
            .map(|s| s.uri.clone())
    }

    fn enqueue_locked(
        self: &Arc<Self>,
        mut st: MutexGuard<'_, HubState>,
        organization_id: &str,
        body: Value,
    ) {
        st.next_batch += 1;
        let batch = Batch {
            id: st.next_batch,
            event_types: match &body {
                Value::Array(a) => event_types(a),
                other => event_types(std::slice::from_ref(other)),
            },
            body: body.to_string(),
        };
        let hook = st.orgs.entry(organization_id.to_string()).or_default();
        let url = hook.settings.as_ref().map(|s| s.uri.clone());
        if url.is_none() {
            drop(st);
            self.not_sent(
                &batch,
                organization_id,
                None,
                DeliveryOutcome::DroppedNoSettings,
            );
            return;
        }
        if hook.blocked {
            drop(st);
            self.not_sent(
                &batch,
                organization_id,
                url.as_deref(),
                DeliveryOutcome::DroppedBlocked,
            );
            return;
        }
        hook.queue.push_back(batch);
        let needs_worker = !hook.worker;
        if needs_worker {
            hook.worker = true;
        }
        drop(st);
        if needs_worker {
            let hub = Arc::clone(self);
            let org = organization_id.to_string();
            let spawned = thread::Builder::new()
                .name("emu-webhook".into())
                .spawn(move || hub.worker(&org));
            if let Err(e) = spawned {
                log::warn!("cannot start webhook worker: {e}");
                if let Some(h) = lock(&self.state).orgs.get_mut(organization_id) {
                    h.worker = false;
                }
            }
        }
        self.work.notify_all();
    }

    /// Sleeps up to `d`, waking early on stop. Returns the re-taken lock.
    fn pause<'a>(
        &'a self,
        mut st: MutexGuard<'a, HubState>,
        d: Duration,
    ) -> MutexGuard<'a, HubState> {
        let deadline = Instant::now() + d;
        loop {
            if self.stopping.load(Ordering::SeqCst) {
                return st;
            }
            let now = Instant::now();
            if now >= deadline {
                return st;
            }
            st = self
                .work
                .wait_timeout(st, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    fn worker(self: Arc<Self>, org: &str) {
        let mut st = lock(&self.state);
        loop {
            if self.stopping.load(Ordering::SeqCst) {
                return;
            }
            let Some(hook) = st.orgs.get_mut(org) else {
                return;
            };
            let Some(batch) = hook.queue.pop_front() else {
                hook.busy = false;
                st = self.work.wait(st).unwrap_or_else(|p| p.into_inner());
                continue;
            };
            hook.busy = true;
            st = self.deliver_batch(st, org, &batch);
        }
    }

    /// Sends one batch with retries. Called and returns with the state locked.
    fn deliver_batch<'a>(
        &'a self,
        mut st: MutexGuard<'a, HubState>,
        org: &str,
        batch: &Batch,
    ) -> MutexGuard<'a, HubState> {
        let mut attempt: u32 = 0;
        loop {
            if self.stopping.load(Ordering::SeqCst) {
                return st;
            }
            attempt += 1;
            let Some(hook) = st.orgs.get(org) else {
                return st;
            };
            let Some(settings) = hook.settings.clone() else {
                drop(st);
                self.not_sent(batch, org, None, DeliveryOutcome::DroppedNoSettings);
                return lock(&self.state);
            };
            if hook.blocked {
                drop(st);
                self.not_sent(
                    batch,
                    org,
                    Some(&settings.uri),
                    DeliveryOutcome::DroppedBlocked,
                );
                return lock(&self.state);
            }
            drop(st);
            let config = self.config();
            let answer = self.post(&settings, &batch.body, config.timeout);
            st = lock(&self.state);
            let Some(hook) = st.orgs.get_mut(org) else {
                return st;
            };
            if answer == Ok(200) {
                hook.consecutive_failures = 0;
                drop(st);
                self.record(
                    batch,
                    org,
                    Some(&settings.uri),
                    attempt,
                    Some(&answer),
                    DeliveryOutcome::Delivered,
                );
                return lock(&self.state);
            }
            hook.consecutive_failures = hook.consecutive_failures.saturating_add(1);
            let blocks_now = config.block_after_failures > 0
                && hook.consecutive_failures >= config.block_after_failures;
            let retries_left = (attempt as usize) <= config.retry_delays.len();
            if blocks_now {
                hook.blocked = true;
                let dropped: Vec<Batch> = hook.queue.drain(..).collect();
                drop(st);
                log::info!("webhook of organization {org} blocked after repeated failures");
                self.record(
                    batch,
                    org,
                    Some(&settings.uri),
                    attempt,
                    Some(&answer),
                    DeliveryOutcome::GaveUp,
                );
                for b in &dropped {
                    self.not_sent(b, org, Some(&settings.uri), DeliveryOutcome::DroppedBlocked);
                }
                return lock(&self.state);
            }
            if !retries_left {
                drop(st);
                self.record(
                    batch,
                    org,
                    Some(&settings.uri),
                    attempt,
                    Some(&answer),
                    DeliveryOutcome::GaveUp,
                );
                return lock(&self.state);
            }
            drop(st);
            self.record(
                batch,
                org,
                Some(&settings.uri),
                attempt,
                Some(&answer),
                DeliveryOutcome::Failed,
            );
            let delay = config
                .retry_delays
                .get(attempt as usize - 1)
                .copied()
                .unwrap_or_default();
            st = self.pause(lock(&self.state), delay);
        }
    }

    fn post(
        &self,
        settings: &WebhookSettings,
        body: &str,
        timeout: Duration,
    ) -> Result<u16, String> {
        let mut request = self
            .agent
            .post(&settings.uri)
            .header("Content-Type", "application/json");
        if let Some(token) = &settings.auth_token {
            request = request.header("Authorization", token.as_str());
        }
        let result = request
            .config()
            .timeout_global(Some(timeout))
            .build()
            .send(body.as_bytes());
        match result {
            Ok(mut response) => {
                let status = response.status().as_u16();
                // Drain a little of the body so the connection can be reused.
                let _ = response
                    .body_mut()
                    .with_config()
                    .limit(64 * 1024)
                    .read_to_vec();
                Ok(status)
            }
            Err(e) => Err(e.to_string()),
        }
    }

    pub(crate) fn records(&self) -> Vec<DeliveryRecord> {
        lock(&self.log).1.clone()
    }

    pub(crate) fn clear_log(&self) {
        lock(&self.log).1.clear();
    }

    /// Waits until `pred` holds for the log, or `timeout` passes.
    pub(crate) fn wait_for(
        &self,
        timeout: Duration,
        mut pred: impl FnMut(&[DeliveryRecord]) -> bool,
    ) -> bool {
        let deadline = Instant::now() + timeout;
        let mut log = lock(&self.log);
        loop {
            if pred(&log.1) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            log = self
                .logged
                .wait_timeout(log, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// True when no batch is queued or being delivered.
    pub(crate) fn is_idle(&self) -> bool {
        lock(&self.state)
            .orgs
            .values()
            .all(|h| h.queue.is_empty() && !h.busy)
    }
}
