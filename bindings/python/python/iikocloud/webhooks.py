"""Receiving iikoCloud webhooks: verify, parse, de-duplicate, order.

The service posts a JSON array of events to your ``webHooksUri`` with the
``authToken`` you configured in the ``Authorization`` header. It counts
anything but a prompt 200 as a failed delivery, resends, and eventually
blocks a webhook that keeps failing (which stops *every* event). So:

1. call :func:`receive` with the raw headers and body; it checks the token in
   constant time and only then parses;
2. answer ``receipt.status`` at once (200, or 401 for a bad token, 500 when
   your expected token is empty; an authentic but unreadable body is also
   answered 200, since a resend would bring the same bytes: log it). The
   core decides it; :data:`RECEIVE_STATUSES` lists what it can answer;
3. hand the events to a queue and work afterwards;
4. drop repeats with a :class:`Deduplicator` (the service sends no event id;
   :attr:`Event.dedup_key` is inferred from ``eventInfo.id`` and
   ``timestamp``; store it yourself to de-duplicate across restarts);
5. skip stale order and reserve events with an :class:`OrderingGuard`.

Events are typed, one class per ``eventType``, with :class:`UnknownEvent`
for types this version does not model and :class:`InvalidEvent` for an
element that cannot be read (its neighbours are unaffected). Amounts are
``Decimal``; ``event_time`` is an aware UTC ``datetime``; ``event_info`` is
the ``eventInfo`` read into the generated model of its type
(:class:`~iikocloud.api_models.OrderInfo` for delivery orders,
``TableOrderInfo``, ``ReserveInfo``, ``WebHookOnStopListChangeData``,
``PersonalShift``; the table comes from the document), so
``event.event_info.order.sum`` is a ``Decimal``; ``raw_event_info`` is the
dict as sent. Local times in it are naive ``datetime`` values in the
terminal's time zone.
"""

from __future__ import annotations

import datetime as _dt
import json as _json
from decimal import Decimal
from typing import (
    Any,
    ClassVar,
    Dict,
    Iterable,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
    TYPE_CHECKING,
)

from ._ops import EVENT_INFO_MODELS

if TYPE_CHECKING:
    from . import api_models as _m

from . import _model, _native, _telemetry
from ._errors import IikoError, WebhookParseError, WebhookVerificationError

__all__ = [
    "Event",
    "DeliveryOrderUpdate",
    "DeliveryOrderError",
    "TableOrderUpdate",
    "TableOrderError",
    "ReserveUpdate",
    "ReserveError",
    "StopListUpdate",
    "PersonalShift",
    "UnknownEvent",
    "InvalidEvent",
    "Receipt",
    "Deduplicator",
    "OrderingGuard",
    "Ordering",
    "parse",
    "parse_event",
    "verify",
    "verify_headers",
    "receive",
    "WebhookParseError",
    "WebhookVerificationError",
    "STATUS_ACCEPTED",
    "STATUS_UNAUTHORIZED",
    "STATUS_RECEIVER_FAULT",
    "STATUS_RETRY_LATER",
    "RECEIVE_STATUSES",
    "INBOX_RECEIVE_STATUSES",
]

#: The status of an accepted request (events read, or an authentic body that
#: cannot be read: a resend would bring the same bytes).
STATUS_ACCEPTED: int = _native.STATUS_ACCEPTED
#: The status of a request that failed verification.
STATUS_UNAUTHORIZED: int = _native.STATUS_UNAUTHORIZED
#: The status when the receiver is at fault (its expected token is empty).
STATUS_RECEIVER_FAULT: int = _native.STATUS_RECEIVER_FAULT
#: The status when the events could not be stored (the service resends).
STATUS_RETRY_LATER: int = _native.STATUS_RETRY_LATER
#: Every status :func:`receive` can answer, by the core's receive rule.
RECEIVE_STATUSES: Tuple[int, ...] = tuple(_native.RECEIVE_STATUSES)
#: Every status :meth:`iikocloud.Inbox.receive` can answer.
INBOX_RECEIVE_STATUSES: Tuple[int, ...] = tuple(_native.INBOX_RECEIVE_STATUSES)

