"""The language-neutral webhook vectors (tests/vectors/webhook_vectors.json,
format in tests/vectors/README.md), the file the Rust, C and PHP tests run:
verification, parsing with every event field, and the receive helper.

Times and amounts are checked in every Python reading of them: the event's
accessors, the typed ``event_info`` read natively, and the same model read by
the reference reader (``_model._load_text``), which must all give the one
answer of the core's rules."""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from iikocloud import _model, _native, webhooks
from iikocloud.webhooks import WebhookParseError, WebhookVerificationError

DIR = Path(__file__).resolve().parents[3] / "tests" / "vectors"
DOC = json.loads((DIR / "webhook_vectors.json").read_text(encoding="utf-8"))

# The core's kinds by code (generated from the document), not a copy.
KINDS = [name for _, name in sorted(_native.event_kinds())]


def test_the_file_is_a_format_this_runner_knows() -> None:
    assert DOC["format"] == "iikocloud-webhook-vectors" and DOC["version"] == 1
    assert len(DOC["verify"]) > 20 and len(DOC["parse"]) > 20 and len(DOC["receive"]) > 10


def _body(case: Dict[str, Any]) -> bytes:
    if "body_file" in case:
        return (DIR / case["body_file"]).read_bytes()
    if "body_base64" in case:
        return base64.b64decode(case["body_base64"])
    return case["body"].encode("utf-8")  # type: ignore[no-any-return]


def _options(case: Dict[str, Any]) -> Dict[str, Any]:
    options = case.get("options", {})
    return {
        "max_body_bytes": options.get("max_body_bytes"),
        "max_depth": options.get("max_depth"),
        "accept_single_object": options.get("accept_single_object", True),
    }


def _ids(section: str) -> List[str]:
    return [case["name"] for case in DOC[section]]


@pytest.mark.parametrize("case", DOC["verify"], ids=_ids("verify"))
def test_verify(case: Dict[str, Any]) -> None:
    header: Any = case.get("header")
    if "header_base64" in case:
        header = base64.b64decode(case["header_base64"])
    try:
        webhooks.verify(header, case["expected_token"])
    except WebhookVerificationError as e:
        assert not case["valid"], e
        assert e.reason == case["error"]
        return
    assert case["valid"], f"verified, but the vector says {case['error']}"


@pytest.mark.parametrize("case", DOC["receive"], ids=_ids("receive"))
def test_receive(case: Dict[str, Any]) -> None:
    receipt = webhooks.receive(
        [tuple(pair) for pair in case["headers"]], _body(case), case["expected_token"], **_options(case)
    )
    assert receipt.status == case["status"]
    if case["outcome"] == "ok":
        assert receipt.ok, receipt.error
        if "event_count" in case:
            assert len(receipt.events) == case["event_count"]
        return
    kind, reason = case["outcome"].split(":", 1)
    cls = WebhookVerificationError if kind == "unauthorized" else WebhookParseError
    assert isinstance(receipt.error, cls), receipt.error
    assert receipt.error.reason == reason
    assert receipt.events == []


@pytest.mark.parametrize("case", DOC["parse"], ids=_ids("parse"))
def test_parse(case: Dict[str, Any]) -> None:
    try:
        events = webhooks.parse(_body(case), **_options(case))
    except WebhookParseError as e:
        assert e.reason == case["outcome"], e
        return
    assert case["outcome"] == "ok", f"parsed, but the vector says {case['outcome']}"
    assert len(events) == case["event_count"]
    for i, (event, fields) in enumerate(zip(events, case["events"])):
        for name, want in fields.items():
            if name == "local_times":
                for expected in want:
                    _check_local_time(event, expected)
                continue
            if name == "sum":
                _check_sum(event, want)
                continue
            if name == "sum_text":
                _check_sum_text(event, want)
                continue
            got = _field(event, name)
            if name == "unknown_event_info" and want is not None:
                want = json.loads(want, parse_float=Decimal)
            assert got == want, f"event {i}: {name}"


def _kind(event: webhooks.Event) -> str:
    if isinstance(event, webhooks.InvalidEvent):
        # An unreadable event keeps the kind its eventType names.
        return event.event_type if event.event_type in KINDS else "Unknown"
    return type(event).EVENT_TYPE or "Unknown"


def _utc(event: webhooks.Event, digits: int) -> Optional[str]:
    t = event.event_time
    if t is None:
        return None
    assert t.utcoffset() == dt.timedelta(0)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f")[: 20 + digits] + "Z"


def _order(event: webhooks.Event) -> Optional[Dict[str, Any]]:
    info = event.raw_event_info if isinstance(event.raw_event_info, dict) else {}
    if isinstance(info.get("order"), dict):
        return info["order"]  # type: ignore[no-any-return]
    reserve = info.get("reserve")
    if isinstance(reserve, dict) and isinstance(reserve.get("order"), dict):
        return reserve["order"]  # type: ignore[no-any-return]
    return None


