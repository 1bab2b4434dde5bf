#!/usr/bin/env python3
"""Writes tests/vectors/webhook_vectors.json, the shared webhook test vectors.

Every expectation below is written by hand from the spec and the payload
files; nothing is computed by the SDK under test. Run from the repository root:

    python3 scripts/gen_webhook_vectors.py

The format is described in tests/vectors/README.md.
"""

import base64
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "vectors", "webhook_vectors.json")

ORG = "0ae7e972-848d-53c5-8a8f-3a120fa115ba"
TG = "8d6bc30d-6951-5da4-99e6-6ff6ae14d870"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# --------------------------------------------------------------------------
# verify

def verify(name, header, token, error=None, header_bytes=None):
    case = {"name": name}
    if header_bytes is not None:
        case["header_base64"] = b64(header_bytes)
    else:
        case["header"] = header
    case["expected_token"] = token
    case["valid"] = error is None
    case["error"] = error
    return case


VERIFY = [
    verify("bare token", "s3cret", "s3cret"),
    verify("bearer token", "Bearer s3cret", "s3cret"),
    verify("bearer scheme lower case", "bearer s3cret", "s3cret"),
    verify("bearer scheme mixed case", "bEaReR s3cret", "s3cret"),
    verify("token with an inner space, bare", "my token", "my token"),
    verify("token with an inner space, bearer", "Bearer my token", "my token"),
    verify("non-ASCII token", "секрет", "секрет"),
    verify("long token", "Bearer " + "x" * 4096, "x" * 4096),
    verify("missing header", None, "s3cret", "missing_header"),
    verify("empty expected token", "s3cret", "", "empty_expected_token"),
    verify("blank expected token", "   ", "   ", "empty_expected_token"),
    verify("empty expected token wins over a missing header", None, "", "empty_expected_token"),
    verify("empty header", "", "s3cret", "malformed_header"),
    verify("leading space", " s3cret", "s3cret", "malformed_header"),
    verify("trailing space", "s3cret ", "s3cret", "malformed_header"),
    verify("leading tab", "\ts3cret", "s3cret", "malformed_header"),
    verify("double space after scheme", "Bearer  s3cret", "s3cret", "malformed_header"),
    verify("tab after scheme", "Bearer\ts3cret", "s3cret", "malformed_header"),
    verify("scheme alone", "Bearer", "s3cret", "malformed_header"),
    verify("scheme and space alone", "Bearer ", "s3cret", "malformed_header"),
    verify("trailing CRLF", "s3cret\r\n", "s3cret", "malformed_header"),
    verify("header injection", "s3cret\r\nX-Admin: 1", "s3cret", "malformed_header"),
    verify("NUL byte", None, "s3cret", "malformed_header", header_bytes=b"s3cret\x00"),
    verify("DEL byte", "s3c\x7fret", "s3c\x7fret", "malformed_header"),
    verify("prefix of the token", "s3cr", "s3cret", "mismatch"),
    verify("bearer with a prefix of the token", "Bearer s3cr", "s3cret", "mismatch"),
    verify("token plus a suffix", "s3cret2", "s3cret", "mismatch"),
    verify("empty-looking prefix attack", "s", "s3cret", "mismatch"),
    verify("different case", "S3CRET", "s3cret", "mismatch"),
    verify("other scheme", "Basic s3cret", "s3cret", "mismatch"),
    verify("scheme without a space", "Bearers3cret", "s3cret", "mismatch"),
    verify("scheme twice", "Bearer Bearer s3cret", "s3cret", "mismatch"),
    verify("non-UTF-8 bytes", None, "s3cret", "mismatch", header_bytes=b"s3cr\xff\xfe"),
]


# --------------------------------------------------------------------------
# parse

def body(case, text=None, raw=None, file=None):
    if file is not None:
        case["body_file"] = "payloads/" + file
    elif raw is not None:
        case["body_base64"] = b64(raw)
    else:
        case["body"] = text
    return case


def ok(name, events, single_object=False, options=None, **src):
    case = {"name": name}
    body(case, **src)
    if options:
        case["options"] = options
    case["outcome"] = "ok"
    case["single_object"] = single_object
    case["event_count"] = len(events)
    case["events"] = events
    return case


