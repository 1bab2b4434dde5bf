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


def test_the_peer_client_reads_the_dictionaries_and_orders_from_them(emu: Emulator) -> None:
    """Every dictionary read parses into the peer's models, and an order of
    a size, a modifier, a payment type and an order type read from them is
    created and read back with their names."""

    async def main() -> None:
        auth = AppAuth(api_key=API_KEY, app_id=APP_ID, client_secret=CLIENT_SECRET)
        orgs = [ORGANIZATION_ID]
        async with IikoCloud(auth=auth, base_url=emu.url) as iiko:
            menu = await iiko.nomenclature(organization_id=ORGANIZATION_ID)
            sizes = {s.id: s.name for s in menu.sizes}
            pizza = next(p for p in menu.products if p.name == "Pizza Four Cheese")
            small = next(sp for sp in pizza.size_prices if sizes.get(sp.size_id) == "25 cm")
            crust = pizza.group_modifiers[0]
            thin = next(
                p for p in menu.products if p.name == "Thin crust" and p.id in {c.id for c in crust.child_modifiers}
            )
            payments = await iiko.payment_types(organization_ids=orgs)
            card = next(p for p in payments.payment_types if p.name == "Bank card")
            assert card.terminal_groups and str(card.payment_type_kind) == "Card"
            types = await iiko.deliveries.order_types(organization_ids=orgs)
            pickup = next(t for t in types.order_types[0].items if t.name == "Pickup")
            assert (await iiko.menu()).external_menus
            assert (await iiko.discounts(organization_ids=orgs)).discounts[0].items
            assert (await iiko.removal_types(organization_ids=orgs)).removal_types
            assert (await iiko.tips_types()).tips_types
            assert (await iiko.marketing_sources(organization_ids=orgs)).marketing_sources
            assert (await iiko.regions(organization_ids=orgs)).regions[0].items
            cities = await iiko.cities(organization_ids=orgs)
            moscow = next(c for c in cities.cities[0].items if c.name == "Moscow")
            streets = await iiko.streets.by_city(organization_id=ORGANIZATION_ID, city_id=moscow.id)
            assert "Tverskaya" in {s.name for s in streets.streets}
            couriers = await iiko.employees.couriers(organization_ids=orgs)
            assert couriers.employees[0].items
            roles = await iiko.employees.couriers.by_role(organization_ids=orgs, roles_to_check=["COURIER"])
            assert roles.employees_with_check_roles[0].items
            combos = await iiko.combo(organization_id=ORGANIZATION_ID)
            assert combos.combo_specifications and combos.combo_categories
            zones = await iiko.delivery_restrictions(organization_ids=orgs)
            assert zones.delivery_restrictions[0].delivery_zones
            program = await iiko.loyalty.program(organization_id=ORGANIZATION_ID)
            assert program.programs
            assert (await iiko.loyalty.customer_category(organization_id=ORGANIZATION_ID)).guest_categories
            guest = await iiko.loyalty.customer.info(
                body={"type": "phone", "phone": "+79161234567", "organizationId": ORGANIZATION_ID}
            )
            assert guest.name == "Anna" and guest.wallet_balances

            price = small.price.current_price
            created = await iiko.deliveries.create(
                organization_id=ORGANIZATION_ID,
                order={
                    "phone": "+79160000000",
                    "orderTypeId": pickup.id,
                    "items": [
                        {
                            "type": "Product",
                            "productId": pizza.id,
                            "productSizeId": small.size_id,
                            "amount": 1,
                            "price": price,
                            "modifiers": [{"productId": thin.id, "amount": 1, "productGroupId": crust.id}],
                        }
                    ],
                    "payments": [{"paymentTypeKind": "Card", "sum": price, "paymentTypeId": card.id}],
                },
            )
            await iiko.wait(created, organization_id=ORGANIZATION_ID, poll_interval=0.05)
            found = await iiko.deliveries.by_id(organization_id=ORGANIZATION_ID, order_ids=[created.order_info.id])
            order = found.orders[0].order
            assert order is not None
            item = order.items[0]
            assert item.product.name == "Pizza Four Cheese"
            assert item.size is not None and item.size.name == "25 cm"
            assert [m.product.name for m in item.modifiers or []] == ["Thin crust"]
            assert order.payments[0].payment_type.name == "Bank card"
            assert order.order_type is not None and order.order_type.name == "Pickup"
            assert order.sum == Decimal(str(price))

    asyncio.run(main())
