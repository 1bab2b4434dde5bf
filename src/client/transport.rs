//! Sending a call: the token, the retry loop, one HTTP exchange, and
//! transport failures put into words.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::answers::{api_error, error_fields, Answer};
use super::{Client, Inner, MAX_RETRY_DELAY};
use crate::error::{ApiErrorKind, Error, Result, TransportErrorKind};
use crate::network;
use crate::telemetry::{CallTrace, RetryCause};
use crate::token::AccessToken;

/// A request ready to send.
pub(super) struct Call<'a> {
    pub(super) path: &'a str,
    pub(super) body: Vec<u8>,
    pub(super) idempotent: bool,
    pub(super) authorized: bool,
    pub(super) server_timeout: Duration,
}

impl Client {
    /// Sends a call: attaches the token, retries what may be retried, and
    /// turns every non-2xx answer into an error.
    pub(super) fn execute(&self, call: &Call<'_>) -> Result<Answer> {
        let base = &self.inner.base_url;
        let mut trace = CallTrace::start(base, call.path, &call.body, !call.authorized);
        let span = trace.span().clone();
        let result = span.in_scope(|| self.execute_traced(call, &mut trace));
        match &result {
            // Commands answer their correlationId; a big read has none worth
            // parsing megabytes for.
            Ok(answer) => trace.finish(
                None,
                || {
                    (answer.body.len() <= 64 * 1024)
                        .then(|| error_fields(&answer.body).correlation_id)
                        .flatten()
                },
                base,
            ),
            Err(e) => trace.finish(Some(e), || None, base),
        }
        result
    }

