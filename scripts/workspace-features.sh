# Sourced by test.sh and reliability.sh: the features of the workspace's
# test build, one list so that reliability.sh's tests reuse test.sh's build
# (cargo unifies features over the packages selected; another list compiles
# the core again).
#   iikocloud-c/test-hooks   the forced-panic case of bindings/c (release
#                            builds lack the hook);
#   iikocloud/otel-metrics   tests/telemetry_otel.rs, compiled only with it.
# shellcheck disable=SC2034
WORKSPACE_FEATURES=iikocloud-c/test-hooks,iikocloud/otel-metrics
