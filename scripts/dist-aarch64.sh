# Linux aarch64 (64-bit ARM) release artifacts. Sourced by scripts/dist.sh in
# a subshell, after its x86_64 artifacts: it reuses that script's variables
# (VERSION, SONAME, DIST, STAGE, VENV, ...) and functions (install_lib,
# install_dev, deb, doc_extra, deb_depends, subst) with its own target, stage
# and Debian architecture, and writes to dist/:
#
#   iikocloud-V-cp39-abi3-manylinux2014_aarch64.manylinux_2_17_aarch64.whl
#       the Python package for aarch64 CPython 3.9+ on glibc 2.17+, checked
#       with auditwheel show;
#   iikocloud-V-linux-aarch64.tar.gz
#       the C/C++ SDK, laid out as the x86_64 archive;
#   libiikocloudSOVER_V-1_arm64.deb, libiikocloud-dev_V-1_arm64.deb,
#   iikocloud_V-1_arm64.deb
#       the library, development files and CLI in /usr/lib/aarch64-linux-gnu
#       and /usr/bin.
#
# One release build for aarch64 makes the library, the CLI and the wheel's
# module: cross-compiled by zig against glibc 2.17 symbols, as the x86_64
# build is. The stripped library must stay within 8 MiB. Installs what is
# missing (binutils-aarch64-linux-gnu for strip and objdump, the rustup
# target). scripts/qemu-test.sh dist runs what this writes under qemu-user.
[ -n "${SONAME:-}" ] || { echo "scripts/dist-aarch64.sh is sourced by scripts/dist.sh" >&2; exit 2; }

A64_TARGET=aarch64-unknown-linux-gnu
OUTER_STAGE=$STAGE
STAGE=$OUTER_STAGE/aarch64
MULTIARCH=aarch64-linux-gnu
DEB_ARCH=arm64
rm -rf "$STAGE"
mkdir -p "$STAGE"

if ! command -v aarch64-linux-gnu-strip >/dev/null || ! command -v aarch64-linux-gnu-objdump >/dev/null; then
    step "installing binutils-aarch64-linux-gnu"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq binutils-aarch64-linux-gnu >/dev/null
fi
if ! rustup target list --installed | grep -qx "$A64_TARGET"; then
    step "rustup target add $A64_TARGET"
    rustup target add "$A64_TARGET"
fi

# The same zig wrapper as for x86_64, for the aarch64 glibc 2.17 target.
cat >"$ZIG/cc-aarch64" <<EOF
#!/bin/sh
# rustc's linker and the cc crate's compiler: zig for aarch64 glibc 2.17.
exec "$VENV/bin/maturin" zig cc -- -fno-sanitize=all -target aarch64-linux-gnu.2.17 "\$@"
EOF
chmod +x "$ZIG/cc-aarch64"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$ZIG/cc-aarch64
export CC_aarch64_unknown_linux_gnu=$ZIG/cc-aarch64
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar

step "aarch64: libiikocloud, the CLI and the Python module (release, zig, glibc 2.17), and the python wheel (abi3, manylinux2014)"
a64_started=$SECONDS
# abi3: pyo3 needs no aarch64 interpreter to cross-compile the module.
release_build_and_wheel "$A64_TARGET" maturin -q --release --locked --target "$A64_TARGET" \
    --compatibility manylinux2014 -m bindings/python/Cargo.toml --out "$DIST"
A64_WHEEL=$(ls "$DIST"/iikocloud-"$VERSION"-cp39-abi3-*manylinux_2_17_aarch64*.whl)
auditwheel show "$A64_WHEEL" | tee "$STAGE/auditwheel.txt"
grep -q 'manylinux_2_17_aarch64' "$STAGE/auditwheel.txt" ||
    die "auditwheel does not find the aarch64 wheel manylinux_2_17 compatible"
echo "aarch64 build and wheel: $((SECONDS - a64_started)) s"

# ---- stripped copies, checks ----
REL=$CARGO_TARGET_DIR/$A64_TARGET/release
LIB_SO=$STAGE/libiikocloud.so
LIB_A=$STAGE/libiikocloud.a
CLI=$STAGE/iikocloud
aarch64-linux-gnu-strip --strip-unneeded -o "$LIB_SO" "$REL/libiikocloud.so"
aarch64-linux-gnu-strip --strip-debug -o "$LIB_A" "$REL/libiikocloud.a"
aarch64-linux-gnu-strip --strip-unneeded -o "$CLI" "$REL/iikocloud"
for f in "$LIB_SO" "$CLI"; do
    readelf -h "$f" | grep -q 'Machine: *AArch64' || die "$f is not an AArch64 binary"
done
readelf -d "$LIB_SO" | grep "Library soname: \[$SONAME\]" >/dev/null ||
    die "the aarch64 libiikocloud.so has no SONAME $SONAME"