    fn execute_traced(&self, call: &Call<'_>, trace: &mut CallTrace) -> Result<Answer> {
        let mut attempt = 0u32;
        let mut refreshed_after_401 = false;
        loop {
            let token = if call.authorized {
                Some(self.access_token()?)
            } else {
                None
            };
            let result = self.send_once(call, token.as_ref());
            if let Ok(answer) = &result {
                trace.answered(answer.status);
            }
            let retryable = call.idempotent && attempt < self.inner.retries;
            match result {
                Ok(answer) if (200..300).contains(&answer.status) => return Ok(answer),
                Ok(answer) if answer.status == 401 && call.authorized && !refreshed_after_401 => {
                    // The token may have expired early or been revoked: one new
                    // token, one more try. A second 401 is an auth error.
                    refreshed_after_401 = true;
                    if let Some(t) = &token {
                        self.inner.tokens.invalidate(t);
                    }
                    log::debug!("{}: 401, refreshing the token once", call.path);
                    trace.resend(RetryCause::TokenRefused);
                }
                // A server failure as the error classifies it: one rule of 5xx.
                Ok(answer)
                    if retryable
                        && ApiErrorKind::from_status(answer.status) == ApiErrorKind::Server =>
                {
                    attempt += 1;
                    trace.resend(RetryCause::Server);
                    self.backoff(call.path, attempt, &format!("HTTP {}", answer.status));
                }
                Ok(answer) => return Err(api_error(call.path, &answer)),
                Err(e) if retryable && worth_retrying(&e) => {
                    attempt += 1;
                    trace.resend(RetryCause::Transport(&e));
                    self.backoff(call.path, attempt, &e.to_string());
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn backoff(&self, path: &str, attempt: u32, cause: &str) {
        let base = self
            .inner
            .retry_base_delay
            .saturating_mul(1u32 << (attempt - 1).min(16))
            .min(MAX_RETRY_DELAY);
        // Full jitter between half and the whole delay spreads out clients
        // that failed together.
        let delay = base.mul_f64(0.5 + fastrand::f64() * 0.5);
        log::debug!(
            "{path}: {cause}; retry {attempt} in {} ms",
            delay.as_millis()
        );
        std::thread::sleep(delay);
    }

    fn send_once(&self, call: &Call<'_>, token: Option<&AccessToken>) -> Result<Answer> {
        let url = format!("{}{}", self.inner.base_url, call.path);
        let timeout_secs =
            call.server_timeout.as_secs() + u64::from(call.server_timeout.subsec_nanos() > 0);
        let started = Instant::now();
        let mut request = self
            .inner
            .agent
            .post(&url)
            .config()
            .timeout_global(Some(call.server_timeout + self.inner.client_timeout_margin))
            .build()
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("Timeout", timeout_secs.to_string());
        if let Some(t) = token {
            request = request.header("Authorization", format!("Bearer {}", t.expose()));
        }
        let outcome = request.send(&call.body[..]).and_then(|mut response| {
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let retry_after = header("Retry-After").and_then(|v| parse_retry_after(&v));
            let content_type = header("Content-Type");
            let body = response
                .body_mut()
                .with_config()
                .limit(self.inner.max_response_bytes)
                .read_to_vec()?;
            Ok(Answer {
                status,
                body,
                retry_after,
                content_type,
            })
        });
        let elapsed = started.elapsed().as_millis();
        match outcome {
            Ok(answer) => {
                log::debug!(
                    "POST {} -> {} in {elapsed} ms, correlationId {}",
                    call.path,
                    answer.status,
                    error_fields(&answer.body)
                        .correlation_id
                        .as_deref()
                        .unwrap_or("-")
                );
                Ok(answer)
            }
            Err(e) => {
                let error = transport_error(call.path, e, &self.inner);
                log::debug!("POST {} failed in {elapsed} ms: {error}", call.path);
                Err(error)
            }
        }
    }
}

/// `Retry-After` in seconds; the HTTP-date form is not used by the service.
fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// A certificate or a proxy's refusal will not change on a retry.
fn worth_retrying(e: &Error) -> bool {
    match e {
        Error::Transport {
            kind: TransportErrorKind::Tls,
            ..
        } => false,
        Error::Transport {
            kind: TransportErrorKind::Proxy,
            source: Some(s),
            ..
        } => !matches!(
            s.downcast_ref::<ureq::Error>(),
            Some(ureq::Error::ConnectProxyFailed(_))
        ),
        _ => true,
    }
}

/// The rustls error behind a failed handshake: ureq passes it on as is, or
/// (from the handshake's I/O) wrapped in an `io::Error`.
fn rustls_error(e: &ureq::Error) -> Option<&rustls::Error> {
    match e {
        ureq::Error::Rustls(r) => Some(r),
        ureq::Error::Io(io) => io.get_ref()?.downcast_ref::<rustls::Error>(),
        _ => None,
    }
}

/// Words for a proxy's refusal, from ureq's "proxy server responded 407/..."
fn proxy_refusal(label: &str, reason: &str) -> String {
    let status: Option<u16> = reason
        .split(|c: char| !c.is_ascii_digit())
        .find(|part| part.len() == 3)
        .and_then(|part| part.parse().ok());
    match status {
        Some(407) => format!(
            "the proxy {label} asks for credentials (HTTP 407): check the user and password \
             in the proxy URL"
        ),
        Some(403) => format!(
            "the proxy {label} refused the connection (HTTP 403): ask its administrator to \
             allow this host"
        ),
        Some(s) => format!("the proxy {label} could not open a tunnel to the service (HTTP {s})"),
        None => format!("the proxy {label} failed: {reason}"),
    }
}

fn transport_error(path: &str, e: ureq::Error, inner: &Inner) -> Error {
    use std::io::ErrorKind as Io;
    let limit = inner.max_response_bytes;
    let proxy_label = inner.proxy.as_ref().and_then(|p| p.label.as_deref());
    let tls = rustls_error(&e).map(|r| network::tls_words(&inner.host, r));
    let kind = match &e {
        _ if tls.is_some() => TransportErrorKind::Tls,
        ureq::Error::ConnectProxyFailed(_) => TransportErrorKind::Proxy,
        ureq::Error::Timeout(_) => TransportErrorKind::Timeout,
        ureq::Error::HostNotFound => TransportErrorKind::Dns,
        ureq::Error::ConnectionFailed => TransportErrorKind::Connect,
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::Pem(_) => {
            TransportErrorKind::Tls
        }
        // std reports a failed getaddrinfo as an uncategorized io::Error with
        // this text; ureq passes it on as is.
        ureq::Error::Io(io) if io.to_string().contains("failed to lookup address") => {
            TransportErrorKind::Dns
        }
        ureq::Error::Io(io) => match io.kind() {
            Io::TimedOut | Io::WouldBlock => TransportErrorKind::Timeout,
            Io::ConnectionRefused
            | Io::AddrNotAvailable
            | Io::NetworkUnreachable
            | Io::HostUnreachable => TransportErrorKind::Connect,
            _ => TransportErrorKind::Io,
        },
        ureq::Error::Protocol(_) => TransportErrorKind::Io,
        _ => TransportErrorKind::Other,
    };
    // With a proxy in use the only host this client resolves and connects
    // to is the proxy: a failure there is the proxy's.
    let kind = match (kind, proxy_label) {
        (TransportErrorKind::Dns | TransportErrorKind::Connect, Some(_)) => {
            TransportErrorKind::Proxy
        }
        (kind, _) => kind,
    };
    let message = match &e {
        _ if tls.is_some() => tls.unwrap_or_default(),
        ureq::Error::ConnectProxyFailed(reason) => {
            proxy_refusal(proxy_label.unwrap_or("in use"), reason)
        }
        other if kind == TransportErrorKind::Proxy => format!(
            "the proxy {} could not be reached: {other}; check the proxy address",
            proxy_label.unwrap_or("in use")
        ),
        ureq::Error::BodyExceedsLimit(_) => {
            format!("the response is larger than the {limit}-byte limit (max_response_bytes)")
        }
        other => other.to_string(),
    };
    Error::Transport {
        kind,
        path: path.to_owned(),
        message,
        source: Some(Arc::new(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds() {
        assert_eq!(parse_retry_after(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}
