//! What a handler answers ([`Reply`]) and what it reads of a request (body,
//! headers, `Authorization`): shared by the API, the control endpoints and
//! the server that dispatches to them.

use iikocloud_http_server::{self as http, BodyError, Request, Response};
use serde_json::{json, Value};

/// Largest request body read; bigger bodies get 413.
pub(crate) const MAX_BODY: usize = 1024 * 1024;

/// What to send back.
pub(crate) enum Reply {
    /// A JSON document.
    Json {
        status: u16,
        body: Value,
        retry_after: Option<u64>,
    },
    /// No body and no `Content-Type`: a success the document declares
    /// without content.
    Empty { status: u16 },
    /// Any other body.
    Raw {
        status: u16,
        content_type: &'static str,
        body: String,
    },
    /// Close the connection without answering.
    Reset,
}

impl Reply {
    pub(crate) fn json(status: u16, body: Value) -> Reply {
        Reply::Json {
            status,
            body,
            retry_after: None,
        }
    }

    /// A success body: `correlationId` first, then the given fields.
    pub(crate) fn ok(cid: &str, fields: Value) -> Reply {
        let mut body = serde_json::Map::new();
        body.insert("correlationId".into(), json!(cid));
        if let Value::Object(f) = fields {
            body.extend(f);
        }
        Reply::json(200, Value::Object(body))
    }

    /// The service's error body `{correlationId, errorDescription, error}`.
    pub(crate) fn error(
        status: u16,
        code: &str,
        description: impl Into<String>,
        cid: &str,
    ) -> Reply {
        Reply::json(
            status,
            json!({"correlationId": cid, "errorDescription": description.into(), "error": code}),
        )
    }

    /// 400 `BAD_REQUEST`.
    pub(crate) fn bad_request(description: impl Into<String>, cid: &str) -> Reply {
        Reply::error(400, "BAD_REQUEST", description, cid)
    }

    pub(crate) fn into_http(self) -> http::Reply {
        let response = match self {
            Reply::Json {
                status,
                body,
                retry_after,
            } => {
                let r = Response::with_body(
                    status,
                    "application/json; charset=utf-8",
                    body.to_string(),
                );
                match retry_after {
                    Some(secs) => r.header("Retry-After", secs.to_string()),
                    None => r,
                }
            }
            Reply::Empty { status } => Response::empty(status),
            Reply::Raw {
                status,
                content_type,
                body,
            } => Response::with_body(status, content_type, body),
            Reply::Reset => return http::Reply::Close,
        };
        http::Reply::Respond(response)
    }

    pub(crate) fn status(&self) -> u16 {
        match self {
            Reply::Json { status, .. } | Reply::Empty { status } | Reply::Raw { status, .. } => {
                *status
            }
            Reply::Reset => 0,
        }
    }

    pub(crate) fn error_code(&self) -> Option<String> {
        match self {
            Reply::Json { body, .. } => body
                .get("error")
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        }
    }
}

/// First value of a request header.
pub(crate) fn header(rq: &Request, name: &str) -> Option<String> {
    rq.header(name).map(str::to_string)
}

/// The body, at most [`MAX_BODY`] bytes (the server stops reading there).
pub(crate) fn read_body(rq: &Request) -> Result<&[u8], (u16, String)> {
    match &rq.body {
        Ok(b) => Ok(b),
        Err(e @ BodyError::TooLarge { .. }) => Err((413, e.to_string())),
        Err(e) => Err((400, e.to_string())),
    }
}

/// The `Authorization` header as the emulator sees it.
pub(crate) enum Auth {
    Missing,
    Malformed,
    Bearer(String),
}

pub(crate) fn parse_auth(value: Option<&str>) -> Auth {
    let Some(value) = value else {
        return Auth::Missing;
    };
    let value = value.trim();
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("Bearer") => {
            let token = token.trim();
            if token.is_empty() || token.contains(char::is_whitespace) {
                Auth::Malformed
            } else {
                Auth::Bearer(token.to_string())
            }
        }
        _ => Auth::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_header_parsing() {
        assert!(matches!(parse_auth(None), Auth::Missing));
        assert!(matches!(parse_auth(Some("Bearer abc")), Auth::Bearer(t) if t == "abc"));
        assert!(matches!(parse_auth(Some("bearer  abc ")), Auth::Bearer(t) if t == "abc"));
        assert!(matches!(parse_auth(Some("abc")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("Bearer")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("Bearer ")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("Basic abc")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("Bearer a b")), Auth::Malformed));
        assert!(matches!(parse_auth(Some("")), Auth::Malformed));
    }
}