#: Raw body: the bytes as received (preferred), or text.
Body = Union[bytes, bytearray, memoryview, str]
#: Request headers: a mapping (Flask, Starlette, Django, dict) or pairs.
Headers = Union[Mapping[str, Any], Iterable[Tuple[Any, Any]]]


class Event(_native.NativeEvent):
    """One webhook event. Subclasses add the fields of their type.

    Made only by :func:`parse`, :func:`parse_event` and the receivers: the
    parsed event is the native base class's part of the object.
    """

    # The native parse writes these slots itself (`EVENT_SLOTS` in
    # src/webhook.rs): the first reads of event_info and raw_event_info.
    __slots__ = ("_info", "_typed")
    _info: Any
    _typed: Any

    #: The ``eventType`` this class stands for (``None`` on the generic ones).
    EVENT_TYPE: ClassVar[Optional[str]] = None

    @property
    def event_type(self) -> Optional[str]:
        """``eventType`` as sent (also for unknown types)."""
        return self._event_type

    @property
    def event_time(self) -> Optional[_dt.datetime]:
        """``eventTime`` as an aware UTC datetime (None if absent or unreadable;
        the text is in :attr:`event_time_raw`)."""
        return self._event_time

    @property
    def event_time_raw(self) -> Optional[str]:
        """``eventTime`` exactly as sent."""
        return self._event_time_raw

    @property
    def organization_id(self) -> Optional[str]:
        """``organizationId``."""
        return self._organization_id

    @property
    def correlation_id(self) -> Optional[str]:
        """``correlationId`` of the operation that caused the event."""
        return self._correlation_id

    @property
    def raw_json(self) -> str:
        """The event's JSON exactly as it appeared in the body."""
        return self._raw_json

    @property
    def event_info(self) -> Any:
        """The ``eventInfo`` as the generated model of this event type (see
        the subclasses), or the raw dict for a type without one; None when
        absent. Read on first access."""
        return self._typed_info()

    def _typed_info(self) -> Any:
        if type(self).EVENT_TYPE is None:
            # A generic class has no model: the plain reading.
            return self.raw_event_info
        # A class with an EVENT_TYPE is made for events of that type: the
        # model of the event's kind is the class's. A native getter that
        # knows the model reads it from the event's JSON on first use (None
        # when absent or no object) and keeps it in the `_typed` slot.
        return self._typed_event_info

    @property
    def raw_event_info(self) -> Any:
        """The ``eventInfo`` as sent (a dict, None when absent, or the value of
        another type an unreadable event carries), fractional numbers as
        ``Decimal``. Parsed on first access.

        Raises :class:`WebhookParseError` (``reason``
        ``"unreadable_event_info"``, ``status`` 200) when it holds a number
        Python cannot make, as ``json.loads`` refuses it: an integer of more
        digits than ``sys.get_int_max_str_digits()`` allows, or an exponent
        past what ``Decimal`` holds. So does :attr:`event_info` of the events
        it is the reading of (:class:`UnknownEvent`, :class:`InvalidEvent`)."""
        # Read natively where the parse found it, kept in the `_info` slot;
        # the reference reading for what the native reader leaves to
        # json.loads.
        return self._raw_event_info

    @property
    def dedup_key(self) -> str:
        """The key that identifies this event across repeated deliveries
        (stable across processes and versions, so it may be stored)."""
        return self._dedup_key

    @property
    def problem(self) -> Optional[str]:
        """Why the event could not be read (only on :class:`InvalidEvent`)."""
        return self._problem

    def to_dict(self) -> Dict[str, Any]:
        """The whole event as sent, fractional numbers as ``Decimal``.

        Raises :class:`WebhookParseError` (``reason``
        ``"unreadable_event_info"``) when the event holds a number Python
        cannot make, as :attr:`raw_event_info` does."""
        try:
            whole = _native.load_plain(self)
        except (ValueError, ArithmeticError):
            whole = _read_reference(self._raw_json, {})
        return whole if isinstance(whole, dict) else {"value": whole}

    def _repr_fields(self) -> List[Tuple[str, Any]]:
        return []

    def __repr__(self) -> str:
        fields = [("organization_id", self.organization_id)] + self._repr_fields()
        fields.append(("event_time", self.event_time_raw))
        inner = ", ".join(f"{k}={v!r}" for k, v in fields if v is not None)
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return type(self) is type(other) and self.raw_json == other.raw_json

    def __hash__(self) -> int:
        return hash(self.raw_json)

    def __reduce__(self) -> Tuple[Any, Tuple[str]]:
        # Pickled and copied as its JSON, read again when loaded: the native
        # part has no other state, and the slots are what reads fill in.
        return (parse_event, (self._raw_json,))


