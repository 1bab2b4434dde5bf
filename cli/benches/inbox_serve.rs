//! `webhook serve` per inbox: acknowledged requests per second and time to
//! answer (p50/p99) at 1 and 16 keep-alive connections, each request a new
//! event (so every one is written and synced); then de-duplication checks per
//! second per store (`Store::first_seen` on new keys, one thread). Prints
//! Markdown tables.
//!
//!     cargo bench -p iikocloud-cli --bench inbox_serve
//!
//! Redis rows need `redis-server` on the PATH (a private one is started on a
//! free port, append-only with fsync on every write, as the tests use it).

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

mod support;

use iikocloud::store::Store;
use support::read_answer;

const BIN: &str = env!("CARGO_BIN_EXE_iikocloud");
const TOKEN: &str = "bench-hook-token";

fn seconds() -> Duration {
    let s = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(3.0);
    Duration::from_secs_f64(s.clamp(0.5, 600.0))
}

fn body(n: u64) -> String {
    format!(
        r#"[{{"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877","organizationId":"0ae7e972-848d-53c5-8a8f-3a120fa115ba","correlationId":"c","eventInfo":{{"id":"bench-{n}","timestamp":{n},"creationStatus":"Success","order":{{"number":1,"status":"Unconfirmed","sum":1780.0}}}}}}]"#
    )
}

fn serve(inbox: &str) -> (Child, SocketAddr) {
    let mut child = Command::new(BIN)
        .args([
            "webhook",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--inbox",
            inbox,
        ])
        .env("IIKO_WEBHOOK_TOKEN", TOKEN)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("webhook serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("first line");
    let v: serde_json::Value = serde_json::from_str(&line).expect("json");
    let addr = v["listening"]
        .as_str()
        .expect("listening")
        .trim_start_matches("http://")
        .parse()
        .expect("addr");
    (child, addr)
}

fn load(addr: SocketAddr, connections: usize, time: Duration) -> (f64, Duration, Duration, usize) {
    let stop = Arc::new(AtomicBool::new(false));
    let next = Arc::new(AtomicU64::new(fastrand::u64(..1 << 40)));
    let workers: Vec<_> = (0..connections)
        .map(|_| {
            let (stop, next) = (stop.clone(), next.clone());
            thread::spawn(move || {
                let mut lat = Vec::new();
                let mut errors = 0;
                let s = TcpStream::connect(addr).expect("connect");
                let _ = s.set_nodelay(true);
                let mut w = s.try_clone().expect("clone");
                let mut r = BufReader::new(s);
                while !stop.load(Ordering::Relaxed) {
                    let b = body(next.fetch_add(1, Ordering::Relaxed));
                    let rq = format!(
                        "POST /hook HTTP/1.1\r\nHost: x\r\nAuthorization: {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{b}",
                        b.len()
                    );
                    let t = Instant::now();
                    match w.write_all(rq.as_bytes()).and_then(|_| read_answer(&mut r)) {
                        Ok(200) => lat.push(t.elapsed()),
                        _ => errors += 1,
                    }
                }
                (lat, errors)
            })
        })
        .collect();
    let started = Instant::now();
    thread::sleep(time);
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    let mut errors = 0;
    for w in workers {
        let (l, e) = w.join().expect("worker");
        all.extend(l);
        errors += e;
    }
    let rate = all.len() as f64 / started.elapsed().as_secs_f64();
    all.sort();
    let pick = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    (rate, pick(0.5), pick(0.99), errors)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

fn redis(dir: &std::path::Path) -> Option<(Child, String)> {
    let port = free_port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args([
            "--dir",
            dir.to_str()?,
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--save",
            "",
        ])
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    for _ in 0..200 {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some((child, format!("redis://127.0.0.1:{port}/0")));
        }
        thread::sleep(Duration::from_millis(20));
    }
    None
}

fn dedup_rate(store: &Store, time: Duration) -> f64 {
    let tag = fastrand::u64(..);
    let started = Instant::now();
    let mut n = 0u64;
    while started.elapsed() < time {
        for _ in 0..64 {
            store
                .first_seen(&format!("bench:{tag}:{n}"), Duration::from_secs(600))
                .expect("first_seen");
            n += 1;
        }
    }
    n as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let time = seconds();
    let dir = std::env::temp_dir().join(format!("iiko-bench-inbox-{}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let redis = redis(&dir);
    if redis.is_none() {
        eprintln!("redis-server not found: Redis rows left out");
    }
    let mut inboxes = vec![(
        "SQLite (WAL, synchronous=FULL)",
        format!("sqlite://{}/inbox.db", dir.display()),
    )];
    if let Some((_, url)) = &redis {
        inboxes.push(("Redis stream (appendfsync always)", url.clone()));
    }
    println!("| inbox | connections | acknowledged requests/s | p50 ms | p99 ms | errors |");
    println!("|---|---|---|---|---|---|");
    for (name, url) in &inboxes {
        let (mut child, addr) = serve(url);
        for connections in [1, 16] {
            let (rate, p50, p99, errors) = load(addr, connections, time);
            println!(
                "| {name} | {connections} | {rate:.0} | {:.2} | {:.2} | {errors} |",
                p50.as_secs_f64() * 1000.0,
                p99.as_secs_f64() * 1000.0
            );
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    println!();
    println!("| store | de-duplication checks/s (one thread, new keys) |");
    println!("|---|---|");
    let mut stores = vec![
        ("memory:".to_owned(), "memory:".to_owned()),
        (
            "SQLite (WAL, synchronous=NORMAL)".to_owned(),
            format!("sqlite://{}/store.db", dir.display()),
        ),
    ];
    if let Some((_, url)) = &redis {
        stores.push(("Redis (appendfsync always)".to_owned(), url.clone()));
    }
    for (name, url) in stores {
        let store = Store::open(&url).expect("store");
        println!("| {name} | {:.0} |", dedup_rate(&store, time));
    }
    if let Some((mut child, _)) = redis {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = std::fs::remove_dir_all(dir);
}
