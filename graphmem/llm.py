"""LLM calls with structured output, one retry, and per-operation accounting.

Every controller and extractor that uses a langchain-core ``BaseChatModel`` goes through
:func:`invoke_structured`, which counts every attempt (failed ones too) and its tokens (from the
message's ``usage_metadata``) into an :class:`LLMUsage` per operation. Results carry the usage of
the call that produced them (``llm_usage``); memories keep a running total
(:class:`LLMAccounting`); :func:`describe_usage` is the CLI summary line.

Per-call constraints
--------------------
A call may pass ``json_schema``: the reply model's JSON schema with the rules this call knows,
built by :func:`graphmem.llm_schema.constrained_schema` (re-exported here). A model that decodes
under a schema (:class:`graphmem.llm_local.LocalChatModel`) gets it, so its reply cannot leave
it; with any model, the reply is checked against it before it is returned, and a reply that
breaks it is retried once like a malformed one. What each operation passes (each builder lives
beside its controller)::

    # insight.controller (insight.controller.controller_json_schema): exactly one edit per
    # retrieved insight, allowed operations only, a non-blank reason, revised_content with
    # REVISE, a non-blank new_insight when add is true (no edits when nothing was retrieved)
    constrained_schema(schema, enums={"edits.operation": list(operations.edit_operations)},
                       min_length=["edits.reason"], one_each={"edits.insight_id": ids},
                       required_if={"new_insight": ("add", True),
                                    "edits.revised_content": ("operation", "REVISE")})
    # state.extract (state.extraction.extraction_json_schema): turn indices of this batch,
    # at most one item per turn, non-blank subject and topic
    constrained_schema(ExtractionBatch, ranges={"items.index": (0, len(chunk) - 1)},
                       min_length=["items.subject", "items.topic"],
                       max_items={"items": len(chunk)})
    # state.controller (state.planner.planner_json_schema): the action enum, without
    # time_range when the question names no date range
    constrained_schema(ControllerChoice, enums={"action": allowed})
    # associative.extract (associative.llm_extraction.extraction_json_schema): source ids of
    # this batch only, non-blank cues, tags and facts, bounded lists
    constrained_schema(EpisodeBatchExtraction, enums={"episodes.source_id": wanted},
                       min_length=True, max_items={"episodes": len(wanted),
                                                   "episodes.cues": 10, ...})
    # associative.route (associative.routing.routing_json_schema): tag numbers shown
    # (1-based) only
    constrained_schema(LLMRouting, ranges={"selected": (1, len(shown))},
                       max_items={"selected": len(shown)})
    # experience.intra_insight / experience.cross_insight (experience.insights.
    # insight_json_schema): a non-blank insight
    constrained_schema(InsightText, min_length=True)

Replies that are malformed, break the schema, time out (:class:`LLMTimeoutError`) or make the
provider raise are retried once (the retry tells the model what was wrong), then
:class:`~graphmem.errors.ControllerError` names the operation and the last problem.

Echoes are failures too (:func:`echo_errors`, from :mod:`graphmem.llm_echo`): a small model
decoding under a schema it was shown may fill the fields with the schema's own words (a fact
reading "The fact, one short sentence naming its subject.", a tag reading
"entity|attribute|time|action|keyword") or with the prompt's instructions. Every free text of
a reply is compared, normalised, with the descriptions, titles and enum listings of the schema
sent and with the system messages; a reply that repeats them, or holds text without a letter or
digit, is retried like an invalid one and never returned as data. The retry after an echo does
not quote the echoed text back, and a model decoding under a schema it is shown gets that
schema without its descriptions and titles (same rules, nothing to copy). Each failed attempt
is counted in :attr:`OperationUsage.failed`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from graphmem import telemetry
from graphmem.errors import ControllerError
from graphmem.llm_echo import (
    ECHO_MIN_WORDS,  # noqa: F401 (re-export)
    ECHO_NOTE,
    EchoError,
    echo_errors,
    prompt_instructions,
    without_prose,
)
from graphmem.llm_schema import check_json_schema, constrained_schema

__all__ = ["LLMAccounting", "LLMTimeoutError", "LLMUsage", "OperationUsage",
           "constrained_schema", "describe_usage", "echo_errors", "invoke_structured",
           "usage_totals"]

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


class LLMTimeoutError(ControllerError):
    """One LLM call ran past its wall-clock limit (or its token bound without a complete reply).

    ``usage_metadata`` (``{"input_tokens", "output_tokens", "total_tokens"}``) holds what the
    call consumed until it was stopped, so the accounting can count it.
    """

    def __init__(self, message: str, usage_metadata: Mapping[str, int] | None = None) -> None:
        super().__init__(message)
        self.usage_metadata = dict(usage_metadata or {})


class OperationUsage(BaseModel):
    """Calls and tokens of one operation (e.g. ``"insight.controller"``); ``failed``: the calls
    whose reply was rejected (malformed, off the schema, an echo, a timeout or a provider
    error), included in ``calls``."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failed: int = 0


