"""A local stand-in for the iikoCloud service, for your own tests.

:class:`Emulator` starts the emulator of this repository inside the current
process, on a free loopback port, with fixture data and known credentials:
no network, no real credentials. It issues JWT-shaped tokens that expire,
answers 400/401 like the service, injects faults on demand, logs every
request, and delivers webhook events to your receiver with retries.

::

    from iikocloud.testing import Emulator

    with Emulator() as emu:
        client = emu.client()
        orgs = client.organizations()
        emu.inject("/api/1/organizations", "status", status=503)

With pytest, the fixture ``iikocloud_emulator`` (a fresh emulator per test)
is available as soon as the package is installed.
"""

from __future__ import annotations

import datetime as _dt
import json as _json
import os
from types import TracebackType
from typing import Any, Dict, List, Mapping, Optional, Type, Union

from . import _native
from ._async import AsyncClient
from ._client import Client

__all__ = [
    "Emulator",
    "APP_ID",
    "CLIENT_SECRET",
    "API_KEY",
    "EMPTY_API_KEY",
    "API_LOGIN_NAME",
    "ORGANIZATION_ID",
    "SECOND_ORGANIZATION_ID",
    "DISABLED_ORGANIZATION_ID",
    "TERMINAL_GROUP_ID",
]

#: ``appId`` the emulator accepts.
APP_ID: str = _native.EMULATOR_APP_ID
#: ``clientSecret`` the emulator accepts.
CLIENT_SECRET: str = _native.EMULATOR_CLIENT_SECRET
#: API key linked to two enabled organizations and one disabled one.
API_KEY: str = _native.EMULATOR_API_KEY
#: API key linked to no organization.
EMPTY_API_KEY: str = _native.EMULATOR_EMPTY_API_KEY
#: ``apiLoginName`` of :data:`API_KEY`.
API_LOGIN_NAME: str = _native.EMULATOR_API_LOGIN_NAME
#: First enabled organization of the fixtures.
ORGANIZATION_ID: str = _native.EMULATOR_ORGANIZATION_ID
#: Second enabled organization.
SECOND_ORGANIZATION_ID: str = _native.EMULATOR_SECOND_ORGANIZATION_ID
#: The disabled organization.
DISABLED_ORGANIZATION_ID: str = _native.EMULATOR_DISABLED_ORGANIZATION_ID
#: First terminal group of :data:`ORGANIZATION_ID` (stop list balances 0.1 and 12.35).
TERMINAL_GROUP_ID: str = _native.EMULATOR_TERMINAL_GROUP_ID

Seconds = Union[float, int, _dt.timedelta]


def _secs(value: Seconds) -> float:
    return value.total_seconds() if isinstance(value, _dt.timedelta) else float(value)


