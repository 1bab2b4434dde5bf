"""The native reader of the generated models (``_native.load_model``, used for
every typed answer and every ``event.event_info``) against the Python reader
it replaces (``_model._load_text``: ``json.loads(parse_float=Decimal)`` then
``Model._load``): every operation's answer from the emulator, every webhook
body of the repository, and odd input of every kind. The objects must be the
same: classes, values (with their types, down to every nested value), ``extra``,
``repr``, ``to_dict``, equality and pickling."""

from __future__ import annotations

import datetime as dt
import inspect
import json
import pickle
import random
import re
import subprocess
import sys
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import iikocloud
from iikocloud import _model, _native, webhooks
from iikocloud import api_models as m
from iikocloud._ops import EVENT_INFO_MODELS
from iikocloud.testing import ORGANIZATION_ID, Emulator

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "spec" / "operations.json"
PAYLOADS = ROOT / "tests" / "vectors" / "payloads"
BENCH_DATA = ROOT / "benches" / "data"
PIZZA = "b1e604c4-586f-4a06-b3d0-ff67e6c542a2"
EXTRA = "_Model__extra"


def same(ours: Any, theirs: Any, at: str = "$") -> None:
    """The two values are alike in class and value, all the way down."""
    assert type(ours) is type(theirs), f"{at}: {type(ours).__name__} vs {type(theirs).__name__}"
    if isinstance(theirs, _model.Model):
        for attr, _wire, _code in type(theirs)._F:
            same(getattr(ours, attr), getattr(theirs, attr), f"{at}.{attr}")
        # The slot itself: None in both, or the same members. The native
        # reader keeps them as JSON text until `extra` is read.
        kept, reference = getattr(ours, EXTRA), getattr(theirs, EXTRA)
        assert (kept is None) == (reference is None), f"{at}.extra: {kept!r} vs {reference!r}"
        if isinstance(kept, bytes):
            assert isinstance(reference, dict), at
            same(ours._extra_read(), reference, f"{at}.extra")
            assert getattr(ours, EXTRA) is ours._extra_read(), f"{at}.extra kept once read"
        else:
            same(kept, reference, f"{at}.extra")
    elif isinstance(theirs, list):
        assert len(ours) == len(theirs), at
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same(a, b, f"{at}[{i}]")
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs), at
        for key in theirs:
            same(ours[key], theirs[key], f"{at}.{key}")
    else:
        assert repr(ours) == repr(theirs), at
        assert ours == theirs or (ours != ours and theirs != theirs), at


def check(cls: Any, text: Any, member: Optional[str] = None) -> Any:
    """Reads ``text`` both ways (natively without falling back) and compares."""
    theirs = _model._load_text(cls, text, member)
    ours = _native.load_model(cls, text, member=member, fallback=False)
    same(ours, theirs)
    if isinstance(theirs, _model.Model):
        assert repr(ours) == repr(theirs)
        assert ours.to_dict() == theirs.to_dict() and ours == theirs
        # Pickling goes through to_dict, which writes times to the
        # millisecond: compare with the reference's objects pickled alike.
        same(pickle.loads(pickle.dumps(ours)), pickle.loads(pickle.dumps(theirs)))
    return ours


# ------------------------------------------------------------ every operation


def _response_models() -> Dict[str, str]:
    """The model each operation's answer is read into, as the generated
    methods pass it to ``_call_op``."""
    client = iikocloud.Client(api_login="unused")
    out = {}
    for name, *_ in iikocloud.operations():
        target: Any = client
        for part in name.split("."):
            target = getattr(target, part)
        function = type(target).__call__ if isinstance(target, _model.Group) else target
        found = re.search(
            r'_call_op\("' + re.escape(name) + r'", .*, "(\[?\w*)", timeout, allow_unknown_fields\)',
            inspect.getsource(function),
        )
        assert found, name
        out[name] = found.group(1)
    return out


def _example(path: str) -> Any:
    text = _native.example_request(path)
    assert text is not None, path
    return json.loads(text, parse_float=Decimal)


