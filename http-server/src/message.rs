//! What a handler sees and answers: plain owned values, no hyper types.

use std::net::SocketAddr;

/// Why a request's body is not available to the handler.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// The body is longer than [`Limits::max_body_bytes`](crate::Limits::max_body_bytes);
    /// reading stopped there.
    #[error("request body larger than {limit} bytes")]
    TooLarge {
        /// The limit in force.
        limit: usize,
    },
    /// The body broke off or was malformed on the wire.
    #[error("cannot read the request body: {0}")]
    Broken(String),
}

/// One request, its body already read (up to the limit).
#[derive(Debug, Clone)]
pub struct Request {
    /// HTTP method, upper case as sent (`POST`).
    pub method: String,
    /// Request target: path and query (`/api/1/organizations?x=1`).
    pub target: String,
    /// Headers in the order received; values that are not UTF-8 are kept lossily.
    pub headers: Vec<(String, String)>,
    /// The body, or why it could not be read.
    pub body: Result<Vec<u8>, BodyError>,
    /// The peer's address.
    pub peer: SocketAddr,
}

impl Request {
    /// The path, without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// First value of a header, its name matched case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// An answer: status, headers and a body sent with `Content-Length`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status; a value outside 100..=999 is sent as 500.
    pub status: u16,
    /// Extra headers (`Date` and `Content-Length` are added by the server).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// An empty answer with `status`.
    pub fn empty(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// An answer with a body of the given content type.
    pub fn with_body(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response::empty(status)
            .header("Content-Type", content_type)
            .body(body)
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Replaces the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Response {
        self.body = body.into();
        self
    }
}

/// What the handler wants done with the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Send this answer.
    Respond(Response),
    /// Close the connection without answering (a fault for tests).
    Close,
}

impl From<Response> for Reply {
    fn from(r: Response) -> Reply {
        Reply::Respond(r)
    }
}
