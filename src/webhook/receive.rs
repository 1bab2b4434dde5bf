//! Verify-then-parse in one call, with the HTTP status to answer.

use super::parse::{parse_body_with, ParseError, ParseOptions, ParsedBody};
use super::status::{status_for_parse, status_for_verify, STATUS_ACCEPTED};
use super::verify::{Verifier, VerifyError};
use crate::secret::Secret;
use crate::telemetry;

/// Why [`Receiver::receive`] did not return events.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReceiveError {
    /// The request failed verification; the body was not parsed.
    #[error("{0}")]
    Unauthorized(#[source] VerifyError),
    /// The request is authentic but its body cannot be read as a whole.
    #[error("{0}")]
    Unparseable(#[source] ParseError),
}

impl ReceiveError {
    /// The HTTP status to answer ([`status`](super::status)):
    ///
    /// * [`STATUS_UNAUTHORIZED`](super::STATUS_UNAUTHORIZED) for a failed
    ///   verification (missing, malformed or wrong token);
    /// * [`STATUS_RECEIVER_FAULT`](super::STATUS_RECEIVER_FAULT) when the
    ///   expected token is empty: the receiver is misconfigured, and a server
    ///   error lets the service keep the events and retry once it is fixed,
    ///   instead of them being acknowledged and lost;
    /// * [`STATUS_ACCEPTED`] for an authentic but unparseable body (not JSON,
    ///   not an array, too large, too deep, not UTF-8): the service would
    ///   resend exactly the same bytes, so any other answer only leads to
    ///   endless retries and eventually to the blocking of the webhook, which
    ///   stops *all* events. Log the error and keep the raw body instead.
    ///
    /// A body over the size limit is answered the same way, never with a
    /// "too large" status. If your HTTP server enforces its own body limit
    /// before this call, use [`Receiver::receive_oversized`] for what it cut.
    pub fn http_status(&self) -> u16 {
        match self {
            ReceiveError::Unauthorized(e) => status_for_verify(*e),
            ReceiveError::Unparseable(e) => status_for_parse(e.kind()),
        }
    }

    /// Whether the request passed verification (the body came from the
    /// service).
    pub fn is_authentic(&self) -> bool {
        matches!(self, ReceiveError::Unparseable(_))
    }

    /// A stable name: `unauthorized:<verify error>` or
    /// `unparseable:<parse error kind>`.
    pub fn name(&self) -> String {
        match self {
            ReceiveError::Unauthorized(e) => format!("unauthorized:{}", e.as_str()),
            ReceiveError::Unparseable(e) => format!("unparseable:{}", e.kind().as_str()),
        }
    }
}

/// The HTTP status to answer for a [`Receiver::receive`] result:
/// [`STATUS_ACCEPTED`] for events, else [`ReceiveError::http_status`].
pub fn http_status(result: &Result<ParsedBody, ReceiveError>) -> u16 {
    match result {
        Ok(_) => STATUS_ACCEPTED,
        Err(e) => e.http_status(),
    }
}

/// A webhook endpoint's checks: the expected token and the parse limits.
///
/// ```
/// use iikocloud::webhook::{http_status, Receiver};
///
/// let receiver = Receiver::new("s3cret");
/// let headers = [("Content-Type", "application/json"), ("Authorization", "s3cret")];
/// let result = receiver.receive(headers, b"[]");
/// assert_eq!(http_status(&result), 200);
/// assert!(result.unwrap().is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct Receiver {
    verifier: Verifier,
    options: ParseOptions,
}

impl Receiver {
    /// A receiver for this expected token, with default [`ParseOptions`].
    pub fn new(expected_token: impl Into<Secret>) -> Receiver {
        Receiver {
            verifier: Verifier::new(expected_token),
            options: ParseOptions::default(),
        }
    }

    /// Replaces the parse options.
    pub fn with_options(mut self, options: ParseOptions) -> Receiver {
        self.options = options;
        self
    }

