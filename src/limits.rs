//! Every limit a binding takes from its caller (timeouts, sizes, depths,
//! attempts, capacities, lifetimes), with its default and the meaning of 0, a
//! negative number, a fraction of a millisecond or a value too large: decided
//! here once, and read by the C ABI, C++, Python, PHP and the CLI, so no
//! binding restates a rule or a default.
//!
//! A binding hands the caller's value over as it got it ([`Given`]) and uses
//! what [`Limit::read`] answers, or passes its error on unchanged: the message
//! names the limit (`inbox.max_attempts must be at least 1, got 0`) the same
//! way in every language. The table is [`LIMITS`]; `tests/vectors/limits.json`
//! holds cases every binding runs.
//!
//! The rules:
//!
//! * **Not given** (`None`, `null`, an omitted argument) is the default.
//! * **0** is refused where it would make the setting useless
//!   ([`Zero::Refused`]) and is itself where it has a meaning ([`Zero::Itself`]:
//!   no retries, no pause).
//! * **The C ABI** takes integers and cannot leave one out, so for the limits
//!   with [`Limit::raw_zero_is_default`] its 0 stands for "not given"
//!   ([`Given::Raw`]); PHP and C++ pass their "not given" to it as that 0.
//! * **Negative**, not-a-number and infinite values are refused.
//! * **Seconds** (Python and PHP take durations in seconds) are rounded *up*
//!   to whole milliseconds, so a tiny positive value never turns into 0.
//! * **Too large** is refused, except where the limit is lowered to its
//!   ceiling ([`Above::Lowered`]: the webhook nesting depth).

use std::fmt;
use std::time::Duration;

use crate::error::{Error, Result};

/// What a limit counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A duration in milliseconds (given in seconds where a binding takes
    /// seconds).
    Millis,
    /// A size in bytes.
    Bytes,
    /// Levels of JSON nesting.
    Levels,
    /// A number of things (attempts, retries, entries).
    Count,
}

impl Unit {
    /// The unit's name in the table (`ms`, `bytes`, `levels`, `count`).
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Millis => "ms",
            Unit::Bytes => "bytes",
            Unit::Levels => "levels",
            Unit::Count => "count",
        }
    }
}

/// What a given 0 means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zero {
    /// 0 is refused.
    Refused,
    /// 0 is the value itself (no retries, no pause).
    Itself,
}

impl Zero {
    /// `refused` or `itself`.
    pub fn as_str(self) -> &'static str {
        match self {
            Zero::Refused => "refused",
            Zero::Itself => "itself",
        }
    }
}

/// What a value above the maximum does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Above {
    /// It is refused.
    Refused,
    /// It is lowered to the maximum.
    Lowered,
}

impl Above {
    /// `refused` or `lowered`.
    pub fn as_str(self) -> &'static str {
        match self {
            Above::Refused => "refused",
            Above::Lowered => "lowered",
        }
    }
}

/// A limit's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    /// This value, in the limit's unit.
    Fixed(u64),
    /// Taken from another setting, as described (e.g. "the client's
    /// timeout").
    Elsewhere(&'static str),
}

/// One limit: its name, unit, default and the values it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The stable name, `area.setting` (`client.timeout`).
    pub name: &'static str,
    /// What it counts.
    pub unit: Unit,
    /// Its default.
    pub default: DefaultValue,
    /// What a given 0 means.
    pub zero: Zero,
    /// Whether a 0 in the C ABI's raw form ([`Given::Raw`]) means "not given".
    pub raw_zero_is_default: bool,
    /// The smallest value accepted besides 0 (whose meaning is [`Limit::zero`]).
    pub min: u64,
    /// The largest value accepted (`u64::MAX`: no maximum).
    pub max: u64,
    /// What a larger value does.
    pub above: Above,
}

/// A value as a binding got it from its caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Given {
    /// Nothing given: the default.
    Absent,
    /// A whole number in the limit's unit (milliseconds for a duration).
    Int(i128),
    /// A duration in seconds (Python, PHP); only for [`Unit::Millis`] limits.
    Seconds(f64),
    /// An argument of the C ABI, which has no way to leave a value out: 0 is
    /// "not given" where [`Limit::raw_zero_is_default`] says so, else as
    /// [`Given::Int`].
    Raw(u64),
}

