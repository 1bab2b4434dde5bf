#!/usr/bin/env python3
"""Writes the held-out-style webhook bodies of the benchmarks to benches/data/bodies/.

The bodies are built from the shared payloads (tests/vectors/payloads/) with
other ids, numbers, times and amounts, in the compact form the service sends,
so no benchmark measures the exact bytes the tests were tuned on:

* ``small_delivery.json``: one DeliveryOrderUpdate with three items (~6 KB);
* ``small_stop_list.json``, ``small_error.json``: single small events (<1 KB);
* ``lifecycle.json``: the seven events of one delivery order, from
  ``InProgress`` to ``Closed``, as one body (~40 KB);
* ``mixed.json``: two organizations' events of every documented type in one
  body (~25 KB);
* ``large.json``: one order of 1,500 items is benches/data/large_webhook.json
  (scripts/gen_large_webhook.py), not repeated here.

The odd bodies a receiver also sees (issue 35), one per class, named ``odd_*``:

* ``odd_no_info_wrong_type.json``: an event without ``eventInfo`` and one
  whose ``eventInfo`` is a string;
* ``odd_unknown_types.json``: two event types this version does not model
  and a stop list;
* ``odd_order_null.json``: an order error with ``"order": null``;
* ``odd_two_orgs.json``: two organizations, three types, sub-kilobyte events;
* ``odd_unknown_fields.json``: about 10 KB, members no schema names at every
  level;
* ``odd_lifecycle_two_orders.json``: the lifecycles of two orders,
  interleaved (~70 KB);
* ``odd_items_1500.json``: the 1,500-item order of the large body with other
  ids and the service's null members left out (~0.8 MB).

Deterministic: every id is a UUIDv5 of fixed names, so the files change only
when this script or the shared payloads do. Run from anywhere:

    python3 scripts/gen_bench_bodies.py
"""

import copy
import json
import os
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAYLOADS = os.path.join(ROOT, "tests", "vectors", "payloads")
OUT = os.path.join(ROOT, "benches", "data", "bodies")
NS = uuid.UUID("0b6f3c70-56a4-5e1e-9a43-8d7f3f0c2b11")

LIFECYCLE = ["Unconfirmed", "WaitCooking", "CookingStarted", "CookingCompleted", "OnWay",
             "Delivered", "Closed"]


def uid(*parts):
    return str(uuid.uuid5(NS, "/".join(str(p) for p in parts)))


def load(name):
    with open(os.path.join(PAYLOADS, name), encoding="utf-8") as f:
        return json.load(f)


def event_of(name, event_type):
    for event in load(name):
        if event.get("eventType") == event_type:
            return event
    raise SystemExit(f"{name} has no {event_type} event")


def reid(value, salt):
    """Every UUID-looking string replaced by a UUIDv5 of (salt, old value), so
    the references inside one body stay consistent."""
    if isinstance(value, dict):
        return {k: reid(v, salt) for k, v in value.items()}
    if isinstance(value, list):
        return [reid(v, salt) for v in value]
    if isinstance(value, str) and len(value) == 36 and value.count("-") == 4:
        return uid(salt, value)
    return value


def stamp(seconds):
    """A service time (UTC for eventTime, terminal-local inside orders)."""
    minutes, sec = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return f"2026-03-0{1 + hours // 24} {hours % 24:02d}:{minute:02d}:{sec:02d}.{seconds * 37 % 1000:03d}"


def delivery(org, order_no, status, at, creation="Success"):
    event = reid(copy.deepcopy(event_of("delivery_order_update.json", "DeliveryOrderUpdate")),
                 f"order-{order_no}")
    event["organizationId"] = org
    event["eventTime"] = stamp(at)
    event["correlationId"] = uid("correlation", order_no, status, at)
    info = event["eventInfo"]
    info["organizationId"] = org
    info["timestamp"] = 1772323200000 + at * 1000
    info["creationStatus"] = creation
    if creation == "InProgress":
        info["order"] = None
        return event
    order = info["order"]
    order["status"] = status
    order["number"] = order_no
    for k, item in enumerate(order.get("items") or []):
        if isinstance(item.get("amount"), (int, float)):
            item["amount"] = 1 + (order_no + k) % 3
    if isinstance(order.get("sum"), (int, float)):
        order["sum"] = round(order["sum"] + order_no % 17 * 10.5, 2)
    return event


