"""Benchmark of the typed models (#14); prints Markdown tables.

* Typed answers: JSON text read into the generated models by the native
  reader (``_native.load_model``, what the clients use), by the Python reader
  it replaced (``json.loads(parse_float=Decimal)`` then ``Model._load``), and
  ``orjson.loads`` / ``json.loads`` of the same bytes, for a 1.2 MB
  ``deliveries/by_id`` answer of 200 orders (as copies of one order and as
  200 different orders) and a large ``nomenclature`` answer of the emulator.
  The client hands the reader the service's text as it came (before the
  by-name rules, the core wrote it again with its keys sorted).
* ``event_info`` of the held-out webhook bodies: the same three readers on
  each event's JSON.
* Webhooks, every field read once: ``webhooks.parse``, ``event_info`` and
  every attribute of every model, against ``orjson.loads`` and reading the
  same fields from its dicts; then also every member of each model's
  ``extra`` (kept as text until read), against every value of the dicts.

Ratios come from one run: the two sides are timed in alternation, best of
the rounds, with the garbage collector off as ``timeit`` runs (the "GC on"
column times them with it on). Run through ``scripts/py-bench.sh``.
"""

from __future__ import annotations

import gc
import json
import random
import re
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import orjson

from iikocloud import _model, _native, webhooks
from iikocloud import api_models as m
from iikocloud._ops import EVENT_INFO_MODELS
from iikocloud.testing import ORGANIZATION_ID, Emulator

ROOT = Path(__file__).resolve().parents[3]
VECTORS = ROOT / "tests" / "vectors" / "payloads"
BODIES = ROOT / "benches" / "data" / "bodies"
FIXTURES = ROOT / "emulator" / "fixtures" / "default.json"

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402

LOCAL_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$")


def alternate(a: Callable[[], Any], b: Callable[[], Any], *, gc_on: bool = False, seconds: float = 1.5
              ) -> Tuple[float, float]:
    """Best seconds per call of ``a`` and of ``b``, timed in turns."""
    if bench.SMOKE:
        return bench.per_call(a), bench.per_call(b)
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            a()
            b()
        if time.perf_counter() - t0 >= seconds / 30 or number > 100_000:
            break
        number *= 2
    best_a = best_b = float("inf")
    was_on = gc.isenabled()
    try:
        (gc.enable if gc_on else gc.disable)()
        for _ in range(15):
            t0 = time.perf_counter()
            for _ in range(number):
                a()
            t1 = time.perf_counter()
            for _ in range(number):
                b()
            t2 = time.perf_counter()
            best_a = min(best_a, (t1 - t0) / number)
            best_b = min(best_b, (t2 - t1) / number)
    finally:
        (gc.enable if was_on else gc.disable)()
    return best_a, best_b


def by_id_copies(n: int = 200) -> bytes:
    """A ``deliveries/by_id`` answer of ``n`` copies of one order."""
    event = json.loads((VECTORS / "delivery_order_update.json").read_text(encoding="utf-8"))[0]
    answer = {"correlationId": "4b2f6c2e-0d0a-4a39-9d5e-2b3c4d5e6f70", "orders": [event["eventInfo"]] * n}
    return json.dumps(answer, ensure_ascii=False).encode()


def by_id_varied(n: int = 200) -> bytes:
    """The same with each order its own ids, local times and totals (the
    products and dictionary entries stay), so repeated values are as rare as
    in a real answer."""
    event = json.loads((VECTORS / "delivery_order_update.json").read_text(encoding="utf-8"), parse_float=Decimal)[0]
    rnd = random.Random(14)

    def vary(value: Any, i: int, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: vary(v, i, k) for k, v in value.items()}
        if isinstance(value, list):
            return [vary(v, i, key) for v in value]
        if isinstance(value, str) and LOCAL_TIME.match(value):
            return (f"2025-{1 + i % 12:02d}-{1 + i % 28:02d} {i % 24:02d}:{rnd.randrange(60):02d}:"
                    f"{rnd.randrange(60):02d}.{rnd.randrange(1000):03d}")
        if key in ("id", "posId", "externalNumber") and isinstance(value, str):
            return str(uuid.UUID(int=rnd.getrandbits(128), version=4))
        if key in ("sum", "resultSum", "number", "timestamp") and isinstance(value, (int, Decimal)) \
                and not isinstance(value, bool):
            return value + (rnd.randrange(1, 5000) if isinstance(value, int) else Decimal(rnd.randrange(50000)) / 100)
        return value

    answer = {"correlationId": "4b2f6c2e-0d0a-4a39-9d5e-2b3c4d5e6f70",
              "orders": [vary(event["eventInfo"], i) for i in range(n)]}
    return json.dumps(answer, ensure_ascii=False, default=str).encode()


