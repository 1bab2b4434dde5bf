"""Every operation through the generated resource groups, against the emulator:
the table, typed answers, exact money, commands, and a whole delivery flow
with webhooks (sync and async)."""

from __future__ import annotations

import asyncio
import datetime as dt
import http.server
import json
import threading
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Iterator, List, Tuple

import pytest

import iikocloud
from iikocloud import api_models as m
from iikocloud import _model, webhooks
from iikocloud.testing import ORGANIZATION_ID, TERMINAL_GROUP_ID, Emulator

SPEC = Path(__file__).resolve().parents[3] / "spec" / "operations.json"
PIZZA = "b1e604c4-586f-4a06-b3d0-ff67e6c542a2"
TOKEN = "operations-receiver-token-0123456789"


def _order(order_id: str, product: str = PIZZA, price: Any = Decimal("590")) -> Any:
    return m.DeliveryOrder(
        id=order_id,
        phone="+79161234567",
        items=[m.CreateOrderProductOrderItem(product_id=product, amount=Decimal("2"), price=price)],
    )


# ------------------------------------------------------------------ the table


def test_every_operation_of_the_core_is_a_method() -> None:
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    table = iikocloud.operations()
    assert [o[0] for o in table] == sorted(o["name"] for o in spec["operations"])
    client = iikocloud.Client(api_login="unused")
    names = {o[0] for o in table}
    for root in (client, iikocloud.AsyncClient.from_client(client)):
        asy = isinstance(root, iikocloud.AsyncClient)
        for name, method, path, command, safe, _deprecated, _group in table:
            target: Any = root
            for part in name.split("."):
                target = getattr(target, part)
            # A path that is also a group is called as the group itself.
            assert callable(target), name
            if any(n.startswith(name + ".") for n in names):
                assert type(target).__call__ is not object.__call__, name
            assert method in ("GET", "POST") and path.startswith("/api/")
            assert not (command and safe), name
            function = type(target).__call__ if isinstance(target, _model.Group) else target
            assert path in (function.__doc__ or ""), name
            # Generated, not shadowed by a hand-written method of the client.
            assert function.__module__ in ("iikocloud._groups", "iikocloud._ops"), name
            assert asyncio.iscoroutinefunction(function) == asy, name


def test_no_generated_group_or_method_is_overridden_by_the_clients() -> None:
    from iikocloud import _ops

    for client, ops in ((iikocloud.Client, _ops.Ops), (iikocloud.AsyncClient, _ops.AsyncOps)):
        generated = {n for n in vars(ops) if not n.startswith("_")}
        assert {"organizations", "stop_lists", "webhooks", "deliveries", "commands"} <= generated
        for n in generated:
            assert getattr(client, n) is vars(ops)[n], (client.__name__, n)


def test_async_client_has_the_same_surface() -> None:
    sync_groups = {n for n in dir(iikocloud.Client) if not n.startswith("_")}
    async_groups = {n for n in dir(iikocloud.AsyncClient) if not n.startswith("_")}
    # The async client adds its own lifecycle (aclose, sync, __aenter__).
    missing = sync_groups - async_groups - {"close", "__enter__", "__exit__"}
    assert not missing, missing
    from iikocloud import _groups

    for name in dir(_groups):
        cls = getattr(_groups, name)
        if isinstance(cls, type) and name.endswith("Ops") and not name.startswith("Async"):
            twin = getattr(_groups, "Async" + name)
            public = {n for n in vars(cls) if not n.startswith("_") or n == "__call__"}
            assert public == {n for n in vars(twin) if not n.startswith("_") or n == "__call__"}
            for n in public:
                if not isinstance(vars(cls)[n], property):
                    assert asyncio.iscoroutinefunction(vars(twin)[n]), (name, n)


# ---------------------------------------------------------- checks and money


