//! Inbound webhooks: verify, parse, de-duplicate and order the events the
//! service posts to your `webHooksUri`.
//!
//! # The receive flow
//!
//! The service sends `POST <webHooksUri>` with a JSON array of events and the
//! configured `authToken` in the `Authorization` header. It counts anything but
//! a prompt `200` as a failed delivery and sends the body again; since
//! 04.08.2025 it also **blocks webhooks that keep failing**, which stops every
//! event for the organization. Hence:
//!
//! 1. **Verify, then parse**, in one call: [`Receiver::receive`] (or
//!    [`receive`]) checks the header in constant time ([`Verifier`]) and only
//!    then reads the body ([`parse_body_with`]).
//! 2. **Answer at once** with [`http_status`] of the result ([`status`] has
//!    the rule): `200` for events, `401` for a failed verification, `500` if
//!    your expected token is empty, and `200` also for an authentic body that
//!    cannot be read (a retry would bring the same bytes; log it instead). See
//!    [`ReceiveError::http_status`].
//! 3. **Work afterwards**, off the request thread: hand the events to a queue.
//! 4. **Drop repeats** with a [`Deduplicator`]: the service sends no event id,
//!    so events are keyed by [`EventKey`]. For de-duplication across restarts,
//!    store [`Event::dedup_key`] yourself.
//! 5. **Skip stale order events** with an [`OrderingGuard`]: nothing guarantees
//!    order between events, but every order and reserve event carries a
//!    growing `eventInfo.timestamp`.
//!
//! ```
//! use std::time::Duration;
//! use iikocloud::webhook::{http_status, Deduplicator, OrderingDecision, OrderingGuard, Receiver};
//!
//! let receiver = Receiver::new("s3cret");
//! let dedup = Deduplicator::new(10_000, Duration::from_secs(24 * 3600));
//! let guard = OrderingGuard::new(10_000);
//!
//! let body = br#"[{"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877",
//!   "organizationId":"0ae7e972-848d-53c5-8a8f-3a120fa115ba",
//!   "correlationId":"0885102e-6dcc-5fbd-bf84-0b17c24bce32",
//!   "eventInfo":{"id":"88ad6eef-3a98-5fe9-8bdb-4af52e46d835","timestamp":1758038531877,
//!     "creationStatus":"Success","order":{"number":10452,"status":"Unconfirmed","sum":1780.0}}}]"#;
//! let result = receiver.receive([("authorization", "Bearer s3cret")], body);
//! let status = http_status(&result); // answer this now
//! assert_eq!(status, 200);
//!
//! match result {
//!     Ok(parsed) => {
//!         for event in parsed {
//!             if let Some(problem) = event.problem() {
//!                 eprintln!("unreadable event: {problem}");
//!                 continue;
//!             }
//!             if !dedup.first_seen(&event) {
//!                 continue; // a repeated delivery
//!             }
//!             if let OrderingDecision::Stale { .. } = guard.observe(&event) {
//!                 continue; // older than what we already applied
//!             }
//!             if event.is_new_delivery_order() {
//!                 assert_eq!(event.sum().unwrap().to_string(), "1780");
//!             }
//!         }
//!     }
//!     Err(e) if e.is_authentic() => eprintln!("unreadable body: {e}"),
//!     Err(e) => eprintln!("rejected: {e}"),
//! }
//! ```
//!
//! # Events
//!
//! Each [`Event`] has the envelope fields (all optional, as in the spec), an
//! [`EventKind`] with a stable integer code, a typed [`EventPayload`] and the
//! event's raw JSON. Types this SDK does not model (`KitchenOrderUpdate`,
//! `NomenclatureUpdate`, `BusinessHoursAndMappingUpdate`, future ones) are
//! [`EventPayload::Unknown`] with their raw `eventInfo`. The typed payloads
//! are the generated models of the document's webhook schemas, the same
//! types the operations answer with (`crate::api::models`). Reading is
//! lenient: unknown fields are kept in each model's `extra`, unknown enum
//! values as `Unknown(text)`, and nulls or wrong-typed values read as `None`. An event that still cannot
//! be read is [`EventPayload::Invalid`] and never affects its neighbours.
//!
//! `StopListUpdate` carries no stop-list items: call `/api/1/stop_lists` after
//! it. `PersonalShift` has no time field: use the envelope's `eventTime`.

mod blocks;
mod dedup;
mod event;
mod field;
mod kinds;
mod ordering;
mod parse;
mod receive;
mod scan;
pub mod status;
mod summary;
mod verify;

pub use dedup::{Clock, Deduplicator, ManualClock, SystemClock};
pub use event::{Event, EventKey, EventKind, EventPayload, RawJson};
pub use field::field_text;
// The typed `eventInfo` models are the generated ones (`crate::api::models`),
// named here as this module named them before the generator wrote them.
pub use crate::api::models::deliveries::common::DeliveryStatus;
pub use crate::api::models::deliveries::response::order::{
    CreationStatus, Order as DeliveryOrder, OrderInfo as DeliveryOrderInfo, OrderStatus,
};
pub use crate::api::models::employees::PersonalShift;
pub use crate::api::models::errors::{ErrorCode, ErrorInfo};
pub use crate::api::models::reserves::{Reserve, ReserveInfo, ReserveStatus};
pub use crate::api::models::stop_lists::WebHookOnStopListChangeData as StopListUpdate;
pub use crate::api::models::table_orders::response::{TableOrder, TableOrderInfo};
pub use crate::time::{parse_local_time, EventTime, LocalTime};
pub use ordering::{OrderingDecision, OrderingGuard};
pub use parse::{
    parse_body, parse_body_with, parse_event, ParseError, ParseErrorKind, ParseOptions, ParsedBody,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, MAX_DEPTH_CEILING,
};
pub use receive::{http_status, receive, ReceiveError, Receiver};
pub use status::{
    status_for_parse, status_for_verify, RECEIVE_STATUSES, STATUS_ACCEPTED, STATUS_BROKEN_REQUEST,
    STATUS_RECEIVER_FAULT, STATUS_RETRY_LATER, STATUS_UNAUTHORIZED, STATUS_WRONG_METHOD,
};
pub use verify::{find_authorization, verify_authorization, Verifier, VerifyError};