class _Walk:
    """The all-operations walk of tests/all_operations.rs: every POST
    operation with the emulator's example request, ids put in from the
    records the walk made, keeping each answer's JSON text."""

    ID_FIELDS = ("id", "groupId", "productId", "documentId")
    ID_LIST_FIELDS = ("ids", "groupIds", "productIds")

    def __init__(self, emu: Emulator) -> None:
        self.client = emu.client(retries=0)
        self.native = self.client._n()

    def call(self, name: str, request: Any) -> str:
        return self.native.call_operation(name, json.dumps(request, default=str))

    def wait(self, text: str) -> None:
        self.client.wait(json.loads(text)["correlationId"], organization_id=ORGANIZATION_ID, timeout=20)

    def create_order(self) -> Tuple[str, str]:
        """A delivery order with a size, a modifier of a group, a cash payment,
        an order type and a marketing source from the dictionaries."""
        request = _example("/api/1/deliveries/create")
        order_id = "7a0e1d2c-3b4a-4c5d-8e6f-708192a3b4c5"
        menu = json.loads(self.call("nomenclature", {"organizationId": ORGANIZATION_ID}))
        sized = next(
            p for p in menu["products"] if len(p.get("sizePrices") or []) > 1 and p.get("groupModifiers")
        )
        group = sized["groupModifiers"][0]
        orgs = {"organizationIds": [ORGANIZATION_ID]}
        payment_types = json.loads(self.call("payment_types", orgs))["paymentTypes"]
        order_types = json.loads(self.call("deliveries.order_types", orgs))["orderTypes"]
        sources = json.loads(self.call("marketing_sources", orgs))["marketingSources"]
        request["order"].update(
            id=order_id,
            items=[
                {"type": "Product", "productId": PIZZA, "amount": 2, "price": 590},
                {
                    "type": "Product",
                    "productId": sized["id"],
                    "productSizeId": sized["sizePrices"][0]["sizeId"],
                    "amount": 1,
                    "price": sized["sizePrices"][0]["price"]["currentPrice"],
                    "modifiers": [
                        {"productId": group["childModifiers"][0]["id"], "amount": 1, "productGroupId": group["id"]}
                    ],
                },
            ],
            payments=[
                {
                    "paymentTypeKind": "Cash",
                    "sum": 1000,
                    "paymentTypeId": next(p["id"] for p in payment_types if p["paymentTypeKind"] == "Cash"),
                }
            ],
            orderTypeId=next(
                t["id"]
                for group in order_types
                for t in group["items"]
                if t["orderServiceType"] == "DeliveryByCourier"
            ),
            marketingSourceId=sources[0]["id"],
        )
        text = self.call("deliveries.create", request)
        self.wait(text)
        return order_id, json.loads(text)["correlationId"]

    def create_table_order(self) -> str:
        request = _example("/api/1/order/create")
        request["order"].pop("id", None)
        request["order"]["items"] = [{"type": "Product", "productId": PIZZA, "amount": 1, "price": 590}]
        text = self.call("order.create", request)
        self.wait(text)
        return str(json.loads(text)["orderInfo"]["id"])

    def create_reserve(self) -> str:
        request = _example("/api/1/reserve/create")
        request.pop("id", None)
        text = self.call("reserve.create", request)
        self.wait(text)
        return str(json.loads(text)["reserveInfo"]["id"])

    def answers(self) -> Iterator[Tuple[str, str]]:
        """``(operation, answer text)`` of every operation of the walk."""
        spec = {o["name"]: o for o in json.loads(SPEC.read_text(encoding="utf-8"))["operations"]}
        order_id, command_id = self.create_order()
        table_orders = [self.create_table_order(), self.create_table_order()]
        reserve_id = self.create_reserve()

        def rank(name: str) -> int:
            if spec[name]["edition"] != "newer":
                return 1
            return {"create": 0, "cancel": 2, "delete": 2, "fire": 2, "restore": 3}.get(name.rsplit(".", 1)[-1], 1)

        created: Dict[str, str] = {}
        for name in sorted(spec, key=rank):
            op = spec[name]
            if op["method"] != "POST" or op["path"].endswith("/access_token"):
                continue
            request = _example(op["path"])
            family = name.rsplit(".", 1)[0] if "." in name else ""
            creates = op["edition"] == "newer" and name.endswith(".create")
            if creates:
                for key in self.ID_FIELDS:
                    request.pop(key, None)
            elif family in created:
                action = name.rsplit(".", 1)[-1]
                names_one = any(k in request for k in self.ID_FIELDS + self.ID_LIST_FIELDS)
                if not names_one and action in ("get", "update", "delete", "restore", "fire"):
                    request["id"] = created[family]
                for key in self.ID_FIELDS:
                    if key in request:
                        request[key] = created[family]
                for key in self.ID_LIST_FIELDS:
                    if key in request:
                        request[key] = [created[family]]
            if "orderId" in request:
                request["orderId"] = order_id
            if "orderIds" in request:
                request["orderIds"] = [order_id]
            if name.startswith("order.") and "orderId" in request:
                request["orderId"] = table_orders[int(name == "order.cancel")]
            if name == "order.by_id":
                request["orderIds"] = table_orders
            if name.startswith("reserve."):
                if "reserveId" in request:
                    request["reserveId"] = reserve_id
                if "reserveIds" in request:
                    request["reserveIds"] = [reserve_id]
            if name in ("order.create", "reserve.create"):
                if isinstance(request.get("order"), dict):
                    request["order"].pop("id", None)
                request.pop("id", None)
            if op["edition"] == "newer" and "filters" in request and name != "reporting.olap.get":
                request["filters"] = []
            if name == "reporting.olap.get":
                request = {
                    "reportType": "SALES",
                    "aggregateFields": ["DishSumInt"],
                    "groupByRowFields": ["OpenDate.Typed"],
                    "filters": [
                        {"name": "OpenDate.Typed", "filterType": "DateRange", "from": "2000-01-01", "to": "2100-01-01"}
                    ],
                }
            if name == "commands.status":
                request["correlationId"] = command_id
            # Inventories are listed by the day of their date.
            if name == "inventory.incoming_inventory.create":
                request["date"] = "2026-01-15T10:00:00"
            if name == "inventory.incoming_inventory.list":
                request.update({"from": "2026-01-01", "to": "2026-01-31"})
            if name == "reporting.olap.columns.get":
                request["reportType"] = "SALES"
            if name == "reporting.olap.presets.get":
                presets = json.loads(self.call("reporting.olap.presets.list", {}))
                request = {"presetId": presets[0]["presetId"], "dateFrom": "2000-01-01", "dateTo": "2100-01-01"}
            text = self.call(name, request)
            if creates:
                answer = json.loads(text)
                found = next((answer[k] for k in self.ID_FIELDS if isinstance(answer.get(k), str)), None)
                if found:
                    created[family] = found
            yield name, text


def test_every_operation_answer_reads_the_same_natively(emu: Emulator) -> None:
    models = _response_models()
    walked, checked = 0, 0
    for name, text in _Walk(emu).answers():
        walked += 1
        model = models[name]
        if model.startswith("["):
            # A list of models (read in Python by the client): each item both
            # ways, and the client's reading a list of that class.
            cls = getattr(m, model[1:])
            items = json.loads(text)
            assert isinstance(items, list) and items, (name, text)
            for item in items:
                check(cls, json.dumps(item))
            read = _model.load(model, json.loads(text, parse_float=Decimal))
            assert isinstance(read, list) and all(type(i) is cls for i in read), name
            checked += 1
        elif model:
            check(getattr(m, model), text)
            checked += 1
    # Every POST operation but the token ones answered (a failed call raises);
    # those with no answer model answer plain JSON.
    assert walked >= 325 and checked >= 300, (walked, checked)


