//! Typed webhook parsing against untyped `serde_json::Value` parsing of the
//! same bytes, in MB/s: the parse alone (`typed`: the typed eventInfo is read
//! on first use), with the flat fields a receiver reads (`typed_flat`), and
//! with every event's whole typed eventInfo (`typed_payloads`).
//!
//! `small` is the 9.6 KB shared `delivery_order_update.json`; `large` is the
//! ~1 MB, 1,500-item order written by `scripts/gen_large_webhook.py`. The
//! held-out-style bodies of `scripts/gen_bench_bodies.py` (compact, as the
//! service sends them, with other ids and values than the tests use) follow:
//! one delivery, a small stop-list and error event, the seven events of one
//! order's lifecycle, and two organizations' mixed events. Then the odd
//! classes of issue 35 (`odd_*.json`): unknown event types, a missing and a
//! wrong-typed `eventInfo`, `order: null`, unknown fields, two
//! organizations, two orders' lifecycles and 1,500 items; some of their
//! events are unreadable by design, and their groups measure for a shorter
//! time so the whole bench stays within a few minutes.
//!
//! Run: `cargo bench --bench webhook_parse -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iikocloud::webhook::parse_body;

const SMALL: &[u8] = include_bytes!("../tests/vectors/payloads/delivery_order_update.json");
const LARGE: &[u8] = include_bytes!("data/large_webhook.json");
const HELD_OUT: [(&str, &[u8]); 5] = [
    (
        "delivery",
        include_bytes!("data/bodies/small_delivery.json"),
    ),
    (
        "stop_list",
        include_bytes!("data/bodies/small_stop_list.json"),
    ),
    ("error", include_bytes!("data/bodies/small_error.json")),
    ("lifecycle", include_bytes!("data/bodies/lifecycle.json")),
    ("mixed", include_bytes!("data/bodies/mixed.json")),
];
const ODD: [(&str, &[u8]); 7] = [
    (
        "odd_no_info_wrong_type",
        include_bytes!("data/bodies/odd_no_info_wrong_type.json"),
    ),
    (
        "odd_order_null",
        include_bytes!("data/bodies/odd_order_null.json"),
    ),
    (
        "odd_unknown_types",
        include_bytes!("data/bodies/odd_unknown_types.json"),
    ),
    (
        "odd_two_orgs",
        include_bytes!("data/bodies/odd_two_orgs.json"),
    ),
    (
        "odd_unknown_fields",
        include_bytes!("data/bodies/odd_unknown_fields.json"),
    ),
    (
        "odd_lifecycle_two_orders",
        include_bytes!("data/bodies/odd_lifecycle_two_orders.json"),
    ),
    (
        "odd_items_1500",
        include_bytes!("data/bodies/odd_items_1500.json"),
    ),
];

fn bench(c: &mut Criterion) {
    let regular = [("small", SMALL), ("large", LARGE)]
        .into_iter()
        .chain(HELD_OUT)
        .map(|(name, body)| (name, body, false));
    let odd = ODD.into_iter().map(|(name, body)| (name, body, true));
    for (name, body, is_odd) in regular.chain(odd) {
        // Check the inputs once: the regular bodies parse without a problem
        // event; the odd ones parse as a whole (some events unreadable).
        let parsed = parse_body(body).expect("benchmark body parses");
        assert!(is_odd || parsed.iter().all(|e| e.problem().is_none()));

        let mut group = c.benchmark_group(format!("webhook_parse/{name}"));
        group.throughput(Throughput::Bytes(body.len() as u64));
        if is_odd {
            // Fewer samples over a shorter time: seven more bodies at five
            // functions each would otherwise double the bench's run time.
            group
                .sample_size(30)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(1));
        }
        // The parse: envelopes read, every event checked, eventInfo left
        // for first use.
        group.bench_function("typed", |b| {
            b.iter(|| parse_body(black_box(body)).expect("parses"))
        });
        // The parse and what a receiver reads of each event: the flat
        // fields and the de-duplication key.
        group.bench_function("typed_flat", |b| {
            b.iter(|| {
                let parsed = parse_body(black_box(body)).expect("parses");
                for e in parsed.iter() {
                    black_box((e.entity_id(), e.timestamp(), e.status(), e.sum(), e.phone()));
                    black_box(e.dedup_key());
                }
                parsed
            })
        });
        // The parse and the whole typed eventInfo of every event.
        group.bench_function("typed_payloads", |b| {
            b.iter(|| {
                let parsed = parse_body(black_box(body)).expect("parses");
                for e in parsed.iter() {
                    black_box(e.payload());
                }
                parsed
            })
        });
        group.bench_function("serde_json_value", |b| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(body)).expect("parses"))
        });
        // The floor of any serde_json reader: syntax checked, nothing kept.
        group.bench_function("serde_json_ignored", |b| {
            b.iter(|| {
                serde_json::from_slice::<serde::de::IgnoredAny>(black_box(body)).expect("parses")
            })
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
