//! `--log-format`: how every log line of the CLI is written on stderr (the
//! SDK's and the emulator's `log` records, and the lines of `webhook serve`
//! and `consume`). `text` (the default) is for a person; `json` is one
//! object per line for a log shipper: `time` (RFC 3339, UTC, milliseconds),
//! `level`, `target`, `message`, then the line's own fields.
//!
//! Callers choose which fields a line has: never a header, a body, a token
//! or a URL with its password.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// The format of the log lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `2025-09-16 16:02:11 UTC INFO serving listen=http://…`.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

static JSON: AtomicBool = AtomicBool::new(false);

/// Sets the format for the rest of the process (once, from the arguments).
pub fn set(format: LogFormat) {
    JSON.store(format == LogFormat::Json, Ordering::Relaxed);
}

/// `2025-09-16T16:02:11.877Z`.
fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let date = crate::output::format_utc(t);
    // format_utc gives "YYYY-MM-DD hh:mm:ss UTC"; only the separators and the
    // milliseconds differ.
    let (day, rest) = date.split_once(' ').unwrap_or((&date, ""));
    let clock = rest.trim_end_matches(" UTC");
    format!("{day}T{clock}.{:03}Z", d.subsec_millis())
}

/// One line as it is written, without the line break.
pub fn render(level: &str, target: &str, message: &str, fields: &Map<String, Value>) -> String {
    let now = SystemTime::now();
    if JSON.load(Ordering::Relaxed) {
        let mut v = Map::new();
        v.insert("time".into(), rfc3339(now).into());
        v.insert("level".into(), level.into());
        v.insert("target".into(), target.into());
        v.insert("message".into(), message.into());
        for (k, val) in fields {
            // The four keys above are the line's; a field never hides them.
            v.entry(k.clone()).or_insert_with(|| val.clone());
        }
        Value::Object(v).to_string()
    } else {
        let mut line = format!(
            "{} {:<5} {message}",
            crate::output::format_utc(now),
            level.to_ascii_uppercase()
        );
        for (k, val) in fields {
            match val {
                // Bare when it reads unambiguously, quoted otherwise.
                Value::String(s) if !s.is_empty() && !s.contains([' ', '"', '=']) => {
                    line.push_str(&format!(" {k}={s}"))
                }
                other => line.push_str(&format!(" {k}={other}")),
            }
        }
        line
    }
}

/// Writes one line on stderr.
pub fn line(level: &str, target: &str, message: &str, fields: Value) {
    let fields = match fields {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let text = render(level, target, message, &fields);
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// A stderr logger for `--verbose`: the SDK logs one line per request (never
/// bodies or secrets) and the emulator logs requests and deliveries.
struct StderrLogger;

impl log::Log for StderrLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target().starts_with("iikocloud")
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            let level = record.level().as_str().to_ascii_lowercase();
            let message = record.args().to_string();
            line(&level, record.target(), &message, serde_json::Value::Null);
        }
    }

    fn flush(&self) {}
}

static LOGGER: StderrLogger = StderrLogger;

/// Sends `log` records of the SDK and the emulator to stderr: warnings
/// always, everything with `--verbose`.
pub fn init_logging(verbose: bool) {
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(if verbose {
        log::LevelFilter::Debug
    } else {
        log::LevelFilter::Warn
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_has_milliseconds_and_z() {
        let t = UNIX_EPOCH + std::time::Duration::from_millis(1_758_038_531_877);
        assert_eq!(rfc3339(t), "2025-09-16T16:02:11.877Z");
    }
}
