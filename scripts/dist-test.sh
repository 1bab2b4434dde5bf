#!/usr/bin/env bash
# Tests the release artifacts as users install them, run by scripts/test.sh
# (or alone). Writes dist/ with scripts/dist.sh first (DIST_SKIP_BUILD=1 tests
# the dist/ already there). Needs root for apt-get (or sudo).
#
#  1. Python (in the background, beside the others): the wheel into a fresh
#     virtualenv, with no cargo or rustc on PATH; mypy.stubtest of the
#     installed module against its stubs; the package's pytest suite and the
#     framework examples;
#  2. C/C++ archive: a CMake project (find_package(iikocloud), shared and
#     static, C and C++) and a pkg-config build against the unpacked archive,
#     run against the emulator (the shipped CLI's `iikocloud emulator`);
#  3. Debian packages: apt-get install ./*.deb, dpkg -L in the standard places,
#     a C program built with pkg-config and the CMake project against /usr,
#     the CLI; removed again at the end;
#  4. PHP: composer installs the package from a path repository and the
#     quickstart (examples/php, autoloaded by composer) lists the emulator's
#     organizations, with the library of the .deb and of the archive;
#  5. Linux aarch64: scripts/qemu-test.sh dist (the archive, the arm64 .deb
#     contents and the wheel under qemu-user);
#  6. Windows x86_64: the zip with the CMake consumer built by MinGW (shared
#     and static, C and C++) and run under wine against the emulator, a
#     program linked by lld-link against lib/iikocloud.lib (MSVC's import
#     library format), the CLI's demo; the Windows wheel installed by pip for
#     win_amd64 into a directory, its imports listed (it cannot be imported
#     here: no Windows CPython).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIST=${DIST_DIR:-$ROOT/dist}
OUT=$ROOT/target/dist-test
STAGE=$ROOT/target/dist-stage

step() { printf '\n==> [dist-test %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
die() { echo "dist-test: $*" >&2; exit 1; }
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi

# ---- tools ----
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v composer >/dev/null || missing+=(composer)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v gcc >/dev/null || missing+=(gcc)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
command -v php >/dev/null || missing+=(php-cli)
command -v unzip >/dev/null || missing+=(unzip)
command -v openssl >/dev/null || missing+=(openssl)
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -z "${DIST_SKIP_BUILD:-}" ]; then
    ./scripts/dist.sh
fi
VERSION=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
MINOR=$(echo "$VERSION" | cut -d. -f2)
MAJOR=$(echo "$VERSION" | cut -d. -f1)
if [ "$MAJOR" = 0 ]; then SOVERSION=0.$MINOR; else SOVERSION=$MAJOR; fi
rm -rf "$OUT"
mkdir -p "$OUT"

# ---- the emulator: the CLI as shipped (stripped, from dist.sh) ----
# shellcheck source=scripts/emulator-env.sh
. scripts/emulator-env.sh
cleanup() {
    if [ -n "${PYTHON_PID:-}" ]; then
        pkill -P "$PYTHON_PID" 2>/dev/null || true
        kill "$PYTHON_PID" 2>/dev/null || true
        wait "$PYTHON_PID" 2>/dev/null || true
    fi
    stop_emulator
    # The wine server of the Windows section, if a check stopped it midway.
    if type wine_env_stop >/dev/null 2>&1; then wine_env_stop; fi
    if [ -n "${DEBS_INSTALLED:-}" ]; then
        $SUDO apt-get remove -y -qq --purge "libiikocloud$SOVERSION" libiikocloud-dev iikocloud >/dev/null 2>&1 || true
    fi
}
trap cleanup EXIT
start_emulator "$STAGE/iikocloud" emulator
# The emulator's public test credentials; the client examples also point the
# webhook somewhere (nothing listens there: only the setting is checked).
export IIKO_BASE_URL IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret IIKO_API_KEY=emulator-api-key \
    WEBHOOK_URL=http://127.0.0.1:9/hook WEBHOOK_TOKEN=example-token
VECTORS=$ROOT/tests/vectors/payloads

