# Sourced by scripts/dist.sh, dist-aarch64.sh and dist-windows.sh.
#
# release_build_and_wheel TARGET MATURIN ARGS...: the release build of the C
# library, the CLI and the Python module for TARGET, and `MATURIN build ARGS`
# making the wheel from it, in one compile.
#
# maturin builds the module with `cargo rustc`, in an environment of its own
# (PYO3_BUILD_EXTENSION_MODULE, PYO3_CONFIG_FILE, PYO3_PYTHON...) that pyo3's
# build scripts read. A `cargo build` of the three crates beforehand left
# pyo3 and the module to compile again (minutes per target, with LTO), and
# could not leave the module out: it unifies the features of
# the crates the three share as maturin's build of the module asks (host syn
# with `visit-mut`, for pyo3's macros), or the core compiles twice. So the
# build of the three runs inside maturin's call, in its environment: maturin
# runs this script's `cargo`, which builds them, then runs maturin's own
# command, which finds all of it compiled. The module is stripped by the
# root Cargo.toml's profiles, not by maturin's extra rustc argument, which
# would make it another compile.
#
# With DIST_KEEP_PYTHON (dist.sh's shortcut) only the cargo build runs.

# What ships is built with fat LTO (cargo and maturin read this variable).
# Across the crates' boundaries the compiler inlines the core's scan into
# the Python module's parse and lays the hot code out together: a
# sub-kilobyte webhook parse in Python went 8-14 % faster, with fewer
# instruction-cache misses, and the Windows DLL is smaller than with thin
# LTO (dist-windows.sh; history of 2026-11-29). It costs about a minute more
# per target; the workspace's own release builds, which nothing ships, keep
# the plain profile.
export CARGO_PROFILE_RELEASE_LTO=${CARGO_PROFILE_RELEASE_LTO:-fat}
release_build_and_wheel() {
    local target=$1 maturin=$2
    shift 2
    local build=(build --release --locked --target "$target" -p iikocloud-c -p iikocloud-cli -p iikocloud-python)
    if [ -n "${DIST_KEEP_PYTHON:-}" ]; then
        # No libpython is linked (none exists for the cross targets here).
        PYO3_BUILD_EXTENSION_MODULE=1 cargo "${build[@]}"
        return
    fi
    local real_cargo shim
    real_cargo=$(command -v cargo) || return
    shim=$CARGO_TARGET_DIR/maturin-cargo/$target
    mkdir -p "$shim"
    # maturin's messages about the module's compile are kept, to check below.
    cat >"$shim/cargo" <<EOF
#!/usr/bin/env bash
# Written by scripts/dist-wheel.sh: the cargo maturin runs.
set -euo pipefail
if [ "\${1:-}" = rustc ]; then
    "$real_cargo" ${build[*]} >&2
    "$real_cargo" "\$@" | tee "$shim/module-build.json"
else
    exec "$real_cargo" "\$@"
fi
EOF
    chmod +x "$shim/cargo"
    rm -f "$shim/module-build.json"
    PATH="$shim:$PATH" "$maturin" build "$@" || return
    [ -s "$shim/module-build.json" ] || {
        echo "maturin did not build the module through $shim/cargo" >&2
        return 1
    }
    # Any crate maturin's own command compiled was compiled twice.
    local again
    again=$(grep '"reason":"compiler-artifact"' "$shim/module-build.json" | { grep '"fresh":false' || true; } |
        sed -n 's/.*"target":{[^}]*"name":"\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' ')
    if [ -n "$again" ]; then
        echo "maturin compiled again for $target what the release build had: $again(another feature" \
            "of a shared dependency, or an argument of maturin's own for the module; compare" \
            "'cargo tree -e features -p iikocloud-python' with '-p iikocloud-c -p iikocloud-cli')" >&2
        return 1
    fi
}
