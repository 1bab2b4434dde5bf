//! TCP front door: relays every client connection to the internal tiny_http
//! server byte for byte.
//!
//! tiny_http offers no way to close a connection without writing a response
//! (dropping a `Request` writes a 500), so the `connection_reset` fault needs a
//! socket we own. The front keeps one for each client connection, keyed by the
//! address tiny_http sees as the peer, and can close it on request. HTTP parsing
//! stays entirely in tiny_http.

use std::collections::HashMap;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::util::lock;

pub(crate) struct Front {
    addr: SocketAddr,
    backend: SocketAddr,
    stopping: AtomicBool,
    /// Backend-side local address (= tiny_http's `remote_addr`) -> (client socket, backend socket).
    conns: Mutex<HashMap<SocketAddr, (TcpStream, TcpStream)>>,
}

impl Front {
    /// Binds `bind` and starts relaying to `backend`.
    pub(crate) fn start(
        bind: SocketAddr,
        backend: SocketAddr,
    ) -> io::Result<(Arc<Front>, JoinHandle<()>)> {
        let listener = TcpListener::bind(bind)?;
        let front = Arc::new(Front {
            addr: listener.local_addr()?,
            backend,
            stopping: AtomicBool::new(false),
            conns: Mutex::new(HashMap::new()),
        });
        let f = Arc::clone(&front);
        let handle = thread::Builder::new()
            .name("emu-accept".into())
            .spawn(move || f.accept_loop(listener))?;
        Ok((front, handle))
    }

    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    fn accept_loop(self: Arc<Self>, listener: TcpListener) {
        for conn in listener.incoming() {
            if self.stopping.load(Ordering::SeqCst) {
                break;
            }
            match conn {
                Ok(client) => {
                    let f = Arc::clone(&self);
                    let spawned = thread::Builder::new()
                        .name("emu-conn".into())
                        .spawn(move || f.relay(client));
                    if let Err(e) = spawned {
                        log::warn!("cannot spawn connection thread: {e}");
                    }
                }
                Err(e) => {
                    // Usually out of file descriptors: back off instead of spinning.
                    log::warn!("accept failed: {e}");
                    thread::sleep(Duration::from_millis(20));
                }
            }
        }
    }

    fn relay(self: Arc<Self>, client: TcpStream) {
        let backend = match TcpStream::connect(self.backend) {
            Ok(b) => b,
            Err(e) => {
                log::warn!("cannot reach the internal server: {e}");
                return;
            }
        };
        // Both hops are request/response: avoid Nagle stalls.
        let _ = client.set_nodelay(true);
        let _ = backend.set_nodelay(true);
        let Ok(key) = backend.local_addr() else {
            return;
        };
        let clones = (|| {
            Some((
                client.try_clone().ok()?,
                backend.try_clone().ok()?,
                client.try_clone().ok()?,
                backend.try_clone().ok()?,
            ))
        })();
        let Some((client_reg, backend_reg, mut client_in, mut backend_out)) = clones else {
            return;
        };
        // Registered before any byte is relayed, so a handler can always find it.
        lock(&self.conns).insert(key, (client_reg, backend_reg));
        if self.stopping.load(Ordering::SeqCst) {
            self.close(key);
            return;
        }
        let upstream = thread::Builder::new()
            .name("emu-conn-up".into())
            .spawn(move || {
                let _ = io::copy(&mut client_in, &mut backend_out);
                let _ = backend_out.shutdown(Shutdown::Write);
            });
        let (mut backend_in, mut client_out) = (backend, client);
        let _ = io::copy(&mut backend_in, &mut client_out);
        let _ = client_out.shutdown(Shutdown::Write);
        if let Ok(up) = upstream {
            let _ = up.join();
        }
        lock(&self.conns).remove(&key);
    }

    /// Closes the client connection whose internal peer address is `peer`
    /// without sending anything more. Returns false when it is unknown.
    pub(crate) fn reset(&self, peer: SocketAddr) -> bool {
        self.close(peer)
    }

    fn close(&self, key: SocketAddr) -> bool {
        let entry = lock(&self.conns).remove(&key);
        match entry {
            Some((client, backend)) => {
                let _ = client.shutdown(Shutdown::Both);
                let _ = backend.shutdown(Shutdown::Both);
                true
            }
            None => false,
        }
    }

    /// Stops accepting and closes every open connection.
    pub(crate) fn shutdown(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the accept loop: connect to ourselves (through loopback when
        // bound to an unspecified address).
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        let keys: Vec<SocketAddr> = lock(&self.conns).keys().copied().collect();
        for k in keys {
            self.close(k);
        }
    }
}
