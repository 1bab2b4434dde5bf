//! Every operation of the official document, typed.
//!
//! [`models`] and the resource groups are generated (`codegen/`) from
//! `spec/operations.json`, a facts-only snapshot of iiko's OpenAPI document
//! written by `scripts/spec-snapshot.py`. Reach them from a client:
//!
//! ```no_run
//! # fn demo(client: &iikocloud::Client) -> iikocloud::Result<()> {
//! use iikocloud::api::models::terminals::TerminalGroupsRequest;
//!
//! let groups = client.api().terminal_groups().get(&TerminalGroupsRequest {
//!     organization_ids: Some(vec!["441e1320-3f58-4702-9f9e-aa34cdef9c04".into()]),
//!     ..Default::default()
//! })?;
//! println!("{} organizations", groups.terminal_groups.unwrap_or_default().len());
//! # Ok(()) }
//! ```
//!
//! Names follow the path after its version prefix: `/api/1/deliveries/create`
//! is `client.api().deliveries().create(&request)`; a path that is a call and
//! a group of calls at once (`terminal_groups`, `terminal_groups/is_alive`)
//! is the group's `get`. Answers are read leniently: every field is an
//! `Option` (the service sends `null` where the document says required),
//! unknown fields are kept in `extra`, enums keep unknown values, unions keep
//! unknown variants as JSON. Requests are checked before anything is sent
//! ([`Validate`]): a violation is [`Error::InvalidInput`] naming the field path,
//! e.g. `order.items[2].amount: must be at least 0`. Commands are never
//! retried; reads are. Follow a command with [`Client::wait_command`];
//! create delivery orders with [`Client::create_delivery_order`], which
//! never creates one twice (an order sent without `order.id` gets a fresh
//! one in any case).

mod call;
#[cfg(test)]
mod lenient_tests;
pub mod models;
mod ops;
mod safe;
pub mod support;
mod validate;
mod wait;
mod wire;

pub use call::{
    call_by_name, call_operation, call_operation_and_wait, call_operation_text,
    create_order_request, prepare_request, prepare_request_with, OperationCall,
};
pub use ops::*;
pub use safe::new_order_id;
pub use validate::{Validate, Validator};
pub use wait::{
    WaitOptions, DEFAULT_FIRST_PAUSE, DEFAULT_MAX_PAUSE, DEFAULT_WAIT_TIMEOUT, MAX_WAIT_TIMEOUT,
    PAUSE_GROWTH,
};
pub use wire::RequestKeys;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::{Client, Error, Result};

/// What the snapshot says about one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperationInfo {
    /// Dotted name, e.g. `deliveries.create`.
    pub name: &'static str,
    /// What the operation is for, in one line (this project's words, from
    /// `spec/operation-summaries.json`; none of the official document's prose).
    pub summary: &'static str,
    /// HTTP method (`POST` for all but one).
    pub method: &'static str,
    /// Path, e.g. `/api/1/deliveries/create`.
    pub path: &'static str,
    /// Which edition of the document it comes from (`official`).
    pub edition: &'static str,
    /// The API key's restriction group that must allow it, when stated.
    pub restriction_group: Option<&'static str>,
    /// Answers a `correlationId` whose outcome [`Client::wait_command`] follows.
    pub command: bool,
    /// Only reads, so the client may repeat it after a transport error or 5xx.
    pub safe_to_retry: bool,
    /// Deprecated in the document.
    pub deprecated: bool,
    /// The success status it answers (200, or 201 for some creates).
    pub success_status: u16,
}

/// Looks an operation up by its dotted name.
pub fn operation(name: &str) -> Option<&'static OperationInfo> {
    OPERATIONS
        .binary_search_by(|o| o.name.cmp(name))
        .ok()
        .map(|i| &OPERATIONS[i])
}

/// The body of an operation that takes none: `{}`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoBody;

impl Serialize for NoBody {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        s.serialize_map(Some(0))?.end()
    }
}

impl<'de> serde::Deserialize<'de> for NoBody {
    /// Any JSON object (its fields are ignored: the operation takes none).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let _ = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        Ok(NoBody)
    }
}

