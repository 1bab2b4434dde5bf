# Sourced by scripts/dist.sh, dist-aarch64.sh and dist-windows.sh.
#
# maturin_reusing_core TARGET MATURIN ARGS...: runs `MATURIN build ARGS`
# after the release build of the C library, the CLI and the module, and
# stops when maturin compiled the core a second time. It must find it built:
# a crate compiled with other features of one of its dependencies is another
# crate to cargo, and the core's second compile cost minutes per target. The
# root Cargo.toml's [workspace.dependencies] keeps the features the same.
maturin_reusing_core() {
    local target=$1 maturin=$2
    shift 2
    local deps=$CARGO_TARGET_DIR/$target/release/deps
    local stamp
    stamp=$(mktemp "${TMPDIR:-/tmp}/iiko-before-wheel.XXXXXX") || return
    # Explicit: the callers run this after `||`, where set -e does not apply.
    local status=0 again=""
    "$maturin" build "$@" || status=$?
    if [ "$status" = 0 ]; then
        again=$(find "$deps" -name 'libiikocloud-*.rlib' -newer "$stamp" | head -1)
    fi
    rm -f "$stamp"
    [ "$status" = 0 ] || return "$status"
    if [ -n "$again" ]; then
        echo "maturin compiled the core again for $target ($again): the module's crate asks other" \
            "features of a dependency than the C library and the CLI; compare" \
            "'cargo tree -e features -p iikocloud-python' with '-p iikocloud-c -p iikocloud-cli'" >&2
        return 1
    fi
}
