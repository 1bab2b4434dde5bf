"""The blocking client."""

from __future__ import annotations

import json
import os

import datetime as _dt
from decimal import Decimal
from types import TracebackType
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Type, TypedDict, Union

from . import _model, _native
from ._errors import IikoError, InvalidInputError
from ._ops import Ops
from ._telemetry import traced as _traced

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .api_models import CreateOrderSettings, DeliveryOrder, OrderInfo

__all__ = ["Client", "ClientOptions", "DEFAULT_BASE_URL", "Seconds"]

#: The production address of the service (Russia region).
DEFAULT_BASE_URL: str = _native.DEFAULT_BASE_URL

#: A duration: seconds as a number, or a ``datetime.timedelta``.
Seconds = Union[float, int, _dt.timedelta]


def _seconds(value: Optional[Seconds]) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    return float(value)


def _answer_json(name: str, text: str) -> Any:
    """``json.loads(text, parse_float=Decimal)`` of the answer of operation
    ``name``: JSON holding a number Python cannot make (an integer past
    ``sys.get_int_max_str_digits()``, an exponent past ``Decimal``'s) raises
    the :class:`DecodeError` of any unreadable answer, as the natively read
    answers do."""
    try:
        return json.loads(text, parse_float=Decimal)
    except (ValueError, ArithmeticError) as error:
        raise _native.unreadable_answer(name, text, error) from error


class ClientOptions(TypedDict, total=False):
    """The keyword arguments of :class:`Client` and :class:`AsyncClient`,
    all optional; :class:`Client` says what each does. Defaults (the core's;
    a test holds these figures to it): ``base_url`` :data:`DEFAULT_BASE_URL`,
    ``timeout`` 15 s, ``client_timeout`` the timeout + 5 s, ``retries`` 2,
    ``trust`` ``"system"``.

    The one list of them: both classes take ``**options`` of this type, and
    the native client reads the same names."""

    app_id: Optional[str]
    client_secret: Optional[str]
    api_key: Optional[str]
    api_login: Optional[str]
    base_url: str
    timeout: Seconds
    client_timeout: Optional[Seconds]
    retries: int
    max_response_bytes: Optional[int]
    token_cache_dir: Optional["os.PathLike[str] | str"]
    ca_file: Optional["os.PathLike[str] | str"]
    trust: str
    proxy: Optional[str]
    no_proxy: Optional[str]
    token_store: Optional[str]


_OPTION_NAMES = frozenset(ClientOptions.__annotations__)


def _check_options(cls: str, options: Mapping[str, Any]) -> None:
    """Refuses an unknown name, as an explicit signature would."""
    for name in options:
        if name not in _OPTION_NAMES:
            raise TypeError(f"{cls}.__init__() got an unexpected keyword argument {name!r}")


def _native_options(options: Mapping[str, Any]) -> Dict[str, Any]:
    """The options as the native client takes them: durations in seconds."""
    _check_options("Client", options)
    out = dict(options)
    for name in ("timeout", "client_timeout"):
        if name in out:
            out[name] = _seconds(out[name])
    return out


def correlation_id_of(command: Any) -> str:
    """The ``correlationId`` of an answer (a model or a dict) or the id itself."""
    if isinstance(command, str):
        cid: Any = command
    elif isinstance(command, Mapping):
        cid = command.get("correlationId")
    else:
        cid = getattr(command, "correlation_id", None)
    if not isinstance(cid, str) or not cid:
        raise InvalidInputError(
            "wait needs a correlationId: pass the answer of a command or its correlation_id"
        )
    return cid


