//! Creating orders so that a lost answer never makes a second order.
//!
//! The service identifies an order by the `order.id` the caller sends and
//! refuses a second order with the same id. So the id is fixed before the
//! first attempt: after a timeout the order can be looked up by that id, and
//! a resend with it cannot create a twin.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::models::deliveries::request::{CreateOrderRequest, OrdersByIdRequest};
use super::models::deliveries::response::order::OrderInfo;
use super::WaitOptions;
use crate::error::{CommandError, CommandErrorKind};
use crate::{Client, Error, Result};

/// Operations that create an order and take its id in `order.id`.
pub(crate) const ORDER_CREATES: [&str; 2] = ["deliveries.create", "order.create"];

/// A fresh random order id (a version-4 UUID).
pub fn new_order_id() -> String {
    let mut bytes = [0u8; 16];
    fastrand::fill(&mut bytes);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// Gives the request's `order` an id when it has none (in the JSON sent).
pub(crate) fn fill_order_id(body: &mut Value) {
    if let Some(order) = body.get_mut("order").and_then(Value::as_object_mut) {
        if order.get("id").is_none_or(Value::is_null) {
            order.insert("id".into(), Value::String(new_order_id()));
        }
    }
}

/// Whether the service may have acted on a request whose answer did not
/// arrive: no answer at all, a timeout, or a server error.
fn answer_lost(e: &Error) -> bool {
    match e {
        Error::Transport { .. } => true,
        Error::Api(a) => a.status == 408 || a.status >= 500,
        _ => false,
    }
}

impl Client {
    /// Creates a delivery order, waits for its command and reads it back,
    /// never creating it twice.
    ///
    /// `request.order.id` is filled with a fresh id when empty, in the
    /// caller's request, so the caller keeps it. When the answer to the
    /// create is lost (transport error, timeout, 408, 5xx), the order is
    /// looked up by that id; if the service does not have it, the create is
    /// sent once more with the same id (a twin is refused by the service,
    /// and then the order is looked up again). Returns the order as
    /// `deliveries/by_id` reads it after the command succeeded; a failed
    /// creation is [`Error::Command`].
    pub fn create_delivery_order(
        &self,
        request: &mut CreateOrderRequest,
        wait: &WaitOptions,
    ) -> Result<OrderInfo> {
        let organization_id = request
            .organization_id
            .clone()
            .ok_or_else(|| Error::invalid("organizationId: is required"))?;
        let order = request
            .order
            .as_mut()
            .ok_or_else(|| Error::invalid("order: is required"))?;
        let order_id = order.id.get_or_insert_with(new_order_id).clone();
        let deliveries = self.api().deliveries();
        let find = || -> Result<Option<OrderInfo>> {
            let found = deliveries.by_id(&OrdersByIdRequest {
                organization_id: Some(organization_id.clone()),
                order_ids: Some(vec![order_id.clone()]),
                ..Default::default()
            })?;
            Ok(found.orders.unwrap_or_default().into_iter().next())
        };
        let correlation_id = match deliveries.create(request) {
            Ok(answer) => answer.correlation_id,
            Err(e) if answer_lost(&e) => {
                log::debug!("answer to deliveries/create lost ({e}); looking the order up");
                if find()?.is_some() {
                    None
                } else {
                    match deliveries.create(request) {
                        Ok(answer) => answer.correlation_id,
                        // The first attempt landed after all.
                        Err(again) if find()?.is_some() => {
                            log::debug!("resend refused ({again}); the first attempt landed");
                            None
                        }
                        Err(again) => return Err(again),
                    }
                }
            }
            Err(e) => return Err(e),
        };
        if let Some(cid) = &correlation_id {
            self.wait_command(&organization_id, cid, wait)?;
        }
        // Without the correlationId (its answer was lost) the order itself
        // says when its creation is over.
        let started = Instant::now();
        let mut pause = wait.first_pause.max(Duration::from_millis(10));
        loop {
            let info = find()?.ok_or_else(|| {
                Error::invalid(format!(
                    "order {order_id} was accepted but deliveries/by_id does not return it"
                ))
            })?;
            let failed = |kind, reason| {
                Error::Command(Box::new(CommandError {
                    kind,
                    correlation_id: correlation_id.clone().unwrap_or_else(|| order_id.clone()),
                    reason,
                    exception: None,
                    waited: started.elapsed(),
                }))
            };
            match info.creation_status.as_ref().map(|s| s.as_str()) {
                Some("InProgress") if started.elapsed() < wait.timeout => {
                    std::thread::sleep(pause);
                    pause = pause.mul_f64(1.5).min(wait.max_pause.max(pause));
                }
                Some("InProgress") => return Err(failed(CommandErrorKind::TimedOut, None)),
                Some("Error") => {
                    let code = info.error_info.as_ref().and_then(|e| e.code.as_ref());
                    return Err(failed(
                        CommandErrorKind::Failed,
                        code.map(|c| c.as_str().to_string()),
                    ));
                }
                _ => return Ok(info),
            }
        }
    }
}