def _customer_name(event: webhooks.Event) -> Optional[str]:
    info = event.raw_event_info if isinstance(event.raw_event_info, dict) else {}
    holder = info["reserve"] if isinstance(info.get("reserve"), dict) else (_order(event) or {})
    customer = holder.get("customer")
    name = customer.get("name") if isinstance(customer, dict) else None
    return name if isinstance(name, str) else None


def _field(event: webhooks.Event, name: str) -> Any:
    entity = isinstance(event, webhooks._EntityEvent)
    order = isinstance(event, webhooks._OrderEvent)
    if name == "kind":
        return _kind(event)
    if name == "kind_code":
        return KINDS.index(_kind(event))
    if name == "event_type":
        return event.event_type
    if name == "event_time":
        return event.event_time_raw
    if name == "event_time_utc":
        return _utc(event, 3)
    if name == "event_time_us":
        return _utc(event, 6)
    if name == "organization_id":
        return event.organization_id
    if name == "correlation_id":
        return event.correlation_id
    if name == "invalid":
        return event.problem is not None
    if name == "entity_id":
        return event.id if entity else None  # type: ignore[attr-defined]
    if name == "order_id":
        return event.order_id if order else None  # type: ignore[attr-defined]
    if name in ("timestamp", "creation_status", "status", "phone", "error_code", "error_message"):
        return getattr(event, name) if entity else None
    if name == "order_number":
        return event.number if entity else None  # type: ignore[attr-defined]
    if name == "is_new_order":
        return isinstance(event, webhooks.DeliveryOrderUpdate) and event.is_new
    if name == "item_count":
        o = _order(event)
        if o is None:
            return None
        return len(o["items"]) if isinstance(o.get("items"), list) else 0
    if name == "customer_name":
        return _customer_name(event)
    if name == "unknown_event_info":
        return event.raw_event_info
    if name == "dedup_key":
        return event.dedup_key
    raise AssertionError(f"vector field {name!r} is unknown to this runner")


def _same_decimal(got: Any, want: Optional[str], what: str) -> None:
    if want is None:
        assert got is None, f"{what}: {got!r}, wanted no amount"
    else:
        # The core's digits exactly: the value and its exponent (no trailing
        # zeros kept). Decimal prints 1E-28 for 0.000…1, so compare tuples.
        assert isinstance(got, Decimal), f"{what}: {got!r}, wanted {want}"
        assert got.as_tuple() == Decimal(want).as_tuple(), f"{what}: {got!r}, wanted {want}"


def _typed_readings(event: webhooks.Event) -> List[Tuple[str, Any]]:
    """``event_info`` as read natively and by the reference reader."""
    info = event.event_info
    if not isinstance(info, _model.Model):
        return []
    cls = type(info)
    native = _native.load_model(cls, event.raw_json, "eventInfo", fallback=False)
    reference = _model._load_text(cls, event.raw_json, "eventInfo")
    return [("event_info", info), ("native", native), ("reference", reference)]


def _check_sum(event: webhooks.Event, want: Optional[str]) -> None:
    _same_decimal(getattr(event, "sum", None), want, "event.sum")
    for how, info in _typed_readings(event):
        order = getattr(info, "order", None)
        if order is not None and hasattr(order, "sum"):
            _same_decimal(order.sum, want, f"{how}: order.sum")


def _check_sum_text(event: webhooks.Event, want: Optional[str]) -> None:
    """The sum as sent stays reachable in ``raw_event_info``."""
    value = (_order(event) or {}).get("sum")
    if want is None or isinstance(value, (str, type(None))):
        assert value == want
    elif isinstance(value, bool):
        assert ("true" if value else "false") == want
    else:
        # json.loads keeps the value, not its spelling (1e3, 1E+3).
        assert isinstance(value, (int, Decimal)) and value == Decimal(want), value


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _check_local_time(event: webhooks.Event, expected: Dict[str, Any]) -> None:
    steps = expected["path"].split(".")
    assert steps[0] == "eventInfo"
    raw: Any = event.raw_event_info
    for step in steps[1:]:
        raw = raw.get(step) if isinstance(raw, dict) else None
    assert raw == expected["text"]
    want = expected["local_us"]
    for how, typed in _typed_readings(event):
        for step in steps[1:]:
            typed = getattr(typed, _snake(step), None) if typed is not None else None
        if want is None:
            # No time: the text as sent.
            assert typed == expected["text"], f"{how}: {typed!r}"
        else:
            assert isinstance(typed, dt.datetime) and typed.tzinfo is None, f"{how}: {typed!r}"
            assert typed.isoformat(timespec="microseconds") == want, f"{how}: {typed!r}"
    if expected["text"] is not None:
        parsed = _native.local_time_of(expected["text"])
        assert (parsed and parsed.isoformat(timespec="microseconds")) == want
