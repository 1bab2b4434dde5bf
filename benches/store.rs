//! The SQLite de-duplication store, on a real file: what a receiver pays per
//! event to claim its key (`first_seen`, a write) and to ask about one
//! (`is_seen`, a read). The C library builds SQLite for size (`opt-level =
//! "s"` in the workspace's release profile); this is the figure that choice
//! is checked against.
//!
//! Run: `cargo bench --bench store -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use iikocloud::store::Store;

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("iikocloud-store-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let store = Store::open(&format!("sqlite://{}", dir.join("seen.db").display())).expect("store");
    let ttl = Duration::from_secs(3600);
    let mut group = c.benchmark_group("store_sqlite");
    let mut n = 0u64;
    group.bench_function("first_seen_new_key", |b| {
        b.iter(|| {
            n += 1;
            black_box(
                store
                    .first_seen(&format!("event-{n}"), ttl)
                    .expect("first_seen"),
            )
        })
    });
    group.bench_function("is_seen", |b| {
        let mut i = 0u64;
        b.iter(|| {
            i = i % n.max(1) + 1;
            black_box(store.is_seen(&format!("event-{i}")).expect("is_seen"))
        })
    });
    group.finish();
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

// criterion's macro generates an undocumented public function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;

criterion_main!(benches);
