"""Creates a delivery order, waits for the terminal to take it and reads it back.

    python examples/python/create_order.py          # against a local emulator
    IIKO_APP_ID=... IIKO_CLIENT_SECRET=... IIKO_API_KEY=... IIKO_ORGANIZATION_ID=... \\
    IIKO_PRODUCT_ID=... python examples/python/create_order.py

``create_delivery_order`` gives the order its id before sending, so a lost
answer is followed by a look-up, never by a second order.
"""

from __future__ import annotations

import os
import sys
from decimal import Decimal

import iikocloud
from iikocloud import api_models as m


def create_order(client: iikocloud.Client, organization_id: str, product_id: str) -> int:
    menu = client.nomenclature(organization_id=organization_id)
    product = next((p for p in menu.products or [] if p.id == product_id), None)
    if product is None or not product.size_prices or product.size_prices[0].price is None:
        print(f"product {product_id} is not on the menu", file=sys.stderr)
        return 1
    price: Decimal = product.size_prices[0].price.current_price or Decimal(0)
    order = m.DeliveryOrder(
        phone="+79161234567",
        comment="ring twice",
        items=[m.CreateOrderProductOrderItem(product_id=product_id, amount=Decimal(2), price=price)],
    )
    try:
        info = client.create_delivery_order(organization_id=organization_id, order=order, timeout=60)
    except iikocloud.CommandFailedError as e:
        print(f"the terminal refused the order: {e.reason}", file=sys.stderr)
        return 1
    except iikocloud.IikoError as e:
        print(f"failed: {e}", file=sys.stderr)
        return 1
    assert info.order is not None
    print(f"order {info.id}: {info.creation_status}, status {info.order.status}, sum {info.order.sum}")
    return 0


def main() -> int:
    if os.environ.get("IIKO_APP_ID"):
        client = iikocloud.Client(
            app_id=os.environ["IIKO_APP_ID"],
            client_secret=os.environ["IIKO_CLIENT_SECRET"],
            api_key=os.environ["IIKO_API_KEY"],
        )
        return create_order(client, os.environ["IIKO_ORGANIZATION_ID"], os.environ["IIKO_PRODUCT_ID"])
    from iikocloud.testing import ORGANIZATION_ID, Emulator

    with Emulator() as emu:
        return create_order(emu.client(), ORGANIZATION_ID, "b1e604c4-586f-4a06-b3d0-ff67e6c542a2")


if __name__ == "__main__":
    sys.exit(main())
