#!/usr/bin/env bash
# Linux aarch64 under qemu-user, on this x86_64 machine (no ARM hardware):
#
#   ./scripts/qemu-test.sh        run by scripts/test.sh:
#     1. clippy of the core for aarch64 (the NEON path is compiled only there),
#        without the typed operations, as in 2;
#     2. the core's unit tests but the typed operations' (the NEON block
#        classifier against the portable one, the scanner against the
#        careful path, the inbox, stores...) and
#        the webhook test suites (vectors, payloads, parse, proptest, dedup
#        on SQLite and Redis), cross-built and run by cargo through qemu;
#     3. the C and C++ test programs of tests/c and the examples, cross-built
#        against an aarch64 debug libiikocloud (with the test hooks) and run
#        under qemu against the x86_64 emulator on loopback: client calls,
#        operations with wait, webhook parse/verify/receive, the panic
#        boundary, dedup and ordering guard on SQLite, the inbox, HTTPS with a
#        CA file through a proxy;
#   ./scripts/qemu-test.sh dist   run by scripts/dist-test.sh, on what
#     scripts/dist-aarch64.sh wrote to dist/:
#     4. the archive: a C program built with pkg-config against it (shared and
#        static) and run; the arm64 .deb files: fields, paths, a program built
#        against their contents, the packaged CLI parsing a webhook body and
#        serving as the emulator;
#     5. the wheel: its tags, then installed (pip --target with the aarch64
#        platform) into Debian's arm64 CPython 3.11, unpacked from the
#        packages apt-get downloads, running the webhook tests (vectors,
#        verify, receive, delivery from the emulator) and the client and
#        operations tests against the emulator under qemu.
#
# Installs what is missing: qemu-user, the aarch64 cross compilers and
# libc, the rustup target; for `dist`, Debian's arm64 archive (dpkg
# --add-architecture arm64) to download the CPython packages from.
# Each suite ends with "N passed, M failed"; the last line sums them.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=${1:-all}
TARGET=aarch64-unknown-linux-gnu
OUT=$ROOT/target/qemu-test
SYSROOT=/usr/aarch64-linux-gnu
mkdir -p "$OUT"

