//! The cost of a token-cache hit: `Client::access_token` on a warm cache,
//! which every call pays before it sends anything. One thread, and four
//! threads sharing one client (the cache is behind a lock). Then a whole
//! call: `Client::organizations` against the in-process emulator over a
//! keep-alive loopback connection (the floor of every typed call).
//!
//! Run: `cargo bench --bench token_cache -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use iikocloud::Client;
use iikocloud_emulator::{Emulator, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET};

fn bench(c: &mut Criterion) {
    let emu = Emulator::start_default().expect("emulator");
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()
        .expect("client");
    client.access_token().expect("first token");
    let mut group = c.benchmark_group("token_cache");
    group.bench_function("hit", |b| {
        b.iter(|| black_box(client.access_token().expect("cached")))
    });
    // Four threads hitting the same cache at once; the time is per hit.
    group.bench_function("hit_4_threads", |b| {
        b.iter_custom(|iters| {
            let per_thread = iters.div_ceil(4);
            let barrier = Arc::new(Barrier::new(4));
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    let (client, barrier) = (client.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        let start = Instant::now();
                        for _ in 0..per_thread {
                            black_box(client.access_token().expect("cached"));
                        }
                        start.elapsed()
                    })
                })
                .collect();
            let total: Duration = threads.into_iter().map(|t| t.join().unwrap()).sum();
            // Wall time of the slowest is what a caller waits; the mean over
            // threads, divided back to per-hit by criterion, is close to it.
            total / 4
        })
    });
    group.finish();

    let mut group = c.benchmark_group("client_call");
    let request = iikocloud::api::models::organizations::GetOrganizationsRequest::default();
    group.bench_function("organizations", |b| {
        b.iter(|| black_box(client.organizations(&request).expect("answer")))
    });
    group.finish();
    assert_eq!(
        emu.request_count("/api/v2/access_token"),
        1,
        "every measured call was a cache hit"
    );
}

// criterion's macro generates an undocumented public function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;

criterion_main!(benches);