class Client(Ops):
    """A blocking client of the iikoCloud API.

    Every operation of the official document is a method of its resource
    group: ``client.deliveries.create(organization_id=..., order=...)``,
    ``client.terminal_groups(organization_ids=[...])``,
    ``client.commands.status(...)``. Keyword arguments are the request's
    fields in snake case; answers are the typed, immutable models of
    :mod:`iikocloud.api_models` (``Decimal`` money, terminal-local naive
    ``datetime``). Requests are checked by the core before they are sent.

    Give either the v2 credentials (``app_id``, ``client_secret``,
    ``api_key``) or the legacy ``api_login``. A bad configuration raises
    :class:`InvalidInputError` here, not on the first call.

    The client is safe to share across threads, and should be: all threads
    share one connection pool and one token cache (the token is fetched on the
    first call, cached and refreshed 1 min before it expires; concurrent
    callers wait for one token request). Every call releases the GIL while it
    waits for the network, the token refresh included.

    ``timeout`` is the ``Timeout`` header: how long the service waits for the
    restaurant terminal before answering 408 (default 15 s). The client waits
    ``client_timeout`` for a whole exchange (default the timeout + 5 s, and it
    must be longer). The core reads every value (``client.*`` in
    ``tests/vectors/limits.json``) and refuses what it does not accept with
    :class:`InvalidInputError`. Safe calls (the typed ones, and :meth:`call` with
    ``idempotent=True``) are retried ``retries`` times after a transport error
    or a 5xx; nothing is retried after a 429.

    ``token_cache_dir`` shares the token with other processes through a file
    in that directory (mode 0600, created 0700 if missing): gunicorn or uWSGI
    workers, Celery workers and cron jobs with the same credentials then make
    one token request between them, and a token the service refuses is
    dropped for all of them. ``token_store`` does the same through a shared
    store (``"sqlite:///abs/path.db"`` for one machine,
    ``"redis://[:password@]host:port/db"`` for many): one token request per
    credential set at a time across all of them.

    The service's certificate is verified against the system trust store
    (``trust="system"``, the default; it honours ``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR``) or only the bundled Mozilla roots (``trust="bundled"``);
    ``ca_file`` adds the roots of a PEM file (a corporate or private CA).
    ``proxy`` (``http://[user:password@]host:port``) carries the calls, with
    ``no_proxy`` (comma-separated hosts) bypassing it; without it
    ``HTTPS_PROXY``/``NO_PROXY`` apply. The proxy password never appears in
    ``repr``, logs or errors.

    All of these are keyword arguments, typed by :class:`ClientOptions`.
    """

    __slots__ = ("_native", "_app_id")

    def __init__(self, **options: Unpack[ClientOptions]) -> None:
        self._native: Optional[_native.NativeClient] = _native.NativeClient(
            _native_options(options)
        )
        self._app_id = options.get("app_id")

    @classmethod
    def _wrap(cls, native: _native.NativeClient, app_id: Optional[str]) -> "Client":
        self = cls.__new__(cls)
        self._native = native
        self._app_id = app_id
        return self

    def _n(self) -> _native.NativeClient:
        native = self._native
        if native is None:
            raise IikoError("the client is closed")
        return native

    @property
    def base_url(self) -> str:
        """The base URL in use, without a trailing slash."""
        return self._n().base_url

    @property
    def timeout(self) -> float:
        """The ``Timeout`` header this client sends, in seconds."""
        return self._n().timeout

    def with_timeout(self, timeout: Seconds) -> "Client":
        """A client that sends another ``Timeout`` header (and waits that much
        longer), sharing this one's connections and token."""
        seconds = _seconds(timeout)
        assert seconds is not None
        return Client._wrap(self._n().with_timeout(seconds), self._app_id)

    def _call_op(
        self, name: str, fields: Any, response: str, timeout: Any, allow_unknown_fields: bool = False
    ) -> Any:
        native = self._n()
        request = _model.body(fields)
        if not response or response[0] == "[":
            # No model, or a list of them (a few back-office reads).
            text = _traced(
                native.call_operation,
                name, request, timeout=_seconds(timeout), allow_unknown_fields=allow_unknown_fields
            )
            return _model.load(response, _answer_json(name, text))
        # The answer's text is read into the models natively.
        return _traced(
            native.call_operation_model,
            name,
            request,
            _model.model_class(response),
            timeout=_seconds(timeout),
            allow_unknown_fields=allow_unknown_fields,
        )

    def call_operation(
        self,
        name: str,
        request: Union[str, Mapping[str, Any], None] = None,
        *,
        timeout: Optional[Seconds] = None,
        wait: bool = False,
        wait_timeout: Optional[Seconds] = None,
        allow_unknown_fields: bool = False,
    ) -> Any:
        """Calls the operation ``name`` (``"deliveries.create"``) with a JSON
        request (text or a dict of JSON values, ``Decimal`` allowed), checked
        by the core first; answers the parsed JSON with fractional numbers as
        ``Decimal``. Commands are never retried, reads are.

        Keys, at every depth, are the document's field names
        (``deliveryPoint``) or the models' snake-case ones (``delivery_point``);
        both spellings of one field in one object are refused. Any other key
        is :class:`InvalidInputError` naming its path and the nearest field,
        and nothing is sent, unless ``allow_unknown_fields=True`` (a field
        newer than this SDK, sent as given).

        ``wait=True`` follows a command until it succeeds (up to
        ``wait_timeout``, default 1 min), raising the :class:`CommandError` kinds as
        :meth:`wait` does; ``deliveries.create`` then uses the safe creation
        and answers ``{"orderInfo": ...}`` as read back. An operation that is
        not a command is refused."""
        body: Any = request if isinstance(request, str) or request is None else _model.dump(request)
        if wait:
            text = _traced(
                self._n().call_operation_and_wait,
                name,
                body,
                timeout=_seconds(timeout),
                wait_timeout=_seconds(wait_timeout),
                allow_unknown_fields=allow_unknown_fields,
            )
        else:
            text = _traced(
                self._n().call_operation,
                name, body, timeout=_seconds(timeout), allow_unknown_fields=allow_unknown_fields
            )
        return _answer_json(name, text)

    def wait(
        self,
        command: Any,
        *,
        organization_id: str,
        timeout: Optional[Seconds] = None,
        first_pause: Optional[Seconds] = None,
        max_pause: Optional[Seconds] = None,
    ) -> None:
        """Waits until a command succeeds: ``command`` is its answer (any
        model or dict with a ``correlationId``) or the id itself.

        Polls ``commands/status`` for up to ``timeout`` (default 1 min; first
        after ``first_pause``, 250 ms, each pause 1.5 times longer up to
        ``max_pause``, 5 s). Raises
        :class:`CommandFailedError` when the service reports a failure (with
        its ``reason``), :class:`CommandTimeoutError` when ``timeout`` passes
        first (the command may still finish), :class:`CommandExpiredError`
        when the service no longer knows the id."""
        _traced(
            self._n().wait_command,
            organization_id,
            correlation_id_of(command),
            timeout=_seconds(timeout),
            first_pause=_seconds(first_pause),
            max_pause=_seconds(max_pause),
        )

    def create_delivery_order(
        self,
        *,
        organization_id: str,
        order: "Union[DeliveryOrder, Mapping[str, Any]]",
        terminal_group_id: Optional[str] = None,
        create_order_settings: "Union[CreateOrderSettings, Mapping[str, Any], None]" = None,
        timeout: Optional[Seconds] = None,
        allow_unknown_fields: bool = False,
    ) -> "OrderInfo":
        """Creates a delivery order, waits for its command and reads it back
        (``deliveries/by_id``), never creating it twice: the order gets an id
        before the first attempt (unless ``order`` has one), and a lost
        answer is followed by a look-up by that id before any resend; the
        command is followed for up to ``timeout`` (default 1 min). Raises
        :class:`CommandFailedError` when the creation fails.

        ``order`` as a dict takes the document's field names or the models'
        snake-case ones at every depth; any other key is refused before
        anything is sent unless ``allow_unknown_fields=True``."""
        fields = (
            ("organizationId", organization_id),
            ("terminalGroupId", terminal_group_id),
            ("createOrderSettings", create_order_settings),
            ("order", order),
        )
        _order_id, text = _traced(
            self._n().create_delivery_order,
            _model.body(fields), timeout=_seconds(timeout), allow_unknown_fields=allow_unknown_fields
        )
        return _model.load_json("OrderInfo", text)  # type: ignore[no-any-return]

    def call(
        self,
        path: str,
        body: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[Seconds] = None,
        idempotent: bool = False,
        decimals: bool = False,
    ) -> Any:
        """Calls any endpoint, e.g. ``call("/api/1/nomenclature",
        {"organizationId": org_id}, idempotent=True)``, with the same token
        handling, timeouts and errors as the typed calls.

        ``body`` is a dict of JSON values (``Decimal`` is sent as a number).
        The answer is the parsed JSON; with ``decimals=True`` its fractional
        numbers are ``Decimal`` with every digit the service wrote (read from
        the answer's text, never through a float). Not retried unless ``idempotent=True`` says
        the call is safe to repeat: many calls create orders.
        """
        return _traced(
            self._n().call,
            path,
            None if body is None else dict(body),
            timeout=_seconds(timeout),
            idempotent=idempotent,
            decimals=decimals,
        )

    def token_expires_at(self) -> Optional[_dt.datetime]:
        """When the cached token expires (aware UTC), or None when there is no
        fresh token. Never makes a request and never shows the token."""
        at = self._n().token_expires_at()
        if at is None:
            return None
        return _dt.datetime.fromtimestamp(at, tz=_dt.timezone.utc)

    def ensure_token(self) -> None:
        """Fetches a token now unless a fresh one is cached (to fail fast on
        bad credentials at start-up)."""
        _traced(self._n().ensure_token)

    def close(self) -> None:
        """Releases this handle; calls made afterwards raise :class:`IikoError`.
        The connections close when the last handle sharing them is gone."""
        self._native = None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._native is None

    def __enter__(self) -> "Client":
        self._n()
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._native is None:
            return "<iikocloud.Client closed>"
        who = f"app_id={self._app_id!r}" if self._app_id else "api_login=[redacted]"
        return f"<iikocloud.Client base_url={self.base_url!r} {who} timeout={self.timeout:g}>"

