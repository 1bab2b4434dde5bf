"""The native plain reader (``_native.load_plain``: ``event_info`` of unknown
event types and of events that could not be read typed, ``raw_event_info``,
``to_dict``) against the reading it replaces, ``json.loads(raw_json,
parse_float=Decimal)``: every webhook body of the repository (the benchmark's
odd classes included) and odd events of every kind. The values must be the
same, with their types, all the way down."""

from __future__ import annotations

import json
import random
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any, List

import pytest

import iikocloud
from iikocloud import _native, webhooks

ROOT = Path(__file__).resolve().parents[3]
PAYLOADS = ROOT / "tests" / "vectors" / "payloads"
BENCH_DATA = ROOT / "benches" / "data"


def same(ours: Any, theirs: Any, at: str = "$") -> None:
    """Alike in class and value (and in the order of keys), all the way down."""
    assert type(ours) is type(theirs), f"{at}: {type(ours).__name__} vs {type(theirs).__name__}"
    if isinstance(theirs, list):
        assert len(ours) == len(theirs), at
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same(a, b, f"{at}[{i}]")
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs), at
        for key in theirs:
            same(ours[key], theirs[key], f"{at}.{key}")
    else:
        # repr keeps a Decimal's digits and exponent: 1.10 is not 1.1.
        assert repr(ours) == repr(theirs), at


def reference_info(raw_json: str) -> Any:
    try:
        whole = json.loads(raw_json, parse_float=Decimal)
    except ValueError:
        return None
    return whole.get("eventInfo") if isinstance(whole, dict) else None


def check_events(events: List[webhooks.Event], *, native: bool = True) -> None:
    for event in events:
        theirs = reference_info(event.raw_json)
        # event_info first, on the event as the parse made it: unknown types
        # and unreadable events hand out the plain reading from their own
        # property; an event without eventInfo comes with None already set.
        if event.EVENT_TYPE is None:
            same(event.event_info, theirs)
        elif theirs is None:
            assert event.event_info is None
        if native:
            # No fallback: load_plain raises what it leaves to json.loads.
            same(_native.load_plain(event, "eventInfo"), theirs)
            same(_native.load_plain(event), json.loads(event.raw_json, parse_float=Decimal))
        same(event.raw_event_info, theirs)
        if event.EVENT_TYPE is None:
            same(event.event_info, theirs)
        whole = json.loads(event.raw_json, parse_float=Decimal)
        same(event.to_dict(), whole if isinstance(whole, dict) else {"value": whole})


def _bodies() -> List[Path]:
    return sorted(PAYLOADS.glob("*.json")) + sorted(BENCH_DATA.rglob("*.json"))


