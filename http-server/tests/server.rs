//! The server over real loopback sockets: limits, faults and shutdown.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use iikocloud_http_server::{BodyError, Limits, Reply, Response, Server, ServerConfig};

fn config(limits: Limits) -> ServerConfig {
    ServerConfig::loopback("test").limits(limits)
}

fn ok(text: &str) -> Reply {
    Reply::Respond(Response::with_body(200, "text/plain", text))
}

/// Sends one request on `s` and reads one answer (Content-Length framed).
/// `None` when the server closed the connection without answering.
fn exchange(s: &mut TcpStream, path: &str, body: &str) -> Option<(u16, String)> {
    let addr = s.peer_addr().ok()?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    read_answer(s)
}

fn read_answer(s: &mut TcpStream) -> Option<(u16, String)> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).ok()?;
    Some((status, String::from_utf8_lossy(&body).into_owned()))
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// True when the server closed `s` (read gives EOF or a reset).
fn closed_by_server(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 1];
    matches!(s.read(&mut b), Ok(0) | Err(_))
}

fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        thread::sleep(Duration::from_millis(10));
    }
    cond()
}

#[test]
fn keep_alive_connection_serves_several_requests() {
    let server = Server::start(config(Limits::default()), |rq, _| ok(rq.path())).unwrap();
    let mut s = connect(server.addr());
    for path in ["/a", "/b", "/c"] {
        assert_eq!(exchange(&mut s, path, ""), Some((200, path.to_string())));
    }
    assert_eq!(server.open_connections(), 1);
}

#[test]
fn idle_connections_are_closed_after_the_idle_timeout() {
    let limits = Limits {
        idle_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let server = Server::start(config(limits), |_, _| ok("")).unwrap();
    let mut conns: Vec<TcpStream> = (0..5).map(|_| connect(server.addr())).collect();
    for s in &mut conns {
        assert_eq!(exchange(s, "/", "").map(|a| a.0), Some(200));
    }
    assert_eq!(server.open_connections(), 5);
    assert!(wait_until(Duration::from_secs(3), || server
        .open_connections()
        == 0));
    for s in &mut conns {
        assert!(closed_by_server(s));
    }
}

#[test]
fn a_busy_connection_is_not_closed_as_idle() {
    let limits = Limits {
        idle_timeout: Duration::from_millis(200),
        ..Limits::default()
    };
    let server = Server::start(config(limits), |_, ctx| {
        ctx.sleep(Duration::from_millis(800));
        ok("slow")
    })
    .unwrap();
    let mut s = connect(server.addr());
    assert_eq!(exchange(&mut s, "/", ""), Some((200, "slow".into())));
}

#[test]
fn at_the_cap_the_longest_idle_connection_makes_room() {
    let limits = Limits {
        max_connections: 3,
        ..Limits::default()
    };
    let server = Server::start(config(limits), |_, _| ok("")).unwrap();
    let mut idle: Vec<TcpStream> = (0..3).map(|_| connect(server.addr())).collect();
    for s in &mut idle {
        assert_eq!(exchange(s, "/", "").map(|a| a.0), Some(200));
        thread::sleep(Duration::from_millis(20)); // distinct last-traffic times
    }
    let mut fresh = connect(server.addr());
    assert_eq!(exchange(&mut fresh, "/", "").map(|a| a.0), Some(200));
    assert!(closed_by_server(&mut idle[0]), "the oldest idle one goes");
    // The others are still usable.
    assert_eq!(exchange(&mut idle[2], "/", "").map(|a| a.0), Some(200));
    assert!(wait_until(Duration::from_secs(2), || server
        .open_connections()
        <= 3));
}

#[test]
fn at_the_cap_with_none_idle_a_new_connection_is_served_without_keep_alive() {
    let limits = Limits {
        max_connections: 2,
        ..Limits::default()
    };
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Arc::new(std::sync::Mutex::new(release_rx));
    let server = Server::start(config(limits), move |rq, _| {
        if rq.path() == "/hold" {
            let _ = release_rx
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_secs(5));
        }
        ok(rq.path())
    })
    .unwrap();
    let addr = server.addr();
    let holders: Vec<_> = (0..2)
        .map(|_| {
            thread::spawn(move || {
                let mut s = connect(addr);
                exchange(&mut s, "/hold", "")
            })
        })
        .collect();
    assert!(wait_until(Duration::from_secs(3), || server
        .open_connections()
        == 2));
    thread::sleep(Duration::from_millis(100)); // both requests in flight
    let mut fresh = connect(addr);
    assert_eq!(exchange(&mut fresh, "/x", ""), Some((200, "/x".into())));
    assert!(closed_by_server(&mut fresh), "served once, then closed");
    for _ in 0..2 {
        release_tx.send(()).unwrap();
    }
    for h in holders {
        assert_eq!(h.join().unwrap(), Some((200, "/hold".into())));
    }
}

