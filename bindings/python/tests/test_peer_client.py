"""A client nobody here wrote, generated from the official document
(``iikocloudapi`` from PyPI, pydantic models), runs a whole integration
against the emulator unmodified: dictionaries, the menu, a delivery order
created, its command awaited, the order read back. Its models check every
answer, so each must really fit the document."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from iikocloudapi import AppAuth, IikoCloud

from iikocloud.testing import API_KEY, APP_ID, CLIENT_SECRET, ORGANIZATION_ID, Emulator


def test_a_generated_peer_client_runs_a_whole_integration(emu: Emulator) -> None:
    async def main() -> None:
        auth = AppAuth(api_key=API_KEY, app_id=APP_ID, client_secret=CLIENT_SECRET)
        async with IikoCloud(auth=auth, base_url=emu.url) as iiko:
            orgs = await iiko.organizations()
            assert ORGANIZATION_ID in {o.id for o in orgs.organizations}
            groups = await iiko.terminal_groups(organization_ids=[ORGANIZATION_ID])
            assert groups.terminal_groups
            await iiko.payment_types(organization_ids=[ORGANIZATION_ID])
            await iiko.deliveries.order_types(organization_ids=[ORGANIZATION_ID])
            await iiko.cancel_causes(organization_ids=[ORGANIZATION_ID])
            menu = await iiko.nomenclature(organization_id=ORGANIZATION_ID)
            product = menu.products[0]

            created = await iiko.deliveries.create(
                organization_id=ORGANIZATION_ID,
                order={
                    "phone": "+79160000000",
                    "items": [
                        {"type": "Product", "productId": product.id, "amount": 2, "price": Decimal("590")}
                    ],
                },
            )
            await iiko.wait(created, organization_id=ORGANIZATION_ID, poll_interval=0.05)
            order_id = created.order_info.id
            found = await iiko.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[order_id])
            assert [o.id for o in found.orders] == [order_id]
            order = found.orders[0].order
            assert order is not None
            assert str(order.status) == "Unconfirmed"
            assert order.sum == Decimal("1180")

    asyncio.run(main())