impl Limit {
    /// Reads a value: `Ok(Some(v))` is the value to use, in the limit's unit
    /// (the fixed default when nothing was given); `Ok(None)` means "the
    /// default" for a limit whose default is another setting
    /// ([`DefaultValue::Elsewhere`]). A value the limit does not accept is
    /// [`Error::InvalidInput`] naming the limit.
    pub fn read(&self, given: Given) -> Result<Option<u64>> {
        match given {
            Given::Absent => Ok(self.fixed_default()),
            Given::Raw(v) => self.read_raw(v),
            Given::Int(v) => self.check(self.whole(v)?),
            Given::Seconds(s) => self.check(self.millis_of_seconds(s)?),
        }
    }

    /// [`read`](Self::read) of an argument of the C ABI ([`Given::Raw`]).
    // Inlined (its errors made out of line): the C parse reads two limits
    // per call, and a sub-kilobyte body's parse takes under a microsecond.
    #[inline]
    pub fn read_raw(&self, value: u64) -> Result<Option<u64>> {
        if value == 0 && self.raw_zero_is_default {
            return Ok(self.fixed_default());
        }
        self.check(value)
    }

    /// [`read`](Self::read) for a [`Unit::Millis`] limit, as a duration.
    pub fn read_duration(&self, given: Given) -> Result<Option<Duration>> {
        Ok(self.read(given)?.map(Duration::from_millis))
    }

    /// The fixed default, if the default is not another setting.
    #[inline]
    pub fn fixed_default(&self) -> Option<u64> {
        match self.default {
            DefaultValue::Fixed(v) => Some(v),
            DefaultValue::Elsewhere(_) => None,
        }
    }

