//! A minimal webhook receiver for tests: an HTTP server on loopback that hands
//! each request to a closure and answers the status it returns.
//!
//! It exists so that tests of webhook consumers (the SDK's receive/verify/parse
//! and de-duplication, or any other) need no HTTP server dependency of their
//! own: the closure is the receiver under test, the sink is the plumbing.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

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
    server: Arc<tiny_http::Server>,
    addr: SocketAddr,
    state: Arc<SinkState>,
    thread: Option<JoinHandle<()>>,
}

impl WebhookSink {
    /// Starts a sink whose `handler` decides the status of each request.
    pub fn start<F>(handler: F) -> io::Result<WebhookSink>
    where
        F: Fn(&SinkRequest) -> u16 + Send + Sync + 'static,
    {
        let server = tiny_http::Server::http((Ipv4Addr::LOCALHOST, 0)).map_err(io::Error::other)?;
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| io::Error::other("sink has no IP address"))?;
        let server = Arc::new(server);
        let state = Arc::new(SinkState {
            log: Mutex::new(Vec::new()),
            arrived: Condvar::new(),
        });
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let (server, state) = (Arc::clone(&server), Arc::clone(&state));
            thread::Builder::new()
                .name("emu-sink".into())
                .spawn(move || {
                    while let Ok(rq) = server.recv() {
                        let (state, handler) = (Arc::clone(&state), Arc::clone(&handler));
                        let _ = thread::Builder::new()
                            .name("emu-sink-request".into())
                            .spawn(move || serve(rq, &state, &*handler));
                    }
                })?
        };
        Ok(WebhookSink {
            server,
            addr,
            state,
            thread: Some(thread),
        })
    }

    /// A sink that answers every request with `status`.
    pub fn answering(status: u16) -> io::Result<WebhookSink> {
        WebhookSink::start(move |_| status)
    }

    /// The URL to put in `webHooksUri`: `http://127.0.0.1:PORT/webhook`.
    pub fn url(&self) -> String {
        format!("http://{}/webhook", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
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

fn serve(mut rq: tiny_http::Request, state: &SinkState, handler: &Handler) {
    let mut body = Vec::new();
    let _ = rq.as_reader().read_to_end(&mut body);
    let request = SinkRequest {
        method: rq.method().as_str().to_string(),
        url: rq.url().to_string(),
        headers: rq
            .headers()
            .iter()
            .map(|h| {
                (
                    h.field.as_str().as_str().to_string(),
                    h.value.as_str().to_string(),
                )
            })
            .collect(),
        body,
        at: SystemTime::now(),
    };
    lock(&state.log).push(request.clone());
    state.arrived.notify_all();
    // A panicking handler answers 500, like a crashing receiver would.
    let status =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(&request))).unwrap_or(500);
    let _ = rq.respond(tiny_http::Response::empty(status));
}

impl Drop for WebhookSink {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for WebhookSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookSink")
            .field("addr", &self.addr)
            .finish()
    }
}
