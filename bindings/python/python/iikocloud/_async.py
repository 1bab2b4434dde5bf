"""The asyncio client."""

from __future__ import annotations

import asyncio
import datetime
import contextvars
import functools
import os
import threading
from concurrent.futures import Executor, ThreadPoolExecutor
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Type, TypeVar, Union

from ._client import DEFAULT_BASE_URL, Client, ClientOptions, Seconds, _check_options
from ._ops import AsyncOps

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .api_models import CreateOrderSettings, DeliveryOrder, OrderInfo

__all__ = ["AsyncClient", "DEFAULT_MAX_WORKERS"]

_T = TypeVar("_T")

#: Calls one :class:`AsyncClient` (and the views made from it) runs at once
#: by default. Each call in flight waits in a thread with the GIL released,
#: so a few hundred cost memory for their stacks and nothing else.
DEFAULT_MAX_WORKERS: int = 256


class _Workers:
    """The threads of one client and its views: started on demand (idle
    threads are reused), shut down when the last handle sharing them closes."""

    __slots__ = ("_max", "_lock", "_pool", "_handles")

    def __init__(self, max_workers: int) -> None:
        self._max = max_workers
        self._lock = threading.Lock()
        self._pool: Optional[ThreadPoolExecutor] = None
        self._handles = 1

    def executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self._max, thread_name_prefix="iikocloud-async"
                )
            return self._pool

    def share(self) -> "_Workers":
        with self._lock:
            self._handles += 1
        return self

    def release(self) -> None:
        with self._lock:
            self._handles -= 1
            pool = self._pool if self._handles == 0 else None
            if pool is not None:
                self._pool = None
        if pool is not None:
            # Calls still running finish in their threads; nothing waits here.
            pool.shutdown(wait=False)


def _check_max_workers(max_workers: object) -> int:
    if isinstance(max_workers, bool) or not isinstance(max_workers, int):
        raise TypeError(f"max_workers must be an int, not {type(max_workers).__name__}")
    if max_workers < 1:
        raise ValueError(f"max_workers must be at least 1, not {max_workers}")
    return max_workers


def _workers_for(executor: Optional[Executor], max_workers: Optional[int]) -> Optional[_Workers]:
    if executor is not None:
        if max_workers is not None:
            raise ValueError("give executor or max_workers, not both")
        return None
    return _Workers(DEFAULT_MAX_WORKERS if max_workers is None else _check_max_workers(max_workers))