def test_requests_are_checked_by_the_core_before_sending(emu: Emulator) -> None:
    client = emu.client()
    emu.clear_requests()
    with pytest.raises(iikocloud.InvalidInputError) as e:
        client.deliveries.create(organization_id="not-a-uuid", order={"items": []})
    assert "organizationId: must be a UUID" in str(e.value)
    assert "order.phone: is required" in str(e.value)
    with pytest.raises(iikocloud.InvalidInputError, match=r"order\.items\[0\]\.amount"):
        client.deliveries.create(
            organization_id=ORGANIZATION_ID,
            order={"phone": "+7916", "items": [{"type": "Product", "productId": PIZZA, "amount": -1}]},
        )
    with pytest.raises(iikocloud.InvalidInputError, match="no operation named"):
        client.call_operation("deliveries.teleport", {})
    with pytest.raises(iikocloud.InvalidInputError, match="not JSON"):
        client.call_operation("terminal_groups", "{not json")
    assert emu.request_count("/api/1/deliveries/create") == 0


def test_nested_dicts_take_snake_case_keys_as_the_issue_wrote_them(emu: Emulator) -> None:
    # The request as a Python user naturally writes it: snake case throughout.
    client = emu.client()
    oid = str(uuid.uuid4())
    emu.clear_requests()
    answer = client.deliveries.create(
        organization_id=ORGANIZATION_ID,
        terminal_group_id=TERMINAL_GROUP_ID,
        order={
            "id": oid,
            "phone": "+79990001122",
            "order_service_type": "DeliveryByCourier",
            "complete_before": "2026-12-01 19:30:00.000",
            "delivery_point": {
                "address": {"type": "city", "line1": "Tverskaya 1", "flat": "12"},
                "comment": "door code 12",
            },
            "items": [{"type": "Product", "product_id": PIZZA, "amount": 2, "price": Decimal("349.50")}],
        },
    )
    client.wait(answer, organization_id=ORGANIZATION_ID, timeout=20)
    # Sent under the document's names, nothing lost on the way.
    sent = emu.requests()
    assert emu.request_count("/api/1/deliveries/create") == 1
    found = client.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[oid])
    assert found.orders and found.orders[0].order is not None
    order = found.orders[0].order
    assert order.items and len(order.items) == 1
    assert sent  # the emulator's log saw the call
    wire = json.loads(_native_prepare("deliveries.create", {
        "organization_id": ORGANIZATION_ID,
        "order": {"phone": "+79990001122", "delivery_point": {"comment": "x"},
                  "items": [{"type": "Product", "product_id": PIZZA, "amount": 1, "price": 1}]},
    }))
    assert wire["organizationId"] == ORGANIZATION_ID
    assert wire["order"]["deliveryPoint"] == {"comment": "x"}
    assert wire["order"]["items"][0]["productId"] == PIZZA
    assert "delivery_point" not in wire["order"]


def _native_prepare(name: str, request: Any, **kwargs: Any) -> str:
    from iikocloud import _native

    return _native.prepare_request(name, request, **kwargs)