def fail(name, outcome, options=None, **src):
    case = {"name": name}
    body(case, **src)
    if options:
        case["options"] = options
    case["outcome"] = outcome
    return case


def envelope(kind, code, time, utc, corr, org=ORG):
    return {
        "kind": kind,
        "kind_code": code,
        "event_type": kind,
        "event_time": time,
        "event_time_utc": utc,
        "organization_id": org,
        "correlation_id": corr,
        "invalid": False,
    }


DELIVERY_UPDATE = dict(
    envelope("DeliveryOrderUpdate", 1, "2025-09-16 16:02:11.877", "2025-09-16T16:02:11.877Z",
             "0885102e-6dcc-5fbd-bf84-0b17c24bce32"),
    entity_id="88ad6eef-3a98-5fe9-8bdb-4af52e46d835",
    order_id="88ad6eef-3a98-5fe9-8bdb-4af52e46d835",
    timestamp=1758038531877,
    creation_status="Success",
    status="CookingStarted",
    order_number=10452,
    sum="1780",
    phone="+79161234567",
    error_code=None,
    error_message=None,
    is_new_order=False,
    item_count=3,
    customer_name="Анна",
    dedup_key="DeliveryOrderUpdate|" + ORG + "|88ad6eef-3a98-5fe9-8bdb-4af52e46d835|1758038531877",
)

DELIVERY_IN_PROGRESS = dict(
    envelope("DeliveryOrderUpdate", 1, "2025-09-16 16:00:03.990", "2025-09-16T16:00:03.990Z",
             "43e5d664-3c49-5003-825d-fe896e901a9e"),
    order_id="88ad6eef-3a98-5fe9-8bdb-4af52e46d835",
    timestamp=1758038403990,
    creation_status="InProgress",
    status=None,
    order_number=None,
    sum=None,
    phone=None,
    is_new_order=False,
    item_count=None,
)

DELIVERY_CANCELLED = dict(
    envelope("DeliveryOrderUpdate", 1, "2025-09-16 16:20:45.318", "2025-09-16T16:20:45.318Z",
             "3ec17b47-07b4-5bb7-9df7-e710857766f4"),
    order_id="88ad6eef-3a98-5fe9-8bdb-4af52e46d835",
    timestamp=1758039645318,
    status="Cancelled",
    sum="1780",
    is_new_order=False,
    item_count=3,
)

DELIVERY_ERROR = dict(
    envelope("DeliveryOrderError", 2, "2025-09-16 16:00:06.120", "2025-09-16T16:00:06.120Z",
             "b506862e-d2eb-5d56-8e81-3013cdc646f2"),
    order_id="000d9800-070e-5919-8ec6-659454052b67",
    timestamp=1758038406120,
    creation_status="Error",
    status=None,
    sum=None,
    error_code="ProductNotFound",
    error_message="Product ab3e2b45-4d53-5318-a4c7-9991e9a4885b not found.",
    is_new_order=False,
    dedup_key="DeliveryOrderError|" + ORG + "|000d9800-070e-5919-8ec6-659454052b67|1758038406120",
)

RESERVE_UPDATE = dict(
    envelope("ReserveUpdate", 5, "2025-09-16 16:26:52.004", "2025-09-16T16:26:52.004Z",
             "e07fa7b0-c05c-5d0d-9e87-3b608e813034"),
    entity_id="2c1fe1a8-6405-5d20-a27a-147c98563569",
    order_id=None,
    timestamp=1758040012004,
    creation_status="Success",
    status="New",
    order_number=None,
    sum=None,
    phone="+79031112233",
    is_new_order=False,
    item_count=None,
    customer_name="Пётр",
)

RESERVE_BANQUET = dict(
    envelope("ReserveUpdate", 5, "2025-09-16 17:07:00.555", "2025-09-16T17:07:00.555Z",
             "3972cebd-dcac-532e-8f98-04e218fb683e"),
    entity_id="4cca5830-e984-5e56-a66c-f14afc4f5969",
    timestamp=1758042420555,
    status="Started",
    order_number=731,
    sum="18400",
    item_count=2,
    customer_name="Пётр",
)