class AsyncClient(AsyncOps):
    """The :class:`Client` for asyncio code (FastAPI, aiohttp): the same
    methods and resource groups, as coroutines
    (``await client.deliveries.create(...)``).

    Each call runs the blocking core in a thread of the client's own pool, so
    the loop never blocks; the GIL is released during the network wait. Up to
    ``max_workers`` calls (default :data:`DEFAULT_MAX_WORKERS`, 256) are in
    flight at once; more wait for a free thread. The pool is the client's, not
    the event loop's default executor (``cpu + 4`` threads), so fanning out
    over many organizations is not capped by the loop's other work. Threads
    start on demand and stop when the client and its views are closed. Pass
    ``executor`` to use an executor of your own instead. The other arguments
    are the same as :class:`Client`'s.

    Cancellation: cancelling a call (``task.cancel()``, ``asyncio.wait_for``
    timing out) returns control at once and drops the result, but the HTTP
    request already sent runs to completion in its thread; it is not
    aborted. A cancelled call that creates something (an order) may therefore
    still create it. Mark such calls with your own id and check before
    retrying. The client's timeouts bound how long the thread stays busy
    (and taken from the pool).
    """

    __slots__ = ("_sync", "_executor", "_workers")

    def __init__(
        self,
        *,
        executor: Optional[Executor] = None,
        max_workers: Optional[int] = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        _check_options("AsyncClient", options)
        workers = _workers_for(executor, max_workers)
        self._sync = Client(**options)
        self._executor = executor
        self._workers = workers

    @classmethod
    def from_client(
        cls,
        client: Client,
        executor: Optional[Executor] = None,
        max_workers: Optional[int] = None,
    ) -> "AsyncClient":
        """An async view of a blocking client, sharing its connections and
        token, with a thread pool of its own (see the class)."""
        return cls._view(client, executor, _workers_for(executor, max_workers))

    @classmethod
    def _view(
        cls, client: Client, executor: Optional[Executor], workers: Optional[_Workers]
    ) -> "AsyncClient":
        self = cls.__new__(cls)
        self._sync = client
        self._executor = executor
        self._workers = workers
        return self

    @property
    def sync(self) -> Client:
        """The blocking client underneath (shares connections and token)."""
        return self._sync

    @property
    def base_url(self) -> str:
        """The base URL in use, without a trailing slash."""
        return self._sync.base_url

    @property
    def timeout(self) -> float:
        """The ``Timeout`` header this client sends, in seconds."""
        return self._sync.timeout

    def with_timeout(self, timeout: Seconds) -> "AsyncClient":
        """A client with another ``Timeout`` header, sharing this one's
        connections and token."""
        sync = self._sync.with_timeout(timeout)
        workers = None if self._workers is None else self._workers.share()
        return AsyncClient._view(sync, self._executor, workers)

    async def _run(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        if self._sync.closed:
            # Raises the closed client's error at once; no I/O, no thread.
            return fn(*args, **kwargs)
        loop = asyncio.get_running_loop()
        # Like asyncio.to_thread: context variables reach the worker thread.
        ctx = contextvars.copy_context()
        call = functools.partial(ctx.run, fn, *args, **kwargs)
        executor = self._executor if self._workers is None else self._workers.executor()
        return await loop.run_in_executor(executor, call)

    async def _call_op(
        self, name: str, fields: Any, response: str, timeout: Any, allow_unknown_fields: bool = False
    ) -> Any:
        return await self._run(self._sync._call_op, name, fields, response, timeout, allow_unknown_fields)

    async def call_operation(
        self,
        name: str,
        request: Union[str, Mapping[str, Any], None] = None,
        *,
        timeout: Optional[Seconds] = None,
        wait: bool = False,
        wait_timeout: Optional[Seconds] = None,
        allow_unknown_fields: bool = False,
    ) -> Any:
        """See :meth:`Client.call_operation`."""
        return await self._run(
            self._sync.call_operation,
            name,
            request,
            timeout=timeout,
            wait=wait,
            wait_timeout=wait_timeout,
            allow_unknown_fields=allow_unknown_fields,
        )

    async def wait(
        self,
        command: Any,
        *,
        organization_id: str,
        timeout: Optional[Seconds] = None,
        first_pause: Optional[Seconds] = None,
        max_pause: Optional[Seconds] = None,
    ) -> None:
        """See :meth:`Client.wait`."""
        await self._run(
            self._sync.wait,
            command,
            organization_id=organization_id,
            timeout=timeout,
            first_pause=first_pause,
            max_pause=max_pause,
        )

    async def create_delivery_order(
        self,
        *,
        organization_id: str,
        order: "Union[DeliveryOrder, Mapping[str, Any]]",
        terminal_group_id: Optional[str] = None,
        create_order_settings: "Union[CreateOrderSettings, Mapping[str, Any], None]" = None,
        timeout: Optional[Seconds] = None,
        allow_unknown_fields: bool = False,
    ) -> "OrderInfo":
        """See :meth:`Client.create_delivery_order`."""
        return await self._run(
            self._sync.create_delivery_order,
            organization_id=organization_id,
            order=order,
            terminal_group_id=terminal_group_id,
            create_order_settings=create_order_settings,
            timeout=timeout,
            allow_unknown_fields=allow_unknown_fields,
        )

    async def call(
        self,
        path: str,
        body: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[Seconds] = None,
        idempotent: bool = False,
        decimals: bool = False,
    ) -> Any:
        """See :meth:`Client.call`."""
        return await self._run(
            self._sync.call,
            path,
            body,
            timeout=timeout,
            idempotent=idempotent,
            decimals=decimals,
        )

    async def ensure_token(self) -> None:
        """See :meth:`Client.ensure_token`."""
        await self._run(self._sync.ensure_token)

    def token_expires_at(self) -> Optional[datetime.datetime]:
        """See :meth:`Client.token_expires_at` (no I/O, so not a coroutine)."""
        return self._sync.token_expires_at()

    async def aclose(self) -> None:
        """Releases this handle (see :meth:`Client.close`); the thread pool
        stops when the last handle sharing it is closed. Calls in flight
        finish in their threads."""
        if not self._sync.closed and self._workers is not None:
            self._workers.release()
        self._sync.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` was called."""
        return self._sync.closed

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return repr(self._sync).replace("iikocloud.Client", "iikocloud.AsyncClient", 1)
