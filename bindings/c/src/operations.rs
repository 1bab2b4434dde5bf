//! `iiko_operation`: every operation of the official document by number, and
//! `iiko_client_call_operation` to call one with JSON in and out.
//!
//! The numbers (`IIKO_OP_*`) and the table are generated (`op_table.rs`,
//! from `spec/operations.json` and the append-only `spec/operation-numbers.json`).

use std::ffi::c_char;

use iikocloud_core::api::{
    call_operation_and_wait, call_operation_text, prepare_request_with, OperationCall, RequestKeys,
    WaitOptions,
};
use serde_json::Value;

use crate::client::iiko_client;
use crate::error::{guard, iiko_error, Failure};
use crate::ffi::{guard_value, opt_arg_str, out_ptr, owned_c_string, BoxCastable};
use crate::op_table::{iiko_operation, Entry, LAST, TABLE};
use crate::status::*;

/// `iiko_client_call_operation` flag: write every amount of the answer as a
/// JSON string (`"1250.5"`) instead of a JSON number, for JSON readers that
/// turn numbers into doubles. Amounts as numbers are exact too: their text is
/// the decimal.
pub const IIKO_CALL_MONEY_AS_STRING: u32 = 2;

/// `iiko_client_call_operation` and `iiko_operation_prepare` flag: send keys
/// of the request that are no field of this library's snapshot as given (a
/// field newer than the library, on purpose). Without it such a key is
/// `IIKO_STATUS_INVALID_ARGUMENT` naming its path and the nearest field, and
/// nothing is sent.
pub const IIKO_CALL_ALLOW_UNKNOWN_FIELDS: u32 = 4;

fn entry(op: iiko_operation) -> Option<&'static Entry> {
    let index = usize::try_from(op).ok()?.checked_sub(1)?;
    TABLE.get(index)?.as_ref()
}

fn entry_arg(op: iiko_operation) -> Result<&'static Entry, Failure> {
    entry(op).ok_or_else(|| {
        Failure::invalid_argument(format!(
            "no operation numbered {op}; use an IIKO_OP_* constant or iiko_operation_by_name"
        ))
    })
}

/// The highest operation number: operations are numbered 1 to this (a
/// reserved number in between has a NULL name). Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_operation_count() -> iiko_operation {
    guard_value(0, || LAST)
}

/// The number of the operation with the dotted name `name` (e.g.
/// `"deliveries.create"`), or 0 when there is none (or `name` is NULL or not
/// UTF-8). Thread-safe.
///
/// # Safety
/// `name` must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn iiko_operation_by_name(name: *const c_char) -> iiko_operation {
    guard_value(0, || {
        // SAFETY: per this function's contract.
        let Ok(Some(name)) = (unsafe { opt_arg_str(name, "name") }) else {
            return 0;
        };
        (1..=LAST)
            .find(|&op| entry(op).is_some_and(|e| e.name.to_bytes() == name.as_bytes()))
            .unwrap_or(0)
    })
}

/// The dotted name of an operation (`"deliveries.create"`); NULL for a number
/// that is not an operation. Static: do not free. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_operation_name(op: iiko_operation) -> *const c_char {
    guard_value(std::ptr::null(), || {
        entry(op).map_or(std::ptr::null(), |e| e.name.as_ptr())
    })
}

/// The path of an operation (`"/api/1/deliveries/create"`); NULL for a number
/// that is not an operation. Static: do not free. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_operation_path(op: iiko_operation) -> *const c_char {
    guard_value(std::ptr::null(), || {
        entry(op).map_or(std::ptr::null(), |e| e.path.as_ptr())
    })
}

/// The API key's restriction group that must allow the operation (e.g.
/// `"Orders: creating"`); NULL when the document states none or the number is
/// not an operation. Static: do not free. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_operation_restriction_group(op: iiko_operation) -> *const c_char {
    guard_value(std::ptr::null(), || {
        entry(op)
            .and_then(|e| e.restriction_group)
            .map_or(std::ptr::null(), |g| g.as_ptr())
    })
}

