"""OpenTelemetry traces and metrics of graphmem (optional: the ``otel`` extra).

graphmem records through the OpenTelemetry *API* only: spans from ``trace.get_tracer("graphmem",
version)`` and instruments from ``metrics.get_meter("graphmem", version)``, so they go wherever
the application's SDK sends them (OTLP, console, ...); graphmem never configures an SDK. Without
an SDK every span and instrument is the API's no-op; without the ``opentelemetry`` package at
all, :func:`span`, :func:`counter` and :func:`histogram` return graphmem's own no-ops. The package
is imported on first use, not with graphmem.

Every database round trip is a ``graphmem.db`` span (:class:`graphmem.graph.runner.QueryRunner`
opens it); the recalls, ingests and agent verbs are wrapped in :mod:`graphmem.instrumentation`.
What is traced (span names, attributes, metrics and units): docs/telemetry.md. No attribute ever
holds a message, a query, a content text or an id; a failed operation's span gets status ERROR
and ``error.type`` (the exception's class), never the exception's message (it may quote input).

    from graphmem import telemetry
    telemetry.configure(tracer_provider=provider, meter_provider=meter_provider)  # optional
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["METRICS", "configure", "counter", "enabled", "histogram", "span"]

#: Instrumentation scope (tracer and meter name).
SCOPE = "graphmem"

#: name -> (instrument kind, unit, description): every metric graphmem records.
METRICS: dict[str, tuple[str, str, str]] = {
    "graphmem.recalls": ("counter", "{recall}",
                         "recalls answered, per memory (the fused recall as memory 'fused')"),
    "graphmem.ingested_inputs": ("counter", "{input}",
                                 "input units ingested (turns, trajectories, feedback records)"),
    "graphmem.db.queries": ("counter", "{transaction}",
                            "database round trips (one managed transaction each)"),
    "graphmem.llm.calls": ("counter", "{call}", "LLM calls made by the memories"),
    "graphmem.llm.tokens": ("counter", "{token}",
                            "LLM tokens of those calls, by graphmem.llm.token_type"),
    "graphmem.recall.duration": ("histogram", "ms", "wall time of one recall"),
    "graphmem.ingest.duration": ("histogram", "ms", "wall time of one ingest"),
    "graphmem.db.duration": ("histogram", "ms",
                             "wall time of one transaction, less time it waited off the database"),
}

_UNRESOLVED = object()
_state: Any = _UNRESOLVED  # _Otel, None (no opentelemetry), or _UNRESOLVED
_providers: tuple[Any, Any] = (None, None)
_resolve_lock = threading.Lock()
_tally_lock = threading.Lock()
_TALLY: contextvars.ContextVar[_Tally | None] = contextvars.ContextVar("graphmem_tally",
                                                                       default=None)
_DB: contextvars.ContextVar[_Span | None] = contextvars.ContextVar("graphmem_db_span",
                                                                   default=None)


class _Noop:
    """What graphmem uses without ``opentelemetry``: a span and an instrument that do nothing
    (``set``, ``add``, ``record``)."""

    __slots__ = ("rows", "retries", "waited_ms")
    recording = False

    def __enter__(self) -> _Noop:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def set(self, attributes: dict[str, Any] | None = None, /, **more: Any) -> None: ...

    def add(self, amount: float, attributes: dict[str, Any] | None = None) -> None: ...

    def record(self, amount: float, attributes: dict[str, Any] | None = None) -> None: ...


NOOP = _Noop()


class _Otel:
    """The resolved API: the tracer, the instruments, the modules spans use."""

    def __init__(self, tracer_provider: Any, meter_provider: Any):
        from opentelemetry import context, metrics, trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        from graphmem import __version__

        self.context, self.trace = context, trace
        self.kinds = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
        self.error = lambda kind: Status(StatusCode.ERROR, kind)
        self.tracer = trace.get_tracer(SCOPE, __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter(SCOPE, __version__, meter_provider=meter_provider)
        self.instruments = {
            name: (meter.create_counter if kind == "counter" else meter.create_histogram)(
                name, unit=unit, description=description)
            for name, (kind, unit, description) in METRICS.items()}


def _otel() -> _Otel | None:
    global _state
    if _state is not _UNRESOLVED:
        return _state
    with _resolve_lock:
        if _state is _UNRESOLVED:
            try:
                _state = _Otel(*_providers)
            except ImportError:
                logger.debug("opentelemetry is not installed: graphmem records no telemetry")
                _state = None
        return _state


def configure(tracer_provider: Any | None = None, meter_provider: Any | None = None) -> None:
    """Record into these providers instead of the global ones (``trace.set_tracer_provider``,
    ``metrics.set_meter_provider``: the usual way, which needs no call here); ``configure()``
    goes back to the global ones and looks for the ``opentelemetry`` package again. For
    graphmem's telemetry sent elsewhere, or tests (a global provider is set once per process).

    Args:
        tracer_provider: an ``opentelemetry.trace.TracerProvider`` (e.g. the SDK's), or None.
        meter_provider: an ``opentelemetry.metrics.MeterProvider``, or None.
    """
    global _state, _providers
    with _resolve_lock:
        _providers = (tracer_provider, meter_provider)
        _state = _UNRESOLVED


def enabled() -> bool:
    """Whether the ``opentelemetry`` API is importable (graphmem records through it)."""
    return _otel() is not None


def _instrument(name: str, kind: str) -> Any:
    if METRICS[name][0] != kind:
        raise KeyError(f"{name} is not a {kind}")
    otel = _otel()
    return NOOP if otel is None else otel.instruments[name]


def counter(name: str) -> Any:
    """The counter ``name`` of :data:`METRICS` (``add(amount, attributes)``), a no-op one
    without ``opentelemetry``.

    Raises:
        KeyError: ``name`` is not a counter of :data:`METRICS`.
    """
    return _instrument(name, "counter")


def histogram(name: str) -> Any:
    """The histogram ``name`` of :data:`METRICS` (``record(value, attributes)``, in its
    unit), a no-op one without ``opentelemetry``.

    Raises:
        KeyError: ``name`` is not a histogram of :data:`METRICS`.
    """
    return _instrument(name, "histogram")


def _key(name: str) -> str:
    return name if "." in name else "graphmem." + name


def _clean(attributes: dict[str, Any]) -> dict[str, Any]:
    return {_key(k): v for k, v in attributes.items() if v is not None}


def _error_type(exc: BaseException) -> str:
    cls = type(exc)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


class _Tally:
    """Database and embedding time of one operation span (and of the operations inside it)."""

    __slots__ = ("db_ms", "db_queries", "embed_ms", "parent")

    def __init__(self, parent: _Tally | None):
        self.db_ms = self.embed_ms = 0.0
        self.db_queries = 0
        self.parent = parent


def _add(db_ms: float = 0.0, queries: int = 0, embed_ms: float = 0.0) -> None:
    tally = _TALLY.get()
    if tally is not None:
        with _tally_lock:  # the operation's, and those around it (maybe in other threads)
            while tally is not None:
                tally.db_ms += db_ms
                tally.db_queries += queries
                tally.embed_ms += embed_ms
                tally = tally.parent


def add_embed_time(ms: float) -> None:
    """Count ``ms`` milliseconds of embedding in the operations being traced (the
    :class:`~graphmem.embeddings.ValidatingEmbedder` calls it); nothing outside one."""
    _add(embed_ms=ms)


class _Span:
    """One span as a context manager (what :func:`span` returns with ``opentelemetry``)."""

    __slots__ = ("_otel", "_name", "_kind", "_attributes", "_measure", "_metrics", "_span",
                 "_token", "_tally", "_tally_token", "_db_token", "_started", "rows", "retries",
                 "waited_ms")

    def __init__(self, otel: _Otel, name: str, attributes: dict[str, Any], *,
                 kind: str = "internal", measure: bool = False,
                 metrics: tuple[str | None, str, tuple[str, ...]] | None = None):
        self._otel, self._name, self._kind = otel, name, kind
        self._attributes, self._measure, self._metrics = attributes, measure, metrics
        self._token = self._tally_token = self._db_token = self._tally = None
        self.rows = self.retries = 0
        self.waited_ms = 0.0

    @property
    def recording(self) -> bool:
        """Whether the span records (an SDK is configured and sampled it)."""
        return self._span.is_recording()

    def set(self, attributes: dict[str, Any] | None = None, /, **more: Any) -> None:
        """Set attributes: a key without a dot gets the ``graphmem.`` prefix (``items=3`` is
        ``graphmem.items``); None values are left out. A no-op on a span that does not record."""
        if self._span.is_recording():
            self._span.set_attributes(_clean({**(attributes or {}), **more}))

    def __enter__(self) -> _Span:
        otel = self._otel
        self._started = time.perf_counter()
        current = otel.trace.get_current_span()
        span = otel.tracer.start_span(self._name, kind=otel.kinds[self._kind],
                                      attributes=self._attributes)
        self._span = span
        if span is not current:  # the API without an SDK hands back the current span
            self._token = otel.context.attach(otel.trace.set_span_in_context(span))
        if self._measure and span.is_recording():
            self._tally = _Tally(_TALLY.get())
            self._tally_token = _TALLY.set(self._tally)
        if self._kind == "client":
            self._db_token = _DB.set(self)
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        ms = (time.perf_counter() - self._started) * 1000
        span, tally = self._span, self._tally
        error = _error_type(exc) if exc is not None else None
        if self._tally_token is not None:
            _TALLY.reset(self._tally_token)
        if self._db_token is not None:
            _DB.reset(self._db_token)
            ms = max(ms - self.waited_ms, 0.0)
            _add(db_ms=ms, queries=1)
        if span.is_recording():
            if tally is not None:
                span.set_attributes({"graphmem.db_ms": round(tally.db_ms, 3),
                                     "graphmem.db_queries": tally.db_queries,
                                     "graphmem.embed_ms": round(tally.embed_ms, 3)})
            if self._db_token is not None:
                span.set_attributes({"graphmem.db.rows": self.rows,
                                     "graphmem.db.retries": self.retries})
                if self.waited_ms:
                    span.set_attribute("graphmem.db.wait_ms", round(self.waited_ms, 3))
            if error is not None:
                span.set_attribute("error.type", error)
                span.set_status(self._otel.error(type(exc).__name__))
        if self._token is not None:
            self._otel.context.detach(self._token)
        span.end()
        if self._metrics is not None:
            count, duration, keys = self._metrics
            attributes = {k: self._attributes[k] for k in keys if k in self._attributes}
            if error is not None:
                attributes["error.type"] = error
            instruments = self._otel.instruments
            if count is not None:
                instruments[count].add(1, attributes)
            instruments[duration].record(ms, attributes)


def span(name: str, /, **attributes: Any) -> Any:
    """A context manager: a span ``name`` (a child of the current span) around its body, with
    ``attributes`` (a key without a dot gets the ``graphmem.`` prefix; None values are left
    out). Entering returns an object whose ``set(**attributes)`` adds attributes and whose
    ``recording`` says whether the span records. Without ``opentelemetry`` both do nothing.

    An exception leaving the body sets the span's status to ERROR and ``error.type`` to the
    exception's class, never its message, and propagates.
    """
    otel = _otel()
    return NOOP if otel is None else _Span(otel, name, _clean(attributes))


_OPERATION_KEYS = ("graphmem.namespace", "graphmem.memory")


def operation_span(name: str, memory: str, namespace: str, **attributes: Any) -> Any:
    """The span of one recall (``graphmem.recall``) or ingest (``graphmem.ingest``) of
    ``memory``: adds ``graphmem.db_ms`` / ``db_queries`` / ``embed_ms`` on exit and records the
    verb's metrics (``graphmem.recalls`` and ``graphmem.recall.duration`` in ms;
    ``graphmem.ingest.duration``) with the namespace and memory as attributes."""
    otel = _otel()
    if otel is None:
        return NOOP
    metrics = (("graphmem.recalls", "graphmem.recall.duration", _OPERATION_KEYS)
               if name == "graphmem.recall" else
               (None, "graphmem.ingest.duration", _OPERATION_KEYS))
    return _Span(otel, name, _clean({"namespace": namespace, "memory": memory, **attributes}),
                 measure=True, metrics=metrics)


def db_span(query: str | None, mode: str, database: str) -> Any:
    """The span of one database round trip (``graphmem.db``, kind CLIENT) of registry query
    ``query``; records ``graphmem.db.queries`` and ``graphmem.db.duration`` (ms, less the time
    spent in :func:`db_waiting`). Set ``retries`` on it; rows come from :func:`db_rows`."""
    otel = _otel()
    if otel is None:
        return NOOP
    attributes = {"graphmem.db.query": query or "unnamed", "graphmem.db.mode": mode,
                  "db.system.name": "neo4j", "db.namespace": database}
    return _Span(otel, "graphmem.db", attributes, kind="client",
                 metrics=("graphmem.db.queries", "graphmem.db.duration",
                          ("graphmem.db.query", "graphmem.db.mode")))


def db_rows(rows: int) -> None:
    """Count ``rows`` records returned inside the current :func:`db_span` (a no-op outside)."""
    current = _DB.get()
    if current is not None:
        current.rows += rows


@contextlib.contextmanager
def db_waiting() -> Iterator[None]:
    """Time inside the current :func:`db_span` spent off the database (e.g. waiting for an
    encoder thread): left out of the database time."""
    current = _DB.get()
    began = time.perf_counter()
    try:
        yield
    finally:
        if current is not None:
            current.waited_ms += (time.perf_counter() - began) * 1000


def record_llm_usage(usage: Any, memory: str | None, namespace: str | None) -> None:
    """Add an operation's :class:`~graphmem.llm.LLMUsage` to ``graphmem.llm.calls`` and
    ``graphmem.llm.tokens`` (attributes: namespace, memory, ``graphmem.llm.operation`` and, on
    tokens, ``graphmem.llm.token_type`` input / output)."""
    otel = _otel()
    if otel is None or not usage.operations:
        return
    calls, tokens = otel.instruments["graphmem.llm.calls"], otel.instruments["graphmem.llm.tokens"]
    for operation, op in usage.operations.items():
        base = _clean({"namespace": namespace, "memory": memory,
                       "graphmem.llm.operation": operation})
        if op.calls:
            calls.add(op.calls, base)
        for kind, n in (("input", op.input_tokens), ("output", op.output_tokens)):
            if n:
                tokens.add(n, {**base, "graphmem.llm.token_type": kind})
