"""Bodies shaped to find work that grows faster than the body: most once took
far longer than their size (benches/history.md says how long), the others
stand for shapes that could. Prints a Markdown table of the parse
and the full read (the parse, then every ``event_info``) against
``orjson.loads`` and ``json.loads(parse_float=Decimal)``, each followed by a
walk over every event's ``eventInfo``; a ratio far above the usual bodies'
(about 0.4 to 1) would mean such work is back.

The colliding texts come from ``scripts/gen_hostile_texts.py``; the other
shapes are made here. Run through scripts/py-bench.sh (``PY_BENCH_SMOKE=1``:
small bodies, each measurement once).
"""

from __future__ import annotations

import json
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, List, Optional, Tuple

import orjson

from iikocloud import webhooks

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
TEXTS = ROOT / "benches" / "data" / "hostile"
#: How many of each repeated part a body has (fewer in the smoke run).
SCALE = 1 if bench.SMOKE else 100


def lines(name: str) -> List[str]:
    return (TEXTS / name).read_text().split()


def event(event_type: str, info: str) -> str:
    return f'{{"eventType":"{event_type}","eventInfo":{info}}}'


def members(n: int) -> str:
    return ",".join(f'"k{i:07d}":{i}' for i in range(n))


def shapes() -> List[Tuple[str, bytes]]:
    wide = members(480 * SCALE)
    keys = lines("colliding_keys.txt")[: 20 * SCALE]
    decimals = lines("colliding_decimals.txt")[: 10 * SCALE]
    escaped = '"' + "\\u0410\\n" * (1_000 * SCALE) + '"'
    nest = "[" * 60 + "1.5" + "]" * 60
    made = [
        ("an eventInfo of one object of %s keys, unknown type" % f"{480 * SCALE:,}",
         [event("NomenclatureUpdate", "{" + wide + "}")]),
        ("the same object as a known type's order (its members unknown)",
         [event("DeliveryOrderUpdate", '{"order":{' + wide + "}}")]),
        ("the same, one key escaped (the careful path)",
         [event("DeliveryOrderUpdate", '{"order":{"\\u0065":1,' + wide + "}}")]),
        ("%s keys sharing a slot of the plain keys' table" % f"{len(keys):,}",
         [event("NomenclatureUpdate", "{" + ",".join(f'"{k}":0' for k in keys) + "}")]),
        ("%s decimals sharing a bucket of the old Decimal table's hash, 4 times"
         % f"{len(decimals):,}",
         [event("NomenclatureUpdate", '{"a":[' + ",".join(decimals * 4) + "]}")]),
        ("%s events of an empty eventInfo" % f"{480 * SCALE:,}",
         [event("NomenclatureUpdate", "{}")] * (480 * SCALE)),
        ("strings of %s escapes" % f"{2_000 * SCALE:,}",
         [event("NomenclatureUpdate", '{"a":' + escaped + "}"),
          event("DeliveryOrderUpdate", '{"order":{"comment":' + escaped + "}}")]),
        ("%s arrays nested 60 deep" % f"{10 * SCALE:,}",
         [event("NomenclatureUpdate", '{"a":[' + ",".join([nest] * (10 * SCALE)) + "]}")]),
    ]
    return [(name, ("[" + ",".join(events) + "]").encode()) for name, events in made]


def walk_all(events: Any) -> None:
    for e in events:
        if isinstance(e, dict):
            bench.walk(e.get("eventInfo"))


def timed(f: Callable[[], Any]) -> float:
    """Best seconds of one call: each of these takes milliseconds."""
    f()
    best = float("inf")
    for _ in range(1 if bench.SMOKE else 7):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def ms(seconds: Optional[float]) -> str:
    return "refuses it" if seconds is None else f"{seconds * 1e3:,.2f} ms"


def main() -> None:
    out = [
        "Bodies shaped to find work that grows faster than the body "
        "(`bindings/python/bench/hostile.py`; the colliding texts from "
        "`scripts/gen_hostile_texts.py`), best of 7 single calls:",
        "",
        "| body | bytes | parse | parse + every `event_info` | `orjson.loads` + walk "
        "| `json.loads(parse_float=Decimal)` + walk | full read / (`orjson.loads` + walk) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, body in shapes():
        def full() -> None:
            for e in webhooks.parse(body):
                e.event_info

        try:
            orjson.loads(body)
            oj: Optional[float] = timed(lambda: walk_all(orjson.loads(body)))
        except orjson.JSONDecodeError:
            oj = None
        ours_parse = timed(lambda: webhooks.parse(body))
        ours_full = timed(full)
        js = timed(lambda: walk_all(json.loads(body, parse_float=Decimal)))
        ratio = "" if oj is None else f"{ours_full / oj:.2f}"
        out.append(
            f"| {name} | {len(body):,} | {ms(ours_parse)} | {ms(ours_full)} | {ms(oj)} "
            f"| {ms(js)} | {ratio} |"
        )
    print("\n".join(out))


if __name__ == "__main__":
    main()