_MISSING: Any = object()


def _read_reference(raw_json: str, not_json: Any) -> Any:
    """``json.loads(raw_json, parse_float=Decimal)`` of an event's JSON, or
    ``not_json`` when it is no JSON (``parse_event`` keeps any text as an
    unreadable event). JSON holding a number Python cannot make raises
    :class:`WebhookParseError`, whose ``status`` tells a receiver to answer
    200 as for a body that cannot be read (the service would resend the same
    bytes): reading it as nothing would lose the event's data without a
    word."""
    try:
        return _json.loads(raw_json, parse_float=Decimal)
    except _json.JSONDecodeError:
        return not_json
    except (ValueError, ArithmeticError) as e:
        why = _native.refused_value_reason(e)
        error = WebhookParseError(f"the event's JSON cannot be read in Python: {why}")
        error.reason = "unreadable_event_info"
        error.status = STATUS_ACCEPTED
        raise error from e


def _reference_info(raw_json: str) -> Any:
    """The reference reading of ``eventInfo``, for what the native reader
    leaves to ``json.loads`` (NaN, nesting past its limit, numbers Python
    cannot make, for which it raises); None for text that is no JSON."""
    whole = _read_reference(raw_json, None)
    return whole.get("eventInfo") if isinstance(whole, dict) else None


class _EntityEvent(Event):
    """Order and reserve events: one entity with an id and a version."""

    __slots__ = ()

    @property
    def id(self) -> Optional[str]:
        """``eventInfo.id``: the order or reserve id (the same in every event
        about it)."""
        return self._entity_id

    @property
    def timestamp(self) -> Optional[int]:
        """``eventInfo.timestamp``: a version that grows with every change of
        the entity (compare, never interpret)."""
        return self._timestamp

    @property
    def external_number(self) -> Optional[str]:
        """``eventInfo.externalNumber``."""
        return self._external_number

    @property
    def creation_status(self) -> Optional[str]:
        """``Success``, ``InProgress`` or ``Error`` (or a newer value, as sent)."""
        return self._creation_status

    @property
    def error_code(self) -> Optional[str]:
        """``errorInfo.code`` when creation failed."""
        return self._error_code

    @property
    def error_message(self) -> Optional[str]:
        """``errorInfo.message`` (or the deprecated ``description``)."""
        return self._error_message

    @property
    def error_info(self) -> Optional["_m.ErrorInfo"]:
        """``eventInfo.errorInfo``, typed (code, message, description)."""
        value = getattr(self._typed_info(), "error_info", None)
        return value if isinstance(value, _model.Model) else None  # type: ignore[return-value]

    @property
    def status(self) -> Optional[str]:
        """The order's or reserve's status, as sent."""
        return self._status

    @property
    def phone(self) -> Optional[str]:
        """The customer phone."""
        return self._phone

    def _repr_fields(self) -> List[Tuple[str, Any]]:
        return [
            ("id", self.id),
            ("timestamp", self.timestamp),
            ("creation_status", self.creation_status),
            ("status", self.status),
            ("error_code", self.error_code),
        ]