@pytest.mark.parametrize("path", _bodies(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_event_of_every_body_reads_plain_as_json_loads(path: Path) -> None:
    check_events(webhooks.parse(path.read_bytes()))


def test_the_odd_benchmark_classes_are_there_and_take_the_plain_path() -> None:
    """The bodies of issue 35 (scripts/gen_bench_bodies.py) hold the events
    this reader serves: unknown types and events without a typed eventInfo."""
    bodies = {p.stem: webhooks.parse(p.read_bytes()) for p in (BENCH_DATA / "bodies").glob("odd_*.json")}
    assert len(bodies) == 7, sorted(bodies)
    kinds = [type(e).__name__ for e in bodies["odd_no_info_wrong_type"]]
    assert kinds == ["InvalidEvent", "InvalidEvent"], kinds
    assert bodies["odd_no_info_wrong_type"][0].event_info is None
    assert bodies["odd_no_info_wrong_type"][1].event_info == "terminal group list unavailable"
    unknown = bodies["odd_unknown_types"]
    assert [type(e).__name__ for e in unknown] == ["UnknownEvent", "UnknownEvent", "StopListUpdate"]
    assert unknown[0].event_info["items"][0]["amount"] == Decimal("1.5")
    assert repr(unknown[1].event_info["price"]) == "Decimal('249.9')"


ODD_EVENTS = [
    # Unknown types with every kind of plain value.
    '{"eventType":"KitchenOrderUpdate","eventInfo":{"a":1.10,"b":-0,"c":-0.0,"d":1e400,'
    '"e":12345678901234567890123,"f":-9223372036854775809,"g":2.5E-3,"h":[],"i":{},'
    '"j":[1,[2,[3,{"k":null}]]],"l":true,"m":false,"n":"\\u00e9\\n\\"q\\"","o":"\\ud800x",'
    '"p":"\\ud83d\\ude00","q":"плов"}}',
    '{"eventType":"NomenclatureUpdate","eventInfo":[1, 2.50, "x"]}',
    '{"eventType":"NomenclatureUpdate","eventInfo":"text"}',
    '{"eventType":"NomenclatureUpdate","eventInfo":7}',
    '{"eventType":"NomenclatureUpdate","eventInfo":-7.0e2}',
    '{"eventType":"NomenclatureUpdate","eventInfo":null}',
    '{"eventType":"NomenclatureUpdate"}',
    '{ "eventType" : "NomenclatureUpdate" , "eventInfo" : { "a" : [ 1 , 2 ] , "b" : 3.0 } }',
    # The same keys twice inside eventInfo: the last one, as json.loads.
    '{"eventType":"NomenclatureUpdate","eventInfo":{"a":1,"b":2,"a":3.5}}',
    # Known types without a readable eventInfo.
    '{"eventType":"DeliveryOrderUpdate"}',
    '{"eventType":"DeliveryOrderUpdate","eventInfo":"x"}',
    '{"eventType":"StopListUpdate","eventInfo":[{"a":1.0}]}',
    '{"eventType":"ReserveUpdate","eventInfo":12.50}',
    '{"eventType":"DeliveryOrderError","eventInfo":null}',
    # eventInfo twice, or another envelope key twice: the event is invalid.
    '{"eventType":"NomenclatureUpdate","eventInfo":{"a":1},"eventInfo":{"b":2.0}}',
    '{"eventType":"DeliveryOrderUpdate","eventInfo":{"a":1},"eventInfo":{"b":2.0}}',
    '{"eventType":"StopListUpdate","eventType":"X","eventInfo":{"b":2.0}}',
    # Elements that are no object.
    '"just text"',
    "12.5",
    "[1, {\"eventInfo\": 2}]",
    "null",
]


@pytest.mark.parametrize("element", ODD_EVENTS)
def test_odd_events_read_plain_as_json_loads(element: str) -> None:
    check_events(webhooks.parse(f"[{element}]"))
    check_events(webhooks.parse(f"[\n  {element} ,\n {element}\n]".encode()))
    wide = "\r\n\t" + " " * 17
    check_events(webhooks.parse(f"[{wide}{element}{wide},{wide}{element}{wide}]".encode()))
    if element.startswith("{"):
        check_events([webhooks.parse_event(element)])


def test_the_plain_reading_is_read_once_and_kept_in_the_event() -> None:
    """The ``event_info`` of unknown and unreadable events (the native getter
    itself) and ``raw_event_info`` read once, keep the value in the event's
    ``_info`` slot and hand out that object again."""
    unknown, invalid = webhooks.parse(
        b'[{"eventType":"NomenclatureUpdate","eventInfo":{"a":1.5}},'
        b'{"eventType":"StopListUpdate","eventInfo":"x"}]'
    )
    for event, expected in [(unknown, {"a": Decimal("1.5")}), (invalid, "x")]:
        assert event._info is webhooks._MISSING
        first = event.event_info
        same(first, expected)
        assert event._info is first
        assert event.event_info is first and event.raw_event_info is first
    # What the slot holds is what the next read hands out.
    unknown._info = None
    assert unknown.event_info is None


def test_what_the_native_reader_leaves_to_json_loads_is_read_by_it_once() -> None:
    """NaN: the native reader refuses it, ``json.loads`` reads it; the
    getter hands out that reading and keeps it."""
    event = webhooks.parse_event('{"eventType":"NomenclatureUpdate","eventInfo":{"v":NaN}}')
    with pytest.raises(iikocloud.InvalidInputError):
        _native.load_plain(event, "eventInfo")
    first = event.event_info
    assert list(first) == ["v"] and first["v"] != first["v"]  # NaN
    assert event.raw_event_info is first and event.event_info is first


def test_nesting_at_the_parses_ceiling_reads_natively() -> None:
    """The deepest eventInfo a parse hands out (the body's ceiling of 128
    levels, the array and the event included) is read natively, whole."""
    deep = "[" * 126 + "1.50" + "]" * 126
    events = webhooks.parse(f'[{{"eventType":"NomenclatureUpdate","eventInfo":{deep}}}]', max_depth=128)
    check_events(events)
    with pytest.raises(iikocloud.WebhookParseError):
        webhooks.parse(f'[{{"eventType":"NomenclatureUpdate","eventInfo":[{deep}]}}]', max_depth=128)


#: Numbers in JSON that Python refuses to make, as ``json.loads`` does: an
#: integer past ``sys.get_int_max_str_digits()`` (4,300 by default) and an
#: exponent past what ``Decimal`` holds.
UNMAKEABLE = {
    "digits": ("1" * 5000, "Exceeds the limit"),
    "exponent": ("1e9999999999999999999", "exponent past what Decimal holds"),
}


@pytest.mark.parametrize("kind", sorted(UNMAKEABLE))
def test_a_number_python_cannot_make_raises_the_error_a_receiver_answers(kind: str) -> None:
    """The eventInfo of an unknown type and of a known type's event the
    core could not read (the number in a typed field) raises
    WebhookParseError, as every read of the event's JSON does: it once read
    as None and ``to_dict`` as ``{}``, the data lost without a word. The
    error says why and carries the status to answer (200: a resend brings
    the same bytes)."""
    number, why = UNMAKEABLE[kind]
    if kind == "digits" and not hasattr(sys, "get_int_max_str_digits"):
        pytest.skip("this Python has no limit on an integer's digits")
    body = (
        f'[{{"eventType":"NomenclatureUpdate","eventInfo":{{"v":{number}}}}},'
        f'{{"eventType":"DeliveryOrderError","eventInfo":{{"timestamp":{number}}}}}]'
    )
    unknown, invalid = webhooks.parse(body)
    assert type(unknown) is webhooks.UnknownEvent and unknown.problem is None
    assert type(invalid) is webhooks.InvalidEvent and "eventInfo" in (invalid.problem or "")
    for event in (unknown, invalid):
        for read in (lambda: event.event_info, lambda: event.raw_event_info, event.to_dict):
            with pytest.raises(iikocloud.WebhookParseError, match=why) as raised:
                read()
            assert raised.value.reason == "unreadable_event_info"
            assert raised.value.status == webhooks.STATUS_ACCEPTED == 200
            assert isinstance(raised.value, ValueError)
            assert "cannot be read in Python" in str(raised.value)
    if kind == "digits":
        # With the limit raised, the number reads, natively.
        limit = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            unknown, invalid = webhooks.parse(body)
            assert unknown.event_info == {"v": int(number)}
            assert invalid.event_info == {"timestamp": int(number)}
            assert _native.load_plain(unknown, "eventInfo") == {"v": int(number)}
        finally:
            sys.set_int_max_str_digits(limit)


NOT_JSON = [
    # Each of these once read as a value (or failed inside the module): the
    # reader trusted the text, which an unreadable event's may not be.
    '"',
    '"abc',
    '"a\\',
    '"\\u12"',
    '{"eventInfo":"\\u12"}',
    '"a\tb"',
    "tru",
    "nul",
    "1.",
    "01",
    "-",
    "1e",
    "1e+",
    "[1,",
    "[1,]",
    '{"a":1,}',
    '{"a" 1}',
    '{"eventInfo":{"a":1}} x',
    "",
]


@pytest.mark.parametrize("text", NOT_JSON)
def test_event_json_that_is_no_json_raises_natively_and_reads_as_nothing(text: str) -> None:
    """``parse_event`` keeps any text as an unreadable event: the native
    reader must refuse it as ``json.loads`` does, with InvalidInputError (a
    ValueError), and the event then has no eventInfo and an empty dict."""
    with pytest.raises(ValueError):
        json.loads(text, parse_float=Decimal)
    event = webhooks.parse_event(text)
    assert type(event).__name__ == "InvalidEvent"
    with pytest.raises(iikocloud.InvalidInputError, match="not JSON the native reader takes"):
        _native.load_plain(event)
    with pytest.raises(iikocloud.InvalidInputError):
        _native.load_plain(event, "eventInfo")
    assert event.event_info is None
    assert event.raw_event_info is None
    assert event.to_dict() == {}


@pytest.mark.parametrize("place", range(20))
def test_strings_with_an_escape_or_a_control_character_at_every_place(place: int) -> None:
    """Escapes, non-ASCII and control characters at every place of a
    20-character string, in keys and in values, among ASCII, non-ASCII and
    DEL characters: read as json.loads reads them, and a raw control
    character or a missing end refused. (The reader looks for the end of a
    string's plain run eight bytes at a time: every place of the special
    character in its word, and what stands around it, counts.)"""
    for before, after in [("x", "y"), ("é", "\x7f"), ("\x7f", "é"), (" ", "€")]:
        for special in ['\\"', "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "é", "\x7f"]:
            text = before * place + special + after * (19 - place)
            element = '{"eventType":"NomenclatureUpdate","eventInfo":{"k%s":"%s","n":1}}' % (text, text)
            check_events([webhooks.parse_event(element)])
        for bad in ["\t", "\n", "\x00", "\x1f"]:
            text = before * place + bad + after * (19 - place)
            event = webhooks.parse_event('{"eventInfo":"%s"}' % text)
            with pytest.raises(iikocloud.InvalidInputError):
                _native.load_plain(event)
            assert event.to_dict() == {}
    unterminated = webhooks.parse_event('{"eventInfo":"' + "x" * place)
    with pytest.raises(iikocloud.InvalidInputError):
        _native.load_plain(unterminated)


def test_runs_of_escapes_read_as_json_loads_and_a_bad_one_among_them_is_refused() -> None:
    """Strings written with every non-ASCII character escaped (``\\uXXXX``,
    surrogate pairs for the others, as .NET writes by default), mixed with
    short escapes, lone surrogates and plain runs, some longer than the
    256 bytes the decoder sets aside first: read as json.loads reads them.
    An invalid escape anywhere in a run is refused."""
    rng = random.Random(35)
    alphabet = ["а", "Я", "ё", "€", "😀", "\ud800", "\udfff", "\n", '"', "\\", "\t", "x", " ", "é", "\x7f"]
    for _ in range(300):
        parts = [json.dumps(rng.choice(alphabet))[1:-1] for _ in range(rng.randrange(0, 120))]
        text = "".join(parts)
        element = '{"eventType":"NomenclatureUpdate","eventInfo":{"k%s":"%s","n":"%s"}}' % (text, text, text * 3)
        check_events([webhooks.parse_event(element)])
        # Between two of its characters, before more escapes.
        at = rng.randrange(len(parts) + 1)
        for bad in ["\\u041x", "\\q", "\\u04", "\\x"]:
            spoilt = "".join(parts[:at]) + bad + "\\u0410" * 3 + "".join(parts[at:])
            with pytest.raises(ValueError):
                json.loads('"%s"' % spoilt)
            event = webhooks.parse_event('{"eventInfo":"%s"}' % spoilt)
            with pytest.raises(iikocloud.InvalidInputError):
                _native.load_plain(event)
