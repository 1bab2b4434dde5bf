#!/usr/bin/env bash
# Windows x86_64 under wine, run by scripts/test.sh (or alone:
# ./scripts/wine-test.sh). The programs are Windows programs (PE files built
# for x86_64-pc-windows-gnu, C and C++ by MinGW); the emulator, the TLS
# fixture's proxy and Redis run natively and are reached over loopback.
#
#  1. installs what is missing and prepares the wine prefix (scripts/wine-env.sh;
#     on Wine 8 it adds the ProcessPrng stand-in, test setup only);
#  2. clippy (-D warnings) for the target; builds iikocloud.dll (debug, with
#     the test hooks) and iikocloud.exe;
#  3. runs the core's unit tests (but the typed operations') under wine:
#     among them the Windows meanings (owner-only DACLs read back, SQLite
#     paths with a drive, the lock file);
#  4. compiles the C tests, the C++ test and the examples with MinGW
#     (-Werror) against iikocloud.dll and runs them against the emulator:
#     every C object (client calls, operations by number with wait, webhook
#     parse/verify/receive, de-duplicator and ordering guard on SQLite, the
#     inbox, the panic boundary);
#  5. TLS: ca_file and a proxy; the system store without the test root,
#     with it named by SSL_CERT_FILE, with it in the Windows certificate store;
#  6. two processes sharing one token through the token cache directory;
#  7. iikocloud.exe: the demo; webhook serve stopped by Ctrl-C; as a Windows
#     service stopped by sc stop; webhook consume --exec through cmd;
#  8. prints "wine: N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/target/wine-test
TRIPLE=x86_64-pc-windows-gnu
WINBUILD=$ROOT/target/$TRIPLE/debug

step() { printf '\n==> [wine %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# shellcheck source=scripts/wine-env.sh
. scripts/wine-env.sh
wine_env_setup

PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    PIDS=()
    if [ -n "${CERT_ADDED:-}" ]; then
        wine "$OUT/cert_store.exe" remove "$(winpath "$CERT_ADDED")" >/dev/null 2>&1 || true
    fi
    if [ -n "${SERVICE_CREATED:-}" ]; then
        wine sc stop iikocloud-wine-test >/dev/null 2>&1 || true
        wine sc delete iikocloud-wine-test >/dev/null 2>&1 || true
    fi
    type stop_emulator >/dev/null 2>&1 && stop_emulator
    type tls_fixture_stop >/dev/null 2>&1 && tls_fixture_stop
    wine_env_stop
}
trap cleanup EXIT

# ---- 2. build ----
step "clippy for $TRIPLE; building iikocloud.dll (debug, test hooks), iikocloud.exe and the native emulator"
# The Windows builds without debug info or incremental state: 2.3 GB on
# disk instead of 8 (panics still name their file and line).
wincargo() { CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0 cargo "$@"; }
# The cfg(windows) code passes clippy as the rest does (test.sh's clippy
# runs for Linux only). Libraries and programs only: linting the tests too
# would check every dev-dependency once more for this target (minutes of the
# test command for test code that the unit tests below compile anyway).
wincargo clippy --locked --target "$TRIPLE" -p iikocloud -p iikocloud-c -p iikocloud-cli --lib --bins \
    --features iikocloud-c/test-hooks -- -D warnings
wincargo build --locked --target "$TRIPLE" -p iikocloud-c -p iikocloud-cli --features iikocloud-c/test-hooks
# The native emulator from the build of c-test.sh: after it, nothing to build.
# shellcheck source=scripts/workspace-features.sh
source scripts/workspace-features.sh
build_workspace_debug
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
rm -rf "$OUT"
mkdir -p "$OUT"
# A Windows program finds its DLLs in its own directory first.
cp "$WINBUILD/iikocloud.dll" "$WINBUILD/iikocloud.exe" "$OUT/"
EXE=$OUT/iikocloud.exe

TOTAL_PASSED=0
TOTAL_FAILED=0
pass() { TOTAL_PASSED=$((TOTAL_PASSED + 1)); echo "ok   $*"; }
fail() { TOTAL_FAILED=$((TOTAL_FAILED + 1)); echo "FAIL $*"; }