class _OrderEvent(_EntityEvent):
    __slots__ = ()

    @property
    def order_id(self) -> Optional[str]:
        """Same as :attr:`id`."""
        return self._entity_id

    @property
    def pos_id(self) -> Optional[str]:
        """``eventInfo.posId``: the id in the restaurant's POS."""
        return self._pos_id

    @property
    def number(self) -> Optional[int]:
        """The order number."""
        return self._order_number

    @property
    def sum(self) -> Optional[Decimal]:
        """The order total, exact."""
        return self._sum



class DeliveryOrderUpdate(_OrderEvent):
    """A delivery order was created or changed."""

    __slots__ = ()
    EVENT_TYPE = "DeliveryOrderUpdate"

    @property
    def event_info(self) -> Optional["_m.OrderInfo"]:
        """``eventInfo`` as :class:`~iikocloud.api_models.OrderInfo`."""
        return self._typed_event_info  # type: ignore[no-any-return]

    @property
    def order(self) -> Optional["_m.OrderOrder"]:
        """``eventInfo.order``, typed (None while in progress or on error)."""
        info = self.event_info
        return None if info is None else info.order

    @property
    def is_new(self) -> bool:
        """Whether this announces a new order: it has an order whose status is
        ``Unconfirmed``, ``WaitCooking`` or ``New``. After an outage the first
        event seen for an order may be later; track seen ids yourself."""
        return self._is_new_delivery_order


class DeliveryOrderError(_OrderEvent):
    """A delivery order could not be saved; see ``error_code``."""

    __slots__ = ()
    EVENT_TYPE = "DeliveryOrderError"

    @property
    def event_info(self) -> Optional["_m.OrderInfo"]:
        """``eventInfo`` as :class:`~iikocloud.api_models.OrderInfo`."""
        return self._typed_event_info  # type: ignore[no-any-return]

    @property
    def order(self) -> Optional["_m.OrderOrder"]:
        """``eventInfo.order``, typed (None on error)."""
        info = self.event_info
        return None if info is None else info.order


class TableOrderUpdate(_OrderEvent):
    """A table (hall) order changed."""

    __slots__ = ()
    EVENT_TYPE = "TableOrderUpdate"

    @property
    def event_info(self) -> Optional["_m.TableOrderInfo"]:
        """``eventInfo`` as :class:`~iikocloud.api_models.TableOrderInfo`."""
        return self._typed_event_info  # type: ignore[no-any-return]

    @property
    def order(self) -> Optional["_m.ResponseTableOrder"]:
        """``eventInfo.order``, typed."""
        info = self.event_info
        return None if info is None else info.order


class TableOrderError(_OrderEvent):
    """A table order could not be saved; see ``error_code``."""

    __slots__ = ()
    EVENT_TYPE = "TableOrderError"

    @property
    def event_info(self) -> Optional["_m.TableOrderInfo"]:
        """``eventInfo`` as :class:`~iikocloud.api_models.TableOrderInfo`."""
        return self._typed_event_info  # type: ignore[no-any-return]

    @property
    def order(self) -> Optional["_m.ResponseTableOrder"]:
        """``eventInfo.order``, typed."""
        info = self.event_info
        return None if info is None else info.order


class _ReserveEvent(_EntityEvent):
    __slots__ = ()

    @property
    def is_deleted(self) -> Optional[bool]:
        """``eventInfo.isDeleted``."""
        return self._reserve_is_deleted

    @property
    def number(self) -> Optional[int]:
        """The banquet order's number, if any."""
        return self._order_number

    @property
    def sum(self) -> Optional[Decimal]:
        """The banquet order's total, exact, if any."""
        return self._sum

    @property
    def event_info(self) -> Optional["_m.ReserveInfo"]:
        """``eventInfo`` as :class:`~iikocloud.api_models.ReserveInfo`."""
        return self._typed_event_info  # type: ignore[no-any-return]

    @property
    def reserve(self) -> Optional["_m.Reserve"]:
        """``eventInfo.reserve``, typed."""
        info = self.event_info
        return None if info is None else info.reserve


