"""What the Python package's telemetry costs: calls per second of
Client.organizations against the in-process emulator, and the time of one
webhooks.parse of the 9.6 KB shared body, with telemetry off (no tracer or
meter provider: what an application that does not ask for it runs) and on
(opentelemetry-sdk's TracerProvider with an in-memory span exporter and a
MeterProvider with an in-memory reader). Each mode runs in a process of its
own, as a provider is set once per process; the two alternate, best of
ROUNDS. Prints a Markdown table. Run with the wheel installed:
``python bindings/python/bench/telemetry.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

BODY = Path(__file__).resolve().parents[3] / "tests" / "vectors" / "payloads" / "delivery_order_update.json"
ROUNDS = int(os.environ.get("ROUNDS", "3"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "2"))


def measure(on: bool) -> dict[str, float]:
    if on:
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        tp = TracerProvider()
        tp.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(tp)
        reader = InMemoryMetricReader()
        metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    from iikocloud import webhooks
    from iikocloud.testing import Emulator

    body = BODY.read_bytes()
    with Emulator() as emu:
        client = emu.client()
        for _ in range(50):
            client.organizations()
        n, spans, start = 0, 0, time.perf_counter()
        while time.perf_counter() - start < SECONDS:
            client.organizations()
            n += 1
            if on and n % 500 == 0:
                spans += len(exporter.get_finished_spans())
                exporter.clear()  # keep memory flat; a real exporter ships them
        calls = n / (time.perf_counter() - start)
        if on:
            spans += len(exporter.get_finished_spans())
            points = reader.get_metrics_data()
            # The "on" figures are worth something only if telemetry ran.
            assert spans >= n and points is not None and points.resource_metrics, (spans, n)
    for _ in range(200):
        webhooks.parse(body)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        webhooks.parse(body)
        n += 1
    parse_us = (time.perf_counter() - start) / n * 1e6
    return {"calls": calls, "parse_us": parse_us}


def main() -> None:
    if len(sys.argv) == 2:
        print(json.dumps(measure(sys.argv[1] == "on")))
        return
    best: dict[str, dict[str, float]] = {}
    for _ in range(ROUNDS):
        for mode in ("off", "on"):
            out = subprocess.run([sys.executable, __file__, mode], capture_output=True, text=True, check=True)
            r = json.loads(out.stdout)
            b = best.setdefault(mode, {"calls": 0.0, "parse_us": float("inf")})
            b["calls"] = max(b["calls"], r["calls"])
            b["parse_us"] = min(b["parse_us"], r["parse_us"])
    off, on = best["off"], best["on"]
    print("| Python, best of %d alternating runs | telemetry off | telemetry on (OpenTelemetry SDK) | on vs off |" % ROUNDS)
    print("|---|---:|---:|---:|")
    print(f"| calls per second, `Client.organizations` | {off['calls']:.0f} | {on['calls']:.0f} | "
          f"{(on['calls'] / off['calls'] - 1) * 100:+.1f} % |")
    print(f"| `webhooks.parse`, 9.6 KB body | {off['parse_us']:.1f} µs | {on['parse_us']:.1f} µs | "
          f"{(on['parse_us'] / off['parse_us'] - 1) * 100:+.1f} % |")


if __name__ == "__main__":
    main()
