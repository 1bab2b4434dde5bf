#!/usr/bin/env bash
# The Windows x86_64 release artifacts, written into dist/ (or $DIST_DIR)
# beside the Linux ones: run by scripts/dist.sh after those, or alone (it
# replaces only its own files). scripts/dist-test.sh installs and tests them.
#
#   iikocloud-V-windows-x86_64.zip
#       the C and C++ SDK for Windows on x86_64, built by MinGW-w64
#       (x86_64-pc-windows-gnu): bin/iikocloud.dll and bin/iikocloud.exe (the
#       CLI), stripped; include/ (iikocloud.h, iikocloud.hpp,
#       iikocloud_ops.hpp); lib/libiikocloud.dll.a (MinGW's import library),
#       lib/libiikocloud.a (static, MinGW only), lib/iikocloud.lib (an import
#       library for MSVC's link.exe, made by llvm-dlltool from
#       lib/iikocloud.def, the DLL's exports); lib/cmake/iikocloud/ (targets
#       iikocloud::iikocloud for both toolchains and iikocloud::iikocloud_static
#       for MinGW); licenses, CHANGELOG.md, CHANGELOG-C-ABI.md, README-C.md.
#       The DLL and the CLI need only DLLs every Windows 10 has (checked);
#   iikocloud-V-cp39-abi3-win_amd64.whl
#       the Python package for CPython 3.9 and newer on 64-bit Windows, built
#       by maturin for the same target. PyO3 links python3.dll by raw-dylib,
#       so no Windows Python or import library is needed to build it.
#
# One release build of the target makes all of them: the DLL, the static
# library, the CLI and the Python module compile once, inside maturin's build
# of the wheel (scripts/dist-wheel.sh says how). It uses dist.sh's target
# directory, whose host artifacts (build scripts, proc macros) the Linux
# build compiled already.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIST=${DIST_DIR:-$ROOT/dist}
STAGE=$ROOT/target/dist-stage/windows
VENV=$ROOT/target/dist-venv
TRIPLE=x86_64-pc-windows-gnu
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target/dist-c}
# As in dist.sh: what ships is stripped, so no debug info is built.
export CARGO_PROFILE_RELEASE_DEBUG=0
REL=$CARGO_TARGET_DIR/$TRIPLE/release
# LTO matters most here: rustc builds x86_64-pc-windows-gnu without function
# sections (its target spec), so the linker can drop only whole codegen
# units, and without LTO the stripped DLL was 14.6 MiB. LTO drops the
# unreachable code before linking: 7.4 MiB thin, 6.3 MiB fat (what
# dist-wheel.sh sets for every target), under the library's 8 MiB budget.

