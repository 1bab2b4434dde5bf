//! The project's HTTP server: the emulator, its webhook sink and the CLI's
//! `webhook listen` all run on it.
//!
//! Connections live as tasks on a small tokio runtime that the server owns
//! (callers need no runtime of their own); handlers are plain blocking
//! functions run on the runtime's blocking pool, one call per request. An idle
//! keep-alive connection therefore costs a task, never a thread, so it cannot
//! keep another request waiting. On top of hyper's HTTP/1:
//!
//! - idle keep-alive connections are closed after [`Limits::idle_timeout`], and
//!   at [`Limits::max_connections`] the longest idle one makes room for a new one;
//! - reading a body and running the handler are bounded by
//!   [`Limits::request_timeout`]: past it the request is answered 503;
//! - with [`ServerConfig::tls`] it serves HTTPS (rustls; the handshake is
//!   bounded by [`Limits::header_read_timeout`]);
//! - [`Server::shutdown`] (or drop) stops accepting, closes idle connections,
//!   wakes handlers sleeping in [`Context::sleep`] and lets requests in flight
//!   finish within [`Limits::shutdown_grace`].
//!
//! ```
//! use iikocloud_http_server::{Reply, Response, Server, ServerConfig};
//!
//! let server = Server::start(ServerConfig::loopback("example"), |rq, _ctx| {
//!     Reply::Respond(Response::with_body(200, "text/plain", format!("you asked for {}", rq.path())))
//! })?;
//! let body = ureq::get(format!("http://{}/hello", server.addr()))
//!     .call()
//!     .map_err(std::io::Error::other)?
//!     .body_mut()
//!     .read_to_string()
//!     .map_err(std::io::Error::other)?;
//! assert_eq!(body, "you asked for /hello");
//! # Ok::<(), std::io::Error>(())
//! ```

mod conn;
mod message;
pub mod prometheus;
mod tls;

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener as StdListener};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

pub use message::{BodyError, Reply, Request, Response};
pub use tls::{TlsError, TlsIdentity};

/// Handles one request; runs on a blocking thread, so it may sleep or wait.
pub type Handler = dyn Fn(Request, &Context) -> Reply + Send + Sync + 'static;

/// Resource limits of a [`Server`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Longest body read; a longer one reaches the handler as
    /// [`BodyError::TooLarge`] (default 1 MiB).
    pub max_body_bytes: usize,
    /// An open connection with no request in flight and no traffic for this
    /// long is closed (default 30 s, longer than clients keep idle
    /// connections, so the client lets go first).
    pub idle_timeout: Duration,
    /// Connections kept at most; at the cap a new connection closes the
    /// longest idle one, and when none is idle it is served without
    /// keep-alive (default 1024).
    pub max_connections: usize,
    /// Time allowed for a request's headers to arrive (default 10 s).
    pub header_read_timeout: Duration,
    /// Time allowed for reading a body and running the handler; past it the
    /// request is answered 503 and its connection closed (default 60 s).
    pub request_timeout: Duration,
    /// How long a shutdown waits for requests in flight (default 5 s).
    pub shutdown_grace: Duration,
    /// Threads serving connections (default 2).
    pub worker_threads: usize,
    /// Handlers running at once at most; more requests wait (default 512).
    pub max_handler_threads: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 1024 * 1024,
            idle_timeout: Duration::from_secs(30),
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(5),
            worker_threads: 2,
            max_handler_threads: 512,
        }
    }
}

/// Where and how a [`Server`] listens.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to bind (port 0 picks a free one).
    pub bind: SocketAddr,
    /// Names the server's threads and log lines.
    pub name: String,
    /// Resource limits.
    pub limits: Limits,
    /// Serve HTTPS with this certificate and key (default: plain HTTP).
    pub tls: Option<TlsIdentity>,
}

impl ServerConfig {
    /// `127.0.0.1` on a free port, default limits.
    pub fn loopback(name: &str) -> ServerConfig {
        ServerConfig {
            bind: SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)),
            name: name.to_string(),
            limits: Limits::default(),
            tls: None,
        }
    }

    /// Sets the address.
    pub fn bind(mut self, addr: SocketAddr) -> ServerConfig {
        self.bind = addr;
        self
    }

    /// Serves HTTPS with `identity`.
    pub fn tls(mut self, identity: TlsIdentity) -> ServerConfig {
        self.tls = Some(identity);
        self
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: Limits) -> ServerConfig {
        self.limits = limits;
        self
    }
}

