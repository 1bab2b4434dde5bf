//! Calling any operation by name with JSON in and out, for the bindings (C,
//! C++, PHP, Python, the CLI) that reach the typed operations through one
//! entry point.
//!
//! The request is checked exactly as the typed Rust methods check it (the
//! same [`Error::InvalidInput`] naming the field), from the rules of
//! [`super::wire`] rather than through the typed models, and goes out as the
//! typed path would write it. It is retried only when the operation is safe
//! to repeat, and carries the operation's `Timeout`. The answer comes back as
//! the service wrote it: keys in their order and amounts with their digits
//! (a JSON number whose text is the decimal), or with every amount as a JSON
//! string when [`OperationCall::money_as_text`] asks (for hosts whose JSON
//! reader turns numbers into doubles, such as PHP).

use std::time::Duration;

use serde_json::Value;

use super::models::deliveries::request::CreateOrderRequest;
use super::wire::RequestKeys;
use super::{operation, wire, OperationInfo, WaitOptions};
use crate::{limits, CallOptions, Client, Error, Result};

/// How [`call_operation`] sends one call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperationCall {
    /// This call's `Timeout` header (1 s to 1 h); `None` keeps the client's.
    pub timeout: Option<Duration>,
    /// Write every amount of the answer as a JSON string (`"1250.5"`).
    pub money_as_text: bool,
    /// How the request's keys are read.
    pub keys: RequestKeys,
}

impl OperationCall {
    /// Reads the `Timeout` in milliseconds as the C ABI takes it
    /// ([`limits::CALL_TIMEOUT`]: 0 keeps the client's).
    pub fn timeout_ms(self, ms: u64) -> Result<Self> {
        self.with_timeout(limits::Given::Raw(ms))
    }

    /// Reads the `Timeout` as a binding got it ([`limits::CALL_TIMEOUT`]).
    pub fn with_timeout(mut self, timeout: limits::Given) -> Result<Self> {
        // Refused here, before anything is sent.
        self.timeout = limits::CALL_TIMEOUT.read_duration(timeout)?;
        Ok(self)
    }
}

impl WaitOptions {
    /// Reads a wait limit in milliseconds as the C ABI takes it
    /// ([`limits::WAIT_TIMEOUT`]: 0 keeps the default).
    pub fn from_timeout_ms(ms: u64) -> Result<WaitOptions> {
        WaitOptions::read(
            limits::Given::Raw(ms),
            limits::Given::Absent,
            limits::Given::Absent,
        )
    }

    /// Reads the three settings as a binding got them
    /// ([`limits::WAIT_TIMEOUT`], [`limits::WAIT_FIRST_PAUSE`],
    /// [`limits::WAIT_MAX_PAUSE`]).
    pub fn read(
        timeout: limits::Given,
        first_pause: limits::Given,
        max_pause: limits::Given,
    ) -> Result<WaitOptions> {
        // Every wait limit has a fixed default, so a read always has a value.
        let read = |limit: &limits::Limit, given| -> Result<Duration> {
            Ok(limit.read_duration(given)?.unwrap_or_default())
        };
        Ok(WaitOptions {
            timeout: read(&limits::WAIT_TIMEOUT, timeout)?,
            first_pause: read(&limits::WAIT_FIRST_PAUSE, first_pause)?,
            max_pause: read(&limits::WAIT_MAX_PAUSE, max_pause)?,
        })
    }
}

/// Checks `request` against the operation `name` and returns the JSON the
/// client would send; nothing is sent (e.g. to check a form before queueing
/// it). An unknown name, a key that is no field of its schema, a request
/// that is not an object of the operation's shape, or one that breaks a rule
/// of the document is [`Error::InvalidInput`] naming the field.
pub fn prepare_request(name: &str, request: &Value) -> Result<Value> {
    prepare_request_with(name, request, RequestKeys::default())
}

/// [`prepare_request`] with the keys read as `keys` says.
pub fn prepare_request_with(name: &str, request: &Value, keys: RequestKeys) -> Result<Value> {
    let op = find(name)?;
    wire::request(op.name, request.clone(), keys)
}

