"""The back-office families of the newer edition through the generated Python
surface, against the emulator (sync and async): groups and products with a
decimal price through the eventually consistent catalogue, an employee hired
and fired, an incoming inventory posted and unposted, and a closed delivery
found in an OLAP sales report."""

from __future__ import annotations

import asyncio
import time
import uuid
from decimal import Decimal
from typing import Any, Callable

import pytest

import iikocloud
from iikocloud import api_models as m
from iikocloud.testing import ORGANIZATION_ID, TERMINAL_GROUP_ID, Emulator

UNIT = "8a1b0e2c-5d6f-4a7b-9c8d-0e1f2a3b4c5d"
MORS = "91e69af5-c0e2-4057-a34b-2e98edbed03e"
PERIOD = {"name": "OpenDate.Typed", "filterType": "DateRange", "from": "2000-01-01", "to": "2100-01-01"}


@pytest.fixture
def office(emu: Emulator) -> Emulator:
    # Short but not zero: the tests must really wait for the catalogue.
    emu.set_catalogue_delay(0.3)
    return emu


def _eventually(what: str, found: Callable[[], bool]) -> float:
    start = time.monotonic()
    while not found():
        assert time.monotonic() - start < 10, f"{what}: not listed after 10 s"
        time.sleep(0.05)
    return time.monotonic() - start


def test_groups_and_products_through_the_catalogue(office: Emulator) -> None:
    client = office.client()
    group = client.nomenclature.group.create(code="G-1", name="Pizza")
    assert group.group_id
    product = client.nomenclature.product.create(
        amount_unit_id=UNIT,
        code="P-1",
        name="Margherita",
        type="DISH",
        parent_group_id=group.group_id,
        default_sale_price=Decimal("590.45"),
    )
    assert product.product_id

    def listed(**filter: Any) -> list[m.NomenclatureProductResponse]:
        answer = client.nomenclature.product.list(filters=[dict(op="eq", **filter)], limit=10, offset=0)
        assert isinstance(answer, m.NomenclatureProductListResponse)
        return list(answer.items or [])

    assert listed(field="id", value=product.product_id) == []
    waited = _eventually("product", lambda: bool(listed(field="id", value=product.product_id)))
    assert waited >= 0.2
    item = listed(field="parentGroupId", value=group.group_id)[0]
    assert item.default_sale_price == Decimal("590.45")
    assert isinstance(item.default_sale_price, Decimal)
    assert item.is_deleted is False

    client.nomenclature.product.delete(product_ids=[product.product_id])
    _eventually("deleted product", lambda: listed(field="isDeleted", value=True) != [])
    client.nomenclature.product.restore(product_ids=[product.product_id])
    _eventually("restored product", lambda: listed(field="isDeleted", value=False) != [])

    with pytest.raises(iikocloud.BadRequestError) as raised:
        client.nomenclature.group.delete(group_ids=[str(uuid.uuid4())])
    assert "not found" in str(raised.value)


def test_employee_inventory_and_olap(office: Emulator) -> None:
    client = office.client()
    hired = client.employees.employee.create(code="E-7", main_organization_id=ORGANIZATION_ID, last_name="Petrova")
    assert hired.id and hired.is_fired is False
    fired = client.employees.employee.fire(ids=[hired.id])
    assert fired.fired_ids == [hired.id]
    assert client.employees.employee.get(id=hired.id).is_fired is True

    draft = client.inventory.incoming_inventory.create(
        organization_id=ORGANIZATION_ID,
        store=str(uuid.uuid4()),
        date="2026-11-23T10:00:00",
        items=[],
        items_first_step=[],
    )
    assert draft.document_id
    doc = {"organization_id": ORGANIZATION_ID, "document_id": draft.document_id}
    client.inventory.incoming_inventory.post(**doc)
    assert client.inventory.incoming_inventory.get(**doc).status == "PROCESSED"
    client.inventory.incoming_inventory.unpost(**doc)
    assert client.inventory.incoming_inventory.get(**doc).status == "NEW"

    made = client.create_delivery_order(
        organization_id=ORGANIZATION_ID,
        terminal_group_id=TERMINAL_GROUP_ID,
        order=m.DeliveryOrder(
            phone="+79161234567",
            items=[m.CreateOrderProductOrderItem(product_id=MORS, amount=Decimal("3"), price=Decimal("99.9"))],
        ),
        timeout=20,
    )
    closed = client.deliveries.close(organization_id=ORGANIZATION_ID, order_id=made.id)
    client.wait(closed, organization_id=ORGANIZATION_ID, timeout=20)
    report = client.reporting.olap.get(
        report_type="SALES",
        aggregate_fields=["DishSumInt"],
        group_by_row_fields=["Delivery.Status"],
        filters=[PERIOD],
        build_summary=True,
    )
    rows = list(report.data or [])
    assert len(rows) == 1
    assert rows[0]["Delivery.Status"] == "Closed"
    assert Decimal(str(rows[0]["DishSumInt"])) == Decimal("299.7")


def test_the_same_back_office_flow_async(office: Emulator) -> None:
    async def flow() -> None:
        async with iikocloud.AsyncClient.from_client(office.client()) as client:
            group = await client.nomenclature.group.create(code="G-9", name="Drinks")
            product = await client.nomenclature.product.create(
                amount_unit_id=UNIT,
                code="P-9",
                name="Mors",
                type="GOODS",
                parent_group_id=group.group_id,
                default_sale_price=Decimal("99.90"),
            )
            deadline = time.monotonic() + 10
            while True:
                answer = await client.nomenclature.product.list(
                    filters=[{"field": "id", "op": "eq", "value": product.product_id}], limit=10, offset=0
                )
                if answer.items:
                    break
                assert time.monotonic() < deadline, "not listed after 10 s"
                await asyncio.sleep(0.05)
            assert answer.items[0].default_sale_price == Decimal("99.90")
            hired = await client.employees.employee.create(code="E-9", main_organization_id=ORGANIZATION_ID)
            assert hired.id
            fired = await client.employees.employee.fire(ids=[hired.id])
            assert fired.fired_ids == [hired.id]
            events = await client.platform.events.list()
            kinds = {e.event_type for e in events.items or []}
            assert {"NomenclatureGroupCreated", "NomenclatureProductCreated", "EmployeesEmployeeFired"} <= kinds

    asyncio.run(flow())