RESERVE_ERROR = dict(
    envelope("ReserveError", 6, "2025-09-16 16:26:55.731", "2025-09-16T16:26:55.731Z",
             "84a51892-5a75-5b16-98ee-f760da3318e3"),
    entity_id="0f023d1c-338b-5441-b90c-0125bb0f2045",
    creation_status="Error",
    status=None,
    error_code="DuplicatedReserveId",
    error_message="Reserve with the same id already exists.",
)

TABLE_UPDATE = dict(
    envelope("TableOrderUpdate", 3, "2025-09-16 16:35:12.410", "2025-09-16T16:35:12.410Z",
             "c17a6305-7e90-57f7-a1a0-f2fec3cbccc7"),
    order_id="f49731fe-f7d5-57bc-97bb-a589e293667a",
    timestamp=1758040512410,
    creation_status="Success",
    status="Bill",
    order_number=5581,
    sum="1342",
    phone=None,
    is_new_order=False,
    item_count=4,
    customer_name=None,
)

TABLE_ERROR = dict(
    envelope("TableOrderError", 4, "2025-09-16 16:40:01.002", "2025-09-16T16:40:01.002Z",
             "f5d96a48-175c-556c-89e8-3c71d625e38a"),
    order_id="f21e9871-173d-5108-9f81-f774a8189a02",
    creation_status="Error",
    error_code="TerminalGroupDisabled",
    error_message="Terminal group is disabled.",
)

STOP_LIST = dict(
    envelope("StopListUpdate", 7, "2025-09-16 16:45:30.218", "2025-09-16T16:45:30.218Z",
             "ba676e22-699c-59e9-a9a6-63051315002d"),
    entity_id=None,
    timestamp=None,
    status=None,
    is_new_order=False,
    dedup_key="StopListUpdate|" + ORG + "|ba676e22-699c-59e9-a9a6-63051315002d|"
    + TG + ":0,ffe857a4-ab67-5d5d-a78f-334a2e8a6a44:1",
)

PERSONAL_SHIFT = dict(
    envelope("PersonalShift", 8, "2025-09-16 06:58:02.640", "2025-09-16T06:58:02.640Z",
             "2fd49818-0d05-5212-991c-d754d9d9d8de"),
    entity_id=None,
    is_new_order=False,
    dedup_key="PersonalShift|" + ORG + "|2fd49818-0d05-5212-991c-d754d9d9d8de|"
    "f21f3e37-950f-5459-bf35-6d75d7764c44|1|" + TG,
)


def delivery_with_status(status, event_type="DeliveryOrderUpdate"):
    return json.dumps([{
        "eventType": event_type,
        "eventTime": "2025-09-16 16:00:00.000",
        "organizationId": ORG,
        "correlationId": "c",
        "eventInfo": {"id": "o1", "timestamp": 1, "creationStatus": "Success",
                      "order": {"status": status, "number": 1, "sum": 10.5}},
    }], ensure_ascii=False)


def nested(depth):
    inner = depth - 3  # body array, event, eventInfo
    return '[{"eventType":"X","eventInfo":{"a":' + "[" * inner + "1" + "]" * inner + "}}]"


def with_event_time(text):
    return json.dumps([{"eventType": "PersonalShift", "eventTime": text,
                        "eventInfo": {"id": "e", "opened": True}}])


def event_time(text, utc, us):
    """An eventTime and its instant by the one rule of a time (see
    tests/vectors/README.md): `utc` with milliseconds, `us` with
    microseconds, the digits past them dropped, never rounded."""
    return {"event_time": text, "event_time_utc": utc, "event_time_us": us}


