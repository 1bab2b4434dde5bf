//! A durable inbox for webhook events: answer `200` only after the events are
//! stored, process them afterwards, lose nothing.
//!
//! The service repeats a webhook until it gets a prompt `200`, and blocks one
//! that keeps failing. A receiver therefore has to answer at once, and must
//! never lose what it answered `200` for, even when it dies right after. The
//! inbox splits the work:
//!
//! 1. **Receive** ([`Inbox::receive`]): verify the `Authorization` header,
//!    parse, drop repeats, write the new events, and only then return `200`.
//!    Writing and de-duplicating are one atomic step in the inbox, so a
//!    resend that reaches another replica is answered `200` and stored once.
//! 2. **Consume** ([`Inbox::take`], [`Inbox::ack`]): a consumer takes an event
//!    and acknowledges it when done. An event not acknowledged within the
//!    visibility timeout (the consumer died) is handed out again; one that
//!    failed [`InboxOptions::max_attempts`] times goes to the dead letters
//!    ([`Inbox::dead_letters`]) with the reason. Processing is at least once;
//!    with a [`Deduplicator`](crate::webhook::Deduplicator) on a shared
//!    store, effectively once.
//!
//! | URL | inbox |
//! |---|---|
//! | `sqlite:///var/lib/app/inbox.db` | a SQLite file in WAL mode, each write synced to disk; the processes of one machine share it |
//! | `redis://host:port/db` | a Redis stream with a consumer group; every machine shares it |
//!
//! `memory:` is refused: an inbox that dies with the process is no inbox.
//!
//! ```no_run
//! use iikocloud::inbox::Inbox;
//! use iikocloud::webhook::Receiver;
//!
//! let inbox = Inbox::open("sqlite:///var/lib/app/inbox.db")?;
//! let receiver = Receiver::new("the authToken of the webhook settings");
//! # let (headers, body): (Vec<(String, String)>, Vec<u8>) = (vec![], vec![]);
//! // In the HTTP handler: answer with `outcome.status` right away.
//! let outcome = inbox.receive(&receiver, None, headers, &body);
//! # let _ = outcome.status;
//!
//! // In a worker:
//! while let Some(delivery) = inbox.take()? {
//!     let event = iikocloud::webhook::parse_event(delivery.event_json());
//!     // ... handle `event` ...
//!     inbox.ack(&delivery)?;
//! }
//! # Ok::<(), iikocloud::store::StoreError>(())
//! ```

#[cfg(feature = "redis")]
mod redis_inbox;
#[cfg(feature = "sqlite")]
mod sqlite_inbox;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::limits::{self, Given};
use crate::store::{by_backend, Store, StoreError, StoreUrl};
use crate::telemetry::{self, EventOutcome};
use crate::webhook::{
    ParsedBody, ReceiveError, Receiver, STATUS_ACCEPTED, STATUS_RECEIVER_FAULT, STATUS_RETRY_LATER,
    STATUS_UNAUTHORIZED,
};

/// Every status [`Inbox::receive`] can answer: the receive rule's
/// ([`webhook::status`](crate::webhook::status)) and
/// [`STATUS_RETRY_LATER`] when the events could not be stored.
pub const RECEIVE_STATUSES: [u16; 4] = [
    STATUS_ACCEPTED,
    STATUS_UNAUTHORIZED,
    STATUS_RECEIVER_FAULT,
    STATUS_RETRY_LATER,
];

// Decided with their limits (`crate::limits`); they keep their names here.
pub use crate::limits::{
    DEFAULT_DEAD_LETTERS, DEFAULT_DEDUP_TTL, DEFAULT_MAX_ATTEMPTS, DEFAULT_VISIBILITY_TIMEOUT,
};

