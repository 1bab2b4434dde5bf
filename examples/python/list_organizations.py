"""Lists the organizations an API key can see.

    python examples/python/list_organizations.py            # against a local emulator
    IIKO_APP_ID=... IIKO_CLIENT_SECRET=... IIKO_API_KEY=... \\
        python examples/python/list_organizations.py        # against the service

Without credentials in the environment it starts the in-process emulator, so
it runs anywhere with no network.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

import iikocloud
from iikocloud import api_models as m


def list_organizations(client: iikocloud.Client) -> int:
    try:
        orgs = client.organizations(return_additional_info=True)
    except iikocloud.RateLimitError as e:
        print(f"rate limited; retry after {e.retry_after} s", file=sys.stderr)
        return 2
    except iikocloud.IikoError as e:
        # The message ends with the correlationId to quote to iiko support.
        print(f"failed: {e}", file=sys.stderr)
        return 1
    found = orgs.organizations or []
    for org in found:
        # `return_additional_info=True` answers the Extended variant.
        currency = org.currency_iso_name if isinstance(org, m.ExtendedOrganizationInfo) else None
        print(f"{org.id}  {org.name or '-'}  {currency or ''}")
    print(f"{len(found)} organizations (correlationId {orgs.correlation_id})")
    return 0


def main() -> int:
    app_id: Optional[str] = os.environ.get("IIKO_APP_ID")
    if app_id:
        with iikocloud.Client(
            app_id=app_id,
            client_secret=os.environ["IIKO_CLIENT_SECRET"],
            api_key=os.environ["IIKO_API_KEY"],
            base_url=os.environ.get("IIKO_BASE_URL", iikocloud.DEFAULT_BASE_URL),
        ) as client:
            return list_organizations(client)
    from iikocloud.testing import Emulator

    with Emulator() as emu, emu.client() as client:
        print(f"(no IIKO_APP_ID set: using the local emulator at {emu.url})")
        return list_organizations(client)


if __name__ == "__main__":
    sys.exit(main())
