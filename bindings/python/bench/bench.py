"""Benchmark of the Python package; prints a Markdown table.

* webhook parse of a small body (one delivery order) and of a ~1 MB body
  (many delivery orders): ``iikocloud.webhooks.parse`` against ``json.loads``
  and against ``iikocloudapi.parse_webhook`` (when installed);
* calls per second to ``/api/1/organizations`` of the in-process emulator:
  ``iikocloud.Client`` against ``requests`` with a keep-alive session.

Run it through ``scripts/py-bench.sh``, which builds a release wheel and
installs the competitors in a separate environment.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import timeit
from pathlib import Path
from typing import Any, Callable, List, Optional, Tuple

import iikocloud
from iikocloud import webhooks
from iikocloud.testing import API_KEY, APP_ID, CLIENT_SECRET, Emulator

VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors" / "payloads"


#: Set by ``PY_BENCH_SMOKE=1`` (scripts/py-test.sh): every measurement makes
#: one call, so that the test command runs each benchmark through and a broken
#: one fails there; its figures then mean nothing.
SMOKE = os.environ.get("PY_BENCH_SMOKE") == "1"


def per_call(fn: Callable[[], Any], min_time: float = 1.0) -> float:
    """Best seconds per call over 5 rounds of about ``min_time / 5`` each."""
    if SMOKE:
        return timeit.timeit(fn, number=1)
    number = 1
    while True:
        t = timeit.timeit(fn, number=number)
        if t >= min_time / 5 or number > 1_000_000:
            break
        number *= 2
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def large_body(target: int = 1_000_000) -> bytes:
    template = json.loads((VECTORS / "delivery_order_update.json").read_text(encoding="utf-8"))[0]
    events = []
    size = 2
    i = 0
    while size < target:
        e = json.loads(json.dumps(template))
        e["eventInfo"]["id"] = f"{i:08d}-0000-4000-8000-000000000000"
        e["eventInfo"]["timestamp"] += i
        text = json.dumps(e, ensure_ascii=False)
        size += len(text.encode()) + 1
        events.append(e)
        i += 1
    return json.dumps(events, ensure_ascii=False).encode()


def walk(value: Any) -> None:
    """Every value of plain JSON read once."""
    if isinstance(value, dict):
        for item in value.values():
            walk(item)
    elif isinstance(value, list):
        for item in value:
            walk(item)


def fmt_us(seconds: float) -> str:
    us = seconds * 1e6
    return f"{us:,.1f} µs" if us < 10_000 else f"{us / 1000:,.2f} ms"


def parse_rows() -> List[Tuple[str, str, str, str, str]]:
    try:
        from iikocloudapi import parse_webhook  # type: ignore[import-not-found]
    except ImportError:
        parse_webhook = None
    small = (VECTORS / "delivery_order_update.json").read_bytes()
    big = large_body()
    rows = []
    for name, body in ((f"small ({len(small):,} B, 1 event)", small), (None, big)):
        n_events = len(json.loads(body))
        name = name or f"large ({len(body):,} B, {n_events} events)"
        ours = per_call(lambda: webhooks.parse(body))

        def parse_and_read() -> None:
            for e in webhooks.parse(body):
                e.event_type, e.event_time, e.organization_id  # noqa: B018
                if isinstance(e, webhooks.DeliveryOrderUpdate):
                    e.id, e.timestamp, e.status, e.sum, e.dedup_key  # noqa: B018

        ours_read = per_call(parse_and_read)
        loads = per_call(lambda: json.loads(body))
        theirs = per_call(lambda: parse_webhook(body)) if parse_webhook else None
        rows.append(
            (
                name,
                fmt_us(ours),
                fmt_us(ours_read),
                fmt_us(loads),
                f"{fmt_us(theirs)} ({theirs / ours:.1f}x)" if theirs else "not installed",
            )
        )
    return rows


def calls_per_second(fn: Callable[[], Any], seconds: float = 2.0, threads: int = 1) -> float:
    fn()  # warm up: token, connection
    if SMOKE:
        seconds = 0.05
    count = [0]
    stop = time.monotonic() + seconds

    def loop() -> None:
        n = 0
        while time.monotonic() < stop:
            fn()
            n += 1
        count[0] += n  # int += under the GIL is fine for a benchmark

    started = time.monotonic()
    workers = [threading.Thread(target=loop) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return count[0] / (time.monotonic() - started)


def call_rows(emu: Emulator) -> List[Tuple[str, str, str, str]]:
    import requests

    url = emu.url
    client = iikocloud.Client(**emu.credentials)
    session = requests.Session()
    token = session.post(
        f"{url}/api/v2/access_token",
        json={"appId": APP_ID, "clientSecret": CLIENT_SECRET, "apiKey": API_KEY},
        timeout=20,
    ).json()["token"]
    headers = {"Authorization": f"Bearer {token}", "Timeout": "15"}

    def with_requests() -> Any:
        r = session.post(f"{url}/api/1/organizations", json={}, headers=headers, timeout=20)
        r.raise_for_status()
        return r.json()

    sessions = threading.local()

    def with_requests_threads() -> Any:
        s = getattr(sessions, "s", None)
        if s is None:
            s = sessions.s = requests.Session()
        r = s.post(f"{url}/api/1/organizations", json={}, headers=headers, timeout=20)
        r.raise_for_status()
        return r.json()

    rows = []
    for threads in (1, 4):
        typed = calls_per_second(client.organizations, threads=threads)
        raw = calls_per_second(lambda: client.call("/api/1/organizations", {}), threads=threads)
        req = calls_per_second(with_requests if threads == 1 else with_requests_threads, threads=threads)
        rows.append(
            (
                f"{threads} thread{'s' if threads > 1 else ''}",
                f"{typed:,.0f} ({typed / req:.1f}x)",
                f"{raw:,.0f} ({raw / req:.1f}x)",
                f"{req:,.0f}",
            )
        )
    return rows


def main() -> int:
    print(f"iikocloud {iikocloud.__version__}, Python {sys.version.split()[0]}\n")
    print("| webhook body | iikocloud parse | parse + read fields | json.loads | iikocloudapi parse_webhook |")
    print("|---|---|---|---|---|")
    for row in parse_rows():
        print("| " + " | ".join(row) + " |")
    print()
    with Emulator() as emu:
        print("| /api/1/organizations, calls/s | iikocloud Client.organizations (typed) "
              "| iikocloud Client.call (dict) | requests.Session |")
        print("|---|---|---|---|")
        for row in call_rows(emu):
            print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
