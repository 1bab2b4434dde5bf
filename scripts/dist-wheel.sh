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

source scripts/disk-room.sh

# What ships is built with fat LTO (cargo and maturin read this variable).
# Across the crates' boundaries the compiler inlines the core's scan into
# the Python module's parse and lays the hot code out together: a
# sub-kilobyte webhook parse in Python went 8-14 % faster, with fewer
# instruction-cache misses, and the Windows DLL is smaller than with thin
# LTO (dist-windows.sh; history of 2026-11-29). It costs about a minute more
# per target; the workspace's own release builds, which nothing ships, keep
# the plain profile.
export CARGO_PROFILE_RELEASE_LTO=${CARGO_PROFILE_RELEASE_LTO:-fat}

# pgo_flags_var TARGET: the variable cargo reads TARGET's rustflags from
# (target-specific, so build scripts, proc macros and the other targets'
# builds do not take them).
pgo_flags_var() {
    echo "CARGO_TARGET_$(echo "$1" | tr 'a-z-' 'A-Z_')_RUSTFLAGS"
}

# pgo_profdata TARGET: where pgo_profile leaves TARGET's merged counts.
pgo_profdata() {
    echo "${CARGO_TARGET_DIR:-$PWD/target}/pgo/$1/merged.profdata"
}

# pgo_profile TARGET PYTHON MATURIN: profile-guided optimization of the
# release build of TARGET that follows (the host only: the training runs
# what it builds). Builds the Python module instrumented, in a target
# directory of its own and with the same profile, and runs
# scripts/pgo-train.py on it with PYTHON (the test vectors and client calls:
# never the benchmark's bodies); builds the C library instrumented the same
# way and runs scripts/pgo-train.c on it (the C API's own functions, on the
# same vectors). Merges the counts with the toolchain's own llvm-profdata
# (rustup's llvm-tools, which matches rustc's LLVM) into the file
# pgo_profdata names and exports TARGET's rustflags with -Cprofile-use. The
# C library and the CLI of the same build take the counts of the core they
# share with the module. With the counts the compiler keeps the hot code
# together and out of the way of the cold: the sub-kilobyte Python parse
# plus every event_info went 10-17 % faster than with fat LTO alone, the
# 5.9-25 KB bodies about 22 % (history of 2026-11-29). Costs one more build
# of the module and of the C library. The training runs are made to count
# the same every time (`trained`), so that two builds of a commit are the
# same bytes (history of 2026-12-02: on a busy machine the counts of one of
# ureq's socket reads vary, which changes no shipped byte).
pgo_profile() {
    local target=$1 python=$2 maturin=$3
    local var dir merged profdata
    var=$(pgo_flags_var "$target")
    merged=$(pgo_profdata "$target")
    dir=$(dirname "$merged")
    profdata=$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata
    if [ ! -x "$profdata" ]; then
        rustup component add llvm-tools || return
    fi
    rm -rf "$dir/counts" "$dir/wheel" "$dir/module" "$dir/c" "$dir/fixed-random" "$merged"
    # trained VAR=VALUE... CMD...: CMD with only the variables given and the
    # few it needs (the environment's size and content move the addresses of
    # what the process allocates), the random source fixed (the hash tables'
    # seeds), Python's string hashes fixed and address randomization off
    # (tables keyed by addresses; setarch is util-linux's).
    mkdir -p "$dir/fixed-random" &&
        cc -O2 -shared -fPIC scripts/pgo-fixed-random.c -o "$dir/fixed-random/libfixed-random.so" ||
        return
    local fixed=(env -i PATH="$PATH" HOME="$HOME" LANG=C.UTF-8 PYTHONHASHSEED=0
        LD_PRELOAD="$dir/fixed-random/libfixed-random.so") no_aslr=(setarch "$(uname -m)" -R)
    if ! "${no_aslr[@]}" true 2>/dev/null; then
        echo "pgo: setarch -R refused here; address randomization stays on, and two builds may differ" >&2
        no_aslr=()
    fi
    trained() {
        local vars=()
        while [[ $1 == *=* ]]; do vars+=("$1") && shift; done
        "${fixed[@]}" "${vars[@]}" "${no_aslr[@]}" "$@"
    }
    # The instrumented builds link with the system's cc (they only run here).
    local instrumented=(env -u "$(echo "$var" | sed 's/_RUSTFLAGS$/_LINKER/')"
        -u "CC_$(echo "$target" | tr '-' '_')" "$var=-Cprofile-generate=$dir/counts"
        CARGO_TARGET_DIR="$dir/target")
    "${instrumented[@]}" "$maturin" build -q --release --locked --target "$target" \
        -m bindings/python/Cargo.toml --out "$dir/wheel" --interpreter "$python" || return
    "$python" -m zipfile -e "$dir"/wheel/iikocloud-*.whl "$dir/module" || return
    trained LLVM_PROFILE_FILE="$dir/counts/%p-%m.profraw" PYTHONPATH="$dir/module" \
        "$python" scripts/pgo-train.py || return
    # The C API's own functions, which the module never calls (PHP's parse
    # reads events through them): the C library instrumented, trained by
    # scripts/pgo-train.c on the same vectors, loaded by its SONAME. A tenth
    # of the Python training's rounds: the counts add up, and with as many
    # the core's parse leant to the C API's callers (the sub-kilobyte
    # Python parse 3-5 % slower; history of 2026-11-30).
    "${instrumented[@]}" cargo build -q --release --locked --target "$target" -p iikocloud-c || return
    local lib=$dir/target/$target/release/libiikocloud.so soname
    soname=$(objdump -p "$lib" | sed -n 's/^ *SONAME *//p')
    mkdir -p "$dir/c" && ln -sf "$lib" "$dir/c/$soname" || return
    cc -O2 -Iinclude scripts/pgo-train.c -o "$dir/c/pgo-train-c" -L"$dir/c" -l:"$soname" || return
    trained LLVM_PROFILE_FILE="$dir/counts/%p-%m.profraw" LD_LIBRARY_PATH="$dir/c" \
        "$dir/c/pgo-train-c" 20 tests/vectors/payloads/*.json || return
    ls "$dir"/counts/*.profraw >/dev/null || return
    "$profdata" merge -o "$merged" "$dir/counts" || return
    # The merged counts are all the release build reads of this (about 1 GB).
    drop_builds "$dir/target" "$dir/counts" "$dir/module" "$dir/wheel" "$dir/c" "$dir/fixed-random"
    export "$var=-Cprofile-use=$merged"
}
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
