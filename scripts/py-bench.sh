#!/usr/bin/env bash
# Benchmark of the Python package (not part of ./scripts/test.sh): builds a
# release wheel, installs it with the competitors (requests, iikocloudapi from
# PyPI) in a separate environment under target/, and prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=target/py-bench-venv
WHEELS=target/py-wheels-release

[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.9.4,<2" requests
# iikocloudapi needs Python 3.11+; without it that column says "not installed".
"$VENV/bin/python" -m pip install -q --disable-pip-version-check iikocloudapi ||
    echo "iikocloudapi not installed; its column is skipped" >&2
rm -rf "$WHEELS"
"$VENV/bin/maturin" build -q --release -m bindings/python/Cargo.toml --out "$WHEELS" \
    --interpreter "$VENV/bin/python"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$WHEELS"/iikocloud-*.whl
cd target && ../"$VENV"/bin/python ../bindings/python/bench/bench.py
