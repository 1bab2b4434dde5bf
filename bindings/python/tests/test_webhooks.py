"""Webhooks: the shared vectors, verification, receive, de-duplication,
ordering, and a real delivery from the emulator to a local receiver."""

from __future__ import annotations

import copy
import datetime as dt
import http.server
import json
import pickle
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import pytest

import iikocloud
from iikocloud import IikoError, _native, webhooks
from iikocloud.testing import ORGANIZATION_ID, Emulator
from iikocloud.webhooks import WebhookParseError, WebhookVerificationError

from conftest import VECTORS

FILES = sorted(VECTORS.glob("*.json"))


def _event_dicts(path: Path) -> List[Any]:
    data = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    return data if isinstance(data, list) else [data]


def _without_nulls(value: Any) -> Any:
    """What a model writes back: fields sent as null are left out."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def test_vectors_are_there() -> None:
    assert len(FILES) >= 10, VECTORS


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_vector(path: Path) -> None:
    body = path.read_bytes()
    events = webhooks.parse(body)
    expected = _event_dicts(path)
    assert len(events) == len(expected)
    for event, raw in zip(events, expected):
        assert not isinstance(event, webhooks.InvalidEvent), event.problem
        assert event.event_type == raw["eventType"]
        cls = type(event)
        assert cls.EVENT_TYPE == raw["eventType"] or cls is webhooks.UnknownEvent
        assert event.organization_id == raw.get("organizationId")
        assert event.correlation_id == raw.get("correlationId")
        assert event.to_dict() == raw
        assert event.raw_event_info == raw.get("eventInfo")
        if cls.EVENT_TYPE is not None and isinstance(raw.get("eventInfo"), dict):
            # Typed by the generated model of its type, and nothing lost.
            assert isinstance(event.event_info, iikocloud.Model), type(event.event_info)
            assert event.event_info.to_dict() == _without_nulls(raw["eventInfo"])
        else:
            assert event.event_info == raw.get("eventInfo")
        assert event.event_time_raw == raw["eventTime"]
        t = event.event_time
        assert t is not None and t.tzinfo is dt.timezone.utc and type(t) is dt.datetime
        assert t.strftime("%Y-%m-%d %H:%M:%S.%f")[:23] == raw["eventTime"]
        info = raw.get("eventInfo") or {}
        if isinstance(event, (webhooks.DeliveryOrderUpdate, webhooks.TableOrderUpdate)):
            assert event.id == info.get("id") and event.timestamp == info.get("timestamp")
            order = info.get("order")
            if order and order.get("sum") is not None:
                assert event.sum == Decimal(str(order["sum"]))
                assert isinstance(event.sum, Decimal)
                typed = event.event_info
                assert typed is not None and typed.order is not None
                assert typed.order.sum == event.sum and isinstance(typed.order.sum, Decimal)
                assert event.number == order.get("number")
                assert event.status == order.get("status")
        if isinstance(event, (webhooks.DeliveryOrderError, webhooks.ReserveError, webhooks.TableOrderError)):
            assert event.creation_status == "Error"
            assert event.error_code == (info.get("errorInfo") or {}).get("code")
        if isinstance(event, webhooks.StopListUpdate):
            ids = [u["id"] for u in info["terminalGroupsStopListsUpdates"]]
            assert event.terminal_group_ids == ids
        if isinstance(event, webhooks.PersonalShift):
            assert event.opened == info.get("opened") and event.employee_id == info.get("id")
        # A stored event reads back the same.
        again = webhooks.parse_event(event.raw_json)
        assert type(again) is type(event) and again.dedup_key == event.dedup_key


def test_every_documented_event_type_reads_its_event_info_into_its_model() -> None:
    from iikocloud import api_models
    from iikocloud._ops import EVENT_INFO_MODELS

    # The types with a `*WebHookEventInfo` schema in the document; the enum's
    # other three (KitchenOrderUpdate, NomenclatureUpdate,
    # BusinessHoursAndMappingUpdate) have no documented eventInfo.
    assert set(EVENT_INFO_MODELS) == {
        "DeliveryOrderUpdate", "DeliveryOrderError", "TableOrderUpdate", "TableOrderError",
        "ReserveUpdate", "ReserveError", "StopListUpdate", "PersonalShift",
    }
    seen = {}
    for path in FILES:
        for event in webhooks.parse(path.read_bytes()):
            if isinstance(event.raw_event_info, dict):
                seen[event.event_type] = type(event.event_info)
    for event_type, model in EVENT_INFO_MODELS.items():
        assert seen.get(event_type) is getattr(api_models, model), (event_type, seen.get(event_type))


def test_every_kind_of_the_core_has_its_event_class() -> None:
    from iikocloud import _native
    from iikocloud._ops import EVENT_INFO_MODELS

    # The core's kinds are generated from the same schemas as EVENT_INFO_MODELS;
    # a kind without a class of its own here would read as UnknownEvent.
    kinds = dict(_native.event_kinds())
    assert kinds[0] == "Unknown" and sorted(kinds) == list(range(len(kinds)))
    assert set(kinds.values()) - {"Unknown"} == set(EVENT_INFO_MODELS)
    for code, name in kinds.items():
        cls = webhooks.UnknownEvent if code == 0 else getattr(webhooks, name)
        assert webhooks._BY_KIND[code] is cls, name
        if code:
            assert cls.EVENT_TYPE == name


def test_unknown_and_invalid_events_do_not_hide_neighbours() -> None:
    body = json.dumps(
        [
            {"eventType": "NomenclatureUpdate", "eventTime": "2025-09-16 10:00:00.000",
             "organizationId": ORGANIZATION_ID, "correlationId": "c", "eventInfo": {"revision": 7, "x": 1.5}},
            {"eventType": "DeliveryOrderUpdate", "eventInfo": "not an object"},
            42,
            {"eventType": "PersonalShift", "eventTime": "garbage", "eventInfo": {"id": "e", "opened": False}},
        ]
    )
    unknown, invalid, invalid2, shift = webhooks.parse(body)
    assert isinstance(unknown, webhooks.UnknownEvent) and unknown.event_type == "NomenclatureUpdate"
    assert unknown.event_info == {"revision": 7, "x": Decimal("1.5")}
    assert isinstance(invalid, webhooks.InvalidEvent) and invalid.problem
    assert isinstance(invalid2, webhooks.InvalidEvent)
    assert isinstance(shift, webhooks.PersonalShift) and shift.opened is False
    assert shift.event_time is None and shift.event_time_raw == "garbage"


def test_each_event_is_one_object_of_its_class_with_its_slots_set() -> None:
    # The native parse makes each event as an instance of its class, which
    # subclasses the native event, and writes the class's slots directly:
    # every kind must get its class, and every slot a value (an empty slot
    # would raise AttributeError on the first event_info).
    events = [e for path in FILES for e in webhooks.parse(path.read_bytes())]
    events += webhooks.parse(b'[42, {"eventType":"Other","eventInfo":{}}, {"eventType":"Other"}]')
    events.append(webhooks.parse_event('{"eventType":"StopListUpdate","eventInfo":{}}'))
    assert {type(e) for e in events} >= {
        webhooks.DeliveryOrderUpdate, webhooks.StopListUpdate, webhooks.UnknownEvent, webhooks.InvalidEvent
    }
    for event in events:
        assert isinstance(event, _native.NativeEvent), type(event)
        assert not hasattr(event, "__dict__"), type(event)
        slots = [name for cls in type(event).__mro__ for name in getattr(cls, "__slots__", ())]
        assert slots == ["_info", "_typed"], (type(event), slots)
        for name in slots:
            value = getattr(event, name)
            assert value is None or value is webhooks._MISSING, (type(event), name, value)
        whole = json.loads(event.raw_json, parse_float=Decimal)
        assert event.to_dict() == (whole if isinstance(whole, dict) else {"value": whole})
        # Pickled and copied as its JSON: an equal event of the same class.
        for again in (pickle.loads(pickle.dumps(event)), copy.copy(event), copy.deepcopy(event)):
            assert type(again) is type(event) and again == event and again.to_dict() == event.to_dict()
    # An event seen without eventInfo has None there already.
    assert (events[-2]._info, events[-2]._typed) == (None, None)
    assert (events[-1]._info, events[-1]._typed) == (webhooks._MISSING, webhooks._MISSING)


def test_event_classes_must_be_native_events_with_the_slots() -> None:
    kinds = len(_native.event_kinds())
    models = [None] * kinds

    class Plain:
        __slots__ = ("_info", "_typed")

    class NoSlots(_native.NativeEvent):
        pass

    for bad, why in [(Plain, "no subclass of NativeEvent"), (NoSlots, "lacks one of the object slots")]:
        with pytest.raises(TypeError, match=why):
            _native.set_event_classes(webhooks.InvalidEvent, [bad] * kinds, webhooks._MISSING, models)
    # The registered classes are still the package's.
    assert type(webhooks.parse_event('{"eventType":"Other"}')) is webhooks.UnknownEvent
    with pytest.raises(TypeError):
        webhooks.Event()  # made only by the parse


def test_a_reloaded_module_gets_events_of_its_own_classes() -> None:
    import subprocess
    import sys

    code = (
        "import importlib, iikocloud.webhooks as w\n"
        "body = b'[{\"eventType\":\"StopListUpdate\",\"eventInfo\":"
        "{\"terminalGroupsStopListsUpdates\":[{\"id\":\"t\",\"isFull\":true}]}}]'\n"
        "old = w.StopListUpdate\n"
        "before = w.parse(body)[0]\n"
        "importlib.reload(w)\n"
        "e = w.parse(body)[0]\n"
        "assert type(e) is w.StopListUpdate and type(e) is not old, type(e)\n"
        "assert e.event_info is e.event_info\n"
        # An event of the class registered before: read each time (its
        # class's slots are no longer known natively), and read right.
        "updates = before.event_info.terminal_groups_stop_lists_updates\n"
        "assert [(u.id, u.is_full) for u in updates] == [('t', True)], updates\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "invalid_json"),
        (b"{not json", "invalid_json"),
        (b'"a string"', "not_an_array"),
        (b"\xff\xfe", "invalid_utf8"),
        (b"[" * 200 + b"]" * 200, "too_deep"),
    ],
)
def test_unreadable_bodies(body: bytes, reason: str) -> None:
    with pytest.raises(WebhookParseError) as info:
        webhooks.parse(body)
    assert info.value.reason == reason  # type: ignore[attr-defined]
    assert isinstance(info.value, ValueError) and isinstance(info.value, IikoError)


def test_body_limit_and_single_object_option() -> None:
    with pytest.raises(WebhookParseError):
        webhooks.parse(b"[]" + b" " * 100, max_body_bytes=10)
    single = (VECTORS / "edge_single_object_not_array.json").read_bytes()
    assert len(webhooks.parse(single)) == 1
    with pytest.raises(WebhookParseError):
        webhooks.parse(single, accept_single_object=False)
    assert webhooks.parse(single.decode()) == webhooks.parse(single)
    assert webhooks.parse(bytearray(b"[]")) == []


@pytest.mark.parametrize(
    ("header", "ok"),
    [
        ("s3cret-token", True),
        ("Bearer s3cret-token", True),
        (b"s3cret-token", True),
        ("s3cret-tokeN", False),
        ("s3cret", False),
        ("s3cret-token-longer", False),
        ("Bearer ", False),
        ("", False),
        (" s3cret-token", False),
        (None, False),
    ],
)
def test_verify(header: Any, ok: bool) -> None:
    if ok:
        webhooks.verify(header, "s3cret-token")
    else:
        with pytest.raises(WebhookVerificationError) as info:
            webhooks.verify(header, "s3cret-token")
        assert "s3cret" not in str(info.value)
        assert info.value.status == 401  # type: ignore[attr-defined]


def test_empty_expected_token_rejects_everything() -> None:
    for token in ("", "   "):
        with pytest.raises(WebhookVerificationError) as info:
            webhooks.verify("", token)
        assert info.value.reason == "empty_expected_token"  # type: ignore[attr-defined]


def test_receive() -> None:
    body = (VECTORS / "multi_all_types.json").read_bytes()
    r = webhooks.receive({"AUTHORIZATION": "Bearer tok-1"}, body, "tok-1")
    assert r.ok and r.status == 200 and len(r.events) == 8
    r = webhooks.receive([("authorization", "tok-1")], body, "tok-1")
    assert r.status == 200 and len(r.events) == 8
    r = webhooks.receive([("Authorization", "tok-1"), ("authorization", "tok-1")], body, "tok-1")
    assert r.status == 401 and r.error is not None and not r.events
    r = webhooks.receive({"Authorization": "wrong"}, body, "tok-1")
    assert r.status == 401 and isinstance(r.error, WebhookVerificationError) and not r.events
    r = webhooks.receive({}, body, "tok-1")
    assert r.status == 401
    r = webhooks.receive({"Authorization": "tok-1"}, body, "")
    assert r.status == 500
    r = webhooks.receive({"Authorization": "tok-1"}, b"<html>", "tok-1")
    assert r.status == 200 and isinstance(r.error, WebhookParseError) and not r.events
    webhooks.verify_headers({"authorization": "tok-1"}, "tok-1")
    with pytest.raises(WebhookVerificationError):
        webhooks.verify_headers({}, "tok-1")


def test_deduplicator_and_ordering_guard() -> None:
    body = (VECTORS / "multi_all_types.json").read_bytes()
    dedup = webhooks.Deduplicator(capacity=100, max_age=3600)
    first = dedup.filter(webhooks.parse(body))
    assert len(first) == 8 and len(dedup) == 8
    assert dedup.filter(webhooks.parse(body)) == []
    again = webhooks.parse(body)[0]
    dedup.forget(again)
    assert dedup.first_seen(again)

    newer = webhooks.parse((VECTORS / "delivery_order_update_cancelled.json").read_bytes())[0]
    older = webhooks.parse((VECTORS / "delivery_order_update.json").read_bytes())[0]
    assert newer.id == older.id and (newer.timestamp or 0) > (older.timestamp or 0)
    guard = webhooks.OrderingGuard()
    assert guard.observe(newer) == ("apply", None)
    decision = guard.observe(older)
    assert decision.decision == "stale" and decision.last_applied == newer.timestamp
    assert not decision.should_apply
    shift = webhooks.parse((VECTORS / "personal_shift.json").read_bytes())[0]
    assert guard.observe(shift).decision == "untracked"


class _Receiver(http.server.BaseHTTPRequestHandler):
    token = "receiver-token-0123456789"
    received: List[webhooks.Event] = []
    statuses: List[int] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        receipt = webhooks.receive(self.headers, body, self.token)
        type(self).statuses.append(receipt.status)
        type(self).received.extend(receipt.events)
        self.send_response(receipt.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Tuple[str, type]]:
    _Receiver.received, _Receiver.statuses = [], []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/iiko", _Receiver
    finally:
        server.shutdown()
        server.server_close()


def test_emulator_delivers_to_a_receiver(emu: Emulator, receiver: Tuple[str, type]) -> None:
    url, handler = receiver
    client = emu.client()
    client.webhooks.update_settings(organization_id=ORGANIZATION_ID, web_hooks_uri=url, auth_token=handler.token)
    order = emu.create_delivery_order()
    emu.set_delivery_status(order["id"], "CookingStarted")
    emu.trigger("stop_list_change")
    assert emu.wait_for_deliveries(3, timeout=10, delivered=True), emu.deliveries()
    kinds = [type(e).__name__ for e in handler.received]
    assert kinds.count("DeliveryOrderUpdate") == 2 and "StopListUpdate" in kinds
    deliveries = [e for e in handler.received if isinstance(e, webhooks.DeliveryOrderUpdate)]
    assert {e.id for e in deliveries} == {order["id"]}
    assert all(e.event_time is not None for e in handler.received)

    # A receiver with the wrong token answers 401 and gets nothing.
    client.webhooks.update_settings(
        organization_id=ORGANIZATION_ID, web_hooks_uri=url, auth_token="another-token-0123456789"
    )
    handler.statuses.clear()
    emu.trigger("personal_shift")
    assert emu.wait_for_deliveries(4, timeout=10)
    assert 401 in handler.statuses


def test_an_emulator_left_to_the_garbage_collector_stops_cleanly(caplog: pytest.LogCaptureFixture) -> None:
    import gc
    import logging

    with caplog.at_level(logging.DEBUG, logger="iikocloud"):
        emu = Emulator()
        emu.client().organizations()  # emulator threads log at debug meanwhile
        del emu
        gc.collect()
    assert any(r.name == "iikocloud.emulator" for r in caplog.records)


def test_error_statuses_are_the_cores_receive_rule() -> None:
    with pytest.raises(WebhookParseError) as parse_error:
        webhooks.parse(b"not json")
    # Authentic but unreadable: 200, as receive answers (a resend brings the same bytes).
    assert parse_error.value.status == 200 and parse_error.value.reason == "invalid_json"
    receipt = webhooks.receive({"Authorization": "t0ken-0123456789"}, b"not json", "t0ken-0123456789")
    assert receipt.status == parse_error.value.status
    with pytest.raises(WebhookVerificationError) as forged:
        webhooks.verify("wrong", "t0ken-0123456789")
    assert forged.value.status == 401
    with pytest.raises(WebhookVerificationError) as unset:
        webhooks.verify("anything", "")
    assert unset.value.status == 500
