//! Soak: 64 keep-alive clients (some idle, most busy) plus bursts of new
//! connections against one emulator, every answer delayed, for a bounded
//! time (`SOAK_SECONDS`, default 4). No request may wait much longer than the
//! injected delay, and the process's memory must stay flat.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::Http;
use iikocloud_emulator::{Emulator, Fault, FaultKind};
use serde_json::json;

const ORGS: &str = "/api/1/organizations";
const DELAY: Duration = Duration::from_millis(100);
/// Generous for a loaded 2-core machine running debug builds; a stalled
/// request waits seconds (until its client gives up), not this.
const MARGIN: Duration = Duration::from_millis(900);
const IDLE_CLIENTS: usize = 16;
const BUSY_CLIENTS: usize = 48;
const BURST: usize = 8;

fn soak_time() -> Duration {
    let secs = std::env::var("SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(4.0);
    Duration::from_secs_f64(secs.clamp(1.0, 3600.0))
}

/// Resident memory of this process (the emulator runs in it), in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn keep_alive_clients_idle_and_busy_plus_bursts_never_wait_past_the_delay() {
    let emu = Emulator::start_default().expect("emulator starts");
    let token = Http::new(emu.url()).token();
    emu.inject(Fault::new(ORGS, FaultKind::Delay(DELAY), u32::MAX));

    // Idle clients: one call each, then their connections sit in their pools.
    let idle: Vec<Http> = (0..IDLE_CLIENTS).map(|_| Http::new(emu.url())).collect();
    for h in &idle {
        assert_eq!(h.get("/_emulator/health").status, 200);
    }

    let stop = Arc::new(AtomicBool::new(false));
    let slowest = Arc::new(Mutex::new(Duration::ZERO));
    let served = Arc::new(AtomicUsize::new(0));
    let call = {
        let (slowest, served, token) = (slowest.clone(), served.clone(), token.clone());
        move |http: &Http| {
            let t = Instant::now();
            let r = http.post(ORGS, Some(&token), &json!({}));
            let took = t.elapsed();
            assert_eq!(r.status, 200, "{}", r.body);
            served.fetch_add(1, Ordering::Relaxed);
            let mut s = slowest.lock().unwrap();
            *s = (*s).max(took);
        }
    };

    let busy: Vec<_> = (0..BUSY_CLIENTS)
        .map(|_| {
            let (url, stop, call) = (emu.url(), stop.clone(), call.clone());
            thread::spawn(move || {
                let http = Http::new(url);
                while !stop.load(Ordering::Relaxed) {
                    call(&http);
                }
            })
        })
        .collect();
    // Bursts of fresh connections, each client making one call.
    let bursts = {
        let (url, stop, call) = (emu.url(), stop.clone(), call.clone());
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let wave: Vec<_> = (0..BURST)
                    .map(|_| {
                        let (url, call) = (url.clone(), call.clone());
                        thread::spawn(move || call(&Http::new(url)))
                    })
                    .collect();
                for w in wave {
                    w.join().expect("burst call");
                }
                thread::sleep(Duration::from_millis(50));
            }
        })
    };

    let total = soak_time();
    let warm_up = (total / 4).max(Duration::from_millis(500));
    thread::sleep(warm_up);
    emu.take_requests();
    let rss_start = rss_kib();
    let deadline = Instant::now() + (total - warm_up);
    while Instant::now() < deadline {
        thread::sleep(Duration::from_millis(250));
        // The request log is the only thing meant to grow; keep it empty.
        emu.take_requests();
    }
    stop.store(true, Ordering::Relaxed);
    for b in busy {
        b.join().expect("busy client");
    }
    bursts.join().expect("bursts");
    emu.take_requests();
    let rss_end = rss_kib();

    let slowest = *slowest.lock().unwrap();
    let served = served.load(Ordering::Relaxed);
    eprintln!(
        "soak: {served} requests in {total:?}, slowest {slowest:?}, RSS {rss_start} -> {rss_end} KiB"
    );
    assert!(served > BUSY_CLIENTS * 5, "only {served} requests served");
    assert!(
        slowest < DELAY + MARGIN,
        "a request took {slowest:?} (delay {DELAY:?})"
    );
    // Connection and thread churn settles within a few MiB; a leak per
    // request (thousands of them) would not.
    assert!(
        rss_end < rss_start + 16 * 1024,
        "RSS grew from {rss_start} to {rss_end} KiB"
    );
    // The idle clients' connections are still good.
    for h in &idle {
        assert_eq!(h.get("/_emulator/health").status, 200);
    }
}
