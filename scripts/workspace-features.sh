# Sourced by test.sh, reliability.sh, qemu-test.sh and wine-test.sh.

# The features of the workspace's test build: one list, so that
# reliability.sh's tests reuse test.sh's build (cargo unifies features over
# the packages selected; another list compiles the core again).
#   iikocloud-c/test-hooks   the forced-panic case of bindings/c (release
#                            builds lack the hook);
#   iikocloud/otel-metrics   tests/telemetry_otel.rs, compiled only with it.
# shellcheck disable=SC2034
WORKSPACE_FEATURES=iikocloud-c/test-hooks,iikocloud/otel-metrics

# The core without its typed operations (generated code with no
# target-specific part), for the unit tests on other targets (qemu-test.sh,
# wine-test.sh): the operations' own tests run on x86_64 Linux, and the C
# operations test runs them on every target through the C library.
# shellcheck disable=SC2034
CORE_WITHOUT_OPERATIONS=(--no-default-features --features sqlite,redis)

# build_workspace_debug: the debug libiikocloud (with its test hooks), the
# emulator and the CLI, for the suites that run them (c-test.sh, php-test.sh,
# php-fpm-test.sh, qemu-test.sh, wine-test.sh). The packages and features of
# test.sh's `cargo test --workspace`, with the test targets so that the
# dev-dependencies' features count as they do there: after that build, this
# one only links the C library. Any other selection compiles the core and
# its dependencies again (1:35 of the C step in CI), and every suite must use
# this one, or each would replace the files the next one links.
# shellcheck disable=SC2034
WORKSPACE_DEBUG_BUILD=(--workspace --locked --features "$WORKSPACE_FEATURES" --lib --bins --tests)
build_workspace_debug() {
    cargo build "${WORKSPACE_DEBUG_BUILD[@]}"
}

# build_library_and_emulator PROFILE: libiikocloud with the test hooks
# (iiko_debug_force_panic, which the PHP tests declare for themselves: the
# header does not) of PROFILE, and the debug emulator, for php-test.sh and
# php-fpm-test.sh. In debug, build_workspace_debug: after the workspace's
# tests and c-test.sh, nothing to build.
build_library_and_emulator() {
    if [ "$1" = release ]; then
        cargo build --locked --release -p iikocloud-c --features iikocloud-c/test-hooks
        cargo build --locked -p iikocloud-emulator
    else
        build_workspace_debug
    fi
}
