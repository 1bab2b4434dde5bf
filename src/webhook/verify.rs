//! Checking the `Authorization` header of a webhook request.
//!
//! The service sends the `authToken` configured with
//! `/api/1/webhooks/update_settings` in the `Authorization` header. Nothing
//! documents whether it adds a `Bearer ` prefix, so both forms are accepted.
//!
//! See [`Verifier`] for the exact rules.

use subtle::{Choice, ConstantTimeEq};

use crate::secret::Secret;

/// Why a request failed verification. One variant per cause; none carries
/// the token or the header value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[repr(u32)]
pub enum VerifyError {
    /// No `Authorization` header.
    #[error("webhook request has no Authorization header")]
    MissingHeader = 1,
    /// The configured expected token is empty or whitespace only (a
    /// configuration error on the receiving side).
    #[error("the expected webhook token is empty; refusing every request")]
    EmptyExpectedToken = 2,
    /// The header is present but cannot hold a token: empty, control
    /// characters, surrounding or doubled spaces, `Bearer` without a token, or
    /// the header repeated.
    #[error("webhook Authorization header is malformed")]
    MalformedHeader = 3,
    /// The header holds a token, and it is not the expected one.
    #[error("webhook Authorization token does not match")]
    Mismatch = 4,
}

impl VerifyError {
    /// The stable code for the C ABI.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The stable name: `missing_header`, `empty_expected_token`,
    /// `malformed_header` or `mismatch`.
    pub fn as_str(self) -> &'static str {
        match self {
            VerifyError::MissingHeader => "missing_header",
            VerifyError::EmptyExpectedToken => "empty_expected_token",
            VerifyError::MalformedHeader => "malformed_header",
            VerifyError::Mismatch => "mismatch",
        }
    }
}

/// Checks webhook requests against the configured `authToken`.
///
/// Cheap to clone; `Debug` prints the token as `[redacted]`.
///
/// # Header rules
///
/// Checked in this order; the first failing rule decides the error:
///
/// 1. The expected token must not be empty or whitespace only
///    ([`VerifyError::EmptyExpectedToken`]): an empty token would accept
///    everything. It is used as configured, without trimming.
/// 2. Exactly one `Authorization` header (name matched case-insensitively)
///    must be present: none is [`VerifyError::MissingHeader`], several are
///    [`VerifyError::MalformedHeader`].
/// 3. The value must be non-empty, contain no control byte (0x00–0x1F, 0x7F:
///    no tab, CR, LF or NUL) and neither begin nor end with a space; otherwise
///    [`VerifyError::MalformedHeader`]. HTTP servers strip surrounding
///    whitespace themselves, so any that reaches us is a trick, not noise.
/// 4. A value starting with `Bearer` (ASCII case-insensitive) and one space is
///    the bearer form; its credential is the rest, which must be non-empty and
///    must not start with another space. `Bearer` alone is
///    [`VerifyError::MalformedHeader`].
/// 5. The request is authentic when the credential of the bearer form, or the
///    whole value (the bare form), equals the expected token byte for byte.
///    Otherwise [`VerifyError::Mismatch`].
///
/// The comparison uses [`subtle::ConstantTimeEq`]. When the lengths differ the
/// expected token is compared with itself instead, so the time taken depends
/// only on the expected token's length, not on how much of the candidate
/// matches. No error and no `Debug` output ever contains the token or the
/// header value.
#[derive(Clone, Debug)]
pub struct Verifier {
    expected: Secret,
}

impl Verifier {
    /// A verifier for this expected token (the `authToken` given to
    /// `/api/1/webhooks/update_settings`).
    pub fn new(expected_token: impl Into<Secret>) -> Verifier {
        Verifier {
            expected: expected_token.into(),
        }
    }

    /// Verifies the value of the `Authorization` header (`None` when the
    /// request has none). See [`Verifier`] for the rules.
    pub fn verify(&self, authorization: Option<&[u8]>) -> Result<(), VerifyError> {
        verify_authorization(authorization, self.expected.expose())
    }

    /// Finds the `Authorization` header among the request's headers and
    /// verifies it.
    pub fn verify_headers<I, N, V>(&self, headers: I) -> Result<(), VerifyError>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        if self.expected.is_blank() {
            return Err(VerifyError::EmptyExpectedToken);
        }
        let value = find_authorization(headers)?;
        self.verify(value.as_ref().map(AsRef::as_ref))
    }
}

/// Finds the single `Authorization` header (name compared ASCII
/// case-insensitively) in `(name, value)` pairs.
///
/// `Ok(None)` when there is none; [`VerifyError::MalformedHeader`] when there
/// are several, since which one a proxy or framework would pick is unclear.
pub fn find_authorization<I, N, V>(headers: I) -> Result<Option<V>, VerifyError>
where
    I: IntoIterator<Item = (N, V)>,
    N: AsRef<[u8]>,
{
    let mut found = None;
    for (name, value) in headers {
        if name.as_ref().eq_ignore_ascii_case(b"authorization") && found.replace(value).is_some() {
            return Err(VerifyError::MalformedHeader);
        }
    }
    Ok(found)
}

