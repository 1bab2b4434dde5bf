"""Sends a command (moves an order along), then waits for its outcome, in asyncio.

    python examples/python/wait_command.py          # against a local emulator

Commands answer a ``correlationId`` at once; the terminal does the work
later. ``client.wait`` polls ``commands/status`` with growing pauses and
raises ``CommandFailedError`` or ``CommandTimeoutError``.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from decimal import Decimal

import iikocloud
from iikocloud import api_models as m

PIZZA = "b1e604c4-586f-4a06-b3d0-ff67e6c542a2"


async def run(client: iikocloud.AsyncClient, organization_id: str) -> int:
    order_id = str(uuid.uuid4())
    created = await client.deliveries.create(
        organization_id=organization_id,
        order={
            "id": order_id,
            "phone": "+79161234567",
            "items": [{"type": "Product", "productId": PIZZA, "amount": 1, "price": Decimal("590")}],
        },
    )
    print(f"create: correlationId {created.correlation_id}")
    try:
        await client.wait(created, organization_id=organization_id, timeout=30)
        confirmed = await client.deliveries.confirm(organization_id=organization_id, order_id=order_id)
        await client.wait(confirmed, organization_id=organization_id, timeout=30)
    except iikocloud.CommandFailedError as e:
        print(f"command failed: {e.reason}", file=sys.stderr)
        return 1
    except iikocloud.CommandTimeoutError as e:
        print(f"still running after {e.waited:.1f} s; look the order up later", file=sys.stderr)
        return 2
    found = await client.deliveries.by_id(organization_id=organization_id, order_ids=[order_id])
    order = found.orders[0].order if found.orders else None
    status = order.status if order else None
    if status is None:
        return 1
    known = "a documented status" if status.is_known else "a status this version does not know"
    print(f"order {order_id}: {status} ({known}; new orders are {m.DeliveryStatus.UNCONFIRMED})")
    return 0


def main() -> int:
    from iikocloud.testing import ORGANIZATION_ID, Emulator

    async def go(emu: Emulator) -> int:
        async with iikocloud.AsyncClient.from_client(emu.client()) as client:
            return await run(client, ORGANIZATION_ID)

    with Emulator() as emu:
        return asyncio.run(go(emu))


if __name__ == "__main__":
    sys.exit(main())
