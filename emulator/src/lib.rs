//! Local emulator of the iikoCloud (iikoTransport) API, for tests and demos.
//!
//! A real HTTP server on loopback (hyper, on a small runtime of its own: the
//! caller needs none; idle keep-alive connections never hold up a request)
//! that issues JWT-shaped tokens,
//! serves organizations, webhook settings, stop lists and each organization's
//! menu and reference data ([`Dictionaries`]) from fixture data,
//! injects faults on demand, logs every request, and delivers webhook events
//! with retries, filters and blocking.
//!
//! ```no_run
//! use iikocloud_emulator::{Emulator, EmulatorConfig, Fault, FaultKind};
//! use std::time::Duration;
//!
//! let emu = Emulator::start(EmulatorConfig::default().token_ttl(Duration::from_secs(2)))?;
//! emu.inject(Fault::new("/api/1/organizations", FaultKind::Status(503), 1));
//! // ... point the client at emu.url() ...
//! assert_eq!(emu.request_count("/api/1/organizations"), 0);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! [`WebhookSink`] is a small loopback HTTP server for tests of webhook
//! receivers. The HTTP control endpoints (`/_emulator/...`), the fixture
//! format and the delivery rules are described in the crate's README.

mod api;
mod backoffice;
mod catalogue;
pub mod cli;
mod commands;
mod contents;
mod control;
mod dictionaries;
mod error;
mod faults;
mod fixtures;
mod flows;
mod menus;
mod metrics;
mod records;
mod reference;
mod reply;
mod scope;
mod server;
mod sink;
mod state;
mod tables;
mod tokens;
mod util;
mod webhooks;
mod zones;

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;
use std::time::{Duration, Instant};

use iikocloud_http_server::{Server, ServerConfig};

use serde_json::Value;

pub use dictionaries::{
    CategoryPrice, CombosFixture, CourierLocation, Dictionaries, EmployeeFixture,
    ExternalMenuFixture, LoyaltyFixture, MenuCategoryFixture, NomenclatureFixture,
    PriceCategoryFixture,
};
pub use error::EmulatorError;
pub use faults::{Fault, FaultKind};
pub use fixtures::{
    ApiKeyFixture, AppFixture, ExternalDataEntry, Fixtures, LegalEntityFixture,
    OrganizationFixture, StopListItem, TerminalGroupFixture, DEFAULT_FIXTURES_JSON, MENU_PRODUCTS,
};

/// Connection and request limits of the emulator's HTTP server.
pub use iikocloud_http_server::Limits as HttpLimits;
/// A certificate and key for serving HTTPS ([`EmulatorConfig::tls`]).
pub use iikocloud_http_server::{TlsError, TlsIdentity};
pub use records::RequestRecord;
pub use sink::{SinkRequest, WebhookSink};
pub use state::OrderHandle;
pub use webhooks::{
    DeliveryConfig, DeliveryOutcome, DeliveryRecord, WebhookSettings, WebhookState,
};

