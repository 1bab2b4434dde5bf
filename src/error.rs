//! The one error type of the client.

use std::fmt;
use std::time::Duration;

/// What kind of answer an API error was, by HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApiErrorKind {
    /// 400: the service rejected the request (malformed JSON or headers,
    /// invalid field values). Check the request and `errorDescription`.
    BadRequest,
    /// 401: the credentials were refused, or a fresh token was refused too.
    Unauthorized,
    /// 403: the API key is not allowed to use this endpoint or organization.
    Forbidden,
    /// 404: no such endpoint or entity.
    NotFound,
    /// 408: the service did not hear from the restaurant terminal within the
    /// `Timeout` header.
    TerminalTimeout,
    /// 429: too many requests; see [`ApiError::retry_after`]. Never retried
    /// automatically: the service may block an API login that keeps retrying.
    RateLimited,
    /// 5xx: the service failed.
    Server,
    /// Any other non-success status.
    Other,
}

impl ApiErrorKind {
    /// Classifies an HTTP status.
    pub fn from_status(status: u16) -> ApiErrorKind {
        match status {
            400 => ApiErrorKind::BadRequest,
            401 => ApiErrorKind::Unauthorized,
            403 => ApiErrorKind::Forbidden,
            404 => ApiErrorKind::NotFound,
            408 => ApiErrorKind::TerminalTimeout,
            429 => ApiErrorKind::RateLimited,
            500..=599 => ApiErrorKind::Server,
            _ => ApiErrorKind::Other,
        }
    }

    fn hint(self) -> &'static str {
        match self {
            ApiErrorKind::BadRequest => "check the request fields and headers",
            ApiErrorKind::Unauthorized => {
                "check appId, clientSecret and apiKey (or apiLogin) and that the key is active"
            }
            ApiErrorKind::Forbidden => "the API key lacks the right for this call or organization",
            ApiErrorKind::NotFound => "check the base URL and the path",
            ApiErrorKind::TerminalTimeout => {
                "the restaurant terminal did not answer within the Timeout header; it may be offline"
            }
            ApiErrorKind::RateLimited => "slow down and retry after the Retry-After delay",
            ApiErrorKind::Server => "the service failed; retry later and quote the correlationId",
            ApiErrorKind::Other => "unexpected status",
        }
    }
}

/// An error answer from the service, with everything it said.
///
/// `Debug` prints the body's length, not the body: answers can carry tokens.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{path} answered HTTP {status}{}{}{}; {}{}",
    Affix(": ", error_description, ""),
    Affix(" (error ", error_code, ")"),
    RetryAfter(*retry_after),
    kind.hint(),
    Affix(" [correlationId ", correlation_id, "]")
)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The status class.
    pub kind: ApiErrorKind,
    /// The endpoint path that was called.
    pub path: String,
    /// `errorDescription` (or `message` in the newer APIs' error shape).
    pub error_description: Option<String>,
    /// `error`, the service's short error code.
    pub error_code: Option<String>,
    /// `details` of the back-office families' error shape `{message, details}`
    /// (the JSON text of it when it is not a string).
    pub details: Option<String>,
    /// `correlationId`, to quote to iiko support.
    pub correlation_id: Option<String>,
    /// `Retry-After` of a 429, when present and readable.
    pub retry_after: Option<Duration>,
    /// The raw body, kept as text even when it is not JSON.
    pub body: String,
}

/// What failed on the way to or from the service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// The host name did not resolve.
    Dns,
    /// The TCP connection could not be made (refused, unreachable).
    Connect,
    /// TLS failed (certificate, handshake); the message says why in words and
    /// what to do (an unknown authority, an expired certificate, a name
    /// mismatch).
    Tls,
    /// The proxy refused the tunnel (407 wrong or missing credentials, 403,
    /// 502 it could not reach the service) or could not be reached itself.
    Proxy,
    /// The client-side timeout ran out.
    Timeout,
    /// The connection broke mid-exchange, or the peer spoke broken HTTP.
    Io,
    /// Anything else from the HTTP stack.
    Other,
}

impl TransportErrorKind {
    /// The words of the message that say what failed.
    fn what_failed(self) -> &'static str {
        match self {
            TransportErrorKind::Dns => "could not resolve the host",
            TransportErrorKind::Connect => "could not connect",
            TransportErrorKind::Tls => "TLS failed",
            TransportErrorKind::Proxy => "the proxy failed",
            TransportErrorKind::Timeout => "timed out",
            TransportErrorKind::Io => "connection failed",
            TransportErrorKind::Other => "request failed",
        }
    }

    /// Where to look when the host could not be reached at all.
    fn network_hint(self) -> &'static str {
        match self {
            TransportErrorKind::Dns | TransportErrorKind::Connect => {
                "; check the base URL and the network"
            }
            _ => "",
        }
    }
}