/// 1 when the operation is a command (it answers a `correlationId` whose end
/// `iiko_client_call_operation_wait` waits for; never retried), 0 when not, -1
/// for a number that is not an operation. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_operation_is_command(op: iiko_operation) -> i32 {
    guard_value(-1, || entry(op).map_or(-1, |e| i32::from(e.command)))
}

/// 1 when the operation only reads, so the client repeats it after a transport
/// error or a 5xx; 0 when it is never repeated; -1 for a number that is not an
/// operation. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_operation_is_safe_to_retry(op: iiko_operation) -> i32 {
    guard_value(-1, || entry(op).map_or(-1, |e| i32::from(e.safe_to_retry)))
}

/// 1 when the document marks the operation deprecated, 0 when not, -1 for a
/// number that is not an operation. Thread-safe.
#[no_mangle]
pub extern "C" fn iiko_operation_is_deprecated(op: iiko_operation) -> i32 {
    guard_value(-1, || entry(op).map_or(-1, |e| i32::from(e.deprecated)))
}

/// Reads a request argument: NULL is `{}`; text that is not JSON is
/// `IIKO_STATUS_INVALID_JSON`.
fn request(text: Option<&str>) -> Result<Value, Failure> {
    match text {
        None => Ok(Value::Object(Default::default())),
        Some(text) => {
            serde_json::from_str(text).map_err(|e| Failure::invalid_json("request_json", &e))
        }
    }
}

fn call_options(timeout_ms: u64, flags: u32) -> Result<OperationCall, Failure> {
    if flags & !(IIKO_CALL_MONEY_AS_STRING | IIKO_CALL_ALLOW_UNKNOWN_FIELDS) != 0 {
        return Err(Failure::invalid_argument(format!(
            "unknown flags 0x{flags:x}; use 0, IIKO_CALL_MONEY_AS_STRING or IIKO_CALL_ALLOW_UNKNOWN_FIELDS (the operation's own retry rule applies)"
        )));
    }
    Ok(OperationCall {
        money_as_text: flags & IIKO_CALL_MONEY_AS_STRING != 0,
        keys: request_keys(flags),
        ..Default::default()
    }
    .timeout_ms(timeout_ms)?)
}

fn request_keys(flags: u32) -> RequestKeys {
    RequestKeys::default().allowing_unknown(flags & IIKO_CALL_ALLOW_UNKNOWN_FIELDS != 0)
}

/// Checks a request for an operation and writes it back as the JSON the client
/// would send, without sending anything (e.g. to check a form before queueing
/// it).
///
/// `request_json` as for `iiko_client_call_operation`; `flags` is 0 or
/// `IIKO_CALL_ALLOW_UNKNOWN_FIELDS` (other bits are refused). On success
/// writes the request to `*json_out` (yours; free it with
/// `iiko_string_free`). A request that is not JSON is
/// `IIKO_STATUS_INVALID_JSON`; one with a key that is no field of its schema
/// (`order.delivery_point: not a field of DeliveryOrder; did you mean
/// deliveryPoint?`), that does not fit the operation's request or breaks a
/// rule of the document (a required field missing, a length, a range, an
/// allowed value, a UUID) is `IIKO_STATUS_INVALID_ARGUMENT` with a message
/// naming the field, e.g. `order.items[0].amount: must be at least 0, got
/// -1`. Thread-safe.
///
/// # Safety
/// `request_json` must be NULL or NUL-terminated; the out pointers must be
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_operation_prepare(
    op: iiko_operation,
    request_json: *const c_char,
    flags: u32,
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        let entry = entry_arg(op)?;
        // SAFETY: per this function's contract.
        let text = unsafe { opt_arg_str(request_json, "request_json") }?;
        let out = out_ptr(json_out, "json_out")?;
        if flags & !IIKO_CALL_ALLOW_UNKNOWN_FIELDS != 0 {
            return Err(Failure::invalid_argument(format!(
                "unknown flags 0x{flags:x}; use 0 or IIKO_CALL_ALLOW_UNKNOWN_FIELDS"
            )));
        }
        let name = entry
            .name
            .to_str()
            .map_err(|_| Failure::invalid_argument("name"))?;
        let prepared = prepare_request_with(name, &request(text)?, request_keys(flags))?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(owned_c_string(&prepared.to_string())) };
        Ok(())
    })
}

