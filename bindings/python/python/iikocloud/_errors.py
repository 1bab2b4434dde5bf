"""The exception tree of iikocloud.

Every exception the package raises derives from :class:`IikoError`. They
live in Python so that multiple inheritance (``InvalidInputError`` is also a
``ValueError``) and pickling work as for any Python exception; the native
module takes them when this module is imported (``bind_error_classes``), so a
class it raises that is missing here fails the import.
"""

from __future__ import annotations

import sys
from typing import Optional

__all__ = [
    "IikoError",
    "ApiError",
    "BadRequestError",
    "AuthenticationError",
    "ForbiddenError",
    "NotFoundError",
    "TerminalTimeoutError",
    "RateLimitError",
    "ServerError",
    "TransportError",
    "TlsError",
    "ProxyError",
    "DecodeError",
    "InvalidInputError",
    "CommandError",
    "CommandFailedError",
    "CommandTimeoutError",
    "CommandExpiredError",
    "WebhookVerificationError",
    "WebhookParseError",
]


class IikoError(Exception):
    """Root of every error of the package.

    ``str(error)`` says what failed and, when the service sent one, ends with
    the ``correlationId`` to quote to iiko support. It never contains a secret.
    """

    #: ``correlationId`` of the failed answer, when there was one.
    correlation_id: Optional[str]

    def __init__(self, message: str = "", *, correlation_id: Optional[str] = None) -> None:
        super().__init__(message)
        self.correlation_id = correlation_id

    @property
    def message(self) -> str:
        """The error text (``str(error)``)."""
        return str(self.args[0]) if self.args else ""


class ApiError(IikoError):
    """The service answered with an error status.

    Subclasses by status: 400 :class:`BadRequestError`, 401
    :class:`AuthenticationError`, 403 :class:`ForbiddenError`, 404
    :class:`NotFoundError`, 408 :class:`TerminalTimeoutError`, 429
    :class:`RateLimitError`, 5xx :class:`ServerError`; any other status is a
    plain ``ApiError``.
    """

    #: The HTTP status.
    status: int
    #: The endpoint path that was called, e.g. ``/api/1/organizations``.
    path: str
    #: ``errorDescription`` (or ``message`` in the newer error shape).
    error_description: Optional[str]
    #: ``error``, the service's short error code.
    error_code: Optional[str]
    #: ``Retry-After`` in seconds (429 only, when sent).
    retry_after: Optional[float]
    #: The raw answer body, as text.
    body: str

    def __init__(
        self,
        message: str = "",
        *,
        status: int = 0,
        path: str = "",
        error_description: Optional[str] = None,
        error_code: Optional[str] = None,
        correlation_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        body: str = "",
    ) -> None:
        super().__init__(message, correlation_id=correlation_id)
        self.status = status
        self.path = path
        self.error_description = error_description
        self.error_code = error_code
        self.retry_after = retry_after
        self.body = body


class BadRequestError(ApiError):
    """400: the service rejected the request; see ``error_description``."""


class AuthenticationError(ApiError):
    """401: the credentials were refused (also after one token refresh)."""


class ForbiddenError(ApiError):
    """403: the API key may not use this endpoint or organization."""


class NotFoundError(ApiError):
    """404: no such endpoint or entity (check ``base_url`` and the path)."""


class TerminalTimeoutError(ApiError):
    """408: the restaurant terminal did not answer within the ``Timeout``
    header; it may be offline. The request may still be carried out later."""


class RateLimitError(ApiError):
    """429: too many requests. Never retried automatically (iiko may block an
    API login that keeps retrying); wait ``retry_after`` seconds."""


class ServerError(ApiError):
    """5xx: the service failed. Safe calls were already retried."""


