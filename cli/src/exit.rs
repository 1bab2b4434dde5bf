//! Exit codes and the one error type of the commands.

use std::process::ExitCode;

use serde_json::{json, Map, Value};

/// The process exit codes; documented in cli/README.md and `--help`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Success (also `--help` and `--version`).
    Ok = 0,
    /// The operation failed: an API error, a network error, an unreadable
    /// answer, a port that cannot be bound, or a demo step that did not happen.
    Failed = 1,
    /// Usage or configuration: bad arguments, missing credentials, an invalid
    /// base URL, an empty webhook token.
    Usage = 2,
    /// Invalid input: a malformed webhook body, invalid JSON in an argument,
    /// an unreadable input file, a field the SDK refused before sending.
    Input = 3,
    /// `webhook verify`: the header does not carry the expected token.
    Unverified = 4,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e as u8)
    }
}

/// Why a command failed: an exit code, a message, and details for `--json`.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    /// The exit code.
    pub code: Exit,
    /// One line for humans. Never contains a credential or token.
    pub message: String,
    /// `correlationId` of the failed answer, to quote to iiko support.
    pub correlation_id: Option<String>,
    /// Extra fields of the JSON error object.
    pub details: Map<String, Value>,
}

impl Failure {
    /// A failure with a code and a message.
    pub fn new(code: Exit, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            correlation_id: None,
            details: Map::new(),
        }
    }

    /// Exit 1.
    pub fn failed(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Failed, message)
    }

    /// Exit 2.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Usage, message)
    }

    /// Exit 3.
    pub fn input(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Input, message)
    }

    /// Adds a field to the JSON error object.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Failure {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// Prints the failure to stderr: a line (plus the correlationId) for
    /// humans, or `{"error": {...}}` with `--json`.
    pub fn print(&self, json: bool) {
        if self.message.is_empty() {
            // The command already printed its verdict; only the code is left.
            return;
        }
        if json {
            let mut obj = Map::new();
            obj.insert("exitCode".into(), json!(self.code as u8));
            obj.insert("message".into(), json!(self.message));
            obj.insert("correlationId".into(), json!(self.correlation_id));
            obj.extend(self.details.clone());
            eprintln!("{}", json!({ "error": obj }));
            return;
        }
        eprintln!("iikocloud: error: {}", self.message);
        // The SDK's message already names the correlationId of API errors;
        // say it separately only when it does not.
        if let Some(c) = &self.correlation_id {
            if !self.message.contains(c.as_str()) {
                eprintln!("iikocloud: correlationId: {c}");
            }
        }
    }
}

impl From<iikocloud::Error> for Failure {
    fn from(e: iikocloud::Error) -> Failure {
        use iikocloud::Error;
        let code = match &e {
            Error::Config(_) => Exit::Usage,
            Error::InvalidInput(_) => Exit::Input,
            _ => Exit::Failed,
        };
        let kind = match &e {
            Error::Api(_) => "api",
            Error::Transport { .. } => "transport",
            Error::Decode { .. } => "decode",
            Error::InvalidInput(_) => "invalid_input",
            Error::Config(_) => "config",
            Error::Command(_) => "command",
            _ => "other",
        };
        // The SDK's Display never contains credentials or tokens.
        let mut f = Failure::new(code, e.to_string()).with("kind", kind);
        f.correlation_id = e.correlation_id().map(str::to_owned);
        if let Some(status) = e.http_status() {
            f = f.with("status", status);
        }
        if let Some(api) = e.api() {
            f = f
                .with("path", api.path.clone())
                .with("errorCode", json!(api.error_code))
                .with("errorDescription", json!(api.error_description));
            if let Some(r) = api.retry_after {
                f = f.with("retryAfterSecs", r.as_secs());
            }
        }
        f
    }
}
