"""Shared stores from Python: de-duplication, ordering and the token shared
by processes through a real SQLite file, and across "machines" through the
real redis-server the test command starts (IIKO_TEST_REDIS_URL)."""

from __future__ import annotations

import json
import multiprocessing
import os
import uuid
from pathlib import Path
from typing import List

import pytest

import iikocloud
from iikocloud import webhooks
from iikocloud.testing import Emulator

REDIS = os.environ.get("IIKO_TEST_REDIS_URL")


def _event(status: str, order_id: str, timestamp: int) -> webhooks.Event:
    body = [
        {
            "eventType": "DeliveryOrderUpdate",
            "eventTime": "2026-11-23 12:00:00.000",
            "organizationId": "441e1320-3f58-4702-9f9e-aa34cdef9c04",
            "correlationId": str(uuid.uuid4()),
            "eventInfo": {
                "id": order_id,
                "posId": None,
                "externalNumber": None,
                "organizationId": "441e1320-3f58-4702-9f9e-aa34cdef9c04",
                "timestamp": timestamp,
                "creationStatus": "Success",
                "errorInfo": None,
                "order": {"status": status, "number": 1, "sum": 1},
            },
        }
    ]
    return webhooks.parse(json.dumps(body).encode())[0]


def _race(url: str, key: str, out: "multiprocessing.Queue[bool]") -> None:
    dedup = webhooks.Deduplicator(store=url)
    out.put(dedup.first_seen(_event("Unconfirmed", key, 1)))


def _stores(tmp_path: Path) -> List[str]:
    stores = [f"sqlite://{tmp_path / 'shared.db'}"]
    if REDIS:
        stores.append(REDIS)
    return stores


def test_a_repeat_is_first_seen_by_exactly_one_process(tmp_path: Path) -> None:
    for url in _stores(tmp_path):
        key = str(uuid.uuid4())
        ctx = multiprocessing.get_context("spawn")
        out: "multiprocessing.Queue[bool]" = ctx.Queue()
        procs = [ctx.Process(target=_race, args=(url, key, out)) for _ in range(6)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        answers = [out.get(timeout=5) for _ in procs]
        assert answers.count(True) == 1, (url, answers)


def test_a_new_order_is_new_once_and_positions_only_move_forward(tmp_path: Path) -> None:
    for url in _stores(tmp_path):
        order = str(uuid.uuid4())
        # Two replicas: separate objects on one store.
        a, b = webhooks.Deduplicator(store=url), webhooks.Deduplicator(store=url)
        assert a.store_url is not None and a.store_url.split(":")[0] == url.split(":")[0]
        assert a.first_new_order(_event("Unconfirmed", order, 1)) is True
        assert b.first_new_order(_event("WaitCooking", order, 2)) is False
        assert b.first_new_order(_event("Closed", order, 3)) is False
        g1, g2 = webhooks.OrderingGuard(store=url), webhooks.OrderingGuard(store=url, ttl=3600)
        assert g1.observe(_event("WaitCooking", order, 20)).decision == "apply"
        stale = g2.observe(_event("Unconfirmed", order, 10))
        assert stale.decision == "stale" and stale.last_applied == 20
        assert g2.observe(_event("Closed", order, 30)).decision == "apply"


def test_bad_and_unreachable_stores_are_clear_errors() -> None:
    with pytest.raises(iikocloud.InvalidInputError):
        webhooks.Deduplicator(store="postgres://somewhere/db")
    with pytest.raises(iikocloud.InvalidInputError):
        webhooks.Deduplicator(store="sqlite://relative/path.db")
    with pytest.raises(iikocloud.TransportError) as raised:
        webhooks.OrderingGuard(store="redis://:hunter2-secret@127.0.0.1:1/0")
    assert "hunter2-secret" not in str(raised.value)
    assert "hunter2-secret" not in repr(raised.value)


def test_clients_sharing_a_token_store_make_one_token_request(emu: Emulator, tmp_path: Path) -> None:
    for url in _stores(tmp_path):
        emu.clear_requests()
        emu.expire_tokens()
        clients = [emu.client(token_store=url) for _ in range(3)]
        for c in clients:
            assert c.organizations()
        assert emu.request_count("/api/v2/access_token") == 1, url