class TransportError(IikoError):
    """No HTTP answer: DNS, connection, TLS, client timeout or a broken
    connection. ``kind`` is one of ``"dns"``, ``"connect"``, ``"tls"``
    (raised as :class:`TlsError`), ``"proxy"`` (:class:`ProxyError`),
    ``"timeout"``, ``"io"``, ``"other"``."""

    kind: str
    path: str

    def __init__(self, message: str = "", *, kind: str = "other", path: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.path = path

    @property
    def is_timeout(self) -> bool:
        """Whether the client timeout ran out."""
        return self.kind == "timeout"


class TlsError(TransportError):
    """TLS failed (``kind == "tls"``). The message names the host and the
    reason in words: a certificate issued by an unknown authority (give its
    root with ``ca_file=``, or install it in the system store), an expired
    certificate, or one that does not name the host."""


class ProxyError(TransportError):
    """The proxy failed (``kind == "proxy"``): it refused the tunnel (407:
    wrong or missing proxy credentials; 403; 502) or could not be reached.
    The message shows the proxy's host and port, never its password."""


class DecodeError(IikoError):
    """A success status with a body that could not be read."""

    status: int
    path: str
    body: str

    def __init__(
        self,
        message: str = "",
        *,
        status: int = 0,
        path: str = "",
        correlation_id: Optional[str] = None,
        body: str = "",
    ) -> None:
        super().__init__(message, correlation_id=correlation_id)
        self.status = status
        self.path = path
        self.body = body


class InvalidInputError(IikoError, ValueError):
    """A bad argument or configuration, refused before anything was sent."""


class CommandError(IikoError):
    """A command (an answer with a ``correlationId``, such as
    ``deliveries.create``) did not succeed while it was waited for.

    ``correlation_id`` names the command (the order's id when the answer that
    carried it was lost and the order itself was followed), ``waited`` is how
    long the client waited, in seconds."""

    #: ``errorReason`` of a failed command.
    reason: Optional[str]
    #: ``exception`` of a failed command, as the JSON text the service sent.
    exception: Optional[str]
    #: Seconds the client waited.
    waited: float

    def __init__(
        self,
        message: str = "",
        *,
        correlation_id: Optional[str] = None,
        reason: Optional[str] = None,
        exception: Optional[str] = None,
        waited: float = 0.0,
    ) -> None:
        super().__init__(message, correlation_id=correlation_id)
        self.reason = reason
        self.exception = exception
        self.waited = waited


class CommandFailedError(CommandError):
    """The service reports that the command failed (``state: Error``);
    ``reason`` says why."""


class CommandTimeoutError(CommandError, TimeoutError):
    """The command was still in progress when the wait ran out. It may yet
    finish: look the order up by its id before creating it again."""


class CommandExpiredError(CommandError):
    """The service no longer knows the ``correlationId`` (HTTP 410)."""


class WebhookVerificationError(IikoError, ValueError):
    """The webhook request is not authentic: missing, malformed or wrong
    ``Authorization`` (or no expected token configured).

    Answer ``error.status``, the status the core's receive rule gives: 401,
    or 500 when the expected token is empty (a misconfigured receiver: the
    service keeps the events and retries). ``error.reason`` names the cause."""

    #: The HTTP status to answer (set by the core's rule).
    status: int
    #: A stable name of the cause, e.g. ``"mismatch"``.
    reason: str


class WebhookParseError(IikoError, ValueError):
    """The webhook request is authentic but its body cannot be read (not
    JSON, not an array of events, too large).

    Answer ``error.status``, the status the core's receive rule gives: 200,
    since the service would resend the very same bytes and a webhook that
    keeps failing is blocked (which stops every event). Log the error and
    keep the body. ``error.reason`` names the cause."""

    #: The HTTP status to answer (set by the core's rule).
    status: int
    #: A stable name of the cause, e.g. ``"invalid_json"``.
    reason: str


for _cls in (
    IikoError,
    ApiError,
    BadRequestError,
    AuthenticationError,
    ForbiddenError,
    NotFoundError,
    TerminalTimeoutError,
    RateLimitError,
    ServerError,
    TransportError,
    TlsError,
    ProxyError,
    DecodeError,
    InvalidInputError,
    CommandError,
    CommandFailedError,
    CommandTimeoutError,
    CommandExpiredError,
    WebhookVerificationError,
    WebhookParseError,
):
    # Users see and catch them as iikocloud.X.
    _cls.__module__ = "iikocloud"
del _cls

from . import _native  # noqa: E402 (the classes above are what it takes)

_native.bind_error_classes(sys.modules[__name__])