def lifecycle(org, order_no):
    events = [delivery(org, order_no, None, 100, creation="InProgress")]
    events += [delivery(org, order_no, status, 100 + 240 * (k + 1))
               for k, status in enumerate(LIFECYCLE[:6])]
    assert len(events) == 7
    return events


def mixed():
    orgs = [uid("organization", 1), uid("organization", 2)]
    body = []
    for n, org in enumerate(orgs):
        for event in load("multi_all_types.json"):
            event = reid(copy.deepcopy(event), f"mixed-{n}")
            event["organizationId"] = org
            body.append(event)
    # Interleave the two organizations, as one webhook URL sees them.
    half = len(body) // 2
    return [e for pair in zip(body[:half], body[half:]) for e in pair]


def odd_bodies(org):
    """The odd classes of issue 35 (see the module's documentation)."""
    stop = reid(load("stop_list_update.json"), "odd-stop")[0]
    error = reid(load("delivery_order_error.json"), "odd-error")[0]
    shift = reid(load("personal_shift.json"), "odd-shift")[0]
    no_info = {k: v for k, v in error.items() if k != "eventInfo"}
    wrong = dict(stop, eventInfo="terminal group list unavailable")
    write("odd_no_info_wrong_type.json", [no_info, wrong])

    kitchen = {"eventType": "KitchenOrderUpdate", "eventTime": stamp(4000),
               "organizationId": org, "correlationId": uid("kitchen", 1),
               "eventInfo": {"id": uid("kitchen-order", 1), "status": "Cooking",
                             "cookingStartTime": stamp(3900), "items": [
                                 {"productId": uid("product", k), "amount": 1.5 + k,
                                  "cookingStatus": "Started"} for k in range(2)]}}
    nomenclature = {"eventType": "NomenclatureUpdate", "eventTime": stamp(4010),
                    "organizationId": org, "correlationId": uid("nomenclature", 1),
                    "eventInfo": {"revision": 1772323200412, "groupsChanged": 3,
                                  "price": 249.90, "products": None}}
    write("odd_unknown_types.json", [kitchen, nomenclature, stop])

    null_order = copy.deepcopy(error)
    null_order["eventInfo"]["order"] = None
    null_order["eventInfo"]["posId"] = None
    null_order["eventInfo"]["errorInfo"]["additionalData"] = None
    write("odd_order_null.json", [null_order])

    orgs = [uid("organization", 21), uid("organization", 22)]
    two = []
    for n, o in enumerate(orgs):
        for event in (stop, shift) if n == 0 else (error,):
            event = reid(copy.deepcopy(event), f"two-{n}")
            event["organizationId"] = o
            two.append(event)
    write("odd_two_orgs.json", two)

    def extras(value, depth=0):
        if isinstance(value, dict):
            out = {k: extras(v, depth + 1) for k, v in value.items()}
            out[f"x{depth}Note"] = None if depth % 2 else f"added in 8.{depth}"
            out[f"x{depth}Rate"] = 0.125 * (depth + 1)
            out[f"x{depth}Tags"] = ["promo", {"since": 1772323200 + depth}]
            return out
        if isinstance(value, list):
            return [extras(v, depth + 1) for v in value]
        return value
    unknown = extras(delivery(org, 4180, "OnWay", 4200))
    write("odd_unknown_fields.json", [unknown])

    first, second = lifecycle(org, 4181), lifecycle(uid("organization", 23), 4182)
    write("odd_lifecycle_two_orders.json", [e for pair in zip(first, second) for e in pair])

    def no_nulls(value):
        if isinstance(value, dict):
            return {k: no_nulls(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [no_nulls(v) for v in value]
        return value
    with open(os.path.join(ROOT, "benches", "data", "large_webhook.json"), encoding="utf-8") as f:
        large = json.load(f)
    write("odd_items_1500.json", no_nulls(reid(large, "odd-items")))


def write(name, body):
    os.makedirs(OUT, exist_ok=True)
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{name}: {len(text.encode()):,} bytes, {len(body)} events")


def main():
    org = uid("organization", 0)
    write("small_delivery.json", [delivery(org, 4172, "CookingStarted", 3600)])
    stop = reid(load("stop_list_update.json"), "stop")
    write("small_stop_list.json", stop)
    error = reid(load("delivery_order_error.json"), "error")
    write("small_error.json", error)
    write("lifecycle.json", lifecycle(org, 4173))
    write("mixed.json", mixed())
    odd_bodies(org)


if __name__ == "__main__":
    main()
