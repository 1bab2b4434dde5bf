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
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple, TypeVar

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


def traced(fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """Runs one native call, its spans recorded when a tracer provider is set."""
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