def test_a_misspelt_key_is_refused_before_sending_naming_its_path(emu: Emulator) -> None:
    client = emu.client()
    emu.clear_requests()
    item = {"type": "Product", "product_id": PIZZA, "amount": 1, "price": 590}
    cases: List[Tuple[Callable[[], Any], str]] = [
        # At the top (a raw call by name), nested, and in a list item.
        (lambda: client.call_operation("deliveries.create", {
            "organisationId": ORGANIZATION_ID, "order": {"phone": "+79990001122", "items": [item]}}),
         "organisationId: not a field of CreateOrderRequest; did you mean organizationId?"),
        (lambda: client.deliveries.create(organization_id=ORGANIZATION_ID, order={
            "phone": "+79990001122", "deliveryPont": {}, "items": [item]}),
         "order.deliveryPont: not a field of DeliveryOrder; did you mean deliveryPoint?"),
        (lambda: client.deliveries.create(organization_id=ORGANIZATION_ID, order={
            "phone": "+79990001122", "items": [item, dict(item, coment="no onions")]}),
         "order.items[1].coment: not a field of ProductOrderItem; did you mean comment?"),
        # Both spellings of one field: which value was meant?
        (lambda: client.deliveries.create(organization_id=ORGANIZATION_ID, order={
            "phone": "+79990001122", "items": [dict(item, productId=PIZZA)]}),
         "order.items[0].product_id: the same field as productId; give it once"),
        # A model's extra is no field either.
        (lambda: client.deliveries.create(organization_id=ORGANIZATION_ID, order=m.DeliveryOrder(
            phone="+79990001122", items=[m.CreateOrderProductOrderItem(
                product_id=PIZZA, amount=Decimal(1), price=Decimal(590))]).replace(extra={"coment": "x"})),
         "order.coment: not a field of DeliveryOrder; did you mean comment?"),
    ]
    for call, message in cases:
        with pytest.raises(iikocloud.InvalidInputError) as e:
            call()
        assert message in str(e.value)
    assert emu.request_count("/api/1/deliveries/create") == 0
    # On purpose: sent as given (the emulator, knowing the document, refuses it).
    with pytest.raises(iikocloud.BadRequestError, match="coment"):
        client.deliveries.create(
            organization_id=ORGANIZATION_ID,
            order={"phone": "+79990001122", "items": [dict(item, coment="no onions")]},
            allow_unknown_fields=True,
        )
    assert emu.request_count("/api/1/deliveries/create") == 1
    sent = json.loads(_native_prepare("deliveries.create", {
        "organizationId": ORGANIZATION_ID,
        "order": {"phone": "+79990001122", "items": [dict(item, newerField=[1])]},
    }, allow_unknown_fields=True))
    assert sent["order"]["items"][0]["newerField"] == [1]


def test_the_async_client_checks_keys_the_same_way(emu: Emulator) -> None:
    async def run() -> None:
        async with emu.async_client() as client:
            with pytest.raises(iikocloud.InvalidInputError, match="did you mean deliveryPoint"):
                await client.deliveries.create(organization_id=ORGANIZATION_ID, order={
                    "phone": "+79990001122", "deliveryPont": {}, "items": []})

    asyncio.run(run())
    assert emu.request_count("/api/1/deliveries/create") == 0


@pytest.mark.parametrize("amount", ["0.1", "12345678901234.56", "0.3", "999.999"])
def test_decimal_values_go_out_exactly(amount: str) -> None:
    request = {
        "organizationId": ORGANIZATION_ID,
        "order": {
            "phone": "+79161234567",
            "items": [{"type": "Product", "productId": PIZZA, "amount": 1, "price": Decimal(amount)}],
        },
    }
    if Decimal(amount) < 10**10:  # the document's bound for a payment
        request["order"]["payments"] = [  # type: ignore[index]
            {"paymentTypeKind": "Cash", "sum": Decimal(amount), "paymentTypeId": PIZZA}
        ]
    out = iikocloud._native.prepare_request("deliveries.create", request)
    assert f'"price":{amount}' in out
    assert Decimal(amount) >= 10**10 or f'"sum":{amount}' in out
    back = json.loads(out, parse_float=Decimal)
    assert back["order"]["items"][0]["price"] == Decimal(amount)
    # JSON text in works the same as a dict.
    text = json.dumps(request, default=str).replace(f'"{amount}"', amount)
    assert iikocloud._native.prepare_request("deliveries.create", text) == out


def test_money_comes_back_exact_through_the_emulator(emu: Emulator) -> None:
    client = emu.client()
    order_id = str(uuid.uuid4())
    answer = client.deliveries.create(
        organization_id=ORGANIZATION_ID,
        terminal_group_id=TERMINAL_GROUP_ID,
        order=_order(order_id, price=Decimal("0.1")),
    )
    client.wait(answer, organization_id=ORGANIZATION_ID, timeout=20)
    found = client.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[order_id])
    assert found.orders is not None
    order = found.orders[0].order
    assert order is not None and order.items is not None
    item = order.items[0]
    assert isinstance(item, m.OrderProductOrderItem)
    assert item.price == Decimal("0.1") and isinstance(item.price, Decimal)


# ------------------------------------------------------------------ typed values


