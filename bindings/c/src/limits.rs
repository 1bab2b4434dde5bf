//! The library's limits (timeouts, sizes, depths, attempts, capacities) as
//! the core decides them: their defaults as `#define`s, and readers for hosts
//! that cannot see the defines (PHP) or hold values C cannot pass as-is
//! (negative numbers, seconds, "not given").

use std::ffi::c_char;

use iikocloud_core::limits::{self, DefaultValue, Given, Limit};

use crate::error::{guard, iiko_error, Failure};
use crate::ffi::{arg_str, out_ptr};
use crate::status::*;

/// The fixed default of a core limit, for the `#define`s below (the build
/// fails if a define and the core disagree).
const fn fixed(limit: Limit) -> u64 {
    match limit.default {
        DefaultValue::Fixed(v) => v,
        DefaultValue::Elsewhere(_) => panic!("this limit has no fixed default"),
    }
}

macro_rules! same_as_core {
    ($ours:expr, $core:expr) => {
        const _: () = assert!($ours == $core, stringify!($ours));
    };
}

/// The default `Timeout` header, in milliseconds (`"client.timeout"`).
pub const IIKO_DEFAULT_TIMEOUT_MS: u64 = 15000;
same_as_core!(IIKO_DEFAULT_TIMEOUT_MS, fixed(limits::CLIENT_TIMEOUT));
/// How much longer than the Timeout header the client waits by default, in
/// milliseconds.
pub const IIKO_DEFAULT_CLIENT_TIMEOUT_MARGIN_MS: u64 = 5000;
same_as_core!(
    IIKO_DEFAULT_CLIENT_TIMEOUT_MARGIN_MS,
    iikocloud_core::client::DEFAULT_CLIENT_TIMEOUT_MARGIN.as_millis() as u64
);
/// The default number of retries of a safe call (`"client.retries"`).
pub const IIKO_DEFAULT_RETRIES: u32 = 2;
same_as_core!(IIKO_DEFAULT_RETRIES as u64, fixed(limits::CLIENT_RETRIES));
/// The default first retry delay, in milliseconds (`"client.retry_base_delay"`).
pub const IIKO_DEFAULT_RETRY_BASE_DELAY_MS: u64 = 250;
same_as_core!(
    IIKO_DEFAULT_RETRY_BASE_DELAY_MS,
    fixed(limits::CLIENT_RETRY_BASE_DELAY)
);
/// The longest pause between two retries, in milliseconds.
pub const IIKO_MAX_RETRY_DELAY_MS: u64 = 10000;
same_as_core!(
    IIKO_MAX_RETRY_DELAY_MS,
    iikocloud_core::client::MAX_RETRY_DELAY.as_millis() as u64
);
/// How long before its expiry a token is refreshed by default, in
/// milliseconds (`"client.refresh_margin"`).
pub const IIKO_DEFAULT_REFRESH_MARGIN_MS: u64 = 60000;
same_as_core!(
    IIKO_DEFAULT_REFRESH_MARGIN_MS,
    fixed(limits::CLIENT_REFRESH_MARGIN)
);
/// The lifetime assumed for a token without a JWT `exp` by default, in
/// milliseconds (`"client.fallback_token_lifetime"`).
pub const IIKO_DEFAULT_FALLBACK_TOKEN_LIFETIME_MS: u64 = 3600000;
same_as_core!(
    IIKO_DEFAULT_FALLBACK_TOKEN_LIFETIME_MS,
    fixed(limits::CLIENT_FALLBACK_TOKEN_LIFETIME)
);
/// The largest answer body read by default, in bytes
/// (`"client.max_response_bytes"`).
pub const IIKO_DEFAULT_MAX_RESPONSE_BYTES: u64 = 67108864;
same_as_core!(
    IIKO_DEFAULT_MAX_RESPONSE_BYTES,
    fixed(limits::CLIENT_MAX_RESPONSE_BYTES)
);
/// How long a command is followed by default, in milliseconds
/// (`"wait.timeout"`).
pub const IIKO_DEFAULT_WAIT_TIMEOUT_MS: u64 = 60000;
same_as_core!(IIKO_DEFAULT_WAIT_TIMEOUT_MS, fixed(limits::WAIT_TIMEOUT));
/// The largest webhook body read by default, in bytes
/// (`"webhook.max_body_bytes"`).
pub const IIKO_DEFAULT_MAX_BODY_BYTES: u64 = 16777216;
same_as_core!(
    IIKO_DEFAULT_MAX_BODY_BYTES,
    fixed(limits::WEBHOOK_MAX_BODY_BYTES)
);
/// The deepest JSON nesting of a webhook body by default
/// (`"webhook.max_depth"`).
pub const IIKO_DEFAULT_MAX_DEPTH: u64 = 64;
same_as_core!(IIKO_DEFAULT_MAX_DEPTH, fixed(limits::WEBHOOK_MAX_DEPTH));
/// The highest nesting limit; a larger one is lowered to it.
pub const IIKO_MAX_DEPTH_CEILING: u64 = 128;
same_as_core!(IIKO_MAX_DEPTH_CEILING, limits::WEBHOOK_MAX_DEPTH.max);
/// How long a taken inbox event stays hidden by default, in milliseconds
/// (`"inbox.visibility_timeout"`).
pub const IIKO_DEFAULT_VISIBILITY_TIMEOUT_MS: u64 = 30000;
same_as_core!(
    IIKO_DEFAULT_VISIBILITY_TIMEOUT_MS,
    fixed(limits::INBOX_VISIBILITY_TIMEOUT)
);
/// Deliveries of one inbox event by default before the dead letters
/// (`"inbox.max_attempts"`).
pub const IIKO_DEFAULT_MAX_ATTEMPTS: u32 = 5;
same_as_core!(
    IIKO_DEFAULT_MAX_ATTEMPTS as u64,
    fixed(limits::INBOX_MAX_ATTEMPTS)
);
/// How long an inbox remembers an event's key by default, in milliseconds
/// (`"inbox.dedup_ttl"`).
pub const IIKO_DEFAULT_DEDUP_TTL_MS: u64 = 86400000;
same_as_core!(IIKO_DEFAULT_DEDUP_TTL_MS, fixed(limits::INBOX_DEDUP_TTL));
/// A de-duplicator's suggested capacity (`"dedup.capacity"`).
pub const IIKO_DEFAULT_DEDUP_CAPACITY: u64 = 10000;
same_as_core!(IIKO_DEFAULT_DEDUP_CAPACITY, fixed(limits::DEDUP_CAPACITY));
/// A de-duplicator's suggested max age, in milliseconds (`"dedup.max_age"`).
pub const IIKO_DEFAULT_DEDUP_MAX_AGE_MS: u64 = 86400000;
same_as_core!(IIKO_DEFAULT_DEDUP_MAX_AGE_MS, fixed(limits::DEDUP_MAX_AGE));
/// An ordering guard's suggested capacity (`"ordering.capacity"`).
pub const IIKO_DEFAULT_ORDERING_CAPACITY: u64 = 10000;
same_as_core!(
    IIKO_DEFAULT_ORDERING_CAPACITY,
    fixed(limits::ORDERING_CAPACITY)
);
/// An ordering guard's suggested store TTL, in milliseconds
/// (`"ordering.store_ttl"`).
pub const IIKO_DEFAULT_ORDERING_STORE_TTL_MS: u64 = 604800000;
same_as_core!(
    IIKO_DEFAULT_ORDERING_STORE_TTL_MS,
    fixed(limits::ORDERING_STORE_TTL)
);

