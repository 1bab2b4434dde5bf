"""The durable inbox: answer 200 only once the events are stored, process
them afterwards, lose nothing. See :class:`Inbox` and docs/inbox.md."""

from __future__ import annotations

import datetime as _dt
from types import TracebackType
from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional, Sequence, Tuple, Type

from . import _native, _telemetry
from ._client import Seconds, _seconds

if TYPE_CHECKING:
    from .webhooks import Body, Event, Headers

__all__ = ["Inbox", "Delivery", "DeadLetter", "InboxCounts", "Received"]


class Received(NamedTuple):
    """What :meth:`Inbox.receive` did with a request. Answer ``status`` at
    once: 200 once the events are stored (or were repeats), 401 for a failed
    verification, 500 when the expected token is empty, 503 when the inbox
    could not be written (the service sends the body again). The core decides
    it (:data:`iikocloud.webhooks.INBOX_RECEIVE_STATUSES`)."""

    #: The HTTP status to answer.
    status: int
    #: Events written.
    stored: int
    #: Events dropped as repeats.
    repeats: int
    #: Why the request was not a plain success (never contains a secret).
    error: Optional[str]

    @property
    def ok(self) -> bool:
        """Whether the request was authentic, readable and stored."""
        return self.error is None


class DeadLetter(NamedTuple):
    """An event set aside after too many attempts, or an unreadable body."""

    #: Its id among the dead letters.
    id: str
    #: Its de-duplication key (empty for an unreadable body).
    key: str
    #: The event (or the unreadable body) as received.
    body: str
    #: Deliveries it had.
    attempts: int
    #: Why it was set aside.
    reason: str


class InboxCounts(NamedTuple):
    """Events stored and not yet acknowledged, and dead letters."""

    pending: int
    dead: int


class Delivery:
    """One event handed out by :meth:`Inbox.take`: acknowledge it with
    :meth:`Inbox.ack` once handled, or hand it back with
    :meth:`Inbox.release`."""

    __slots__ = ("_n",)

    def __init__(self, native: _native.NativeDelivery) -> None:
        self._n = native

    @property
    def id(self) -> str:
        """The inbox's id of the event (a row number or a Redis stream id)."""
        return self._n.id

    @property
    def attempt(self) -> int:
        """Which delivery of the event this is, from 1."""
        return self._n.attempt

    @property
    def key(self) -> str:
        """The event's :attr:`~iikocloud.webhooks.Event.dedup_key`."""
        return self._n.key

    @property
    def event_json(self) -> str:
        """The event as received: one element of the posted array."""
        return self._n.event_json

    @property
    def received_at(self) -> _dt.datetime:
        """When the receiver stored it (aware, UTC)."""
        return _dt.datetime.fromtimestamp(self._n.received_at_ms / 1000, _dt.timezone.utc)

    @property
    def event(self) -> "Event":
        """The typed event, as :func:`iikocloud.webhooks.parse_event` gives it."""
        from .webhooks import parse_event

        return parse_event(self._n.event_json)

    def __repr__(self) -> str:
        # No body: events carry phone numbers and addresses.
        return f"Delivery(id={self.id!r}, attempt={self.attempt}, key={self.key!r})"


def _native_of(delivery: Delivery) -> _native.NativeDelivery:
    if not isinstance(delivery, Delivery):
        raise TypeError(f"expected a Delivery from Inbox.take, got {type(delivery).__name__}")
    return delivery._n