def test_the_clients_typed_calls_make_the_reference_objects(emu: Emulator) -> None:
    client = emu.client()
    native = client._n()
    orgs = {"organizationIds": [ORGANIZATION_ID]}
    for call, name, request, model in (  # noqa: B007
        (lambda: client.nomenclature(organization_id=ORGANIZATION_ID), "nomenclature",
         {"organizationId": ORGANIZATION_ID}, m.NomenclatureResponse),
        (lambda: client.organizations(organization_ids=[ORGANIZATION_ID], return_additional_info=True),
         "organizations", {"organizationIds": [ORGANIZATION_ID], "returnAdditionalInfo": True},
         m.GetOrganizationsResponse),
        (lambda: client.payment_types(organization_ids=[ORGANIZATION_ID]), "payment_types", orgs,
         m.PaymentTypesResponse),
    ):
        ours = call()
        theirs = _model._load_text(model, native.call_operation(name, json.dumps(request)), None)
        # Each answer has a correlationId of its own.
        same(ours.replace(correlation_id=theirs.correlation_id), theirs)
    # The safe creation reads its OrderInfo natively too.
    info = client.create_delivery_order(
        organization_id=ORGANIZATION_ID,
        order={"phone": "+79161234567", "items": [{"type": "Product", "productId": PIZZA, "amount": 1, "price": 590}]},
    )
    assert isinstance(info, m.OrderInfo) and info.order is not None
    found = client.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[info.id or ""])
    text = native.call_operation(
        "deliveries.by_id", json.dumps({"organizationId": ORGANIZATION_ID, "orderIds": [info.id]})
    )
    theirs = _model._load_text(m.OrdersResponse, text, None)
    same(found.replace(correlation_id=theirs.correlation_id), theirs)


# ------------------------------------------------------------ webhook bodies


def _bodies() -> List[Path]:
    return sorted(PAYLOADS.glob("*.json")) + sorted(BENCH_DATA.rglob("*.json"))


def test_the_typed_getter_refuses_kinds_read_plain() -> None:
    unknown, stop_list = webhooks.parse(
        b'[{"eventType":"KitchenOrderUpdate","eventInfo":{"id":"k"}},'
        b'{"eventType":"StopListUpdate","eventInfo":{"terminalGroupsStopListsUpdates":[]}}]'
    )
    with pytest.raises(iikocloud.InvalidInputError, match="no eventInfo model: read raw_event_info"):
        unknown._typed_event_info
    assert unknown.event_info == {"id": "k"}
    assert isinstance(stop_list._typed_event_info, m.WebHookOnStopListChangeData)


def test_the_typed_getter_keeps_its_first_read_in_the_event() -> None:
    (stop_list,) = webhooks.parse(
        b'[{"eventType":"StopListUpdate","eventInfo":{"terminalGroupsStopListsUpdates":[]}}]'
    )
    assert stop_list._typed is webhooks._MISSING
    first = stop_list.event_info
    assert isinstance(first, m.WebHookOnStopListChangeData)
    assert stop_list._typed is first
    assert stop_list.event_info is first and stop_list._typed_event_info is first
    # What the slot holds is what the next read hands out.
    stop_list._typed = None
    assert stop_list.event_info is None


@pytest.mark.parametrize("path", _bodies(), ids=lambda p: str(p.relative_to(ROOT)))
def test_event_info_of_every_body_reads_the_same_natively(path: Path) -> None:
    events = webhooks.parse(path.read_bytes())
    typed = 0
    for event in events:
        name = EVENT_INFO_MODELS.get(event.event_type or "")
        if name is None or event.EVENT_TYPE is None:
            continue
        cls = getattr(m, name)
        ours = check(cls, event.raw_json, member="eventInfo")
        # What the event hands out is the native reading of its own JSON.
        check(cls, event, member="eventInfo")
        # The getter the event classes read: the model of the event's kind.
        same(event._typed_event_info, ours)
        same(event.event_info, ours)
        typed += 1
    whole = json.loads(path.read_bytes())
    expected = sum(
        1
        for e in (whole if isinstance(whole, list) else [whole])
        if isinstance(e, dict) and e.get("eventType") in EVENT_INFO_MODELS
    )
    assert typed >= expected - sum(isinstance(e, webhooks.InvalidEvent) for e in events)


def test_the_emulators_events_read_the_same_natively(emu: Emulator) -> None:
    sent = emu.create_delivery_order()["events"]
    for kind in ("delivery_error", "reserve_update", "reserve_error", "table_order_update",
                 "table_order_error", "stop_list_change", "personal_shift"):
        sent += emu.trigger(kind)
    assert len(sent) >= 8
    for event in sent:
        cls = getattr(m, EVENT_INFO_MODELS[event["eventType"]])
        check(cls, json.dumps(event, ensure_ascii=False), member="eventInfo")


def _written(value: Any, keys: str, space: str) -> str:
    """``value`` as JSON again, its numbers with their digits, each object's
    keys in ``keys`` order (``"as sent"`` or ``"reversed"``) or escaped
    (``"escaped"``: each key's first character as ``\\uXXXX``; ``"ascii"``:
    every non-ASCII character of keys and values as ``\\uXXXX``, as .NET
    writes by default), with ``space`` around every token."""
    if isinstance(value, dict):
        items = list(value.items())
        if keys == "reversed":
            items.reverse()
        parts = []
        for k, v in items:
            key = json.dumps(k, ensure_ascii=keys == "ascii")
            if keys == "escaped" and k:
                key = '"\\u%04x' % ord(k[0]) + key[2:]
            parts.append(f"{key}{space}:{space}{_written(v, keys, space)}")
        return "{" + space + f"{space},{space}".join(parts) + space + "}"
    if isinstance(value, list):
        return "[" + space + f"{space},{space}".join(_written(v, keys, space) for v in value) + space + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value, ensure_ascii=keys == "ascii")