    /// Checks a duration given to a typed Rust API against the range (0 is
    /// not "the default" there: a `Duration` has no "not given").
    pub fn check_duration(&self, value: Duration) -> Result<Duration> {
        let ms = u64::try_from(value.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
        let too_small = match ms {
            0 => self.zero != Zero::Itself,
            ms => ms < self.min,
        };
        if too_small || ms > self.max {
            return Err(self.out_of_range(&self.format(ms)));
        }
        Ok(value)
    }

    /// `value` written for a person in the limit's unit: `15 s`, `16 MiB`,
    /// `64 levels`, `5`.
    pub fn format(&self, value: u64) -> String {
        format_value(self.unit, value)
    }

    /// The default written for a person (`15 s`), or its description.
    pub fn default_text(&self) -> String {
        match self.default {
            DefaultValue::Fixed(v) => self.format(v),
            DefaultValue::Elsewhere(what) => what.to_owned(),
        }
    }

    fn whole(&self, v: i128) -> Result<u64> {
        if v < 0 {
            return Err(self.refuse(format_args!("must not be negative, got {v}")));
        }
        u64::try_from(v).map_err(|_| self.out_of_range(&v.to_string()))
    }

    fn millis_of_seconds(&self, s: f64) -> Result<u64> {
        if self.unit != Unit::Millis {
            return Err(self.refuse(format_args!("takes a whole number, not seconds")));
        }
        if !s.is_finite() {
            return Err(self.refuse(format_args!(
                "must be a number of seconds, got {}",
                seconds_text(s)
            )));
        }
        if s < 0.0 {
            return Err(self.refuse(format_args!(
                "must not be negative, got {} s",
                seconds_text(s)
            )));
        }
        let ms = (s * 1000.0).ceil();
        // 2^64 as a double: anything from there on does not fit.
        if ms >= 18_446_744_073_709_551_616.0 {
            return Err(self.out_of_range(&format!("{} s", seconds_text(s))));
        }
        Ok(ms as u64)
    }

    #[inline]
    fn check(&self, value: u64) -> Result<Option<u64>> {
        if value == 0 {
            return match self.zero {
                Zero::Itself => Ok(Some(0)),
                Zero::Refused => Err(self.out_of_range_value(0)),
            };
        }
        if value < self.min {
            return Err(self.out_of_range_value(value));
        }
        if value > self.max {
            return match self.above {
                Above::Lowered => Ok(Some(self.max)),
                Above::Refused => Err(self.out_of_range_value(value)),
            };
        }
        Ok(Some(value))
    }

    #[cold]
    fn out_of_range_value(&self, value: u64) -> Error {
        self.out_of_range(&self.format(value))
    }

    fn out_of_range(&self, got: &str) -> Error {
        let min = if self.zero == Zero::Itself {
            0
        } else {
            self.min
        };
        let rule = if self.max != u64::MAX && self.above == Above::Refused {
            format!(
                "must be between {} and {}",
                self.format(min),
                self.format(self.max)
            )
        } else if min == 0 {
            // Only a number beyond every unsigned 64-bit value gets here.
            "is too large".to_owned()
        } else {
            format!("must be at least {}", self.format(min))
        };
        self.refuse(format_args!("{rule}, got {got}"))
    }

    fn refuse(&self, what: fmt::Arguments<'_>) -> Error {
        Error::InvalidInput(format!("{} {what}", self.name))
    }
}

/// Seconds as given, short: `0.5`, `-1`, `1e300`, `NaN`, `inf`.
fn seconds_text(s: f64) -> String {
    if s.is_finite() && s.abs() >= 1e15 {
        format!("{s:e}")
    } else {
        format!("{s}")
    }
}

fn format_value(unit: Unit, v: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    match unit {
        Unit::Millis => match v {
            0 => "0 ms".to_owned(),
            v if v % 3_600_000 == 0 => format!("{} h", v / 3_600_000),
            v if v % 60_000 == 0 => format!("{} min", v / 60_000),
            v if v % 1000 == 0 => format!("{} s", v / 1000),
            v => format!("{v} ms"),
        },
        Unit::Bytes => match v {
            v if v >= MIB && v % MIB == 0 => format!("{} MiB", v / MIB),
            v if v >= KIB && v % KIB == 0 => format!("{} KiB", v / KIB),
            1 => "1 byte".to_owned(),
            v => format!("{v} bytes"),
        },
        Unit::Levels if v == 1 => "1 level".to_owned(),
        Unit::Levels => format!("{v} levels"),
        Unit::Count => v.to_string(),
    }
}

const fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

const fn limit(name: &'static str, unit: Unit, default: DefaultValue, zero: Zero) -> Limit {
    Limit {
        name,
        unit,
        default,
        zero,
        raw_zero_is_default: false,
        min: 1,
        max: u64::MAX,
        above: Above::Refused,
    }
}

const fn fixed(v: u64) -> DefaultValue {
    DefaultValue::Fixed(v)
}

/// The `Timeout` header of a client ([`ClientBuilder::timeout`](crate::ClientBuilder::timeout),
/// [`Client::with_timeout`](crate::Client::with_timeout)): 1 s to 1 h.
pub const CLIENT_TIMEOUT: Limit = Limit {
    min: 1000,
    max: ms(MAX_SERVER_TIMEOUT),
    ..limit(
        "client.timeout",
        Unit::Millis,
        fixed(ms(DEFAULT_SERVER_TIMEOUT)),
        Zero::Refused,
    )
};

/// How long a client waits for a whole exchange; it must also be longer than
/// the `Timeout` header, which the client's build checks.
pub const CLIENT_CLIENT_TIMEOUT: Limit = limit(
    "client.client_timeout",
    Unit::Millis,
    DefaultValue::Elsewhere("the timeout + 5 s"),
    Zero::Refused,
);

/// Retries of a safe call after a transport error or a 5xx.
pub const CLIENT_RETRIES: Limit = Limit {
    max: u32::MAX as u64,
    ..limit(
        "client.retries",
        Unit::Count,
        fixed(DEFAULT_RETRIES as u64),
        Zero::Itself,
    )
};

/// The first retry delay (doubled each time, with jitter).
pub const CLIENT_RETRY_BASE_DELAY: Limit = limit(
    "client.retry_base_delay",
    Unit::Millis,
    fixed(ms(DEFAULT_RETRY_BASE_DELAY)),
    Zero::Itself,
);

/// The largest answer body a client reads.
pub const CLIENT_MAX_RESPONSE_BYTES: Limit = limit(
    "client.max_response_bytes",
    Unit::Bytes,
    fixed(DEFAULT_MAX_RESPONSE_BYTES),
    Zero::Refused,
);

/// How long before its expiry a token is refreshed.
pub const CLIENT_REFRESH_MARGIN: Limit = limit(
    "client.refresh_margin",
    Unit::Millis,
    fixed(ms(DEFAULT_REFRESH_MARGIN)),
    Zero::Itself,
);

/// The lifetime assumed for a token without a JWT `exp`.
pub const CLIENT_FALLBACK_TOKEN_LIFETIME: Limit = limit(
    "client.fallback_token_lifetime",
    Unit::Millis,
    fixed(ms(DEFAULT_FALLBACK_TOKEN_LIFETIME)),
    Zero::Itself,
);

/// One call's `Timeout` header; 0 keeps the client's.
pub const CALL_TIMEOUT: Limit = Limit {
    raw_zero_is_default: true,
    min: 1000,
    max: ms(MAX_SERVER_TIMEOUT),
    ..limit(
        "call.timeout",
        Unit::Millis,
        DefaultValue::Elsewhere("the client's timeout"),
        Zero::Refused,
    )
};

// ---- the client's defaults (re-exported by `crate::client`) ----

/// Default of the `Timeout` header: how long the service waits for the
/// restaurant terminal before answering 408.
pub const DEFAULT_SERVER_TIMEOUT: Duration = Duration::from_secs(15);
/// How much longer than the `Timeout` header the client waits by default, so the
/// service's own 408 arrives before the client gives up.
pub const DEFAULT_CLIENT_TIMEOUT_MARGIN: Duration = Duration::from_secs(5);
/// Default number of retries of a safe call after a transport error or a 5xx.
pub const DEFAULT_RETRIES: u32 = 2;
/// Default first backoff delay; it doubles for each retry, with jitter.
pub const DEFAULT_RETRY_BASE_DELAY: Duration = Duration::from_millis(250);
/// A token is refreshed this long before it expires (at most a tenth of its
/// lifetime, so short-lived tokens are still used).
pub const DEFAULT_REFRESH_MARGIN: Duration = Duration::from_secs(60);
/// Lifetime assumed for a token that carries no JWT `exp` claim.
pub const DEFAULT_FALLBACK_TOKEN_LIFETIME: Duration = Duration::from_secs(3600);
/// Largest response body the client reads by default (64 MiB): nomenclature
/// answers of big chains run to tens of megabytes.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;
/// Largest `Timeout` header the client accepts ([`CLIENT_TIMEOUT`]).
pub(crate) const MAX_SERVER_TIMEOUT: Duration = Duration::from_secs(3600);
// ---- the inbox's defaults (re-exported by `crate::inbox`) ----

/// How long a taken event stays hidden by default.
pub const DEFAULT_VISIBILITY_TIMEOUT: Duration = Duration::from_secs(30);
/// Deliveries of one event by default before it goes to the dead letters.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 5;
/// How long an event's key is remembered by default.
pub const DEFAULT_DEDUP_TTL: Duration = Duration::from_secs(24 * 3600);
/// How many dead letters a binding lists when the caller does not say.
pub const DEFAULT_DEAD_LETTERS: usize = 100;

/// How long a command is followed by default (`Client::wait_command`).
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest wait a binding may ask for (a day).
pub const MAX_WAIT_TIMEOUT: Duration = Duration::from_secs(24 * 3600);
/// The pause before the second status poll by default.
pub const DEFAULT_FIRST_PAUSE: Duration = Duration::from_millis(250);
/// The longest pause between status polls by default.
pub const DEFAULT_MAX_PAUSE: Duration = Duration::from_secs(5);
/// Each pause between status polls is this many times the one before.
pub const PAUSE_GROWTH: f64 = 1.5;

/// How long a command is followed before giving up.
pub const WAIT_TIMEOUT: Limit = Limit {
    raw_zero_is_default: true,
    max: ms(MAX_WAIT_TIMEOUT),
    ..limit(
        "wait.timeout",
        Unit::Millis,
        fixed(ms(DEFAULT_WAIT_TIMEOUT)),
        Zero::Refused,
    )
};

/// The pause before the second status poll of a command.
pub const WAIT_FIRST_PAUSE: Limit = limit(
    "wait.first_pause",
    Unit::Millis,
    fixed(ms(DEFAULT_FIRST_PAUSE)),
    Zero::Itself,
);

/// The longest pause between status polls.
pub const WAIT_MAX_PAUSE: Limit = limit(
    "wait.max_pause",
    Unit::Millis,
    fixed(ms(DEFAULT_MAX_PAUSE)),
    Zero::Itself,
);

/// The largest webhook body read.
pub const WEBHOOK_MAX_BODY_BYTES: Limit = Limit {
    raw_zero_is_default: true,
    ..limit(
        "webhook.max_body_bytes",
        Unit::Bytes,
        fixed(crate::webhook::DEFAULT_MAX_BODY_BYTES as u64),
        Zero::Refused,
    )
};

/// The deepest JSON nesting of a webhook body; deeper limits are lowered to
/// the ceiling.
pub const WEBHOOK_MAX_DEPTH: Limit = Limit {
    raw_zero_is_default: true,
    max: crate::webhook::MAX_DEPTH_CEILING as u64,
    above: Above::Lowered,
    ..limit(
        "webhook.max_depth",
        Unit::Levels,
        fixed(crate::webhook::DEFAULT_MAX_DEPTH as u64),
        Zero::Refused,
    )
};

/// How long a taken inbox event stays hidden before it is handed out again.
pub const INBOX_VISIBILITY_TIMEOUT: Limit = Limit {
    raw_zero_is_default: true,
    ..limit(
        "inbox.visibility_timeout",
        Unit::Millis,
        fixed(ms(DEFAULT_VISIBILITY_TIMEOUT)),
        Zero::Refused,
    )
};

/// Deliveries of one inbox event before it goes to the dead letters.
pub const INBOX_MAX_ATTEMPTS: Limit = Limit {
    raw_zero_is_default: true,
    max: u32::MAX as u64,
    ..limit(
        "inbox.max_attempts",
        Unit::Count,
        fixed(DEFAULT_MAX_ATTEMPTS as u64),
        Zero::Refused,
    )
};

/// How long an inbox remembers an event's key to drop its repeats.
pub const INBOX_DEDUP_TTL: Limit = Limit {
    raw_zero_is_default: true,
    ..limit(
        "inbox.dedup_ttl",
        Unit::Millis,
        fixed(ms(DEFAULT_DEDUP_TTL)),
        Zero::Refused,
    )
};

/// How many dead letters one listing returns.
pub const INBOX_DEAD_LETTERS: Limit = Limit {
    min: 0,
    ..limit(
        "inbox.dead_letters",
        Unit::Count,
        fixed(DEFAULT_DEAD_LETTERS as u64),
        Zero::Itself,
    )
};

/// Events a de-duplicator remembers in memory.
pub const DEDUP_CAPACITY: Limit = limit(
    "dedup.capacity",
    Unit::Count,
    fixed(crate::webhook::Deduplicator::DEFAULT_CAPACITY as u64),
    Zero::Refused,
);

/// How long a de-duplicator remembers an event.
pub const DEDUP_MAX_AGE: Limit = limit(
    "dedup.max_age",
    Unit::Millis,
    fixed(ms(crate::webhook::Deduplicator::DEFAULT_MAX_AGE)),
    Zero::Refused,
);

/// Orders and reserves an ordering guard remembers in memory.
pub const ORDERING_CAPACITY: Limit = limit(
    "ordering.capacity",
    Unit::Count,
    fixed(crate::webhook::OrderingGuard::DEFAULT_CAPACITY as u64),
    Zero::Refused,
);

/// How long a shared store keeps an ordering position after its last change.
pub const ORDERING_STORE_TTL: Limit = limit(
    "ordering.store_ttl",
    Unit::Millis,
    fixed(ms(crate::webhook::OrderingGuard::DEFAULT_STORE_TTL)),
    Zero::Refused,
);

/// Every limit, in a stable order.
pub const LIMITS: &[Limit] = &[
    CLIENT_TIMEOUT,
    CLIENT_CLIENT_TIMEOUT,
    CLIENT_RETRIES,
    CLIENT_RETRY_BASE_DELAY,
    CLIENT_MAX_RESPONSE_BYTES,
    CLIENT_REFRESH_MARGIN,
    CLIENT_FALLBACK_TOKEN_LIFETIME,
    CALL_TIMEOUT,
    WAIT_TIMEOUT,
    WAIT_FIRST_PAUSE,
    WAIT_MAX_PAUSE,
    WEBHOOK_MAX_BODY_BYTES,
    WEBHOOK_MAX_DEPTH,
    INBOX_VISIBILITY_TIMEOUT,
    INBOX_MAX_ATTEMPTS,
    INBOX_DEDUP_TTL,
    INBOX_DEAD_LETTERS,
    DEDUP_CAPACITY,
    DEDUP_MAX_AGE,
    ORDERING_CAPACITY,
    ORDERING_STORE_TTL,
];

/// The limit named `name` (`"inbox.max_attempts"`).
pub fn limit_named(name: &str) -> Option<&'static Limit> {
    LIMITS.iter().find(|l| l.name == name)
}