step() { printf '\n==> [qemu %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
die() { echo "qemu-test: $*" >&2; exit 1; }
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi

# ---- tools ----
missing=()
for tool in qemu-aarch64:qemu-user aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
    aarch64-linux-gnu-g++:g++-aarch64-linux-gnu jq:jq openssl:openssl pkg-config:pkg-config; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
[ -e "$SYSROOT/lib/ld-linux-aarch64.so.1" ] || missing+=(libc6-dev-arm64-cross)
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! rustup target list --installed | grep -qx "$TARGET"; then
    step "rustup target add $TARGET"
    rustup target add "$TARGET"
fi
QEMU=(qemu-aarch64 -L "$SYSROOT")

# The debug builds: the Debian cross compiler links, cargo runs the test
# binaries through qemu.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $SYSROOT"

TOTAL_PASSED=0
TOTAL_FAILED=0
# count LABEL PASSED FAILED
count() {
    echo "[$1] $2 passed, $3 failed"
    TOTAL_PASSED=$((TOTAL_PASSED + $2))
    TOTAL_FAILED=$((TOTAL_FAILED + $3))
}
# run_suite LABEL CMD...: a C test program; adds its "name: N passed, M failed".
run_suite() {
    local label=$1
    shift
    local log=$OUT/$label.log rc=0 line passed failed
    "$@" >"$log" 2>&1 || rc=$?
    grep -vE "^(thread '.*panicked|iiko_debug_force_panic was called|note: run with)" "$log" | tail -40 || true
    line=$(grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 || true)
    if [ -z "$line" ]; then
        echo "[$label] ended without a summary (exit $rc)" >&2
        count "$label" 0 1
        return
    fi
    passed=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
    failed=$(sed -E 's/.*passed, ([0-9]+) failed/\1/' <<<"$line")
    if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
        echo "[$label] exited with $rc" >&2
        failed=1
    fi
    count "$label" "$passed" "$failed"
}
# expect LABEL WANT_RC WANT_TEXT CMD...: one check of a program's exit status and output.
CHECKS_PASSED=0
CHECKS_FAILED=0
expect() {
    local label=$1 want_rc=$2 want=$3 rc=0
    shift 3
    "$@" >"$OUT/check.log" 2>&1 || rc=$?
    if [ "$rc" = "$want_rc" ] && grep -qF -- "$want" "$OUT/check.log"; then
        CHECKS_PASSED=$((CHECKS_PASSED + 1))
        echo "ok   $label"
    else
        CHECKS_FAILED=$((CHECKS_FAILED + 1))
        echo "FAIL $label (exit $rc, wanted $want_rc and \"$want\")"
        tail -20 "$OUT/check.log"
    fi
}
# is_aarch64 FILE: fails unless FILE is an AArch64 ELF (not a host binary by mistake).
is_aarch64() { readelf -h "$1" 2>/dev/null | grep -q 'Machine: *AArch64' || die "$1 is not an AArch64 binary"; }

# ---- the emulator (native x86_64, on loopback) ----
# shellcheck source=scripts/emulator-env.sh
. "$ROOT/scripts/emulator-env.sh"
trap stop_emulator EXIT
export IIKO_VECTORS=$ROOT/tests/vectors
VERSION=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
export IIKO_EXPECTED_VERSION=$VERSION
CLIENT_ENV=(IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key
    WEBHOOK_URL=http://127.0.0.1:9/hook WEBHOOK_TOKEN=example-token)
OPS_ENV=(IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key
    ORG_ID=441e1320-3f58-4702-9f9e-aa34cdef9c04 TERMINAL_GROUP_ID=7b668cda-784b-4938-bd54-cd2bd147a44c
    PRODUCT_ID=91e69af5-c0e2-4057-a34b-2e98edbed03e)
MULTI=$IIKO_VECTORS/payloads/multi_all_types.json

if [ "$MODE" = all ]; then
    # ---- 1. clippy ----
    # Without the typed operations (scripts/workspace-features.sh): linted on
    # x86_64, run here below through the C operations test. They were two
    # thirds of this script's Rust compile time (the core's test build: 157
    # against 47 CPU-seconds).
    source scripts/workspace-features.sh
    step "cargo clippy --target $TARGET -p iikocloud --lib ${CORE_WITHOUT_OPERATIONS[*]} (-D warnings)"
    cargo clippy --locked --target "$TARGET" -p iikocloud --lib "${CORE_WITHOUT_OPERATIONS[@]}" -- -D warnings

    # ---- 2. Rust tests under qemu ----
    step "the core's unit tests and the webhook suites, aarch64 under qemu"
    # The unit tests hold both_mask_builders_agree (NEON against the word
    # version) and the_scanner_and_the_careful_path_agree.
    cargo test --locked --target "$TARGET" -p iikocloud "${CORE_WITHOUT_OPERATIONS[@]}" --lib --test webhook_vectors \
        --test webhook_payloads --test webhook_parse --test webhook_proptest --test webhook_dedup \
        2>&1 | tee "$OUT/cargo-test.log"
    # The NEON classifier ran: the binary is AArch64 and the agreement tests passed.
    grep -q 'both_mask_builders_agree ... ok' "$OUT/cargo-test.log" || die "both_mask_builders_agree did not run"
    grep -q 'the_scanner_and_the_careful_path_agree ... ok' "$OUT/cargo-test.log" ||
        die "the_scanner_and_the_careful_path_agree did not run"
    while read -r passed failed; do
        count "cargo test" "$passed" "$failed"
    done < <(sed -n 's/^test result: [a-zA-Z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$OUT/cargo-test.log")

    # ---- 3. C and C++ under qemu ----
    step "aarch64 libiikocloud (debug, test hooks) and the x86_64 emulator"
    cargo build --locked --target "$TARGET" -p iikocloud-c --features iikocloud-c/test-hooks
    # The build of scripts/c-test.sh: after it, nothing to build.
    build_workspace_debug
    LIBDIR=$ROOT/target/$TARGET/debug
    is_aarch64 "$LIBDIR/libiikocloud.so"
    SONAME=$(readelf -d "$LIBDIR/libiikocloud.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    mkdir -p "$OUT/lib"
    ln -sf "$LIBDIR/libiikocloud.so" "$OUT/lib/$SONAME"
    ln -sf "$LIBDIR/libiikocloud.so" "$OUT/lib/libiikocloud.so"

    step "compiling tests/c and the examples with aarch64-linux-gnu-gcc (-Werror)"
    CFLAGS=(-std=c11 -g -Wall -Wextra -Werror -Wpedantic -Iinclude -Itests/c)
    CXXFLAGS=(-std=c++17 -g -Wall -Wextra -Werror -Wpedantic -Iinclude -Itests/c)
    SHARED=(-L"$OUT/lib" -liikocloud -Wl,-rpath,"$OUT/lib" -pthread)
    CC=aarch64-linux-gnu-gcc
    CXX=aarch64-linux-gnu-g++
    $CC "${CFLAGS[@]}" tests/c/test_capi.c -o "$OUT/test_capi" "${SHARED[@]}"
    $CC "${CFLAGS[@]}" tests/c/test_operations.c -o "$OUT/test_operations" "${SHARED[@]}"
    $CC "${CFLAGS[@]}" tests/c/test_network.c -o "$OUT/test_network" "${SHARED[@]}"
    $CXX "${CXXFLAGS[@]}" tests/c/test_cpp.cpp -o "$OUT/test_cpp" "${SHARED[@]}"
    for src in examples/c/*.c; do
        $CC "${CFLAGS[@]}" "$src" -o "$OUT/$(basename "$src" .c)" "${SHARED[@]}"
    done
    for src in examples/cpp/*.cpp; do
        $CXX "${CXXFLAGS[@]}" "$src" -o "$OUT/$(basename "$src" .cpp)_cpp" "${SHARED[@]}"
    done
    is_aarch64 "$OUT/test_capi"

    export IIKO_VECTORS_TSV=$OUT/vectors.tsv IIKO_OPS_TSV=$OUT/ops_vectors.tsv IIKO_LIMITS_TSV=$OUT/limit_vectors.tsv
    jq -r -f tests/c/vectors.jq tests/vectors/webhook_vectors.json >"$IIKO_VECTORS_TSV"
    jq -r -f tests/c/ops_vectors.jq tests/vectors/operations.json >"$IIKO_OPS_TSV"
    jq -r -f tests/c/limit_vectors.jq tests/vectors/limits.json >"$IIKO_LIMITS_TSV"
    export RUST_BACKTRACE=0

    step "C test (every case, the panic boundary included) under qemu"
    start_emulator
    run_suite capi "${QEMU[@]}" "$OUT/test_capi"
    step "C operations test under qemu"
    start_emulator
    run_suite operations "${QEMU[@]}" "$OUT/test_operations"
    step "C++ test under qemu"
    start_emulator
    run_suite cpp "${QEMU[@]}" "$OUT/test_cpp"

    step "examples (C and C++) under qemu"
    start_emulator
    for suffix in "" _cpp; do
        expect "example_client$suffix" 0 "set to http://127.0.0.1:9/hook" \
            env "${CLIENT_ENV[@]}" "${QEMU[@]}" "$OUT/example_client$suffix"
        expect "example_webhook$suffix" 0 "8 events" \
            "${QEMU[@]}" "$OUT/example_webhook$suffix" --token s3cret --authorization "Bearer s3cret" "$MULTI"
        expect "example_webhook$suffix (wrong token)" 1 "answer HTTP 401" \
            "${QEMU[@]}" "$OUT/example_webhook$suffix" --token s3cret --authorization guess "$MULTI"
        expect "example_operations$suffix (wait for the command)" 0 "sum 199.8" \
            env "${OPS_ENV[@]}" "${QEMU[@]}" "$OUT/example_operations$suffix"
    done

    step "C test over HTTPS with a CA file and a proxy, under qemu (scripts/tls-fixture.sh)"
    # shellcheck source=scripts/tls-fixture.sh
    . scripts/tls-fixture.sh
    tls_fixture_start "$OUT/tls" till qemu-proxy-pw-5c1e
    trap 'tls_fixture_stop; stop_emulator' EXIT
    run_suite network "${QEMU[@]}" "$OUT/test_network"
    grep -q '^tunnel 127.0.0.1:' "$IIKO_TLS_PROXY_LOG" || {
        echo "[network] no call went through the proxy" >&2
        count "network proxy" 0 1
    }
    tls_fixture_stop
    stop_emulator
fi

if [ "$MODE" = dist ]; then
    DIST=${DIST_DIR:-$ROOT/dist}
    MINOR=$(echo "$VERSION" | cut -d. -f2)
    MAJOR=$(echo "$VERSION" | cut -d. -f1)
    if [ "$MAJOR" = 0 ]; then SOVERSION=0.$MINOR; else SOVERSION=$MAJOR; fi
    rm -rf "$OUT/dist"
    mkdir -p "$OUT/dist"
    D=$OUT/dist
    STAGE_CLI=$ROOT/target/dist-stage/iikocloud
    [ -x "$STAGE_CLI" ] || die "no $STAGE_CLI: run scripts/dist.sh first"

    # ---- 4. archive and Debian packages ----
    step "aarch64 archive: a C program built with pkg-config (shared and static), run under qemu"
    tar -C "$D" -xzf "$DIST/iikocloud-$VERSION-linux-aarch64.tar.gz"
    SDK=$D/iikocloud-$VERSION-linux-aarch64
    for f in lib/libiikocloud.so "lib/libiikocloud.so.$SOVERSION" lib/libiikocloud.a include/iikocloud.h \
        include/iikocloud.hpp lib/pkgconfig/iikocloud.pc lib/cmake/iikocloud/iikocloudConfig.cmake \
        LICENSE-MIT THIRD-PARTY-LICENSES.txt; do
        [ -e "$SDK/$f" ] || die "the aarch64 archive has no $f"
    done
    is_aarch64 "$SDK/lib/libiikocloud.so.$VERSION"
    # The archive holds the same files as the x86_64 one.
    diff <(tar tzf "$DIST/iikocloud-$VERSION-linux-x86_64.tar.gz" | sed 's|^[^/]*/||' | sort) \
        <(tar tzf "$DIST/iikocloud-$VERSION-linux-aarch64.tar.gz" | sed 's|^[^/]*/||' | sort) ||
        die "the aarch64 archive's files differ from the x86_64 one's (above)"
    export PKG_CONFIG_PATH=$SDK/lib/pkgconfig
    # shellcheck disable=SC2046
    aarch64-linux-gnu-gcc -std=c11 -Wall -Wextra -Werror examples/c/example_client.c -o "$D/client_shared" \
        $(pkg-config --cflags --libs iikocloud) -Wl,-rpath,"$(pkg-config --variable=libdir iikocloud)"
    # shellcheck disable=SC2046
    aarch64-linux-gnu-gcc -std=c11 -Wall -Wextra -Werror examples/c/example_webhook.c -o "$D/webhook_static" \
        $(pkg-config --cflags iikocloud) "$(pkg-config --variable=libdir iikocloud)/libiikocloud.a" \
        $(pkg-config --static --libs-only-other --libs-only-l iikocloud | sed 's/-liikocloud//')
    unset PKG_CONFIG_PATH
    if aarch64-linux-gnu-readelf -d "$D/webhook_static" | grep -q libiikocloud; then die "webhook_static needs libiikocloud.so"; fi
    start_emulator "$STAGE_CLI" emulator
    expect "archive: example_client (shared) against the emulator" 0 "set to http://127.0.0.1:9/hook" \
        env "${CLIENT_ENV[@]}" "${QEMU[@]}" "$D/client_shared"
    expect "archive: example_webhook (static)" 0 "8 events" \
        "${QEMU[@]}" "$D/webhook_static" --token s3cret --authorization "Bearer s3cret" "$MULTI"

    step "arm64 Debian packages: fields, paths, contents used under qemu"
    LIBPKG=libiikocloud$SOVERSION
    ROOTFS=$D/debroot
    mkdir -p "$ROOTFS"
    for p in "$LIBPKG" libiikocloud-dev iikocloud; do
        deb=$DIST/${p}_$VERSION-1_arm64.deb
        [ -f "$deb" ] || die "no $deb"
        [ "$(dpkg-deb -f "$deb" Architecture)" = arm64 ] || die "$deb is not Architecture: arm64"
        [ "$(dpkg-deb -f "$deb" Package)" = "$p" ] || die "$deb is not package $p"
        dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >>"$D/deb-files.txt"
        dpkg-deb -x "$deb" "$ROOTFS"
    done
    for f in "/usr/lib/aarch64-linux-gnu/libiikocloud.so.$VERSION" "/usr/lib/aarch64-linux-gnu/libiikocloud.so.$SOVERSION" \
        /usr/lib/aarch64-linux-gnu/libiikocloud.so /usr/lib/aarch64-linux-gnu/libiikocloud.a \
        /usr/lib/aarch64-linux-gnu/pkgconfig/iikocloud.pc /usr/lib/aarch64-linux-gnu/cmake/iikocloud/iikocloudConfig.cmake \
        /usr/include/iikocloud.h /usr/include/iikocloud.hpp /usr/bin/iikocloud "/usr/share/doc/$LIBPKG/copyright"; do
        grep -qx -- "$f" "$D/deb-files.txt" || die "the arm64 packages have no $f"
    done
    if grep -v -E '^/$|^/(usr/?|usr/(bin|include|lib|share)/?|usr/lib/aarch64-linux-gnu(/.*)?|usr/bin/iikocloud|usr/include/(iikocloud(\.h|\.hpp|_ops\.hpp))?|usr/share/doc(/.*)?)$' "$D/deb-files.txt"; then
        die "an arm64 package installs outside the standard places (above)"
    fi
    dpkg-deb -f "$DIST/${LIBPKG}_$VERSION-1_arm64.deb" Depends | grep -q 'libc6 (>= 2\.17)' ||
        die "the arm64 library package does not depend on libc6 (>= 2.17)"
    [ "$(dpkg-deb -f "$DIST/libiikocloud-dev_$VERSION-1_arm64.deb" Depends)" = "$LIBPKG (= $VERSION-1)" ] ||
        die "libiikocloud-dev (arm64) does not depend on $LIBPKG (= $VERSION-1)"
    # The .pc file of the package, with its paths under the unpacked root.
    # shellcheck disable=SC2046
    PKG_CONFIG_SYSROOT_DIR=$ROOTFS PKG_CONFIG_LIBDIR=$ROOTFS/usr/lib/aarch64-linux-gnu/pkgconfig \
        aarch64-linux-gnu-gcc -std=c11 -Wall -Wextra -Werror examples/c/example_webhook.c -o "$D/webhook_deb" \
        $(PKG_CONFIG_SYSROOT_DIR=$ROOTFS PKG_CONFIG_LIBDIR=$ROOTFS/usr/lib/aarch64-linux-gnu/pkgconfig pkg-config --cflags --libs iikocloud)
    expect "deb: example_webhook against the package's library" 0 "8 events" \
        env LD_LIBRARY_PATH="$ROOTFS/usr/lib/aarch64-linux-gnu" "${QEMU[@]}" "$D/webhook_deb" \
        --token s3cret --authorization "Bearer s3cret" "$MULTI"
    is_aarch64 "$ROOTFS/usr/bin/iikocloud"
    expect "deb: iikocloud --version" 0 "$VERSION" "${QEMU[@]}" "$ROOTFS/usr/bin/iikocloud" --version
    expect "deb: iikocloud webhook parse" 0 "DeliveryOrderUpdate" \
        "${QEMU[@]}" "$ROOTFS/usr/bin/iikocloud" webhook parse "$MULTI"
    # The packaged CLI as the emulator, called by the x86_64 example.
    stop_emulator
    start_emulator "${QEMU[@]}" "$ROOTFS/usr/bin/iikocloud" emulator
    expect "deb: the aarch64 CLI's emulator answers the aarch64 example_client" 0 "set to http://127.0.0.1:9/hook" \
        env "${CLIENT_ENV[@]}" "${QEMU[@]}" "$D/client_shared"
    stop_emulator

    # ---- 5. the wheel in an arm64 CPython ----
    step "aarch64 wheel: tags"
    WHEEL=$(ls "$DIST"/iikocloud-"$VERSION"-cp39-abi3-*manylinux_2_17_aarch64*.whl)
    python3 - "$WHEEL" <<'PY' || die "the aarch64 wheel's tags or files are wrong"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
wheel = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
tags = sorted(l.split(": ", 1)[1] for l in z.read(wheel).decode().splitlines() if l.startswith("Tag: "))
want = ["cp39-abi3-manylinux_2_17_aarch64", "cp39-abi3-manylinux2014_aarch64"]
if tags != sorted(want):
    sys.exit(f"tags {tags}, wanted {want}")
natives = [n for n in z.namelist() if n.endswith(".so")]
if natives != ["iikocloud/_native.abi3.so"]:
    sys.exit(f"native modules {natives}")
if z.read(natives[0])[18:20] != b"\xb7\x00":  # e_machine EM_AARCH64
    sys.exit("_native.abi3.so is not an AArch64 module")
print("tags:", ", ".join(tags))
PY

    step "Debian's arm64 CPython 3.11 (apt-get download, dpkg-deb -x)"
    PYROOT=$ROOT/target/qemu-python
    PYDEBS=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libc6 libgcc-s1 zlib1g
        libexpat1 libffi8 libssl3 libbz2-1.0 liblzma5 libuuid1)
    if [ ! -x "$PYROOT/usr/bin/python3.11" ]; then
        if ! dpkg --print-foreign-architectures | grep -qx arm64; then
            step "dpkg --add-architecture arm64"
            $SUDO dpkg --add-architecture arm64
            $SUDO apt-get update -qq
        fi
        rm -rf "$PYROOT" "$OUT/pydebs"
        mkdir -p "$OUT/pydebs" "$PYROOT"
        # apt-get download writes to the current directory.
        (cd "$OUT/pydebs" && apt-get download -qq "${PYDEBS[@]/%/:arm64}" 2>"$OUT/apt-download.log") ||
            { cat "$OUT/apt-download.log" >&2; die "apt-get download of the arm64 CPython packages failed"; }
        for deb in "$OUT"/pydebs/*.deb; do dpkg-deb -x "$deb" "$PYROOT"; done
    fi
    is_aarch64 "$PYROOT/usr/bin/python3.11"
    # The interpreter as a host command: tests start sys.executable in a
    # subprocess, and qemu's -0 makes that this script (there is no binfmt
    # registration to run an aarch64 binary directly).
    cat >"$PYROOT/usr/bin/python3-qemu" <<EOF
#!/bin/sh
exec qemu-aarch64 -L "$PYROOT" -0 "\$0" "$PYROOT/usr/bin/python3.11" "\$@"
EOF
    chmod +x "$PYROOT/usr/bin/python3-qemu"
    PYQEMU=("$PYROOT/usr/bin/python3-qemu")
    expect "arm64 CPython starts" 0 "aarch64" "${PYQEMU[@]}" -c 'import platform; print(platform.machine())'

    step "the wheel installed for that interpreter (pip --target, platform manylinux2014_aarch64)"
    SITE=$D/site
    VENV=$ROOT/target/dist-venv
    # The interpreter's own tags decide: pip refuses a wheel they do not
    # match. pytest and its dependencies are pure Python.
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --target "$SITE" \
        --platform manylinux2014_aarch64 --python-version 3.11 --implementation cp \
        --only-binary :all: "$WHEEL" "pytest>=7" ||
        die "pip does not install the aarch64 wheel for CPython 3.11 on manylinux2014_aarch64"
    expect "import iikocloud (arm64 CPython)" 0 "$VERSION aarch64" \
        env PYTHONPATH="$SITE" "${PYQEMU[@]}" -c 'import platform, iikocloud; print(iikocloud.__version__, platform.machine(), iikocloud.__file__)'

    step "Python webhook, client and operations tests on the arm64 CPython under qemu"
    # The release wheel has no test hook (IIKO_RELEASE_WHEEL); the emulator is
    # the one inside the wheel (aarch64 too), on loopback.
    rc=0
    (cd "$D" && env PYTHONPATH="$SITE:$ROOT/bindings/python/tests" IIKO_RELEASE_WHEEL=1 \
        "${PYQEMU[@]}" -m pytest -q -p no:cacheprovider "$ROOT/bindings/python/tests/test_webhooks.py" \
        "$ROOT/bindings/python/tests/test_client.py" "$ROOT/bindings/python/tests/test_operations.py") \
        >"$OUT/pytest.log" 2>&1 || rc=$?
    line=$(grep -E '(passed|failed|error).* in [0-9.]+s' "$OUT/pytest.log" | tail -1 || true)
    echo "$line"
    passed=$(sed -nE 's/.*\b([0-9]+) passed.*/\1/p' <<<"$line")
    failed=$(($(sed -nE 's/.*\b([0-9]+) failed.*/\1/p' <<<"$line") + $(sed -nE 's/.*\b([0-9]+) errors?\b.*/\1/p' <<<"$line") + 0))
    if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
    if [ "$failed" != 0 ] || [ -z "$passed" ]; then tail -60 "$OUT/pytest.log"; fi
    count "pytest (arm64 CPython)" "${passed:-0}" "$failed"
fi

count "checks" "$CHECKS_PASSED" "$CHECKS_FAILED"
echo
echo "qemu aarch64: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
[ "$TOTAL_FAILED" = 0 ]
