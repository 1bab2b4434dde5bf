"""The SDK's spans in the application's OpenTelemetry tracer provider.

When ``opentelemetry-api`` is installed and the application has set a tracer
provider, every call of :class:`~iikocloud.Client` (and of
:class:`~iikocloud.AsyncClient`, whose calls run in threads that carry the
caller's context) is recorded as the core's spans: the call (kind CLIENT,
named by the operation), its token fetch as a child, ``wait_command``, each
with the attributes the core decided. They are children of the span current
when the call was made (a Flask or FastAPI request, a Celery task).

Without ``opentelemetry-api``, or with no tracer provider set, a call pays
one check here and the core records nothing.

The core's metrics go to the application's meter provider the same way,
automatically: the first call (or :class:`~iikocloud.Inbox`,
:class:`~iikocloud.webhooks.Deduplicator` or
:class:`~iikocloud.webhooks.OrderingGuard` made, or webhook received) after
a meter provider is set creates one instrument per row of the core's table
(name, unit, description, kind) on the meter ``iikocloud`` and makes the
core send every point there, from any thread. Automatic, as the spans are,
because the provider is the application's switch already: without one a
call pays one check and the core one atomic load. OpenTelemetry lets a
process set its meter provider once, so the instruments are made once.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

from . import _native

_T = TypeVar("_T")

# Unknown (None) until the first call, then the opentelemetry modules or
# False when the package is missing: the import is lazy and done once.
_otel: Any = None
_tracers: Dict[int, Tuple[Any, Any]] = {}


def _load() -> Any:
    global _otel
    if _otel is None:
        try:
            from opentelemetry import context, trace
        except ImportError:
            _otel = False
        else:
            _otel = (context, trace)
    return _otel


def _tracer() -> Optional[Any]:
    otel = _load()
    if not otel:
        return None
    trace = otel[1]
    provider = trace.get_tracer_provider()
    # No provider set yet (the proxy) or an explicit no-op one: nothing
    # would be recorded, so the core is not asked for spans.
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    cached = _tracers.get(id(provider))
    if cached is None or cached[0] is not provider:
        cached = (provider, provider.get_tracer("iikocloud", _native.__version__))
        _tracers[id(provider)] = cached
    return cached[1]


# True once the core sends its points to the meter provider.
_metrics_on = False


def _real_meter_provider(metrics: Any) -> Optional[Any]:
    provider = metrics.get_meter_provider()
    # Before set_meter_provider the API hands out a proxy; recording into it
    # would cost a call per point for nothing, so wait for the real one.
    if isinstance(provider, metrics.NoOpMeterProvider) or type(provider).__name__ == "_ProxyMeterProvider":
        return None
    return provider


def metrics_check() -> None:
    """Starts recording the core's metrics once a meter provider is set."""
    global _metrics_on
    if _metrics_on or not _load():
        return
    from opentelemetry import metrics

    provider = _real_meter_provider(metrics)
    if provider is None:
        return
    meter = provider.get_meter("iikocloud", _native.__version__)
    buckets = _native.duration_buckets()
    record: List[Optional[Callable[[float, Dict[str, Any]], None]]] = []
    for _index, name, unit, kind, description, _attrs in _native.metrics_table():
        record.append(_instrument(meter, name, unit, kind, description, buckets))

    def sink(index: int, value: float, attributes: Dict[str, Any]) -> None:
        rec = record[index]
        if rec is not None:
            rec(value, attributes)

    # False: a sink was set before in this process (only this module sets
    # one in a Python process, so that is an earlier, equal sink).
    _native.metrics_enable(sink)
    _metrics_on = True


def _instrument(
    meter: Any, name: str, unit: str, kind: str, description: str, buckets: List[float]
) -> Optional[Callable[[float, Dict[str, Any]], None]]:
    if kind == "counter":
        return meter.create_counter(name, unit=unit, description=description).add  # type: ignore[no-any-return]
    if kind == "histogram":
        if unit == "s":
            try:
                # The advisory boundaries came with opentelemetry-api 1.23.
                hist = meter.create_histogram(
                    name, unit=unit, description=description, explicit_bucket_boundaries_advisory=buckets
                )
            except TypeError:
                hist = meter.create_histogram(name, unit=unit, description=description)
        else:
            hist = meter.create_histogram(name, unit=unit, description=description)
        return hist.record  # type: ignore[no-any-return]
    if kind == "gauge" and hasattr(meter, "create_gauge"):
        # Synchronous gauges came with opentelemetry-api 1.23; older ones
        # get no inbox gauges.
        return meter.create_gauge(name, unit=unit, description=description).set  # type: ignore[no-any-return]
    return None


def traced(fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """Runs one native call, its spans recorded when a tracer provider is set."""
    if not _metrics_on:
        metrics_check()
    tracer = _tracer()
    if tracer is None or not _native.spans_enable():
        return fn(*args, **kwargs)
    context, trace = _otel
    parent = context.get_current()
    _native.spans_begin()
    try:
        return fn(*args, **kwargs)
    finally:
        _emit(tracer, trace, parent, _native.spans_take())


_KINDS = {"client": "CLIENT", "server": "SERVER", "internal": "INTERNAL"}


def _emit(tracer: Any, trace: Any, parent: Any, spans: Any) -> None:
    # Oldest first, so a parent exists before its children refer to it.
    made: Dict[int, Any] = {}
    for sid, pid, name, kind, start, end, error, attrs, events in spans:
        ctx = trace.set_span_in_context(made[pid], parent) if pid in made else parent
        span = tracer.start_span(
            name,
            context=ctx,
            kind=getattr(trace.SpanKind, _KINDS.get(kind, "INTERNAL")),
            attributes=attrs,
            start_time=start,
        )
        for ename, at, eattrs in events:
            span.add_event(ename, eattrs, timestamp=at)
        if error:
            reason = attrs.get("iiko.command.reason") or attrs.get("error.type")
            span.set_status(trace.Status(trace.StatusCode.ERROR, reason))
        span.end(end_time=end)
        made[sid] = span
