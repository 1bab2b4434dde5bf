"""A FastAPI webhook receiver: verify, parse, drop duplicates, answer at once,
and hand the work to a background task queue.

    IIKO_WEBHOOK_TOKEN=<the authToken you configured> uvicorn fastapi_receiver:app

Verification and parsing take microseconds, so they run on the event loop;
calls to the API from the worker use ``iikocloud.AsyncClient``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Optional

from fastapi import FastAPI, Request, Response

from iikocloud import webhooks

log = logging.getLogger("receiver")


def create_app(token: Optional[str] = None) -> FastAPI:
    """The app; events that pass go to ``app.state.events`` (an asyncio.Queue)."""
    expected = token if token is not None else os.environ.get("IIKO_WEBHOOK_TOKEN", "")
    dedup = webhooks.Deduplicator(capacity=50_000, max_age=24 * 3600)
    guard = webhooks.OrderingGuard(capacity=50_000)
    app = FastAPI()
    app.state.events = asyncio.Queue()

    @app.post("/iiko/webhook")
    async def webhook(request: Request) -> Response:
        receipt = webhooks.receive(request.headers, await request.body(), expected)
        if receipt.error is not None:
            log.warning("webhook not processed: %s", receipt.error)
        for event in receipt.events:
            if dedup.first_seen(event) and guard.observe(event).should_apply:
                app.state.events.put_nowait(event)
        return Response(status_code=receipt.status)

    return app


async def worker(events: "asyncio.Queue[webhooks.Event]") -> None:
    """Drains the queue; start it with ``asyncio.create_task`` at startup."""
    while True:
        event = await events.get()
        log.info("%r", event)
        events.task_done()


app = create_app()
