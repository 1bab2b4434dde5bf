//! Small helpers shared by the modules: ids, time formatting, locking, URL checks.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Locks a mutex, ignoring poisoning: a handler thread that panicked must not
/// take the whole emulator down with it, and our state stays consistent enough
/// for a test double.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A random (version 4) UUID in the canonical lowercase form.
pub(crate) fn new_uuid() -> String {
    let mut b = [0u8; 16];
    for byte in &mut b {
        *byte = fastrand::u8(..);
    }
    uuid_text(b)
}

/// A version-4-shaped UUID that depends only on `seed`, for ids the fixtures
/// do not give but that must stay the same from one answer to the next.
pub(crate) fn derived_uuid(seed: &str) -> String {
    // Two FNV-1a hashes (different offsets) make the 128 bits.
    let fnv = |offset: u64| {
        seed.bytes().fold(offset, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    };
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&fnv(0xcbf2_9ce4_8422_2325).to_be_bytes());
    b[8..].copy_from_slice(&fnv(0x6c62_272e_07bb_0142).to_be_bytes());
    uuid_text(b)
}

/// The canonical lowercase text of 16 bytes, marked version 4 (random).
fn uuid_text(mut b: [u8; 16]) -> String {
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// True for the canonical 8-4-4-4-12 hexadecimal UUID text (any case).
pub(crate) fn is_uuid(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.len() != 36 {
        return false;
    }
    bytes.iter().enumerate().all(|(i, c)| match i {
        8 | 13 | 18 | 23 => *c == b'-',
        _ => c.is_ascii_hexdigit(),
    })
}

/// Seconds since the Unix epoch as a float (sub-second precision).
pub(crate) fn unix_secs_f64(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

/// Milliseconds since the Unix epoch.
pub(crate) fn unix_millis(t: SystemTime) -> i64 {
    i64::try_from(
        t.duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_millis(),
    )
    .unwrap_or(i64::MAX)
}

/// Converts days since 1970-01-01 to a civil (year, month, day), proleptic Gregorian.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of a year.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // The ranges above guarantee these fit.
    (year, month as u32, day as u32)
}

/// Formats a time as `yyyy-MM-dd HH:mm:ss.fff`, shifted by `offset_secs` from UTC.
pub(crate) fn format_time(t: SystemTime, offset_secs: i64) -> String {
    let millis = unix_millis(t) + offset_secs * 1000;
    let secs = millis.div_euclid(1000);
    let ms = millis.rem_euclid(1000);
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02} {:02}:{:02}:{:02}.{ms:03}",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
}

/// `yyyy-MM-dd HH:mm:ss.fff` in UTC, the service's timestamp format.
pub(crate) fn format_utc(t: SystemTime) -> String {
    format_time(t, 0)
}

/// True for an absolute `http://` or `https://` URL with a non-empty host and,
/// when present, a numeric port. Deliberately simple: the emulator only needs
/// to refuse obviously unusable addresses.
pub(crate) fn is_absolute_http_url(s: &str) -> bool {
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let rest = if s.len() >= 7 && s[..7].eq_ignore_ascii_case("http://") {
        &s[7..]
    } else if s.len() >= 8 && s[..8].eq_ignore_ascii_case("https://") {
        &s[8..]
    } else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let (host, port) = if let Some(stripped) = host_port.strip_prefix('[') {
        // IPv6 literal: [::1]:8080
        match stripped.split_once(']') {
            Some((h, tail)) => (h, tail.strip_prefix(':')),
            None => return false,
        }
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    if host.is_empty() {
        return false;
    }
    match port {
        None => true,
        Some(p) => !p.is_empty() && p.parse::<u16>().is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_shape() {
        for _ in 0..100 {
            let u = new_uuid();
            assert!(is_uuid(&u), "{u}");
            assert_eq!(&u[14..15], "4");
        }
        assert!(!is_uuid("not-a-uuid"));
        let d = derived_uuid("jur-person:441e1320");
        assert!(is_uuid(&d) && &d[14..15] == "4", "{d}");
        assert_eq!(d, derived_uuid("jur-person:441e1320"));
        assert_ne!(d, derived_uuid("jur-person:441e1321"));
        assert!(!is_uuid("441e1320-3f58-4702-9f9e-aa34cdef9c0g"));
    }

    #[test]
    fn time_format() {
        let t = UNIX_EPOCH + Duration::from_millis(1_758_038_406_120);
        assert_eq!(format_utc(t), "2025-09-16 16:00:06.120");
        assert_eq!(format_time(t, 3 * 3600), "2025-09-16 19:00:06.120");
        assert_eq!(format_utc(UNIX_EPOCH), "1970-01-01 00:00:00.000");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(format_utc(leap), "2000-02-29 00:00:00.000");
    }

    #[test]
    fn urls() {
        assert!(is_absolute_http_url("http://127.0.0.1:8080/hook"));
        assert!(is_absolute_http_url("HTTPS://example.com"));
        assert!(is_absolute_http_url("http://[::1]:9000/x?y=1"));
        assert!(!is_absolute_http_url("ftp://example.com"));
        assert!(!is_absolute_http_url("http://"));
        assert!(!is_absolute_http_url("http://:80/"));
        assert!(!is_absolute_http_url("http://host:99999/"));
        assert!(!is_absolute_http_url("/relative/path"));
        assert!(!is_absolute_http_url("http://exa mple.com"));
    }
}
