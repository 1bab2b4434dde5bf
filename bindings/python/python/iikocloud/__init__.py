"""iikocloud: client, webhook tools and a local emulator for the iikoCloud
(iikoTransport) API, on a Rust core.

* :class:`Client` (blocking, thread-safe) and :class:`AsyncClient` (asyncio),
  every operation a method of its resource group
  (``client.deliveries.create(...)``), answering the typed models of
  :mod:`iikocloud.api_models`;
* :mod:`iikocloud.webhooks`: verify, parse and de-duplicate webhook requests;
* :class:`Inbox`: a durable inbox (SQLite or Redis) between the webhook
  handler and the workers;
* :mod:`iikocloud.testing`: an in-process emulator of the service for tests;
* one exception tree rooted at :class:`IikoError`.

Logs go to the standard :mod:`logging` logger ``iikocloud`` (one ``DEBUG``
line per request: method, path, status, duration, correlationId; never a
secret or a body).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._client import DEFAULT_BASE_URL, Client
from ._inbox import DeadLetter, Delivery, Inbox, InboxCounts, Received
from ._model import Model, OpenEnum
from ._errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    DecodeError,
    ForbiddenError,
    IikoError,
    InvalidInputError,
    CommandError,
    CommandExpiredError,
    CommandFailedError,
    CommandTimeoutError,
    NotFoundError,
    RateLimitError,
    ServerError,
    TerminalTimeoutError,
    TransportError,
    TlsError,
    ProxyError,
    WebhookParseError,
    WebhookVerificationError,
)
from ._native import __version__

if TYPE_CHECKING:
    from ._async import AsyncClient

__all__ = [
    "AsyncClient",
    "Client",
    "DeadLetter",
    "Delivery",
    "Inbox",
    "InboxCounts",
    "Received",
    "CommandError",
    "CommandExpiredError",
    "CommandFailedError",
    "CommandTimeoutError",
    "Model",
    "OpenEnum",
    "operations",
    "DEFAULT_BASE_URL",
    "ApiError",
    "AuthenticationError",
    "BadRequestError",
    "DecodeError",
    "ForbiddenError",
    "IikoError",
    "InvalidInputError",
    "NotFoundError",
    "RateLimitError",
    "ServerError",
    "TerminalTimeoutError",
    "TransportError",
    "TlsError",
    "ProxyError",
    "WebhookParseError",
    "WebhookVerificationError",
    "__version__",
]


def operations() -> "list[tuple[str, str, str, bool, bool, bool, str | None]]":
    """Every operation the core knows: ``(name, method, path, command,
    safe_to_retry, deprecated, restriction_group)``."""
    from ._native import operations as _operations

    return list(_operations())


def __getattr__(name: str) -> Any:
    # The generated models load on first use: `iikocloud.api_models`. The
    # asyncio client too: asyncio is most of the import time of a program
    # that only parses webhooks or makes blocking calls.
    if name == "api_models":
        import importlib

        return importlib.import_module("iikocloud.api_models")
    if name == "AsyncClient":
        from . import _async

        value = getattr(_async, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'iikocloud' has no attribute {name!r}")