# expect NAME WANT CMD...: runs CMD, which must succeed and print WANT.
expect() {
    local name=$1 want=$2; shift 2
    local log=$OUT/run.log
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        die "$name failed"
    fi
    grep -qF -- "$want" "$log" || { cat "$log" >&2; die "$name: no '$want' in its output"; }
    echo "ok: $name"
}
# run_c_programs DIR LABEL: the webhook and client examples built in DIR.
run_c_programs() {
    local dir=$1 label=$2 p
    for p in "$dir"/webhook_*; do
        expect "$label $(basename "$p")" "8 events" \
            "$p" --token s3cret --authorization "Bearer s3cret" "$VECTORS/multi_all_types.json"
    done
    for p in "$dir"/client_*; do
        expect "$label $(basename "$p") against the emulator" "set to http://127.0.0.1:9/hook" "$p"
    done
}

# ---- 1. Python, in the background ----
# Half of this script's time is this section, mostly one core (pip, mypy,
# pytest), so it runs beside sections 2 to 6, which share nothing with it but
# the emulator, and its output is shown after theirs.
python_section() {
WHEEL=$(ls "$DIST"/iikocloud-"$VERSION"-cp39-abi3-*manylinux_2_17_x86_64*.whl)
# PATH without the directories that hold cargo or rustc.
NORUST_PATH=""
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -x "$d/cargo" ] || [ -x "$d/rustc" ] && continue
    NORUST_PATH=${NORUST_PATH:+$NORUST_PATH:}$d
done
VENV=$OUT/venv
env PATH="$NORUST_PATH" python3 -m venv "$VENV"
env PATH="$VENV/bin:$NORUST_PATH" bash -c '
    set -euo pipefail
    if command -v cargo || command -v rustc; then echo "a Rust toolchain is on PATH" >&2; exit 1; fi
    # --only-binary: a missing or unusable wheel must fail, not fall back to a build.
    pip install -q --disable-pip-version-check --only-binary :all: "$1"
    pip install -q --disable-pip-version-check "pytest>=7" "mypy>=1.8" flask fastapi httpx "iikocloudapi==1.0.0" \
        "opentelemetry-sdk>=1.20" opentelemetry-instrumentation-flask
' _ "$WHEEL"
(
    cd "$OUT" # outside the source tree: the installed wheel is what runs
    export PATH="$VENV/bin:$NORUST_PATH"
    python -c 'import iikocloud, sys; print("testing", iikocloud.__file__, iikocloud.__version__); sys.exit("site-packages" not in iikocloud.__file__)'
    # The release wheel has no test hook; the stub's entry for it is allowed
    # only here, and test_client.py checks its absence (IIKO_RELEASE_WHEEL).
    python -c 'import sys; from iikocloud import _native; sys.exit(hasattr(_native, "_panic_for_tests"))' ||
        { echo "the release wheel has _native._panic_for_tests (built with test-hooks)" >&2; exit 1; }
    python -m mypy.stubtest iikocloud --allowlist "$ROOT/bindings/python/stubtest-release-allowlist.txt"
    IIKO_RELEASE_WHEEL=1 python -m pytest -q -p no:cacheprovider "$ROOT/bindings/python/tests" "$ROOT/examples/python"
)
}
step "python: the wheel in a fresh virtualenv without a Rust toolchain (in the background; its output is shown after section 6)"
python_section >"$OUT/python.log" 2>&1 &
PYTHON_PID=$!

# ---- 2. C/C++ archive ----
step "C/C++ archive: CMake and pkg-config consumers"
tar -C "$OUT" -xzf "$DIST/iikocloud-$VERSION-linux-x86_64.tar.gz"
SDK=$OUT/iikocloud-$VERSION-linux-x86_64
for f in lib/libiikocloud.so "lib/libiikocloud.so.$SOVERSION" lib/libiikocloud.a include/iikocloud.h \
    include/iikocloud.hpp include/iikocloud_ops.hpp lib/pkgconfig/iikocloud.pc lib/cmake/iikocloud/iikocloudConfig.cmake \
    LICENSE-MIT LICENSE-APACHE THIRD-PARTY-LICENSES.txt CHANGELOG.md; do
    [ -e "$SDK/$f" ] || die "the archive has no $f"
done
cmake -S packaging/tests/cmake-consumer -B "$OUT/cmake-archive" -DCMAKE_PREFIX_PATH="$SDK" \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/cmake.log" || { cat "$OUT/cmake.log"; die "cmake configure (archive)"; }
grep -q "iikocloud $VERSION (libiikocloud.so.$SOVERSION) from $SDK/lib/cmake/iikocloud" "$OUT/cmake.log" ||
    { cat "$OUT/cmake.log"; die "CMake did not find the archive's package"; }
