//! Timestamps as the service writes them: `yyyy-MM-dd HH:mm:ss.fff`.
//!
//! The raw text is always kept; the parsed value is `None` when the text does
//! not have the documented shape, so a surprising format never hides the rest
//! of an event.
//!
//! # The rule (every binding reads times by it)
//!
//! [`parse_local_time`] decides what is a time, once, for the Rust types
//! here, the C accessors, the Python models (native and reference readers)
//! and PHP:
//!
//! * the shape is `yyyy-MM-dd HH:mm:ss` (ASCII digits, a space or a `T`
//!   between date and time), then nothing, or a `.` and one or more digits;
//!   an `eventTime` may also end in one `Z`. Anything else (an offset, a
//!   missing second, a lone `.`) is no time;
//! * a fraction longer than 9 digits is still a time: the digits beyond the
//!   nanosecond are dropped. The service writes milliseconds; a longer
//!   fraction is more precision of the same moment, not another moment;
//! * the calendar is chrono's: leap years (`2024-02-29` is a time,
//!   `2023-02-29` is not), days of the month, hours 0-23, minutes and seconds
//!   0-59 (no `24:00:00`, no leap second). Year `0000` is no time: Python's
//!   `datetime` has no year 0, and the service never writes one;
//! * a binding whose times hold less than nanoseconds drops the digits it
//!   cannot hold, never rounds: Python's `datetime` and PHP's
//!   `DateTimeImmutable` keep microseconds, the C `*_unix_ms` accessors
//!   milliseconds (`.8779999999` is `.877999` and 877 ms, not `.878`).

use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde::{Serialize, Serializer};

/// The envelope's `eventTime`: a UTC timestamp, with the text as sent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventTime {
    /// The text as sent, e.g. `2025-09-16 16:02:11.877`.
    pub raw: String,
    /// The parsed instant, or `None` if `raw` is no time by
    /// [`parse_local_time`] (a trailing `Z` is also accepted).
    pub utc: Option<DateTime<Utc>>,
}

impl EventTime {
    /// Reads an `eventTime` value. Never fails; see [`EventTime::utc`].
    pub fn parse(raw: &str) -> EventTime {
        EventTime::from_text(raw.to_owned())
    }

    /// [`EventTime::parse`] of text already owned.
    pub(crate) fn from_text(raw: String) -> EventTime {
        let text = raw.strip_suffix('Z').unwrap_or(&raw);
        let utc = parse_local_time(text).map(|t| t.and_utc());
        EventTime { raw, utc }
    }
}

impl fmt::Display for EventTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl Serialize for EventTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.raw)
    }
}

/// A terminal-local time inside an order (`whenCreated`, `completeBefore`…).
///
/// The service writes these in the restaurant terminal's time zone without
/// saying which, so the parsed value is a [`NaiveDateTime`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LocalTime {
    /// The text as sent, e.g. `2025-09-16 19:00:04.512`.
    pub raw: String,
    /// The parsed value, or `None` if `raw` is no time by
    /// [`parse_local_time`].
    pub local: Option<NaiveDateTime>,
}

impl LocalTime {
    /// Reads a local time value. Never fails; see [`LocalTime::local`].
    pub fn parse(raw: &str) -> LocalTime {
        LocalTime {
            raw: raw.to_owned(),
            local: parse_local_time(raw),
        }
    }
}

impl LocalTime {
    /// A time to send: written as the service expects, `yyyy-MM-dd HH:mm:ss.fff`.
    pub fn from_naive(t: NaiveDateTime) -> LocalTime {
        LocalTime {
            raw: t.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
            local: Some(t),
        }
    }
}

impl From<NaiveDateTime> for LocalTime {
    fn from(t: NaiveDateTime) -> LocalTime {
        LocalTime::from_naive(t)
    }
}

impl<'de> serde::Deserialize<'de> for LocalTime {
    /// Any string is kept; see [`LocalTime::local`] for whether it parsed.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(LocalTime::parse(&raw))
    }
}

impl fmt::Display for LocalTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl Serialize for LocalTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.raw)
    }
}