    /// The parse options.
    pub fn options(&self) -> &ParseOptions {
        &self.options
    }

    /// Verifies the request's `Authorization` header, then parses the body.
    ///
    /// `headers` are the request's `(name, value)` pairs (names matched
    /// case-insensitively); `body` is the raw body bytes. The body of an
    /// unverified request is never parsed. Answer [`http_status`] of the
    /// result, at once, and do the work afterwards.
    pub fn receive<I, N, V>(&self, headers: I, body: &[u8]) -> Result<ParsedBody, ReceiveError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let span = telemetry::webhook_span();
        let result = span.in_scope(|| self.receive_untraced(headers, body));
        telemetry::webhook_done(&span, result.as_ref(), http_status(&result), None, true);
        result
    }

    /// [`Receiver::receive`] without its account in the telemetry, for a
    /// caller (the inbox) that answers something else and accounts for it.
    pub(crate) fn receive_untraced<I, N, V>(
        &self,
        headers: I,
        body: &[u8],
    ) -> Result<ParsedBody, ReceiveError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        self.verifier
            .verify_headers(headers)
            .map_err(ReceiveError::Unauthorized)?;
        parse_body_with(body, &self.options).map_err(ReceiveError::Unparseable)
    }

    /// What [`receive`](Receiver::receive) decides for a body the server
    /// stopped reading at its size limit: verified like any other request,
    /// then refused as [`ParseError::TooLarge`] of at least `size` bytes, so
    /// [`http_status`] answers as it would for the whole body.
    pub fn receive_oversized<I, N, V>(
        &self,
        headers: I,
        size: usize,
    ) -> Result<ParsedBody, ReceiveError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let span = telemetry::webhook_span();
        let result = span.in_scope(|| self.receive_oversized_untraced(headers, size));
        telemetry::webhook_done(&span, result.as_ref(), http_status(&result), None, true);
        result
    }

    /// [`Receiver::receive_oversized`] without its account in the telemetry.
    pub(crate) fn receive_oversized_untraced<I, N, V>(
        &self,
        headers: I,
        size: usize,
    ) -> Result<ParsedBody, ReceiveError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        self.verifier
            .verify_headers(headers)
            .map_err(ReceiveError::Unauthorized)?;
        Err(ReceiveError::Unparseable(ParseError::TooLarge {
            size,
            limit: self.options.max_body_bytes(),
        }))
    }
}

/// [`Receiver::receive`] without keeping a receiver: verifies `headers`
/// against `expected_token`, then parses `body` with `options`.
pub fn receive<I, N, V>(
    headers: I,
    body: &[u8],
    expected_token: &str,
    options: &ParseOptions,
) -> Result<ParsedBody, ReceiveError>
where
    I: IntoIterator<Item = (N, V)>,
    N: AsRef<[u8]>,
    V: AsRef<[u8]>,
{
    let span = telemetry::webhook_span();
    let result = span.in_scope(|| {
        Verifier::new(expected_token)
            .verify_headers(headers)
            .map_err(ReceiveError::Unauthorized)?;
        parse_body_with(body, options).map_err(ReceiveError::Unparseable)
    });
    telemetry::webhook_done(&span, result.as_ref(), http_status(&result), None, true);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_body_is_answered_as_the_whole_body_would_be() {
        let receiver =
            Receiver::new("s3cret").with_options(ParseOptions::default().with_max_body_bytes(10));
        let whole = receiver.receive([("Authorization", "s3cret")], &[b' '; 11]);
        let cut = receiver.receive_oversized([("Authorization", "s3cret")], 11);
        assert_eq!(http_status(&cut), http_status(&whole));
        assert_eq!(cut.unwrap_err().name(), "unparseable:too_large");
        let forged = receiver.receive_oversized([("Authorization", "other")], 11);
        assert_eq!(http_status(&forged), 401);
    }
}