class ReserveUpdate(_ReserveEvent):
    """A table reservation or banquet changed."""

    __slots__ = ()
    EVENT_TYPE = "ReserveUpdate"


class ReserveError(_ReserveEvent):
    """A reserve could not be saved; see ``error_code``."""

    __slots__ = ()
    EVENT_TYPE = "ReserveError"


class StopListUpdate(Event):
    """Stop lists changed. The event carries no items: read them with
    ``client.stop_lists(organization_ids=..., terminal_groups_ids=...)``."""

    __slots__ = ()
    EVENT_TYPE = "StopListUpdate"

    @property
    def event_info(self) -> Optional["_m.WebHookOnStopListChangeData"]:
        """``eventInfo`` as
        :class:`~iikocloud.api_models.WebHookOnStopListChangeData`."""
        return self._typed_event_info  # type: ignore[no-any-return]

    @property
    def terminal_groups(self) -> List[Tuple[Optional[str], Optional[bool]]]:
        """``(terminal group id, is_full)`` per changed terminal group."""
        return list(self._stop_list_updates)

    @property
    def terminal_group_ids(self) -> List[str]:
        """Ids of the terminal groups whose stop lists changed."""
        return [tg for tg, _ in self._stop_list_updates if tg is not None]

    def _repr_fields(self) -> List[Tuple[str, Any]]:
        return [("terminal_group_ids", self.terminal_group_ids)]


class PersonalShift(Event):
    """An employee opened or closed a personal shift (no time field: use
    ``event_time``)."""

    __slots__ = ()
    EVENT_TYPE = "PersonalShift"

    @property
    def event_info(self) -> Optional["_m.PersonalShift"]:
        """``eventInfo`` as :class:`iikocloud.api_models.PersonalShift`."""
        return self._typed_event_info  # type: ignore[no-any-return]

    def _shift(self) -> Tuple[Optional[str], Optional[str], Optional[bool], Optional[str]]:
        return self._personal_shift or (None, None, None, None)

    @property
    def employee_id(self) -> Optional[str]:
        """``eventInfo.id``: the employee."""
        return self._shift()[0]

    @property
    def role_id(self) -> Optional[str]:
        """``eventInfo.roleId``."""
        return self._shift()[1]

    @property
    def opened(self) -> Optional[bool]:
        """True when the shift was opened, False when closed."""
        return self._shift()[2]

    @property
    def terminal_group_id(self) -> Optional[str]:
        """``eventInfo.terminalGroupId``."""
        return self._shift()[3]

    def _repr_fields(self) -> List[Tuple[str, Any]]:
        return [("employee_id", self.employee_id), ("opened", self.opened)]


class UnknownEvent(Event):
    """An event type this version does not model (``KitchenOrderUpdate``,
    ``NomenclatureUpdate``, future types): :attr:`event_info` is the raw dict."""

    __slots__ = ()

    #: The ``eventInfo`` as sent: no model to look up for this class, so the
    #: native getter of the plain reading itself (no Python frame).
    event_info = _native.NativeEvent._raw_event_info

    def _repr_fields(self) -> List[Tuple[str, Any]]:
        return [("event_type", self.event_type)]


class InvalidEvent(Event):
    """An element of the body that could not be read (not an object, or a
    known type without a readable ``eventInfo``). :attr:`problem` says why;
    :attr:`raw_json` has the element."""

    __slots__ = ()

    #: The ``eventInfo`` as sent: no model to look up for this class, so the
    #: native getter of the plain reading itself (no Python frame).
    event_info = _native.NativeEvent._raw_event_info

    def _repr_fields(self) -> List[Tuple[str, Any]]:
        return [("event_type", self.event_type), ("problem", self.problem)]