/// Settings of an [`Inbox`]. A binding reads each from its caller's value
/// through [`InboxOptions::read`] ([`limits`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboxOptions {
    /// How long a taken event stays invisible to other consumers before it is
    /// handed out again ([`DEFAULT_VISIBILITY_TIMEOUT`]). Longer than the
    /// slowest handling.
    pub visibility_timeout: Duration,
    /// Deliveries of one event at most; after that it goes to the dead
    /// letters ([`DEFAULT_MAX_ATTEMPTS`]).
    pub max_attempts: u32,
    /// How long the inbox remembers an event's key to drop its repeats
    /// ([`DEFAULT_DEDUP_TTL`]).
    pub dedup_ttl: Duration,
}

impl Default for InboxOptions {
    fn default() -> Self {
        InboxOptions {
            visibility_timeout: DEFAULT_VISIBILITY_TIMEOUT,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            dedup_ttl: DEFAULT_DEDUP_TTL,
        }
    }
}

impl InboxOptions {
    /// The options from the values a binding got from its caller, each read
    /// by its limit ([`limits::INBOX_VISIBILITY_TIMEOUT`],
    /// [`limits::INBOX_MAX_ATTEMPTS`], [`limits::INBOX_DEDUP_TTL`]): not
    /// given ([`Given::Absent`], or the C ABI's 0) is the default.
    pub fn read(
        visibility_timeout: Given,
        max_attempts: Given,
        dedup_ttl: Given,
    ) -> crate::Result<InboxOptions> {
        let defaults = InboxOptions::default();
        let attempts = limits::INBOX_MAX_ATTEMPTS.read(max_attempts)?;
        Ok(InboxOptions {
            visibility_timeout: limits::INBOX_VISIBILITY_TIMEOUT
                .read_duration(visibility_timeout)?
                .unwrap_or(defaults.visibility_timeout),
            // The limit's maximum is u32::MAX.
            max_attempts: attempts.map_or(defaults.max_attempts, |a| {
                u32::try_from(a).unwrap_or(u32::MAX)
            }),
            dedup_ttl: limits::INBOX_DEDUP_TTL
                .read_duration(dedup_ttl)?
                .unwrap_or(defaults.dedup_ttl),
        })
    }
}

impl InboxOptions {
    /// Options built field by field, held to the limits [`InboxOptions::read`]
    /// applies (the one rule of each).
    fn check(&self) -> crate::Result<()> {
        let millis = |d: Duration| Given::Int(d.as_millis() as i128);
        limits::INBOX_VISIBILITY_TIMEOUT.read(millis(self.visibility_timeout))?;
        limits::INBOX_MAX_ATTEMPTS.read(Given::Int(self.max_attempts.into()))?;
        limits::INBOX_DEDUP_TTL.read(millis(self.dedup_ttl))?;
        Ok(())
    }
}

/// An event handed to a consumer by [`Inbox::take`]; acknowledge it with
/// [`Inbox::ack`] or hand it back with [`Inbox::release`].
#[derive(Clone, PartialEq, Eq)]
pub struct Delivery {
    id: String,
    attempt: u32,
    key: String,
    body: String,
    received_at_ms: i64,
}

impl fmt::Debug for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Delivery")
            .field("id", &self.id)
            .field("attempt", &self.attempt)
            .field("key", &self.key)
            .field("bytes", &self.body.len())
            .finish()
    }
}

impl Delivery {
    /// The inbox's id of the event (a row number or a Redis stream id).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Which delivery of the event this is, from 1.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The event's de-duplication key ([`Event::dedup_key`](crate::webhook::Event::dedup_key)).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The event as received: one element of the array the service posted.
    pub fn event_json(&self) -> &str {
        &self.body
    }

    /// When the receiver stored it (milliseconds since the epoch).
    pub fn received_at_ms(&self) -> i64 {
        self.received_at_ms
    }
}

/// An event set aside after too many attempts or because it cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadLetter {
    /// Its id in the dead letters.
    pub id: String,
    /// Its de-duplication key (empty for an unreadable body).
    pub key: String,
    /// The event (or the unreadable body) as received.
    pub body: String,
    /// Deliveries it had.
    pub attempts: u32,
    /// Why it was set aside.
    pub reason: String,
}