/// `appId` of the default fixtures.
pub const DEFAULT_APP_ID: &str = "emulator-app";
/// `clientSecret` of the default fixtures.
pub const DEFAULT_CLIENT_SECRET: &str = "emulator-secret";
/// API key of the default fixtures, linked to two enabled organizations and one disabled.
pub const DEFAULT_API_KEY: &str = "emulator-api-key";
/// `apiLoginName` of [`DEFAULT_API_KEY`].
pub const DEFAULT_API_LOGIN_NAME: &str = "emulator-api-login";
/// API key of the default fixtures that is linked to no organization.
pub const EMPTY_API_KEY: &str = "emulator-empty-key";
/// First enabled organization of the default fixtures ("Emulator Pizza (Central)").
pub const DEFAULT_ORGANIZATION_ID: &str = "441e1320-3f58-4702-9f9e-aa34cdef9c04";
/// Second enabled organization of the default fixtures ("Emulator Sushi (North)").
pub const SECOND_ORGANIZATION_ID: &str = "a0c4696d-b51f-48b3-83c1-586ddfaf4a42";
/// Disabled organization of the default fixtures ("Emulator Closed Cafe").
pub const DISABLED_ORGANIZATION_ID: &str = "a244237d-e854-4c0a-abf5-4ec2180db814";
/// The organizations linked to [`DEFAULT_API_KEY`], in fixture order.
pub const DEFAULT_ORGANIZATION_IDS: [&str; 3] = [
    DEFAULT_ORGANIZATION_ID,
    SECOND_ORGANIZATION_ID,
    DISABLED_ORGANIZATION_ID,
];
/// First terminal group of [`DEFAULT_ORGANIZATION_ID`] (two stop list items: balances 0.1 and 12.35).
pub const DEFAULT_TERMINAL_GROUP_ID: &str = "7b668cda-784b-4938-bd54-cd2bd147a44c";
/// Second terminal group of [`DEFAULT_ORGANIZATION_ID`] (one item, balance 0).
pub const DEFAULT_SECOND_TERMINAL_GROUP_ID: &str = "c5d9e7e0-1e9a-4d0f-8b5c-e81d3157a6a3";
/// Terminal group of [`SECOND_ORGANIZATION_ID`] (one item, balance 3.5).
pub const SECOND_TERMINAL_GROUP_ID: &str = "2ac14e94-79af-43b0-b843-4d4266edcd2f";
/// The legal entity of both enabled organizations of the default fixtures
/// ("Emulator Restaurants LLC"); the disabled one names none.
pub const DEFAULT_LEGAL_ENTITY_ID: &str = "5b0c2f1e-7d3a-4e8b-9c6f-1a2b3c4d5e01";

/// A request body that fits the schema of the operation at `path` (POST),
/// made up deterministically from the snapshot (`spec/operations.json`), for
/// tests that call every operation; the ids the emulator must know to answer
/// (an external menu, a guest's card, an employee, a city) are those of the
/// built-in dictionaries. `None` for a path the snapshot lacks.
pub fn example_request(path: &str) -> Option<Value> {
    let cat = catalogue::catalogue();
    let op = cat.operation(path)?;
    let mut request = cat.example_request(op);
    dictionaries::fit_example(op["name"].as_str().unwrap_or_default(), &mut request);
    Some(request)
}

/// Default port of the binary.
pub const DEFAULT_PORT: u16 = 8787;

/// How to start an [`Emulator`]. Fields are public; the methods are builder shortcuts.
#[derive(Debug, Clone)]
pub struct EmulatorConfig {
    /// Address to listen on (default `127.0.0.1:0`, a free port).
    pub bind: SocketAddr,
    /// Fixture data (default: [`Fixtures::default_data`]).
    pub fixtures: Fixtures,
    /// Lifetime of tokens issued (default 1 hour).
    pub token_ttl: Duration,
    /// Webhook delivery timing (default [`DeliveryConfig::default`]).
    pub delivery: DeliveryConfig,
    /// Limits of the HTTP server (default [`EmulatorConfig::default_http_limits`]).
    pub http: HttpLimits,
    /// Serve HTTPS with this certificate and key (default: plain HTTP), to
    /// test a client's trust and proxy setup end to end.
    pub tls: Option<TlsIdentity>,
}

impl Default for EmulatorConfig {
    fn default() -> Self {
        EmulatorConfig {
            bind: SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)),
            fixtures: Fixtures::default_data(),
            token_ttl: Duration::from_secs(3600),
            delivery: DeliveryConfig::default(),
            http: EmulatorConfig::default_http_limits(),
            tls: None,
        }
    }
}

impl EmulatorConfig {
    /// The server's defaults, with room for the control endpoint that waits
    /// up to 60 s for deliveries, and a short drain on stop (delays injected
    /// with [`FaultKind::Delay`] are cut short by a stop anyway).
    pub fn default_http_limits() -> HttpLimits {
        HttpLimits {
            max_body_bytes: reply::MAX_BODY,
            request_timeout: Duration::from_secs(90),
            shutdown_grace: Duration::from_secs(2),
            ..HttpLimits::default()
        }
    }

