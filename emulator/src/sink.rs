//! A minimal webhook receiver for tests: an HTTP server on loopback that hands
//! each request to a closure and answers the status it returns.
//!
//! It exists so that tests of webhook consumers (the SDK's receive/verify/parse
//! and de-duplication, or any other) need no HTTP server dependency of their
//! own: the closure is the receiver under test, the sink is the plumbing.

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use iikocloud_http_server::{Limits, Reply, Response, Server, ServerConfig};

use crate::util::lock;

/// One request received by a [`WebhookSink`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkRequest {
    /// HTTP method.
    pub method: String,
    /// Request target (path and query).
    pub url: String,
    /// Headers as received, in order.
    pub headers: Vec<(String, String)>,
    /// Raw body.
    pub body: Vec<u8>,
    /// When the request arrived.
    pub at: SystemTime,
}

impl SinkRequest {
    /// First value of a header (name matched case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy UTF-8).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

type Handler = dyn Fn(&SinkRequest) -> u16 + Send + Sync;

struct SinkState {
    log: Mutex<Vec<SinkRequest>>,
    arrived: Condvar,
}

/// An HTTP server on `127.0.0.1` that records every request and answers the
/// status returned by its handler (with an empty body). Each request is
/// handled on its own thread, so a slow handler does not hold up the next.
/// Stops on drop.
pub struct WebhookSink {
    server: Server,
    state: Arc<SinkState>,
}

impl WebhookSink {
    /// Starts a sink whose `handler` decides the status of each request.
    pub fn start<F>(handler: F) -> io::Result<WebhookSink>
    where
        F: Fn(&SinkRequest) -> u16 + Send + Sync + 'static,
    {
        let state = Arc::new(SinkState {
            log: Mutex::new(Vec::new()),
            arrived: Condvar::new(),
        });
        let handler: Arc<Handler> = Arc::new(handler);
        let limits = Limits {
            // Webhook bodies may be large; the SDK's parser allows 16 MiB.
            max_body_bytes: 64 * 1024 * 1024,
            // Tests stop sinks with slow handlers; do not wait long for them.
            shutdown_grace: Duration::from_secs(1),
            ..Limits::default()
        };
        let server = {
            let state = Arc::clone(&state);
            Server::start(
                ServerConfig::loopback("emu-sink").limits(limits),
                move |rq, _| serve(rq, &state, &*handler),
            )?
        };
        Ok(WebhookSink { server, state })
    }

    /// A sink that answers every request with `status`.
    pub fn answering(status: u16) -> io::Result<WebhookSink> {
        WebhookSink::start(move |_| status)
    }

    /// The URL to put in `webHooksUri`: `http://127.0.0.1:PORT/webhook`.
    pub fn url(&self) -> String {
        format!("http://{}/webhook", self.server.addr())
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Requests received so far (recorded before the handler runs).
    pub fn requests(&self) -> Vec<SinkRequest> {
        lock(&self.state.log).clone()
    }

    /// Waits until at least `n` requests have arrived. False on timeout.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut log = lock(&self.state.log);
        while log.len() < n {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            log = self
                .state
                .arrived
                .wait_timeout(log, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        true
    }

    /// Stops the sink (same as dropping it).
    pub fn stop(self) {
        drop(self);
    }
}

fn serve(rq: iikocloud_http_server::Request, state: &SinkState, handler: &Handler) -> Reply {
    let request = SinkRequest {
        method: rq.method,
        url: rq.target,
        headers: rq.headers,
        // A body over 64 MiB or broken off is recorded as empty.
        body: rq.body.unwrap_or_default(),
        at: SystemTime::now(),
    };
    lock(&state.log).push(request.clone());
    state.arrived.notify_all();
    // A panicking handler answers 500, like a crashing receiver would.
    let status =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(&request))).unwrap_or(500);
    Reply::Respond(Response::empty(status))
}

impl std::fmt::Debug for WebhookSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookSink")
            .field("addr", &self.server.addr())
            .finish()
    }
}