# ---- 3. the core's unit tests ----
step "the core's unit tests under wine (cargo test --target $TRIPLE -p iikocloud --lib, without the typed operations)"
# Test-only builds of the core for this target; wine runs the harness.
# Without the typed operations (scripts/workspace-features.sh): the C
# operations test below runs them here through iikocloud.dll.
# (Output to a file, never a pipe, for every wine program: a process wine
# starts in the background would hold the pipe open.)
if CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine wincargo test --locked --target "$TRIPLE" -p iikocloud --lib \
    "${CORE_WITHOUT_OPERATIONS[@]}" >"$OUT/core-tests.log" 2>&1; then
    pass "core unit tests (Windows build): $(grep '^test result' "$OUT/core-tests.log" | tail -1)"
else
    grep -E '^(---- |thread .* panicked|test result|failures:)' "$OUT/core-tests.log" || tail -20 "$OUT/core-tests.log"
    fail "core unit tests (Windows build): see $OUT/core-tests.log"
fi

# ---- 4. C and C++ ----
step "compiling the C and C++ tests, the examples and the helpers with MinGW (-Werror)"
CFLAGS=(-std=c11 -g -Wall -Wextra -Werror -Wpedantic -Iinclude -Itests/c)
CXXFLAGS=(-std=c++17 -g -Wall -Wextra -Werror -Wpedantic -Iinclude -Itests/c)
# Through the import library; -static takes the C runtime's helpers and
# winpthreads into each program, which then needs only system DLLs and iikocloud.dll.
LINK=("$WINBUILD/libiikocloud.dll.a" -static)
$MINGW_CC "${CFLAGS[@]}" tests/c/test_capi.c -o "$OUT/test_capi.exe" "${LINK[@]}" -lpthread
$MINGW_CC "${CFLAGS[@]}" tests/c/test_operations.c -o "$OUT/test_operations.exe" "${LINK[@]}"
$MINGW_CC "${CFLAGS[@]}" tests/c/test_network.c -o "$OUT/test_network.exe" "${LINK[@]}"
$MINGW_CXX "${CXXFLAGS[@]}" tests/c/test_cpp.cpp -o "$OUT/test_cpp.exe" "${LINK[@]}"
for src in examples/c/*.c; do
    $MINGW_CC "${CFLAGS[@]}" "$src" -o "$OUT/$(basename "$src" .c).exe" "${LINK[@]}"
done
for src in examples/cpp/*.cpp; do
    $MINGW_CXX "${CXXFLAGS[@]}" "$src" -o "$OUT/$(basename "$src" .cpp)_cpp.exe" "${LINK[@]}"
done
$MINGW_CC "${CFLAGS[@]}" tests/wine/token_share.c -o "$OUT/token_share.exe" "${LINK[@]}"
$MINGW_CC -std=c11 -Wall -Wextra -Werror tests/wine/cert_store.c -o "$OUT/cert_store.exe" -lcrypt32
# What a Windows machine must have for these: system DLLs and iikocloud.dll.
for f in "$OUT"/*.exe "$OUT/iikocloud.dll"; do
    bad=$(x86_64-w64-mingw32-objdump -p "$f" | sed -n 's/^\s*DLL Name: //p' |
        grep -viE '^(kernel32|msvcrt|ntdll|advapi32|bcrypt|bcryptprimitives|crypt32|ncrypt|secur32|userenv|ws2_32|user32|api-ms-win-core-[a-z0-9-]+|iikocloud)\.dll$' || true)
    [ -z "$bad" ] || { fail "$(basename "$f") needs $bad"; }
done

# shellcheck source=scripts/emulator-env.sh
. "$ROOT/scripts/emulator-env.sh"

export IIKO_VECTORS
IIKO_VECTORS=$(winpath tests/vectors)
export IIKO_EXPECTED_VERSION=$VERSION RUST_BACKTRACE=0
jq -r -f tests/c/vectors.jq tests/vectors/webhook_vectors.json >"$OUT/vectors.tsv"
jq -r -f tests/c/ops_vectors.jq tests/vectors/operations.json >"$OUT/ops_vectors.tsv"
jq -r -f tests/c/limit_vectors.jq tests/vectors/limits.json >"$OUT/limit_vectors.tsv"
IIKO_VECTORS_TSV=$(winpath "$OUT/vectors.tsv")
IIKO_OPS_TSV=$(winpath "$OUT/ops_vectors.tsv")
IIKO_LIMITS_TSV=$(winpath "$OUT/limit_vectors.tsv")
export IIKO_VECTORS_TSV IIKO_OPS_TSV IIKO_LIMITS_TSV

# run_suite LABEL CMD...: a test program ending in "NAME: N passed, M failed".
run_suite() {
    local label=$1 rc=0 line passed failed
    shift
    "$@" >"$OUT/$label.log" 2>&1 || rc=$?
    # Windows programs end their lines with CR LF.
    sed -i 's/\r$//' "$OUT/$label.log"
    grep -vE "^(thread '.*panicked|iiko_debug_force_panic was called|note: run with)" "$OUT/$label.log" || true
    line=$(grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' "$OUT/$label.log" | tail -1 || true)
    if [ -z "$line" ]; then
        fail "[$label] ended without a summary (exit $rc)"
        return
    fi
    passed=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
    failed=$(sed -E 's/.*passed, ([0-9]+) failed/\1/' <<<"$line")
    if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
        failed=1
        echo "[$label] exited with $rc"
    fi
    TOTAL_PASSED=$((TOTAL_PASSED + passed))
    TOTAL_FAILED=$((TOTAL_FAILED + failed))
}
# expect LABEL WANT_RC WANT_TEXT CMD...
expect() {
    local label=$1 want_rc=$2 want_text=$3 rc=0
    shift 3
    "$@" >"$OUT/expect.log" 2>&1 || rc=$?
    sed -i 's/\r$//' "$OUT/expect.log"
    if [ "$rc" = "$want_rc" ] && grep -qF -- "$want_text" "$OUT/expect.log"; then
        pass "$label"
    else
        fail "$label (exit $rc, wanted $want_rc and \"$want_text\")"
        cat "$OUT/expect.log"
    fi
}

step "C test (every C object against the emulator; the panic boundary)"
start_emulator
# (Not the ASan probe: there is no ASan here.)
run_suite capi wine "$OUT/test_capi.exe" -asan_probe
step "C operations test (the table, commands with wait, tests/vectors/operations.json)"
start_emulator
run_suite operations wine "$OUT/test_operations.exe"
step "C++ test"
start_emulator
run_suite cpp wine "$OUT/test_cpp.exe"

step "examples (C and C++)"
start_emulator
PAYLOADS=$(winpath tests/vectors/payloads)
for suffix in "" _cpp; do
    IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key \
        WEBHOOK_URL=http://127.0.0.1:9/hook WEBHOOK_TOKEN=example-token \
        expect "example_client$suffix" 0 "set to http://127.0.0.1:9/hook" wine "$OUT/example_client$suffix.exe"
    expect "example_webhook$suffix (file)" 0 "8 events" wine "$OUT/example_webhook$suffix.exe" \
        --token s3cret --authorization "Bearer s3cret" "$PAYLOADS\\multi_all_types.json"
    expect "example_webhook$suffix (stdin)" 0 "ProductNotFound" sh -c \
        "wine '$OUT/example_webhook$suffix.exe' --token s3cret --authorization s3cret - \
         < tests/vectors/payloads/delivery_order_error.json"
    expect "example_webhook$suffix (wrong token)" 1 "answer HTTP 401" wine "$OUT/example_webhook$suffix.exe" \
        --token s3cret --authorization guess "$PAYLOADS\\multi_all_types.json"
    for product in 91e69af5-c0e2-4057-a34b-2e98edbed03e:0 00000000-0000-4000-8000-000000000007:1; do
        want="sum 199.8"
        [ "${product#*:}" = 1 ] && want=ProductNotFound
        IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key \
            ORG_ID=441e1320-3f58-4702-9f9e-aa34cdef9c04 TERMINAL_GROUP_ID=7b668cda-784b-4938-bd54-cd2bd147a44c \
            PRODUCT_ID=${product%:*} \
            expect "example_operations$suffix (exit ${product#*:})" "${product#*:}" "$want" \
            wine "$OUT/example_operations$suffix.exe"
    done
done

# ---- 5. TLS ----
step "TLS: ca_file and a proxy; the system store: SSL_CERT_FILE, the Windows certificate store"
# shellcheck source=scripts/tls-fixture.sh
. scripts/tls-fixture.sh
tls_fixture_start "$OUT/tls" till wine-proxy-pw-3c1e
CA_UNIX=$IIKO_TLS_CA_FILE
IIKO_TLS_CA_FILE=$(winpath "$CA_UNIX")
run_suite network wine "$OUT/test_network.exe"
if ! grep -q '^tunnel 127.0.0.1:' "$IIKO_TLS_PROXY_LOG"; then
    fail "[network] no call went through the proxy"
fi
# The roots are read once per process: one run per setting.
run_suite network_ssl_cert_file env IIKO_TLS_SYSTEM_TRUSTS_ROOT=1 SSL_CERT_FILE="$IIKO_TLS_CA_FILE" \
    wine "$OUT/test_network.exe" system_store
CERT_ADDED=$CA_UNIX
if wine "$OUT/cert_store.exe" add "$IIKO_TLS_CA_FILE"; then
    run_suite network_windows_store env IIKO_TLS_SYSTEM_TRUSTS_ROOT=1 wine "$OUT/test_network.exe" system_store
    wine "$OUT/cert_store.exe" remove "$IIKO_TLS_CA_FILE"
    CERT_ADDED=""
    # Removed again: refused again (the test expects that without the variable).
    run_suite network_store_removed wine "$OUT/test_network.exe" system_store
else
    fail "cert_store add: cannot put the test root in the Windows certificate store"
fi
tls_fixture_stop

# ---- 6. two processes, one token ----
step "two processes sharing one token through the token cache directory"
start_emulator
SHARE=$OUT/token-share
mkdir -p "$SHARE/cache"
curl -sf -X POST "$IIKO_BASE_URL/_emulator/reset-log" >/dev/null
for i in 1 2; do
    wine "$OUT/token_share.exe" "$IIKO_BASE_URL" "$(winpath "$SHARE/cache")" "$(winpath "$SHARE/go")" \
        "$(winpath "$SHARE/token$i")" >"$SHARE/log$i" 2>&1 &
    eval "SHARE_PID$i=\$!"
done
sleep 1 # both started and waiting
touch "$SHARE/go"
share_ok=1
wait "$SHARE_PID1" || share_ok=0
wait "$SHARE_PID2" || share_ok=0
token_requests=$(curl -sf "$IIKO_BASE_URL/_emulator/requests?path=%2Fapi%2Fv2%2Faccess_token" |
    jq 'if type == "array" then length else (.requests | length) end')
if [ "$share_ok" = 1 ] && [ -s "$SHARE/token1" ] && cmp -s "$SHARE/token1" "$SHARE/token2" &&
    [ "$token_requests" = 1 ] && [ "$(find "$SHARE/cache" -name 'iikocloud-token-*.json' | wc -l)" = 1 ]; then
    pass "two processes, one token (1 token request, one cache file)"
else
    fail "two processes, one token: exit ok=$share_ok, token requests $token_requests"
    cat "$SHARE"/log*
fi
rm -f "$SHARE"/token*

# ---- 7. the CLI ----
step "iikocloud.exe demo"
expect "iikocloud.exe demo" 0 "All 9 steps passed" wine "$EXE" demo
expect "iikocloud.exe --version" 0 "iikocloud $VERSION" wine "$EXE" --version
# Piped output is UTF-8 (the console itself gets UTF-16 through WriteConsoleW).
expect "iikocloud.exe webhook parse: Cyrillic text as UTF-8 through a pipe" 0 "Пицца Маргарита" \
    wine "$EXE" webhook parse --json "$PAYLOADS\\delivery_order_update.json"

step "webhook serve: stored, then stopped by Ctrl-C (wine turns SIGINT into CTRL_C_EVENT)"
INBOX_DIR=$OUT/inbox
mkdir -p "$INBOX_DIR"
INBOX_URL="sqlite:///$(winpath "$INBOX_DIR/inbox.db" | tr '\\' /)"
IIKO_WEBHOOK_TOKEN=wine-hook-token wine "$EXE" webhook serve --log-format json --listen 127.0.0.1:0 --inbox "$INBOX_URL" \
    >"$OUT/serve.out" 2>"$OUT/serve.err" &
SERVE_PID=$!
PIDS+=("$SERVE_PID")
for _ in $(seq 300); do
    grep -q '"listening"' "$OUT/serve.out" && break
    sleep 0.1
done
SERVE_URL=$(sed -n 's/.*"listening":"\([^"]*\)".*/\1/p' "$OUT/serve.out")
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wine-hook-token' \
    --data-binary @tests/vectors/payloads/delivery_order_update.json "$SERVE_URL/hook" || true)