def _typed_event_infos() -> Iterator[Tuple[Any, Dict[str, Any], Any]]:
    """Every event of every body whose type has a model: the model class,
    the event as ``json.loads(parse_float=Decimal)`` reads it, and its
    ``eventInfo``."""
    for path in _bodies():
        for event in webhooks.parse(path.read_bytes()):
            name = EVENT_INFO_MODELS.get(event.event_type or "")
            if name is None or event.EVENT_TYPE is None:
                continue
            whole = json.loads(event.raw_json, parse_float=Decimal)
            yield getattr(m, name), whole, whole.get("eventInfo")


@pytest.mark.parametrize("keys", ["reversed", "escaped", "ascii"])
def test_every_bodys_event_info_reads_natively_whatever_its_keys_order_and_escapes(keys: str) -> None:
    # Unions with the tag after other keys (looked for ahead) or behind an
    # escaped key (read on to it), and every key through the slow path.
    read = 0
    for cls, event, info in _typed_event_infos():
        # Runs of eight spaces and more are skipped a word at a time;
        # shorter runs, tabs and carriage returns byte by byte.
        # A text whose first colon has a space after it is read by the
        # reader that takes one space in line, any other by the compact
        # one: " " and " \n" go to the first, "" and "\t" to the second.
        for space in ("", " ", " \n", "\t", "\n" + " " * 7, "\n" + " " * 8, "\r\n\t" + " " * 17,
                      " \t" * 12 + "\r"):
            check(cls, _written(info, keys, space))
            read += 1
    assert read >= 200, read


