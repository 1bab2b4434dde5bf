//! Answers of the service turned into values or errors.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{ApiError, ApiErrorKind, Error, Result};

/// An HTTP answer, any status.
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) body: Vec<u8>,
    pub(super) retry_after: Option<Duration>,
    pub(super) content_type: Option<String>,
}

/// What an error body says, in any of the shapes the service uses.
#[derive(Default)]
pub(super) struct ErrorFields {
    pub(super) correlation_id: Option<String>,
    description: Option<String>,
    code: Option<String>,
    details: Option<String>,
}

pub(super) fn error_fields(body: &[u8]) -> ErrorFields {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) else {
        return ErrorFields::default();
    };
    let text = |key: &str| match map.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(Value::String(_)) => None,
        Some(other) => Some(other.to_string()),
    };
    ErrorFields {
        correlation_id: text("correlationId"),
        description: text("errorDescription").or_else(|| text("message")),
        code: text("error").or_else(|| text("code")),
        details: text("details"),
    }
}

pub(super) fn api_error(path: &str, answer: &Answer) -> Error {
    let fields = error_fields(&answer.body);
    let kind = ApiErrorKind::from_status(answer.status);
    Error::Api(Box::new(ApiError {
        status: answer.status,
        kind,
        path: path.to_owned(),
        error_description: fields.description,
        error_code: fields.code,
        details: fields.details,
        correlation_id: fields.correlation_id,
        retry_after: answer.retry_after,
        body: String::from_utf8_lossy(&answer.body).into_owned(),
    }))
}

/// Whether a success answer came without a body. The document declares some
/// successes with no content (`deliveries/update_tracking_link`); such an
/// answer reads as JSON `null`.
pub(super) fn is_empty(answer: &Answer) -> bool {
    answer.body.iter().all(u8::is_ascii_whitespace)
}

pub(super) fn decode<T: DeserializeOwned>(path: &str, answer: &Answer) -> Result<T> {
    // Only the parse is generic: the error is built once for every type
    // (this runs for each of the generated answers' types).
    match serde_json::from_slice(&answer.body) {
        Ok(value) => Ok(value),
        // Only where `null` fits: an answer expected to hold fields still
        // fails for want of a body, and says so.
        Err(e) if is_empty(answer) => {
            serde_json::from_slice(b"null").map_err(|_| decode_error(path, answer, &e))
        }
        Err(e) => Err(decode_error(path, answer, &e)),
    }
}

#[cold]
#[inline(never)]
fn decode_error(path: &str, answer: &Answer, e: &serde_json::Error) -> Error {
    // serde quotes offending values; in an answer they may be tokens.
    let mut message = crate::error::without_quoted_values(&e.to_string());
    let not_json = answer
        .content_type
        .as_deref()
        .is_some_and(|c| !c.to_ascii_lowercase().contains("json"));
    if not_json {
        message.push_str(&format!(
            " (Content-Type was {:?}, not JSON)",
            answer.content_type.as_deref().unwrap_or_default()
        ));
    }
    Error::Decode {
        path: path.to_owned(),
        status: answer.status,
        message,
        correlation_id: error_fields(&answer.body).correlation_id,
        body: String::from_utf8_lossy(&answer.body).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_in_every_shape() {
        let f = error_fields(br#"{"correlationId":"c","errorDescription":"d","error":"E"}"#);
        assert_eq!(
            (
                f.correlation_id.as_deref(),
                f.description.as_deref(),
                f.code.as_deref()
            ),
            (Some("c"), Some("d"), Some("E"))
        );
        let f = error_fields(br#"{"message":"m","details":null}"#);
        assert_eq!(f.description.as_deref(), Some("m"));
        assert!(f.details.is_none());
        let f = error_fields(br#"{"message":"m","details":"name: required"}"#);
        assert_eq!(f.details.as_deref(), Some("name: required"));
        let f = error_fields(br#"{"message":"m","details":{"field":"name"}}"#);
        assert_eq!(f.details.as_deref(), Some(r#"{"field":"name"}"#));
        let f = error_fields(b"<html>502 Bad Gateway</html>");
        assert!(f.description.is_none());
    }

    #[test]
    fn no_body_reads_as_null_where_null_fits() {
        let answer = |body: &[u8]| Answer {
            status: 200,
            body: body.to_vec(),
            retry_after: None,
            content_type: None,
        };
        for empty in [&b""[..], b" \r\n"] {
            let v: Value = decode("/p", &answer(empty)).expect("no body is null");
            assert_eq!(v, Value::Null);
            let o: Option<Vec<u8>> = decode("/p", &answer(empty)).expect("none");
            assert_eq!(o, None);
            // An answer that must hold something keeps the honest error.
            let e = decode::<Vec<u8>>("/p", &answer(empty)).unwrap_err();
            assert!(e.to_string().contains("EOF"), "{e}");
        }
        let e = decode::<Value>("/p", &answer(b"{")).unwrap_err();
        assert!(matches!(e, Error::Decode { status: 200, .. }), "{e:?}");
    }
}
