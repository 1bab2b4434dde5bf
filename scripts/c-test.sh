#!/usr/bin/env bash
# The C ABI checks, run by scripts/test.sh (or alone: ./scripts/c-test.sh).
#
#  1. installs what is missing (gcc, g++, make, valgrind, pkg-config, jq,
#     php-cli, the pinned cbindgen);
#  2. regenerates include/iikocloud.h and fails if it differs from the
#     committed one;
#  3. builds libiikocloud.so / libiikocloud.a and the emulator;
#  4. compiles the C tests (-Wall -Wextra -Werror; test_operations runs the
#     operation table and tests/vectors/operations.json), the C++ test and the
#     examples (-Werror), and runs them against a freshly started emulator;
#  5. runs the C test under valgrind (all but the multi-megabyte bodies, which
#     take valgrind a minute) and, built with -fsanitize=address,undefined
#     against the static library, fully under ASan/UBSan (after proving ASan is
#     live with a deliberate overflow);
#  6. checks that PHP's FFI::cdef loads the header as it is and calls iiko_version();
#  7. checks `make install` and the pkg-config file;
#  8. prints "C API: N passed, M failed" over every run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# The pinned cbindgen: bindings/c/Makefile says which.
CBINDGEN_VERSION=$(sed -n 's/^CBINDGEN_VERSION := //p' bindings/c/Makefile)
[ -n "$CBINDGEN_VERSION" ] || { echo "no CBINDGEN_VERSION in bindings/c/Makefile" >&2; exit 1; }
OUT=$ROOT/target/c-test
mkdir -p "$OUT/lib"

step() { printf '\n==> [c %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# ---- 1. tools ----
missing=()
for tool in gcc:gcc g++:g++ make:make valgrind:valgrind pkg-config:pkg-config jq:jq php:php-cli \
    openssl:openssl python3:python3; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ "$(cbindgen --version 2>/dev/null)" != "cbindgen $CBINDGEN_VERSION" ]; then
    step "installing cbindgen $CBINDGEN_VERSION"
    cargo install cbindgen --version "=$CBINDGEN_VERSION" --locked --quiet
fi

# ---- 2. header ----
# (The operation table and include/iikocloud_ops.hpp are generated from
# spec/operations.json; scripts/test.sh checks them with codegen --check.)
step "regenerating include/iikocloud.h (cbindgen $CBINDGEN_VERSION)"
make --no-print-directory -C bindings/c header
if ! git diff --exit-code -- include/; then
    echo "include/iikocloud.h is out of date: run 'make -C bindings/c header' and commit it" >&2
    exit 1
fi
# PHP FFI cannot parse these (see the header's notes): fail early if cbindgen emits them.
if grep -nE 'extern "C"|enum [A-Za-z_]+ *:|^[A-Z_]+\(' include/iikocloud.h; then
    echo "include/iikocloud.h has a construct PHP FFI cannot load" >&2
    exit 1
fi

