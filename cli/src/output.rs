//! Output helpers: JSON printing, redaction, tables, times and the logger.

use std::time::{SystemTime, UNIX_EPOCH};

// Fields of an answer that hold a credential or token (the core's list,
// from spec/rules.json); hidden unless the user asks with `--reveal`.
use iikocloud::api::SECRET_FIELDS;
use serde_json::Value;

use crate::exit::Failure;

/// What a hidden value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Replaces the string values of [`SECRET_FIELDS`] anywhere in `value`.
pub fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if SECRET_FIELDS.contains(&k.as_str()) && v.is_string() {
                    *v = Value::String(REDACTED.into());
                } else {
                    redact(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

/// Serializes to a JSON value (the typed responses always serialize).
pub fn to_value(v: &impl serde::Serialize) -> Result<Value, Failure> {
    serde_json::to_value(v).map_err(|e| Failure::failed(format!("cannot encode JSON: {e}")))
}

/// Prints a JSON document on stdout, pretty, for `--json`.
pub fn print_json(v: &Value) {
    match serde_json::to_string_pretty(v) {
        Ok(text) => println!("{text}"),
        // A Value always serializes; keep a line on stdout anyway.
        Err(_) => println!("{v}"),
    }
}

/// Left-aligned columns separated by two spaces; widths in characters.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                out.push_str(cell);
            } else {
                let pad = widths[i].saturating_sub(cell.chars().count()) + 2;
                out.push_str(cell);
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.trim_end().to_owned()
    };
    let mut out = line(headers.to_vec());
    for row in rows {
        out.push('\n');
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// `-` for a missing value.
pub fn or_dash(v: Option<impl ToString>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

/// Seconds since the Unix epoch.
pub fn unix_secs(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// `yyyy-mm-dd hh:mm:ss UTC`, without a date library.
pub fn format_utc(t: SystemTime) -> String {
    let secs = unix_secs(t);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// `hh:mm:ss` (UTC) of now, for event lines.
pub fn clock_now() -> String {
    let rem = unix_secs(SystemTime::now()).rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", rem / 3600, rem / 60 % 60, rem % 60)
}

/// Year, month, day of a day count since 1970-01-01 (proleptic Gregorian;
/// the well-known era-based algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn redacts_secret_fields_at_any_depth() {
        let mut v = json!({"token": "t", "a": [{"authToken": "x", "authTokenSet": true}], "n": {"token": null}});
        redact(&mut v);
        assert_eq!(
            v,
            json!({"token": REDACTED, "a": [{"authToken": REDACTED, "authTokenSet": true}], "n": {"token": null}})
        );
    }

    #[test]
    fn formats_utc_dates() {
        assert_eq!(format_utc(UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
        let t = UNIX_EPOCH + Duration::from_secs(1_758_038_531);
        assert_eq!(format_utc(t), "2025-09-16 16:02:11 UTC");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(format_utc(leap), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn aligns_tables() {
        let t = table(
            &["ID", "NAME"],
            &[vec!["1".into(), "a".into()], vec!["22".into(), "b".into()]],
        );
        assert_eq!(t, "ID  NAME\n1   a\n22  b");
    }
}