def test_typed_values(emu: Emulator) -> None:
    client = emu.client()
    orgs = client.organizations(organization_ids=[ORGANIZATION_ID], return_additional_info=True)
    assert isinstance(orgs, m.GetOrganizationsResponse)
    assert orgs.organizations
    org = orgs.organizations[0]
    # The emulator adds a field the document lacks: kept, not lost.
    assert "futureField" in org.extra and org.to_dict()["futureField"] == org.extra["futureField"]
    with pytest.raises(AttributeError, match="immutable"):
        org.name = "x"  # type: ignore[misc]
    assert org.replace(name="x").name == "x" and org.name != "x"

    menu = client.nomenclature(organization_id=ORGANIZATION_ID)
    assert isinstance(menu, m.NomenclatureResponse) and menu.products
    prices = [p.size_prices[0].price.current_price for p in menu.products if p.size_prices and p.size_prices[0].price]
    assert prices and all(isinstance(p, Decimal) for p in prices)
    assert Decimal("99.9") in prices  # exactly, not 99.90000000000001

    order_id = str(uuid.uuid4())
    answer = client.deliveries.create(organization_id=ORGANIZATION_ID, order=_order(order_id))
    assert isinstance(answer, m.OrderResponse) and answer.order_info is not None
    status = answer.order_info.creation_status
    assert isinstance(status, iikocloud.OpenEnum) and status == m.CreationStatus.IN_PROGRESS
    assert status.is_known
    client.wait(answer.correlation_id, organization_id=ORGANIZATION_ID, timeout=20)
    info = client.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[order_id]).orders
    assert info is not None and info[0].order is not None
    when = info[0].order.when_created
    # A terminal-local time: naive.
    assert isinstance(when, dt.datetime) and when.tzinfo is None

    # Unknown enum values and fields survive a round trip.
    unknown = m.OrderInfo.from_dict({"id": order_id, "creationStatus": "Teleported", "newThing": [1.5]})
    assert unknown.creation_status == "Teleported" and not unknown.creation_status.is_known
    assert unknown.extra == {"newThing": [1.5]}
    assert unknown.to_dict() == {"id": order_id, "creationStatus": "Teleported", "newThing": [1.5]}
    # Nulls are read as None, whatever the document says.
    assert m.OrderInfo.from_dict({"id": None, "order": None}).id is None
    # A union reads into its variant; an unknown variant keeps its fields.
    ok = client.commands.status(organization_id=ORGANIZATION_ID, correlation_id=answer.correlation_id or "")
    assert isinstance(ok, m.SuccessCommandStatus)
    assert type(m.GetCommandStatusResponse.from_dict({"state": "Later", "x": 1})) is m.GetCommandStatusResponse


# ------------------------------------------------------------ the list answers

STORE = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"