class LLMUsage(BaseModel):
    """LLM accounting by operation name. Zero everywhere on heuristic paths."""

    operations: dict[str, OperationUsage] = Field(default_factory=dict)

    def record(self, operation: str, input_tokens: int = 0, output_tokens: int = 0) -> None:
        """Add one call of ``operation`` with its token counts."""
        usage = self.operations.setdefault(operation, OperationUsage())
        usage.calls += 1
        usage.input_tokens += int(input_tokens or 0)
        usage.output_tokens += int(output_tokens or 0)

    def record_failure(self, operation: str) -> None:
        """Mark the last recorded call of ``operation`` as failed (its reply was rejected)."""
        self.operations.setdefault(operation, OperationUsage()).failed += 1

    def merge(self, other: LLMUsage) -> None:
        """Add ``other``'s counts into this one."""
        for name, usage in other.operations.items():
            mine = self.operations.setdefault(name, OperationUsage())
            mine.calls += usage.calls
            mine.input_tokens += usage.input_tokens
            mine.output_tokens += usage.output_tokens
            mine.failed += usage.failed

    @property
    def calls(self) -> int:
        """Total calls over all operations."""
        return sum(u.calls for u in self.operations.values())


def _tokens(source: Any) -> tuple[int, int]:
    """``(input, output)`` tokens of a reply: a message's ``usage_metadata``, the ``raw`` message
    of an ``include_raw`` result, or an exception carrying either (``usage_metadata``, ``raw``,
    or langchain's ``llm_output`` message); ``(0, 0)`` when none is known."""
    for candidate in (source, getattr(source, "raw", None),
                      source.get("raw") if isinstance(source, dict) else None,
                      getattr(source, "llm_output", None)):
        meta = getattr(candidate, "usage_metadata", None)
        if isinstance(meta, Mapping) and meta:
            return int(meta.get("input_tokens") or 0), int(meta.get("output_tokens") or 0)
    return 0, 0


def _accepts_json_schema(llm: Any) -> bool:
    """Whether ``llm.with_structured_output`` takes a ``json_schema`` to decode under."""
    return bool(getattr(llm, "accepts_json_schema", False))


def _parse(result: Any, schema: type[T]) -> T:
    """The ``schema`` instance in a structured-output result, or ``ValueError`` saying why not."""
    parsed = result.get("parsed") if isinstance(result, dict) else result
    if isinstance(parsed, schema):
        return parsed
    if isinstance(parsed, dict):
        return schema.model_validate(parsed)
    problem = result.get("parsing_error") if isinstance(result, dict) else None
    raise ValueError(str(problem or f"no {schema.__name__} in the reply"))


