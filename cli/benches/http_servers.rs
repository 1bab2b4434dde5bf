//! Requests per second and latency of the project's HTTP servers: the
//! emulator (an authorized `POST /api/1/organizations`) and `iikocloud
//! webhook listen` (an authentic webhook body), at 1, 16 and 64 concurrent
//! keep-alive connections. Prints a Markdown table.
//!
//!     cargo bench -p iikocloud-cli --bench http_servers
//!     BENCH_SECONDS=5 cargo bench -p iikocloud-cli --bench http_servers
//!
//! The load comes from plain threads over raw sockets (one per connection,
//! each sending its next request as soon as the answer arrives), so it needs
//! nothing but the standard library and measures the servers alone.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

mod support;

use support::read_answer;

use iikocloud_emulator::{Emulator, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET};

const CONNECTIONS: [usize; 3] = [1, 16, 64];
const HOOK_TOKEN: &str = "bench-hook-token";
const WEBHOOK_BODY: &str = include_str!("../../tests/vectors/payloads/delivery_order_update.json");

fn seconds() -> Duration {
    let s = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(3.0);
    Duration::from_secs_f64(s.clamp(0.5, 600.0))
}

/// One request, written out once and sent over and over.
struct Target {
    addr: SocketAddr,
    request: Vec<u8>,
}

impl Target {
    fn post(addr: SocketAddr, path: &str, authorization: &str, body: &str) -> Target {
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Authorization: {authorization}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes();
        Target { addr, request }
    }
}

struct Figures {
    requests: usize,
    errors: usize,
    per_second: f64,
    p50: Duration,
    p99: Duration,
    max: Duration,
}

fn load(target: &Arc<Target>, connections: usize, time: Duration) -> Figures {
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..connections)
        .map(|_| {
            let (target, stop) = (Arc::clone(target), Arc::clone(&stop));
            thread::spawn(move || {
                let mut latencies = Vec::new();
                let mut errors = 0usize;
                let mut conn: Option<(TcpStream, BufReader<TcpStream>)> = None;
                while !stop.load(Ordering::Relaxed) {
                    if conn.is_none() {
                        let Ok(s) = TcpStream::connect(target.addr) else {
                            errors += 1;
                            thread::sleep(Duration::from_millis(10));
                            continue;
                        };
                        let _ = s.set_nodelay(true);
                        let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
                        let reader = BufReader::new(s.try_clone().expect("clone socket"));
                        conn = Some((s, reader));
                    }
                    let Some((w, r)) = conn.as_mut() else {
                        continue;
                    };
                    let t = Instant::now();
                    let answered = w.write_all(&target.request).and_then(|_| read_answer(r));
                    match answered {
                        Ok(200) => latencies.push(t.elapsed()),
                        Ok(_) | Err(_) => {
                            errors += 1;
                            conn = None;
                        }
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let started = Instant::now();
    thread::sleep(time);
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    let mut errors = 0;
    for w in workers {
        let (l, e) = w.join().expect("load thread");
        all.extend(l);
        errors += e;
    }
    let elapsed = started.elapsed();
    all.sort();
    let pick = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    Figures {
        requests: all.len(),
        errors,
        per_second: all.len() as f64 / elapsed.as_secs_f64(),
        p50: pick(0.50),
        p99: pick(0.99),
        max: all.last().copied().unwrap_or_default(),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

fn row(server: &str, connections: usize, f: &Figures) {
    println!(
        "| {server} | {connections} | {:.0} | {} | {} | {} | {} | {} |",
        f.per_second,
        ms(f.p50),
        ms(f.p99),
        ms(f.max),
        f.requests,
        f.errors
    );
}

/// A token for the default credentials, over a plain socket.
fn token(addr: SocketAddr) -> String {
    let body = format!(
        "{{\"appId\":\"{DEFAULT_APP_ID}\",\"clientSecret\":\"{DEFAULT_CLIENT_SECRET}\",\"apiKey\":\"{DEFAULT_API_KEY}\"}}"
    );
    let mut s = TcpStream::connect(addr).expect("connect");
    write!(
        s,
        "POST /api/v2/access_token HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("answer");
    let start = answer.find("\"token\":\"").expect("a token") + 9;
    answer[start..]
        .split('"')
        .next()
        .expect("token")
        .to_string()
}

fn main() {
    // `cargo bench` passes --bench; other flags are not ours.
    let time = seconds();
    println!(
        "| server | connections | requests/s | p50 ms | p99 ms | max ms | requests | errors |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");

    let emu = Emulator::start_default().expect("emulator starts");
    let token = token(emu.addr());
    let target = Arc::new(Target::post(
        emu.addr(),
        "/api/1/organizations",
        &format!("Bearer {token}"),
        "{}",
    ));
    for n in CONNECTIONS {
        // The request log grows with every request; start each run empty.
        emu.clear_requests();
        row("emulator", n, &load(&target, n, time));
    }
    drop(emu);

    let mut listener = Command::new(env!("CARGO_BIN_EXE_iikocloud"))
        .args(["webhook", "listen", "--port", "0", "--token", HOOK_TOKEN])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("webhook listen starts");
    let mut lines = BufReader::new(listener.stdout.take().expect("stdout")).lines();
    let first = lines.next().expect("a line").expect("text");
    let addr: SocketAddr = first
        .strip_prefix("listening on http://")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("first line: {first}"));
    // It prints a line per delivery: keep the pipe drained.
    thread::spawn(move || for _ in lines {});
    let target = Arc::new(Target::post(addr, "/hook", HOOK_TOKEN, WEBHOOK_BODY));
    for n in CONNECTIONS {
        row("webhook listen", n, &load(&target, n, time));
    }
    let _ = listener.kill();
    let _ = listener.wait();
}
