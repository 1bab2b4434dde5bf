"""The asyncio client."""

from __future__ import annotations

import asyncio
import datetime
import contextvars
import functools
import os
from concurrent.futures import Executor
from types import TracebackType
from typing import Any, Callable, Iterable, Mapping, Optional, Type, TypeVar, Union

from ._client import DEFAULT_BASE_URL, Client, Seconds
from .models import (
    CorrelationIdResponse,
    OrganizationsResponse,
    StopListsResponse,
    WebHooksFilter,
    WebhookSettings,
)

__all__ = ["AsyncClient"]

_T = TypeVar("_T")


class AsyncClient:
    """The :class:`Client` for asyncio code (FastAPI, aiohttp): the same
    methods, as coroutines.

    Each call runs the blocking core in a worker thread (``executor``, or the
    event loop's default executor), so the loop never blocks; the GIL is
    released during the network wait. Arguments are the same as
    :class:`Client`'s.

    Cancellation: cancelling a call (``task.cancel()``, ``asyncio.wait_for``
    timing out) returns control at once and drops the result, but the HTTP
    request already sent runs to completion in its thread; it is not
    aborted. A cancelled call that creates something (an order) may therefore
    still create it. Mark such calls with your own id and check before
    retrying. The client's timeouts bound how long the thread stays busy.
    """

    __slots__ = ("_sync", "_executor")

    def __init__(
        self,
        *,
        app_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        api_key: Optional[str] = None,
        api_login: Optional[str] = None,
        base_url: str = DEFAULT_BASE_URL,
        timeout: Seconds = 15.0,
        client_timeout: Optional[Seconds] = None,
        retries: int = 2,
        max_response_bytes: Optional[int] = None,
        token_cache_dir: Optional["os.PathLike[str] | str"] = None,
        executor: Optional[Executor] = None,
    ) -> None:
        self._sync = Client(
            app_id=app_id,
            client_secret=client_secret,
            api_key=api_key,
            api_login=api_login,
            base_url=base_url,
            timeout=timeout,
            client_timeout=client_timeout,
            retries=retries,
            max_response_bytes=max_response_bytes,
            token_cache_dir=token_cache_dir,
        )
        self._executor = executor

    @classmethod
    def from_client(cls, client: Client, executor: Optional[Executor] = None) -> "AsyncClient":
        """An async view of a blocking client, sharing its connections and token."""
        self = cls.__new__(cls)
        self._sync = client
        self._executor = executor
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
        return AsyncClient.from_client(self._sync.with_timeout(timeout), self._executor)

    async def _run(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        loop = asyncio.get_running_loop()
        # Like asyncio.to_thread: context variables reach the worker thread.
        ctx = contextvars.copy_context()
        call = functools.partial(ctx.run, fn, *args, **kwargs)
        return await loop.run_in_executor(self._executor, call)

    async def organizations(
        self,
        organization_ids: Optional[Iterable[str]] = None,
        *,
        return_additional_info: Optional[bool] = None,
        include_disabled: Optional[bool] = None,
        return_external_data: Optional[Iterable[str]] = None,
    ) -> OrganizationsResponse:
        """See :meth:`Client.organizations`."""
        return await self._run(
            self._sync.organizations,
            None if organization_ids is None else list(organization_ids),
            return_additional_info=return_additional_info,
            include_disabled=include_disabled,
            return_external_data=return_external_data,
        )

    async def webhook_settings(self, organization_id: str) -> WebhookSettings:
        """See :meth:`Client.webhook_settings`."""
        return await self._run(self._sync.webhook_settings, organization_id)

    async def update_webhook_settings(
        self,
        organization_id: str,
        web_hooks_uri: str,
        auth_token: Optional[str] = None,
        web_hooks_filter: Union[WebHooksFilter, Mapping[str, Any], None] = None,
    ) -> CorrelationIdResponse:
        """See :meth:`Client.update_webhook_settings`."""
        return await self._run(
            self._sync.update_webhook_settings,
            organization_id,
            web_hooks_uri,
            auth_token,
            web_hooks_filter,
        )

    async def stop_lists(
        self,
        organization_ids: Iterable[str],
        *,
        return_size: Optional[bool] = None,
        terminal_groups_ids: Optional[Iterable[str]] = None,
    ) -> StopListsResponse:
        """See :meth:`Client.stop_lists`."""
        return await self._run(
            self._sync.stop_lists,
            organization_ids,
            return_size=return_size,
            terminal_groups_ids=terminal_groups_ids,
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
        """Releases this handle (see :meth:`Client.close`)."""
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