EVENT_TIMES = [
    # A fraction longer than nanoseconds is still a time: the extra digits
    # are dropped (877 ms, not 878).
    event_time("2025-09-16 16:02:11.8779999999", "2025-09-16T16:02:11.877Z",
               "2025-09-16T16:02:11.877999Z"),
    event_time("2024-02-29 23:59:59.9999999999Z", "2024-02-29T23:59:59.999Z",
               "2024-02-29T23:59:59.999999Z"),
    event_time("2025-09-16T16:02:11.5", "2025-09-16T16:02:11.500Z", "2025-09-16T16:02:11.500000Z"),
    event_time("2023-02-29 12:00:00.000", None, None),
    event_time("2025-13-01 00:00:00.000", None, None),
    event_time("2025-04-31 10:00:00.000", None, None),
    event_time("2025-09-16 24:00:00.000", None, None),
    event_time("2025-09-16 23:59:60", None, None),
    event_time("0000-01-01 00:00:00", None, None),
    event_time("2025-09-16 16:02:11.877+03:00", None, None),
    event_time("2025-09-16 16:02", None, None),
    event_time("2025-09-16", None, None),
    event_time("2025-09-16 16:02:11.", None, None),
]


def when_created(text):
    return {"eventType": "DeliveryOrderUpdate", "eventTime": "2025-09-16 16:00:00.000",
            "organizationId": ORG, "correlationId": "c",
            "eventInfo": {"id": "o1", "timestamp": 1, "creationStatus": "Success",
                          "order": {"status": "New", "whenCreated": text}}}


def local(text, ns, us):
    """order.whenCreated: its text, and the local time by the one rule with
    nanoseconds (`local`) and microseconds (`local_us`), or null."""
    return {"local_times": [{"path": "eventInfo.order.whenCreated", "text": text,
                             "local": ns, "local_us": us}]}


LOCAL_TIMES = [
    local("2024-02-29 19:00:04.1234567891", "2024-02-29T19:00:04.123456789",
          "2024-02-29T19:00:04.123456"),
    local("2025-09-16 19:00:04.9999999999", "2025-09-16T19:00:04.999999999",
          "2025-09-16T19:00:04.999999"),
    local("2025-09-16 19:00:04.512", "2025-09-16T19:00:04.512000000", "2025-09-16T19:00:04.512000"),
    local("2025-09-16T19:00:04.5", "2025-09-16T19:00:04.500000000", "2025-09-16T19:00:04.500000"),
    local("2025-09-16 19:00:04", "2025-09-16T19:00:04.000000000", "2025-09-16T19:00:04.000000"),
    local("2000-02-29 00:00:00.000", "2000-02-29T00:00:00.000000000", "2000-02-29T00:00:00.000000"),
    local("0001-01-01 00:00:00", "0001-01-01T00:00:00.000000000", "0001-01-01T00:00:00.000000"),
    local("2023-02-29 19:00:04.123", None, None),
    local("1900-02-29 19:00:04.123", None, None),
    local("2025-13-01 00:00:00", None, None),
    local("2025-04-31 10:00:00.000", None, None),
    local("2025-09-16 24:00:00", None, None),
    local("0000-01-01 00:00:00", None, None),
    local("2025-09-16 19:00:04+03:00", None, None),
    local("2025-09-16 19:00:04Z", None, None),
    local("2025-09-16 19:00", None, None),
    local("2025-09-16", None, None),
    local("16.09.2025 19:00:04", None, None),
]

# (JSON text of order.sum, the amount by the one rule or None). The rule: the
# digits as written, at most 28 of them from the first non-zero one to the
# last non-zero fraction digit; no trailing fraction zeros; -0 is 0.
SUMS = [
    ("123456789012345678901234567890", None),  # 30 digits
    ("12345678901234567890123456789", None),  # 29 digits
    ("1234567890123456789012345678", "1234567890123456789012345678"),  # 28
    ("-1234567890123456789012345678", "-1234567890123456789012345678"),
    ("12345678901234567890.12", "12345678901234567890.12"),  # more than a double holds
    ("0.1234567890123456789012345678", "0.1234567890123456789012345678"),  # 28 fraction digits
    ("0.12345678901234567890123456789", None),  # 29 fraction digits
    ("1.10000000000000000000000000000000", "1.1"),
    ("123456789012345678901234567.80", "123456789012345678901234567.8"),
    ("-0.0", "0"),
    ("-0", "0"),
    ("1.5E-2", "0.015"),
    ("12E+1", "120"),
    ("1e27", "1000000000000000000000000000"),
    ("1e28", None),
    ("1e-28", "0.0000000000000000000000000001"),
    ("1e-29", None),
    ("1e300", None),
    ('"123456789012345678901234567.8"', "123456789012345678901234567.8"),
    ('"123456789012345678901234567890"', None),
    ('"-0.00"', "0"),
    ('"twelve"', None),
    ("true", None),
]