_CLASSES: Dict[str, Type[Event]] = {
    cls.EVENT_TYPE: cls
    for cls in (
        DeliveryOrderUpdate,
        DeliveryOrderError,
        TableOrderUpdate,
        TableOrderError,
        ReserveUpdate,
        ReserveError,
        StopListUpdate,
        PersonalShift,
    )
}
# At run time each typed class's `event_info` is the native getter itself:
# the properties above only call it, and their Python frame was a twentieth
# of a sub-kilobyte body's full read. They stay for type checkers and for
# readers of this file; help() shows the getter's own docstring.
for _typed in _CLASSES.values():
    _typed.event_info = _native.NativeEvent._typed_event_info  # type: ignore[method-assign]
del _typed
# So is every event's `event_time`: the native getter makes the datetime.
Event.event_time = _native.NativeEvent._event_time  # type: ignore[method-assign]

_BY_KIND: Dict[int, Type[Event]] = {
    code: _CLASSES.get(name, UnknownEvent) for code, name in _native.event_kinds()
}


# The native parse makes each event as an instance of its class here (each
# a subclass of the native event, with `Event`'s slots), `_MISSING` in the
# slots until their first read.
_native.set_event_classes(
    InvalidEvent,
    [_BY_KIND[code] for code in range(len(_BY_KIND))],
    _MISSING,
    [EVENT_INFO_MODELS.get(_BY_KIND[code].EVENT_TYPE or "") for code in range(len(_BY_KIND))],
)


# The native functions themselves, not Python functions calling them: a
# Python frame in between was a fifteenth of a sub-kilobyte body's parse.
# Their docstrings are the native module's.
parse = _native.parse
parse_event = _native.parse_event


def verify(authorization: Union[str, bytes, None], token: str) -> None:
    """Checks an ``Authorization`` header value (None when the request had
    none) against your ``authToken``, in constant time. Accepts the token bare
    or as ``Bearer <token>``. An empty expected token rejects everything.

    Raises :class:`WebhookVerificationError` with ``reason``
    (``missing_header``, ``malformed_header``, ``mismatch``,
    ``empty_expected_token``) and ``status`` (401, or 500 for the last: the
    core's rule).
    """
    _native.verify(authorization, token)


def verify_headers(headers: Headers, token: str) -> None:
    """Like :func:`verify`, finding ``Authorization`` among the request
    headers (case-insensitive; a repeated header is malformed)."""
    _native.verify_headers(headers, token)


class Receipt(NamedTuple):
    """What :func:`receive` found. Answer ``status`` at once."""

    #: The HTTP status to answer.
    status: int
    #: The events (empty unless the request was authentic and readable).
    events: List[Event]
    #: Why there are no events: a :class:`WebhookVerificationError` or a
    #: :class:`WebhookParseError` (not raised; log it).
    error: Optional[IikoError]

    @property
    def ok(self) -> bool:
        """Whether the request was authentic and its body readable."""
        return self.error is None


def receive(
    headers: Headers,
    body: Body,
    token: str,
    *,
    max_body_bytes: Optional[int] = None,
    max_depth: Optional[int] = None,
    accept_single_object: bool = True,
) -> Receipt:
    """Verifies the request's ``Authorization`` header against ``token``, then
    parses ``body``. Never raises for a bad request: the returned
    :class:`Receipt` has the status to answer, the events and the error.

    ``headers`` is the framework's header object (Flask ``request.headers``,
    Starlette ``request.headers``), a dict, or ``(name, value)`` pairs;
    ``body`` the raw bytes (Flask ``request.get_data()``, Starlette
    ``await request.body()``). The limits are those of :func:`parse`.
    """
    status, events, error = _native.receive(
        headers,
        body,
        token,
        max_body_bytes=max_body_bytes,
        max_depth=max_depth,
        accept_single_object=accept_single_object,
    )
    return Receipt(status, events, error)


