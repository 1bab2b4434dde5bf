#!/usr/bin/env bash
# Webhook parse through the C API against the Rust API on the same bodies (in
# one process, release build). Prints a table and the worst C cost over Rust
# per event; the target is at most 100 ns beyond the Rust side's own spread.
# See bindings/c/src/bench.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
# With the released library's LTO (fat); not its profile (scripts/dist-wheel.sh):
# what is measured is the C API's cost over Rust within one build.
source scripts/dist-wheel.sh
cargo test --release --locked -p iikocloud-c --lib bench_webhook_parse -- --ignored --nocapture \
    --test-threads 1 2>&1 | grep -vE '^(running|test |$)|test result'