cmake --build "$OUT/cmake-archive" -j 2 >"$OUT/cmake-build.log" || { cat "$OUT/cmake-build.log"; die "cmake build (archive)"; }
# The shared programs load the archive's library (CMake's build RPATH), the
# static ones none.
ldd "$OUT/cmake-archive/webhook_shared" | grep "libiikocloud.so.$SOVERSION => $SDK/lib/" >/dev/null ||
    die "webhook_shared does not load the archive's library"
if ldd "$OUT/cmake-archive/webhook_static" | grep libiikocloud >/dev/null; then die "webhook_static loads libiikocloud.so"; fi
run_c_programs "$OUT/cmake-archive" "cmake (archive)"

export PKG_CONFIG_PATH=$SDK/lib/pkgconfig
[ "$(pkg-config --modversion iikocloud)" = "$VERSION" ] || die "pkg-config --modversion"
mkdir -p "$OUT/pc-archive"
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror examples/c/example_webhook.c -o "$OUT/pc-archive/webhook_shared" \
    $(pkg-config --cflags --libs iikocloud) -Wl,-rpath,"$(pkg-config --variable=libdir iikocloud)"
# shellcheck disable=SC2046
g++ -std=c++17 -Wall -Wextra -Werror examples/cpp/example_client.cpp -o "$OUT/pc-archive/client_cpp_static" \
    $(pkg-config --cflags iikocloud) "$(pkg-config --variable=libdir iikocloud)/libiikocloud.a" \
    $(pkg-config --static --libs-only-other --libs-only-l iikocloud | sed 's/-liikocloud//')
unset PKG_CONFIG_PATH
run_c_programs "$OUT/pc-archive" "pkg-config (archive)"

# ---- 3. Debian packages ----
step "Debian packages: apt-get install, dpkg -L, build against /usr"
if dpkg -s "libiikocloud$SOVERSION" >/dev/null 2>&1 || dpkg -s libiikocloud-dev >/dev/null 2>&1; then
    die "libiikocloud is installed already: remove it first (apt-get remove libiikocloud$SOVERSION)"
fi
DEBS=("$DIST/libiikocloud${SOVERSION}_$VERSION-1_amd64.deb" "$DIST/libiikocloud-dev_$VERSION-1_amd64.deb"
    "$DIST/iikocloud_$VERSION-1_amd64.deb")
DEBS_INSTALLED=1
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${DEBS[@]}" >"$OUT/apt.log" 2>&1 ||
    { cat "$OUT/apt.log"; die "apt-get install of the .deb files failed"; }
dpkg -L "libiikocloud$SOVERSION" libiikocloud-dev iikocloud >"$OUT/dpkg-L.txt"
for f in "/usr/lib/x86_64-linux-gnu/libiikocloud.so.$SOVERSION" "/usr/lib/x86_64-linux-gnu/libiikocloud.so.$VERSION" \
    /usr/lib/x86_64-linux-gnu/libiikocloud.so /usr/lib/x86_64-linux-gnu/libiikocloud.a \
    /usr/include/iikocloud.h /usr/include/iikocloud.hpp /usr/include/iikocloud_ops.hpp /usr/lib/x86_64-linux-gnu/pkgconfig/iikocloud.pc \
    /usr/lib/x86_64-linux-gnu/cmake/iikocloud/iikocloudConfig.cmake \
    /usr/lib/x86_64-linux-gnu/cmake/iikocloud/iikocloudConfigVersion.cmake /usr/bin/iikocloud \
    "/usr/share/doc/libiikocloud$SOVERSION/copyright"; do
    grep -qx "$f" "$OUT/dpkg-L.txt" || die "dpkg -L does not list $f"
done
# Nothing outside the standard places.
if grep -v -E '^$|^/(\.|usr|usr/(bin|include|lib|share)|usr/lib/x86_64-linux-gnu(/.*)?|usr/bin/iikocloud|usr/include/iikocloud(\.h|\.hpp|_ops\.hpp)|usr/share/doc(/.*)?)$' "$OUT/dpkg-L.txt"; then
    die "a package installs outside the standard places (above)"
fi
ldconfig -p | grep "libiikocloud.so.$SOVERSION" >/dev/null || die "ldconfig does not know libiikocloud.so.$SOVERSION"
expect "iikocloud --version (deb)" "$VERSION" iikocloud --version
mkdir -p "$OUT/pc-deb"
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror examples/c/example_webhook.c -o "$OUT/pc-deb/webhook_shared" \
    $(pkg-config --cflags --libs iikocloud)
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror examples/c/example_client.c -o "$OUT/pc-deb/client_shared" \
    $(pkg-config --cflags --libs iikocloud)