/// Checks `request` against the operation `name`, sends it and returns the
/// answer's JSON text as the service wrote it (amounts as strings when
/// `options` asks).
///
/// An unknown name, a key that is no field of its schema (unless
/// [`OperationCall::keys`] allows it), a request that is not an object of the
/// operation's shape, or one that breaks a rule of the document is
/// [`Error::InvalidInput`] and nothing is sent. Commands are never repeated; reads are, after a transport
/// error or a 5xx. `deliveries.create` and `order.create` always send an
/// `order.id` (a fresh one when the request has none; the answer's
/// `orderInfo.id` tells it).
pub fn call_operation_text(
    client: &Client,
    name: &str,
    request: &Value,
    options: &OperationCall,
) -> Result<String> {
    let (op, text) = check_and_send(client, name, request, options)?;
    if !options.money_as_text {
        return Ok(text);
    }
    Ok(answer(op, &text, options)?.to_string())
}

/// [`call_operation_text`] with the answer as a [`Value`] (numbers as
/// `f64`: take the text, or amounts as strings, to keep every digit).
pub fn call_operation(
    client: &Client,
    name: &str,
    request: &Value,
    options: &OperationCall,
) -> Result<Value> {
    let (op, text) = check_and_send(client, name, request, options)?;
    answer(op, &text, options)
}

/// [`call_operation`] with the client's own `Timeout` and amounts as numbers.
pub fn call_by_name(client: &Client, name: &str, request: &Value) -> Result<Value> {
    call_operation(client, name, request, &OperationCall::default())
}

/// [`call_operation`] for a command, then follows it with
/// [`Client::wait_command`] until it succeeds; returns the command's answer.
///
/// The command's organization is the request's `organizationId`. A failed
/// command is [`Error::Command`]. `deliveries.create` goes through
/// [`Client::create_delivery_order`], so a lost answer never makes a second
/// order; its answer is `{"orderInfo": …}` with the order as
/// `deliveries/by_id` reads it once created. An operation that is not a
/// command is [`Error::InvalidInput`] (nothing is sent).
pub fn call_operation_and_wait(
    client: &Client,
    name: &str,
    request: &Value,
    options: &OperationCall,
    wait: &WaitOptions,
) -> Result<Value> {
    let op = find(name)?;
    if !op.command {
        return Err(Error::invalid(format!(
            "{name} is not a command (it answers no correlationId to wait for); call it without waiting"
        )));
    }
    if op.name == "deliveries.create" {
        let mut typed = create_order_request(request, options.keys)?;
        let client = with_timeout(client, options)?;
        let info = client.create_delivery_order(&mut typed, wait)?;
        let write = || super::support::to_json(name, &info);
        let info = if options.money_as_text {
            crate::money::as_text(write)
        } else {
            write()
        }?;
        return Ok(serde_json::json!({ "orderInfo": info }));
    }
    // Checked first so a request without it fails before anything is sent.
    let body = wire::request(op.name, request.clone(), options.keys)?;
    let organization_id = body
        .get("organizationId")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            Error::invalid(format!(
                "organizationId: is required to wait for {name} (commands/status asks for it)"
            ))
        })?;
    let answer = answer(op, &send(client, op, body, options)?, options)?;
    let correlation_id = answer
        .get("correlationId")
        .and_then(Value::as_str)
        .ok_or_else(|| decode_error(op, "the command's answer has no correlationId to wait for"))?;
    client.wait_command(&organization_id, correlation_id, wait)?;
    Ok(answer)
}

/// A `deliveries.create` request given as JSON, checked as every call by
/// name checks it (the same messages, its keys read as `keys` says), in the
/// typed form [`Client::create_delivery_order`] takes. Keys allowed through
/// as unknown travel in the models' `extra`.
pub fn create_order_request(request: &Value, keys: RequestKeys) -> Result<CreateOrderRequest> {
    const NAME: &str = "deliveries.create";
    super::support::request_from_json(NAME, &wire::request(NAME, request.clone(), keys)?)
}