[ "$code" = 200 ] && pass "webhook serve stores a delivery (200)" || fail "webhook serve answered $code"
kill -INT "$SERVE_PID"
serve_rc=0
wait "$SERVE_PID" || serve_rc=$?
if [ "$serve_rc" = 0 ] && grep -q '"message":"stopped"' "$OUT/serve.err"; then
    pass "webhook serve stops on Ctrl-C: answers in flight, logs \"stopped\", exits 0"
else
    fail "webhook serve on Ctrl-C: exit $serve_rc"
    cat "$OUT/serve.err"
fi

step "webhook consume --exec: the handler runs through cmd"
HANDLED=$OUT/handled.txt
consume_rc=0
wine "$EXE" webhook consume --inbox "$INBOX_URL" --drain --exec "more >> $(winpath "$HANDLED")" \
    >"$OUT/consume.log" 2>&1 || consume_rc=$?
if [ "$consume_rc" = 0 ] && grep -q 'Пицца Маргарита' "$HANDLED" 2>/dev/null; then
    pass "webhook consume --exec \"more >> FILE\": the handler got the event on stdin, UTF-8 intact"
else
    fail "webhook consume --exec: exit $consume_rc, the handler's file has no event"
    cat "$OUT/consume.log"
fi
# Waiting for events, consume stops on Ctrl-C as serve does.
wine "$EXE" webhook consume --inbox "$INBOX_URL" >"$OUT/consume-wait.log" 2>&1 &
CONSUME_PID=$!
PIDS+=("$CONSUME_PID")
sleep 3
kill -INT "$CONSUME_PID"
consume_rc=0
wait "$CONSUME_PID" || consume_rc=$?
[ "$consume_rc" = 0 ] && pass "webhook consume (waiting) stops on Ctrl-C, exit 0" ||
    { fail "webhook consume on Ctrl-C: exit $consume_rc"; cat "$OUT/consume-wait.log"; }