impl Validate for NoBody {
    fn validate_at(&self, _v: &mut Validator) {}
}

impl Validate for serde_json::Value {
    fn validate_at(&self, v: &mut Validator) {
        if !self.is_object() {
            v.fail("the body must be a JSON object");
        }
    }
}

impl Client {
    /// Every operation of the official document, by resource group.
    pub fn api(&self) -> Api<'_> {
        Api { client: self }
    }

    /// Checks `request`, sends it to `op` and reads the typed answer.
    ///
    /// Generic only where it must be (the check, the request's JSON and the
    /// answer's read): this is compiled for each of the 329 operations.
    pub(crate) fn operation<Q, R>(&self, op: &OperationInfo, request: &Q) -> Result<R>
    where
        Q: Serialize + Validate,
        R: DeserializeOwned,
    {
        request.validate()?;
        let body = serde_json::to_vec(request).map_err(|e| Error::invalid(e.to_string()))?;
        self.typed(op.path, outgoing_body(op, body)?, op.safe_to_retry)
    }
}

/// A checked request's JSON as it goes out to `op`, typed or by name: only
/// POST is sent, and an order create always carries an id, so any answer (or
/// a look-up after a lost one) can name it.
fn outgoing_body(op: &OperationInfo, body: Vec<u8>) -> Result<Vec<u8>> {
    if op.method != "POST" {
        return Err(Error::invalid(format!(
            "{} is a {} operation; this client sends POST only (it is deprecated: use the POST form)",
            op.name, op.method
        )));
    }
    if !safe::ORDER_CREATES.contains(&op.name) {
        return Ok(body);
    }
    // The JSON the models wrote reads back to the same values (amounts are
    // written as doubles that round-trip, or as strings).
    let mut value: Value =
        serde_json::from_slice(&body).map_err(|e| Error::invalid(e.to_string()))?;
    safe::fill_order_id(&mut value);
    serde_json::to_vec(&value).map_err(|e| Error::invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::models::web_hooks::{GetWebHookSettingsResponse, UpdateWebHookSettingsRequest};
    use crate::Secret;

    /// The emulator gives an order without an id one of its own, so only
    /// the body itself shows that the client filled it.
    #[test]
    fn outgoing_bodies_carry_an_order_id_and_go_by_post_only() {
        let body = |name: &str, json: &str| {
            let op = super::operation(name).expect("known");
            super::outgoing_body(op, json.as_bytes().to_vec())
        };
        let sent = body("deliveries.create", r#"{"order":{"phone":"+7"}}"#).expect("sent");
        let sent: serde_json::Value = serde_json::from_slice(&sent).expect("JSON");
        let id = sent["order"]["id"].as_str().expect("an id");
        assert!(uuid::Uuid::try_parse(id).is_ok(), "{id}");
        let kept = body("order.create", r#"{"order":{"id":"k-1"}}"#).expect("sent");
        assert_eq!(kept, br#"{"order":{"id":"k-1"}}"#);
        let other = r#"{"organizationIds":[]}"#;
        assert_eq!(
            body("terminal_groups", other).expect("sent"),
            other.as_bytes()
        );
        let get = super::OPERATIONS
            .iter()
            .find(|o| o.method != "POST")
            .expect("a GET operation in the document");
        let e = super::outgoing_body(get, b"{}".to_vec()).unwrap_err();
        assert!(e.to_string().contains("POST only"), "{e}");
    }

    #[test]
    fn credentials_in_generated_models_never_show_in_debug() {
        let request = UpdateWebHookSettingsRequest {
            auth_token: Some(Secret::new("hook-token-3f9a")),
            ..Default::default()
        };
        let answer: GetWebHookSettingsResponse =
            serde_json::from_str(r#"{"authToken":"hook-token-3f9a","apiLoginName":"x"}"#)
                .expect("reads");
        for shown in [format!("{request:?}"), format!("{answer:?}")] {
            assert!(!shown.contains("hook-token-3f9a"), "{shown}");
        }
        // The wire still carries it.
        assert!(serde_json::to_string(&request)
            .expect("writes")
            .contains("hook-token-3f9a"));
    }
}
