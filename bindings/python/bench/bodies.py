"""What a receiver does with each webhook body (issue 35), against orjson and
the peer; prints a Markdown table, and with ``--figures FILE`` writes the
figures as JSON for the charts of scripts/bench_charts.py.

For every body of benches/data/bodies (the held-out ones and the odd classes:
unknown event types, missing or wrong-typed ``eventInfo``, ``null`` members,
unknown fields, sub-kilobyte, large), the vector the tests use and the 1 MB
body:

* the parse alone (``webhooks.parse``) against ``orjson.loads``;
* the full read: the parse, then every event's ``event_info`` (the typed model,
  or the dict of an unknown or unreadable event), against ``orjson.loads``
  and a walk over every value of each event's ``eventInfo`` dict (the
  measure of issue 35; models.py's last table reads every attribute too);
* the peer's typed parse (``iikocloudapi.parse_webhook``) against our full
  read (timed to its exception where it refuses the body).

Each pair is timed in alternation in one run, best of 15 rounds, the garbage
collector off (``alternate`` of models.py). Run through scripts/py-bench.sh.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import orjson

from iikocloud import webhooks

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402
from models import alternate  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
BODIES = ROOT / "benches" / "data" / "bodies"
VECTORS = ROOT / "tests" / "vectors" / "payloads"

try:
    from iikocloudapi import parse_webhook
except ImportError:  # needs Python 3.11+
    parse_webhook = None


def bodies() -> List[Tuple[str, bytes]]:
    found = [(p.stem, p.read_bytes()) for p in BODIES.glob("*.json")]
    found.append(("vector delivery_order_update (indented)", (VECTORS / "delivery_order_update.json").read_bytes()))
    found.append(("large, 158 events (bench.py)", bench.large_body()))
    return sorted(found, key=lambda b: len(b[1]))


#: Each pair timed this many times over (the best kept): on a shared machine
#: more turns find more quiet moments.
REPEAT = int(os.environ.get("BODIES_REPEAT", "1"))


def best(a: Any, b: Any) -> Tuple[float, float]:
    runs = [alternate(a, b) for _ in range(REPEAT)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def readers(body: bytes) -> Dict[str, Callable[[], None]]:
    """What is measured on ``body`` (here in time, in instructions by
    instructions.py): our parse, ``orjson.loads``, our full read, orjson's
    with the walk, and the peer's typed parse when it is installed (up to its
    exception where it refuses the body)."""

    def parse() -> None:
        webhooks.parse(body)

    def orjson_loads() -> None:
        orjson.loads(body)

    def full() -> None:
        for event in webhooks.parse(body):
            event.event_info

    def orjson_walk() -> None:
        for event in orjson.loads(body):
            if isinstance(event, dict):
                bench.walk(event.get("eventInfo"))

    found = {"parse": parse, "orjson": orjson_loads, "full": full, "orjson_walk": orjson_walk}
    if parse_webhook is not None:

        def peer() -> None:
            try:
                parse_webhook(body)
            except ValueError:  # pydantic's ValidationError: a wrong-typed eventInfo
                pass

        found["peer"] = peer
    return found


def peer_raises(body: bytes) -> bool:
    """Whether the peer refuses ``body``."""
    try:
        parse_webhook(body)
    except ValueError:
        return True
    return False


def measure(name: str, body: bytes) -> Dict[str, Any]:
    read = readers(body)
    ours_parse, oj = best(read["parse"], read["orjson"])
    ours_full, oj_full = best(read["full"], read["orjson_walk"])
    peer: Optional[float] = None
    raises = False
    if "peer" in read:
        raises = peer_raises(body)
        peer, ours_full2 = best(read["peer"], read["full"])
        ours_full = min(ours_full, ours_full2)
    return {
        "body": name,
        "bytes": len(body),
        "events": len(json.loads(body)),
        "parse_s": ours_parse,
        "orjson_s": oj,
        "full_s": ours_full,
        "orjson_walk_s": oj_full,
        "peer_s": peer,
        "peer_raises": raises,
    }


def table(rows: List[Dict[str, Any]]) -> List[str]:
    out = [
        "| body | bytes | events | parse | parse / `orjson.loads` | parse + every `event_info` "
        "| (parse + every `event_info`) / (`orjson.loads` + walking the dicts) "
        "| peer's typed parse / ours (parse + every `event_info`) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        peer = f"{r['peer_s'] / r['full_s']:.1f}x" if r["peer_s"] else "not installed"
        if r["peer_raises"]:
            peer += " (it raises)"
        out.append(
            f"| {r['body']} | {r['bytes']:,} | {r['events']} | {bench.fmt_us(r['parse_s'])} "
            f"| {r['parse_s'] / r['orjson_s']:.2f} | {bench.fmt_us(r['full_s'])} "
            f"| {r['full_s'] / r['orjson_walk_s']:.2f} | {peer} |"
        )
    return out


def main() -> None:
    figures = sys.argv[sys.argv.index("--figures") + 1] if "--figures" in sys.argv else None
    only = [a for a in sys.argv[1:] if a != "--figures" and a != figures]
    rows = [measure(name, body) for name, body in bodies() if not only or any(o in name for o in only)]
    print("\n".join(table(rows)))
    if figures:
        Path(figures).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
