//! The emulator's own traffic as metrics, served at `/metrics` on its port
//! in the Prometheus text format (names converted as the CLI's `--metrics`
//! converts the SDK's: `iikocloud_http_server::prometheus`), so a test can
//! assert on what its code made the emulator do. Cleared by a reset.

use iikocloud_http_server::prometheus::{Desc, Kind, Registry};

/// API requests answered, by path and status (401, 400, 429 among them).
const REQUESTS: usize = 0;
/// Access tokens issued.
const TOKENS_ISSUED: usize = 1;
/// Requests whose bearer token was refused, by why.
const TOKENS_REFUSED: usize = 2;
/// Webhook delivery attempts and batches not sent, by outcome.
const DELIVERIES: usize = 3;
/// Delivery attempts after the first of a batch.
const RETRIES: usize = 4;

fn table() -> Vec<Desc> {
    let counter = |name, unit, description| Desc {
        name,
        unit,
        kind: Kind::Counter,
        description,
        buckets: &[],
    };
    vec![
        counter(
            "iiko.emulator.requests",
            "{request}",
            "API requests answered by the emulator, by path (http.route) and status.",
        ),
        counter(
            "iiko.emulator.tokens.issued",
            "{token}",
            "Access tokens issued.",
        ),
        counter(
            "iiko.emulator.tokens.refused",
            "{request}",
            "Requests whose bearer token was refused: expired or unknown.",
        ),
        counter(
            "iiko.emulator.webhook.deliveries",
            "{delivery}",
            "Webhook delivery attempts (delivered, failed, gave_up) and batches not sent (dropped_blocked, dropped_no_settings, filtered).",
        ),
        counter(
            "iiko.emulator.webhook.retries",
            "{retry}",
            "Webhook delivery attempts after the first of a batch.",
        ),
    ]
}

/// The emulator's metrics.
pub(crate) struct Metrics(Registry);

impl Default for Metrics {
    fn default() -> Self {
        Metrics(Registry::new(table()))
    }
}

impl Metrics {
    pub(crate) fn request(&self, path: &str, status: u16) {
        self.0.record(
            REQUESTS,
            1.0,
            &[
                ("http.route", path.to_string()),
                ("http.response.status_code", status.to_string()),
            ],
        );
    }

    pub(crate) fn token_issued(&self) {
        self.0.record(TOKENS_ISSUED, 1.0, &[] as &[(&str, &str)]);
    }

    pub(crate) fn token_refused(&self, reason: &'static str) {
        self.0.record(TOKENS_REFUSED, 1.0, &[("reason", reason)]);
    }

    /// `outcome`: the name of the delivery's `DeliveryOutcome`.
    pub(crate) fn delivery(&self, attempt: u32, outcome: &'static str) {
        self.0.record(DELIVERIES, 1.0, &[("outcome", outcome)]);
        if attempt > 1 {
            self.0.record(RETRIES, 1.0, &[] as &[(&str, &str)]);
        }
    }

    pub(crate) fn clear(&self) {
        self.0.clear();
    }

    pub(crate) fn render(&self) -> String {
        self.0.render()
    }
}