# (/lib is /usr/lib on a merged-/usr system; ldconfig may name either.)
ldd "$OUT/pc-deb/client_shared" | grep -E "libiikocloud.so.$SOVERSION => (/usr)?/lib/x86_64-linux-gnu/" >/dev/null ||
    die "the program does not load /usr/lib/x86_64-linux-gnu/libiikocloud.so.$SOVERSION"
run_c_programs "$OUT/pc-deb" "pkg-config (deb)"
cmake -S packaging/tests/cmake-consumer -B "$OUT/cmake-deb" >"$OUT/cmake.log" || { cat "$OUT/cmake.log"; die "cmake configure (deb)"; }
grep -q "from /usr/lib/x86_64-linux-gnu/cmake/iikocloud" "$OUT/cmake.log" || { cat "$OUT/cmake.log"; die "CMake did not find the Debian package"; }
cmake --build "$OUT/cmake-deb" -j 2 >"$OUT/cmake-build.log" || { cat "$OUT/cmake-build.log"; die "cmake build (deb)"; }
run_c_programs "$OUT/cmake-deb" "cmake (deb)"

# ---- 4. PHP ----
step "PHP: composer from a path repository, the quickstart against the emulator"
PKG=$OUT/php-package
mkdir -p "$PKG" "$OUT/php-app"
unzip -q "$DIST/iikocloud-php-$VERSION.zip" -d "$PKG"
cat >"$OUT/php-app/composer.json" <<EOF
{
    "name": "example/pos-app",
    "require": { "iikocloud/iikocloud": "$VERSION" },
    "repositories": [
        { "type": "path", "url": "$PKG", "options": { "symlink": false } },
        { "packagist.org": false }
    ]
}
EOF
(cd "$OUT/php-app" && COMPOSER_ALLOW_SUPERUSER=1 COMPOSER_HOME=$OUT/composer-home composer install -q --no-interaction --no-progress) ||
    die "composer install"
[ -f "$OUT/php-app/vendor/iikocloud/iikocloud/src/Library.php" ] || die "composer did not install the package"
# The quickstart as a user copies it: Composer's autoloader instead of the checkout's.
sed "s|^require __DIR__ . '/../../bindings/php/autoload.php';|require __DIR__ . '/vendor/autoload.php';|" \
    examples/php/quickstart.php >"$OUT/php-app/quickstart.php"
grep -q "vendor/autoload.php';$" "$OUT/php-app/quickstart.php" || die "examples/php/quickstart.php no longer requires autoload.php"
cat >"$OUT/php-app/which.php" <<'EOF'
<?php
require __DIR__ . '/vendor/autoload.php';
echo IikoCloud\Library::path(), ' ', IikoCloud\Library::version(), "\n";
EOF
# The Debian package's library, found without configuration.
expect "php Library finds the deb's library" "/usr/lib/x86_64-linux-gnu/libiikocloud.so" \
    env -u IIKOCLOUD_LIB php -d ffi.enable=1 "$OUT/php-app/which.php"
expect "php quickstart (deb library)" "set to http://127.0.0.1:9/hook" env -u IIKOCLOUD_LIB php -d ffi.enable=1 "$OUT/php-app/quickstart.php"

step "removing the Debian packages"
$SUDO apt-get remove -y -qq --purge "libiikocloud$SOVERSION" libiikocloud-dev iikocloud >/dev/null
DEBS_INSTALLED=""
[ ! -e /usr/include/iikocloud.h ] || die "/usr/include/iikocloud.h is left after apt-get remove"

# The archive's library, named by IIKOCLOUD_LIB (its header is found beside it).
expect "php Library uses IIKOCLOUD_LIB" "$SDK/lib/libiikocloud.so.$VERSION" \
    env IIKOCLOUD_LIB="$SDK/lib/libiikocloud.so" php -d ffi.enable=1 "$OUT/php-app/which.php"
expect "php quickstart (archive library)" "set to http://127.0.0.1:9/hook" \
    env IIKOCLOUD_LIB="$SDK/lib/libiikocloud.so" php -d ffi.enable=1 "$OUT/php-app/quickstart.php"