/// [`Limit::read`] of the limit named `name`; an unknown name is
/// [`Error::InvalidInput`].
pub fn read(name: &str, given: Given) -> Result<Option<u64>> {
    limit_named(name)
        .ok_or_else(|| Error::InvalidInput(format!("no limit named {name:?}")))?
        .read(given)
}

/// The deepest nesting a request given as a host's objects (Python dicts and
/// lists) may have: the depth the core's JSON reader accepts in a request
/// given as text, so both forms refuse the same requests.
pub const MAX_REQUEST_DEPTH: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_defaults_readable() {
        for (i, l) in LIMITS.iter().enumerate() {
            assert!(
                LIMITS[i + 1..].iter().all(|o| o.name != l.name),
                "{}",
                l.name
            );
            assert_eq!(limit_named(l.name), Some(l));
            if let Some(d) = l.fixed_default() {
                // A default is always a value the limit accepts.
                assert_eq!(
                    l.read(Given::Int(i128::from(d))).unwrap(),
                    Some(d),
                    "{}",
                    l.name
                );
            }
        }
    }

    #[test]
    fn values_are_written_for_people() {
        assert_eq!(CLIENT_TIMEOUT.default_text(), "15 s");
        assert_eq!(WEBHOOK_MAX_BODY_BYTES.default_text(), "16 MiB");
        assert_eq!(WEBHOOK_MAX_DEPTH.default_text(), "64 levels");
        assert_eq!(INBOX_DEDUP_TTL.default_text(), "24 h");
        assert_eq!(CLIENT_RETRY_BASE_DELAY.default_text(), "250 ms");
        assert_eq!(CLIENT_REFRESH_MARGIN.default_text(), "1 min");
    }

    #[test]
    fn a_default_described_in_words_matches_the_core() {
        let margin = format_value(Unit::Millis, ms(DEFAULT_CLIENT_TIMEOUT_MARGIN));
        assert_eq!(
            CLIENT_CLIENT_TIMEOUT.default,
            DefaultValue::Elsewhere("the timeout + 5 s")
        );
        assert!(CLIENT_CLIENT_TIMEOUT.default_text().ends_with(&margin));
    }

    #[test]
    fn the_c_abi_zero_is_not_given_only_where_the_limit_says() {
        assert_eq!(INBOX_MAX_ATTEMPTS.read(Given::Raw(0)).unwrap(), Some(5));
        assert!(INBOX_MAX_ATTEMPTS.read(Given::Int(0)).is_err());
        assert_eq!(CALL_TIMEOUT.read(Given::Raw(0)).unwrap(), None);
        assert!(DEDUP_CAPACITY.read(Given::Raw(0)).is_err());
        assert_eq!(CLIENT_RETRIES.read(Given::Raw(0)).unwrap(), Some(0));
    }

    #[test]
    fn typed_durations_use_the_same_range() {
        assert!(CLIENT_TIMEOUT
            .check_duration(Duration::from_secs(15))
            .is_ok());
        let e = CLIENT_TIMEOUT
            .check_duration(Duration::from_millis(10))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "invalid input: client.timeout must be between 1 s and 1 h, got 10 ms"
        );
        assert!(CLIENT_TIMEOUT.check_duration(Duration::ZERO).is_err());
        assert!(CLIENT_TIMEOUT
            .check_duration(Duration::from_secs(3601))
            .is_err());
    }
}
