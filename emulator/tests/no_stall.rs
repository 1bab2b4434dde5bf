//! Idle keep-alive connections must never hold up other requests.
//!
//! The scenario that stalled the tiny_http emulator (one connection per pool
//! thread): a client keeps an idle keep-alive connection open, then 8 threads
//! of another client call at once while every answer is delayed by 0.3 s.
//! Some calls waited for the client's whole timeout. Every call here must
//! answer within the delay plus a small margin, in every trial.

mod common;

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use common::Http;
use iikocloud_emulator::{Emulator, Fault, FaultKind};
use serde_json::json;

const ORGS: &str = "/api/1/organizations";
const DELAY: Duration = Duration::from_millis(300);
/// Generous for a loaded 2-core machine, far below a client timeout.
const MARGIN: Duration = Duration::from_millis(700);

/// Runs one trial on a fresh emulator; returns the slowest call's time.
fn trial(threads: usize) -> Duration {
    let emu = Emulator::start_default().expect("emulator starts");
    // The first client makes one call and stays alive: its pooled
    // connection sits idle for the rest of the trial.
    let idle = Http::new(emu.url());
    let token = idle.token();
    assert_eq!(idle.post(ORGS, Some(&token), &json!({})).status, 200);

    emu.inject(Fault::new(ORGS, FaultKind::Delay(DELAY), threads as u32));
    let busy = Arc::new(Http::new(emu.url()));
    let start = Arc::new(Barrier::new(threads));
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (busy, start, token) = (Arc::clone(&busy), Arc::clone(&start), token.clone());
            thread::spawn(move || {
                start.wait();
                let t = Instant::now();
                let r = busy.post(ORGS, Some(&token), &json!({}));
                assert_eq!(r.status, 200, "{}", r.body);
                t.elapsed()
            })
        })
        .collect();
    let slowest = workers
        .into_iter()
        .map(|w| w.join().expect("worker"))
        .max()
        .unwrap_or_default();
    drop(idle);
    slowest
}

#[test]
fn idle_keep_alive_connection_does_not_starve_concurrent_calls() {
    for n in 0..30 {
        let slowest = trial(8);
        assert!(
            slowest < DELAY + MARGIN,
            "trial {n}: a call took {slowest:?}, the injected delay is {DELAY:?}"
        );
    }
}

#[test]
fn many_idle_connections_do_not_starve_new_ones() {
    let emu = Emulator::start_default().expect("emulator starts");
    // 32 clients each leave an idle keep-alive connection behind.
    let idle: Vec<Http> = (0..32).map(|_| Http::new(emu.url())).collect();
    for h in &idle {
        assert_eq!(h.get("/_emulator/health").status, 200);
    }
    emu.inject(Fault::new(ORGS, FaultKind::Delay(DELAY), 16));
    let token = idle[0].token();
    let start = Arc::new(Barrier::new(16));
    let workers: Vec<_> = (0..16)
        .map(|_| {
            let (url, start, token) = (emu.url(), Arc::clone(&start), token.clone());
            thread::spawn(move || {
                let fresh = Http::new(url);
                start.wait();
                let t = Instant::now();
                assert_eq!(fresh.post(ORGS, Some(&token), &json!({})).status, 200);
                t.elapsed()
            })
        })
        .collect();
    for w in workers {
        let took = w.join().expect("worker");
        assert!(took < DELAY + MARGIN, "a call took {took:?}");
    }
}
