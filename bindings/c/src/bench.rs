//! Webhook parse through the C API against the Rust API, on the same bodies,
//! in one process. Ignored by default; run it with `scripts/c-bench.sh`
//! (`cargo test --release -p iikocloud-c --lib bench -- --ignored --nocapture`).
//!
//! "parse" is `iiko_webhook_parse` + `iiko_events_free` against
//! `parse_body_with` + drop. "parse+read" also reads what a POS reads of each
//! event (type, order id, status, exact sum as text): C accessors against the
//! Rust accessors with `Money::to_string`.

use std::ffi::CStr;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use iikocloud_core::webhook::{parse_body_with, ParseOptions};

use crate::events::*;
use crate::webhook::*;

fn bodies() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let payloads = root.join("tests/vectors/payloads");
    let mut out = Vec::new();
    for name in [
        "delivery_order_update.json",
        "delivery_order_error.json",
        "stop_list_update.json",
        "multi_all_types.json",
    ] {
        out.push((
            name.to_string(),
            std::fs::read(payloads.join(name)).unwrap(),
        ));
    }
    // 500 delivery events in one body (about 3 MB), as after an outage.
    let one = std::fs::read_to_string(payloads.join("delivery_order_update.json")).unwrap();
    let event = one
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    let many = format!("[{}]", vec![event; 500].join(","));
    out.push(("500 deliveries".to_string(), many.into_bytes()));
    // The shared large order of the Rust benchmark, when it is there.
    if let Ok(large) = std::fs::read(root.join("benches/data/large_webhook.json")) {
        out.push(("benches/data/large_webhook.json".to_string(), large));
    }
    // The held-out bodies and the odd classes of scripts/gen_bench_bodies.py
    // (unknown types, missing eventInfo, null members, unknown fields).
    if let Ok(dir) = std::fs::read_dir(root.join("benches/data/bodies")) {
        let mut held_out: Vec<_> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        held_out.sort();
        for path in held_out {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, std::fs::read(&path).unwrap()));
        }
    }
    out
}

/// Median time per run of `f`, over `rounds` rounds of `iters` runs.
fn measure(rounds: usize, iters: usize, mut f: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iters {
                f();
            }
            start.elapsed() / iters as u32
        })
        .collect();
    samples.sort();
    samples[rounds / 2]
}

fn rust_parse(body: &[u8], options: &ParseOptions, read: bool) {
    let parsed = parse_body_with(black_box(body), options).unwrap();
    if read {
        for e in &parsed.events {
            black_box(e.kind().code());
            black_box(e.order_id());
            black_box(e.status());
            black_box(e.sum().map(|m| m.to_string()));
        }
    }
    drop(black_box(parsed));
}

fn c_parse(body: &[u8], read: bool) {
    let mut events = std::ptr::null_mut();
    // SAFETY: `body` is a live slice; `events` is a writable out-parameter;
    // the handle is freed once below.
    unsafe {
        let status = iiko_webhook_parse(
            black_box(body.as_ptr().cast()),
            body.len(),
            0,
            0,
            0,
            &mut events,
            std::ptr::null_mut(),
        );
        assert_eq!(status, 0);
        if read {
            for i in 0..iiko_events_count(events) {
                black_box(iiko_events_type(events, i));
                black_box(iiko_events_order_id(events, i));
                black_box(iiko_events_status(events, i));
                let sum = iiko_events_sum(events, i);
                if !sum.is_null() {
                    black_box(CStr::from_ptr(sum));
                }
            }
        }
        iiko_events_free(black_box(events));
    }
}

#[test]
#[ignore = "benchmark: run with scripts/c-bench.sh"]
fn bench_webhook_parse() {
    let options = ParseOptions::default();
    println!(
        "\n{:<34} {:>9} {:>11} {:>11} {:>6} {:>7} {:>13} {:>13}",
        "body", "bytes", "Rust", "C API", "C/Rust", "events", "C-Rust/event", "noise/event"
    );
    let mut worst: f64 = 0.0;
    // On bodies of a microsecond a ratio sits inside the noise: the C API's
    // cost is also stated per event, in nanoseconds (target: at most 100).
    let mut worst_per_event: f64 = f64::MIN;
    // The same beyond the run's noise: on a large body of one event, the
    // spread of the Rust side's own medians is microseconds.
    let mut worst_beyond_noise: f64 = f64::MIN;
    for read in [false, true] {
        println!("-- {}", if read { "parse+read" } else { "parse" });
        for (name, body) in bodies() {
            // About 0.2 s per side and body: enough runs for a stable median.
            let iters = (20_000_000 / body.len().max(1)).clamp(5, 20_000);
            let rounds = 7;
            // Warm up both paths, then interleave them so that frequency
            // changes hit both alike.
            rust_parse(&body, &options, read);
            c_parse(&body, read);
            // Alternate which side goes first (allocator state favours one
            // order), and keep the best median of each side: on a shared
            // machine the minimum is the least disturbed estimate.
            let mut rust_reps = Vec::new();
            let mut c_reps = Vec::new();
            for rep in 0..4 {
                if rep % 2 == 0 {
                    rust_reps.push(measure(rounds, iters, || rust_parse(&body, &options, read)));
                    c_reps.push(measure(rounds, iters, || c_parse(&body, read)));
                } else {
                    c_reps.push(measure(rounds, iters, || c_parse(&body, read)));
                    rust_reps.push(measure(rounds, iters, || rust_parse(&body, &options, read)));
                }
            }
            let rust = *rust_reps.iter().min().expect("four reps");
            let c = *c_reps.iter().min().expect("four reps");
            // The noise: how far apart the Rust side's own medians fell.
            let rust_spread = *rust_reps.iter().max().expect("four reps") - rust;
            let ratio = c.as_secs_f64() / rust.as_secs_f64();
            worst = worst.max(ratio);
            let events = parse_body_with(&body, &options)
                .unwrap()
                .events
                .len()
                .max(1);
            let per_event = (c.as_secs_f64() - rust.as_secs_f64()) * 1e9 / events as f64;
            let noise = rust_spread.as_secs_f64() * 1e9 / events as f64;
            worst_per_event = worst_per_event.max(per_event);
            worst_beyond_noise = worst_beyond_noise.max(per_event - noise);
            println!(
                "{:<34} {:>9} {:>9.1}µs {:>9.1}µs {:>6.3} {:>7} {:>10.0} ns {:>10.0} ns",
                name,
                body.len(),
                rust.as_secs_f64() * 1e6,
                c.as_secs_f64() * 1e6,
                ratio,
                events,
                per_event,
                noise
            );
        }
    }
    // The target (issue 35) is per event: on a 1-µs body a ratio sits inside
    // the run's noise, and on a one-event 1 MB body so does the raw difference.
    println!("worst C/Rust ratio: {worst:.3}");
    println!("worst C cost over Rust per event: {worst_per_event:.0} ns");
    println!(
        "worst C cost over Rust per event beyond the Rust side's own spread: \
         {worst_beyond_noise:.0} ns (target: at most 100 ns)"
    );
}