/// Events waiting or in flight, and dead letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct InboxCounts {
    /// Stored and not yet acknowledged (waiting or taken).
    pub pending: u64,
    /// In the dead letters.
    pub dead: u64,
}

/// What [`Inbox::receive`] did with a request. Answer `status` right away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// The HTTP status to answer ([`RECEIVE_STATUSES`]): `200` once everything
    /// is stored, `401` for a failed verification, `500` if the expected token
    /// is empty, `503` when the inbox or store could not be written (the
    /// service sends the body again).
    pub status: u16,
    /// Events written.
    pub stored: usize,
    /// Events dropped as repeats.
    pub repeats: usize,
    /// Why the request was not a plain success (never contains a secret).
    pub error: Option<String>,
}

pub(crate) trait InboxBackend: Send + Sync {
    /// Writes the events whose key is new (atomically with marking the key);
    /// returns how many were written.
    fn push(&self, events: &[(String, String)], dedup_ttl: Duration) -> Result<usize, StoreError>;
    fn dead_letter(&self, key: &str, body: &str, reason: &str) -> Result<(), StoreError>;
    fn take(&self, options: &InboxOptions) -> Result<Option<Delivery>, StoreError>;
    fn ack(&self, delivery: &Delivery) -> Result<bool, StoreError>;
    fn release(&self, delivery: &Delivery, reason: &str) -> Result<(), StoreError>;
    fn dead_letters(&self, limit: usize) -> Result<Vec<DeadLetter>, StoreError>;
    fn counts(&self) -> Result<InboxCounts, StoreError>;
    /// When the oldest event not yet acknowledged was stored (ms since the
    /// epoch).
    fn oldest_received_ms(&self) -> Result<Option<i64>, StoreError>;
}

/// Counts the outcome of each event of a body the inbox wrote at once:
/// the backend says how many were new, not which, so a body of one event
/// type (the usual case) is counted by its type, and a mixed one as `mixed`.
fn count_outcomes(parsed: &ParsedBody, stored: usize, repeats: usize) {
    let Some(sink) = telemetry::sink() else {
        return;
    };
    let mut types = parsed.events.iter().map(telemetry::event_type);
    let first = types.next().unwrap_or("(none)");
    let event_type = if types.all(|t| t == first) {
        first
    } else {
        "mixed"
    };
    telemetry::event_type_point(sink, event_type, EventOutcome::New, stored, None);
    telemetry::event_type_point(sink, event_type, EventOutcome::Duplicate, repeats, None);
}

/// A durable inbox; see the [module documentation](self). Cheap to clone,
/// thread-safe.
#[derive(Clone)]
pub struct Inbox {
    backend: Arc<dyn InboxBackend>,
    url: StoreUrl,
    options: InboxOptions,
}

impl fmt::Debug for Inbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbox")
            .field("url", &self.url)
            .field("options", &self.options)
            .finish()
    }
}

impl Inbox {
    /// Opens the inbox at `url` with default [`InboxOptions`].
    pub fn open(url: &str) -> Result<Inbox, StoreError> {
        Inbox::open_with(url, InboxOptions::default())
    }