/// Verifies an `Authorization` header value (`None` when absent) against the
/// expected token. See [`Verifier`] for the rules.
pub fn verify_authorization(
    authorization: Option<&[u8]>,
    expected_token: &str,
) -> Result<(), VerifyError> {
    let expected = expected_token.as_bytes();
    if expected_token.trim().is_empty() {
        return Err(VerifyError::EmptyExpectedToken);
    }
    let value = authorization.ok_or(VerifyError::MissingHeader)?;
    let (first, last) = match (value.first(), value.last()) {
        (Some(&first), Some(&last)) => (first, last),
        _ => return Err(VerifyError::MalformedHeader),
    };
    if first == b' ' || last == b' ' || value.iter().any(|&b| b < 0x20 || b == 0x7f) {
        return Err(VerifyError::MalformedHeader);
    }
    let bearer = match value.split_at_checked(6) {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case(b"bearer") => match rest {
            // "Bearer" alone: a scheme without a credential.
            [] => return Err(VerifyError::MalformedHeader),
            [b' ', b' ', ..] | [b' '] => return Err(VerifyError::MalformedHeader),
            [b' ', credential @ ..] => Some(credential),
            // "BearerXYZ": not the bearer form; compared whole below.
            _ => None,
        },
        _ => None,
    };
    let bare = ct_equal(value, expected);
    let with_scheme = bearer.map_or(Choice::from(0), |c| ct_equal(c, expected));
    if bool::from(bare | with_scheme) {
        Ok(())
    } else {
        Err(VerifyError::Mismatch)
    }
}

/// Constant-time equality whose running time depends only on `expected`.
fn ct_equal(candidate: &[u8], expected: &[u8]) -> Choice {
    let same_len = candidate.len() == expected.len();
    let other = if same_len { candidate } else { expected };
    other.ct_eq(expected) & Choice::from(u8::from(same_len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(header: Option<&str>, token: &str) -> Result<(), VerifyError> {
        verify_authorization(header.map(str::as_bytes), token)
    }

    #[test]
    fn accepts_bare_and_bearer_forms() {
        assert_eq!(check(Some("s3cret"), "s3cret"), Ok(()));
        assert_eq!(check(Some("Bearer s3cret"), "s3cret"), Ok(()));
        assert_eq!(check(Some("bEARER s3cret"), "s3cret"), Ok(()));
        assert_eq!(check(Some("my token"), "my token"), Ok(()));
        assert_eq!(check(Some("Bearer my token"), "my token"), Ok(()));
    }

    #[test]
    fn rejects_each_cause_with_its_own_error() {
        use VerifyError::*;
        assert_eq!(check(None, "s3cret"), Err(MissingHeader));
        assert_eq!(check(Some("s3cret"), ""), Err(EmptyExpectedToken));
        assert_eq!(check(None, " \t"), Err(EmptyExpectedToken));
        assert_eq!(check(Some(""), "s3cret"), Err(MalformedHeader));
        assert_eq!(check(Some(" s3cret"), "s3cret"), Err(MalformedHeader));
        assert_eq!(check(Some("s3cret "), "s3cret"), Err(MalformedHeader));
        assert_eq!(
            check(Some("Bearer  s3cret"), "s3cret"),
            Err(MalformedHeader)
        );
        assert_eq!(
            check(Some("Bearer\ts3cret"), "s3cret"),
            Err(MalformedHeader)
        );
        assert_eq!(check(Some("Bearer"), "s3cret"), Err(MalformedHeader));
        assert_eq!(check(Some("s3cret\r\n"), "s3cret"), Err(MalformedHeader));
        assert_eq!(check(Some("s3cr"), "s3cret"), Err(Mismatch));
        assert_eq!(check(Some("s3cret2"), "s3cret"), Err(Mismatch));
        assert_eq!(check(Some("Bearer s3cr"), "s3cret"), Err(Mismatch));
        assert_eq!(check(Some("Basic s3cret"), "s3cret"), Err(Mismatch));
        assert_eq!(check(Some("Bearers3cret"), "s3cret"), Err(Mismatch));
    }

    #[test]
    fn finds_the_header_case_insensitively_and_once() {
        let v = Verifier::new("s3cret");
        assert_eq!(v.verify_headers([("AUTHORIZATION", "s3cret")]), Ok(()));
        assert_eq!(
            v.verify_headers([("content-type", "application/json")]),
            Err(VerifyError::MissingHeader)
        );
        assert_eq!(
            v.verify_headers([("authorization", "s3cret"), ("Authorization", "s3cret")]),
            Err(VerifyError::MalformedHeader)
        );
        assert_eq!(format!("{v:?}"), "Verifier { expected: [redacted] }");
    }
}
