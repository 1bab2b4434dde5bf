#!/usr/bin/env bash
# Regenerates BENCHMARKS.md: every benchmark of the repository in one run, with
# the machine it ran on. Not part of ./scripts/test.sh (about 15 to 20 minutes
# on 2 cores, most of it release builds). Run it by hand on a quiet machine:
#
#   ./scripts/bench-report.sh            # writes BENCHMARKS.md
#   BENCH_OUT=/tmp/b.md ./scripts/bench-report.sh
#
# Sections: Rust webhook parse against serde_json::Value (criterion), the cost
# of a token-cache hit, a whole call, typed answers and building a client
# (criterion), the HTTP servers (emulator and webhook
# listen: requests/s and latency at 1, 16, 64 connections), the durable inbox
# and the stores, the build budgets (scripts/budgets.sh; BENCH_BUDGETS=0 skips
# its clean build), the C API against the Rust API
# (scripts/c-bench.sh), Python against json.loads, orjson, iikocloudapi,
# requests and httpx (scripts/py-bench.sh), PHP FFI against json_decode
# (bindings/php/bench/webhooks.php), the sizes of the stripped
# shared library and the wheel, and the kept history of each change's before
# and after (benches/history.md). Ratios compare numbers from the same run;
# absolute times only say what this machine did.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT_MD=${BENCH_OUT:-$ROOT/BENCHMARKS.md}
WORK=$ROOT/target/bench-report
CRITERION=${CARGO_TARGET_DIR:-$ROOT/target}/criterion
mkdir -p "$WORK"
# The figures the charts are drawn from (scripts/bench_charts.py).
FIGURES=$WORK/figures
CHARTS=docs/site/img/bench
rm -rf "$FIGURES"
mkdir -p "$FIGURES"

step() { printf '\n==> [bench] %s\n' "$*" >&2; }