class Inbox:
    """A durable inbox for webhook events at ``url``:
    ``"sqlite:///abs/path.db"`` (a SQLite file shared by the processes of one
    machine) or ``"redis://[:password@]host:port/db"`` (shared by every
    machine). ``"memory:"`` is refused: an inbox that dies with the process
    is no inbox.

    ``visibility_timeout`` (seconds or a ``timedelta``, default 30 s): how
    long a taken event stays hidden from other consumers before it is handed
    out again (longer than the slowest handling). ``max_attempts`` (default
    5): deliveries of one event at most before it goes to the dead letters.
    ``dedup_ttl`` (default 24 h): how long a key is remembered to drop
    repeats. The core reads each (``inbox.*`` in ``tests/vectors/limits.json``):
    0 and negative values are refused.

    A bad URL or option raises :class:`InvalidInputError`, an unreachable
    store :class:`TransportError`; the password never shows. Thread-safe;
    every call leaves the GIL while it waits on the file or the server. Use
    it as a context manager, or call :meth:`close`.

    In the HTTP handler::

        received = inbox.receive(TOKEN, request.headers, request.get_data())
        return "", received.status

    In a worker::

        while (delivery := inbox.take()) is not None:
            handle(delivery.event)
            inbox.ack(delivery)
    """

    __slots__ = ("_n",)

    def __init__(
        self,
        url: str,
        *,
        visibility_timeout: Optional[Seconds] = None,
        max_attempts: Optional[int] = None,
        dedup_ttl: Optional[Seconds] = None,
    ) -> None:
        from ._errors import InvalidInputError

        if not isinstance(url, str):
            raise InvalidInputError("the inbox URL must be a str")
        _telemetry.metrics_check()
        self._n = _native.NativeInbox(
            url, _seconds(visibility_timeout), max_attempts, _seconds(dedup_ttl)
        )

    @property
    def url(self) -> str:
        """The URL without its password."""
        return self._n.url

    @property
    def closed(self) -> bool:
        return self._n.closed

    def receive(
        self,
        token: str,
        headers: "Headers",
        body: "Body",
        *,
        store: Optional[str] = None,
    ) -> Received:
        """The receive path of a webhook endpoint: verifies the
        ``Authorization`` header against ``token`` (your ``authToken``),
        parses, drops repeats and writes the new events, then says what to
        answer. Never raises for a bad request; answer ``received.status``.

        An authentic body that cannot be parsed is answered 200 (a resend
        would bring the same bytes) and kept in the dead letters.

        ``store`` (a URL, as for :class:`~iikocloud.webhooks.Deduplicator`)
        drops repeats across several inboxes behind one load balancer.
        """
        _telemetry.metrics_check()
        status, stored, repeats, error = self._n.receive(token, headers, body, store)
        return Received(status, stored, repeats, error)

    def push(self, events: Sequence[Tuple[str, str]]) -> int:
        """Writes ``(dedup key, event JSON)`` pairs, skipping keys seen
        within ``dedup_ttl``; returns how many were new. All or none."""
        return self._n.push(list(events))

    def take(self) -> Optional[Delivery]:
        """The next event, hidden from other consumers for the visibility
        timeout; None when nothing is waiting."""
        native = self._n.take()
        return None if native is None else Delivery(native)

    def ack(self, delivery: Delivery) -> bool:
        """The event is done and removed. False when this delivery no longer
        holds it (its visibility timeout passed and it was handed out again,
        or it was already acknowledged)."""
        return self._n.ack(_native_of(delivery))

    def release(self, delivery: Delivery, reason: str) -> None:
        """Hands an event back after a failure: delivered again at once, or
        moved to the dead letters with ``reason`` after ``max_attempts``."""
        self._n.release(_native_of(delivery), reason)

    def dead_letters(self, limit: Optional[int] = None) -> List[DeadLetter]:
        """Up to ``limit`` dead letters (default 100), oldest first."""
        return [DeadLetter(*d) for d in self._n.dead_letters(limit)]

    def counts(self) -> InboxCounts:
        """How many events are pending (waiting or taken) and dead."""
        return InboxCounts(*self._n.counts())

    def close(self) -> None:
        """Drops the connection or file handle (the events stay). Later
        calls raise :class:`IikoError`."""
        self._n.close()

    def __enter__(self) -> "Inbox":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Inbox({self._n.url!r})" if not self.closed else "Inbox(closed)"

    def __reduce__(self) -> Any:
        # A pickled inbox would carry the password of its URL; open it anew.
        raise TypeError("an Inbox cannot be pickled; open it again in the other process")