/// The service's time in `text`, by the rule of this module: `yyyy-MM-dd
/// HH:mm:ss` (or with `T`), optionally `.` and any number of fraction digits,
/// those past the ninth dropped; the calendar checked by chrono; year 0 and
/// anything else `None`. No allocation: the Python model reader calls it for
/// every time of an answer.
///
/// ```
/// use iikocloud::webhook::parse_local_time;
/// let t = parse_local_time("2024-02-29 19:00:04.1234567891").unwrap();
/// assert_eq!(t.to_string(), "2024-02-29 19:00:04.123456789");
/// assert_eq!(parse_local_time("2023-02-29 19:00:04"), None);
/// ```
pub fn parse_local_time(text: &str) -> Option<NaiveDateTime> {
    // Hand-written because a large order carries thousands of these and
    // the shape is fixed; every calendar check is chrono's.
    let b = text.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let sep_ok = b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b' ' || b[10] == b'T')
        && b[13] == b':'
        && b[16] == b':';
    if !sep_ok {
        return None;
    }
    let year = digits(&b[0..4])?;
    let month = digits(&b[5..7])?;
    let day = digits(&b[8..10])?;
    let hour = digits(&b[11..13])?;
    let minute = digits(&b[14..16])?;
    let second = digits(&b[17..19])?;
    let nanos = match &b[19..] {
        [] => 0,
        [b'.', frac @ ..] if !frac.is_empty() && frac.iter().all(u8::is_ascii_digit) => {
            // "877" is 877_000_000 ns; digits past the ninth are dropped.
            let kept = &frac[..frac.len().min(9)];
            let scale = 10u32.pow(9 - u32::try_from(kept.len()).ok()?);
            digits(kept)? * scale
        }
        _ => return None,
    };
    if year == 0 {
        return None;
    }
    let year = i32::try_from(year).ok()?;
    NaiveDate::from_ymd_opt(year, month, day)?.and_hms_nano_opt(hour, minute, second, nanos)
}

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |acc, &c| {
        if c.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u32::from(c - b'0'))
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Timelike;

    #[test]
    fn reads_the_documented_shapes() {
        let t = LocalTime::parse("2025-09-16 19:00:04.512");
        let v = t.local.unwrap();
        assert_eq!(v.to_string(), "2025-09-16 19:00:04.512");
        assert_eq!(
            LocalTime::parse("2025-09-16 19:00:04")
                .local
                .unwrap()
                .second(),
            4
        );
        assert_eq!(
            LocalTime::parse("2025-09-16T19:00:04.5")
                .local
                .unwrap()
                .nanosecond(),
            500_000_000
        );
        let e = EventTime::parse("2025-09-16 16:02:11.877");
        assert_eq!(e.utc.unwrap().to_rfc3339(), "2025-09-16T16:02:11.877+00:00");
        assert!(EventTime::parse("2025-09-16 16:02:11.877Z").utc.is_some());
    }

    #[test]
    fn long_fractions_are_cut_to_nanoseconds_and_leap_days_are_checked() {
        let t = parse_local_time("2025-09-16 19:00:04.1234567899").unwrap();
        assert_eq!(t.nanosecond(), 123_456_789);
        let long = format!("2025-09-16 19:00:04.9{}", "9".repeat(200));
        assert_eq!(parse_local_time(&long).unwrap().nanosecond(), 999_999_999);
        assert!(parse_local_time("2024-02-29 00:00:00").is_some());
        assert!(parse_local_time("2000-02-29 00:00:00").is_some());
        assert!(parse_local_time("1900-02-29 00:00:00").is_none());
        assert!(parse_local_time("0001-01-01 00:00:00").is_some());
        assert!(parse_local_time("9999-12-31T23:59:59.999999999").is_some());
        let e = EventTime::parse("2025-09-16 16:02:11.8779999999Z");
        assert_eq!(e.utc.unwrap().timestamp_subsec_millis(), 877);
    }

    #[test]
    fn keeps_the_raw_text_of_anything_else() {
        for bad in [
            "",
            "2025-09-16",
            "2025-13-01 00:00:00",
            "2025-02-30 00:00:00",
            "2025-09-16 24:00:00",
            "2025-09-16 19:00:04.",
            "2025-09-16 19:00:04.12a",
            "2023-02-29 00:00:00",
            "2025-04-31 00:00:00",
            "2025-09-16 23:60:00",
            "2025-09-16 23:59:60",
            "0000-01-01 00:00:00",
            "2025-09-16 19:00:04.5Z",
            "2025-09-16 19:00:04+03:00",
            "2025-09-16 19:00:04Z",
            "+025-09-16 19:00:04",
            "2025-09-16 19:00:0٤",
        ] {
            let t = LocalTime::parse(bad);
            assert_eq!(t.local, None, "{bad}");
            assert_eq!(t.raw, bad);
        }
    }
}