def big_nomenclature_answer(copies: int = 150) -> bytes:
    """The emulator's ``nomenclature`` answer (the text the client reads)
    for a menu of the default products and ``copies`` more of each under its
    own id, name and prices."""
    fixtures = json.loads(FIXTURES.read_text(encoding="utf-8"))
    org = next(o for o in fixtures["organizations"] if o["id"] == ORGANIZATION_ID)
    menu = org["dictionaries"]["nomenclature"]
    # The copies refer to the modifiers, groups and sizes of the originals.
    products = list(menu["products"])
    for i in range(copies):
        for p in menu["products"]:
            q = json.loads(json.dumps(p))
            q["id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{p['id']}/{i}"))
            q["name"] = f"{p['name']} {i}"
            q["code"] = f"{p.get('code') or 'P'}-{i}"
            for size in q.get("sizePrices") or []:
                if size.get("price") and size["price"].get("currentPrice") is not None:
                    size["price"]["currentPrice"] = size["price"]["currentPrice"] + i
            products.append(q)
    menu["products"] = products
    with Emulator(fixtures=fixtures) as emu:
        client = emu.client()
        text = client._n().call_operation("nomenclature", json.dumps({"organizationId": ORGANIZATION_ID}))
    return text.encode()


def typed_rows() -> List[str]:
    answers = [
        ("`deliveries/by_id`, 200 copies of one order", m.OrdersResponse, by_id_copies()),
        ("`deliveries/by_id`, 200 different orders", m.OrdersResponse, by_id_varied()),
        ("`nomenclature` of the emulator, 2,265 products", m.NomenclatureResponse, big_nomenclature_answer()),
    ]
    rows = [
        "| answer (ratio = time / orjson.loads of the same bytes) | native (`load_model`) "
        "| Python reader (`json.loads` + `Model._load`) | orjson.loads | json.loads | native, GC on |",
        "|---|---|---|---|---|---|",
    ]
    for name, cls, body in answers:
        assert _native.load_model(cls, body, fallback=False) == _model._load_text(cls, body, None)
        ours, oj = alternate(lambda: _native.load_model(cls, body), lambda: orjson.loads(body))
        ref, oj2 = alternate(lambda: _model._load_text(cls, body, None), lambda: orjson.loads(body), seconds=3)
        loads, oj3 = alternate(lambda: json.loads(body), lambda: orjson.loads(body))
        ours_gc, oj_gc = alternate(lambda: _native.load_model(cls, body), lambda: orjson.loads(body), gc_on=True)
        rows.append(
            f"| {name} ({len(body):,} B) | {bench.fmt_us(ours)} ({ours / oj:.2f}x) "
            f"| {bench.fmt_us(ref)} ({ref / oj2:.2f}x) | {bench.fmt_us(oj)} "
            f"| {bench.fmt_us(loads)} ({loads / oj3:.2f}x) | {bench.fmt_us(ours_gc)} ({ours_gc / oj_gc:.2f}x) |"
        )
    return rows


def held_out() -> List[Tuple[str, bytes]]:
    bodies = [(f"held-out {p.stem}", p.read_bytes()) for p in sorted(BODIES.glob("*.json"), key=lambda p: p.stat().st_size)]
    return bodies + [("large", bench.large_body())]