/// The limit a name argument names.
///
/// # Safety
/// `name` must be NULL or NUL-terminated.
unsafe fn limit_arg(name: *const c_char) -> Result<&'static Limit, Failure> {
    // SAFETY: per the caller.
    let name = unsafe { arg_str(name, "limit") }?;
    limits::limit_named(name).ok_or_else(|| {
        Failure::invalid_argument(format!(
            "no limit named {name:?}; names look like \"inbox.max_attempts\""
        ))
    })
}

/// Reads a value for a limit and writes what applies.
fn read_into(
    limit: &Limit,
    given: Given,
    value_out: *mut u64,
    out_name: &str,
) -> Result<(), Failure> {
    let out = out_ptr(value_out, out_name)?;
    // 0 stands for a default that is another setting (e.g. the client's
    // Timeout), as it does in the calls that take the limit.
    let value = limit.read(given)?.unwrap_or(0);
    // SAFETY: checked non-NULL; writable per the export's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// Reads `value`, given by a caller, for the limit named `limit` (e.g.
/// `"inbox.max_attempts"`, `"webhook.max_body_bytes"`), in the limit's unit
/// (milliseconds, bytes, levels or a count), and writes the value that
/// applies to `*value_out`: the value itself, or the ceiling for a larger
/// value the limit lowers (`"webhook.max_depth"`). Here 0 is a value like any
/// other: refused where the limit refuses it, itself where it means something
/// (no retries). Negative and out-of-range values are
/// `IIKO_STATUS_INVALID_ARGUMENT` with the message every binding gives; an
/// unknown name too. For hosts whose callers may give values C cannot pass
/// as-is (PHP, C++ `std::chrono`): check here, then pass the value written to
/// the call. Thread-safe.
///
/// # Safety
/// `limit` must be NULL or NUL-terminated; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_limit_read(
    limit: *const c_char,
    value: i64,
    value_out: *mut u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let limit = unsafe { limit_arg(limit) }?;
        read_into(limit, Given::Int(i128::from(value)), value_out, "value_out")
    })
}

