#!/usr/bin/env python3
"""Draws the main ratios of BENCHMARKS.md as SVG charts (matplotlib), from the
figures the benchmarks write as JSON (scripts/bench-report.sh passes them):

    bench_charts.py OUT_DIR [python=FILE] [php=FILE] [calls=FILE]

* ``python``: rows of bindings/python/bench/bodies.py -> ``python-webhooks.svg``
  (our parse and our full typed read against orjson, and the peer's typed
  parse against our full read, by body size);
* ``php``: rows ``{"body", "bytes", "ours_us", "theirs_us"}`` of the PHP
  section -> ``php-webhooks.svg`` (parse against json_decode by body size);
* ``calls``: rows ``{"threads", "iikocloud", "requests", "httpx"}`` (calls
  per second) -> ``python-calls.svg``.

The SVGs carry no date or random id (``svg.hashsalt``, no metadata), so the
same figures draw the same files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

plt.rcParams.update({
    "svg.hashsalt": "iikocloud-bench",
    "svg.fonttype": "none",  # text stays text: smaller files, the page's font
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
})


def size_axis(ax: Any) -> None:
    ax.set_xscale("log")
    ax.set_xlabel("body size (bytes, log scale)")
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda v, _: f"{v / 1e6:g} MB" if v >= 1e6 else f"{v / 1e3:g} KB" if v >= 1e3 else f"{v:g} B"))
    ax.grid(True, which="major", alpha=0.3)


def save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    print(f"wrote {path}", file=sys.stderr)


def python_webhooks(rows: List[Dict[str, Any]], out: Path) -> None:
    rows = sorted(rows, key=lambda r: r["bytes"])
    x = [r["bytes"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.5, 3.6))
    # Points, not lines: several bodies share a size.
    left.plot(x, [r["parse_s"] / r["orjson_s"] for r in rows], "o", label="webhooks.parse / orjson.loads")
    left.plot(x, [r["full_s"] / r["orjson_walk_s"] for r in rows], "s", mfc="none",
              label="parse + every event_info / orjson.loads + walking its dicts")
    left.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    left.set_ylim(bottom=0)
    left.set_ylabel("time / orjson's (lower is better)")
    left.set_title("Python: against orjson")
    left.legend(fontsize=7, loc="upper right")
    size_axis(left)
    peer = [(r["bytes"], r["peer_s"] / r["full_s"]) for r in rows if r.get("peer_s")]
    if peer:
        right.plot([p[0] for p in peer], [p[1] for p in peer], "o", color="tab:green",
                   label="iikocloudapi.parse_webhook / our parse + every event_info")
        right.axhline(10.0, color="grey", linestyle="--", linewidth=1, label="10x")
        right.set_ylim(bottom=0)
        right.legend(fontsize=7, loc="lower right")
    right.set_ylabel("times faster than the peer (higher is better)")
    right.set_title("Python: against the pydantic-based peer")
    size_axis(right)
    save(fig, out / "python-webhooks.svg")


def php_webhooks(rows: List[Dict[str, Any]], out: Path) -> None:
    rows = sorted(rows, key=lambda r: r["bytes"])
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    ax.plot([r["bytes"] for r in rows], [r["ours_us"] / r["theirs_us"] for r in rows], "o",
            color="tab:purple", label="Webhooks::parse / json_decode")
    if any("read_ours_us" in r for r in rows):
        read = [r for r in rows if "read_ours_us" in r]
        ax.plot([r["bytes"] for r in read], [r["read_ours_us"] / r["read_theirs_us"] for r in read], "s", mfc="none",
                color="tab:orange", label="parse + every field / json_decode + the same reads")
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("time / json_decode's (lower is better)")
    ax.set_title("PHP FFI: against json_decode")
    ax.legend(fontsize=7)
    size_axis(ax)
    save(fig, out / "php-webhooks.svg")


def python_calls(rows: List[Dict[str, Any]], out: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    names = ["iikocloud", "requests", "httpx"]
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        xs = [i + (k - 1) * width for i in range(len(rows))]
        bars = ax.bar(xs, [r[name] for r in rows], width, label=name)
        ax.bar_label(bars, fmt="{:,.0f}", fontsize=7)
    ax.set_xticks(range(len(rows)), [f"{r['threads']} thread{'s' if r['threads'] > 1 else ''}" for r in rows])
    ax.set_ylabel("calls per second (higher is better)")
    ax.set_title("Python: /api/1/organizations against the emulator")
    ax.legend(fontsize=7)
    save(fig, out / "python-calls.svg")


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    inputs = dict(arg.split("=", 1) for arg in sys.argv[2:])
    draw = {"python": python_webhooks, "php": php_webhooks, "calls": python_calls}
    for kind, path in inputs.items():
        if Path(path).is_file():
            draw[kind](json.loads(Path(path).read_text()), out)


if __name__ == "__main__":
    main()