def event_info_rows() -> List[str]:
    rows = [
        "| body: `event_info` of each event (ratio = time / orjson.loads of each event's JSON) "
        "| native | Python reader | orjson.loads |",
        "|---|---|---|---|",
    ]
    for name, body in held_out():
        events = [(getattr(m, EVENT_INFO_MODELS[e.event_type or ""]), e, e.raw_json)
                  for e in webhooks.parse(body) if e.EVENT_TYPE is not None]

        def ours() -> None:
            for cls, native, _raw in events:
                _native.load_model(cls, native, member="eventInfo")

        def reference() -> None:
            for cls, _native_event, raw in events:
                _model._load_text(cls, raw, "eventInfo")

        def theirs() -> None:
            for _cls, _native_event, raw in events:
                orjson.loads(raw)

        a, oj = alternate(ours, theirs)
        r, oj2 = alternate(reference, theirs)
        rows.append(f"| {name} ({len(body):,} B, {len(events)} typed events) | {bench.fmt_us(a)} ({a / oj:.2f}x) "
                    f"| {bench.fmt_us(r)} ({r / oj2:.2f}x) | {bench.fmt_us(oj)} |")
    return rows


def read_model(value: Any, extra: bool = False) -> None:
    """Reads every attribute of every model once; with ``extra``, every
    member of each model's ``extra`` too (the fields its class does not know,
    kept as text until then)."""
    if isinstance(value, _model.Model):
        if extra:
            bench.walk(value.extra)
        for attr, _wire, _code in type(value)._F:
            read_model(getattr(value, attr), extra)
    elif isinstance(value, list):
        for item in value:
            read_model(item, extra)
    elif isinstance(value, dict):
        for item in value.values():
            read_model(item, extra)


_CLASSES: Dict[str, Any] = {}


def read_dict(cls: Any, data: Any) -> None:
    """Reads the same fields from plain dicts, by the same plan."""
    if not isinstance(data, dict):
        return
    variants = cls.__dict__.get("_VARIANTS")
    if variants is not None:
        name = variants.get(data.get(cls.__dict__["_TAG"]))
        if name is not None:
            cls = getattr(m, name)
    for _attr, wire, code in cls._F:
        read_code(code, data.get(wire))


def read_code(code: str, value: Any) -> None:
    if value is None:
        return
    if code[0] == "[":
        if isinstance(value, list):
            for item in value:
                read_code(code[1:], item)
    elif code[0] == "{":
        if isinstance(value, dict):
            for item in value.values():
                read_code(code[1:], item)
    elif len(code) > 1:
        cls = _CLASSES.get(code)
        if cls is None:
            cls = _CLASSES[code] = getattr(m, code)
        if isinstance(cls, type) and issubclass(cls, _model.Model):
            read_dict(cls, value)


def read_all_rows() -> List[str]:
    rows = [
        "| webhook body: parse, then every field of `event_info` read once (ratio = ours / theirs) "
        "| iikocloud (`webhooks.parse`, `event_info`, attributes) | orjson.loads + the same fields from its dicts "
        "| iikocloud, every `extra` read too | orjson.loads + every value of its dicts |",
        "|---|---|---|---|---|",
    ]
    for name, body in [("small, indented", (VECTORS / "delivery_order_update.json").read_bytes())] + held_out():
        def ours() -> None:
            for event in webhooks.parse(body):
                read_model(event.event_info)

        # For an event of a type without a model, or whose eventInfo is not
        # an object, `event_info` is the value as sent and read_model walks
        # it: the orjson side walks the same value, so both do the same work.
        def theirs() -> None:
            for event in orjson.loads(body):
                model = EVENT_INFO_MODELS.get(event.get("eventType"))
                info = event.get("eventInfo")
                if model is not None and isinstance(info, dict):
                    read_dict(getattr(m, model), info)
                else:
                    bench.walk(info)

        def ours_all() -> None:
            for event in webhooks.parse(body):
                read_model(event.event_info, extra=True)

        def theirs_all() -> None:
            for event in orjson.loads(body):
                bench.walk(event.get("eventInfo"))

        a, b = alternate(ours, theirs)
        c, d = alternate(ours_all, theirs_all)
        rows.append(f"| {name} ({len(body):,} B) | {bench.fmt_us(a)} ({a / b:.2f}x) | {bench.fmt_us(b)} "
                    f"| {bench.fmt_us(c)} ({c / d:.2f}x) | {bench.fmt_us(d)} |")
    return rows


def main() -> None:
    print("\n".join(typed_rows()))
    print()
    print("\n".join(event_info_rows()))
    print()
    print("\n".join(read_all_rows()))


if __name__ == "__main__":
    main()
