# Disk room for scripts/test.sh and the background scripts/dist.sh. Sourced.
#
# A run from a clean clone grows the disk by about 15 GiB when it keeps every
# build (measured 2026-12-01: 11 GiB under target/, the rest packages and
# toolchains), and a CI machine once had less than that free: the run stopped
# in the fuzzing step with "No space left on device". With less than
# DISK_ROOM_KEEP_GIB free when the run starts, the builds that no later step
# reads (the cross-compiled test builds after their suites, the fuzz build,
# the instrumented build of the release profile, the release builds'
# intermediate files) are removed as soon as they are done with; a second
# run then compiles them again. TEST_DROP_BUILDS=yes or no decides it
# instead.
#
#   disk_room_decide        sets and exports TEST_DROP_BUILDS, says so
#   drop_builds PATH...     removes PATHs if TEST_DROP_BUILDS=yes, says so

DISK_ROOM_KEEP_GIB=${DISK_ROOM_KEEP_GIB:-20}

# Free GiB (rounded down) on the file system holding $1.
disk_free_gib() {
    df -P -B1G "$1" | awk 'NR == 2 { print $4 }'
}

disk_room_decide() {
    mkdir -p target
    local free
    free=$(disk_free_gib target)
    case "${TEST_DROP_BUILDS:-}" in
    yes | no) echo "disk: $free GiB free under target/; TEST_DROP_BUILDS=$TEST_DROP_BUILDS (set by the caller)" ;;
    "")
        if [ "$free" -lt "$DISK_ROOM_KEEP_GIB" ]; then
            TEST_DROP_BUILDS=yes
            echo "disk: $free GiB free under target/, under $DISK_ROOM_KEEP_GIB: builds no later step reads are removed when done (TEST_DROP_BUILDS=no keeps them)"
        else
            TEST_DROP_BUILDS=no
            echo "disk: $free GiB free under target/: every build is kept for the next run"
        fi
        ;;
    *)
        echo "TEST_DROP_BUILDS must be yes or no, not '$TEST_DROP_BUILDS'" >&2
        return 2
        ;;
    esac
    export TEST_DROP_BUILDS
}

drop_builds() {
    [ "${TEST_DROP_BUILDS:-no}" = yes ] || return 0
    local path size
    for path in "$@"; do
        [ -e "$path" ] || continue
        size=$(du -sh "$path" | cut -f1)
        rm -rf "$path"
        echo "disk: removed $path ($size), which no later step reads; $(disk_free_gib "$(dirname "$path")") GiB free"
    done
}
