#!/usr/bin/env bash
# Release artifacts for users without a Rust toolchain, written to dist/
# (or $DIST_DIR) from a checkout. Safe to run again; scripts/dist-test.sh
# installs and tests what it writes.
#
#   iikocloud-V-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#       the Python package, one wheel for CPython 3.9 and newer, glibc 2.17
#       and newer (maturin --zig links against glibc 2.17 symbols), checked
#       with auditwheel show;
#   iikocloud-V.tar.gz             the sdist (maturin sdist; builds that wheel);
#   iikocloud-V-linux-x86_64.tar.gz
#       the C and C++ SDK: lib/ (libiikocloud.so.V with its SONAME link and
#       the development link, libiikocloud.a), include/ (iikocloud.h,
#       iikocloud.hpp, iikocloud_ops.hpp), lib/pkgconfig/iikocloud.pc and lib/cmake/iikocloud/
#       (targets iikocloud::iikocloud and iikocloud::iikocloud_static), both
#       relative to where the archive is unpacked; licenses, CHANGELOG;
#   libiikocloudSOVER_V-1_amd64.deb, libiikocloud-dev_V-1_amd64.deb,
#   iikocloud_V-1_amd64.deb
#       the same library, headers, pkg-config and CMake files and the CLI in
#       the Debian places (/usr/lib/x86_64-linux-gnu, /usr/include, /usr/bin);
#   iikocloud-V-windows-x86_64.zip, iikocloud-V-cp39-abi3-win_amd64.whl
#       the C/C++ SDK and the Python package for Windows x86_64
#       (scripts/dist-windows.sh says what they hold);
#   iikocloud-php-V.zip
#       the composer package (bindings/php without its tests, version set),
#       usable as a composer "artifact" repository or unpacked as a "path"
#       one; it finds the library of the .deb or of the archive (IIKOCLOUD_LIB);
#   the same wheel, archive and Debian packages for Linux aarch64
#       (manylinux2014_aarch64, linux-aarch64, arm64; scripts/dist-aarch64.sh);
#   SHA256SUMS.
#
# DIST_KEEP_PYTHON=1 keeps the wheel and sdist already in dist/ (a shortcut
# while working on the other artifacts; a release runs without it).
#
# The version is the workspace's ([workspace.package] in Cargo.toml); the
# script stops when the header, the PHP package or the CHANGELOG disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIST=${DIST_DIR:-$ROOT/dist}
STAGE=$ROOT/target/dist-stage
VENV=$ROOT/target/dist-venv