#[test]
fn a_handler_slower_than_the_request_timeout_is_answered_503() {
    let limits = Limits {
        request_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let server = Server::start(config(limits), |_, _| {
        thread::sleep(Duration::from_millis(1500));
        ok("late")
    })
    .unwrap();
    let mut s = connect(server.addr());
    let t = Instant::now();
    let (status, body) = exchange(&mut s, "/", "").expect("an answer");
    assert_eq!(status, 503);
    assert!(body.contains("longer than"), "{body}");
    assert!(
        t.elapsed() < Duration::from_millis(1200),
        "{:?}",
        t.elapsed()
    );
    assert!(closed_by_server(&mut s));
}

#[test]
fn headers_that_never_finish_are_cut_off() {
    let limits = Limits {
        header_read_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let server = Server::start(config(limits), |_, _| ok("")).unwrap();
    let mut s = connect(server.addr());
    s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\n").unwrap();
    let t = Instant::now();
    assert!(closed_by_server(&mut s));
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

#[test]
fn the_header_timeout_does_not_close_idle_keep_alive_connections() {
    // hyper's own header timer would: it starts when the next head is awaited.
    let limits = Limits {
        header_read_timeout: Duration::from_millis(200),
        idle_timeout: Duration::from_secs(10),
        ..Limits::default()
    };
    let server = Server::start(config(limits), |_, _| ok("again")).unwrap();
    let mut s = connect(server.addr());
    assert_eq!(exchange(&mut s, "/", "").map(|a| a.0), Some(200));
    thread::sleep(Duration::from_millis(800));
    assert_eq!(exchange(&mut s, "/", ""), Some((200, "again".into())));
    // A head begun and never finished on the same connection is still cut off.
    s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\n").unwrap();
    let t = Instant::now();
    assert!(closed_by_server(&mut s));
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

#[test]
fn close_reply_drops_the_connection_without_an_answer() {
    let server = Server::start(config(Limits::default()), |rq, _| {
        if rq.path() == "/reset" {
            Reply::Close
        } else {
            ok("fine")
        }
    })
    .unwrap();
    let mut s = connect(server.addr());
    assert_eq!(exchange(&mut s, "/reset", ""), None);
    let mut s = connect(server.addr());
    assert_eq!(exchange(&mut s, "/other", ""), Some((200, "fine".into())));
}

#[test]
fn bodies_reach_the_handler_up_to_the_limit() {
    let limits = Limits {
        max_body_bytes: 10,
        ..Limits::default()
    };
    let server = Server::start(config(limits), |rq, _| match rq.body {
        Ok(b) => ok(&format!("{} bytes", b.len())),
        Err(BodyError::TooLarge { limit }) => Reply::Respond(Response::with_body(
            413,
            "text/plain",
            format!("over {limit}"),
        )),
        Err(e) => Reply::Respond(Response::with_body(400, "text/plain", e.to_string())),
    })
    .unwrap();
    let mut s = connect(server.addr());
    assert_eq!(
        exchange(&mut s, "/", "0123456789"),
        Some((200, "10 bytes".into()))
    );
    let mut s = connect(server.addr());
    assert_eq!(
        exchange(&mut s, "/", "0123456789x"),
        Some((413, "over 10".into()))
    );
    // Chunked, no Content-Length: the limit applies while reading.
    let mut s = connect(server.addr());
    s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n")
        .unwrap();
    assert_eq!(read_answer(&mut s), Some((413, "over 10".into())));
}

#[test]
fn a_panicking_handler_answers_500_and_the_server_goes_on() {
    let server = Server::start(config(Limits::default()), |rq, _| {
        if rq.path() == "/boom" {
            panic!("handler failure for the test");
        }
        ok("alive")
    })
    .unwrap();
    let mut s = connect(server.addr());
    assert_eq!(exchange(&mut s, "/boom", "").map(|a| a.0), Some(500));
    let mut s = connect(server.addr());
    assert_eq!(exchange(&mut s, "/", ""), Some((200, "alive".into())));
}

#[test]
fn shutdown_answers_requests_in_flight_then_closes_the_port() {
    let started = Arc::new(AtomicUsize::new(0));
    let server = {
        let started = Arc::clone(&started);
        Server::start(config(Limits::default()), move |_, _| {
            started.fetch_add(1, Ordering::SeqCst);
            thread::sleep(Duration::from_millis(400));
            ok("finished")
        })
        .unwrap()
    };
    let addr = server.addr();
    let mut idle = connect(addr);
    // An idle keep-alive connection must not hold the shutdown up.
    let _ = TcpStream::connect(addr).unwrap();
    let busy = thread::spawn(move || {
        let mut s = connect(addr);
        exchange(&mut s, "/", "")
    });
    assert!(wait_until(Duration::from_secs(3), || started
        .load(Ordering::SeqCst)
        == 1));
    let t = Instant::now();
    server.shutdown();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(busy.join().unwrap(), Some((200, "finished".into())));
    assert!(closed_by_server(&mut idle));
    assert!(TcpStream::connect(addr).is_err(), "the port is closed");
}

#[test]
fn shutdown_wakes_handlers_sleeping_in_the_context() {
    let server = Server::start(config(Limits::default()), |_, ctx| {
        let slept = ctx.sleep(Duration::from_secs(30));
        ok(if slept { "slept" } else { "woken" })
    })
    .unwrap();
    let addr = server.addr();
    let waiting = thread::spawn(move || {
        let mut s = connect(addr);
        exchange(&mut s, "/", "")
    });
    assert!(wait_until(Duration::from_secs(3), || server
        .open_connections()
        == 1));
    thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    drop(server);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(waiting.join().unwrap(), Some((200, "woken".into())));
}

#[test]
fn a_handler_stuck_past_the_grace_period_does_not_block_shutdown() {
    let limits = Limits {
        shutdown_grace: Duration::from_millis(200),
        ..Limits::default()
    };
    let server = Server::start(config(limits), |_, _| {
        thread::sleep(Duration::from_secs(3));
        ok("too late")
    })
    .unwrap();
    let addr = server.addr();
    let stuck = thread::spawn(move || {
        let mut s = connect(addr);
        exchange(&mut s, "/", "")
    });
    assert!(wait_until(Duration::from_secs(3), || server
        .open_connections()
        == 1));
    thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    drop(server);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(stuck.join().unwrap(), None, "closed without an answer");
}

#[test]
fn binding_a_taken_port_fails_at_start() {
    let first = Server::start(config(Limits::default()), |_, _| ok("")).unwrap();
    let err = Server::start(
        ServerConfig::loopback("second").bind(first.addr()),
        |_, _| ok(""),
    )
    .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
}

#[test]
fn many_connections_at_once_are_all_served_concurrently() {
    let server = Server::start(config(Limits::default()), |_, ctx| {
        ctx.sleep(Duration::from_millis(300));
        ok("")
    })
    .unwrap();
    let addr = server.addr();
    // 64 idle keep-alive connections first.
    let mut idle: Vec<TcpStream> = (0..64).map(|_| connect(addr)).collect();
    for s in &mut idle {
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    }
    for s in &mut idle {
        assert_eq!(read_answer(s).map(|a| a.0), Some(200));
    }
    let t = Instant::now();
    let burst: Vec<_> = (0..64)
        .map(|_| {
            thread::spawn(move || {
                let mut s = connect(addr);
                exchange(&mut s, "/", "").map(|a| a.0)
            })
        })
        .collect();
    for b in burst {
        assert_eq!(b.join().unwrap(), Some(200));
    }
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
}
