//! Typed webhook parsing against untyped `serde_json::Value` parsing of the
//! same bytes, in MB/s.
//!
//! `small` is the 9.6 KB shared `delivery_order_update.json`; `large` is the
//! ~1 MB, 1,500-item order written by `scripts/gen_large_webhook.py`.
//!
//! Run: `cargo bench --bench webhook_parse -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iikocloud::webhook::parse_body;

const SMALL: &[u8] = include_bytes!("../tests/vectors/payloads/delivery_order_update.json");
const LARGE: &[u8] = include_bytes!("data/large_webhook.json");

fn bench(c: &mut Criterion) {
    for (name, body) in [("small", SMALL), ("large", LARGE)] {
        // Check the inputs once so the benchmark measures successful parses.
        let parsed = parse_body(body).expect("benchmark body parses");
        assert!(parsed.iter().all(|e| e.problem().is_none()));

        let mut group = c.benchmark_group(format!("webhook_parse/{name}"));
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function("typed", |b| {
            b.iter(|| parse_body(black_box(body)).expect("parses"))
        });
        group.bench_function("serde_json_value", |b| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(body)).expect("parses"))
        });
        group.finish();
    }
}

// criterion's macro generates an undocumented public function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;

criterion_main!(benches);