if aarch64-linux-gnu-nm -D --defined-only "$LIB_SO" | grep -w iiko_debug_force_panic >/dev/null; then
    die "the aarch64 libiikocloud exports iiko_debug_force_panic (built with test-hooks)"
fi
# The x86_64 library's exports, no more and no fewer: one C ABI.
diff <(nm -D --defined-only "$OUTER_STAGE/libiikocloud.so" | awk '{print $3}' | sort) \
    <(aarch64-linux-gnu-nm -D --defined-only "$LIB_SO" | awk '{print $3}' | sort) ||
    die "the aarch64 library exports other symbols than the x86_64 one (above)"
LIB_BYTES=$(stat -c %s "$LIB_SO")
[ "$LIB_BYTES" -le $((8 * 1024 * 1024)) ] ||
    die "the stripped aarch64 libiikocloud.so is $LIB_BYTES bytes, over its 8 MiB budget"
glibc_needed() {
    aarch64-linux-gnu-objdump -T "$1" | sed -n 's/.*GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -uV | tail -1
}
GLIBC_LIB=$(glibc_needed "$LIB_SO")
GLIBC_CLI=$(glibc_needed "$CLI")
echo "aarch64: libiikocloud needs glibc >= $GLIBC_LIB, the CLI glibc >= $GLIBC_CLI"
for v in "$GLIBC_LIB" "$GLIBC_CLI"; do
    [ "$(printf '%s\n' "$v" 2.17 | sort -V | tail -1)" = 2.17 ] ||
        die "an aarch64 binary needs glibc $v, newer than 2.17"
done
python3 scripts/third-party-licenses.py --target="$A64_TARGET" iikocloud-c >"$STAGE/THIRD-PARTY-LICENSES-c.txt"
python3 scripts/third-party-licenses.py --target="$A64_TARGET" iikocloud-cli >"$STAGE/THIRD-PARTY-LICENSES-cli.txt"

# ---- the C/C++ archive ----
step "aarch64: C/C++ archive"
ANAME=iikocloud-$VERSION-linux-aarch64
A=$STAGE/$ANAME
install_lib "$A/lib"
# shellcheck disable=SC2016
install_dev "$A/lib" "$A/include" '${pcfiledir}/../..' '${prefix}/lib' '${prefix}/include' ../include
install -m 644 LICENSE-MIT LICENSE-APACHE CHANGELOG.md "$A/"
install -m 644 "$STAGE/THIRD-PARTY-LICENSES-c.txt" "$A/THIRD-PARTY-LICENSES.txt"
install -m 644 bindings/c/README.md "$A/README-C.md"
install -m 644 bindings/c/CHANGELOG.md "$A/CHANGELOG-C-ABI.md"
tar -C "$STAGE" --owner=0 --group=0 --numeric-owner --sort=name -czf "$DIST/$ANAME.tar.gz" "$ANAME"

# ---- Debian packages (arm64) ----
step "aarch64: Debian packages (arm64)"
install_lib "$STAGE/deb/$LIBPKG/usr/lib/$MULTIARCH"
doc_extra "$LIBPKG" "$STAGE/THIRD-PARTY-LICENSES-c.txt"
install -d "$STAGE/deb/$LIBPKG/DEBIAN"
echo "libiikocloud $SOVERSION $LIBPKG (>= $VERSION)" >"$STAGE/deb/$LIBPKG/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$STAGE/deb/$LIBPKG/DEBIAN/triggers"
deb "$LIBPKG" libs "$(deb_depends "$LIB_SO" "$GLIBC_LIB")" \
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
deb iikocloud utils "$(deb_depends "$CLI" "$GLIBC_CLI")" \
    "command-line tool for the iikoCloud (iikoTransport) API
 Tokens, organizations, webhook settings, stop lists and raw calls against
 the service; webhook debugging (listen, parse, verify); a local emulator of
 the API for tests and a demo of the whole flow."

# ---- sizes of the files inside, for dist.sh's table ----
A64_NATIVE=$(python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(sum(i.file_size for i in z.infolist() if i.filename.endswith(".so")))' "$A64_WHEEL")
{
    echo "inside the aarch64 wheel: \`iikocloud/_native.abi3.so\`, unpacked|$A64_NATIVE"
    echo "inside the aarch64 archive: \`libiikocloud.so.$VERSION\`, stripped|$LIB_BYTES"
    echo "inside the aarch64 archive: \`libiikocloud.a\`, debug info stripped|$(stat -c %s "$LIB_A")"
    echo "inside \`iikocloud_${DEBVERSION}_arm64\`: \`/usr/bin/iikocloud\`, stripped|$(stat -c %s "$CLI")"
} >"$OUTER_STAGE/sizes-aarch64.txt"
echo "aarch64 artifacts: $((SECONDS - a64_started)) s"
