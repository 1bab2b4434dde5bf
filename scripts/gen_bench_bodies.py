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


if __name__ == "__main__":
    main()
