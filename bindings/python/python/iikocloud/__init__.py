"""iikocloud: client, webhook tools and a local emulator for the iikoCloud
(iikoTransport) API, on a Rust core.

* :class:`Client` (blocking, thread-safe) and :class:`AsyncClient` (asyncio);
* :mod:`iikocloud.webhooks`: verify, parse and de-duplicate webhook requests;
* :mod:`iikocloud.testing`: an in-process emulator of the service for tests;
* one exception tree rooted at :class:`IikoError`.

Logs go to the standard :mod:`logging` logger ``iikocloud`` (one ``DEBUG``
line per request: method, path, status, duration, correlationId; never a
secret or a body).
"""

from __future__ import annotations

from . import models
from ._async import AsyncClient
from ._client import DEFAULT_BASE_URL, Client
from ._errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    DecodeError,
    ForbiddenError,
    IikoError,
    InvalidInputError,
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

__all__ = [
    "AsyncClient",
    "Client",
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
    "models",
    "__version__",
]
