//! One connection: hyper's HTTP/1 on a socket that records its last traffic,
//! the idle timeout and cap, and the bridge from hyper to a blocking handler.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderName, HeaderValue, CONNECTION, CONTENT_LENGTH};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::StatusCode;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use crate::{BodyError, Context, Handler, Limits, Reply, Request, Response, Stop};

/// What every connection task shares.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) limits: Arc<Limits>,
    pub(crate) handler: Arc<Handler>,
    pub(crate) stop: Arc<Stop>,
    pub(crate) registry: Arc<Registry>,
    pub(crate) tls: Option<tokio_rustls::TlsAcceptor>,
}

/// The state of one open connection, as the registry sees it.
struct Tracked {
    /// Milliseconds since the registry's epoch of the last byte in or out.
    last_traffic: AtomicU64,
    /// Requests received and not yet answered.
    in_flight: AtomicUsize,
    /// 1 + milliseconds since the epoch of the first byte of a request head
    /// not yet complete; 0 when none is arriving.
    head_started: AtomicU64,
    /// Asks the connection to close once idle (room for a new one).
    evict: Notify,
}

impl Tracked {
    /// No request in flight and none arriving.
    fn is_idle(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0
            && self.head_started.load(Ordering::Acquire) == 0
    }
}

/// The open connections, for the cap and for [`Server::open_connections`](crate::Server::open_connections).
pub(crate) struct Registry {
    epoch: Instant,
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Tracked>>>,
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry {
            epoch: Instant::now(),
            next_id: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    pub(crate) fn len(&self) -> usize {
        self.open.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Registers a new connection. At the cap, the longest idle connection is
    /// asked to close; when none is idle the new one must not be kept alive
    /// (the second value is false).
    fn admit(&self, max: usize) -> (u64, Arc<Tracked>, bool) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let tracked = Arc::new(Tracked {
            last_traffic: AtomicU64::new(self.now_ms()),
            in_flight: AtomicUsize::new(0),
            head_started: AtomicU64::new(0),
            evict: Notify::new(),
        });
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let mut keep_alive = true;
        if open.len() >= max {
            let oldest_idle = open
                .values()
                .filter(|t| t.is_idle())
                .min_by_key(|t| t.last_traffic.load(Ordering::Relaxed));
            match oldest_idle {
                // notify_one keeps the permit if the task is not waiting yet.
                Some(t) => t.evict.notify_one(),
                None => keep_alive = false,
            }
        }
        open.insert(id, Arc::clone(&tracked));
        (id, tracked, keep_alive)
    }

    fn remove(&self, id: u64) {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }
}

/// The socket, noting the time of every byte that moves.
struct Metered {
    inner: TcpStream,
    tracked: Arc<Tracked>,
    registry: Arc<Registry>,
}

impl Metered {
    fn touch(&self) -> u64 {
        let now = self.registry.now_ms();
        self.tracked.last_traffic.store(now, Ordering::Relaxed);
        now
    }
}

impl AsyncRead for Metered {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            let now = self.touch();
            // Bytes while no request is in flight begin the next head.
            if self.tracked.in_flight.load(Ordering::Acquire) == 0 {
                let _ = self.tracked.head_started.compare_exchange(
                    0,
                    now.saturating_add(1),
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                );
            }
        }
        polled
    }
}

impl AsyncWrite for Metered {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Returned to hyper to drop the connection without an answer.
#[derive(Debug, thiserror::Error)]
#[error("connection closed by the handler")]
struct CloseConnection;

/// Serves one connection until it closes.
pub(crate) async fn serve(stream: TcpStream, peer: SocketAddr, shared: Shared) {
    // Request/response traffic: Nagle would only add latency.
    let _ = stream.set_nodelay(true);
    let (id, tracked, keep_alive) = shared.registry.admit(shared.limits.max_connections);
    let metered = Metered {
        inner: stream,
        tracked: Arc::clone(&tracked),
        registry: Arc::clone(&shared.registry),
    };
    match shared.tls.clone() {
        None => drive(metered, peer, &shared, &tracked, keep_alive).await,
        Some(acceptor) => {
            // The handshake counts as a head: bounded by the header timeout,
            // so a client that connects and says nothing cannot hold a task.
            let limit = shared.limits.header_read_timeout;
            match tokio::time::timeout(limit, acceptor.accept(metered)).await {
                Ok(Ok(tls)) => drive(tls, peer, &shared, &tracked, keep_alive).await,
                Ok(Err(e)) => log::debug!("TLS handshake with {peer} failed: {e}"),
                Err(_) => log::debug!("TLS handshake with {peer} not done after {limit:?}"),
            }
        }
    }
    shared.registry.remove(id);
}

/// Serves HTTP/1 on an established stream (plain or TLS) until it closes.
async fn drive<S>(
    stream: S,
    peer: SocketAddr,
    shared: &Shared,
    tracked: &Arc<Tracked>,
    keep_alive: bool,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = TokioIo::new(stream);
    let service = {
        let (shared, tracked) = (shared.clone(), Arc::clone(tracked));
        service_fn(move |rq| answer(rq, peer, shared.clone(), Arc::clone(&tracked)))
    };
    let limits = Arc::clone(&shared.limits);
    let mut builder = http1::Builder::new();
    // hyper's header timer starts when it waits for the next head, so on a
    // keep-alive connection it would close idle connections too; the loop
    // below times only heads that have begun to arrive.
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .keep_alive(keep_alive);
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);