def _dumps(value: Any, colon: str, comma: str) -> str:
    """``json.dumps(value, separators=(comma, colon))`` with the numbers'
    digits as read (``parse_float=Decimal``)."""
    if isinstance(value, dict):
        return "{" + comma.join(json.dumps(k, ensure_ascii=False) + colon + _dumps(v, colon, comma)
                                for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + comma.join(_dumps(v, colon, comma) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _members_spaced(info: Dict[str, Any], spaced: Callable[[int], bool]) -> str:
    """``info`` written with ``json.dumps``'s spacing (``": "``, ``", "``)
    in the members ``spaced`` picks by place, compactly in the others."""
    parts = []
    for place, (k, v) in enumerate(info.items()):
        colon, comma = (": ", ", ") if spaced(place) else (":", ",")
        parts.append(("" if place == 0 else comma) + json.dumps(k, ensure_ascii=False) + colon
                     + _dumps(v, colon, comma))
    return "{" + "".join(parts) + "}"


@pytest.mark.parametrize("shape", ["json.dumps", "compact first", "spaced first", "every other"])
def test_text_spaced_in_some_places_and_compact_in_others_reads_either_way(shape: str) -> None:
    # The reader is picked by the first colon; each must also read text
    # that changes its spacing after it.
    spaced: Callable[[int], bool] = {
        "json.dumps": lambda place: True,
        "compact first": lambda place: place > 0,
        "spaced first": lambda place: place == 0,
        "every other": lambda place: place % 2 == 1,
    }[shape]
    read = 0
    for cls, event, info in _typed_event_infos():
        if not isinstance(info, dict):
            continue
        text = _members_spaced(info, spaced)
        assert json.loads(text, parse_float=Decimal) == info
        check(cls, text)
        # The whole event too, as `event_info` reads it from the event's text.
        check(cls, _members_spaced(event, spaced), member="eventInfo")
        read += 1
    assert read >= 30, read


# ------------------------------------------------------------ odd input

ORDER = m.OrderInfo
STATUS = m.GetCommandStatusResponse


# (class, JSON text) pairs that the native reader reads itself.
NATIVE_CASES: List[Tuple[Any, str]] = [
    # Values of unexpected types are kept as sent.
    (ORDER, '{"id": 5, "creationStatus": 7, "order": "text", "errorInfo": [1, 2.5, {"a": 1.10}], "timestamp": "x"}'),
    (ORDER, '{"id": true, "order": [1, "two", null, {"sum": 1.50}], "errorInfo": false}'),
    (ORDER, '{"order": {"sum": "12.5", "items": {"not": "a list"}, "whenCreated": 17}}'),
    (ORDER, '{"order": {"sum": [1.5], "whenCreated": ["2025-01-01 00:00:00"], "status": {"x": 1}}}'),
    (ORDER, '{"order": {"items": [1, "two", [3.25], true]}}'),
    # Nulls everywhere.
    (ORDER, '{"id": null, "order": null, "errorInfo": null, "creationStatus": null}'),
    (ORDER, '{"order": {"items": [null, {"type": null, "amount": null}], "payments": null}}'),
    (ORDER, "null"),
    # Unknown enum values and unknown fields.
    (ORDER, '{"creationStatus": "Teleported", "order": {"status": "Lost", "newThing": [1.5, 1e2, -0, -0.0]}}'),
    (ORDER, '{"newObject": {"nested": {"deeper": [1.10, "x", null, true]}}, "newFloat": 0.30000000000000000001}'),
    # Unions: by tag, an unknown tag, a tag of another type, the tag not first.
    (STATUS, '{"state": "Success"}'),
    (STATUS, '{"state": "Error", "exception": {"message": "no"}, "x": 1}'),
    (STATUS, '{"state": "Later", "x": 1}'),
    (STATUS, '{"state": 5}'),
    (STATUS, '{"state": ["Success"]}'),
    (STATUS, '{"state": {"Success": 1}}'),
    (STATUS, '{"state": null}'),
    (STATUS, '{"x": [1.5, {"y": 2}], "exception": {"message": "late"}, "state": "Error", "z": 2}'),
    (STATUS, '{"x": 1}'),
    # The tag after other keys (looked for ahead in the text).
    (STATUS, '{"x": 1, "state": 5}'),
    (STATUS, '{"x": 1, "state": "Su\\u0063cess"}'),
    (STATUS, '{"x": "a}\\"b{", "y": {"z": "]}", "state": "Error"}, "w": [{"state": "Error"}, "]"], "state": "Success"}'),
    (STATUS, '{"x" : {"state": "Error"} , "exception" : {"message": "m"} ,\n "state" : "Error" }'),
    (STATUS, '{"x": -1.5e3, "y": true, "z": null, "state": "InProgress", "w": 2}'),
    (STATUS, '{"st\\u0061te": "Su\\u0063cess", "x": 1}'),
    (ORDER, '{"order": {"items": [{"amount": 2, "price": 590, "type": "Product", "product": {"id": "p"}},'
            ' {"type": "Compound", "amount": 1}, {"type": "Nope", "amount": 3}, {"amount": 4}]}}'),
    (ORDER, '{"order": {"payments": [{"sum": 10.50, "paymentType": {"kind": "Cash"}, "paymentTypeKind": "Cash"}]}}'),
    # Not an object where one is expected.
    (ORDER, "[1, 2]"),
    (ORDER, '"text"'),
    (ORDER, "12"),
    (ORDER, "true"),
    (m.OrdersResponse, '{"orders": {"a": 1}}'),
    (m.OrdersResponse, '{"orders": [1, "x", null, [], {}]}'),
    # Numbers: exact, huge, negative zero, exponents.
    (ORDER, '{"order": {"sum": 1e400, "discountsInfo": {"card": 1}}}'),
    (ORDER, '{"order": {"sum": 123456789012345678901234567890.123456789}}'),
    (ORDER, '{"order": {"sum": -0}, "x": -0}'),
    (ORDER, '{"order": {"sum": -0.0, "number": 12}, "x": -0}'),
    (ORDER, '{"order": {"sum": 1E5, "items": [{"price": 1.10, "amount": 2E-3, "sum": 12}]}}'),
    (ORDER, '{"x": 123456789012345678901234567890, "y": -9223372036854775809, "z": 18446744073709551616}'),
    (ORDER, '{"timestamp": 9223372036854775807, "x": 18446744073709551615}'),
    # Strings: escapes, pairs, lone surrogates (in plain JSON and in decimals' place).
    (ORDER, '{"id": "a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u20ac\\ud83d\\ude00", "x": "\\u0000"}'),
    (ORDER, '{"x": "lone \\ud800 high", "y": "lone \\udc00 low", "z": "\\ud800\\ud83d\\ude00\\udc00"}'),
    (ORDER, '{"order": {"sum": "\\ud800"}, "x": ["\\udfff"]}'),
    (ORDER, '{"i\\u0064": "escaped key", "\\u00e9t\\u00e9": 1}'),
    (ORDER, '{"id": "Привет, мир", "x": "日本語"}'),
    # Times: the service's forms; what the core's rule reads as no time is kept as sent.
    (ORDER, '{"order": {"whenCreated": "2025-09-16 19:00:04.512", "completeBefore": "2025-09-16T19:00:04",'
            ' "whenConfirmed": "2024-02-29 23:59:59.9", "whenPrinted": "2025-09-16 19:00:04.1234567"}}'),
    (ORDER, '{"order": {"whenCreated": "2025-13-01 00:00:00", "completeBefore": "2025-02-29 10:00:00",'
            ' "whenConfirmed": "garbage", "whenPrinted": "", "whenCookingCompleted": "2025-09-16 24:00:00"}}'),
    (ORDER, '{"order": {"whenCreated": "2025-09-16 19:00", "completeBefore": "2025-09-16",'
            ' "whenConfirmed": "2025-09-16 19:00:04Z", "whenPrinted": "2025-09-16 19:00:04.",'
            ' "whenSended": "0000-01-01 00:00:00", "whenDelivered": "2025-09-16 19:00:04+03:00"}}'),
    (ORDER, '{"order": {"whenCreated": "2025-09-16 19:00:0\\u0034", "completeBefore": "2025-09-16 19:00:04\\u002e5"}}'),
    # Repeated keys: the last one counts, in fields and in extra.
    (ORDER, '{"id": "a", "x": 1, "id": "b", "x": 2, "y": 3}'),
    (ORDER, '{"order": {"sum": 1}, "order": {"number": 2}}'),
    # Whitespace around everything.
    (ORDER, ' \n\t{ "id" : "a" , "order" : { "items" : [ ] } } \n'),
    # What serde_json, which read these before, could not: the text of a
    # fractional number or of -0 where the plan expects none, integers past
    # 64 bits, and lone surrogates outside plain JSON.
    (ORDER, '{"timestamp": 1.5}'),
    (ORDER, '{"timestamp": -0}'),
    (ORDER, '{"order": 2.25}'),
    (ORDER, '{"id": 1.0}'),
    (ORDER, '{"timestamp": 123456789012345678901234567890}'),
    (STATUS, '{"x": 1, "state": "\\ud800"}'),
    (ORDER, '{"id": "\\ud800"}'),
    (ORDER, '{"order": {"whenCreated": "\\udc00"}}'),
    (ORDER, '{"\\ud800": 1}'),
    # Unknown keys that must be escaped again in the text kept for extra.
    (ORDER, '{"a\\"b": 1, "c\\\\d": [2], "e\\u0001f": {"g": 3}, "h\\ud800": "\\ud800", "i\\/j": 1.50}'),
    # A tag the look-ahead leaves (a key with escapes): read on to it.
    (STATUS, '{"x": 1, "st\\u0061te": "Error", "exception": {"message": "m"}}'),
    (STATUS, '{"\\u0078": [1, {"state": "Success"}], "state": "Error", "y": 2}'),
    (STATUS, '{"\\u0078": 1, "y": 2}'),
    (STATUS, '{}'),
]


@pytest.mark.parametrize("case", range(len(NATIVE_CASES)))
def test_odd_input_reads_natively_as_the_reference(case: int) -> None:
    cls, text = NATIVE_CASES[case]
    check(cls, text)
    check(cls, text.encode("utf-8"))
    # As an event's eventInfo too.
    check(cls, '{"eventType": "X", "eventInfo": ' + text + "}", member="eventInfo")


# Input the native reader leaves to the reference (it raises with
# fallback=False; by default the reference's objects come back).
FALLBACK_CASES: List[Tuple[Any, Any]] = [
    (STATUS, '{"state": "Success", "state": "Error"}'),  # the reference takes the last tag
    (STATUS, '{"x": 1, "state": "Success", "state": "Error"}'),
    (STATUS, '{"x": 1, "state": "Success", "st\\u0061te": "Error"}'),  # once escaped
    (ORDER, '{"sum": NaN, "x": Infinity}'),  # Python's json reads these
    (ORDER, '{"x": ' + "[" * 200 + "]" * 200 + "}"),  # deeper than the native reader goes
    (ORDER, "{\"id\": \"caf\u00e9\ud800\"}"),  # a str with a lone surrogate has no UTF-8
]


@pytest.mark.parametrize("case", range(len(FALLBACK_CASES)))
def test_input_left_to_the_reference_reads_as_the_reference(case: int) -> None:
    cls, text = FALLBACK_CASES[case]
    with pytest.raises(iikocloud.InvalidInputError, match="not read natively|not JSON|UTF-8|surrogate"):
        _native.load_model(cls, text, fallback=False)
    same(_native.load_model(cls, text), _model._load_text(cls, text, None))


@pytest.mark.parametrize(
    "text",
    ['{"id": ', "", "   ", '{"id": "a"} x', "{'id': 1}", '{"id": "a",}', '\ufeff{"id": "a"}',
     '{"id": "\x01"}', '{"id": "a"}{"id": "b"}', '{"order": {"items": [{"x": 1, "type": "\\u12"}]}}',
     '{"order": {"items": [{"x": 1, "type": "Product"', '{"order": {"items": [{"x": 1, "type" "Product"}]}}',
     '{"order": {"items": [{"x": [1, "type": "Product"}]}}',
     # Bytes that look like white space and are not JSON's, inside a run of it.
     '{"id":' + " " * 9 + '\x0b"a"}', '{"id":   \x0c  "a"}', '{"id":\n      \u00a0"a"}',
     '{"id": "a"}' + " " * 11 + "\x00"],
)
def test_what_is_no_json_raises_the_references_error(text: str) -> None:
    with pytest.raises(ValueError) as reference:
        _model._load_text(ORDER, text, None)
    with pytest.raises(ValueError) as native:
        _native.load_model(ORDER, text)
    assert type(native.value) is type(reference.value)
    # As an eventInfo: no event info.
    assert _native.load_model(ORDER, text, member="eventInfo") is None
    with pytest.raises(iikocloud.InvalidInputError):
        _native.load_model(ORDER, text, fallback=False)


def test_nesting_deeper_than_pythons_json_reads_raises_as_the_reference() -> None:
    text = "[" * 100000 + "]" * 100000
    with pytest.raises(RecursionError):
        _model._load_text(ORDER, text, None)
    with pytest.raises(RecursionError):
        _native.load_model(ORDER, text)
    with pytest.raises(iikocloud.InvalidInputError):
        _native.load_model(ORDER, text, fallback=False)


def test_bytes_that_are_no_utf8_raise_the_references_error() -> None:
    body = b'{"id": "\xff\xfe"}'
    with pytest.raises(UnicodeDecodeError):
        _model._load_text(ORDER, body, None)
    with pytest.raises(UnicodeDecodeError):
        _native.load_model(ORDER, body)
    with pytest.raises(iikocloud.InvalidInputError, match="UTF-8"):
        _native.load_model(ORDER, body, fallback=False)


def test_every_kind_of_text_argument() -> None:
    text = '{"id": "a", "order": {"sum": 1.5}}'
    for value in (text, text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        check(ORDER, value)
    with pytest.raises(iikocloud.InvalidInputError, match="str, bytes"):
        _native.load_model(ORDER, 12, fallback=False)  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # the reference's error
        _native.load_model(ORDER, 12)  # type: ignore[arg-type]


@pytest.mark.parametrize("member_text", [
    '{"eventInfo": {"id": "a"}}',
    '{"eventInfo": {"id": "a"}, "eventInfo": {"id": "b"}}',
    '{"eventInfo": {"id": "a"}, "eventInfo": null}',
    '{"eventInfo": [1, 2]}',
    '{"eventInfo": "x"}',
    '{"other": {"id": "a"}}',
    '[{"eventInfo": {"id": "a"}}]',
    '"eventInfo"',
    "null",
])
def test_a_member_is_read_as_the_events_event_info(member_text: str) -> None:
    check(ORDER, member_text, member="eventInfo")
    # From a parsed event too, where the reader may start at the eventInfo
    # the parse found.
    for event in [webhooks.parse_event(member_text)] + webhooks.parse(f"[{member_text}]"):
        check(ORDER, event, member="eventInfo")


def test_random_changes_to_real_bodies_never_break_the_reader() -> None:
    """Bytes cut, swapped, repeated and replaced in real payloads: the native
    reader (with its fallback) gives what the reference gives, or raises the
    same kind of error; without the fallback it raises InvalidInputError."""
    rnd = random.Random(14)
    sources = [p.read_text(encoding="utf-8") for p in sorted(PAYLOADS.glob("*.json"))]
    pieces = ['"', "\\", "\\u", "\\ud800", "{", "}", "[", "]", ",", ":", "null", "1.5", "-", "e9", "\x00", "é"]
    native = 0
    for i in range(600):
        text = rnd.choice(sources)
        for _ in range(rnd.randint(1, 4)):
            at = rnd.randrange(len(text) + 1)
            op = rnd.randrange(4)
            if op == 0:
                text = text[:at] + text[at + rnd.randint(1, 20):]
            elif op == 1:
                text = text[:at] + rnd.choice(pieces) + text[at:]
            elif op == 2:
                end = min(len(text), at + rnd.randint(1, 200))
                text = text[:at] + text[at:end] * 2 + text[end:]
            else:
                text = text[:at] + rnd.choice(pieces) + text[at + 1:]
        member = "eventInfo" if i % 2 else None
        try:
            body = json.loads(text, parse_float=Decimal)
        except ValueError:
            body = None
        # Bodies are arrays of events: read the first event's info, or the
        # whole text as an OrderInfo.
        if member and isinstance(body, list) and body:
            text = json.dumps(body[0], ensure_ascii=False, default=str)
        try:
            theirs: Any = _model._load_text(ORDER, text, member)
        except (ValueError, ArithmeticError) as e:
            with pytest.raises(type(e)):
                _native.load_model(ORDER, text, member=member)
        else:
            same(_native.load_model(ORDER, text, member=member), theirs)
        try:
            _native.load_model(ORDER, text, member=member, fallback=False)
            native += 1
        except iikocloud.InvalidInputError:
            pass
    # Many of the changed bodies are still JSON the native reader reads.
    assert native >= 50, native


# ------------------------------------------------------------ the objects


def _big_order_text() -> str:
    event = json.loads((PAYLOADS / "delivery_order_update.json").read_text(encoding="utf-8"))[0]
    return json.dumps({"correlationId": "c", "orders": [event["eventInfo"]] * 3}, ensure_ascii=False)


def test_strings_repeated_in_a_large_answer_read_as_the_reference() -> None:
    # Past 16 KiB the reader shares the strings it has made (a cache keyed by
    # a hash of the text): thousands of distinct values of one length collide
    # in it, and escaped, empty, long and non-ASCII values go around it.
    rng = random.Random(7)
    pool = [f"value-{k:04d}" for k in range(3000)] + [
        "Пицца", 'a"b', "line\nbreak", "", "x" * 65, "x" * 64, "é", "value-0001 ",
    ]
    template = json.loads((PAYLOADS / "delivery_order_update.json").read_text(encoding="utf-8"))[0]["eventInfo"]

    def vary(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (rng.choice(pool) if k in ("id", "name", "comment", "phone") and isinstance(v, str) else vary(v))
                    for k, v in value.items()}
        if isinstance(value, list):
            return [vary(v) for v in value]
        return value

    orders = [vary(template) for _ in range(120)]
    text = json.dumps({"correlationId": "c", "orders": orders}, ensure_ascii=False)
    assert len(text.encode()) > 64 * 1024
    answer = check(m.OrdersResponse, text)
    assert [o.id for o in answer.orders] == [o["id"] for o in orders]


def test_unknown_members_stay_text_until_extra_is_read() -> None:
    body = (BENCH_DATA / "bodies" / "odd_unknown_fields.json").read_bytes()
    event = webhooks.parse(body)[0]
    info = event.event_info
    assert info is not None and info.order is not None
    # Kept as text, at every level that has some.
    assert isinstance(getattr(info, EXTRA), bytes) and isinstance(getattr(info.order, EXTRA), bytes)
    reference = _model._load_text(type(info), json.dumps(json.loads(body)[0]["eventInfo"]), None)
    assert info == reference and repr(info) == repr(reference)
    assert info.extra == reference.extra and set(info.extra) == {"x1Note", "x1Rate", "x1Tags"}
    assert info.extra["x1Rate"] == Decimal("0.25") and type(info.extra["x1Rate"]) is Decimal
    # Read once, then kept: what is put in it stays.
    assert getattr(info, EXTRA) is info.extra
    info.extra["mine"] = 1
    assert info.to_dict()["mine"] == 1 and info != reference
    # Pickled and compared before extra is read.
    fresh = webhooks.parse(body)[0].event_info
    assert isinstance(getattr(fresh, EXTRA), bytes)
    assert pickle.loads(pickle.dumps(fresh)) == reference
    assert fresh.replace(id="x").extra == reference.extra


def test_threads_reading_extra_at_once_get_the_same_dict() -> None:
    body = (BENCH_DATA / "bodies" / "odd_unknown_fields.json").read_bytes()
    infos = [webhooks.parse(body)[0].event_info for _ in range(300)]
    seen: List[List[int]] = [[] for _ in infos]
    start = threading.Barrier(4)

    def work() -> None:
        start.wait()
        for i, info in enumerate(infos):
            seen[i].append(id(info.extra))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert all(len(set(ids)) == 1 and len(ids) == 4 for ids in seen)


def test_an_integer_past_pythons_digit_limit_in_an_unknown_member_raises_as_the_reference() -> None:
    # Kept as text, it would raise only when extra is read.
    text = '{"id": "a", "x": ' + "1" * 5000 + "}"
    with pytest.raises(ValueError) as reference:
        _model._load_text(ORDER, text, None)
    with pytest.raises(ValueError) as native:
        _native.load_model(ORDER, text)
    assert type(native.value) is type(reference.value)
    with pytest.raises(iikocloud.InvalidInputError, match="integer short enough"):
        _native.load_model(ORDER, text, fallback=False)
    # 640 digits are always taken.
    assert check(ORDER, '{"x": ' + "9" * 640 + "}").extra == {"x": int("9" * 640)}


def test_native_objects_behave_as_the_models() -> None:
    answer = _native.load_model(m.OrdersResponse, _big_order_text(), fallback=False)
    assert isinstance(answer, m.OrdersResponse) and answer.orders
    info = answer.orders[0]
    assert getattr(info, EXTRA) is None
    with pytest.raises(AttributeError, match="immutable"):
        info.id = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del info.id  # type: ignore[misc]
    assert info.replace(id="x").id == "x" and info.id != "x"
    assert info == answer.orders[1] and info is not answer.orders[1]
    assert pickle.loads(pickle.dumps(answer)) == answer
    assert m.OrdersResponse.from_dict(answer.to_dict()) == answer
    # extra starts empty (no dict until used), and what is put in it stays.
    assert info.extra == {}
    info.extra["mine"] = 1
    assert info.extra == {"mine": 1} and info.to_dict()["mine"] == 1
    assert info != answer.orders[1]
    order = info.order
    assert order is not None and isinstance(order.sum, Decimal)
    assert isinstance(order.when_created, dt.datetime) and order.when_created.tzinfo is None
    assert isinstance(order.status, m.DeliveryStatus) and order.status.is_known


def test_secrets_stay_out_of_repr() -> None:
    token = _native.load_model(m.GetAccessTokenV2Response, '{"correlationId": "c", "token": "s3cr3t"}',
                               fallback=False)
    assert token.token == "s3cr3t" and "s3cr3t" not in repr(token) and "[redacted]" in repr(token)
    settings = check(m.GetWebHookSettingsResponse,
                     '{"webHooksUri": "https://x", "authToken": "hook-s3cr3t", "more": 1}')
    assert "hook-s3cr3t" not in repr(settings)


class WithoutSlots(_model.Model):
    """A model class with its fields in a ``__dict__``."""

    _F = (("name", "name", "s"), ("sum", "sum", "d"))


class WithSlots(_model.Model):
    """A hand-written model class shaped as the generated ones."""

    __slots__ = ("name", "sum")
    _F = (("name", "name", "s"), ("sum", "sum", "d"))


def test_a_class_that_is_not_shaped_as_the_generated_ones_is_read_by_the_generic_path() -> None:
    for cls in (WithoutSlots, WithSlots):
        ours = check(cls, '{"name": "x", "sum": 1.50, "other": [1]}')
        assert ours.sum == Decimal("1.50") and ours.extra == {"other": [1]}


RACE = """
import threading, time
from iikocloud import _model
errors = []
def work(i):
    time.sleep(i * 0.001)
    try:
        _model.model_class("GetOrganizationsResponse")
    except Exception as e:
        errors.append(e)
threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
"""


def test_threads_that_use_the_models_first_at_once_wait_for_their_import() -> None:
    # The first typed calls of a fan-out look their class up while another
    # thread still imports iikocloud.api_models (about 15 ms).
    for _ in range(3):
        subprocess.run([sys.executable, "-c", RACE], check=True, timeout=60)


NESTED_READ = """
from decimal import Decimal
from iikocloud import _model, _native, api_models

nested = []

class Nesting(_model.OpenEnum):
    __slots__ = ()
    _VALUES = frozenset({"known"})

    def __new__(cls, value):
        # Python code an outer read runs after its first key and amount.
        if value != "known":
            nested.append(_native.load_model(Inner, '{"any": {"inner": 2.25}}', fallback=False))
        return super().__new__(cls, value)

class Inner(_model.Model):
    __slots__ = ("any",)
    _F = (("any", "any", "a"),)

class Outer(_model.Model):
    __slots__ = ("any", "kind")
    _F = (("any", "any", "a"), ("kind", "kind", "_NestingForTests"))

api_models._NestingForTests = Nesting
outer = _native.load_model(Outer, '{"any": {"outer": 1.25}, "kind": "new"}', fallback=False)
assert outer.any == {"outer": Decimal("1.25")} and outer.kind == "new", outer
assert [n.any for n in nested] == [{"inner": Decimal("2.25")}], nested
# The inner read found the tables of keys and amounts held by the outer one,
# and made its own; the reads after share theirs (the tables were let go).
later = [_native.load_model(Inner, '{"any": {"inner": 2.25}}', fallback=False) for _ in range(2)]
keys = [next(iter(n.any)) for n in nested + later]
amounts = [n.any["inner"] for n in nested + later]
assert keys[0] is not keys[1] and keys[1] is keys[2], keys
assert amounts[0] is not amounts[1] and amounts[1] is amounts[2], amounts
"""


def test_a_read_inside_another_read_neither_waits_nor_shares_its_tables() -> None:
    # A subprocess: waiting on the tables its own thread holds would hang.
    subprocess.run([sys.executable, "-c", NESTED_READ], check=True, timeout=60)


def test_threads_read_at_once() -> None:
    text = _big_order_text().encode()
    want = _model._load_text(m.OrdersResponse, text, None)
    failures: List[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                assert _native.load_model(m.OrdersResponse, text, fallback=False) == want
        except BaseException as e:  # noqa: BLE001 (reported below)
            failures.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
