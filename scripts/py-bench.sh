#!/usr/bin/env bash
# Benchmark of the Python package (not part of ./scripts/test.sh): builds a
# release wheel, installs it with the competitors (requests, httpx, orjson,
# iikocloudapi from PyPI) in a separate environment under target/, and prints
# Markdown tables: bindings/python/bench/bench.py, then the comparisons with
# orjson and httpx below, the fan-out and the typed models
# (bindings/python/bench/models.py; each table's ratios come from one run).
# Used by scripts/bench-report.sh.
#
#   PY_BENCH_SMOKE=1 PY_BENCH_VENV=.venv ./scripts/py-bench.sh
#
# runs every measurement once, on the iikocloud already installed in that
# environment (no release build): scripts/py-test.sh does, so that a
# benchmark broken by a change fails the test command. Its figures then mean
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
# The wheel is built as the released one is (fat LTO, profile-guided).
source scripts/dist-wheel.sh
HOST=$(rustc -vV | sed -n 's/^host: //p')

PY=${PYTHON:-python3}
SMOKE=${PY_BENCH_SMOKE:-0}
VENV=${PY_BENCH_VENV:-target/py-bench-venv}
WHEELS=target/py-wheels-release

[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.9.4,<2" requests \
    httpx orjson
# iikocloudapi needs Python 3.11+; without it that column says "not installed".
"$VENV/bin/python" -m pip install -q --disable-pip-version-check iikocloudapi ||
    echo "iikocloudapi not installed; its column is skipped" >&2
if [ "$SMOKE" != 1 ]; then
    rm -rf "$WHEELS"
    pgo_profile "$HOST" "$VENV/bin/python" "$VENV/bin/maturin"
    "$VENV/bin/maturin" build -q --release --locked --target "$HOST" -m bindings/python/Cargo.toml \
        --out "$WHEELS" --interpreter "$VENV/bin/python"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
        "$WHEELS"/iikocloud-*.whl
fi
export PY_BENCH_SMOKE=$SMOKE
cd target && ../"$VENV"/bin/python ../bindings/python/bench/bench.py

# orjson and httpx, measured beside iikocloud in the same process, with the
# helpers of bench.py so the method is the same.
echo
../"$VENV"/bin/python - <<'PYEOF'
import sys
sys.path.insert(0, "../bindings/python/bench")
import bench  # noqa: E402
import json, threading  # noqa: E401,E402
import httpx, orjson, requests  # noqa: E401,E402
import iikocloud  # noqa: E402
from iikocloud import webhooks  # noqa: E402
from iikocloud.testing import API_KEY, APP_ID, CLIENT_SECRET, Emulator  # noqa: E402

try:
    from iikocloudapi import parse_webhook
except ImportError:
    parse_webhook = None

def ratio(theirs, ours):
    return f"{bench.fmt_us(theirs)} ({theirs / ours:.2f}x)"

print("| webhook body (time per parse; ratio = their time / iikocloud's) | iikocloud parse "
      "| json.loads | orjson.loads | iikocloudapi parse_webhook |")
print("|---|---|---|---|---|")
from pathlib import Path  # noqa: E402
BODIES = Path("../benches/data/bodies")
small = (bench.VECTORS / "delivery_order_update.json").read_bytes()
big = bench.large_body()
held_out = [(f"held-out {p.stem} ({p.stat().st_size:,} B, {len(json.loads(p.read_bytes()))} events)",
             p.read_bytes())
            for p in sorted(BODIES.glob("*.json"), key=lambda p: p.stat().st_size)]
for name, body in ([(f"small ({len(small):,} B, indented)", small)] + held_out
                   + [(f"large ({len(big):,} B)", big)]):
    ours = bench.per_call(lambda: webhooks.parse(body))
    loads = bench.per_call(lambda: json.loads(body))
    oj = bench.per_call(lambda: orjson.loads(body))
    api = raises = None
    if parse_webhook:
        # The odd bodies include a wrong-typed eventInfo, which pydantic
        # refuses: timed to its exception, as bodies.py does.
        def peer():
            try:
                parse_webhook(body)
            except ValueError:
                return True
            return False
        raises = peer()
        api = bench.per_call(peer)
    peer_cell = ratio(api, ours) + (" (it raises)" if raises else "") if api else "not installed"
    print(f"| {name} | {bench.fmt_us(ours)} | {ratio(loads, ours)} | {ratio(oj, ours)} | {peer_cell} |")

# Import time in a fresh interpreter: the cumulative time -X importtime
# reports for the top-level module, median of 9 runs each.
import statistics, subprocess  # noqa: E401,E402
def import_us(module):
    runs = []
    for _ in range(1 if bench.SMOKE else 9):
        err = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                             capture_output=True, text=True, check=True).stderr
        last = [l for l in err.splitlines() if l.rstrip().endswith(f"| {module}")][-1]
        runs.append(int(last.split("|")[1]))
    return statistics.median(runs)
