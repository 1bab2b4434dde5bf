"""Reads the menu (nomenclature) of an organization into a local price list.

    python examples/python/sync_menu.py             # against a local emulator

Prices are ``Decimal``, exactly as the service sent them; a stop list says
what is out of stock right now.
"""

from __future__ import annotations

import os
import sys
from decimal import Decimal
from typing import Dict, Tuple

import iikocloud


def sync_menu(client: iikocloud.Client, organization_id: str) -> Dict[str, Tuple[str, Decimal]]:
    """``{product id: (name, price)}`` of every priced product."""
    menu = client.nomenclature(organization_id=organization_id)
    prices: Dict[str, Tuple[str, Decimal]] = {}
    for product in menu.products or []:
        for size in product.size_prices or []:
            if product.id and size.price and size.price.current_price is not None:
                prices[product.id] = (product.name or "", size.price.current_price)
                break
    groups = {g.id: g.name for g in menu.groups or []}
    print(f"revision {menu.revision}: {len(prices)} priced products in {len(groups)} groups")
    stopped = client.stop_lists(organization_ids=[organization_id])
    out = {
        item.product_id
        for org in stopped.terminal_group_stop_lists or []
        for group in org.items or []
        for item in group.items or []
        if item.product_id
    }
    for pid, (name, price) in sorted(prices.items(), key=lambda kv: kv[1][0]):
        print(f"{name:32} {price:>10}{'  (stopped)' if pid in out else ''}")
    return prices


def main() -> int:
    if os.environ.get("IIKO_APP_ID"):
        client = iikocloud.Client(
            app_id=os.environ["IIKO_APP_ID"],
            client_secret=os.environ["IIKO_CLIENT_SECRET"],
            api_key=os.environ["IIKO_API_KEY"],
        )
        sync_menu(client, os.environ["IIKO_ORGANIZATION_ID"])
        return 0
    from iikocloud.testing import ORGANIZATION_ID, Emulator

    with Emulator() as emu:
        sync_menu(emu.client(), ORGANIZATION_ID)
    return 0


if __name__ == "__main__":
    sys.exit(main())
