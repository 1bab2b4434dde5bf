//! What building a client costs with each trust setting, and what the
//! system store would cost per client if it were not read once per process
//! (a PHP-FPM worker or a short CLI run builds clients often).
//!
//! Run: `cargo bench --bench client_build -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use iikocloud::{Client, ClientBuilder, TrustRoots};

fn builder() -> ClientBuilder {
    Client::builder()
        .base_url("https://127.0.0.1:1")
        .v2("bench-app", "bench-secret", "bench-key")
}

fn bench(c: &mut Criterion) {
    // The first client of the process reads the system store: timed once.
    let cold = Instant::now();
    black_box(builder().build().expect("client"));
    println!(
        "first client of the process (reads the system store): {:?}",
        cold.elapsed()
    );

    let dir = std::env::temp_dir().join(format!("iiko-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ca = dir.join("ca.pem");
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let key = rcgen::KeyPair::generate().expect("key");
    std::fs::write(&ca, params.self_signed(&key).expect("cert").pem()).expect("write");

    let mut group = c.benchmark_group("client_build");
    // The code path every client took before: ureq's bundled WebPki table.
    group.bench_function("bundled_roots", |b| {
        b.iter(|| {
            black_box(
                builder()
                    .trust_roots(TrustRoots::Bundled)
                    .build()
                    .expect("client"),
            )
        })
    });
    group.bench_function("system_store_shared", |b| {
        b.iter(|| black_box(builder().build().expect("client")))
    });
    group.bench_function("system_store_plus_ca_file", |b| {
        b.iter(|| black_box(builder().ca_file(&ca).build().expect("client")))
    });
    // Without the per-process cache every client would pay this.
    group.bench_function("system_store_read_each_time", |b| {
        b.iter(|| black_box(rustls_native_certs::load_native_certs().certs.len()))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

// criterion's macro defines an undocumented pub fn.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;

criterion_main!(benches);