step() { printf '\n==> [dist %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
die() { echo "dist: $*" >&2; exit 1; }
source scripts/dist-wheel.sh

# ---- the version, from one place ----
VERSION=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[[ $VERSION =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "no plain MAJOR.MINOR.PATCH version in Cargo.toml: '$VERSION'"
MAJOR=${BASH_REMATCH[1]}
MINOR=${BASH_REMATCH[2]}
# While the major version is 0 every minor release may change the ABI
# (bindings/c/Makefile names the SONAME the same way).
if [ "$MAJOR" = 0 ]; then SOVERSION=0.$MINOR; else SOVERSION=$MAJOR; fi
SONAME=libiikocloud.so.$SOVERSION
DEBVERSION=$VERSION-1
MULTIARCH=x86_64-linux-gnu
DEB_ARCH=amd64
grep -q "^#define IIKO_VERSION_STRING \"$VERSION\"" include/iikocloud.h ||
    die "include/iikocloud.h is not version $VERSION: regenerate it (make -C bindings/c header)"
grep -q "ABI_VERSION = '$SOVERSION'" bindings/php/src/Library.php ||
    die "bindings/php/src/Library.php ABI_VERSION is not '$SOVERSION'"
grep -q "^## $VERSION" CHANGELOG.md || die "CHANGELOG.md has no section for $VERSION"
[ "$(uname -m)" = x86_64 ] || die "the artifacts are for x86_64 Linux; this is $(uname -m)"
echo "version $VERSION, ABI $SOVERSION ($SONAME)"

# ---- tools ----
missing=()
command -v python3 >/dev/null || missing+=(python3)
command -v dpkg-deb >/dev/null || missing+=(dpkg)
command -v strip >/dev/null || missing+=(binutils)
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x "$VENV/bin/python" ]; then
    step "creating $VENV"
    python3 -m venv "$VENV" 2>/dev/null || {
        rm -rf "$VENV"
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$VENV"
    }
fi
step "maturin, ziglang (the linker for glibc 2.17), auditwheel"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.9.4,<2" "ziglang>=0.13" "auditwheel>=6"
# maturin runs zig as `python -m ziglang` with the python on PATH.
export PATH=$VENV/bin:$PATH

rm -rf "$STAGE"
mkdir -p "$DIST" "$STAGE"
if [ -n "${DIST_KEEP_PYTHON:-}" ]; then
    # Development shortcut: keep the wheel and sdist already in dist/.
    find "$DIST" -maxdepth 1 -type f ! -name "iikocloud-$VERSION-cp39-abi3-*.whl" \
        ! -name "iikocloud-$VERSION.tar.gz" -delete
else
    rm -rf "${DIST:?}"/*
fi

# ---- one release build for the wheel, the C library and the CLI ----
# All are linked by zig against glibc 2.17, so they run on the same systems.
# One linker and compiler wrapper and one target directory for every build
# here: the linker and CC are part of cargo's fingerprint, so with the same
# ones the wheel built again from the sdist reuses the crates compiled first.
ZIG=$ROOT/target/dist-zig
mkdir -p "$ZIG"
cat >"$ZIG/cc" <<EOF
#!/bin/sh
# rustc's linker and the cc crate's compiler: zig for x86_64 glibc 2.17.
exec "$VENV/bin/maturin" zig cc -- -fno-sanitize=all -target x86_64-linux-gnu.2.17 "\$@"
EOF
chmod +x "$ZIG/cc"
export CARGO_TARGET_DIR=$ROOT/target/dist-c
# Every artifact ships stripped, so the debug info of the release profile
# (kept there for profiling benchmarks) would only cost compile and link
# time, three targets over.
export CARGO_PROFILE_RELEASE_DEBUG=0
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=$ZIG/cc
export CC_x86_64_unknown_linux_gnu=$ZIG/cc

step "profile-guided optimization: the module and the C library built instrumented, trained by scripts/pgo-train.py and scripts/pgo-train.c (scripts/dist-wheel.sh)"
pgo_profile x86_64-unknown-linux-gnu "$VENV/bin/python" "$VENV/bin/maturin"

step "libiikocloud, the CLI and the Python module (release, zig, glibc 2.17, fat LTO, the profile above), and the python wheel (abi3, manylinux2014)"
# One compile for the three, inside maturin's build of the wheel
# (scripts/dist-wheel.sh says why).
release_build_and_wheel x86_64-unknown-linux-gnu maturin -q --release --locked --target x86_64-unknown-linux-gnu \
    --compatibility manylinux2014 -m bindings/python/Cargo.toml --out "$DIST" --interpreter "$VENV/bin/python"
WHEEL=$(ls "$DIST"/iikocloud-"$VERSION"-cp39-abi3-*manylinux_2_17_x86_64*.whl)
case $WHEEL in
*manylinux_2_17_x86_64*) ;;
*) die "the wheel is not tagged manylinux_2_17: $WHEEL" ;;
esac
auditwheel show "$WHEEL" | tee "$STAGE/auditwheel.txt"
grep -q 'manylinux_2_17_x86_64' "$STAGE/auditwheel.txt" ||
    die "auditwheel does not find the wheel manylinux_2_17 compatible"
step "python sdist"
[ -n "${DIST_KEEP_PYTHON:-}" ] || maturin sdist -m bindings/python/Cargo.toml --out "$DIST" >/dev/null
SDIST=$DIST/iikocloud-$VERSION.tar.gz
ls "$SDIST" >/dev/null
# What the sdist holds: the Python package and the sources of the crates the
# module links (their Cargo `include` lists), not the workspace's tests,
# bindings or scripts.
if tar tzf "$SDIST" | grep -E '^[^/]+/(tests|bindings/php|bindings/c|cli|codegen|docs/site|scripts|fuzz)/' >/dev/null; then
    die "the sdist carries workspace parts the module does not build from: $(tar tzf "$SDIST" | grep -E '^[^/]+/(tests|bindings/php|bindings/c|cli|codegen|docs/site|scripts|fuzz)/' | head -3 | tr '\n' ' ')"
fi

step "python wheel built again from the sdist, as pip builds it where no wheel fits"
# pip's own path (PEP 517, maturin from the venv), with the same target and
# policy; not --locked: the sdist's workspace has fewer members than the
# Cargo.lock it carries, and cargo drops their entries, keeping every pinned
# version. Same target directory: cargo reuses each crate whose sources it
# finds unchanged and compiles the rest, so a file missing from the sdist or
# a manifest it cannot read fails here, as it would for a user.
rm -rf "$STAGE/from-sdist"
MATURIN_PEP517_ARGS="--target x86_64-unknown-linux-gnu --compatibility manylinux2014" \
    "$VENV/bin/python" -m pip wheel -q --disable-pip-version-check --no-cache-dir --no-deps \
    --no-build-isolation --wheel-dir "$STAGE/from-sdist" "$SDIST" ||
    die "the sdist does not build (pip wheel $SDIST)"
"$VENV/bin/python" - "$WHEEL" "$STAGE"/from-sdist/*.whl <<'PY' || die "the wheel built from the sdist differs from $WHEEL"
import json, os, sys, zipfile

released, rebuilt = (zipfile.ZipFile(p) for p in sys.argv[1:3])
if os.path.basename(sys.argv[1]) != os.path.basename(sys.argv[2]):
    sys.exit(f"tags differ: {os.path.basename(sys.argv[2])}")
names = set(released.namelist())
if names != set(rebuilt.namelist()):
    sys.exit(f"files differ: {sorted(names ^ set(rebuilt.namelist()))}")
for name in sorted(names):
    if name.endswith("/RECORD"):
        continue  # hashes of the SBOM below
    a, b = released.read(name), rebuilt.read(name)
    if name.endswith(".cyclonedx.json"):
        # The SBOM names the build directory and time; the components must agree.
        a, b = ({(c["name"], c["version"]) for c in json.loads(x)["components"]} for x in (a, b))
    if a != b:
        sys.exit(f"{name} differs")
print(f"the sdist builds the same wheel ({len(names)} files)")
PY

# ---- C library and CLI: stripped copies ----
REL=$ROOT/target/dist-c/x86_64-unknown-linux-gnu/release
# Built without debug info of our own crates (above); the symbol tables and
# the standard library's debug info are stripped here.
LIB_SO=$STAGE/libiikocloud.so
LIB_A=$STAGE/libiikocloud.a
CLI=$STAGE/iikocloud
strip --strip-unneeded -o "$LIB_SO" "$REL/libiikocloud.so"
strip --strip-debug -o "$LIB_A" "$REL/libiikocloud.a"
strip --strip-unneeded -o "$CLI" "$REL/iikocloud"
readelf -d "$LIB_SO" | grep "Library soname: \[$SONAME\]" >/dev/null ||
    die "libiikocloud.so has no SONAME $SONAME (bindings/c/build.rs sets it)"
# Test hooks (the test-hooks feature of iikocloud-c) never ship.
if nm -D --defined-only "$LIB_SO" | grep -w iiko_debug_force_panic >/dev/null ||
    nm --defined-only "$LIB_A" 2>/dev/null | grep -w iiko_debug_force_panic >/dev/null; then
    die "the release libiikocloud exports iiko_debug_force_panic (built with test-hooks)"
fi
# The newest glibc symbol version each binary needs: the Debian dependency
# and the platform line of the CHANGELOG.
glibc_needed() {
    objdump -T "$1" | sed -n 's/.*GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -uV | tail -1
}
GLIBC_LIB=$(glibc_needed "$LIB_SO")
GLIBC_CLI=$(glibc_needed "$CLI")
echo "libiikocloud needs glibc >= $GLIBC_LIB, the CLI glibc >= $GLIBC_CLI"
for v in "$GLIBC_LIB" "$GLIBC_CLI"; do
    [ "$(printf '%s\n' "$v" 2.17 | sort -V | tail -1)" = 2.17 ] ||
        die "a binary needs glibc $v, newer than the 2.17 the CHANGELOG promises"
done
# deb_depends FILE GLIBC: the Debian packages of the libraries FILE needs.
deb_depends() {
    local needed deps="libc6 (>= $2)" lib
    needed=$(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
    for lib in $needed; do
        case $lib in
        libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | librt.so.1 | libutil.so.1 | ld-linux-x86-64.so.2 | \
            ld-linux-aarch64.so.1) ;;
        libgcc_s.so.1) deps="$deps, libgcc-s1" ;;
        *) die "$1 needs $lib: name its Debian package in deb_depends" ;;
        esac
    done
    echo "$deps"
}
step "licenses of the crates compiled in"
python3 scripts/third-party-licenses.py iikocloud-c >"$STAGE/THIRD-PARTY-LICENSES-c.txt"
python3 scripts/third-party-licenses.py iikocloud-cli >"$STAGE/THIRD-PARTY-LICENSES-cli.txt"

# subst FILE.in OUT NAME=VALUE...: replaces each @NAME@.
subst() {
    local in=$1 out=$2; shift 2
    local args=()
    for kv in "$@"; do args+=(-e "s|@${kv%%=*}@|${kv#*=}|g"); done
    sed "${args[@]}" "$in" >"$out"
    if grep -q '@[A-Z_]*@' "$out"; then die "unreplaced placeholder in $out"; fi
}
PRIVATE_LIBS="-lpthread -ldl -lm -lrt -lutil -lgcc_s -lc"

# install_lib LIBDIR: the runtime library and its SONAME link.
install_lib() {
    local libdir=$1
    install -d "$libdir"
    install -m 644 "$LIB_SO" "$libdir/libiikocloud.so.$VERSION"
    ln -sf "libiikocloud.so.$VERSION" "$libdir/$SONAME"
}
# install_dev LIBDIR INCLUDEDIR PC_PREFIX PC_LIBDIR PC_INCLUDEDIR INCLUDE_FROM_LIBDIR:
# the development link, static library, headers, pkg-config and CMake files.
install_dev() {
    local libdir=$1 includedir=$2 pc_prefix=$3 pc_libdir=$4 pc_includedir=$5 rel_include=$6
    install -d "$libdir/pkgconfig" "$libdir/cmake/iikocloud" "$includedir"
    ln -sf "$SONAME" "$libdir/libiikocloud.so"
    install -m 644 "$LIB_A" "$libdir/libiikocloud.a"
    install -m 644 include/iikocloud.h include/iikocloud.hpp include/iikocloud_ops.hpp "$includedir/"
    subst bindings/c/iikocloud.pc.in "$libdir/pkgconfig/iikocloud.pc" \
        "PREFIX=$pc_prefix" "LIBDIR=$pc_libdir" "INCLUDEDIR=$pc_includedir" \
        "VERSION=$VERSION" "PRIVATE_LIBS=$PRIVATE_LIBS"
    local vars=("VERSION=$VERSION" "MAJOR=$MAJOR" "MINOR=$MINOR" "SOVERSION=$SOVERSION"
        "SONAME=$SONAME" "INCLUDE_FROM_LIBDIR=$rel_include")
    subst packaging/cmake/iikocloudConfig.cmake.in "$libdir/cmake/iikocloud/iikocloudConfig.cmake" "${vars[@]}"
    subst packaging/cmake/iikocloudConfigVersion.cmake.in \
        "$libdir/cmake/iikocloud/iikocloudConfigVersion.cmake" "${vars[@]}"
}

# ---- the C/C++ archive ----
step "C/C++ archive"
ANAME=iikocloud-$VERSION-linux-x86_64
A=$STAGE/$ANAME
install_lib "$A/lib"
# ${pcfiledir}: pkg-config resolves it, so the archive works where it is unpacked.
# shellcheck disable=SC2016
install_dev "$A/lib" "$A/include" '${pcfiledir}/../..' '${prefix}/lib' '${prefix}/include' ../include
install -m 644 LICENSE-MIT LICENSE-APACHE CHANGELOG.md "$A/"
install -m 644 "$STAGE/THIRD-PARTY-LICENSES-c.txt" "$A/THIRD-PARTY-LICENSES.txt"
install -m 644 bindings/c/README.md "$A/README-C.md"
install -m 644 bindings/c/CHANGELOG.md "$A/CHANGELOG-C-ABI.md"
tar -C "$STAGE" --owner=0 --group=0 --numeric-owner --sort=name -czf "$DIST/$ANAME.tar.gz" "$ANAME"

# ---- Debian packages ----
step "Debian packages"
LIBPKG=libiikocloud$SOVERSION
MAINT="iikocloud maintainers <iikocloud@example.invalid>"
# deb NAME SECTION DEPENDS DESCRIPTION [EXTRA CONTROL LINES]: builds $STAGE/deb/NAME.
deb() {
    local name=$1 section=$2 depends=$3 description=$4 extra=${5:-}
    local d=$STAGE/deb/$name
    install -d "$d/DEBIAN" "$d/usr/share/doc/$name"
    {
        echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
        echo "Upstream-Name: iikocloud"
        echo
        echo "Files: *"
        echo "Copyright: the iikocloud authors"
        echo "License: MIT or Apache-2.0"
        echo " The full texts: /usr/share/common-licenses/Apache-2.0 and below."
        echo " The licenses of the Rust crates compiled in are in THIRD-PARTY-LICENSES.txt.gz."
        echo " ."
        sed -e 's/^$/./' -e 's/^/ /' LICENSE-MIT
    } >"$d/usr/share/doc/$name/copyright"
    local size
    size=$(du -sk --exclude=DEBIAN "$d" | cut -f1)
    {
        echo "Package: $name"
        echo "Version: $DEBVERSION"
        echo "Architecture: $DEB_ARCH"
        echo "Maintainer: $MAINT"
        echo "Installed-Size: $size"
        echo "Section: $section"
        echo "Priority: optional"
        echo "Homepage: https://example.invalid/iikocloud"
        [ -n "$depends" ] && echo "Depends: $depends"
        [ -n "$extra" ] && printf '%s\n' "$extra"
        printf 'Description: %s\n' "$description"
    } >"$d/DEBIAN/control"
    (cd "$d" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
        xargs -0 md5sum >DEBIAN/md5sums)
    dpkg-deb --root-owner-group -Zxz --build "$d" "$DIST/${name}_${DEBVERSION}_${DEB_ARCH}.deb" >/dev/null
}
doc_extra() { # NAME THIRD-PARTY-FILE: changelog and licenses (gzip -n: reproducible)
    local d=$STAGE/deb/$1/usr/share/doc/$1
    install -d "$d"
    gzip -9n <CHANGELOG.md >"$d/changelog.gz"
    gzip -9n <"$2" >"$d/THIRD-PARTY-LICENSES.txt.gz"
}

install_lib "$STAGE/deb/$LIBPKG/usr/lib/$MULTIARCH"
doc_extra "$LIBPKG" "$STAGE/THIRD-PARTY-LICENSES-c.txt"
install -d "$STAGE/deb/$LIBPKG/DEBIAN"
echo "libiikocloud $SOVERSION $LIBPKG (>= $VERSION)" >"$STAGE/deb/$LIBPKG/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$STAGE/deb/$LIBPKG/DEBIAN/triggers"
LIB_DEPENDS=$(deb_depends "$LIB_SO" "$GLIBC_LIB")
CLI_DEPENDS=$(deb_depends "$CLI" "$GLIBC_CLI")
deb "$LIBPKG" libs "$LIB_DEPENDS" \
    "C library of the iikoCloud (iikoTransport) API SDK
 libiikocloud: a client for the iikoCloud API (token cache, every operation as
 JSON, safe retries), a webhook parser and verifier, for C and C++ programs.
 This package holds the shared library ($SONAME)." \
    "Multi-Arch: same"

install_dev "$STAGE/deb/libiikocloud-dev/usr/lib/$MULTIARCH" "$STAGE/deb/libiikocloud-dev/usr/include" \
    /usr "/usr/lib/$MULTIARCH" /usr/include ../../include
doc_extra libiikocloud-dev "$STAGE/THIRD-PARTY-LICENSES-c.txt"
install -m 644 bindings/c/CHANGELOG.md "$STAGE/deb/libiikocloud-dev/usr/share/doc/libiikocloud-dev/CHANGELOG-C-ABI.md"
deb libiikocloud-dev libdevel "$LIBPKG (= $DEBVERSION)" \
    "development files of libiikocloud (iikoCloud API SDK)
 Headers (iikocloud.h for C, iikocloud.hpp and iikocloud_ops.hpp for C++), the static library,
 pkg-config file (iikocloud) and CMake package (find_package(iikocloud):
 iikocloud::iikocloud, iikocloud::iikocloud_static). The PHP package
 (composer iikocloud/iikocloud) reads the header from here." \
    "Multi-Arch: same"

install -d "$STAGE/deb/iikocloud/usr/bin"
install -m 755 "$CLI" "$STAGE/deb/iikocloud/usr/bin/iikocloud"
doc_extra iikocloud "$STAGE/THIRD-PARTY-LICENSES-cli.txt"
deb iikocloud utils "$CLI_DEPENDS" \
    "command-line tool for the iikoCloud (iikoTransport) API
 Tokens, organizations, webhook settings, stop lists and raw calls against
 the service; webhook debugging (listen, parse, verify); a local emulator of
 the API for tests and a demo of the whole flow."

# ---- PHP (composer) ----
step "PHP package (composer)"
P=$STAGE/php
install -d "$P"
cp -R bindings/php/src bindings/php/bin "$P/"
install -m 644 bindings/php/README.md bindings/php/autoload.php bindings/php/preload.php \
    LICENSE-MIT LICENSE-APACHE "$P/"
# The published composer.json: the version (a path or artifact repository has
# no tag to take it from), without what only this repository's tests need.
python3 - "$VERSION" bindings/php/composer.json "$P/composer.json" <<'PY'
import json, sys
version, src, dst = sys.argv[1:]
meta = json.load(open(src))
meta["version"] = version
meta.pop("autoload-dev", None)
meta.pop("require-dev", None)
meta.setdefault("suggest", {})["libiikocloud"] = (
    "the C library this package loads: the Debian packages libiikocloud-dev, or "
    "iikocloud-VERSION-linux-x86_64.tar.gz with IIKOCLOUD_LIB=<dir>/lib/libiikocloud.so")
with open(dst, "w") as f:
    json.dump(meta, f, indent=4)
    f.write("\n")
PY
(cd "$P" && find . -type f | LC_ALL=C sort | sed 's|^\./||' |
    python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name in sys.stdin.read().split():
        z.write(name)' "$DIST/iikocloud-php-$VERSION.zip")

# ---- Linux aarch64: the same artifacts for 64-bit ARM ----
# In a subshell: it reuses the functions above with its own target, stage
# and Debian architecture.
(. scripts/dist-aarch64.sh)

# ---- Windows x86_64: zip and wheel (scripts/dist-windows.sh) ----
step "Windows x86_64: C/C++ zip and Python wheel (scripts/dist-windows.sh)"
./scripts/dist-windows.sh

# ---- sizes (BENCHMARKS.md "Release artifacts"; scripts/bench-report.sh copies it) ----
human_size() { awk -v b="$1" 'BEGIN { s = sprintf("%d", b); o = ""; while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) } printf "%s%s B (%.1f MiB)", s, o, b / 1048576 }'; }
{
    echo "| artifact | size |"
    echo "|---|---|"
    for f in "$DIST"/*; do
        echo "| \`$(basename "$f")\` | $(human_size "$(stat -c %s "$f")") |"
    done
    NATIVE=$(python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(sum(i.file_size for i in z.infolist() if i.filename.endswith(".so")))' "$WHEEL")
    echo "| inside the wheel: \`iikocloud/_native.abi3.so\`, unpacked | $(human_size "$NATIVE") |"
    echo "| inside the archive: \`libiikocloud.so.$VERSION\`, stripped | $(human_size "$(stat -c %s "$LIB_SO")") |"
    echo "| inside the archive: \`libiikocloud.a\`, debug info stripped | $(human_size "$(stat -c %s "$LIB_A")") |"
    echo "| inside \`iikocloud_$DEBVERSION\`: \`/usr/bin/iikocloud\`, stripped | $(human_size "$(stat -c %s "$CLI")") |"
    # The aarch64 files inside the artifacts (scripts/dist-aarch64.sh): "label|bytes" lines.
    while IFS='|' read -r label bytes; do echo "| $label | $(human_size "$bytes") |"; done <"$STAGE/sizes-aarch64.txt"

    cat "$STAGE/windows/sizes.md"
} >"$STAGE/sizes.md"

# ---- checksums ----
(cd "$DIST" && sha256sum -- * >SHA256SUMS)
step "dist/ ($(du -sh "$DIST" | cut -f1))"
cat "$STAGE/sizes.md"
