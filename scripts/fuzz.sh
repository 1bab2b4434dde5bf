#!/usr/bin/env bash
# Fuzzing (cargo fuzz, libFuzzer + AddressSanitizer) of the webhook body
# parser, the Authorization verifier, the C entry points that take bytes and
# the check of a request by name against the typed path.
# See docs/reliability.md.
#
#   ./scripts/fuzz.sh                        # FUZZ_SECONDS (20) each, request_check left out
#   FUZZ_SECONDS=3600 ./scripts/fuzz.sh      # the longer run (optimized build), every target
#   FUZZ_BUILD=release ./scripts/fuzz.sh     # optimized build for a short run too
#   ./scripts/fuzz.sh webhook_verify c_api   # some targets only
#
# First replays every saved crash (fuzz/regressions/<target>/) and the seeds
# through the same checks on the stable toolchain. Then builds the targets and
# runs each for a bounded time, seeded with tests/vectors/payloads and
# fuzz/seeds/<target>; new inputs go to fuzz/corpus/<target> (not committed).
# A crash is copied to fuzz/regressions/<target>/ and the script fails: fix the
# bug, then commit that file, and the replay keeps it fixed.
#
# cargo fuzz needs nightly-only flags (-Zsanitizer); with only a stable
# toolchain, RUSTC_BOOTSTRAP=1 lets the stable compiler accept them.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${FUZZ_SECONDS:-20}
TARGETS=("$@")
# request_check needs the typed operations (the fuzz crate's `typed`
# feature), and with them the sanitizer build took 815 CPU-seconds, 783 of
# them the core and what links it; in the test command, 6:53 with them and
# 3:46 without. Short runs (the test command's) leave it out and build the
# core without them; its seeds and saved crashes are replayed below all the
# same. Longer runs, or naming it, fuzz it too.
if [ ${#TARGETS[@]} -eq 0 ]; then
    TARGETS=(webhook_parse webhook_verify c_api)
    if [ "$SECONDS_EACH" -gt 60 ]; then TARGETS+=(request_check); fi
fi
FEATURES=()
for t in "${TARGETS[@]}"; do
    if [ "$t" = request_check ]; then FEATURES=(--features typed); fi
done
LOGS=$ROOT/target/fuzz-logs
mkdir -p "$LOGS"
# The CI smoke test (20 s per target, one minute in all) spent about twelve
# minutes compiling the fully optimized, instrumented core: short runs build
# the dev profile at opt-level 1 (same sanitizer and assertions; measured
# 1,565 executions/s of webhook_parse, against 17/s at opt-level 0), runs
# over a minute per target build optimized.
if [ -z "${FUZZ_BUILD:-}" ]; then
    if [ "$SECONDS_EACH" -le 60 ]; then FUZZ_BUILD=dev; else FUZZ_BUILD=release; fi
fi
case $FUZZ_BUILD in
# (The opt-level is passed to the fuzz commands only: the replay below shares
# the workspace's debug build and must not rebuild it.)
# Line tables only: a crash's stack trace keeps its files and lines, and the
# sanitizer build no longer writes full debug info for the whole core.
dev) MODE=(--dev) FUZZ_ENV=(CARGO_PROFILE_DEV_OPT_LEVEL=1 CARGO_PROFILE_DEV_DEBUG=line-tables-only) ;;
release) MODE=(--release --debug-assertions) FUZZ_ENV=() ;;
*)
    echo "FUZZ_BUILD must be dev or release, not $FUZZ_BUILD" >&2
    exit 2
    ;;
esac

step() { printf '\n==> [fuzz %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# libFuzzer is C++, built by libfuzzer-sys with the system compiler.
if ! command -v g++ >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
    step "installing g++"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq g++ >/dev/null
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    step "installing cargo-fuzz"
    cargo install cargo-fuzz --locked --quiet
fi

step "replaying saved crashes and seeds (stable toolchain)"
# The root target directory: the debug build of the core and its
# dependencies from `cargo test --workspace` is reused (fuzz/Cargo.lock pins
# the same versions as Cargo.lock).
cargo test --quiet --locked --manifest-path fuzz/Cargo.toml -p iikocloud-fuzz-checks \
    --target-dir "$ROOT/target"

if [ ${#FEATURES[@]} -eq 0 ]; then
    echo "request_check is not fuzzed in a run of $SECONDS_EACH s per target (its seeds and saved" \
        "crashes were replayed above); FUZZ_SECONDS over 60, or naming it, fuzzes it"
fi
step "building the fuzz targets ($FUZZ_BUILD, ASan, debug assertions): ${TARGETS[*]}"
cd fuzz
export RUSTC_BOOTSTRAP=1
for t in "${TARGETS[@]}"; do
    env "${FUZZ_ENV[@]}" cargo fuzz build "${MODE[@]}" "${FEATURES[@]}" --target-dir "$ROOT/target/fuzz" "$t" >/dev/null
done

failed=()
for t in "${TARGETS[@]}"; do
    step "$t for ${SECONDS_EACH} s"
    mkdir -p "corpus/$t" "seeds/$t" "regressions/$t"
    log=$LOGS/$t.log
    rc=0
    # -timeout: an input running 10 s is a hang, reported like a crash.
    env "${FUZZ_ENV[@]}" cargo fuzz run "${MODE[@]}" "${FEATURES[@]}" --target-dir "$ROOT/target/fuzz" "$t" \
        "corpus/$t" "$ROOT/tests/vectors/payloads" "seeds/$t" -- \
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1 || rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    corpus=$(find "corpus/$t" -type f | wc -l)
    if [ "$rc" = 0 ]; then
        echo "$t: ${runs:-?} executions in ${SECONDS_EACH} s, no crash (corpus: $corpus inputs)"
    else
        grep -E 'panicked|ERROR: |SUMMARY|Test unit written' "$log" | head -20 || tail -30 "$log"
        for f in artifacts/"$t"/*; do
            [ -f "$f" ] || continue
            cp "$f" "regressions/$t/"
            echo "saved $f as fuzz/regressions/$t/$(basename "$f")"
        done
        echo "$t: CRASH after ${runs:-?} executions (exit $rc); full log: $log"
        failed+=("$t")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]}" >&2
    exit 1
fi
