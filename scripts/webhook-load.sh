#!/usr/bin/env bash
# Load test of `iikocloud webhook serve` with a Redis inbox, Redis killed
# mid-run and restarted, /metrics checked against what was sent
# (scripts/webhook_load.py). Run by scripts/reliability.sh, or alone.
# LOAD_BODIES (default 600) unique bodies, a third of them sent twice.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "prometheus_client>=0.17"
# The CLI of the workspace's test build (scripts/workspace-features.sh):
# after test.sh's, nothing to build.
# shellcheck source=scripts/workspace-features.sh
source scripts/workspace-features.sh
build_workspace_debug
# A Redis of this run's own: the test kills it.
source scripts/redis-server.sh
export IIKO_REDIS_DIR IIKO_REDIS_PORT
IIKO_CLI="$PWD/target/debug/iikocloud" "$VENV/bin/python" scripts/webhook_load.py