/// The error type of every client call.
///
/// `Clone`, so that every thread that waited for one failed token request gets
/// the same error. `Debug` and `Display` never print a response body (it can
/// carry an access token or a webhook `authToken`); the bodies stay readable in
/// their fields.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The service answered with an error status.
    #[error("{0}")]
    Api(Box<ApiError>),
    /// The request did not get an HTTP answer.
    #[error("{path}: {}: {message}{}", kind.what_failed(), kind.network_hint())]
    Transport {
        /// What failed.
        kind: TransportErrorKind,
        /// The endpoint path.
        path: String,
        /// A readable description of the cause.
        message: String,
        /// The underlying error.
        source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
    },
    /// A success status with a body we could not read.
    #[error(
        "{path} answered HTTP {status} with an unreadable body: {message}{}",
        Affix(" [correlationId ", correlation_id, "]")
    )]
    Decode {
        /// The endpoint path.
        path: String,
        /// The HTTP status (normally 200).
        status: u16,
        /// What was wrong with the body.
        message: String,
        /// `correlationId`, when the body had a readable one.
        correlation_id: Option<String>,
        /// The raw body, as text.
        body: String,
    },
    /// The request was refused before sending: a bad argument.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The client configuration is unusable.
    #[error("invalid client configuration: {0}")]
    Config(String),
    /// A command followed with [`Client::wait_command`](crate::Client::wait_command)
    /// failed, ran out of time or expired.
    #[error("{0}")]
    Command(Box<CommandError>),
}

/// How a followed command ended without success.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CommandErrorKind {
    /// The service reports the command failed (`state: Error`).
    Failed,
    /// Still in progress when the wait ran out; it may yet finish.
    TimedOut,
    /// The service no longer knows the `correlationId` (HTTP 410).
    Expired,
}

/// A command that did not succeed, with what the service said.
#[derive(Clone, Debug, thiserror::Error)]
#[error("command {correlation_id} {}", CommandEnding(self))]
pub struct CommandError {
    /// How it ended.
    pub kind: CommandErrorKind,
    /// The command's `correlationId` (the order's id when the answer that
    /// carried it was lost and the order itself was followed).
    pub correlation_id: String,
    /// `errorReason` of a failed command.
    pub reason: Option<String>,
    /// `exception` of a failed command, as sent.
    pub exception: Option<serde_json::Value>,
    /// How long the client waited.
    pub waited: Duration,
}

/// How a command's message ends, by the way it ended.
struct CommandEnding<'a>(&'a CommandError);

impl fmt::Display for CommandEnding<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        match e.kind {
            CommandErrorKind::Failed => {
                f.write_str("failed")?;
                if let Some(r) = &e.reason {
                    write!(f, ": {r}")?;
                }
                Ok(())
            }
            CommandErrorKind::TimedOut => write!(
                f,
                "still in progress after {:.1} s; it may yet finish",
                e.waited.as_secs_f64()
            ),
            CommandErrorKind::Expired => {
                f.write_str("is no longer known to the service (HTTP 410)")
            }
        }
    }
}

/// An optional value with the words around it, or nothing.
struct Affix<'a>(&'static str, &'a Option<String>, &'static str);

impl fmt::Display for Affix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(v) => write!(f, "{}{v}{}", self.0, self.2),
            None => Ok(()),
        }
    }
}

/// `; retry after N s` when the service said when.
struct RetryAfter(Option<Duration>);

impl fmt::Display for RetryAfter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(r) => write!(f, "; retry after {} s", r.as_secs()),
            None => Ok(()),
        }
    }
}

struct BodyLen<'a>(&'a str);

impl fmt::Debug for BodyLen<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{} bytes>", self.0.len())
    }
}

impl fmt::Debug for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiError")
            .field("status", &self.status)
            .field("kind", &self.kind)
            .field("path", &self.path)
            .field("error_description", &self.error_description)
            .field("error_code", &self.error_code)
            .field("details", &self.details)
            .field("correlation_id", &self.correlation_id)
            .field("retry_after", &self.retry_after)
            .field("body", &BodyLen(&self.body))
            .finish()
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Api(e) => f.debug_tuple("Api").field(e).finish(),
            Error::Transport {
                kind,
                path,
                message,
                source,
            } => f
                .debug_struct("Transport")
                .field("kind", kind)
                .field("path", path)
                .field("message", message)
                .field("source", source)
                .finish(),
            Error::Decode {
                path,
                status,
                message,
                correlation_id,
                body,
            } => f
                .debug_struct("Decode")
                .field("path", path)
                .field("status", status)
                .field("message", message)
                .field("correlation_id", correlation_id)
                .field("body", &BodyLen(body))
                .finish(),
            Error::InvalidInput(m) => f.debug_tuple("InvalidInput").field(m).finish(),
            Error::Config(m) => f.debug_tuple("Config").field(m).finish(),
            Error::Command(e) => f.debug_tuple("Command").field(e).finish(),
        }
    }
}