step() { printf '\n==> [dist windows %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
die() { echo "dist-windows: $*" >&2; exit 1; }
source scripts/dist-wheel.sh

VERSION=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[[ $VERSION =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "no plain MAJOR.MINOR.PATCH version in Cargo.toml: '$VERSION'"
MAJOR=${BASH_REMATCH[1]}
MINOR=${BASH_REMATCH[2]}
if [ "$MAJOR" = 0 ]; then SOVERSION=0.$MINOR; else SOVERSION=$MAJOR; fi

# ---- tools ----
missing=()
command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=(mingw-w64)
command -v llvm-dlltool >/dev/null || missing+=(llvm)
command -v python3 >/dev/null || missing+=(python3)
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! rustup target list --installed 2>/dev/null | grep -qx "$TRIPLE"; then
    step "rustup target add $TRIPLE"
    rustup target add "$TRIPLE"
fi
if [ ! -x "$VENV/bin/maturin" ]; then
    step "maturin (in $VENV)"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.9.4,<2"
fi
# GNU binutils try Debian's LLVM plugin (llvm's LLVMgold.so) on every object
# of the static library, and it cannot read the bitcode rustc embeds: a line
# of noise per object (on stdout), which this keeps out of the log. A failure
# of the command itself still stops the script (pipefail).
quiet_bfd() {
    "$@" 2>&1 | { grep -vE 'bfd plugin: |LTO module|Opaque pointers|Invalid record|^error: unknown directive$|^\.(push|pop)section|^\^$' || true; }
}
STRIP=x86_64-w64-mingw32-strip
OBJDUMP=x86_64-w64-mingw32-objdump

rm -rf "$STAGE"
mkdir -p "$DIST" "$STAGE"
rm -f "$DIST/iikocloud-$VERSION-windows-x86_64.zip" "$DIST"/iikocloud-"$VERSION"-*-win_amd64.whl

# ---- one release build ----
step "iikocloud.dll, libiikocloud.a, iikocloud.exe and the Python module (release, $TRIPLE), and the python wheel (abi3, win_amd64)"
DIST_KEEP_PYTHON="" release_build_and_wheel "$TRIPLE" "$VENV/bin/maturin" -q --release --locked --target "$TRIPLE" \
    -m bindings/python/Cargo.toml --out "$DIST"
WHEEL=$(ls "$DIST"/iikocloud-"$VERSION"-cp39-abi3-win_amd64.whl) || die "no cp39-abi3-win_amd64 wheel in $DIST"
# What a static link needs besides libiikocloud.a (rustc --print
# native-static-libs for this target; the rest is imported by raw-dylib
# from inside the library). dist-test.sh links a program statically with the
# CMake package, which fails if one is missing.
NATIVE_STATIC_LIBS="bcrypt;advapi32;kernel32;ntdll;userenv;ws2_32;dbghelp"

# ---- stripped copies ----
DLL=$STAGE/iikocloud.dll
EXE=$STAGE/iikocloud.exe
LIB_A=$STAGE/libiikocloud.a
$STRIP --strip-unneeded -o "$DLL" "$REL/iikocloud.dll"
$STRIP --strip-unneeded -o "$EXE" "$REL/iikocloud.exe"
# The static library carries the split-DWARF members (.dwo) of the Rust
# standard library as shipped for this target: debug info only, and objects
# strip refuses ("has no sections"). Dropped, then the rest stripped.
cp "$REL/libiikocloud.a" "$LIB_A"
quiet_bfd x86_64-w64-mingw32-ar t "$LIB_A" >"$STAGE/members.txt"
grep '\.dwo$' "$STAGE/members.txt" | quiet_bfd xargs -r x86_64-w64-mingw32-ar d "$LIB_A"
quiet_bfd $STRIP --strip-debug "$LIB_A"

# What they import: DLLs of every Windows 10 and later (bcryptprimitives.dll
# is Windows 10's), nothing from MinGW (libgcc, libwinpthread) or a compiler.
system_dlls='kernel32|advapi32|ntdll|bcrypt|bcryptprimitives|crypt32|ncrypt|secur32|userenv|ws2_32|user32|msvcrt|api-ms-win-core-[a-z0-9-]+'
dll_imports() { $OBJDUMP -p "$1" | sed -n 's/^\s*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u; }
for f in "$DLL" "$EXE"; do
    other=$(dll_imports "$f" | grep -vE "^($system_dlls)\.dll$" || true)
    [ -z "$other" ] || die "$(basename "$f") imports DLLs Windows does not have: $other"
done

# ---- exports, .def and the import libraries ----
# The exports, from the DLL's export table: only the C API, and no test hook.
$OBJDUMP -p "$DLL" | sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/s/^\s*\[ *[0-9]*\] //p' >"$STAGE/exports.txt"
[ -s "$STAGE/exports.txt" ] || die "iikocloud.dll exports nothing"
if grep -v '^iiko_' "$STAGE/exports.txt"; then die "iikocloud.dll exports more than the C API (above)"; fi
if grep -qx iiko_debug_force_panic "$STAGE/exports.txt"; then
    die "the release iikocloud.dll exports iiko_debug_force_panic (built with test-hooks)"
fi
# Every function of the header is exported (cbindgen writes each on one line).
for fn in $(sed -n 's/^[a-z0-9_ ]*[ *]\(iiko_[a-z0-9_]*\)(.*/\1/p' include/iikocloud.h | grep -vx iiko_debug_force_panic); do
    grep -qx "$fn" "$STAGE/exports.txt" || die "iikocloud.dll does not export $fn, which iikocloud.h declares"
done
{
    echo "LIBRARY iikocloud.dll"
    echo "EXPORTS"
    sed 's/^/    /' "$STAGE/exports.txt"
} >"$STAGE/iikocloud.def"
# MSVC's import library. The MinGW one (.dll.a) is the linker's, from the same build.
llvm-dlltool -m i386:x86-64 -d "$STAGE/iikocloud.def" -D iikocloud.dll -l "$STAGE/iikocloud.lib"
cp "$REL/libiikocloud.dll.a" "$STAGE/libiikocloud.dll.a"

step "licenses of the crates compiled in"
python3 scripts/third-party-licenses.py --target="$TRIPLE" iikocloud-c iikocloud-cli >"$STAGE/THIRD-PARTY-LICENSES.txt"

# ---- the zip ----
step "C/C++ zip"
ANAME=iikocloud-$VERSION-windows-x86_64
A=$STAGE/$ANAME
install -d "$A/bin" "$A/include" "$A/lib/cmake/iikocloud"
install -m 755 "$DLL" "$EXE" "$A/bin/"
install -m 644 include/iikocloud.h include/iikocloud.hpp include/iikocloud_ops.hpp "$A/include/"
install -m 644 "$STAGE/libiikocloud.dll.a" "$LIB_A" "$STAGE/iikocloud.lib" "$STAGE/iikocloud.def" "$A/lib/"
sed -e "s|@VERSION@|$VERSION|g" -e "s|@SOVERSION@|$SOVERSION|g" -e "s|@NATIVE_STATIC_LIBS@|$NATIVE_STATIC_LIBS|g" \
    packaging/cmake/iikocloudConfig-windows.cmake.in >"$A/lib/cmake/iikocloud/iikocloudConfig.cmake"
sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@MINOR@|$MINOR|g" \
    packaging/cmake/iikocloudConfigVersion.cmake.in >"$A/lib/cmake/iikocloud/iikocloudConfigVersion.cmake"
if grep -q '@[A-Z_]*@' "$A"/lib/cmake/iikocloud/*.cmake; then die "unreplaced placeholder in the CMake files"; fi
install -m 644 LICENSE-MIT LICENSE-APACHE CHANGELOG.md "$STAGE/THIRD-PARTY-LICENSES.txt" "$A/"
install -m 644 bindings/c/README.md "$A/README-C.md"
install -m 644 bindings/c/CHANGELOG.md "$A/CHANGELOG-C-ABI.md"
# Sorted, fixed times: the same build gives the same zip.
python3 - "$STAGE" "$ANAME" "$DIST/$ANAME.zip" <<'PY'
import os, sys, zipfile
stage, name, out = sys.argv[1:]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for dirpath, dirnames, filenames in os.walk(os.path.join(stage, name)):
        dirnames.sort()
        for f in sorted(filenames):
            path = os.path.join(dirpath, f)
            info = zipfile.ZipInfo(os.path.relpath(path, stage), (2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as src:
                z.writestr(info, src.read())
PY

# ---- the wheel: what it holds and imports ----
step "python wheel: tags, module, imports"
"$VENV/bin/python" - "$WHEEL" "$STAGE" <<'PY'
import os, sys, zipfile
wheel, stage = sys.argv[1:]
z = zipfile.ZipFile(wheel)
tags = [l.split(":", 1)[1].strip() for l in z.read(next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))).decode().splitlines() if l.startswith("Tag:")]
if tags != ["cp39-abi3-win_amd64"]:
    sys.exit(f"wheel tags {tags}, wanted cp39-abi3-win_amd64")
pyd = [n for n in z.namelist() if n.endswith(".pyd")]
if pyd != ["iikocloud/_native.pyd"]:
    sys.exit(f"the wheel's modules: {pyd}, wanted iikocloud/_native.pyd")
with open(os.path.join(stage, "_native.pyd"), "wb") as f:
    f.write(z.read(pyd[0]))
print(f"{os.path.basename(wheel)}: tag {tags[0]}, {pyd[0]}")
PY
PYD=$STAGE/_native.pyd
PYD_IMPORTS=$(dll_imports "$PYD")
other=$(grep -vE "^($system_dlls|python3)\.dll$" <<<"$PYD_IMPORTS" || true)
[ -z "$other" ] || die "_native.pyd imports DLLs Windows and Python do not have: $other"
grep -qx python3.dll <<<"$PYD_IMPORTS" || die "_native.pyd does not import python3.dll (the stable ABI)"
if grep -E '^python3[0-9]+\.dll$' <<<"$PYD_IMPORTS"; then die "_native.pyd imports a versioned Python DLL: not abi3"; fi
PYD_HEADERS=$($OBJDUMP -p "$PYD")
grep -qE '\] PyInit__native$' <<<"$PYD_HEADERS" || die "_native.pyd exports no PyInit__native"

# ---- sizes: what is inside, for dist.sh's table (which lists dist/ itself) ----
human_size() { awk -v b="$1" 'BEGIN { s = sprintf("%d", b); o = ""; while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) } printf "%s%s B (%.1f MiB)", s, o, b / 1048576 }'; }
DLL_BYTES=$(stat -c %s "$DLL")
echo "$ANAME.zip: $(human_size "$(stat -c %s "$DIST/$ANAME.zip")"); $(basename "$WHEEL"): $(human_size "$(stat -c %s "$WHEEL")")"
{
    echo "| inside the Windows wheel: \`iikocloud/_native.pyd\`, unpacked | $(human_size "$(stat -c %s "$PYD")") |"
    echo "| inside the zip: \`bin/iikocloud.dll\`, stripped | $(human_size "$DLL_BYTES") |"
    echo "| inside the zip: \`lib/libiikocloud.a\`, debug info stripped | $(human_size "$(stat -c %s "$LIB_A")") |"
    echo "| inside the zip: \`bin/iikocloud.exe\`, stripped | $(human_size "$(stat -c %s "$EXE")") |"
} >"$STAGE/sizes.md"
cat "$STAGE/sizes.md"
# The budget of the Linux library holds for the DLL too.
[ "$DLL_BYTES" -le $((8 * 1024 * 1024)) ] || die "the stripped iikocloud.dll is $DLL_BYTES bytes, over its 8 MiB budget"