def sum_events():
    events, bodies = [], []
    for text, want in SUMS:
        bodies.append('{"eventType":"TableOrderUpdate","eventInfo":{"id":"t","order":{"sum":%s}}}'
                      % text)
        raw = json.loads(text) if text.startswith('"') else text
        events.append({"sum": want, "sum_text": raw if text != "true" else "true"})
    return events, "[" + ",".join(bodies) + "]"


SUM_EVENTS, SUM_BODY = sum_events()


PARSE = [
    ok("delivery order update", [DELIVERY_UPDATE], file="delivery_order_update.json"),
    ok("delivery order in progress", [DELIVERY_IN_PROGRESS],
       file="delivery_order_update_in_progress.json"),
    ok("delivery order cancelled", [DELIVERY_CANCELLED],
       file="delivery_order_update_cancelled.json"),
    ok("delivery order error", [DELIVERY_ERROR], file="delivery_order_error.json"),
    ok("reserve update", [RESERVE_UPDATE], file="reserve_update.json"),
    ok("banquet", [RESERVE_BANQUET], file="reserve_update_banquet.json"),
    ok("reserve error", [RESERVE_ERROR], file="reserve_error.json"),
    ok("table order update", [TABLE_UPDATE], file="table_order_update.json"),
    ok("table order error", [TABLE_ERROR], file="table_order_error.json"),
    ok("stop list update", [STOP_LIST], file="stop_list_update.json"),
    ok("personal shift", [PERSONAL_SHIFT], file="personal_shift.json"),
    ok("all eight types", [
        {"kind": "DeliveryOrderUpdate", "kind_code": 1, "order_id": DELIVERY_UPDATE["order_id"],
         "sum": "1780"},
        {"kind": "DeliveryOrderError", "kind_code": 2, "error_code": "ProductNotFound"},
        {"kind": "ReserveUpdate", "kind_code": 5, "status": "New"},
        {"kind": "ReserveError", "kind_code": 6, "error_code": "DuplicatedReserveId"},
        {"kind": "TableOrderUpdate", "kind_code": 3, "sum": "1342", "item_count": 4},
        {"kind": "TableOrderError", "kind_code": 4, "error_code": "TerminalGroupDisabled"},
        {"kind": "StopListUpdate", "kind_code": 7, "dedup_key": STOP_LIST["dedup_key"]},
        {"kind": "PersonalShift", "kind_code": 8, "dedup_key": PERSONAL_SHIFT["dedup_key"]},
    ], file="multi_all_types.json"),
    ok("empty array", [], file="edge_empty_array.json"),
    ok("single object is accepted and flagged", [STOP_LIST], single_object=True,
       file="edge_single_object_not_array.json"),
    fail("single object when not accepted", "not_an_array",
         options={"accept_single_object": False}, file="edge_single_object_not_array.json"),

    ok("new order: status New (service description)",
       [{"kind": "DeliveryOrderUpdate", "status": "New", "is_new_order": True, "sum": "10.5"}],
       text=delivery_with_status("New")),
    ok("new order: status Unconfirmed",
       [{"status": "Unconfirmed", "is_new_order": True}], text=delivery_with_status("Unconfirmed")),
    ok("new order: status WaitCooking",
       [{"status": "WaitCooking", "is_new_order": True}], text=delivery_with_status("WaitCooking")),
    ok("not new: ReadyForCooking",
       [{"status": "ReadyForCooking", "is_new_order": False}],
       text=delivery_with_status("ReadyForCooking")),
    ok("not new: CookingStarted",
       [{"status": "CookingStarted", "is_new_order": False}],
       text=delivery_with_status("CookingStarted")),
    ok("not new: status is case-sensitive",
       [{"status": "new", "is_new_order": False}], text=delivery_with_status("new")),
    ok("not new: an error event",
       [{"kind": "DeliveryOrderError", "kind_code": 2, "status": "New", "is_new_order": False}],
       text=delivery_with_status("New", "DeliveryOrderError")),
    ok("not new: a table order with status New",
       [{"kind": "TableOrderUpdate", "status": "New", "is_new_order": False}],
       text=delivery_with_status("New", "TableOrderUpdate")),

    ok("unknown event types", [
        {"kind": "Unknown", "kind_code": 0, "event_type": "KitchenOrderUpdate", "invalid": False,
         "unknown_event_info": '{"id":"k1"}'},
        {"kind": "Unknown", "kind_code": 0, "event_type": "NomenclatureUpdate",
         "unknown_event_info": '{ "revision" : 7 }'},
        {"kind": "Unknown", "kind_code": 0, "event_type": "BusinessHoursAndMappingUpdate",
         "unknown_event_info": None},
        {"kind": "Unknown", "kind_code": 0, "event_type": None, "invalid": False,
         "organization_id": None, "event_time": None, "correlation_id": None},
    ], text='[{"eventType":"KitchenOrderUpdate","eventInfo":{"id":"k1"}},'
            '{"eventType":"NomenclatureUpdate","eventInfo":{ "revision" : 7 }},'
            '{"eventType":"BusinessHoursAndMappingUpdate","eventInfo":null},{}]'),
    ok("unknown fields and enum values", [
        {"kind": "DeliveryOrderUpdate", "invalid": False, "status": "Teleported",
         "creation_status": "Pending", "error_code": "BrandNewCode", "sum": "1.1",
         "is_new_order": False, "item_count": 1},
    ], text='[{"eventType":"DeliveryOrderUpdate","x-new":{"a":[1]},"eventInfo":{"id":"o",'
            '"creationStatus":"Pending","errorInfo":{"code":"BrandNewCode"},"future":1,'
            '"order":{"status":"Teleported","sum":1.1,"items":[{"type":"Hologram","z":null}]}}}]'),
    ok("nulls everywhere", [
        {"kind": "DeliveryOrderUpdate", "invalid": False, "event_time": None,
         "organization_id": None, "correlation_id": None, "order_id": None, "timestamp": None,
         "creation_status": None, "status": None, "sum": None, "order_number": None,
         "phone": None, "item_count": 0, "customer_name": None},
    ], text='[{"eventType":"DeliveryOrderUpdate","eventTime":null,"organizationId":null,'
            '"correlationId":null,"eventInfo":{"id":null,"timestamp":null,'
            '"creationStatus":null,"order":{"status":null,"sum":null,"number":null,'
            '"phone":null,"items":null,"customer":null}}}]'),
    ok("wrong types read leniently", [
        {"kind": "DeliveryOrderUpdate", "invalid": False, "status": None, "sum": "1780.5",
         "order_number": 10452, "phone": None, "item_count": 0, "timestamp": 17},
    ], text='[{"eventType":"DeliveryOrderUpdate","eventInfo":{"id":"o","timestamp":"17",'
            '"order":{"status":3,"sum":"1780.50","number":"10452","phone":79161234567,'
            '"items":{"not":"a list"}}}}]'),
    ok("unparseable eventTime keeps its text", [
        {"event_time": "16.09.2025 16:45", "event_time_utc": None},
    ], text='[{"eventType":"PersonalShift","eventTime":"16.09.2025 16:45",'
            '"eventInfo":{"id":"e","opened":false}}]'),
    ok("eventTime without milliseconds", [
        {"event_time": "2025-09-16 16:45:30", "event_time_utc": "2025-09-16T16:45:30.000Z"},
    ], text='[{"eventType":"PersonalShift","eventTime":"2025-09-16 16:45:30","eventInfo":{}}]'),
    ok("one malformed event among good ones", [
        {"kind": "StopListUpdate", "invalid": False},
        {"kind": "DeliveryOrderUpdate", "kind_code": 1, "invalid": True, "correlation_id": "c2"},
        {"kind": "ReserveUpdate", "invalid": True},
        {"kind": "PersonalShift", "invalid": True},
        {"kind": "Unknown", "invalid": True},
        {"kind": "Unknown", "invalid": True},
        {"kind": "Unknown", "invalid": True},
        {"kind": "PersonalShift", "invalid": False},
    ], text='[{"eventType":"StopListUpdate","eventInfo":{"terminalGroupsStopListsUpdates":[]}},'
            '{"eventType":"DeliveryOrderUpdate","correlationId":"c2","eventInfo":"oops"},'
            '{"eventType":"ReserveUpdate","eventInfo":[1,2]},'
            '{"eventType":"PersonalShift"},'
            '42,"text",null,'
            '{"eventType":"PersonalShift","eventInfo":{"id":"e","opened":true}}]'),
    ok("duplicate keys make the event invalid", [
        {"kind": "DeliveryOrderUpdate", "invalid": True, "organization_id": "org"},
        {"kind": "PersonalShift", "invalid": True},
    ], text='[{"eventType":"DeliveryOrderUpdate","organizationId":"org",'
            '"eventInfo":{"id":"a","id":"b"}},'
            '{"eventType":"PersonalShift","eventType":"StopListUpdate","eventInfo":{}}]'),
    ok("a key repeated in any object inside a known type's eventInfo makes the event invalid", [
        {"kind": "DeliveryOrderUpdate", "invalid": True, "organization_id": "org"},
        {"kind": "Unknown", "invalid": False},
        {"kind": "StopListUpdate", "invalid": False},
    ], text='[{"eventType":"DeliveryOrderUpdate","organizationId":"org",'
            '"eventInfo":{"order":{"items":[{"comment":"a","comment":"b"}]}}},'
            '{"eventType":"KitchenOrderUpdate","eventInfo":{"a":1,"a":2}},'
            '{"eventType":"StopListUpdate","eventInfo":{"terminalGroupsStopListsUpdates":'
            '[{"id":"t","isFull":false},{"id":"u","isFull":true}]}}]'),
    ok("exact sums", [
        {"sum": "0.30000000000000004"}, {"sum": "1234.56"}, {"sum": "12.5"}, {"sum": "1000"},
        {"sum": "99999999999.99"}, {"sum": "-122"},
    ], text="[" + ",".join(
        '{"eventType":"TableOrderUpdate","eventInfo":{"id":"t","order":{"sum":%s}}}' % s
        for s in ["0.30000000000000004", "1234.56", '"12.50"', "1e3", "99999999999.99", "-122.0"]
    ) + "]"),
    ok("eventTime by the one rule of a time", EVENT_TIMES,
       text="[" + ",".join(with_event_time(t["event_time"])[1:-1] for t in EVENT_TIMES) + "]"),
    ok("local times by the one rule: long fractions, leap days, out-of-range dates",
       LOCAL_TIMES,
       text=json.dumps([when_created(t["local_times"][0]["text"]) for t in LOCAL_TIMES])),
    ok("amounts by the one rule: 28 digits exactly, 30 digits none, exponents, negative zero",
       SUM_EVENTS, text=SUM_BODY),
    ok("byte-order mark is skipped", [], raw=b"\xef\xbb\xbf[]"),
    ok("depth at the default limit", [{"kind": "Unknown", "invalid": False}], text=nested(64)),

    fail("empty body", "invalid_json", text=""),
    fail("whitespace body", "invalid_json", text=" \r\n\t"),
    fail("not JSON", "invalid_json", text="<html>502 Bad Gateway</html>"),
    fail("truncated array", "invalid_json", text='[{"eventType":"PersonalShift"'),
    fail("trailing comma", "invalid_json", text="[1,]"),
    fail("trailing garbage", "invalid_json", text="[] []"),
    fail("invalid UTF-8", "invalid_utf8", raw=b'[{"eventType":"\xff"}]'),
    fail("overlong UTF-8", "invalid_utf8", raw=b'["\xc0\xaf"]'),
    fail("number body", "not_an_array", text="5"),
    fail("string body", "not_an_array", text='"[]"'),
    fail("null body", "not_an_array", text="null"),
    fail("boolean body", "not_an_array", text="true"),
    fail("too large", "too_large", options={"max_body_bytes": 10}, text="[{}, {}, {}]"),
    ok("at the size limit", [{"invalid": False}, {"invalid": False}],
       options={"max_body_bytes": 8}, text="[{}, {}]"),
    fail("one level too deep", "too_deep", text=nested(65)),
    fail("custom depth limit", "too_deep", options={"max_depth": 2}, text="[[[]]]"),
    fail("deeper than serde_json allows", "too_deep", options={"max_depth": 1000},
         text=nested(200)),
    fail("unbalanced brackets", "too_deep", text="[" * 1000),
]