    /// Sets the HTTP server's limits.
    pub fn http_limits(mut self, limits: HttpLimits) -> Self {
        self.http = limits;
        self
    }

    /// Serves HTTPS with `identity`; [`Emulator::url`] then starts with `https://`.
    pub fn tls(mut self, identity: TlsIdentity) -> Self {
        self.tls = Some(identity);
        self
    }

    /// Sets the token lifetime.
    pub fn token_ttl(mut self, ttl: Duration) -> Self {
        self.token_ttl = ttl;
        self
    }

    /// Sets the fixture data.
    pub fn fixtures(mut self, f: Fixtures) -> Self {
        self.fixtures = f;
        self
    }

    /// Sets the listening address.
    pub fn bind(mut self, addr: SocketAddr) -> Self {
        self.bind = addr;
        self
    }

    /// Sets all webhook delivery settings at once.
    pub fn delivery(mut self, delivery: DeliveryConfig) -> Self {
        self.delivery = delivery;
        self
    }

    /// Sets how long one delivery attempt may take.
    pub fn delivery_timeout(mut self, timeout: Duration) -> Self {
        self.delivery.timeout = timeout;
        self
    }

    /// Sets the pauses before each retry of a failed delivery.
    pub fn retry_delays(mut self, delays: Vec<Duration>) -> Self {
        self.delivery.retry_delays = delays;
        self
    }

    /// Sets after how many consecutive failed attempts a webhook is blocked (0 = never).
    pub fn block_after_failures(mut self, n: u32) -> Self {
        self.delivery.block_after_failures = n;
        self
    }
}

/// A running emulator. Stops (closing its port and connections) on drop.
pub struct Emulator {
    shared: Arc<state::Shared>,
    addr: SocketAddr,
    /// Serving HTTPS.
    tls: bool,
    /// `None` once stopped.
    server: Option<Server>,
}

impl Emulator {
    /// Starts an emulator with `config`.
    pub fn start(config: EmulatorConfig) -> std::io::Result<Emulator> {
        let hub = Arc::new(webhooks::Hub::new(config.delivery));
        let shared = Arc::new(state::Shared::new(
            config.fixtures,
            tokens::TokenStore::new(config.token_ttl),
            hub,
        ));
        let tls = config.tls.is_some();
        let server = {
            let shared = Arc::clone(&shared);
            let mut server_config = ServerConfig::loopback("emu")
                .bind(config.bind)
                .limits(config.http);
            server_config.tls = config.tls;
            Server::start(server_config, move |rq, ctx| {
                server::serve(&shared, rq, ctx)
            })?
        };
        let addr = server.addr();
        log::info!("iikocloud emulator listening on {addr}");
        Ok(Emulator {
            shared,
            addr,
            tls,
            server: Some(server),
        })
    }

