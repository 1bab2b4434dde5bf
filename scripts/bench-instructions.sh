#!/usr/bin/env bash
# Instructions per call of the Python webhook reads against orjson and the
# peer (bindings/python/bench/instructions.py under callgrind): what
# bodies.py times, in figures a busy machine does not move, for comparing two
# builds before and after a change. Not part of ./scripts/test.sh; the kept
# tables of BENCHMARKS.md stay in time (scripts/bench-report.sh).
#
#   ./scripts/bench-instructions.sh                    # every body
#   ./scripts/bench-instructions.sh small_error odd_   # bodies whose name has one of these
#   BENCH_PYTHON=/tmp/other-venv/bin/python ./scripts/bench-instructions.sh
#
# BENCH_PYTHON (default target/py-bench-venv/bin/python, the release wheel
# scripts/py-bench.sh installs with orjson and the peer) runs the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${BENCH_PYTHON:-target/py-bench-venv/bin/python}
if [ ! -x "$PY" ]; then
    echo "bench-instructions: no $PY; run ./scripts/py-bench.sh first (it builds and installs the release wheel there) or set BENCH_PYTHON" >&2
    exit 1
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "==> [bench-instructions] installing valgrind" >&2
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# A fixed hash seed: each interpreter start probes its dicts differently, which
# moved a sub-kilobyte read's count by thousands of instructions (BENCHMARKS.md,
# history of 2026-12-03).
if ! PYTHONHASHSEED=0 valgrind --tool=callgrind --dump-before=getppid --callgrind-out-file="$OUT/cg.%p" \
    "$PY" bindings/python/bench/instructions.py --phases "$OUT/phases.json" "$@" 2>"$OUT/valgrind.log"; then
    tail -20 "$OUT/valgrind.log" >&2
    exit 1
fi
"$PY" bindings/python/bench/instructions.py --table "$OUT/phases.json" "$OUT"