need=()
command -v python3 >/dev/null 2>&1 || need+=(python3 python3-venv)
command -v strip >/dev/null 2>&1 || need+=(binutils)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
# Without it the inbox and store tables lose their Redis rows.
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v php >/dev/null 2>&1 || need+=(php-cli)
if ((${#need[@]})); then
    step "installing ${need[*]}"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# ---- the machine ----
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
RAM=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
OS="$(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r)"
RUSTC=$(rustc --version)
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')

# ---- Rust: criterion ----
# The held-out-style bodies are deterministic; regenerating them here keeps
# the figures tied to scripts/gen_bench_bodies.py.
python3 scripts/gen_bench_bodies.py >/dev/null
step "criterion: webhook_parse and token_cache (release)"
rm -rf "$CRITERION"/webhook_parse_* "$CRITERION"/token_cache "$CRITERION"/client_call "$CRITERION"/api_parse_* "$CRITERION"/client_build "$CRITERION"/store_sqlite
cargo bench --locked --bench webhook_parse -- --warm-up-time 1 --measurement-time 3 \
    >"$WORK/webhook_parse.txt" 2>&1
cargo bench --locked --bench token_cache -- --warm-up-time 1 --measurement-time 3 \
    >"$WORK/token_cache.txt" 2>&1
cargo bench --locked --bench api_parse -- --warm-up-time 1 --measurement-time 3 \
    >"$WORK/api_parse.txt" 2>&1
cargo bench --locked --bench client_build -- --warm-up-time 1 --measurement-time 3 \
    >"$WORK/client_build.txt" 2>&1
cargo bench --locked --bench store -- --warm-up-time 1 --measurement-time 3 \
    >"$WORK/store.txt" 2>&1
python3 - "$CRITERION" >"$WORK/rust.md" <<'PYEOF'
import json, sys
from pathlib import Path
root = Path(sys.argv[1])

def mean_ns(group, fn):
    d = root / group / fn / "new"
    est = json.loads((d / "estimates.json").read_text())
    bench = json.loads((d / "benchmark.json").read_text())
    return est["mean"]["point_estimate"], (bench.get("throughput") or {}).get("Bytes")

print("| body | parse | parse + flat fields | parse + every typed eventInfo "
      "| serde_json::Value | Value / parse | Value / parse with eventInfo "
      "| syntax only (`IgnoredAny`) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
labels = {"small": "small, indented", "large": "large, 1,500 items", "delivery": "held-out delivery",
          "stop_list": "held-out stop list", "error": "held-out error",
          "lifecycle": "held-out lifecycle, 7 events", "mixed": "held-out mixed, 16 events",
          "odd_no_info_wrong_type": "odd: no eventInfo, wrong-typed eventInfo",
          "odd_order_null": "odd: order error with `order: null`",
          "odd_unknown_types": "odd: two unknown event types and a stop list",
          "odd_two_orgs": "odd: two organizations, three types",
          "odd_unknown_fields": "odd: unknown fields",
          "odd_lifecycle_two_orders": "odd: two orders' lifecycles",
          "odd_items_1500": "odd: 1,500 items"}
us = lambda ns: f"{ns / 1000:,.1f} µs" if ns < 1e6 else f"{ns / 1e6:,.2f} ms"
for size, label in labels.items():
    group = f"webhook_parse_{size}"
    if not (root / group).exists():
        continue
    t_ns, n = mean_ns(group, "typed")
    f_ns, _ = mean_ns(group, "typed_flat")
    p_ns, _ = mean_ns(group, "typed_payloads")
    v_ns, _ = mean_ns(group, "serde_json_value")
    i_ns, _ = mean_ns(group, "serde_json_ignored")
    print(f"| {label} ({n:,} B) | {us(t_ns)} | {us(f_ns)} | {us(p_ns)} | {us(v_ns)} "
          f"| {v_ns / t_ns:.2f}x | {v_ns / p_ns:.2f}x | {us(i_ns)} |")
print()
hit, _ = mean_ns("token_cache", "hit")
hit4, _ = mean_ns("token_cache", "hit_4_threads")
call_ns, _ = mean_ns("client_call", "organizations")
group = "api_parse_by_id_200_orders"
t_ns, n = mean_ns(group, "typed")
v_ns, _ = mean_ns(group, "serde_json_value")
mbs = lambda ns: n / (ns * 1e-9) / 1e6
api_rows = (f"| `deliveries/by_id` answer, 200 orders ({n:,} B) | {mbs(t_ns):,.0f} MB/s "
            f"| {mbs(v_ns):,.0f} MB/s | {mbs(t_ns) / mbs(v_ns):.2f}x |")
print("| token-cache hit (`Client::access_token`, warm) | time per call |")
print("|---|---|")
print(f"| 1 thread | {hit:,.0f} ns |")
print(f"| 4 threads on one client | {hit4:,.0f} ns |")
print()
print("| whole call (`Client::organizations`, in-process emulator, keep-alive loopback) | time per call |")
print("|---|---|")
print(f"| 1 thread | {call_ns / 1000:,.1f} µs |")
print()
print("| answer | typed (`api::models`) | serde_json::Value | typed / Value |")
print("|---|---|---|---|")
print(api_rows)
print()
print("| building a client (`cargo bench --bench client_build`) | time per client |")
print("|---|---|")
for fn, label in [("bundled_roots", "bundled roots only"),
                  ("system_store_shared", "system store, shared list (the default, after the first client)"),
                  ("system_store_plus_ca_file", "system store plus a one-root `ca_file` (read each build)"),
                  ("system_store_read_each_time", "reading the system store itself (paid once per process)")]:
    ns, _ = mean_ns("client_build", fn)
    print(f"| {label} | {us(ns)} |")
print()
print("| SQLite de-duplication store, one file (`cargo bench --bench store`; SQLite built for size) | time per call |")
print("|---|---|")
for fn, label in [("first_seen_new_key", "`first_seen` of a new key (a write)"),
                  ("is_seen", "`is_seen` (a read)")]:
    ns, _ = mean_ns("store_sqlite", fn)
    print(f"| {label} | {us(ns)} |")
PYEOF

# ---- HTTP servers: the emulator and webhook listen ----
step "HTTP servers: requests/s and latency at 1, 16, 64 connections (release)"
cargo bench --locked -p iikocloud-cli --bench http_servers 2>/dev/null | grep '^|' >"$WORK/http.md"

# ---- the durable inbox and the stores ----
step "durable inbox (webhook serve) and de-duplication per store (release; Redis when installed)"
cargo bench --locked -p iikocloud-cli --bench inbox_serve 2>/dev/null | grep '^|' >"$WORK/inbox.md" || true

# ---- build budgets ----
BUDGETS_MD="not measured (BENCH_BUDGETS=0)."
if [ "${BENCH_BUDGETS:-1}" != 0 ]; then
    step "clean release build of the workspace and the stripped library (scripts/budgets.sh)"
    BUDGETS_MD=$(printf '| checkout | clean release build (wall) | CPU (user + sys) | stripped `libiikocloud.so` |\n|---|---|---|---|\n'; ./scripts/budgets.sh)
fi

# ---- what ships: the release profile of scripts/dist-wheel.sh ----
# From here on, every release build measured is built with the released
# artifacts' LTO (fat; py-bench.sh and c-bench.sh also say so themselves),
# and the Python wheel and the C library the PHP tables use with their
# profile too (py-bench.sh trains it); the budgets above measure the
# workspace's plain release build.
source scripts/dist-wheel.sh

# ---- C API against the Rust API ----
step "C API against the Rust API (scripts/c-bench.sh)"
./scripts/c-bench.sh 2>&1 | grep -vE '^ *(Compiling|Finished|Running|Blocking|Updating|Downloaded?) ' >"$WORK/c.md"

# ---- Python ----
step "Python (scripts/py-bench.sh)"
BENCH_FIGURES=$FIGURES ./scripts/py-bench.sh >"$WORK/py.md" 2>"$WORK/py.err" || {
    cat "$WORK/py.err" >&2
    exit 1
}

# ---- telemetry off against on (issue 32) ----
# A function of its own so the section merges apart from the others: the
# Rust criterion bench (benches/telemetry.rs) and the Python timing
# (bindings/python/bench/telemetry.py) on the release wheel py-bench.sh
# installed in target/py-bench-venv.
telemetry_section() {
    step "telemetry off against on (benches/telemetry.rs, bindings/python/bench/telemetry.py)"
    cargo bench --locked --features otel-metrics --bench telemetry -- --warm-up-time 1 --measurement-time 3 \
        >"$WORK/telemetry-rust.txt" 2>&1
    target/py-bench-venv/bin/python -m pip install -q --disable-pip-version-check "opentelemetry-sdk>=1.23"
    {
        echo '| Rust (criterion, median) | time |'
        echo '|---|---:|'
        awk '/^telemetry_/ { name = $1 } /time:/ && name { for (i = 1; i <= NF; i++) if ($i == "time:") printf "| `%s` | %s %s |\n", name, $(i + 3), $(i + 4); name = "" }' \
            "$WORK/telemetry-rust.txt"
        echo
        (cd target && ../target/py-bench-venv/bin/python ../bindings/python/bench/telemetry.py)
    } >"$WORK/telemetry.md"
}
telemetry_section

# ---- sizes ----
step "release shared library (fat LTO and the profile py-bench.sh trained, as released) and sizes"
HOST=$(rustc -vV | sed -n 's/^host: //p')
LIB=target/$HOST/release/libiikocloud.so
env "$(pgo_flags_var "$HOST")=-Cprofile-use=$(pgo_profdata "$HOST")" \
    cargo build --release --locked --target "$HOST" -p iikocloud-c >/dev/null 2>&1
cp "$LIB" "$WORK/libiikocloud.so"
strip "$WORK/libiikocloud.so"
SO_RAW=$(stat -c %s "$LIB")
SO=$(stat -c %s "$WORK/libiikocloud.so")
WHEEL_FILE=$(ls target/py-wheels-release/iikocloud-*.whl | head -1)
WHEEL=$(stat -c %s "$WHEEL_FILE")

# ---- PHP FFI ----
# Debian's php-cli has FFI; a report without PHP's tables is not written.
step "PHP FFI parse against json_decode (bindings/php/bench/webhooks.php)"
# (grep without -q: an early exit would end php with SIGPIPE, and pipefail
# would call the whole test false.)
php -m | grep -ix ffi >/dev/null || { echo "bench-report: php has no FFI extension" >&2; exit 1; }
PHP_MD=$(IIKOCLOUD_LIB=$ROOT/$LIB \
    php -d ffi.enable=1 bindings/php/bench/webhooks.php "$FIGURES/php-bodies.json")

# ---- charts ----
step "charts of the main ratios ($CHARTS, matplotlib)"
target/py-bench-venv/bin/python -m pip install -q --disable-pip-version-check matplotlib
target/py-bench-venv/bin/python scripts/bench_charts.py "$CHARTS" python="$FIGURES/python-bodies.json" \
    php="$FIGURES/php-bodies.json" calls="$FIGURES/calls.json"

# Each chart above the table it draws (the table's header row names it).
with_charts() {
    awk -v dir="$CHARTS" '
        function chart(file, alt) { if (system("test -f " dir "/" file) == 0) printf "![%s](%s/%s)\n\n", alt, dir, file }
        /^\| body \| bytes \| events \| parse \|/ { chart("python-webhooks.svg", "Python: parse and full typed read against orjson and the peer, by body size") }
        /^\| \/api\/1\/organizations, calls\/s \(ratio/ { chart("python-calls.svg", "Python: calls per second against requests and httpx") }
        /^\| webhook body \(`benches\/data\/bodies`\)/ { chart("php-webhooks.svg", "PHP: parse against json_decode, by body size") }
        { print }'
}

# Bytes with thousands separators, and MiB.
human_size() { awk -v b="$1" 'BEGIN { s = sprintf("%d", b); o = ""; while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) } printf "%s%s B (%.1f MiB)", s, o, b / 1048576 }'; }

# ---- BENCHMARKS.md ----
# The release artifacts take a cross build of every target (scripts/dist.sh),
# which this script does not run. When it has not run here, the kept report's
# table goes on, marked with the report it comes from, instead of vanishing.
DIST_SIZES=$WORK/dist-sizes.md
rm -f "$DIST_SIZES"
if [ -f "$ROOT/target/dist-stage/sizes.md" ]; then
    cp "$ROOT/target/dist-stage/sizes.md" "$DIST_SIZES"
elif [ -f "$ROOT/BENCHMARKS.md" ]; then
    kept_from=$(sed -n 's/^Regenerated by .* on \(.* UTC\)\..*/\1/p' "$ROOT/BENCHMARKS.md" | head -1)
    # The kept section from its table (or the line saying it was kept before) on.
    kept_table=$(awk '/^## / { inside = /^## Release artifacts/; next }
        inside && (started || /^[|]/ || /^Kept from the report of /) { started = 1; print }' \
        "$ROOT/BENCHMARKS.md")
    if [ -n "$kept_table" ] && [ -n "$kept_from" ]; then
        case $kept_table in
        "Kept from the report of "*) printf '%s\n' "$kept_table" ;;
        *) printf 'Kept from the report of %s: `./scripts/dist.sh` has not run since.\n\n%s\n' \
            "$kept_from" "$kept_table" ;;
        esac >"$DIST_SIZES"
    fi
fi

step "writing $OUT_MD"
{
    cat <<EOF
# Benchmarks

Regenerated by \`./scripts/bench-report.sh\` on $DATE. Every ratio compares
numbers measured in the same run on the same machine; absolute times are only
indicative (a shared 2-core machine may have had other work). To compare two builds on a
busy machine, \`./scripts/bench-instructions.sh\` counts the Python webhook reads in
instructions instead (the history below says how).

| machine | |
|---|---|
| CPU | $CPU ($(nproc) cores visible) |
| RAM | $RAM |
| OS | $OS |
| Rust | $RUSTC |
| Python | $(python3 --version 2>&1) |

## Rust: webhook parse and the token cache

\`cargo bench --bench webhook_parse\` (means of criterion's samples): the parse
of a webhook body into typed events (each event checked; its typed
\`eventInfo\` is read on first use), the same with the flat fields a receiver
reads (ids, version, status, sum, phone, de-duplication key), and with every
event's whole typed \`eventInfo\`, against an untyped \`serde_json::Value\` of
the same bytes and serde_json's syntax-only floor. \`cargo bench --bench
token_cache\`: what every call pays to get the cached token.

EOF
    cat "$WORK/rust.md"
    cat <<'EOF'

## HTTP servers: the emulator and `webhook listen`

`cargo bench -p iikocloud-cli --bench http_servers`: N keep-alive
connections, each sending its next request as soon as the answer arrives,
for 3 s per row (`BENCH_SECONDS`); the emulator answers an authorized
`POST /api/1/organizations`, `webhook listen` a 9.6 KB `DeliveryOrderUpdate`
body. The load threads share the 2 cores with the server.

EOF
    cat "$WORK/http.md"
    cat <<'EOF'

Before the move to hyper (tiny_http, a thread per connection from a pool;
`webhook listen` handled one request at a time), same bench, same machine,
2026-11-23. The 3 s maxima are connections left waiting in tiny_http's pool
queue behind threads held by other keep-alive connections:

| server | connections | requests/s | p50 ms | p99 ms | max ms | requests | errors |
|---|---:|---:|---:|---:|---:|---:|---:|
| emulator | 1 | 7856 | 0.12 | 0.23 | 4.27 | 23576 | 0 |
| emulator | 16 | 10781 | 1.32 | 4.04 | 9.86 | 32387 | 0 |
| emulator | 64 | 9731 | 6.20 | 11.45 | 3016.66 | 29355 | 0 |
| webhook listen | 1 | 9906 | 0.10 | 0.14 | 4.24 | 29724 | 0 |
| webhook listen | 16 | 12790 | 0.38 | 0.59 | 2999.52 | 38399 | 0 |
| webhook listen | 64 | 12124 | 5.32 | 6.48 | 9.19 | 36455 | 0 |

## The durable inbox and the stores

`cargo bench -p iikocloud-cli --bench inbox_serve` (release, 3 s per row): N keep-alive
connections post a new `DeliveryOrderUpdate` each time to one `webhook serve` process (every
request verified, parsed, de-duplicated, written and synced before the 200); then one thread
checks new keys with `Store::first_seen`. Redis (when `redis-server` is installed) runs on the
same machine with `appendfsync always`; the disk's sync time moves these figures most.

EOF
    cat "$WORK/inbox.md"
    cat <<EOF

## Build budgets

\`./scripts/budgets.sh\`: a clean release build of the workspace in a fresh target directory
(wall and CPU time) and the stripped C library (budget: 8 MiB).

$BUDGETS_MD

EOF
    cat <<'EOF'
## C API against the Rust API

`./scripts/c-bench.sh`: `iiko_webhook_parse` + `iiko_events_free` (and reading
the fields a POS reads) against the Rust API on the same bodies, one process,
release build with the released library's LTO (fat; not its profile).
The cost per event is the difference of the two sides' best
medians; the noise column is how far the Rust side's own four medians fell
apart, per event: a cost inside it is not a measured cost.

```
EOF
    cat "$WORK/c.md"
    cat <<'EOF'
```

## Python

`./scripts/py-bench.sh`: the release wheel, built as released (fat LTO, and the
profile of `scripts/pgo-train.py`'s and `scripts/pgo-train.c`'s training, which
never reads these bodies), against `json.loads`, `orjson`, the `iikocloudapi`
package, `requests` and `httpx`, on the same bodies and the same in-process
emulator.

EOF
    with_charts <"$WORK/py.md"
    cat <<'EOF'

## Telemetry off and on

`cargo bench --features otel-metrics --bench telemetry` (a whole call and a webhook request,
telemetry off, then on with the OpenTelemetry SDK) and `bindings/python/bench/telemetry.py`
(the release wheel: calls per second and `webhooks.parse`, off and on, each in a process of its
own). Off must match the sections above within the run's noise.

EOF
    cat "$WORK/telemetry.md"
    cat <<EOF

## PHP FFI

EOF
    printf '%s\n' "$PHP_MD" | with_charts
    cat <<EOF

## Sizes

| artifact | size |
|---|---|
| \`libiikocloud.so\`, release as released (fat LTO, the profile), stripped | $(human_size "$SO") |
| \`libiikocloud.so\`, the same as built (\`debug = 1\` in the profile) | $(human_size "$SO_RAW") |
| wheel \`$(basename "$WHEEL_FILE")\` (as \`maturin build --release\` makes it) | $(human_size "$WHEEL") |
EOF
    if [ -f "$DIST_SIZES" ]; then
        printf '\n## Release artifacts (`./scripts/dist.sh`)\n\n'
        cat "$DIST_SIZES"
    fi
    # Each change's before and after, kept by hand (see the file).
    printf '\n'
    sed 's/^# /## /' "$ROOT/benches/history.md"
} >"$OUT_MD"
echo "wrote $OUT_MD" >&2
