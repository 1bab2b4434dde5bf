//! `Failure`: why a call failed, before it becomes an `iiko_error`.
//!
//! Kept apart from `iiko_error` so that the pointer helpers of `ffi` can fail
//! without depending on the error object they are used to build.

use std::any::Any;

use iikocloud_core::error::without_quoted_values;
use iikocloud_core::{ApiErrorKind, CommandErrorKind, Error, TransportErrorKind};

use crate::status::*;

/// Why a call failed, before it becomes an `iiko_error` (which is built only if
/// the caller asked for one).
#[derive(Debug)]
pub(crate) enum Failure {
    /// Argument or library failure with a message of our own.
    Plain {
        status: iiko_status,
        message: String,
    },
    /// An error of the core client.
    Core(Error),
}

impl Failure {
    pub(crate) fn new(status: iiko_status, message: impl Into<String>) -> Failure {
        Failure::Plain {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn null(name: &str) -> Failure {
        Failure::new(IIKO_STATUS_NULL_ARGUMENT, format!("`{name}` is NULL"))
    }

    pub(crate) fn invalid_utf8(name: &str, valid_up_to: usize) -> Failure {
        Failure::new(
            IIKO_STATUS_INVALID_UTF8,
            format!("`{name}` is not valid UTF-8 (bad byte at offset {valid_up_to})"),
        )
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> Failure {
        Failure::new(IIKO_STATUS_INVALID_ARGUMENT, message)
    }

    pub(crate) fn invalid_json(name: &str, e: &serde_json::Error) -> Failure {
        // serde_json quotes a string value it did not expect (`invalid type:
        // string "..."`); that value could be a credential, so it is left out.
        Failure::new(
            IIKO_STATUS_INVALID_JSON,
            format!("`{name}`: {}", without_quoted_values(&e.to_string())),
        )
    }

    pub(crate) fn panic(payload: &(dyn Any + Send)) -> Failure {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        Failure::new(
            IIKO_STATUS_PANIC,
            format!("internal error (a Rust panic was caught: {what}); please report it"),
        )
    }

    pub(crate) fn status(&self) -> iiko_status {
        match self {
            Failure::Plain { status, .. } => *status,
            Failure::Core(e) => core_status(e),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

/// The status code of a core error.
pub(crate) fn core_status(e: &Error) -> iiko_status {
    match e {
        Error::Api(api) => match api.kind {
            ApiErrorKind::BadRequest => IIKO_STATUS_API_BAD_REQUEST,
            ApiErrorKind::Unauthorized => IIKO_STATUS_API_UNAUTHORIZED,
            ApiErrorKind::Forbidden => IIKO_STATUS_API_FORBIDDEN,
            ApiErrorKind::NotFound => IIKO_STATUS_API_NOT_FOUND,
            ApiErrorKind::TerminalTimeout => IIKO_STATUS_API_TERMINAL_TIMEOUT,
            ApiErrorKind::RateLimited => IIKO_STATUS_API_RATE_LIMITED,
            ApiErrorKind::Server => IIKO_STATUS_API_SERVER,
            _ => IIKO_STATUS_API_OTHER,
        },
        Error::Transport { kind, .. } => match kind {
            TransportErrorKind::Dns => IIKO_STATUS_TRANSPORT_DNS,
            TransportErrorKind::Connect => IIKO_STATUS_TRANSPORT_CONNECT,
            TransportErrorKind::Tls => IIKO_STATUS_TRANSPORT_TLS,
            TransportErrorKind::Timeout => IIKO_STATUS_TRANSPORT_TIMEOUT,
            TransportErrorKind::Io => IIKO_STATUS_TRANSPORT_IO,
            TransportErrorKind::Proxy => IIKO_STATUS_TRANSPORT_PROXY,
            _ => IIKO_STATUS_TRANSPORT_OTHER,
        },
        Error::Decode { .. } => IIKO_STATUS_API_DECODE,
        Error::InvalidInput(_) => IIKO_STATUS_INVALID_ARGUMENT,
        Error::Config(_) => IIKO_STATUS_INVALID_CONFIG,
        Error::Command(c) => match c.kind {
            CommandErrorKind::Failed => IIKO_STATUS_COMMAND_FAILED,
            CommandErrorKind::TimedOut => IIKO_STATUS_COMMAND_TIMED_OUT,
            CommandErrorKind::Expired => IIKO_STATUS_COMMAND_EXPIRED,
            _ => IIKO_STATUS_INTERNAL,
        },
        _ => IIKO_STATUS_INTERNAL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_leave_string_values_out() {
        let e = serde_json::from_str::<Vec<String>>(r#""s3cret \" tail""#).unwrap_err();
        let message = Failure::invalid_json("request_json", &e)
            .into_error()
            .message_text();
        assert!(
            !message.contains("s3cret") && !message.contains("tail"),
            "{message}"
        );
        assert!(message.contains(r#"invalid type: string "…""#), "{message}");
    }
}