class Deduplicator:
    """Remembers events seen within ``max_age`` seconds (default 24 h; at most
    ``capacity`` of them, default 10000, oldest forgotten first) to drop
    repeated deliveries. Both are read by the core: 0 and negative values
    raise :class:`InvalidInputError`. Thread-safe: share one instance between
    request handlers.

    The key is :attr:`Event.dedup_key`. By default the keys live in this
    process's memory. ``store`` shares them: ``"sqlite:///abs/path.db"``
    between the processes of one machine (gunicorn, uWSGI or Celery workers),
    ``"redis://[:password@]host:port/db"`` between machines; a key is then
    first seen by exactly one caller of all, and kept ``max_age`` seconds
    (``capacity`` applies to memory only). If the store fails later,
    :meth:`first_seen` logs it and answers True: an event handled twice
    rather than lost. A bad URL raises :class:`InvalidInputError`, an
    unreachable store :class:`TransportError`; the password never shows.
    """

    __slots__ = ("_n",)

    def __init__(
        self,
        capacity: Optional[int] = None,
        max_age: Optional[float] = None,
        *,
        store: Optional[str] = None,
    ) -> None:
        _telemetry.metrics_check()
        self._n = _native.NativeDeduplicator(
            capacity, None if max_age is None else float(max_age), store
        )

    @property
    def store_url(self) -> Optional[str]:
        """The store's URL without its password, or None for memory."""
        return self._n.store_url

    def first_seen(self, event: Event) -> bool:
        """True the first time (and records the event), False for a repeat."""
        return self._n.first_seen(event)

    def first_new_order(self, event: Event) -> bool:
        """True exactly once per delivery order: for the first event that makes
        the order new (the service sends both ``Unconfirmed`` and
        ``WaitCooking`` for one order), False for the rest and for every
        other event. Kept ``max_age`` seconds, in the store when there is one."""
        return self._n.first_new_order(event)

    def forget(self, event: Event) -> None:
        """Forgets an event, e.g. when processing it failed and a resend
        should be processed."""
        self._n.forget(event)

    def filter(self, events: Sequence[Event]) -> List[Event]:
        """The events seen for the first time, in order (recording them)."""
        return [e for e in events if self._n.first_seen(e)]

    def clear(self) -> None:
        """Forgets everything."""
        self._n.clear()

    def __len__(self) -> int:
        return len(self._n)


class Ordering(NamedTuple):
    """What :meth:`OrderingGuard.observe` decided."""

    #: ``"apply"``, ``"stale"`` or ``"untracked"`` (not an order or reserve
    #: event, or no id or timestamp: the guard cannot judge it).
    decision: str
    #: The timestamp already applied, when ``decision`` is ``"stale"``.
    last_applied: Optional[int]

    @property
    def should_apply(self) -> bool:
        """False only for stale events."""
        return self.decision != "stale"


class OrderingGuard:
    """Remembers the last applied ``timestamp`` per order and reserve (at most
    ``capacity`` entities, default 10000, least recently seen forgotten first)
    to skip events that arrive after newer ones. Thread-safe.

    ``store`` (a URL, as for :class:`Deduplicator`) keeps the positions where
    every process and machine sharing it sees them; a position only moves
    forward there, and is kept ``ttl`` seconds after its last change (default
    168 h, a week). Both are read by the core: 0 and negative values raise
    :class:`InvalidInputError`. If the store fails later, :meth:`observe`
    logs it and answers ``untracked``."""

    __slots__ = ("_n",)

    def __init__(
        self,
        capacity: Optional[int] = None,
        *,
        store: Optional[str] = None,
        ttl: Optional[float] = None,
    ) -> None:
        _telemetry.metrics_check()
        self._n = _native.NativeOrderingGuard(capacity, store, None if ttl is None else float(ttl))

    def observe(self, event: Event) -> Ordering:
        """Decides whether to apply the event, recording it when it is newer
        (check and record are one atomic step)."""
        decision, last = self._n.observe(event)
        return Ordering(decision, last)

    def is_newer(self, event: Event) -> bool:
        """Whether the event is newer than the last applied one, without
        recording it (True for untracked events)."""
        return self._n.is_newer(event)

    def forget(self, event: Event) -> None:
        """Forgets the event's entity."""
        self._n.forget(event)

    def clear(self) -> None:
        """Forgets everything."""
        self._n.clear()

    def __len__(self) -> int:
        return len(self._n)