    /// Opens the inbox at `url` (`sqlite:///path` or `redis://host:port/db`).
    // Built without both stores, every URL is refused before `backend` is used.
    #[cfg_attr(
        not(any(feature = "sqlite", feature = "redis")),
        allow(unreachable_code, unused_variables)
    )]
    pub fn open_with(url: &str, options: InboxOptions) -> Result<Inbox, StoreError> {
        options
            .check()
            .map_err(|e| StoreError::BadOption(e.to_string()))?;
        let parsed = StoreUrl::parse(url)?;
        let backend: Arc<dyn InboxBackend> = by_backend!(&parsed,
            memory => return Err(StoreError::BadUrl {
                url: parsed.to_string(),
                reason:
                    "an inbox must outlive the process: use sqlite:///path or redis://host:port/db"
                        .into(),
            }),
            sqlite(path) => Arc::new(sqlite_inbox::SqliteInbox::open(path)?),
            redis(r) => Arc::new(redis_inbox::RedisInbox::open(r)?),
        );
        Ok(Inbox {
            backend,
            url: parsed,
            options,
        })
    }

    /// The URL, without its password.
    pub fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// The options it was opened with.
    pub fn options(&self) -> &InboxOptions {
        &self.options
    }

    /// Writes events given as `(dedup key, event JSON)`, skipping keys seen
    /// within [`InboxOptions::dedup_ttl`]; returns how many were new. Atomic:
    /// all are written or none.
    pub fn push(&self, events: &[(String, String)]) -> Result<usize, StoreError> {
        self.backend.push(events, self.options.dedup_ttl)
    }

    /// The receive path of a webhook endpoint: verifies, parses, drops
    /// repeats and writes the new events, then says what to answer.
    ///
    /// With a shared `store` (several inboxes on several machines behind one
    /// load balancer), repeats are also dropped across inboxes: the event's
    /// key is claimed in the store while it is written, and marked seen after.
    /// A receiver that dies in between leaves a claim that expires after 30 s,
    /// so the service's next resend is stored then; until then a resend is
    /// answered `503`, never `200` for an event that is not stored.
    ///
    /// An authentic body that cannot be parsed is answered `200` (a resend
    /// would bring the same bytes) and kept in the dead letters with the
    /// parse error, so it is not lost either.
    pub fn receive<I, N, V>(
        &self,
        receiver: &Receiver,
        store: Option<&Store>,
        headers: I,
        body: &[u8],
    ) -> Received
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let span = telemetry::webhook_span();
        let (received, parsed) =
            span.in_scope(|| self.receive_untraced(receiver, store, headers, body));
        let rejection = match received.status {
            STATUS_RETRY_LATER => Some("store_unavailable"),
            _ => None,
        };
        telemetry::webhook_done(&span, parsed.as_ref(), received.status, rejection, false);
        received
    }

    /// [`Inbox::receive`] without its account in the telemetry; also gives
    /// the parse result the account is made of.
    fn receive_untraced<I, N, V>(
        &self,
        receiver: &Receiver,
        store: Option<&Store>,
        headers: I,
        body: &[u8],
    ) -> (Received, Result<ParsedBody, ReceiveError>)
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let fail = |status: u16, error: String| Received {
            status,
            stored: 0,
            repeats: 0,
            error: Some(error),
        };
        let parsed = match receiver.receive_untraced(headers, body) {
            Ok(p) => p,
            Err(e @ ReceiveError::Unparseable(_)) => {
                let text = String::from_utf8_lossy(body);
                let received = match self.backend.dead_letter("", &text, &e.to_string()) {
                    Ok(()) => fail(e.http_status(), e.name()),
                    Err(se) => fail(
                        STATUS_RETRY_LATER,
                        format!("{}; cannot keep it: {se}", e.name()),
                    ),
                };
                return (received, Err(e));
            }
            Err(e) => return (fail(e.http_status(), e.name()), Err(e)),
        };
        let received = self.store_events(&parsed, store);
        (received, Ok(parsed))
    }

    /// Writes the events of a parsed body, through the shared store when
    /// there is one, and counts each one's outcome.
    fn store_events(&self, parsed: &ParsedBody, store: Option<&Store>) -> Received {
        let fail = |status: u16, error: String| Received {
            status,
            stored: 0,
            repeats: 0,
            error: Some(error),
        };
        let events: Vec<(String, String)> = parsed
            .iter()
            .map(|e| (e.dedup_key().as_str().to_owned(), e.raw_json().to_owned()))
            .collect();
        let total = events.len();
        let Some(store) = store.filter(|s| !s.is_memory()) else {
            return match self.push(&events) {
                Ok(stored) => {
                    count_outcomes(parsed, stored, total - stored);
                    Received {
                        status: STATUS_ACCEPTED,
                        stored,
                        repeats: total - stored,
                        error: None,
                    }
                }
                Err(e) => fail(STATUS_RETRY_LATER, format!("inbox: {e}")),
            };
        };
        let mut stored = 0;
        let mut repeats = 0;
        for ((key, json), event) in events.into_iter().zip(parsed) {
            match self.receive_shared(store, key, json) {
                Ok(true) => {
                    stored += 1;
                    telemetry::record_event(event, EventOutcome::New);
                }
                Ok(false) => {
                    repeats += 1;
                    telemetry::record_event(event, EventOutcome::Duplicate);
                }
                Err(e) => {
                    return Received {
                        status: STATUS_RETRY_LATER,
                        stored,
                        repeats,
                        error: Some(e),
                    }
                }
            }
        }
        Received {
            status: STATUS_ACCEPTED,
            stored,
            repeats,
            error: None,
        }
    }

    /// The receive path for a body the HTTP server stopped reading at its
    /// size limit (`size` bytes at least): verified like any other request
    /// ([`Receiver::receive_oversized`]); an authentic one is noted in the
    /// dead letters (without its body, which was not kept) and answered as
    /// an unreadable body is, or [`STATUS_RETRY_LATER`] when even the note
    /// cannot be written.
    pub fn receive_oversized<I, N, V>(
        &self,
        receiver: &Receiver,
        headers: I,
        size: usize,
    ) -> Received
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let span = telemetry::webhook_span();
        let received = span.in_scope(|| self.receive_oversized_untraced(receiver, headers, size));
        let rejection = received.error.as_deref().map(|e| match received.status {
            STATUS_RETRY_LATER => "store_unavailable",
            _ if e.starts_with("unauthorized") => e.split(';').next().unwrap_or(e),
            _ => "unparseable:too_large",
        });
        telemetry::webhook_done(
            &span,
            Err(&ReceiveError::Unparseable(
                crate::webhook::ParseError::TooLarge {
                    size,
                    limit: receiver.options().max_body_bytes(),
                },
            )),
            received.status,
            rejection,
            false,
        );
        received
    }

    fn receive_oversized_untraced<I, N, V>(
        &self,
        receiver: &Receiver,
        headers: I,
        size: usize,
    ) -> Received
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let result = receiver.receive_oversized_untraced(headers, size);
        let status = crate::webhook::http_status(&result);
        let error = match result {
            Err(e) if e.is_authentic() => {
                let reason = format!("{e}; the body was not kept");
                return match self.backend.dead_letter("", "", &reason) {
                    Ok(()) => Received {
                        status,
                        stored: 0,
                        repeats: 0,
                        error: Some(e.name()),
                    },
                    Err(se) => Received {
                        status: STATUS_RETRY_LATER,
                        stored: 0,
                        repeats: 0,
                        error: Some(format!("{}; cannot keep it: {se}", e.name())),
                    },
                };
            }
            Err(e) => e.name(),
            // Not reached: the body was cut, so it is never read as events.
            Ok(_) => "too_large".to_owned(),
        };
        Received {
            status,
            stored: 0,
            repeats: 0,
            error: Some(error),
        }
    }

    /// One event through the shared store: claim, write, mark seen.
    fn receive_shared(&self, store: &Store, key: String, json: String) -> Result<bool, String> {
        let seen_key = format!("inbox:{key}");
        let claim_key = format!("inbox-claim:{key}");
        let deadline = Instant::now() + CLAIM_WAIT;
        let claim = loop {
            if store
                .is_seen(&seen_key)
                .map_err(|e| format!("store: {e}"))?
            {
                return Ok(false);
            }
            if let Some(lock) = store
                .try_lock(&claim_key, CLAIM_TTL)
                .map_err(|e| format!("store: {e}"))?
            {
                break lock;
            }
            // Another receiver is writing this event right now.
            if Instant::now() >= deadline {
                return Err("another receiver holds this event and has not stored it yet".into());
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        // Seen may have been marked between our check and the claim.
        if store
            .is_seen(&seen_key)
            .map_err(|e| format!("store: {e}"))?
        {
            return Ok(false);
        }
        let written = self
            .push(&[(key, json)])
            .map_err(|e| format!("inbox: {e}"))?;
        store
            .first_seen(&seen_key, self.options.dedup_ttl)
            .map_err(|e| format!("store: {e}"))?;
        if let Err(e) = claim.release() {
            log::warn!("inbox: cannot release a claim ({e}); it expires on its own");
        }
        Ok(written == 1)
    }

    /// Keeps something that cannot go through the inbox (e.g. an authentic
    /// body too large to read) in the dead letters, with the reason.
    pub fn set_aside(&self, key: &str, body: &str, reason: &str) -> Result<(), StoreError> {
        self.backend.dead_letter(key, body, reason)
    }

    /// Takes the next event, hiding it from other consumers for the
    /// visibility timeout; `None` when nothing is waiting. Events that were
    /// delivered [`InboxOptions::max_attempts`] times without an
    /// acknowledgement are moved to the dead letters on the way.
    pub fn take(&self) -> Result<Option<Delivery>, StoreError> {
        let taken = self.backend.take(&self.options)?;
        if taken.as_ref().is_some_and(|d| d.attempt > 1) {
            telemetry::redelivered();
        }
        Ok(taken)
    }

    /// Acknowledges a delivery: the event is done and removed. `false` when
    /// this delivery no longer holds the event (its visibility timeout passed
    /// and it was handed out again, or it was already acknowledged).
    pub fn ack(&self, delivery: &Delivery) -> Result<bool, StoreError> {
        self.backend.ack(delivery)
    }

    /// Hands an event back after a failure, with the reason: it is delivered
    /// again at once, or goes to the dead letters (with this reason) when it
    /// has had [`InboxOptions::max_attempts`] deliveries.
    pub fn release(&self, delivery: &Delivery, reason: &str) -> Result<(), StoreError> {
        self.backend.release(delivery, reason)
    }

    /// Up to `limit` dead letters, oldest first.
    pub fn dead_letters(&self, limit: usize) -> Result<Vec<DeadLetter>, StoreError> {
        self.backend.dead_letters(limit)
    }

    /// How many events are pending and dead.
    pub fn counts(&self) -> Result<InboxCounts, StoreError> {
        self.backend.counts()
    }

    /// How long the oldest event not yet acknowledged has been waiting;
    /// `None` when there is none.
    pub fn oldest_pending_age(&self) -> Result<Option<Duration>, StoreError> {
        let Some(received_ms) = self.backend.oldest_received_ms()? else {
            return Ok(None);
        };
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        let age = u64::try_from(now_ms.saturating_sub(received_ms)).unwrap_or(0);
        Ok(Some(Duration::from_millis(age)))
    }

    /// Records the inbox's gauges ([`telemetry::INBOX_DEPTH`],
    /// [`telemetry::INBOX_OLDEST_AGE`], [`telemetry::INBOX_DEAD_LETTERS`])
    /// into the metric sink, when one is set: call it before a scrape, or
    /// now and then. Asks the inbox only when a sink is set.
    pub fn record_gauges(&self) -> Result<(), StoreError> {
        if !telemetry::metrics_enabled() {
            return Ok(());
        }
        let counts = self.counts()?;
        let oldest = self.oldest_pending_age()?.unwrap_or_default();
        telemetry::inbox_gauges(counts.pending, oldest, counts.dead);
        Ok(())
    }
}

/// A receiver that dies while writing an event holds its claim this long.
const CLAIM_TTL: Duration = Duration::from_secs(30);
/// How long a resend waits for another receiver's claim before a `503`.
const CLAIM_WAIT: Duration = Duration::from_secs(2);

#[cfg(any(feature = "sqlite", feature = "redis"))]
fn dead_reason(attempts: u32, last_error: Option<&str>) -> String {
    match last_error {
        Some(e) => format!("failed {attempts} times; last error: {e}"),
        None => format!("not acknowledged within the visibility timeout {attempts} times"),
    }
}

#[cfg(test)]
mod tests;
