"""A Flask webhook receiver: verify, parse, drop duplicates, answer at once,
and hand the work to a background worker.

    IIKO_WEBHOOK_TOKEN=<the authToken you configured> flask --app flask_receiver run

(Flask finds the factory ``create_app``.)

The handler does no work itself: the service counts a slow or failed answer
as a failed delivery, resends, and finally blocks the webhook.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from typing import Optional

from flask import Flask, Response, request

from iikocloud import webhooks

log = logging.getLogger("receiver")


def create_app(token: Optional[str] = None, work: "Optional[queue.Queue[webhooks.Event]]" = None) -> Flask:
    """The app; ``work`` is the queue events are handed to (a worker thread
    draining it is started when none is given)."""
    expected = token if token is not None else os.environ.get("IIKO_WEBHOOK_TOKEN", "")
    dedup = webhooks.Deduplicator(capacity=50_000, max_age=24 * 3600)
    guard = webhooks.OrderingGuard(capacity=50_000)
    if work is None:
        work = queue.Queue()
        threading.Thread(target=_worker, args=(work,), daemon=True).start()
    app = Flask(__name__)
    app.config["IIKO_QUEUE"] = work

    @app.post("/iiko/webhook")
    def webhook() -> Response:
        receipt = webhooks.receive(request.headers, request.get_data(cache=False), expected)
        if receipt.error is not None:
            # 401 for a bad token, 500 for a missing configuration, 200 for an
            # authentic but unreadable body (a resend would not help).
            log.warning("webhook not processed: %s", receipt.error)
        for event in receipt.events:
            if not dedup.first_seen(event):
                continue  # a repeated delivery
            if not guard.observe(event).should_apply:
                continue  # older than a change already applied
            work.put(event)
        return Response(status=receipt.status)

    return app


def _worker(work: "queue.Queue[webhooks.Event]") -> None:
    while True:
        event = work.get()
        if isinstance(event, webhooks.DeliveryOrderUpdate) and event.is_new:
            log.info("new delivery order %s: %s", event.number, event.sum)
        elif isinstance(event, webhooks.StopListUpdate):
            log.info("stop lists changed for %s", event.terminal_group_ids)
        else:
            log.info("%r", event)
        work.task_done()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    create_app().run(port=int(os.environ.get("PORT", "8000")))
