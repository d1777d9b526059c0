"""LLM calls with structured output, one retry, and per-operation accounting.

Every controller and extractor that uses a langchain-core ``BaseChatModel`` goes through
:func:`invoke_structured`, which counts calls and tokens (from the message's
``usage_metadata``) into an :class:`LLMUsage` per operation. Results carry the usage of the call
that produced them (``llm_usage``); memories keep a running total (:class:`LLMAccounting`);
:func:`describe_usage` is the CLI summary line.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from graphmem.errors import ControllerError

T = TypeVar("T", bound=BaseModel)


class OperationUsage(BaseModel):
    """Calls and tokens of one operation (e.g. ``"insight.controller"``)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class LLMUsage(BaseModel):
    """LLM accounting by operation name. Zero everywhere on heuristic paths."""

    operations: dict[str, OperationUsage] = Field(default_factory=dict)

    def record(self, operation: str, input_tokens: int = 0, output_tokens: int = 0) -> None:
        """Add one call of ``operation`` with its token counts."""
        usage = self.operations.setdefault(operation, OperationUsage())
        usage.calls += 1
        usage.input_tokens += int(input_tokens or 0)
        usage.output_tokens += int(output_tokens or 0)

    def merge(self, other: LLMUsage) -> None:
        """Add ``other``'s counts into this one."""
        for name, usage in other.operations.items():
            mine = self.operations.setdefault(name, OperationUsage())
            mine.calls += usage.calls
            mine.input_tokens += usage.input_tokens
            mine.output_tokens += usage.output_tokens

    @property
    def calls(self) -> int:
        """Total calls over all operations."""
        return sum(u.calls for u in self.operations.values())


def invoke_structured(
    llm: Any,
    schema: type[T],
    messages: Sequence[Any],
    usage: LLMUsage,
    operation: str,
    retries: int = 1,
) -> T:
    """Ask ``llm`` (a langchain-core ``BaseChatModel``) for an instance of ``schema``.

    Uses ``llm.with_structured_output(schema, include_raw=True)``; output that does not parse
    into ``schema`` is retried ``retries`` times (once by default). Every attempt is counted in
    ``usage`` under ``operation``.

    Raises:
        ControllerError: still invalid after the retries (names the operation and the error).
    """
    structured = llm.with_structured_output(schema, include_raw=True)
    last_error: Exception | str | None = None
    for _ in range(retries + 1):
        try:
            result = structured.invoke(list(messages))
        except Exception as exc:  # a provider error or unparsable output: one retry
            usage.record(operation)
            last_error = exc
            continue
        raw = result.get("raw") if isinstance(result, dict) else None
        meta = getattr(raw, "usage_metadata", None) or {}
        usage.record(operation, meta.get("input_tokens", 0), meta.get("output_tokens", 0))
        parsed = result.get("parsed") if isinstance(result, dict) else result
        if isinstance(parsed, schema):
            return parsed
        if isinstance(parsed, dict):
            try:
                return schema.model_validate(parsed)
            except Exception as exc:
                last_error = exc
                continue
        last_error = result.get("parsing_error") if isinstance(result, dict) else None
        last_error = last_error or f"no {schema.__name__} in the reply"
    raise ControllerError(f"{operation}: invalid LLM output after {retries + 1} attempts: {last_error}")


def usage_totals(usage: LLMUsage) -> tuple[int, int, int]:
    """``(calls, input_tokens, output_tokens)`` summed over all operations of ``usage``."""
    ops = usage.operations.values()
    return (sum(u.calls for u in ops), sum(u.input_tokens for u in ops),
            sum(u.output_tokens for u in ops))


def describe_usage(usage: LLMUsage, path: str) -> str:
    """One summary line, e.g. ``"LLM calls: 0 (heuristic path)"`` or
    ``"LLM calls: 3 (llm path; 420 input / 96 output tokens; state.extract 2, state.controller 1)"``.

    Args:
        usage: the accounting of one operation (or a running total).
        path: ``"heuristic"`` or ``"llm"`` (which controllers/extractors ran).
    """
    calls, tokens_in, tokens_out = usage_totals(usage)
    if not calls:
        return f"LLM calls: 0 ({path} path)"
    per_op = ", ".join(f"{name} {op.calls}" for name, op in sorted(usage.operations.items()))
    return (f"LLM calls: {calls} ({path} path; {tokens_in} input / {tokens_out} output tokens; "
            f"{per_op})")


class LLMAccounting:
    """Mixin for the memory classes: a running total of every LLM call the memory made.

    Each operation builds its own :class:`LLMUsage` (returned on its result) and hands it to
    :meth:`_account`, which merges it into the total under a lock (operations may run in
    threads, e.g. through ``arecall``).
    """

    def _llm_state(self) -> tuple[threading.Lock, LLMUsage]:
        lock = self.__dict__.setdefault("_llm_usage_lock", threading.Lock())
        with lock:
            total = self.__dict__.setdefault("_llm_usage_total", LLMUsage())
        return lock, total

    def _account(self, usage: LLMUsage) -> LLMUsage:
        """Add ``usage`` (one operation's accounting) to the running total; returns ``usage``."""
        lock, total = self._llm_state()
        with lock:
            total.merge(usage)
        return usage

    @property
    def llm_usage(self) -> LLMUsage:
        """A copy of the running total over all operations of this memory object (zero on
        heuristic paths)."""
        lock, total = self._llm_state()
        with lock:
            return total.model_copy(deep=True)

    def reset_llm_usage(self) -> None:
        """Set the running total back to zero."""
        lock, total = self._llm_state()
        with lock:
            total.operations.clear()
