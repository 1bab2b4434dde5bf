//! The typed read of a large `deliveries/by_id` answer against an untyped
//! `serde_json::Value` read of the same bytes, in MB/s.
//!
//! The answer is built here from the shared 9.6 KB `DeliveryOrderUpdate`
//! payload: its `eventInfo` is an `OrderInfo`, the element type of
//! `OrdersResponse.orders`; 200 copies make a ~2 MB answer.
//!
//! Run: `cargo bench --bench api_parse -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iikocloud::api::models::deliveries::response::OrdersResponse;
use serde_json::{json, Value};

const EVENT: &[u8] = include_bytes!("../tests/vectors/payloads/delivery_order_update.json");

fn answer(copies: usize) -> Vec<u8> {
    let events: Vec<Value> = serde_json::from_slice(EVENT).expect("payload");
    let info = events[0]["eventInfo"].clone();
    let orders: Vec<Value> = (0..copies).map(|_| info.clone()).collect();
    serde_json::to_vec(&json!({
        "correlationId": "4b2f6c2e-0d0a-4a39-9d5e-2b3c4d5e6f70",
        "orders": orders,
    }))
    .expect("JSON")
}

fn bench(c: &mut Criterion) {
    let body = answer(200);
    let typed: OrdersResponse = serde_json::from_slice(&body).expect("typed read");
    assert_eq!(typed.orders.as_ref().map(Vec::len), Some(200));
    let mut group = c.benchmark_group("api_parse/by_id_200_orders");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("typed", |b| {
        b.iter(|| serde_json::from_slice::<OrdersResponse>(black_box(&body)).expect("parses"))
    });
    group.bench_function("serde_json_value", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&body)).expect("parses"))
    });
    group.finish();
}

// criterion's macro generates an undocumented public function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
criterion_main!(group::benches);