/// Calls an operation (`op`, an `IIKO_OP_*` constant) with a JSON request
/// and answers JSON.
///
/// The request is checked first, as by `iiko_operation_prepare` (nothing is
/// sent when it fails). Reads are retried after a transport error or a 5xx;
/// commands never are. `deliveries.create` and `order.create` always send an
/// `order.id` (a fresh one when yours has none; the answer's `orderInfo.id`
/// says which): set it yourself to look the order up after a lost answer.
///
/// `request_json`: the request as UTF-8 JSON (NULL means `{}`). `timeout_ms`:
/// this call's Timeout header (0: the client's), read as `iiko_limit_read`
/// reads `"call.timeout"` (out of range: `IIKO_STATUS_INVALID_ARGUMENT`). `flags`: 0 or any of
/// `IIKO_CALL_MONEY_AS_STRING` and `IIKO_CALL_ALLOW_UNKNOWN_FIELDS` (other bits are refused).
/// A key of the request that is no field of its schema is refused (naming its
/// path and the nearest field) unless `IIKO_CALL_ALLOW_UNKNOWN_FIELDS` is set.
///
/// On success writes the answer to `*json_out` (yours; free it with
/// `iiko_string_free`): the service's JSON as it wrote it, so amounts keep
/// every digit (`12345678901234.56`); with the flag, every amount is a JSON
/// string instead. Thread-safe.
///
/// # Safety
/// `client` must be NULL or a live client; `request_json` must be NULL or
/// NUL-terminated; the out pointers must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_call_operation(
    client: *const iiko_client,
    op: iiko_operation,
    request_json: *const c_char,
    timeout_ms: u64,
    flags: u32,
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (client, text) = unsafe {
            (
                iiko_client::try_ref(client, "client")?,
                opt_arg_str(request_json, "request_json")?,
            )
        };
        let entry = entry_arg(op)?;
        let out = out_ptr(json_out, "json_out")?;
        let options = call_options(timeout_ms, flags)?;
        let name = entry
            .name
            .to_str()
            .map_err(|_| Failure::invalid_argument("name"))?;
        let answer = call_operation_text(client.core(), name, &request(text)?, &options)?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(owned_c_string(&answer)) };
        Ok(())
    })
}