def test_the_list_answers_are_lists_of_models(emu: Emulator) -> None:
    client = emu.client()
    # Annotated: mypy --strict holds the stubs to these types.
    columns: List[m.OlapColumn] = client.reporting.olap.columns.get(report_type="SALES")
    assert isinstance(columns, list) and [type(c) for c in columns] == [m.OlapColumn] * 7
    by_name = {c.name: c for c in columns}
    dish = by_name["DishSumInt"]
    assert (dish.display_name, dish.type, dish.tags) == ("Dish sum", "MONEY", ["Amounts"])
    assert (dish.can_aggregate, dish.can_group, dish.can_filter) == (True, False, False)
    assert by_name["OpenDate.Typed"].can_filter is True and by_name["OpenDate.Typed"].can_group is True
    with pytest.raises(iikocloud.BadRequestError):
        client.reporting.olap.columns.get(report_type="WEEKLY")

    tree: List[m.JurPerson] = client.inventory.organizations.tree()
    assert [type(j) for j in tree] == [m.JurPerson, m.JurPerson]
    company = tree[0]
    assert (company.name, company.code, company.type) == ("Emulator Restaurants LLC", "ER-01", "JUR_PERSON")
    children = company.children or []
    assert [type(o) for o in children] == [m.Organization, m.Organization]
    pizza = children[0]
    assert (pizza.organization_id, pizza.name, pizza.code, pizza.type) == (
        ORGANIZATION_ID,
        "Emulator Pizza (Central)",
        "EMU-PIZZA",
        "Rms",
    )
    assert pizza.children == [] and pizza.is_cloud is True

    presets: List[m.OlapPreset] = client.reporting.olap.presets.list()
    assert [type(p) for p in presets] == [m.OlapPreset] * 3 and all(p.name for p in presets)
    preset_id = presets[0].preset_id
    assert preset_id is not None
    report = client.reporting.olap.presets.get(preset_id=preset_id, date_from="2000-01-01", date_to="2100-01-01")
    assert isinstance(report, m.GetOlapReportResponse) and report.summary is not None

    draft = client.inventory.incoming_inventory.create(
        organization_id=ORGANIZATION_ID, store=STORE, date="2026-03-01T09:00:00", items=[], items_first_step=[]
    )
    assert draft.document_id
    client.inventory.incoming_inventory.post(organization_id=ORGANIZATION_ID, document_id=draft.document_id)
    docs: List[m.IncomingInventoryListItem] = client.inventory.incoming_inventory.list(
        from_="2026-03-01", to="2026-03-31", organization_id=ORGANIZATION_ID
    )
    assert [(type(d), d.document_id, d.processed, d.deleted, d.store_from) for d in docs] == [
        (m.IncomingInventoryListItem, draft.document_id, True, False, STORE)
    ]

    types: List[m.AccountType] = client.finance.account_type.list()
    assert all(type(t) is m.AccountType for t in types) and "CASH" in {t.code for t in types}


def test_the_list_answers_are_lists_of_models_async(emu: Emulator) -> None:
    async def flow() -> None:
        async with iikocloud.AsyncClient.from_client(emu.client()) as client:
            columns: List[m.OlapColumn] = await client.reporting.olap.columns.get(report_type="DELIVERIES")
            assert [c.name for c in columns][:2] == ["OpenDate.Typed", "OrderNum"]
            assert all(type(c) is m.OlapColumn and c.display_name for c in columns)
            tree: List[m.JurPerson] = await client.inventory.organizations.tree()
            leaves = [o for j in tree for o in j.children or []]
            assert [type(o) for o in leaves] == [m.Organization] * 3
            assert leaves[-1].name == "Emulator Closed Cafe" and tree[-1].name is None
            presets: List[m.OlapPreset] = await client.reporting.olap.presets.list()
            assert {p.name for p in presets} >= {"Sales by day"}

    asyncio.run(flow())


# ------------------------------------------------------------------ commands


def test_wait_raises_the_command_errors(emu: Emulator) -> None:
    client = emu.client()
    bad = client.deliveries.create(
        organization_id=ORGANIZATION_ID, order=_order(str(uuid.uuid4()), product=str(uuid.uuid4()))
    )
    with pytest.raises(iikocloud.CommandFailedError) as failed:
        client.wait(bad, organization_id=ORGANIZATION_ID, timeout=20)
    assert failed.value.reason == "ProductNotFound"
    assert failed.value.correlation_id == bad.correlation_id
    assert isinstance(failed.value, iikocloud.CommandError) and failed.value.waited > 0

    slow = client.deliveries.create(organization_id=ORGANIZATION_ID, order=_order(str(uuid.uuid4())))
    with pytest.raises(iikocloud.CommandTimeoutError) as timed_out:
        client.wait(slow, organization_id=ORGANIZATION_ID, timeout=0.001)
    assert isinstance(timed_out.value, TimeoutError)

    with pytest.raises(iikocloud.CommandExpiredError):
        client.wait(str(uuid.uuid4()), organization_id=ORGANIZATION_ID, timeout=5)
    with pytest.raises(iikocloud.InvalidInputError, match="correlationId"):
        client.wait(m.OrderResponse(), organization_id=ORGANIZATION_ID)