/// The operation `name`, and the answer's text to `request` once checked
/// against it and sent.
fn check_and_send(
    client: &Client,
    name: &str,
    request: &Value,
    options: &OperationCall,
) -> Result<(&'static OperationInfo, String)> {
    let op = find(name)?;
    let body = wire::request(op.name, request.clone(), options.keys)?;
    Ok((op, send(client, op, body, options)?))
}

/// Sends a checked request body to `op` and returns the answer's text.
fn send(
    client: &Client,
    op: &OperationInfo,
    body: Value,
    options: &OperationCall,
) -> Result<String> {
    // The same rules as the typed path's (the method, the order's id).
    let body = super::outgoing_body(op, body.to_string().into_bytes())?;
    let call = CallOptions {
        timeout: options.timeout,
        idempotent: op.safe_to_retry,
    };
    client
        .post_text(op.path, body, &call)
        .map(|answer| answer.text)
}

/// The answer's text read as JSON, with its amounts as strings when
/// `options` asks.
fn answer(op: &OperationInfo, text: &str, options: &OperationCall) -> Result<Value> {
    let answer = if options.money_as_text {
        wire::answer_with_amounts_as_text(op.name, text)
    } else {
        serde_json::from_str(text)
    };
    answer.map_err(|e| decode_error(op, &e.to_string()))
}

fn decode_error(op: &OperationInfo, message: &str) -> Error {
    Error::Decode {
        path: op.path.to_owned(),
        status: op.success_status,
        message: message.to_owned(),
        correlation_id: None,
        body: String::new(),
    }
}

fn find(name: &str) -> Result<&'static OperationInfo> {
    operation(name).ok_or_else(|| Error::invalid(unknown(name)))
}

fn unknown(name: &str) -> String {
    format!("no operation named {name:?} (names look like \"deliveries.create\")")
}

fn with_timeout(client: &Client, options: &OperationCall) -> Result<Client> {
    match options.timeout {
        Some(t) => client.with_timeout(t),
        None => Ok(client.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Money;

    #[test]
    fn answers_keep_the_digits_of_amounts() {
        for text in [
            "12345678901234.56",
            "0.1",
            "1250.5",
            "-0.3",
            "99999999999.99",
        ] {
            let m: Money = text.parse().unwrap();
            let json = serde_json::to_string(&serde_json::to_value(m).unwrap()).unwrap();
            assert_eq!(json, text);
            let quoted = crate::money::as_text(|| {
                super::super::support::to_json("x", m).map(|v| v.to_string())
            })
            .unwrap();
            assert_eq!(quoted, format!("\"{text}\""));
        }
        // Back to numbers outside the scope.
        let m: Money = "0.1".parse().unwrap();
        assert_eq!(serde_json::to_value(m).unwrap().to_string(), "0.1");
    }

    #[test]
    fn the_safe_creation_reads_its_request_as_every_call_by_name_does() {
        let order = serde_json::json!({"organizationId": super::super::new_order_id(), "order": 7});
        let by_name = prepare_request("deliveries.create", &order).unwrap_err();
        let safe = create_order_request(&order, RequestKeys::default()).unwrap_err();
        assert_eq!(safe.to_string(), by_name.to_string());
        assert!(
            safe.to_string()
                .contains("order: must be an object, got a number"),
            "{safe}"
        );
    }

    #[test]
    fn limits_are_read_once_for_every_binding() {
        assert_eq!(
            OperationCall::default().timeout_ms(0).unwrap().timeout,
            None
        );
        assert_eq!(
            OperationCall::default().timeout_ms(1500).unwrap().timeout,
            Some(Duration::from_millis(1500))
        );
        assert!(OperationCall::default().timeout_ms(999).is_err());
        assert!(OperationCall::default().timeout_ms(3_600_001).is_err());
        assert_eq!(
            WaitOptions::from_timeout_ms(0).unwrap(),
            WaitOptions::default()
        );
        assert!(WaitOptions::from_timeout_ms(86_400_001).is_err());
    }
}
