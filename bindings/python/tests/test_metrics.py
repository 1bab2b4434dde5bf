"""The core's metrics in the application's OpenTelemetry meter provider,
read back with opentelemetry-sdk's InMemoryMetricReader after real calls
against the emulator and real webhook bodies into a real SQLite inbox:
instruments made from the core's table, a call's duration with its allowed
attributes, token fetches, a retry by cause, webhook requests and events by
outcome, sync and async clients alike, and no secret in any attribute."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from opentelemetry import metrics
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from iikocloud import Inbox, _native
from iikocloud.testing import API_KEY, CLIENT_SECRET, Emulator

from conftest import VECTORS

READER = InMemoryMetricReader()
TOKEN = "metrics-hook-token-5c1e"
#: The core's table as the package reads it: name -> (unit, kind, description, attributes).
TABLE = {row[1]: row[2:] for row in _native.metrics_table()}


@pytest.fixture(scope="module", autouse=True)
def provider() -> Iterator[None]:
    # Once per process, as OpenTelemetry allows; later modules record too.
    metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))
    yield


Point = Tuple[Dict[str, Any], float]


def _points(name: str) -> List[Point]:
    """Each series of `name`: its attributes and its sum (a histogram's count)."""
    data = READER.get_metrics_data()
    found: List[Point] = []
    for rm in data.resource_metrics if data else []:
        for sm in rm.scope_metrics:
            if sm.scope.name != "iikocloud":
                continue
            for metric in sm.metrics:
                if metric.name != name:
                    continue
                unit, _kind, description, _attrs = TABLE[name]
                assert (metric.unit, metric.description) == (unit, description)
                for p in metric.data.data_points:
                    value = getattr(p, "count", None)
                    found.append((dict(p.attributes or {}), float(value if value is not None else getattr(p, "value"))))
    return found


def _total(name: str, **want: Any) -> float:
    return sum(v for attrs, v in _points(name) if all(attrs.get(k) == w for k, w in want.items()))


def _all_attributes() -> List[Tuple[str, Dict[str, Any]]]:
    data = READER.get_metrics_data()
    out = []
    for rm in data.resource_metrics if data else []:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                out += [(metric.name, dict(p.attributes or {})) for p in metric.data.data_points]
    return out


def test_a_call_records_its_duration_with_the_allowed_attributes(emu: Emulator) -> None:
    client = emu.client()
    before = _total("http.client.request.duration", **{"iiko.operation": "organizations"})
    fetches = _total("iiko.client.token.fetches")
    client.organizations()
    ok = {"iiko.operation": "organizations", "http.response.status_code": 200}
    assert _total("http.client.request.duration", **ok) == before + 1
    assert _total("iiko.client.token.fetches") == fetches + 1
    allowed = set(TABLE["http.client.request.duration"][3])
    for attrs, _ in _points("http.client.request.duration"):
        assert set(attrs) <= allowed, attrs
        assert attrs["http.request.method"] == "POST"
        assert attrs["server.address"] == "127.0.0.1"


def test_a_refused_token_counts_a_retry_by_cause(emu: Emulator) -> None:
    client = emu.client()
    client.ensure_token()
    emu.expire_tokens()
    cause = {"iiko.operation": "organizations", "iiko.retry.cause": "token_refused"}
    before = _total("iiko.client.retries", **cause)
    client.organizations()
    assert _total("iiko.client.retries", **cause) == before + 1


def test_async_calls_are_recorded_too(emu: Emulator) -> None:
    op = {"iiko.operation": "organizations"}
    before = _total("http.client.request.duration", **op)

    async def flow() -> None:
        async with emu.async_client() as client:
            await asyncio.gather(client.organizations(), client.organizations(), client.organizations())

    asyncio.run(flow())
    assert _total("http.client.request.duration", **op) == before + 3


def test_webhook_requests_and_events_by_outcome(tmp_path: Path) -> None:
    event = json.loads((VECTORS / "delivery_order_update.json").read_text())[0]
    event["eventInfo"]["id"] = str(uuid.uuid4())
    body = json.dumps([event]).encode()
    headers = {"Authorization": TOKEN, "Content-Type": "application/json"}
    kind = {"iiko.event.type": "DeliveryOrderUpdate"}
    new, dup = _total("iiko.webhook.events", **kind, **{"iiko.event.outcome": "new"}), _total(
        "iiko.webhook.events", **kind, **{"iiko.event.outcome": "duplicate"}
    )
    accepted = _total("iiko.webhook.requests", **{"http.response.status_code": 200})
    refused = _total("iiko.webhook.requests", **{"http.response.status_code": 401})
    with Inbox(f"sqlite://{tmp_path / 'inbox.db'}") as inbox:
        assert inbox.receive(TOKEN, headers, body).stored == 1
        assert inbox.receive(TOKEN, headers, body).repeats == 1
        assert inbox.receive(TOKEN, {"Authorization": "Bearer wrong-token-1"}, body).status == 401
    assert _total("iiko.webhook.events", **kind, **{"iiko.event.outcome": "new"}) == new + 1
    assert _total("iiko.webhook.events", **kind, **{"iiko.event.outcome": "duplicate"}) == dup + 1
    assert _total("iiko.webhook.requests", **{"http.response.status_code": 200}) == accepted + 2
    assert _total("iiko.webhook.requests", **{"http.response.status_code": 401}) == refused + 1


def test_instruments_follow_the_core_table_and_no_attribute_holds_a_secret(emu: Emulator) -> None:
    emu.client().organizations()
    recorded = _all_attributes()
    for name, attrs in recorded:
        assert name in TABLE, name
        assert set(attrs) <= set(TABLE[name][3]), (name, attrs)
        for value in attrs.values():
            for secret in (CLIENT_SECRET, API_KEY, TOKEN, "wrong-token-1"):
                assert secret not in str(value), (name, attrs)