def test_safe_creation_never_creates_twice(emu: Emulator) -> None:
    client = emu.client()
    # The first answer is a 503: the helper looks the order up by the id it
    # gave it, does not find it, and sends it once more with the same id.
    emu.clear_requests()
    emu.inject("/api/1/deliveries/create", "status", status=503)
    info = client.create_delivery_order(
        organization_id=ORGANIZATION_ID,
        order={"phone": "+79161234567", "items": [{"type": "Product", "productId": PIZZA, "amount": 1, "price": 590}]},
        timeout=20,
    )
    assert emu.request_count("/api/1/deliveries/create") == 2
    assert isinstance(info, m.OrderInfo) and info.id
    assert info.creation_status == "Success"
    assert info.order is not None and info.order.sum == Decimal("590")
    found = client.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[info.id])
    assert found.orders is not None and len(found.orders) == 1


# ------------------------------------------------------------------ a whole flow


class _Receiver(http.server.BaseHTTPRequestHandler):
    events: List[webhooks.Event] = []
    statuses: List[int] = []
    lock = threading.Lock()

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        receipt = webhooks.receive(self.headers.items(), body, TOKEN)
        with self.lock:
            type(self).statuses.append(receipt.status)
            type(self).events.extend(receipt.events)
        self.send_response(receipt.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Tuple[str, type]]:
    _Receiver.events, _Receiver.statuses = [], []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/iiko", _Receiver
    finally:
        server.shutdown()
        server.server_close()


def _order_events(handler: type, order_id: str, status: str, timeout: float = 20) -> List[Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with handler.lock:  # type: ignore[attr-defined]
            found = [
                e
                for e in handler.events  # type: ignore[attr-defined]
                if isinstance(e, webhooks.DeliveryOrderUpdate) and e.id == order_id and e.status == status
            ]
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no DeliveryOrderUpdate {status} for {order_id}: {handler.events}")  # type: ignore[attr-defined]


def test_whole_flow_sync(emu: Emulator, receiver: Tuple[str, type]) -> None:
    url, handler = receiver
    client = emu.client()
    # Dictionaries.
    groups = client.terminal_groups(organization_ids=[ORGANIZATION_ID])
    assert groups.terminal_groups and groups.terminal_groups[0].items
    terminal = groups.terminal_groups[0].items[0].id
    assert terminal
    alive = client.terminal_groups.is_alive(organization_ids=[ORGANIZATION_ID], terminal_group_ids=[terminal])
    assert isinstance(alive, m.TerminalGroupsIsAliveResponse)
    payment_types = client.payment_types(organization_ids=[ORGANIZATION_ID])
    assert isinstance(payment_types, m.PaymentTypesResponse)
    causes = client.cancel_causes(organization_ids=[ORGANIZATION_ID])
    assert isinstance(causes, m.CancelCausesResponse)
    order_types = client.deliveries.order_types(organization_ids=[ORGANIZATION_ID])
    assert isinstance(order_types, m.OrderTypesResponse)
    # Menu.
    menu = client.nomenclature(organization_id=ORGANIZATION_ID)
    product = next(p for p in menu.products or [] if p.id == PIZZA)
    assert product.size_prices and product.size_prices[0].price
    price = product.size_prices[0].price.current_price
    assert price == Decimal("590")

    # Webhook, through the generated group; verified by the receiver.
    updated = client.webhooks.update_settings(
        organization_id=ORGANIZATION_ID, web_hooks_uri=url, auth_token=TOKEN
    )
    assert updated.correlation_id
    settings = client.webhooks.settings(organization_id=ORGANIZATION_ID)
    assert settings.web_hooks_uri == url

    # Create, wait, read back.
    order_id = str(uuid.uuid4())
    answer = client.deliveries.create(
        organization_id=ORGANIZATION_ID, terminal_group_id=terminal, order=_order(order_id, price=price)
    )
    client.wait(answer, organization_id=ORGANIZATION_ID, timeout=20)
    first = _order_events(handler, order_id, "Unconfirmed")[0]
    assert all(s == 200 for s in handler.statuses)  # type: ignore[attr-defined]
    info = first.event_info
    assert isinstance(info, m.OrderInfo) and info.order is not None
    assert info.order.sum == Decimal("1180") and isinstance(info.order.sum, Decimal)
    assert first.order is not None and first.order.items
    assert isinstance(first.order.items[0], m.OrderProductOrderItem)
    assert first.order.phone == "+79161234567"
    back = client.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[order_id])
    assert back.orders and back.orders[0].order and back.orders[0].order.sum == Decimal("1180")

    # Cancel: a command, then an event with the new status.
    cancelled = client.deliveries.cancel(organization_id=ORGANIZATION_ID, order_id=order_id)
    client.wait(cancelled, organization_id=ORGANIZATION_ID, timeout=20)
    last = _order_events(handler, order_id, "Cancelled")[0]
    assert last.event_info is not None and last.event_info.order is not None
    assert last.event_info.order.status == m.DeliveryStatus.CANCELLED
    again = client.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[order_id])
    assert again.orders and again.orders[0].order and again.orders[0].order.status == "Cancelled"


