#!/usr/bin/env bash
# The reliability suite (docs/reliability.md), run by scripts/test.sh or alone:
#
#  1. the fault matrix and the secrets test (tests/fault_matrix.rs,
#     tests/secrets.rs); scripts/test.sh already ran them in `cargo test
#     --workspace` and says so with IIKO_WORKSPACE_TESTS_RAN=1, so they are
#     not run twice;
#  2. load across token expiry (tests/load.rs, ignored in a plain cargo test):
#     LOAD_SECONDS (default 20) of 8 threads with 2 s tokens;
#  3. soak of the HTTP servers (emulator/tests/soak.rs, cli/tests/listen_soak.rs):
#     SOAK_SECONDS (default 20; 4 in the plain cargo test) of idle and busy
#     keep-alive clients and bursts of new connections;
#  4. fuzzing (scripts/fuzz.sh): each target for FUZZ_SECONDS (default 20);
#  5. the secret scan of the Python and C suites' output (scripts/secret-scan.sh);
#  6. `webhook serve` under load with a Redis inbox killed mid-run, its
#     /metrics checked against what was sent (scripts/webhook-load.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> [reliability %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
# The package selection and features of test.sh's `cargo test --workspace`:
# cargo unifies features over the packages selected, so these tests reuse
# that build instead of compiling the core twice more.
source scripts/workspace-features.sh
WORKSPACE=(--locked --workspace --features "$WORKSPACE_FEATURES")

if [ "${IIKO_WORKSPACE_TESTS_RAN:-0}" != 1 ]; then
    step "fault matrix and secrets (cargo test)"
    cargo test "${WORKSPACE[@]}" --test fault_matrix --test secrets
fi

step "load: 8 threads for ${LOAD_SECONDS:-20} s across token expiry (tests/load.rs)"
LOAD_SECONDS=${LOAD_SECONDS:-20} cargo test "${WORKSPACE[@]}" --test load -- --ignored --nocapture

step "soak: emulator and webhook listen, ${SOAK_SECONDS:-20} s each"
SOAK_SECONDS=${SOAK_SECONDS:-20} cargo test "${WORKSPACE[@]}" --test soak -- --nocapture
SOAK_SECONDS=${SOAK_SECONDS:-20} cargo test "${WORKSPACE[@]}" --test listen_soak -- --nocapture

step "fuzzing, ${FUZZ_SECONDS:-20} s per target (scripts/fuzz.sh)"
./scripts/fuzz.sh

step "secret scan of the Python and C output (scripts/secret-scan.sh)"
./scripts/secret-scan.sh

step "webhook serve under load, Redis killed mid-run, /metrics checked (scripts/webhook-load.sh)"
./scripts/webhook-load.sh
