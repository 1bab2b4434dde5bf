#!/usr/bin/env bash
# The README's test command: installs what is missing, then runs every check
# and test suite of the repository. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says how long the run has taken so far, so the CI log shows
# where the minutes go.
step() { printf '\n==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# Debug builds keep line tables only: backtraces, valgrind and the sanitizers
# still report file:line in our code, while some forty test binaries, the
# debug wheel and the C test library link without the variable info that made
# the debug target 13 GB (dependencies have none: the root Cargo.toml). Every
# step below inherits it, so they share one build.
export CARGO_PROFILE_DEV_DEBUG=line-tables-only
# No incremental compilation unless asked for: a run from a clean clone has
# nothing to reuse, and keeping its caches made the workspace's test build
# 10 % slower (253 s against 228 s, `cargo test --no-run`, 2 cores).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

# With little disk free, builds no later step reads go when done with
# (scripts/disk-room.sh says which and why).
source scripts/disk-room.sh
disk_room_decide

if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo is required (install Rust with rustup: https://rustup.rs)" >&2
    exit 1
fi
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
    step "installing rustfmt and clippy"
    rustup component add rustfmt clippy
fi

# ---- system packages and Rust targets, all at once ----------------------------
# Each script installs what it lacks when run alone; here one apt-get serves
# them all before anything runs in the background (apt and rustup must not
# change the toolchains under the release build below). wine, MinGW and LLVM
# go without their recommends, as scripts/wine-env.sh installs them.
missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
    done
}
mapfile -t with_recommends < <(missing_packages redis-server gcc g++ make valgrind pkg-config jq curl \
    unzip openssl python3 python3-venv dpkg binutils cmake composer php-cli php-fpm nginx phpunit \
    php-phpstan-phpdoc-parser php-psr-log qemu-user gcc-aarch64-linux-gnu g++-aarch64-linux-gnu \
    libc6-dev-arm64-cross binutils-aarch64-linux-gnu)
mapfile -t without_recommends < <(missing_packages mingw-w64 wine wine64 llvm lld)
if ((${#with_recommends[@]} + ${#without_recommends[@]})); then
    step "installing ${with_recommends[*]} ${without_recommends[*]}"
    # The tests start their own nginx, php-fpm and redis-server.
    source scripts/apt-install.sh
    # Two calls, as the recommends differ (the second update finds the lists current).
    if ((${#with_recommends[@]})); then apt_install_without_services "${with_recommends[@]}"; fi
    if ((${#without_recommends[@]})); then
        apt_install_without_services --no-install-recommends "${without_recommends[@]}"
    fi
fi
for target in aarch64-unknown-linux-gnu x86_64-pc-windows-gnu; do
    if ! rustup target list --installed | grep -qx "$target"; then
        step "rustup target add $target"
        rustup target add "$target"
    fi
done

# ---- the release artifacts, built in the background -------------------------
# scripts/dist.sh compiles the release builds of three targets: a third of the
# run's CPU time. The steps below leave a core idle much of the time (tests
# under valgrind, qemu and wine, PHP, pip), so the build runs beside them at
# the lowest priority, in its own target directory, and takes only what they
# leave. The release section at the end waits for it, then dist-test.sh
# tests what it made.
mkdir -p target/reliability # output saved for scripts/secret-scan.sh
DIST_BUILD_LOG=target/reliability/dist-build.log
step "release artifacts: scripts/dist.sh starts in the background, at nice 19 (log: $DIST_BUILD_LOG)"
# setsid: its own process group, so that a failing step stops cargo too. A
# new session is also a new scheduling autogroup where the kernel has them
# (sched_autogroup_enabled): nice counts only inside a group, and the groups
# share the CPU half and half (the clippy step took twice as long). The
# group's own nice value, set from inside it, puts it behind.
setsid bash -c 'if [ -w /proc/self/autogroup ]; then echo 19 >/proc/self/autogroup 2>/dev/null || true; fi
    exec nice -n 19 ./scripts/dist.sh' >"$DIST_BUILD_LOG" 2>&1 &
DIST_BUILD_PID=$!
stop_dist_build() {
    if [ -n "${DIST_BUILD_PID:-}" ]; then
        kill -- "-$DIST_BUILD_PID" 2>/dev/null || true
        wait "$DIST_BUILD_PID" 2>/dev/null || true
    fi
}
trap stop_dist_build EXIT

step "cargo fmt --check; every lock file current"
cargo fmt --all -- --check
# The fuzz crate keeps its own lock file, used with --locked 20 minutes in:
# a dependency added to the core without it must fail here, not there.
cargo metadata --locked --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null

step "generated code matches the official document (spec snapshot, codegen)"
python3 scripts/spec-snapshot.py --self-test
python3 scripts/spec-snapshot.py --check
cargo run --locked --quiet -p iikocloud-codegen -- --check

source scripts/workspace-features.sh
step "cargo clippy (all targets, -D warnings)"
# The test build's features and the Python crate's test hooks (its tests are
# pytest's, so the test build leaves them out).
cargo clippy --workspace --all-targets --locked --features "$WORKSPACE_FEATURES,iikocloud-python/test-hooks" -- -D warnings
# The core without its optional stores (sqlite, redis) builds clean too.
cargo clippy -p iikocloud --lib --locked --no-default-features -- -D warnings

step "redis-server for the store and inbox tests (scripts/redis-server.sh)"
# The tests that need Redis (or root) are #[ignore]d, so a plain `cargo test`
# without them reports them ignored, not passed; they run below, where the
# service is provided, and fail when it is not.
source scripts/redis-server.sh
# It set its own EXIT trap; the background build stops too.
trap 'stop_dist_build; iiko_stop_redis' EXIT

step "cargo test (workspace, with telemetry into the OpenTelemetry SDK)"
# otel-metrics is among the features (tests/telemetry_otel.rs), where a build
# of its own compiled the core a second time (1:46 of the run).
cargo test --workspace --locked --features "$WORKSPACE_FEATURES" 2>&1 | tee target/cargo-test.log
# That file's tests are compiled only with the feature: they must have run.
grep -q '^test spans_and_metrics_reach_the_opentelemetry_sdk \.\.\. ok$' target/cargo-test.log ||
    { echo "tests/telemetry_otel.rs did not run" >&2; exit 1; }

step "cargo test: the tests that need redis-server or root (ignored by default)"
# Their names say what they need; `--exact`-free filters pick them out of
# the workspace's other ignored tests (the load test, the benchmarks).
cargo test --workspace --locked --features "$WORKSPACE_FEATURES" -- --ignored \
    redis system_store

# ---- Python package (bindings/python, examples/python) ----------------------
step "python: wheel, stub check, pytest (scripts/py-test.sh)"
mkdir -p target/reliability # output saved for scripts/secret-scan.sh
./scripts/py-test.sh 2>&1 | tee target/reliability/py-test.log
# The optimized build's run of the same suite is in scripts/dist-test.sh below:
# the release wheel users install (manylinux2014), in a venv with no Rust.
# ---- end of the Python section ----------------------------------------------

# ---- C ABI (bindings/c, include/, examples/c, examples/cpp, tests/c) --------
step "C ABI: header, C and C++ tests, examples, valgrind, ASan/UBSan, PHP FFI load, install (scripts/c-test.sh)"
mkdir -p target/reliability # output saved for scripts/secret-scan.sh
./scripts/c-test.sh 2>&1 | tee target/reliability/c-test.log
# ---- end of the C section ---------------------------------------------------

# ---- Linux aarch64 under qemu-user (scripts/qemu-test.sh) -------------------
step "aarch64 under qemu: clippy, the core's tests (NEON against portable), C and C++ tests against the emulator (scripts/qemu-test.sh)"
./scripts/qemu-test.sh 2>&1 | tee target/reliability/qemu-test.log
drop_builds target/aarch64-unknown-linux-gnu
# ---- end of the aarch64 section ---------------------------------------------

# ---- Windows x86_64 under wine (scripts/wine-test.sh, tests/wine/) ----------
step "Windows x86_64 under wine: core unit tests, C and C++ tests, TLS and the certificate store, token shared by processes, CLI demo, Ctrl-C, service stop (scripts/wine-test.sh)"
./scripts/wine-test.sh
drop_builds target/x86_64-pc-windows-gnu # the wine prefix stays: dist-test.sh uses it
# ---- end of the Windows section ---------------------------------------------

# ---- README samples (C, C++, Python, PHP; the Rust ones are doctests) -------
step "README samples (scripts/readme-samples.sh)"
./scripts/readme-samples.sh
# ---- end of the README section ----------------------------------------------

# ---- PHP binding (bindings/php, examples/php) -------------------------------
step "PHP: PHPUnit against the emulator, receiver under php -S, 8 processes sharing a token (scripts/php-test.sh)"
./scripts/php-test.sh
step "PHP under PHP-FPM and nginx: preload recipe, client page under load, webhooks of 8 organizations (scripts/php-fpm-test.sh)"
./scripts/php-fpm-test.sh
# ---- end of the PHP section -------------------------------------------------

# ---- Documentation site (scripts/docs.sh) -----------------------------------
step "documentation site: rustdoc of the workspace (no warnings), MkDocs --strict with it, the header and stubs (scripts/docs.sh)"
./scripts/docs.sh
# ---- end of the documentation section ---------------------------------------

# ---- Reliability (fuzz, fault matrix, load, secrets: docs/reliability.md) ---
# The fault matrix and secrets tests ran in `cargo test --workspace` above.
step "reliability: load across token expiry, fuzzing, secret scan of the Python and C output (scripts/reliability.sh)"
IIKO_WORKSPACE_TESTS_RAN=1 ./scripts/reliability.sh
drop_builds target/fuzz
# ---- end of the reliability section -----------------------------------------

# ---- Release artifacts (scripts/dist.sh, packaging/) ------------------------
# Last: the steps above need none of it, and run while the build finishes.
step "release artifacts: waiting for scripts/dist.sh (started at the beginning)"
rc=0
wait "$DIST_BUILD_PID" || rc=$?
DIST_BUILD_PID=""
cat "$DIST_BUILD_LOG"
if [ "$rc" != 0 ]; then
    echo "scripts/dist.sh failed (exit $rc); its output is above and in $DIST_BUILD_LOG" >&2
    exit "$rc"
fi
# dist-test.sh reads dist/ and target/dist-stage, not the builds they came from.
drop_builds target/dist-c
step "release artifacts installed as users install them: wheel without Rust, C archive with CMake and pkg-config, .deb with apt, composer package (scripts/dist-test.sh)"
DIST_SKIP_BUILD=1 ./scripts/dist-test.sh 2>&1 | tee target/reliability/dist-test.log
# ---- end of the release section ---------------------------------------------
step "all steps passed"