def test_whole_flow_async(emu: Emulator, receiver: Tuple[str, type]) -> None:
    url, handler = receiver

    async def flow() -> str:
        async with iikocloud.AsyncClient.from_client(emu.client()) as client:
            groups, menu = await asyncio.gather(
                client.terminal_groups(organization_ids=[ORGANIZATION_ID]),
                client.nomenclature(organization_id=ORGANIZATION_ID),
            )
            assert isinstance(groups, m.TerminalGroupsResponse)
            assert isinstance(menu, m.NomenclatureResponse) and menu.products
            await client.webhooks.update_settings(
                organization_id=ORGANIZATION_ID, web_hooks_uri=url, auth_token=TOKEN
            )
            order_id = str(uuid.uuid4())
            answer = await client.deliveries.create(organization_id=ORGANIZATION_ID, order=_order(order_id))
            await client.wait(answer, organization_id=ORGANIZATION_ID, timeout=20)
            back = await client.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[order_id])
            assert back.orders and back.orders[0].order and back.orders[0].order.sum == Decimal("1180")
            cancelled = await client.deliveries.cancel(organization_id=ORGANIZATION_ID, order_id=order_id)
            await client.wait(cancelled, organization_id=ORGANIZATION_ID, timeout=20)
            made = await client.create_delivery_order(
                organization_id=ORGANIZATION_ID, order=_order(str(uuid.uuid4())), timeout=20
            )
            assert made.creation_status == "Success"
            with pytest.raises(iikocloud.CommandFailedError):
                bad = await client.deliveries.create(
                    organization_id=ORGANIZATION_ID, order=_order(str(uuid.uuid4()), product=str(uuid.uuid4()))
                )
                await client.wait(bad, organization_id=ORGANIZATION_ID, timeout=20)
            return order_id

    order_id = asyncio.run(flow())
    event = _order_events(handler, order_id, "Cancelled")[0]
    assert isinstance(event.event_info, m.OrderInfo)


# ------------------------------------------------------------------ the GIL


@pytest.mark.parametrize("what", ["operation", "wait"])
def test_python_keeps_running_during_operations_and_waits(emu: Emulator, what: str) -> None:
    """A held GIL would freeze the counter thread while the core waits."""
    client = emu.client()
    client.ensure_token()
    answer = client.deliveries.create(organization_id=ORGANIZATION_ID, order=_order(str(uuid.uuid4())))
    emu.inject("/api/1/terminal_groups", "delay", delay=0.5)
    emu.inject("/api/1/commands/status", "delay", delay=0.5)
    stop = threading.Event()
    ticks = [0]

    def count() -> None:
        while not stop.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.05)
        before = ticks[0]
        if what == "operation":
            client.terminal_groups(organization_ids=[ORGANIZATION_ID])
        else:
            client.wait(answer, organization_id=ORGANIZATION_ID, timeout=20)
        during = ticks[0] - before
    finally:
        stop.set()
        counter.join()
    assert during > 1000, during