def invoke_structured(
    llm: Any,
    schema: type[T],
    messages: Sequence[Any],
    usage: LLMUsage,
    operation: str,
    retries: int = 1,
    json_schema: Mapping[str, Any] | None = None,
) -> T:
    """Ask ``llm`` (a langchain-core ``BaseChatModel``) for an instance of ``schema``.

    Uses ``llm.with_structured_output(schema, include_raw=True)`` (plus ``json_schema=`` when
    the model decodes under one). A reply that does not parse into ``schema``, breaks
    ``json_schema``, times out or raises is retried ``retries`` times (once by default), with a
    note to the model saying what was wrong. Every attempt is counted in ``usage`` under
    ``operation`` as one call, with the tokens of its raw message (or of the exception, when it
    carries them).

    Args:
        llm: the chat model.
        schema: the pydantic model of the reply.
        messages: langchain-core messages or ``(role, text)`` pairs.
        usage: accounting to add the attempts to.
        operation: accounting name, e.g. ``"state.extract"``.
        retries: further attempts after the first.
        json_schema: this call's constraints on the reply, e.g. from
            :func:`constrained_schema` (see the module docstring).

    Returns:
        The parsed ``schema`` instance.

    Raises:
        ControllerError: still invalid after the retries (names the operation and the error).
    """
    kwargs: dict[str, Any] = {"include_raw": True}
    if json_schema is not None and _accepts_json_schema(llm):
        kwargs["json_schema"] = dict(json_schema)
    structured = llm.with_structured_output(schema, **kwargs)
    sent = [schema.model_json_schema(), *([json_schema] if json_schema is not None else [])]
    instructions = prompt_instructions(messages)
    prompt = list(messages)
    last_error: Exception | None = None
    for attempt in range(retries + 1):
        if isinstance(last_error, EchoError):
            # say what was wrong without quoting it again; a model decoding under a schema it
            # is shown gets the same schema without its prose to copy
            prompt = [*messages, ("human", f"Your previous reply was rejected: {ECHO_NOTE}")]
            if _accepts_json_schema(llm):
                structured = llm.with_structured_output(
                    schema, include_raw=True, json_schema=without_prose(json_schema or sent[0]))
        elif last_error is not None:
            prompt = [*messages, ("human", "Your previous reply was rejected: "
                                  f"{str(last_error)[:300]}. Reply again, following the schema.")]
        try:
            result = structured.invoke(prompt)
        except Exception as exc:  # provider error, timeout, unparsable output: retried
            usage.record(operation, *_tokens(exc))
            usage.record_failure(operation)
            last_error = exc
            logger.warning("%s: attempt %d failed: %s", operation, attempt + 1, exc)
            continue
        usage.record(operation, *_tokens(result))
        try:
            parsed = _parse(result, schema)
            data = parsed.model_dump(mode="json", by_alias=True)
            if json_schema is not None:
                check_json_schema(data, json_schema)
            echoes = echo_errors(data, sent, instructions)
            if echoes:
                more = f" (+{len(echoes) - 3} more)" if len(echoes) > 3 else ""
                raise EchoError("the reply echoes the prompt or the schema instead of content: "
                                + "; ".join(echoes[:3]) + more)
        except Exception as exc:
            usage.record_failure(operation)
            last_error = exc
            logger.warning("%s: attempt %d gave an invalid reply: %s", operation, attempt + 1,
                           exc)
            continue
        return parsed
    raise ControllerError(f"{operation}: invalid LLM output after {retries + 1} attempts: "
                          f"{last_error}") from last_error


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
    per_op = ", ".join(f"{name} {op.calls}" + (f" ({op.failed} failed)" if op.failed else "")
                       for name, op in sorted(usage.operations.items()))
    return (f"LLM calls: {calls} ({path} path; {tokens_in} input / {tokens_out} output tokens; "
            f"{per_op})")


class LLMAccounting:
    """Mixin for the memory classes: a running total of every LLM call the memory made.

    Each operation builds its own :class:`LLMUsage` (returned on its result) and hands it to
    :meth:`_account`, which merges it into the total under a lock (operations may run in
    threads, e.g. through ``arecall``) and adds it to the ``graphmem.llm.*`` metrics
    (:mod:`graphmem.telemetry`).
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
        telemetry.record_llm_usage(usage, getattr(self, "name", None),
                                   getattr(self, "namespace", None))
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