# The shipped header declares only what the shipped library exports: PHP's
# FFI::cdef, which reads no #if and resolves every function it is given,
# loads the archive's header as it is.
expect "php FFI::cdef of the archive's raw header against its library" "iikocloud $VERSION" \
    php -d ffi.enable=1 -r '$f = FFI::cdef(file_get_contents($argv[1]), $argv[2]); echo "iikocloud ", $f->iiko_version(), "\n";' \
    "$SDK/include/iikocloud.h" "$SDK/lib/libiikocloud.so.$SOVERSION"

# ---- 5. Linux aarch64 (scripts/qemu-test.sh dist) ----
step "aarch64 artifacts under qemu: archive, arm64 .deb contents, the wheel in an arm64 CPython"
./scripts/qemu-test.sh dist

# ---- 6. Windows x86_64 (scripts/dist-windows.sh) ----
step "Windows zip: CMake consumer built by MinGW and run under wine, an MSVC-style link with iikocloud.lib, the CLI; the Windows wheel"
# shellcheck source=scripts/wine-env.sh
. scripts/wine-env.sh
wine_env_setup
wmissing=()
command -v lld-link >/dev/null || wmissing+=(lld)
command -v llvm-mc >/dev/null || wmissing+=(llvm)
if ((${#wmissing[@]})); then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${wmissing[@]}" >/dev/null
fi
WNAME=iikocloud-$VERSION-windows-x86_64
unzip -q "$DIST/$WNAME.zip" -d "$OUT"
WSDK=$OUT/$WNAME
for f in bin/iikocloud.dll bin/iikocloud.exe include/iikocloud.h include/iikocloud.hpp include/iikocloud_ops.hpp \
    lib/libiikocloud.dll.a lib/libiikocloud.a lib/iikocloud.lib lib/iikocloud.def \
    lib/cmake/iikocloud/iikocloudConfig.cmake lib/cmake/iikocloud/iikocloudConfigVersion.cmake \
    LICENSE-MIT LICENSE-APACHE THIRD-PARTY-LICENSES.txt CHANGELOG.md CHANGELOG-C-ABI.md README-C.md; do
    [ -e "$WSDK/$f" ] || die "the Windows zip has no $f"
done
# The consumer's toolchain: MinGW-w64 as a cross compiler, programs linked
# -static so that they need no MinGW DLL (libstdc++, winpthread) at run time.
printf '%s\n' "set(CMAKE_SYSTEM_NAME Windows)" "set(CMAKE_SYSTEM_PROCESSOR x86_64)" \
    "set(CMAKE_C_COMPILER $MINGW_CC)" "set(CMAKE_CXX_COMPILER $MINGW_CXX)" \
    "set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)" "set(CMAKE_EXE_LINKER_FLAGS_INIT -static)" \
    >"$OUT/mingw-toolchain.cmake"
cmake -S packaging/tests/cmake-consumer -B "$OUT/cmake-windows" -DCMAKE_TOOLCHAIN_FILE="$OUT/mingw-toolchain.cmake" \
    -DCMAKE_PREFIX_PATH="$WSDK" -DCMAKE_BUILD_TYPE=Release >"$OUT/cmake.log" ||
    { cat "$OUT/cmake.log"; die "cmake configure (Windows zip)"; }
grep -q "iikocloud $VERSION (iikocloud.dll) from $WSDK/lib/cmake/iikocloud" "$OUT/cmake.log" ||
    { cat "$OUT/cmake.log"; die "CMake did not find the Windows zip's package"; }
cmake --build "$OUT/cmake-windows" -j 2 >"$OUT/cmake-build.log" ||
    { cat "$OUT/cmake-build.log"; die "cmake build (Windows zip)"; }
win_imports() { x86_64-w64-mingw32-objdump -p "$1" | sed -n 's/^\s*DLL Name: //p' | tr 'A-Z' 'a-z'; }
win_imports "$OUT/cmake-windows/webhook_shared.exe" | grep -qx iikocloud.dll ||
    die "webhook_shared.exe does not import iikocloud.dll"
if win_imports "$OUT/cmake-windows/webhook_static.exe" | grep -qx iikocloud.dll; then
    die "webhook_static.exe imports iikocloud.dll"
fi
# The shared programs find the DLL on PATH, as for a user who adds bin\ to it.
export WINEPATH
WINEPATH=$(winpath "$WSDK/bin")
WPAYLOADS=$(winpath "$VECTORS")
for p in "$OUT"/cmake-windows/webhook_*.exe; do
    expect "cmake (Windows zip, MinGW) $(basename "$p") under wine" "8 events" \
        wine "$p" --token s3cret --authorization "Bearer s3cret" "$WPAYLOADS\\multi_all_types.json"
done
for p in "$OUT"/cmake-windows/client_*.exe; do
    expect "cmake (Windows zip, MinGW) $(basename "$p") under wine, against the emulator" \
        "set to http://127.0.0.1:9/hook" wine "$p"
done
# MSVC's side: link.exe is not here; lld-link reads import libraries as it
# does. A program assembled for x86_64-pc-windows-msvc and linked against
# lib\iikocloud.lib alone calls the DLL (exit 200) and checks the version it
# reads (exit 1 when told another major digit).
MSVC=$OUT/msvc-import-lib
mkdir -p "$MSVC"
llvm-dlltool -m i386:x86-64 -d packaging/tests/msvc-import-lib/kernel32.def -l "$MSVC/kernel32.lib"
for case in "$MAJOR:200" "$((MAJOR + 1)):1"; do
    llvm-mc -filetype=obj -triple=x86_64-pc-windows-msvc --defsym "MAJOR_CHAR=$((48 + ${case%:*}))" \
        packaging/tests/msvc-import-lib/main.s -o "$MSVC/main.obj"
    lld-link /nologo /entry:main /subsystem:console /nodefaultlib /out:"$MSVC/msvc_link.exe" \
        "$MSVC/main.obj" "$WSDK/lib/iikocloud.lib" "$MSVC/kernel32.lib" || die "lld-link refused lib/iikocloud.lib"
    rc=0
    wine "$MSVC/msvc_link.exe" >/dev/null 2>&1 || rc=$?
    [ "$rc" = "${case#*:}" ] || die "the MSVC-linked program exited $rc, wanted ${case#*:} (major digit ${case%:*})"
done
echo "ok: a program linked by lld-link against lib/iikocloud.lib calls iikocloud.dll"
expect "iikocloud.exe --version (Windows zip)" "iikocloud $VERSION" wine "$WSDK/bin/iikocloud.exe" --version
expect "iikocloud.exe demo (Windows zip)" "All 9 steps passed" wine "$WSDK/bin/iikocloud.exe" demo
unset WINEPATH
wine_env_stop

# The Windows wheel, installed as pip installs it for Windows, into a
# directory: no Windows CPython can be had here to import it.
WWHEEL=$(ls "$DIST"/iikocloud-"$VERSION"-cp39-abi3-win_amd64.whl)
rm -rf "$OUT/winpy"
# dist.sh's venv: the Python section's is not there yet while it runs.
"$ROOT/target/dist-venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --only-binary :all: \
    --platform win_amd64 --python-version 3.9 --implementation cp --target "$OUT/winpy" "$WWHEEL" ||
    die "pip does not take $WWHEEL for win_amd64"
for f in iikocloud/_native.pyd iikocloud/__init__.py iikocloud/py.typed; do
    [ -f "$OUT/winpy/$f" ] || die "the Windows wheel installed no $f"
done
win_imports "$OUT/winpy/iikocloud/_native.pyd" | sort -u >"$OUT/pyd-imports.txt"
if grep -vE '^(python3|kernel32|advapi32|ntdll|bcrypt|bcryptprimitives|crypt32|ncrypt|secur32|userenv|ws2_32|user32|msvcrt|api-ms-win-core-[a-z0-9-]+)\.dll$' \
    "$OUT/pyd-imports.txt"; then
    die "_native.pyd imports DLLs that are neither Windows' nor python3.dll (above)"
fi
grep -qx python3.dll "$OUT/pyd-imports.txt" || die "_native.pyd does not import python3.dll"
echo "ok: the Windows wheel (cp39-abi3-win_amd64) installs for win_amd64; _native.pyd imports $(tr '\n' ' ' <"$OUT/pyd-imports.txt")"
echo "not run: importing the Windows wheel needs a Windows CPython, which this machine cannot have"

step "python (the section run in the background): its output"
python_status=0
wait "$PYTHON_PID" || python_status=$?
PYTHON_PID=""
cat "$OUT/python.log"
[ "$python_status" = 0 ] || die "the Python section failed (exit $python_status): its output is above"

step "release artifacts installed and tested"
