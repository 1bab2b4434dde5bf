//! Load across token expiry: 8 threads call the emulator for LOAD_SECONDS
//! (default 20) while its tokens live LOAD_TTL_MS (default 2000), so the
//! shared token is replaced about ten times under traffic. No error may reach a caller, the number of
//! token requests must stay close to duration / TTL, and the resident memory
//! of the process must stay flat.
//!
//! Ignored in a plain `cargo test` (it takes LOAD_SECONDS); the test command
//! runs it once through scripts/reliability.sh:
//! `cargo test --test load -- --ignored --nocapture`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use iikocloud::api::models::stop_lists::StopListsRequest;
use iikocloud::Client;
use iikocloud_emulator::{
    Emulator, EmulatorConfig, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
    DEFAULT_ORGANIZATION_ID,
};

const THREADS: usize = 8;
/// JWT claims are whole seconds. With a whole-second TTL the lifetime the
/// client reads from the token (`exp - iat - 1`) equals the emulator's, so
/// the client renews on time; with 1.5 s it reads 1 s or 2 s, renews early
/// half the time and meets a 401 the other half (healed, but more token
/// requests: about 20 instead of 13 in 20 s).
const DEFAULT_TTL_MS: u64 = 2000;
const TOKEN: &str = "/api/v2/access_token";

/// Resident set size of this process in KiB (`VmRSS` of /proc/self/status,
/// the same figure as the second field of /proc/self/statm, without needing
/// the page size).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

/// What the emulator's request log said, drained as the run goes (a log kept
/// for the whole run would itself grow the process by megabytes).
#[derive(Default)]
struct ServerCounts {
    tokens: u64,
    /// API requests that arrived with a token no longer valid (answered 401).
    stale_token: u64,
}

impl ServerCounts {
    fn drain(&mut self, emu: &Emulator) {
        let records = emu.take_requests();
        for r in records {
            if r.path == TOKEN {
                self.tokens += 1;
            } else if !r.authorized {
                self.stale_token += 1;
            }
        }
    }
}

#[test]
#[ignore = "runs LOAD_SECONDS (20 s); scripts/reliability.sh runs it: cargo test --test load -- --ignored"]
fn eight_threads_across_token_expiry_without_errors_or_growth() {
    let seconds: f64 = std::env::var("LOAD_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20.0_f64)
        .clamp(4.0, 3600.0);
    let duration = Duration::from_secs_f64(seconds);
    let ttl = Duration::from_millis(
        std::env::var("LOAD_TTL_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(DEFAULT_TTL_MS)
            .clamp(1000, 2000),
    );
    let emu = Emulator::start(EmulatorConfig::default().token_ttl(ttl)).unwrap();
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let started = Instant::now();
    let workers: Vec<_> = (0..THREADS)
        .map(|i| {
            let (client, stop, calls, errors) =
                (client.clone(), stop.clone(), calls.clone(), errors.clone());
            std::thread::spawn(move || {
                let stop_lists = StopListsRequest {
                    organization_ids: Some(vec![DEFAULT_ORGANIZATION_ID.into()]),
                    ..Default::default()
                };
                // Bounded twice: by the stop flag and by a call count no
                // machine reaches in an hour.
                for n in 0..50_000_000u64 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let result = if (n + i as u64).is_multiple_of(2) {
                        client.organizations(&Default::default()).map(|_| ())
                    } else {
                        client.stop_lists(&stop_lists).map(|_| ())
                    };
                    match result {
                        Ok(()) => {
                            calls.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => errors.lock().unwrap().push(e.to_string()),
                    }
                }
            })
        })
        .collect();

    // Sample RSS and drain the request log every 500 ms until the end.
    let mut server = ServerCounts::default();
    let mut samples: Vec<(f64, u64)> = Vec::new();
    while started.elapsed() < duration {
        std::thread::sleep(Duration::from_millis(500));
        server.drain(&emu);
        samples.push((started.elapsed().as_secs_f64(), rss_kib()));
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    server.drain(&emu);

    let calls = calls.load(Ordering::Relaxed);
    let errors = errors.lock().unwrap();
    let ratio = elapsed / ttl.as_secs_f64();
    let bound = 1.5 * ratio + 2.0;
    let at = |from: f64, to: f64| -> Vec<u64> {
        samples
            .iter()
            .filter(|(t, _)| *t >= from * elapsed && *t < to * elapsed)
            .map(|(_, kib)| *kib)
            .collect()
    };
    // Early: after the warm-up (connection pool, allocator arenas, token).
    let early = median(at(0.2, 0.35));
    let late = median(samples.iter().rev().take(3).map(|(_, k)| *k).collect());
    let allowed = early + (early / 5).max(4 * 1024);
    println!(
        "load: {THREADS} threads, {elapsed:.1} s, token TTL {:.1} s: {calls} calls ({:.0}/s), \
         {} errors; {} token requests (bound {bound:.1}, duration/TTL {ratio:.1}), \
         {} requests answered 401 for a token that expired in flight",
        ttl.as_secs_f64(),
        calls as f64 / elapsed,
        errors.len(),
        server.tokens,
        server.stale_token,
    );
    let shown: Vec<String> = samples
        .iter()
        .step_by((samples.len() / 10).max(1))
        .map(|(t, k)| format!("{t:.0}s:{:.1}MiB", *k as f64 / 1024.0))
        .collect();
    println!(
        "load: RSS samples {} ; early median {:.1} MiB, last median {:.1} MiB, allowed {:.1} MiB",
        shown.join(" "),
        early as f64 / 1024.0,
        late as f64 / 1024.0,
        allowed as f64 / 1024.0
    );

    assert!(
        errors.is_empty(),
        "{} errors reached callers, first: {:?}",
        errors.len(),
        errors.first()
    );
    assert!(
        calls as f64 >= THREADS as f64 * elapsed,
        "too little traffic to mean anything: {calls} calls"
    );
    assert!(
        server.tokens as f64 <= bound,
        "{} token requests for {ratio:.1} token lifetimes",
        server.tokens
    );
    assert!(
        server.tokens as f64 >= ratio - 2.0,
        "only {} token requests in {ratio:.1} lifetimes: the token was not replaced",
        server.tokens
    );
    assert!(
        late <= allowed,
        "RSS grew from {early} KiB to {late} KiB (allowed {allowed} KiB)"
    );
}