    /// Starts an emulator with [`EmulatorConfig::default`].
    pub fn start_default() -> std::io::Result<Emulator> {
        Emulator::start(EmulatorConfig::default())
    }

    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`
    /// (`https://` when serving TLS; loopback when bound to an unspecified
    /// address).
    pub fn url(&self) -> String {
        let mut a = self.addr;
        if a.ip().is_unspecified() {
            a.set_ip(match a {
                SocketAddr::V4(_) => Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{a}")
    }

    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The fixture data in use.
    pub fn fixtures(&self) -> &Fixtures {
        &self.shared.fixtures
    }

    /// Stops the emulator (same as dropping it).
    pub fn stop(self) {
        drop(self);
    }

    fn shutdown(&mut self) {
        let Some(server) = self.server.take() else {
            return;
        };
        self.shared.hub.stop();
        // Answers what is in flight, closes idle connections and the port.
        server.shutdown();
    }

    // ----- request log -----

    /// A copy of the request log (API requests only, oldest first).
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared.log.snapshot()
    }

    /// Number of logged requests for exactly this path.
    pub fn request_count(&self, path: &str) -> usize {
        self.shared.log.count(path)
    }

    /// Empties the request log.
    pub fn clear_requests(&self) {
        self.shared.log.clear();
    }

    /// Returns the request log and empties it in one step, so no record
    /// slips in between (for long runs that must not keep a growing log).
    pub fn take_requests(&self) -> Vec<RequestRecord> {
        self.shared.log.take()
    }

    // ----- faults -----

    /// Arms a fault (appended after those already armed; the first match wins).
    pub fn inject(&self, fault: Fault) {
        util::lock(&self.shared.faults).push(fault);
    }

    /// Faults still armed.
    pub fn faults(&self) -> Vec<Fault> {
        util::lock(&self.shared.faults).clone()
    }

    /// Disarms every fault.
    pub fn clear_faults(&self) {
        util::lock(&self.shared.faults).clear();
    }

    // ----- tokens -----

    /// Makes every token issued so far expired (the next call with one gets 401).
    pub fn expire_tokens(&self) {
        util::lock(&self.shared.tokens).expire_all();
    }

    /// Changes the lifetime of tokens issued from now on.
    pub fn set_token_ttl(&self, ttl: Duration) {
        util::lock(&self.shared.tokens).set_ttl(ttl);
    }

    /// Current token lifetime.
    pub fn token_ttl(&self) -> Duration {
        util::lock(&self.shared.tokens).ttl()
    }

    /// Back to the start-up state: empties both logs, disarms faults, forgets
    /// webhook settings, blocks and orders, restores the fixture stop lists.
    /// Issued tokens and configuration stay.
    pub fn reset(&self) {
        self.shared.reset();
    }

    // ----- webhooks: settings and delivery log -----

    /// How long a nomenclature write (group, product, category) takes to show
    /// in the list methods, which read an eventually consistent catalogue
    /// (about a second by default; zero makes writes visible at once).
    pub fn set_catalogue_delay(&self, delay: Duration) {
        crate::util::lock(&self.shared.backoffice).delay = delay;
    }

    /// Current webhook delivery timing.
    pub fn delivery_config(&self) -> DeliveryConfig {
        self.shared.hub.config()
    }

    /// Changes webhook delivery timing (applies to the next attempt).
    pub fn set_delivery_config(&self, config: DeliveryConfig) {
        self.shared.hub.set_config(config);
    }

    /// Stored webhook settings of an organization.
    pub fn webhook_settings(&self, organization_id: &str) -> Option<WebhookSettings> {
        self.shared
            .hub
            .settings(&organization_id.to_ascii_lowercase())
    }

    /// State of every webhook that has settings or has seen events.
    pub fn webhook_states(&self) -> Vec<WebhookState> {
        self.shared.hub.states()
    }

    /// True when the organization's webhook is blocked after repeated failures.
    pub fn is_webhook_blocked(&self, organization_id: &str) -> bool {
        self.shared
            .hub
            .is_blocked(&organization_id.to_ascii_lowercase())
    }

    /// A copy of the delivery log (oldest first).
    pub fn deliveries(&self) -> Vec<DeliveryRecord> {
        self.shared.hub.records()
    }

    /// Empties the delivery log.
    pub fn clear_deliveries(&self) {
        self.shared.hub.clear_log();
    }

    /// Waits until the delivery log holds at least `n` records (of any outcome;
    /// every attempt and every unsent batch is a record). False on timeout.
    pub fn wait_for_deliveries(&self, n: usize, timeout: Duration) -> bool {
        self.shared.hub.wait_for(timeout, |log| log.len() >= n)
    }

    /// Waits until at least `n` records have the outcome [`DeliveryOutcome::Delivered`].
    pub fn wait_for_successful_deliveries(&self, n: usize, timeout: Duration) -> bool {
        self.shared.hub.wait_for(timeout, |log| {
            log.iter()
                .filter(|r| r.outcome == DeliveryOutcome::Delivered)
                .count()
                >= n
        })
    }

    /// Waits until `pred` holds for the delivery log. False on timeout.
    pub fn wait_for_delivery_log(
        &self,
        timeout: Duration,
        pred: impl FnMut(&[DeliveryRecord]) -> bool,
    ) -> bool {
        self.shared.hub.wait_for(timeout, pred)
    }

    /// Waits until no batch is queued or being delivered. False on timeout.
    pub fn wait_for_delivery_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.shared.hub.is_idle() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    // ----- webhooks: event triggers -----

    /// Creates a delivery order (status `Unconfirmed`, `creationStatus: Success`)
    /// and enqueues its `DeliveryOrderUpdate`.
    pub fn create_delivery_order(
        &self,
        organization_id: &str,
    ) -> Result<OrderHandle, EmulatorError> {
        self.shared.create_delivery_order(organization_id)
    }

    /// Moves a delivery order to `status` (any string; `Cancelled` adds
    /// `cancelInfo`) and enqueues a `DeliveryOrderUpdate` with the same order id
    /// and a larger `timestamp`.
    pub fn set_delivery_status(
        &self,
        order_id: &str,
        status: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared.set_delivery_status(order_id, status)
    }

    /// Enqueues a `DeliveryOrderError` (`creationStatus: Error`, `errorInfo.code = code`, `order: null`).
    pub fn trigger_delivery_error(
        &self,
        organization_id: &str,
        code: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared.trigger_delivery_error(organization_id, code)
    }

    /// Enqueues a `ReserveUpdate` for a new reservation (status `New`).
    pub fn trigger_reserve_update(
        &self,
        organization_id: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared.trigger_reserve(organization_id, None)
    }

    /// Enqueues a `ReserveError` with `errorInfo.code = code`.
    pub fn trigger_reserve_error(
        &self,
        organization_id: &str,
        code: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared.trigger_reserve(organization_id, Some(code))
    }

    /// Enqueues a `TableOrderUpdate` for a new table order (status `New`).
    pub fn trigger_table_order_update(
        &self,
        organization_id: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared.trigger_table_order(organization_id, None)
    }

    /// Enqueues a `TableOrderError` with `errorInfo.code = code`.
    pub fn trigger_table_order_error(
        &self,
        organization_id: &str,
        code: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared.trigger_table_order(organization_id, Some(code))
    }

    /// Adds a generated item (new product id, balance 0) to the organization's
    /// first terminal group stop list and enqueues a `StopListUpdate`.
    pub fn trigger_stop_list_change(
        &self,
        organization_id: &str,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared.change_stop_list(organization_id, None, None)
    }

    /// Puts `item` on a terminal group's stop list (replacing the same product
    /// and size) and enqueues a `StopListUpdate`.
    pub fn add_stop_list_item(
        &self,
        organization_id: &str,
        terminal_group_id: &str,
        item: StopListItem,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared
            .change_stop_list(organization_id, Some(terminal_group_id), Some(item))
    }

    /// Enqueues a `PersonalShift` (an employee opening or closing a shift).
    pub fn trigger_personal_shift(
        &self,
        organization_id: &str,
        opened: bool,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared.trigger_personal_shift(organization_id, opened)
    }

    /// Enqueues one event of any type with the given `eventInfo` (envelope
    /// fields are generated; the filter applies).
    pub fn send_event(
        &self,
        organization_id: &str,
        event_type: &str,
        event_info: Value,
    ) -> Result<Vec<Value>, EmulatorError> {
        self.shared
            .send_event(organization_id, event_type, event_info)
    }

    /// Enqueues `body` to be POSTed exactly as given (any JSON, array or not;
    /// no filtering). Returns the body.
    pub fn send_raw(&self, organization_id: &str, body: Value) -> Result<Value, EmulatorError> {
        self.shared.send_raw(organization_id, body)
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl std::fmt::Debug for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emulator")
            .field("addr", &self.addr)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulator_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Emulator>();
    }
}