# --------------------------------------------------------------------------
# receive

def receive(name, headers, token, status, outcome, event_count=None, options=None, **src):
    case = {"name": name, "headers": headers, "expected_token": token}
    body(case, **src)
    if options:
        case["options"] = options
    case["status"] = status
    case["outcome"] = outcome
    if event_count is not None:
        case["event_count"] = event_count
    return case


JSON_CT = ["Content-Type", "application/json"]

RECEIVE = [
    receive("bare token", [JSON_CT, ["Authorization", "s3cret"]], "s3cret", 200, "ok", 8,
            file="multi_all_types.json"),
    receive("bearer token", [["Authorization", "Bearer s3cret"]], "s3cret", 200, "ok", 1,
            file="delivery_order_update.json"),
    receive("header name in upper case", [["AUTHORIZATION", "s3cret"]], "s3cret", 200, "ok", 0,
            file="edge_empty_array.json"),
    receive("header name in lower case", [["authorization", "s3cret"]], "s3cret", 200, "ok", 1,
            file="edge_single_object_not_array.json"),
    receive("missing header", [JSON_CT], "s3cret", 401, "unauthorized:missing_header",
            file="delivery_order_update.json"),
    receive("wrong token", [["Authorization", "guess"]], "s3cret", 401, "unauthorized:mismatch",
            file="delivery_order_update.json"),
    receive("prefix of the token", [["Authorization", "s3cre"]], "s3cret", 401,
            "unauthorized:mismatch", file="delivery_order_update.json"),
    receive("malformed header", [["Authorization", "Bearer  s3cret"]], "s3cret", 401,
            "unauthorized:malformed_header", file="delivery_order_update.json"),
    receive("two Authorization headers", [["Authorization", "s3cret"],
                                          ["authorization", "s3cret"]],
            "s3cret", 401, "unauthorized:malformed_header", file="delivery_order_update.json"),
    receive("empty expected token", [["Authorization", "s3cret"]], "", 500,
            "unauthorized:empty_expected_token", file="delivery_order_update.json"),
    receive("unauthenticated garbage is not parsed", [["Authorization", "nope"]], "s3cret", 401,
            "unauthorized:mismatch", text="<not json>"),
    receive("authentic but not JSON", [["Authorization", "s3cret"]], "s3cret", 200,
            "unparseable:invalid_json", text="<not json>"),
    receive("authentic but not an array", [["Authorization", "s3cret"]], "s3cret", 200,
            "unparseable:not_an_array", text="42"),
    receive("authentic but not UTF-8", [["Authorization", "s3cret"]], "s3cret", 200,
            "unparseable:invalid_utf8", raw=b"[\"\xff\"]"),
    receive("authentic but too large", [["Authorization", "s3cret"]], "s3cret", 200,
            "unparseable:too_large", options={"max_body_bytes": 100},
            file="delivery_order_update.json"),
    receive("authentic but too deep", [["Authorization", "s3cret"]], "s3cret", 200,
            "unparseable:too_deep", text="[" * 100 + "]" * 100),
    receive("authentic with an invalid event", [["Authorization", "s3cret"]], "s3cret", 200,
            "ok", 2, text='[42, {"eventType":"PersonalShift","eventInfo":{}}]'),
]


def main():
    doc = {
        "format": "iikocloud-webhook-vectors",
        "version": 1,
        "verify": VERIFY,
        "parse": PARSE,
        "receive": RECEIVE,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {OUT}: {len(VERIFY)} verify, {len(PARSE)} parse, {len(RECEIVE)} receive")


if __name__ == "__main__":
    main()
