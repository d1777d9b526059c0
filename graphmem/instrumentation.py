"""What graphmem traces above the database: every memory's ``recall`` and ``ingest`` (wrapped
once in :class:`graphmem.memory.Memory`, so a memory registered later is traced too), the
fused recall and the agent verbs ``add`` / ``feedback`` / ``forget``, each a span with the sizes
of its result (never a text or an id) and, for recall and ingest, the metrics of
:mod:`graphmem.telemetry`.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable
from typing import Any

from graphmem.telemetry import counter, enabled, operation_span, span

#: The innermost traced operation of this context: ``(object, verb)``.
_ACTIVE: contextvars.ContextVar[tuple[Any, str] | None] = contextvars.ContextVar(
    "graphmem_operation", default=None)


def _llm_attributes(result: Any) -> dict[str, int]:
    ops = getattr(getattr(result, "llm_usage", None), "operations", None) or {}
    return {"llm_calls": sum(u.calls for u in ops.values()),
            "llm_tokens": sum(u.input_tokens + u.output_tokens for u in ops.values())}


def _result_attributes(verb: str, result: Any) -> dict[str, Any]:
    """Sizes of a :class:`~graphmem.memory.RecallResult` (items, rounds) or an
    :class:`~graphmem.memory.IngestReport` (inputs, created nodes and relationships summed,
    skipped, seconds), with their LLM calls and tokens."""
    if verb == "recall":
        return {"items": len(getattr(result, "items", ()) or ()),
                "rounds": len(getattr(result, "rounds", ()) or ()), **_llm_attributes(result)}
    return {"inputs": getattr(result, "inputs", None),
            "created": sum((getattr(result, "created", None) or {}).values()),
            "skipped": sum((getattr(result, "skipped", None) or {}).values()),
            "seconds": getattr(result, "seconds", None), **_llm_attributes(result)}


def _traced(fn: Callable[..., Any], verb: str, memory: str | None = None) -> Callable[..., Any]:
    parameter = inspect.signature(fn).parameters.get("k")
    k_default = None if parameter is None or parameter.default is inspect.Parameter.empty \
        else parameter.default
    name = f"graphmem.{verb}"

    @functools.wraps(fn)
    def traced(self: Any, *args: Any, **kwargs: Any) -> Any:
        active = _ACTIVE.get()
        if (active is not None and active[0] is self and active[1] == verb) or not enabled():
            return fn(self, *args, **kwargs)  # e.g. a subclass's recall calling super().recall
        attributes = {}
        if verb == "recall":
            k = kwargs["k"] if "k" in kwargs else args[1] if len(args) > 1 else k_default
            attributes["k"] = k if isinstance(k, int) and not isinstance(k, bool) else None
        token = _ACTIVE.set((self, verb))
        try:
            label = memory or getattr(self, "name", type(self).__name__)
            with operation_span(name, label, self.namespace, **attributes) as current:
                result = fn(self, *args, **kwargs)
                if current.recording:
                    current.set(_result_attributes(verb, result))
                inputs = getattr(result, "inputs", None) if verb == "ingest" else None
                if isinstance(inputs, int) and inputs:
                    counter("graphmem.ingested_inputs").add(
                        inputs, {"graphmem.namespace": self.namespace, "graphmem.memory": label})
                return result
        finally:
            _ACTIVE.reset(token)

    traced.__graphmem_traced__ = True  # type: ignore[attr-defined]
    return traced


def instrument_memory(cls: type) -> None:
    """Wrap the ``recall`` and ``ingest`` a :class:`~graphmem.memory.Memory` subclass defines
    itself in their spans and metrics (called by ``Memory.__init_subclass__``, so every memory,
    one registered later included, is traced). A memory's recall calling another memory's recall
    gives a nested span; a recall calling the same memory's overridden recall (``super()``)
    gives one span."""
    for verb in ("recall", "ingest"):
        fn = cls.__dict__.get(verb)
        if inspect.isfunction(fn) and not getattr(fn, "__graphmem_traced__", False) \
                and not getattr(fn, "__isabstractmethod__", False):
            setattr(cls, verb, _traced(fn, verb))


def traced_recall(memory: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: trace a recall over memories (``fn(mem, query, k, ...)``, ``mem`` with a
    ``namespace``) as a ``graphmem.recall`` span of ``memory`` (e.g. ``"fused"``), with its
    metrics, like a memory's own recall."""
    return lambda fn: _traced(fn, "recall", memory)


def traced(name: str, attributes: Callable[[Any], dict[str, Any]] | None = None
           ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: each call of ``fn(mem, ...)`` (``mem`` with a ``namespace``: a
    ``GraphMemory``) runs in span ``name`` with ``graphmem.namespace``; ``attributes(result)``
    gives attributes of the result (sizes and counts only), set when the span records."""
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(mem: Any, *args: Any, **kwargs: Any) -> Any:
            with span(name, namespace=getattr(mem, "namespace", None)) as current:
                result = fn(mem, *args, **kwargs)
                if attributes is not None and current.recording:
                    current.set(attributes(result))
                return result
        return wrapper
    return decorate