/// Calls a command (`iiko_operation_is_command(op) == 1`) as
/// `iiko_client_call_operation` does, then polls `commands/status` with the
/// request's `organizationId` until the command ends, for at most
/// `wait_timeout_ms` (0: `IIKO_DEFAULT_WAIT_TIMEOUT_MS`; read as
/// `iiko_limit_read_arg` reads `"wait.timeout"`).
///
/// `deliveries.create` goes through the safe creation: after a lost answer the
/// order is looked up by its id and sent again only if the service lacks it,
/// so it is never created twice; its answer is `{"orderInfo": {...}}` with the
/// order as `deliveries/by_id` reads it once created. Other commands answer
/// what the command answered.
///
/// A command that failed is `IIKO_STATUS_COMMAND_FAILED` (the error's
/// description is the service's reason, its correlation id the command's);
/// still running at the limit is `IIKO_STATUS_COMMAND_TIMED_OUT` (it may yet
/// finish); forgotten by the service is `IIKO_STATUS_COMMAND_EXPIRED`. An
/// operation that is not a command is `IIKO_STATUS_INVALID_ARGUMENT` and
/// nothing is sent. Blocks the calling thread only. Thread-safe.
///
/// # Safety
/// As `iiko_client_call_operation`.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_call_operation_wait(
    client: *const iiko_client,
    op: iiko_operation,
    request_json: *const c_char,
    timeout_ms: u64,
    wait_timeout_ms: u64,
    flags: u32,
    json_out: *mut *mut c_char,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (client, text) = unsafe {
            (
                iiko_client::try_ref(client, "client")?,
                opt_arg_str(request_json, "request_json")?,
            )
        };
        let entry = entry_arg(op)?;
        let out = out_ptr(json_out, "json_out")?;
        let options = call_options(timeout_ms, flags)?;
        let wait = WaitOptions::from_timeout_ms(wait_timeout_ms)?;
        let name = entry
            .name
            .to_str()
            .map_err(|_| Failure::invalid_argument("name"))?;
        let answer =
            call_operation_and_wait(client.core(), name, &request(text)?, &options, &wait)?;
        // SAFETY: checked non-NULL; writable per the contract.
        unsafe { out.write(owned_c_string(&answer.to_string())) };
        Ok(())
    })
}

/// Polls `commands/status` for a command's `correlation_id` (from a command's
/// answer) in `organization_id` until it ends, for at most `wait_timeout_ms`
/// (0: `IIKO_DEFAULT_WAIT_TIMEOUT_MS`; read as `iiko_limit_read_arg` reads
/// `"wait.timeout"`). Returns `IIKO_STATUS_OK` when it succeeded, or
/// `IIKO_STATUS_COMMAND_FAILED` / `_TIMED_OUT` / `_EXPIRED` as
/// `iiko_client_call_operation_wait` does. Blocks the calling thread only.
/// Thread-safe.
///
/// # Safety
/// `client` must be NULL or a live client; the strings must be NULL or
/// NUL-terminated; `err_out` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_client_wait_command(
    client: *const iiko_client,
    organization_id: *const c_char,
    correlation_id: *const c_char,
    wait_timeout_ms: u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let (client, org, cid) = unsafe {
            (
                iiko_client::try_ref(client, "client")?,
                crate::ffi::arg_str(organization_id, "organization_id")?,
                crate::ffi::arg_str(correlation_id, "correlation_id")?,
            )
        };
        let wait = WaitOptions::from_timeout_ms(wait_timeout_ms)?;
        client.core().wait_command(org, cid, &wait)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op_table::IIKO_OP_DELIVERIES_CREATE;

    #[test]
    fn names_and_numbers_agree() {
        let mut seen = 0;
        for op in 1..=iiko_operation_count() {
            let Some(e) = entry(op) else { continue };
            seen += 1;
            // SAFETY: a static NUL-terminated name.
            assert_eq!(unsafe { iiko_operation_by_name(e.name.as_ptr()) }, op);
            let core = iikocloud_core::api::operation(e.name.to_str().unwrap()).unwrap();
            assert_eq!(core.path, e.path.to_str().unwrap());
            assert_eq!(core.command, e.command);
        }
        assert_eq!(seen, iikocloud_core::api::OPERATIONS.len());
        assert_eq!(iiko_operation_is_command(IIKO_OP_DELIVERIES_CREATE), 1);
        for bad in [0, -1, i32::MIN, i32::MAX, iiko_operation_count() + 1] {
            assert!(iiko_operation_name(bad).is_null());
            assert_eq!(iiko_operation_is_command(bad), -1);
        }
        // SAFETY: NULL and NUL-terminated literals.
        unsafe {
            assert_eq!(iiko_operation_by_name(std::ptr::null()), 0);
            assert_eq!(iiko_operation_by_name(c"deliveries".as_ptr()), 0);
            assert_eq!(iiko_operation_by_name(c"\xff".as_ptr()), 0);
        }
    }
}