class Emulator:
    """An emulator running in this process until :meth:`stop` (or the end of
    the ``with`` block).

    ``token_ttl`` sets the lifetime of issued tokens (default 1 h).
    ``fixtures`` replaces the fixture data (a dict or JSON text in the
    emulator's fixture format). ``fast_delivery`` (default) uses short webhook
    delivery timeouts and retry delays (1 s timeout, retries after 0.1, 0.2,
    0.4 s) so tests of receivers run quickly. ``port`` 0 picks a free port.
    ``tls_cert`` and ``tls_key`` (PEM files) make it serve HTTPS, to test a
    client's ``ca_file`` and ``proxy`` setup end to end.
    """

    __slots__ = ("_n",)

    def __init__(
        self,
        *,
        token_ttl: Optional[Seconds] = None,
        fixtures: Union[Mapping[str, Any], str, None] = None,
        fast_delivery: bool = True,
        port: int = 0,
        tls_cert: Optional["os.PathLike[str] | str"] = None,
        tls_key: Optional["os.PathLike[str] | str"] = None,
    ) -> None:
        fixtures_json = fixtures if isinstance(fixtures, (str, type(None))) else _json.dumps(fixtures)
        self._n = _native.NativeEmulator(
            token_ttl=None if token_ttl is None else _secs(token_ttl),
            fixtures_json=fixtures_json,
            fast_delivery=fast_delivery,
            port=port,
            tls_cert=tls_cert,
            tls_key=tls_key,
        )

    # ----- lifecycle -----

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:40123`` (pass as ``base_url``)."""
        return self._n.url

    @property
    def running(self) -> bool:
        """False after :meth:`stop`."""
        return self._n.running

    def stop(self) -> None:
        """Stops the server and its delivery threads (idempotent)."""
        self._n.stop()

    def __enter__(self) -> "Emulator":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<iikocloud.testing.Emulator url={self.url!r} running={self.running}>"

    # ----- credentials and clients -----

    @property
    def credentials(self) -> Dict[str, str]:
        """Keyword arguments for :class:`iikocloud.Client`: ``base_url``,
        ``app_id``, ``client_secret``, ``api_key``."""
        return {
            "base_url": self.url,
            "app_id": APP_ID,
            "client_secret": CLIENT_SECRET,
            "api_key": API_KEY,
        }

    def client(self, **kwargs: Any) -> Client:
        """A :class:`Client` pointed at the emulator with its credentials;
        keyword arguments override (e.g. ``api_key=EMPTY_API_KEY``,
        ``retries=0``)."""
        return Client(**{**self.credentials, **kwargs})

    def async_client(self, **kwargs: Any) -> AsyncClient:
        """An :class:`AsyncClient` pointed at the emulator."""
        return AsyncClient(**{**self.credentials, **kwargs})

    # ----- request log, faults, tokens -----

    def requests(self) -> List[Dict[str, Any]]:
        """The API requests served so far, oldest first: ``method``, ``path``,
        ``status``, ``correlationId``, ``fault``, ``authorized``, ``at``,
        ``userAgent``, ``timeoutHeader``, ``error``."""
        return self._n.requests()

    def request_count(self, path: str) -> int:
        """How many requests were made to exactly this path."""
        return self._n.request_count(path)

    def clear_requests(self) -> None:
        """Empties the request log."""
        self._n.clear_requests()

    def inject(
        self,
        path: str,
        kind: str,
        *,
        times: int = 1,
        status: Optional[int] = None,
        retry_after: Optional[int] = None,
        delay: Optional[Seconds] = None,
    ) -> None:
        """Arms a fault for the next ``times`` requests to ``path`` (``"*"``
        for every API path). ``kind``: ``"status"`` (answer ``status``, e.g.
        503), ``"rate_limited"`` (429 with ``Retry-After: retry_after``),
        ``"delay"`` (wait ``delay`` seconds, then answer), ``"connection_reset"``,
        ``"malformed_body"``, ``"wrong_content_type"``, ``"unauthorized"``."""
        spec: Dict[str, Any] = {"path": path, "kind": kind, "times": times}
        if status is not None:
            spec["status"] = status
        if retry_after is not None:
            spec["retryAfter"] = retry_after
        if delay is not None:
            spec["ms"] = int(_secs(delay) * 1000)
        self._n.inject(spec)

    def faults(self) -> List[Dict[str, Any]]:
        """Faults still armed."""
        return self._n.faults()

    def clear_faults(self) -> None:
        """Disarms every fault."""
        self._n.clear_faults()

    def expire_tokens(self) -> None:
        """Makes every token issued so far expired (the next call gets 401)."""
        self._n.expire_tokens()

    def set_token_ttl(self, ttl: Seconds) -> None:
        """Sets the lifetime of tokens issued from now on."""
        self._n.set_token_ttl(_secs(ttl))

    def set_catalogue_delay(self, delay: Seconds) -> None:
        """How long a nomenclature write (group, product, category) takes to
        show in the list operations, which read an eventually consistent
        catalogue as on the service (about 1 s by default; 0: at once)."""
        self._n.set_catalogue_delay(_secs(delay))

    def reset(self) -> None:
        """Back to the start-up state (logs, faults, webhook settings, orders,
        stop lists); issued tokens stay."""
        self._n.reset()

    # ----- webhooks -----

    def deliveries(self) -> List[Dict[str, Any]]:
        """Webhook delivery attempts so far: ``url``, ``attempt``, ``status``,
        ``error``, ``body`` (parsed), ``eventTypes``, ``outcome``
        (``delivered``, ``failed``, ``gave_up``, ...)."""
        return self._n.deliveries()

    def clear_deliveries(self) -> None:
        """Empties the delivery log."""
        self._n.clear_deliveries()

    def wait_for_deliveries(self, n: int, timeout: Seconds = 5.0, *, delivered: bool = False) -> bool:
        """Waits until ``n`` delivery records exist (with ``delivered``, only
        those answered 200 count). False on timeout."""
        return self._n.wait_for_deliveries(n, _secs(timeout), delivered)

    def wait_for_delivery_idle(self, timeout: Seconds = 5.0) -> bool:
        """Waits until nothing is queued or being delivered."""
        return self._n.wait_for_delivery_idle(_secs(timeout))

    def is_webhook_blocked(self, organization_id: str) -> bool:
        """Whether the organization's webhook was blocked after failures."""
        return self._n.is_webhook_blocked(organization_id)

    def webhook_states(self) -> List[Dict[str, Any]]:
        """State of every webhook: settings, blocked, failures, queue."""
        return self._n.webhook_states()

    def create_delivery_order(self, organization_id: str = ORGANIZATION_ID) -> Dict[str, Any]:
        """Creates a delivery order and sends its ``DeliveryOrderUpdate``.
        Returns ``id``, ``organizationId``, ``number`` and ``events``."""
        return self._n.create_delivery_order(organization_id)

    def set_delivery_status(self, order_id: str, status: str) -> List[Dict[str, Any]]:
        """Moves a created delivery order to ``status`` and sends the update."""
        return self._n.set_delivery_status(order_id, status)

    def trigger(
        self,
        kind: str,
        organization_id: str = ORGANIZATION_ID,
        *,
        code: Optional[str] = None,
        opened: bool = True,
    ) -> List[Dict[str, Any]]:
        """Sends one event: ``kind`` is ``"delivery_error"``,
        ``"reserve_update"``, ``"reserve_error"``, ``"table_order_update"``,
        ``"table_order_error"``, ``"stop_list_change"`` or
        ``"personal_shift"`` (``code`` for errors, ``opened`` for shifts).
        Returns the events sent."""
        return self._n.trigger(kind, organization_id, code, opened)

    def send_event(
        self, event_type: str, event_info: Mapping[str, Any], organization_id: str = ORGANIZATION_ID
    ) -> List[Dict[str, Any]]:
        """Sends one event of any type with this ``eventInfo``."""
        return self._n.send_event(organization_id, event_type, dict(event_info))

    def send_raw(self, body: Any, organization_id: str = ORGANIZATION_ID) -> Any:
        """POSTs ``body`` (any JSON value) to the webhook as is."""
        return self._n.send_raw(organization_id, body)