# Acknowledged: nothing is left; a failing handler hands the event back.
wine "$EXE" webhook consume --inbox "$INBOX_URL" --drain >"$OUT/consume2.log" 2>&1 || true
[ ! -s "$OUT/consume2.log" ] && pass "the handled event was acknowledged" ||
    { fail "the inbox still holds events"; cat "$OUT/consume2.log"; }

step "webhook serve as a Windows service: sc start, a delivery, sc stop"
# Wine ends services when no other program of the prefix runs: keep one.
wine "$EXE" webhook listen --port 0 --token keep-alive >/dev/null 2>&1 &
PIDS+=($!)
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SVC_LOG=$OUT/service.log
SERVICE_CREATED=1
wine sc create iikocloud-wine-test binPath= "$(winpath "$EXE") webhook serve --log-format json --listen 127.0.0.1:$PORT \
--auth-token svc-token --inbox $INBOX_URL --service iikocloud-wine-test --log-file $(winpath "$SVC_LOG")" >/dev/null
expect "sc start" 0 "RUNNING" wine sc start iikocloud-wine-test
code=000
for _ in $(seq 100); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer svc-token' \
        --data-binary @tests/vectors/payloads/reserve_update.json "http://127.0.0.1:$PORT/hook" || true)
    [ "$code" = 000 ] || break
    sleep 0.1
done
[ "$code" = 200 ] && pass "the service stores a delivery (200)" || fail "the service answered $code"
wine sc stop iikocloud-wine-test >/dev/null || true
for _ in $(seq 100); do
    wine sc query iikocloud-wine-test >"$OUT/sc-query.txt" 2>&1 || true
    grep -q STOPPED "$OUT/sc-query.txt" && break
    sleep 0.1
done
if grep -q 'STOPPED' "$OUT/sc-query.txt" && grep -q 'WIN32_EXIT_CODE *: 0 ' "$OUT/sc-query.txt" &&
    grep -q '"message":"stopped"' "$SVC_LOG"; then
    pass "sc stop: the service answers in flight, logs \"stopped\" to --log-file, reports STOPPED with 0"
else
    fail "sc stop"
    cat "$SVC_LOG" "$OUT/sc-query.txt"
fi
wine sc delete iikocloud-wine-test >/dev/null
SERVICE_CREATED=""
expect "--service outside the service control manager exits 2" 2 "only the service control manager" \
    wine "$EXE" webhook serve --listen 127.0.0.1:0 --auth-token t --inbox "$INBOX_URL" --service x

echo
echo "wine: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
[ "$TOTAL_FAILED" = 0 ]