/// The stop signal, readable from async tasks and from blocking handlers.
struct Stop {
    watch: watch::Sender<bool>,
    flag: Mutex<bool>,
    woken: Condvar,
}

impl Stop {
    fn trigger(&self) {
        *self.flag.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.woken.notify_all();
        self.watch.send_replace(true);
    }

    fn is_set(&self) -> bool {
        *self.flag.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What a handler may ask of the server while it runs.
pub struct Context {
    stop: Arc<Stop>,
}

impl Context {
    /// Sleeps for `d`, or less when the server starts shutting down.
    /// True when the whole time passed.
    pub fn sleep(&self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        let mut stopping = self.stop.flag.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if *stopping {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            stopping = self
                .stop
                .woken
                .wait_timeout(stopping, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// True once the server is shutting down.
    pub fn is_stopping(&self) -> bool {
        self.stop.is_set()
    }
}

/// A running server. Shuts down gracefully on drop.
pub struct Server {
    addr: SocketAddr,
    name: String,
    stop: Arc<Stop>,
    connections: Arc<conn::Registry>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds `config.bind` and starts serving with `handler`.
    ///
    /// Fails when the address cannot be bound or the runtime cannot start.
    pub fn start<F>(config: ServerConfig, handler: F) -> io::Result<Server>
    where
        F: Fn(Request, &Context) -> Reply + Send + Sync + 'static,
    {
        let listener = StdListener::bind(config.bind)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let limits = config.limits.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(limits.worker_threads.max(1))
            .max_blocking_threads(limits.max_handler_threads.max(1))
            .thread_name(format!("{}-http", config.name))
            .enable_all()
            .build()?;
        let stop = Arc::new(Stop {
            watch: watch::Sender::new(false),
            flag: Mutex::new(false),
            woken: Condvar::new(),
        });
        let connections = Arc::new(conn::Registry::new());
        let served = conn::Shared {
            limits: Arc::new(limits.clone()),
            handler: Arc::new(handler),
            stop: Arc::clone(&stop),
            registry: Arc::clone(&connections),
            tls: config
                .tls
                .as_ref()
                .map(|t| tokio_rustls::TlsAcceptor::from(Arc::clone(&t.config))),
        };
        // Converting the listener needs the runtime's context: done inside.
        let listener = {
            let _guard = runtime.enter();
            TcpListener::from_std(listener)?
        };
        let thread = std::thread::Builder::new()
            .name(format!("{}-server", config.name))
            .spawn(move || {
                runtime.block_on(accept_loop(listener, served));
                // Handlers still running past the grace period are left to
                // finish on their own; their answers have nowhere to go.
                runtime.shutdown_timeout(Duration::from_millis(100));
            })?;
        log::debug!("{} listening on {addr}", config.name);
        Ok(Server {
            addr,
            name: config.name,
            stop,
            connections,
            thread: Some(thread),
        })
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections open right now (idle ones included).
    pub fn open_connections(&self) -> usize {
        self.connections.len()
    }

    /// Stops accepting, closes idle connections and waits for requests in
    /// flight (at most [`Limits::shutdown_grace`]). Same as dropping.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        self.stop.trigger();
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                log::warn!("{}: server thread panicked", self.name);
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.name)
            .field("addr", &self.addr)
            .finish()
    }
}

async fn accept_loop(listener: TcpListener, served: conn::Shared) {
    let mut stop = served.stop.watch.subscribe();
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = stop.wait_for(|s| *s) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    connections.spawn(conn::serve(stream, peer, served.clone()));
                }
                Err(e) => {
                    // Usually out of file descriptors: back off instead of spinning.
                    log::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    // The port closes now; open connections finish what they are doing.
    drop(listener);
    let drained = tokio::time::timeout(served.limits.shutdown_grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        log::warn!(
            "{} connection(s) still busy after the shutdown grace period; closing them",
            connections.len()
        );
        connections.shutdown().await;
    }
}