# ---- 3. build ----
step "building libiikocloud (debug, with the test hooks) and the emulator"
# test-hooks exports iiko_debug_force_panic for the panic-boundary cases; the
# release build (scripts/dist.sh) has no such export. The build of test.sh's
# `cargo test --workspace` (scripts/workspace-features.sh), so after it only
# the C library is linked.
# shellcheck source=scripts/workspace-features.sh
source scripts/workspace-features.sh
build_workspace_debug
LIBDIR=$ROOT/target/debug
# The shared library's SONAME is libiikocloud.so.0.<minor>; link through a
# directory holding that name, as an installed copy would.
SONAME=$(readelf -d "$LIBDIR/libiikocloud.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
ln -sf "$LIBDIR/libiikocloud.so" "$OUT/lib/$SONAME"
ln -sf "$LIBDIR/libiikocloud.so" "$OUT/lib/libiikocloud.so"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
# Native libraries a static link needs (rustc --print native-static-libs).
STATIC_LIBS="-lpthread -ldl -lm -lrt -lutil -lgcc_s -lc"

CFLAGS=(-std=c11 -g -Wall -Wextra -Werror -Wpedantic -Iinclude -Itests/c)
CXXFLAGS=(-std=c++17 -g -Wall -Wextra -Werror -Wpedantic -Iinclude)
SHARED=(-L"$OUT/lib" -liikocloud -Wl,-rpath,"$OUT/lib" -pthread)

step "compiling the C and C++ tests and the examples (-Werror)"
gcc "${CFLAGS[@]}" tests/c/test_capi.c -o "$OUT/test_capi" "${SHARED[@]}"
gcc "${CFLAGS[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined tests/c/test_capi.c -o "$OUT/test_capi_asan" \
    "$LIBDIR/libiikocloud.a" $STATIC_LIBS -pthread
gcc "${CFLAGS[@]}" tests/c/test_network.c -o "$OUT/test_network" "${SHARED[@]}"
gcc "${CFLAGS[@]}" tests/c/test_operations.c -o "$OUT/test_operations" "${SHARED[@]}"
gcc "${CFLAGS[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined tests/c/test_operations.c -o "$OUT/test_operations_asan" \
    "$LIBDIR/libiikocloud.a" $STATIC_LIBS -pthread
g++ "${CXXFLAGS[@]}" -Itests/c tests/c/test_cpp.cpp -o "$OUT/test_cpp" "${SHARED[@]}"
# The telemetry table is set once per process: programs of their own.
gcc "${CFLAGS[@]}" tests/c/test_telemetry.c -o "$OUT/test_telemetry" "${SHARED[@]}"
g++ "${CXXFLAGS[@]}" tests/c/test_telemetry_cpp.cpp -o "$OUT/test_telemetry_cpp" "${SHARED[@]}"
for src in examples/c/*.c; do
    gcc "${CFLAGS[@]}" "$src" -o "$OUT/$(basename "$src" .c)" "${SHARED[@]}"
done
for src in examples/cpp/*.cpp; do
    g++ "${CXXFLAGS[@]}" "$src" -o "$OUT/$(basename "$src" .cpp)_cpp" "${SHARED[@]}"
done

# ---- emulator ----
# shellcheck source=scripts/emulator-env.sh
. "$ROOT/scripts/emulator-env.sh"
trap stop_emulator EXIT
export IIKO_VECTORS=$ROOT/tests/vectors
export IIKO_EXPECTED_VERSION=$VERSION
# The language-neutral webhook vectors, flattened for C (see tests/c/vectors.jq).
export IIKO_VECTORS_TSV=$OUT/vectors.tsv
jq -r -f tests/c/vectors.jq tests/vectors/webhook_vectors.json >"$IIKO_VECTORS_TSV"
# The operation vectors, flattened the same way (see tests/c/ops_vectors.jq).
export IIKO_OPS_TSV=$OUT/ops_vectors.tsv
jq -r -f tests/c/ops_vectors.jq tests/vectors/operations.json >"$IIKO_OPS_TSV"
# The limit vectors (see tests/c/limit_vectors.jq).
export IIKO_LIMITS_TSV=$OUT/limit_vectors.tsv
jq -r -f tests/c/limit_vectors.jq tests/vectors/limits.json >"$IIKO_LIMITS_TSV"
# The panic-boundary case panics on purpose; keep its report short.
export RUST_BACKTRACE=0

TOTAL_PASSED=0
TOTAL_FAILED=0
# Runs a test program, echoes its output and adds its "N passed, M failed" line.
run_suite() {
    local label=$1
    shift
    local log=$OUT/$label.log
    local rc=0
    "$@" >"$log" 2>&1 || rc=$?
    grep -vE "^(thread '.*panicked|iiko_debug_force_panic was called|note: run with)" "$log" || true
    local line
    line=$(grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 || true)
    if [ -z "$line" ]; then
        echo "[$label] ended without a summary (exit $rc)" >&2
        TOTAL_FAILED=$((TOTAL_FAILED + 1))
        return
    fi
    local passed failed
    passed=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
    failed=$(sed -E 's/.*passed, ([0-9]+) failed/\1/' <<<"$line")
    if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
        echo "[$label] exited with $rc" >&2
        failed=1
    fi
    TOTAL_PASSED=$((TOTAL_PASSED + passed))
    TOTAL_FAILED=$((TOTAL_FAILED + failed))
}

# ---- 4. native runs ----
step "C test (shared library)"
start_emulator
run_suite native "$OUT/test_capi"

step "C operations test (table, bad arguments, commands, tests/vectors/operations.json)"
start_emulator
run_suite operations "$OUT/test_operations"

step "C++ test"
start_emulator
run_suite cpp "$OUT/test_cpp"

step "telemetry table and capture (C, C++)"
start_emulator
run_suite telemetry "$OUT/test_telemetry"
start_emulator
run_suite telemetry_cpp "$OUT/test_telemetry_cpp"

step "examples (C and C++)"
start_emulator
examples_passed=0
examples_failed=0
# Runs an example; the rest of the arguments are the expected exit status, a
# text its output must contain, and its command line.
run_example() {
    local label=$1 want_rc=$2 want_text=$3
    shift 3
    local rc=0
    "$@" >"$OUT/example.log" 2>&1 || rc=$?
    if [ "$rc" = "$want_rc" ] && grep -qF -- "$want_text" "$OUT/example.log"; then
        examples_passed=$((examples_passed + 1))
        echo "ok   $label"
    else
        examples_failed=$((examples_failed + 1))
        echo "FAIL $label (exit $rc, wanted $want_rc and \"$want_text\")"
        cat "$OUT/example.log"
    fi
}
for suffix in "" _cpp; do
    IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key \
        WEBHOOK_URL=http://127.0.0.1:9/hook WEBHOOK_TOKEN=example-token \
        run_example "example_client$suffix" 0 "set to http://127.0.0.1:9/hook" \
        "$OUT/example_client$suffix"
    run_example "example_webhook$suffix (file)" 0 "8 events" "$OUT/example_webhook$suffix" \
        --token s3cret --authorization "Bearer s3cret" "$IIKO_VECTORS/payloads/multi_all_types.json"
    run_example "example_webhook$suffix (stdin)" 0 "ProductNotFound" sh -c \
        "'$OUT/example_webhook$suffix' --token s3cret --authorization s3cret - \
         < '$IIKO_VECTORS/payloads/delivery_order_error.json'"
    run_example "example_webhook$suffix (wrong token)" 1 "answer HTTP 401" \
        "$OUT/example_webhook$suffix" --token s3cret --authorization guess \
        "$IIKO_VECTORS/payloads/multi_all_types.json"
done
IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key \
    ORG_ID=441e1320-3f58-4702-9f9e-aa34cdef9c04 TERMINAL_GROUP_ID=7b668cda-784b-4938-bd54-cd2bd147a44c \
    PRODUCT_ID=91e69af5-c0e2-4057-a34b-2e98edbed03e \
    run_example example_operations 0 "sum 199.8" "$OUT/example_operations"
IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key \
    ORG_ID=441e1320-3f58-4702-9f9e-aa34cdef9c04 TERMINAL_GROUP_ID=7b668cda-784b-4938-bd54-cd2bd147a44c \
    PRODUCT_ID=00000000-0000-4000-8000-000000000007 \
    run_example "example_operations (failed command)" 1 "IIKO_STATUS_COMMAND_FAILED" \
    "$OUT/example_operations"
IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key \
    ORG_ID=441e1320-3f58-4702-9f9e-aa34cdef9c04 TERMINAL_GROUP_ID=7b668cda-784b-4938-bd54-cd2bd147a44c \
    PRODUCT_ID=91e69af5-c0e2-4057-a34b-2e98edbed03e \
    run_example example_operations_cpp 0 "sum 199.8" "$OUT/example_operations_cpp"
IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key \
    ORG_ID=441e1320-3f58-4702-9f9e-aa34cdef9c04 TERMINAL_GROUP_ID=7b668cda-784b-4938-bd54-cd2bd147a44c \
    PRODUCT_ID=00000000-0000-4000-8000-000000000007 \
    run_example "example_operations_cpp (failed command)" 1 "the command failed: ProductNotFound" \
    "$OUT/example_operations_cpp"
echo "examples: $examples_passed passed, $examples_failed failed"
TOTAL_PASSED=$((TOTAL_PASSED + examples_passed))
TOTAL_FAILED=$((TOTAL_FAILED + examples_failed))

step "C test over HTTPS with ca_file and a proxy (scripts/tls-fixture.sh)"
# shellcheck source=scripts/tls-fixture.sh
. scripts/tls-fixture.sh
tls_fixture_start "$OUT/tls" till c-proxy-pw-7d2a
trap 'tls_fixture_stop; stop_emulator' EXIT
run_suite network "$OUT/test_network"
if ! grep -q '^tunnel 127.0.0.1:' "$IIKO_TLS_PROXY_LOG"; then
    echo "[network] no call went through the proxy" >&2
    TOTAL_FAILED=$((TOTAL_FAILED + 1))
fi
tls_fixture_stop

# ---- 5. valgrind and sanitizers ----
step "C test under valgrind"
start_emulator
run_suite valgrind valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
    "$OUT/test_capi" -huge_bodies -asan_probe

step "C operations test under valgrind"
start_emulator
run_suite operations_valgrind valgrind --quiet --leak-check=full \
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=1 "$OUT/test_operations"

step "C telemetry test under valgrind"
start_emulator
run_suite telemetry_valgrind valgrind --quiet --leak-check=full \
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=1 "$OUT/test_telemetry"

step "C test under AddressSanitizer + UndefinedBehaviorSanitizer"
# Prove ASan is really on: the binary carries its runtime, and a deliberate
# heap overflow in the probe case is caught.
if ! nm "$OUT/test_capi_asan" | grep '__asan_init' >/dev/null; then
    echo "test_capi_asan is not instrumented by ASan" >&2
    exit 1
fi
if IIKO_BASE_URL=http://127.0.0.1:1 IIKO_ASAN_PROBE=1 "$OUT/test_capi_asan" asan_probe \
    >"$OUT/asan-probe.log" 2>&1; then
    echo "the ASan probe was not caught: sanitizers are not active" >&2
    exit 1
fi
grep -q 'heap-buffer-overflow' "$OUT/asan-probe.log" || {
    cat "$OUT/asan-probe.log" >&2
    echo "the ASan probe failed without an ASan report" >&2
    exit 1
}
echo "ASan is active (the probe's heap-buffer-overflow was reported)"
start_emulator
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite asan "$OUT/test_capi_asan" -asan_probe
start_emulator
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite operations_asan "$OUT/test_operations_asan"
stop_emulator

# ---- 6. PHP FFI ----
step "PHP FFI loads the header as it is and parses a webhook body"
if php -r 'exit(extension_loaded("ffi") ? 0 : 1);'; then
    php -d ffi.enable=1 -r '
        $ffi = FFI::cdef(file_get_contents($argv[1]), $argv[2]);
        $v = $ffi->iiko_version(); // a const char * comes back as a PHP string
        if ($v !== $argv[3]) { fwrite(STDERR, "iiko_version() = $v\n"); exit(1); }
        // A PHP string goes straight into a (const char *, size_t) body.
        $body = file_get_contents($argv[4]);
        $events = $ffi->new("iiko_events*");
        $st = $ffi->iiko_webhook_parse($body, strlen($body), 0, 0, 0, FFI::addr($events), null);
        $n = $ffi->iiko_events_count($events);
        $sum = $ffi->iiko_events_sum($events, 0);
        $ffi->iiko_events_free($events);
        if ($st !== 0 || $n !== 8 || $sum !== "1780") { fwrite(STDERR, "parse: $st $n $sum\n"); exit(1); }
        echo "php: iiko_version() = $v; iiko_webhook_parse: $n events, first sum $sum\n";' \
        include/iikocloud.h "$LIBDIR/libiikocloud.so" "$VERSION" \
        "$IIKO_VECTORS/payloads/multi_all_types.json"
else
    echo "php has no FFI extension here; skipped"
fi

# ---- 7. install ----
step "make install and pkg-config"
PREFIX=$OUT/prefix
rm -rf "$PREFIX"
# The same packages and features as the build above, so that make finds it
# up to date (cargo unifies features over the packages selected).
make -s -C bindings/c install PREFIX="$PREFIX" PROFILE=debug CARGO_FLAGS="${WORKSPACE_DEBUG_BUILD[*]}"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
test "$(pkg-config --modversion iikocloud)" = "$VERSION"
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror examples/c/example_webhook.c -o "$OUT/installed_shared" \
    $(pkg-config --cflags --libs iikocloud) -Wl,-rpath,"$PREFIX/lib"
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror examples/c/example_webhook.c -o "$OUT/installed_static" \
    $(pkg-config --cflags iikocloud) "$PREFIX/lib/libiikocloud.a" \
    $(pkg-config --static --libs iikocloud | sed 's/-liikocloud//')
"$OUT/installed_shared" --token t --authorization t "$IIKO_VECTORS/payloads/edge_empty_array.json" >/dev/null
"$OUT/installed_static" --token t --authorization t "$IIKO_VECTORS/payloads/edge_empty_array.json" >/dev/null
echo "installed library, header and iikocloud.pc work (shared and static)"

echo
echo "C API: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
[ "$TOTAL_FAILED" = 0 ]