/// Removes the quoted values serde puts in its messages (`invalid type:
/// string "..."`), which may be secrets; field names (in backticks) stay.
/// Every binding that shows a serde message scrubs it with this one rule.
pub fn without_quoted_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut in_quotes = false;
    let mut escaped = false;
    for c in message.chars() {
        if in_quotes {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_quotes = false;
                out.push_str("\"…\"");
            }
        } else if c == '"' {
            in_quotes = true;
        } else {
            out.push(c);
        }
    }
    if in_quotes {
        out.push_str("\"…");
    }
    out
}

/// Result alias of the client.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error for an answer the core passed but a binding cannot read:
    /// a number its language cannot make (Python refuses integers of more
    /// digits than `sys.get_int_max_str_digits()` and exponents `Decimal`
    /// cannot hold). The same [`Error::Decode`] as an answer that is no JSON:
    /// the call's path and status, `reason`, the body, and its
    /// `correlationId` (a command's answer names the command to follow).
    pub fn unreadable_answer(path: &str, status: u16, text: &str, reason: &str) -> Error {
        /// Only the id: serde skips the other values without making numbers
        /// of them, so the number that failed the binding does not fail this.
        #[derive(serde::Deserialize)]
        struct Correlation {
            #[serde(rename = "correlationId")]
            correlation_id: Option<String>,
        }
        Error::Decode {
            path: path.to_owned(),
            status,
            message: reason.to_owned(),
            correlation_id: serde_json::from_str::<Correlation>(text)
                .ok()
                .and_then(|c| c.correlation_id),
            body: text.to_owned(),
        }
    }

    /// The API error, if the service answered with an error status.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(e) => Some(e),
            _ => None,
        }
    }

    /// The HTTP status of an API or decode error.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Error::Api(e) => Some(e.status),
            Error::Decode { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// `correlationId` of the answer that failed, for support requests.
    pub fn correlation_id(&self) -> Option<&str> {
        match self {
            Error::Api(e) => e.correlation_id.as_deref(),
            Error::Decode { correlation_id, .. } => correlation_id.as_deref(),
            _ => None,
        }
    }

    /// Whether this is an API error of the given kind.
    pub fn is_api(&self, kind: ApiErrorKind) -> bool {
        matches!(self, Error::Api(e) if e.kind == kind)
    }

    /// Whether the client timeout ran out.
    pub fn is_timeout(&self) -> bool {
        matches!(
            self,
            Error::Transport {
                kind: TransportErrorKind::Timeout,
                ..
            }
        )
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Error {
        Error::InvalidInput(message.into())
    }
}

impl From<ApiError> for Error {
    fn from(e: ApiError) -> Self {
        Error::Api(Box::new(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_are_removed_from_messages() {
        assert_eq!(
            without_quoted_values(r#"invalid type: string "sk_\"live", expected u64 at line 1"#),
            r#"invalid type: string "…", expected u64 at line 1"#
        );
        assert_eq!(
            without_quoted_values("missing field `token` at line 1 column 2"),
            "missing field `token` at line 1 column 2"
        );
        assert_eq!(without_quoted_values(r#"cut "abc"#), r#"cut "…"#);
    }

    #[test]
    fn debug_never_prints_bodies() {
        let e = Error::Decode {
            path: "/p".into(),
            status: 200,
            message: "m".into(),
            correlation_id: None,
            body: r#"{"token":"secret-token"}"#.into(),
        };
        let d = format!("{e:?} {e}");
        assert!(
            !d.contains("secret-token") && d.contains("<24 bytes>"),
            "{d}"
        );
        let a = Error::from(ApiError {
            status: 500,
            kind: ApiErrorKind::Server,
            path: "/p".into(),
            error_description: None,
            error_code: None,
            details: None,
            correlation_id: None,
            retry_after: None,
            body: "secret-body".into(),
        });
        assert!(!format!("{a:?} {a}").contains("secret-body"));
    }

    #[test]
    fn an_answer_a_binding_cannot_read_is_a_decode_error_naming_the_command() {
        let digits = "9".repeat(5_000);
        let text = format!(r#"{{"correlationId":"c-1","n":{digits},"e":1e999999999999}}"#);
        let e = Error::unreadable_answer("/api/1/x", 200, &text, "an integer of 5000 digits");
        assert_eq!(e.http_status(), Some(200));
        assert_eq!(e.correlation_id(), Some("c-1"));
        let Error::Decode {
            path,
            message,
            body,
            ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!(
            (path.as_str(), message.as_str(), body.as_str()),
            ("/api/1/x", "an integer of 5000 digits", text.as_str())
        );
        assert!(
            !format!("{e:?}").contains(&digits),
            "Debug shows the body's length only"
        );
    }
}