/// Reads `value` as the calls of this library read their argument for the
/// limit named `limit`: as `iiko_limit_read` does, except that 0 means "not
/// given" (the default) where the call says "0: the default" (e.g.
/// `iiko_inbox_open`, `iiko_webhook_parse`, the `timeout_ms` of a call).
/// Writes the value that applies, the default for that 0, or 0 when the
/// default is another setting (`"call.timeout"`: the client's). Thread-safe.
///
/// # Safety
/// `limit` must be NULL or NUL-terminated; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_limit_read_arg(
    limit: *const c_char,
    value: u64,
    value_out: *mut u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let limit = unsafe { limit_arg(limit) }?;
        read_into(limit, Given::Raw(value), value_out, "value_out")
    })
}

/// `iiko_limit_read` for a duration given in seconds (a limit counted in
/// milliseconds only): rounded up to whole milliseconds (so a tiny positive
/// value never becomes 0); NaN, infinities and negative values are refused.
/// Writes milliseconds. Thread-safe.
///
/// # Safety
/// `limit` must be NULL or NUL-terminated; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_limit_read_seconds(
    limit: *const c_char,
    seconds: f64,
    value_out: *mut u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let limit = unsafe { limit_arg(limit) }?;
        read_into(limit, Given::Seconds(seconds), value_out, "value_out")
    })
}

/// The default of the limit named `limit`, in its unit, to `*value_out` (0 when
/// the default is another setting, e.g. `"call.timeout"`: the client's).
/// Thread-safe.
///
/// # Safety
/// `limit` must be NULL or NUL-terminated; the out pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn iiko_limit_default(
    limit: *const c_char,
    value_out: *mut u64,
    err_out: *mut *mut iiko_error,
) -> iiko_status {
    guard(err_out, || {
        // SAFETY: per this function's contract.
        let limit = unsafe { limit_arg(limit) }?;
        read_into(limit, Given::Absent, value_out, "value_out")
    })
}

/// A limit read from a raw C argument (milliseconds, bytes, a count): what
/// applies, or `None` when the default is another setting.
pub(crate) fn read_raw(limit: &Limit, value: u64) -> Result<Option<u64>, Failure> {
    Ok(limit.read_raw(value)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(f: impl FnOnce(*mut u64) -> iiko_status) -> Result<u64, iiko_status> {
        let mut v = 0u64;
        match f(&mut v) {
            IIKO_STATUS_OK => Ok(v),
            status => Err(status),
        }
    }

    #[test]
    fn reads_by_name_as_the_core_does() {
        let null = std::ptr::null_mut();
        // SAFETY: NUL-terminated literals (or NULL) and writable out-parameters.
        unsafe {
            let attempts = c"inbox.max_attempts".as_ptr();
            assert_eq!(
                read(|v| iiko_limit_read_arg(attempts, 0, v, null)),
                Ok(u64::from(IIKO_DEFAULT_MAX_ATTEMPTS))
            );
            assert_eq!(
                read(|v| iiko_limit_read(attempts, 0, v, null)),
                Err(IIKO_STATUS_INVALID_ARGUMENT)
            );
            assert_eq!(
                read(|v| iiko_limit_read(attempts, -1, v, null)),
                Err(IIKO_STATUS_INVALID_ARGUMENT)
            );
            let call = c"call.timeout".as_ptr();
            assert_eq!(read(|v| iiko_limit_read_arg(call, 0, v, null)), Ok(0));
            assert_eq!(read(|v| iiko_limit_default(call, v, null)), Ok(0));
            assert_eq!(
                read(|v| iiko_limit_read_seconds(call, 0.0, v, null)),
                Err(IIKO_STATUS_INVALID_ARGUMENT)
            );
            assert_eq!(
                read(|v| iiko_limit_read_seconds(call, 1.25, v, null)),
                Ok(1250)
            );
            assert_eq!(
                read(|v| iiko_limit_default(c"nope".as_ptr(), v, null)),
                Err(IIKO_STATUS_INVALID_ARGUMENT)
            );
            assert_eq!(
                read(|v| iiko_limit_default(std::ptr::null(), v, null)),
                Err(IIKO_STATUS_NULL_ARGUMENT)
            );
            assert_eq!(
                iiko_limit_default(call, std::ptr::null_mut(), null),
                IIKO_STATUS_NULL_ARGUMENT
            );
        }
    }
}