print()
print("| `import X` in a fresh interpreter (median of 9) | iikocloud | requests | httpx |")
print("|---|---|---|---|")
ours, req, hx = import_us("iikocloud"), import_us("requests"), import_us("httpx")
print(f"| cumulative import time | {ours / 1000:.1f} ms | {req / 1000:.1f} ms ({req / ours:.2f}x) "
      f"| {hx / 1000:.1f} ms ({hx / ours:.2f}x) |")

print()
print("| /api/1/organizations, calls/s (ratio = iikocloud / theirs) | iikocloud Client.organizations "
      "| requests.Session | httpx.Client |")
print("|---|---|---|---|")
with Emulator() as emu:
    url = emu.url
    client = iikocloud.Client(**emu.credentials)
    token = requests.post(f"{url}/api/v2/access_token",
                          json={"appId": APP_ID, "clientSecret": CLIENT_SECRET, "apiKey": API_KEY},
                          timeout=20).json()["token"]
    headers = {"Authorization": f"Bearer {token}", "Timeout": "15"}
    local = threading.local()

    def session(kind):
        s = getattr(local, kind, None)
        if s is None:
            s = requests.Session() if kind == "requests" else httpx.Client(timeout=20)
            setattr(local, kind, s)
        return s

    def with_requests():
        r = session("requests").post(f"{url}/api/1/organizations", json={}, headers=headers, timeout=20)
        r.raise_for_status()
        return r.json()

    def with_httpx():
        r = session("httpx").post(f"{url}/api/1/organizations", json={}, headers=headers)
        r.raise_for_status()
        return r.json()

    calls = []
    for threads in (1, 4):
        ours = bench.calls_per_second(client.organizations, threads=threads)
        req = bench.calls_per_second(with_requests, threads=threads)
        hx = bench.calls_per_second(with_httpx, threads=threads)
        print(f"| {threads} thread{'s' if threads > 1 else ''} | {ours:,.0f} | "
              f"{req:,.0f} ({ours / req:.2f}x) | {hx:,.0f} ({ours / hx:.2f}x) |")
        calls.append({"threads": threads, "iikocloud": ours, "requests": req, "httpx": hx})
# The figures of the chart (scripts/bench_charts.py), when asked for.
import os  # noqa: E402
if os.environ.get("BENCH_FIGURES"):
    Path(os.environ["BENCH_FIGURES"], "calls.json").write_text(json.dumps(calls))
PYEOF
echo
../"$VENV"/bin/python ../bindings/python/bench/fanout.py

# The typed models (#14): the native reader against the Python one and
# orjson, on answers and webhook bodies.
echo
../"$VENV"/bin/python ../bindings/python/bench/models.py

# What a receiver does with each body, the odd classes included (#35);
# BENCH_FIGURES (a directory) also gets the figures for the charts.
echo
../"$VENV"/bin/python ../bindings/python/bench/bodies.py \
    ${BENCH_FIGURES:+--figures "$BENCH_FIGURES/python-bodies.json"}

# The same reads counted in instructions (scripts/bench-instructions.sh runs
# them under callgrind): here only made once each, so that a change that
# breaks the counter fails the test command.
if [ "$SMOKE" = 1 ]; then
    ../"$VENV"/bin/python ../bindings/python/bench/instructions.py --smoke >/dev/null
fi

# Bodies shaped to find work that grows faster than the body (wide objects,
# colliding keys and decimals, many events, escapes, nesting).
echo
../"$VENV"/bin/python ../bindings/python/bench/hostile.py
