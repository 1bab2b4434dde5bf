"""The core's spans in the application's OpenTelemetry tracer provider,
read back from the SDK's in-memory exporter after real calls against the
emulator: children of the current span (a Flask request, a coroutine's
span), the token fetch after a 401 and the resend, a failed command's
reason, and no secret in any attribute."""

from __future__ import annotations

import asyncio
import uuid
from decimal import Decimal
from typing import Any, Iterator, List

import pytest
from flask import Flask
from opentelemetry import trace
from opentelemetry.instrumentation.flask import FlaskInstrumentor
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import iikocloud
from iikocloud import api_models as m
from iikocloud.testing import API_KEY, CLIENT_SECRET, ORGANIZATION_ID, Emulator

EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def provider() -> Iterator[None]:
    # The process's provider can be set once; the other test modules keep
    # running with it (their calls are recorded too, and dropped here).
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(EXPORTER))
    trace.set_tracer_provider(tp)
    yield


@pytest.fixture
def spans() -> InMemorySpanExporter:
    EXPORTER.clear()
    return EXPORTER


def _named(finished: Any, name: str) -> List[ReadableSpan]:
    return [s for s in finished if s.name == name]


def _no_secret(finished: Any, secrets: List[str]) -> None:
    for s in finished:
        texts = [s.name] + [f"{k}={v}" for k, v in (s.attributes or {}).items()]
        for e in s.events:
            texts += [e.name] + [f"{k}={v}" for k, v in (e.attributes or {}).items()]
        for text in texts:
            for secret in secrets:
                assert secret not in text, f"a secret in span {s.name}: {text}"


def test_a_flask_request_span_is_the_parent_of_the_calls(emu: Emulator, spans: InMemorySpanExporter) -> None:
    client = emu.client()
    app = Flask("telemetry")
    FlaskInstrumentor().instrument_app(app)

    @app.route("/orgs")
    def orgs() -> str:
        return str(len(client.organizations().organizations))

    try:
        assert app.test_client().get("/orgs").status_code == 200
    finally:
        FlaskInstrumentor().uninstrument_app(app)
    finished = spans.get_finished_spans()
    (request,) = [s for s in finished if s.kind == SpanKind.SERVER]
    (call,) = _named(finished, "organizations")
    (token,) = _named(finished, "access_token")
    assert call.parent is not None and call.parent.span_id == request.context.span_id
    assert call.context.trace_id == request.context.trace_id
    assert token.parent is not None and token.parent.span_id == call.context.span_id
    assert call.kind == SpanKind.CLIENT
    attrs = call.attributes or {}
    assert attrs["http.request.method"] == "POST"
    assert attrs["http.response.status_code"] == 200
    assert attrs["iiko.operation"] == "organizations"
    assert attrs["server.address"] == "127.0.0.1"
    assert str(attrs["url.full"]).endswith("/api/1/organizations")
    assert attrs["iiko.correlation_id"]
    _no_secret(finished, [CLIENT_SECRET, API_KEY])


def test_a_401_shows_the_token_span_and_the_resend_count(emu: Emulator, spans: InMemorySpanExporter) -> None:
    client = emu.client()
    client.ensure_token()
    emu.expire_tokens()
    spans.clear()
    client.organizations()
    finished = spans.get_finished_spans()
    (call,) = _named(finished, "organizations")
    (token,) = _named(finished, "access_token")
    assert token.parent is not None and token.parent.span_id == call.context.span_id
    assert (call.attributes or {})["http.request.resend_count"] == 1
    assert [e.attributes["iiko.retry.cause"] for e in call.events if e.attributes] == ["token_refused"]
    assert call.status.status_code != StatusCode.ERROR
    _no_secret(finished, [CLIENT_SECRET, API_KEY])


def test_a_failed_command_shows_its_reason(emu: Emulator, spans: InMemorySpanExporter) -> None:
    client = emu.client()
    order = m.DeliveryOrder(
        id=str(uuid.uuid4()),
        phone="+79161234567",
        items=[m.CreateOrderProductOrderItem(product_id=str(uuid.uuid4()), amount=Decimal("2"), price=Decimal("1"))],
    )
    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("task") as task:
        created = client.deliveries.create(organization_id=ORGANIZATION_ID, order=order)
        with pytest.raises(iikocloud.CommandFailedError):
            client.wait(created, organization_id=ORGANIZATION_ID, timeout=20)
    finished = spans.get_finished_spans()
    (create,) = _named(finished, "deliveries.create")
    assert (create.attributes or {})["iiko.organization_id"] == ORGANIZATION_ID
    (wait,) = _named(finished, "wait_command")
    assert wait.parent is not None and wait.parent.span_id == task.get_span_context().span_id
    attrs = wait.attributes or {}
    assert attrs["iiko.command.outcome"] == "Error"
    assert attrs["iiko.command.reason"] == "ProductNotFound"
    assert attrs["iiko.correlation_id"] == created.correlation_id
    assert wait.status.status_code == StatusCode.ERROR
    assert wait.status.description == "ProductNotFound"
    polls = _named(finished, "commands.status")
    assert polls and all(p.parent is not None and p.parent.span_id == wait.context.span_id for p in polls)
    assert attrs["iiko.command.polls"] == len(polls)
    _no_secret(finished, [CLIENT_SECRET, API_KEY])


def test_async_calls_are_children_of_the_callers_span(emu: Emulator, spans: InMemorySpanExporter) -> None:
    tracer = trace.get_tracer("test")

    async def flow() -> List[int]:
        async with emu.async_client() as client:
            ids = []
            for name in ("a", "b"):
                with tracer.start_as_current_span(name) as parent:
                    await asyncio.gather(client.organizations(), client.organizations())
                    ids.append(parent.get_span_context().span_id)
            return ids

    parents = asyncio.run(flow())
    calls = _named(spans.get_finished_spans(), "organizations")
    assert len(calls) == 4
    assert sorted(c.parent.span_id for c in calls if c.parent) == sorted(parents * 2)
