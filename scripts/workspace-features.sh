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