    let mut stop = shared.stop.watch.subscribe();
    let check_every = (limits.idle_timeout.min(limits.header_read_timeout) / 4)
        .clamp(Duration::from_millis(20), Duration::from_secs(1));
    let mut tick = tokio::time::interval(check_every);
    let mut closing = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    log::debug!("connection from {peer} ended: {e}");
                }
                break;
            }
            _ = stop.wait_for(|s| *s), if !closing => {
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
            _ = tracked.evict.notified(), if !closing => {
                if tracked.is_idle() {
                    connection.as_mut().graceful_shutdown();
                    closing = true;
                }
            }
            _ = tick.tick(), if !closing => {
                let now = shared.registry.now_ms();
                let head = tracked.head_started.load(Ordering::Acquire);
                if head != 0 && tracked.in_flight.load(Ordering::Acquire) == 0 {
                    let waited = Duration::from_millis(now.saturating_sub(head - 1));
                    if waited >= limits.header_read_timeout {
                        // A head that never completes: drop it, no answer owed.
                        log::debug!("request head from {peer} incomplete after {waited:?}; closed");
                        break;
                    }
                } else if tracked.is_idle() {
                    let quiet = now.saturating_sub(tracked.last_traffic.load(Ordering::Relaxed));
                    if Duration::from_millis(quiet) >= limits.idle_timeout {
                        connection.as_mut().graceful_shutdown();
                        closing = true;
                    }
                }
            }
        }
    }
}

/// Counts a request as in flight until dropped.
struct InFlight(Arc<Tracked>);

impl InFlight {
    fn enter(tracked: Arc<Tracked>) -> InFlight {
        tracked.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(tracked)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

async fn answer(
    rq: hyper::Request<Incoming>,
    peer: SocketAddr,
    shared: Shared,
    tracked: Arc<Tracked>,
) -> Result<hyper::Response<Full<Bytes>>, CloseConnection> {
    tracked.head_started.store(0, Ordering::Release);
    let _in_flight = InFlight::enter(tracked);
    let limit = shared.limits.request_timeout;
    match tokio::time::timeout(limit, run_handler(rq, peer, &shared)).await {
        Ok(Reply::Respond(response)) => Ok(to_hyper(response)),
        Ok(Reply::Close) => Err(CloseConnection),
        Err(_) => {
            log::warn!("request from {peer} took longer than {limit:?}; answered 503");
            let mut r = to_hyper(Response::with_body(
                503,
                "text/plain; charset=utf-8",
                format!("the request took longer than {} s", limit.as_secs_f64()),
            ));
            r.headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
            Ok(r)
        }
    }
}

async fn run_handler(rq: hyper::Request<Incoming>, peer: SocketAddr, shared: &Shared) -> Reply {
    let (parts, body) = rq.into_parts();
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let max = shared.limits.max_body_bytes;
    let body = match declared {
        // Too long to be worth reading: answer now, the connection closes.
        Some(n) if n > (max as u64).saturating_add(DRAIN_PAST_LIMIT) => {
            Err(BodyError::TooLarge { limit: max })
        }
        _ => read_body(body, max).await,
    };
    let request = Request {
        method: parts.method.as_str().to_string(),
        target: parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_else(|| "/".to_string()),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
        peer,
    };
    let (handler, stop) = (Arc::clone(&shared.handler), Arc::clone(&shared.stop));
    let ran = tokio::task::spawn_blocking(move || {
        let ctx = Context { stop };
        catch_unwind(AssertUnwindSafe(|| handler(request, &ctx)))
    })
    .await;
    match ran {
        Ok(Ok(reply)) => reply,
        // A panicking handler answers 500, as a crashing service would.
        _ => {
            log::warn!("handler panicked serving {peer}");
            Reply::Respond(Response::with_body(
                500,
                "text/plain; charset=utf-8",
                "internal server error",
            ))
        }
    }
}

/// How much of a body past the limit is read and thrown away, so that a
/// client still sending it reads the 413 instead of a broken pipe.
const DRAIN_PAST_LIMIT: u64 = 16 * 1024 * 1024;

async fn read_body(mut body: Incoming, max: usize) -> Result<Vec<u8>, BodyError> {
    let mut buf = Vec::new();
    let mut seen: u64 = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| BodyError::Broken(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        seen = seen.saturating_add(data.len() as u64);
        if seen > max as u64 {
            // Nothing more is kept; stop reading at the drain bound.
            buf = Vec::new();
            if seen > (max as u64).saturating_add(DRAIN_PAST_LIMIT) {
                break;
            }
        } else {
            buf.extend_from_slice(&data);
        }
    }
    if seen > max as u64 {
        return Err(BodyError::TooLarge { limit: max });
    }
    Ok(buf)
}

fn to_hyper(r: Response) -> hyper::Response<Full<Bytes>> {
    let mut out = hyper::Response::new(Full::new(Bytes::from(r.body)));
    *out.status_mut() = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (name, value) in r.headers {
        match (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            (Ok(n), Ok(v)) => {
                out.headers_mut().append(n, v);
            }
            _ => log::warn!("header {name:?} is not valid HTTP; not sent"),
        }
    }
    out
}
