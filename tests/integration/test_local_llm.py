"""The real local model (SmolLM2-135M-Instruct GGUF via llama-cpp-python, the ``local-llm``
extra) against the controllers' reply models with call-specific constraints: every reply parses
and keeps to the constraints, because decoding is schema-constrained. A 135M model decides
badly; these tests check the plumbing (prompts, schemas, grammar, retries, accounting), not the
judgment. Needs no database. Without the extra they fail with the install hint."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from graphmem.associative.llm_extraction import EpisodeBatchExtraction
from graphmem.associative.routing import LLMRouting
from graphmem.errors import ConfigurationError, ControllerError
from graphmem.experience.insights import InsightText
from graphmem.insight.controller import controller_schema
from graphmem.insight.models import OperationSet
from graphmem.llm import LLMTimeoutError, LLMUsage, constrained_schema, invoke_structured
from graphmem.llm_local import LocalChatModel, local_chat_model
from graphmem.state.extraction import ExtractionBatch

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out

logger = logging.getLogger(__name__)

_STATS: dict[str, float] = {"input": 0, "output": 0, "seconds": 0.0, "cpu": 0.0}


@pytest.fixture(scope="module")
def llm() -> Iterator[LocalChatModel]:
    """The packaged SmolLM2 GGUF, loaded once; prints load time and tokens/s at the end."""
    started = time.perf_counter()
    try:
        model = local_chat_model(max_tokens=384, timeout_s=120.0)
    except ConfigurationError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield model
    wall, cpu = max(_STATS["seconds"], 1e-9), max(_STATS["cpu"], 1e-9)
    summary = (f"local LLM: load {model.load_seconds:.2f} s; {int(_STATS['input'])} prompt + "
               f"{int(_STATS['output'])} reply tokens in {wall:.1f} s wall / {cpu:.1f} s CPU: "
               f"{_STATS['output'] / wall:.1f} reply tokens/s wall, "
               f"{_STATS['output'] / cpu:.1f} per CPU-second (prompt time included); "
               f"module {time.perf_counter() - started:.1f} s")
    logger.info(summary)
    print(f"\n{summary}")


def _ask(llm: LocalChatModel, schema, messages, operation: str, json_schema=None):  # noqa: ANN
    """``(parsed reply, usage)``; ``(None, usage)`` when both attempts were rejected because the
    model echoed the schema or the prompt (a 135M model shown the schema does): a failed call,
    counted as such, never data."""
    usage = LLMUsage()
    started, cpu = time.perf_counter(), time.process_time()
    try:
        out = invoke_structured(llm, schema, messages, usage, operation, json_schema=json_schema)
    except ControllerError as exc:
        op = usage.operations[operation]
        assert "echoes the prompt or the schema" in str(exc), exc
        assert op.calls == op.failed == 2 and op.output_tokens > 0
        return None, op
    _STATS["seconds"] += time.perf_counter() - started
    _STATS["cpu"] += time.process_time() - cpu
    op = usage.operations[operation]
    _STATS["input"] += op.input_tokens
    _STATS["output"] += op.output_tokens
    logger.info("%s: %d call(s), %d prompt + %d reply tokens", operation, op.calls,
                op.input_tokens, op.output_tokens)
    assert 1 <= op.calls <= 2
    assert op.input_tokens > 0 and op.output_tokens > 0
    return out, op


def test_state_extraction_batch(llm: LocalChatModel) -> None:
    turns = ["Caroline: I started saving for an adoption last month.",
             "Melanie: That's great! I painted a sunrise over the lake yesterday.",
             "Caroline: My sister moved to Boston in May."]
    schema = constrained_schema(ExtractionBatch, ranges={"items.index": (0, len(turns) - 1)},
                                min_length=["items.subject", "items.topic"],
                                max_items={"items": len(turns)}, max_length=80)
    listing = "\n".join(f"[{i}] {t}" for i, t in enumerate(turns))
    out, _ = _ask(llm, ExtractionBatch,
                  [("system", "For each numbered turn give its subject, a short topic and the "
                              "state it asserts."), ("human", listing)],
                  "state.extract", schema)
    assert isinstance(out, ExtractionBatch) and 1 <= len(out.items) <= len(turns)
    for item in out.items:
        assert 0 <= item.index < len(turns)
        assert item.subject.strip() and item.topic.strip()


def test_associative_extraction_batch(llm: LocalChatModel) -> None:
    episodes = {"ep-7": "Caroline went to an LGBTQ support group on 7 May 2023.",
                "ep-9": "Melanie ran a charity race for mental health on 20 May 2023."}
    schema = constrained_schema(
        EpisodeBatchExtraction, enums={"episodes.source_id": list(episodes)}, min_length=True,
        max_items={"episodes": 2, "episodes.cues": 4, "episodes.semantic_units": 1,
                   "episodes.semantic_units.cues": 2},
        max_length=60)
    listing = "\n".join(f"source_id={sid}: {text}" for sid, text in episodes.items())
    out, _ = _ask(llm, EpisodeBatchExtraction,
                  [("system", "List cues (entities, times, actions) with a short tag for every "
                              "episode, using the given source ids."), ("human", listing)],
                  "associative.extract", schema)
    assert isinstance(out, EpisodeBatchExtraction) and out.episodes
    for item in out.episodes:
        assert item.source_id in episodes
        for cue in item.cues:
            assert cue.cue.strip() and cue.tag.strip()


def test_insight_controller_plan(llm: LocalChatModel) -> None:
    ids, ops = ["ins-1", "ins-2"], OperationSet.ALL
    model = controller_schema(ops, ids)
    schema = constrained_schema(model, enums={"edits.operation": list(ops.edit_operations)},
                                min_length=["edits.reason"], one_each={"edits.insight_id": ids},
                                required_if={"new_insight": ("add", True),
                                             "edits.revised_content": ("operation", "REVISE")},
                                max_length=120)
    out, op = _ask(llm, model,
                   [("system", "Decide KEEP, ARCHIVE or REVISE for each insight and whether "
                               "the task yields a new one."),
                    ("human", "Task: boil water for tea (resolved). Insights:\n"
                              "ins-1: Cover the pot.\nins-2: Use cold water.")],
                   "insight.controller", schema)
    if out is None:  # rejected as an echo (checked in _ask)
        return
    assert [e.insight_id for e in out.edits] == ids  # the model's own validator passed too
    assert all(e.operation in ops.edit_operations and e.reason.strip() for e in out.edits)
    assert not out.add or (out.new_insight or "").strip()


def test_associative_routing_numbers_stay_in_range(llm: LocalChatModel) -> None:
    shown = ["(Caroline, went to support group)", "(May 2023, charity race)",
             "(Melanie, painted sunrise)"]
    schema = constrained_schema(LLMRouting, ranges={"selected": (1, len(shown))},
                                max_items={"selected": len(shown)}, max_length=80)
    prompt = ("Question: When did Caroline go to the support group?\nCandidates:\n"
              + "\n".join(f"{i}. {c}" for i, c in enumerate(shown, 1)))
    out, _ = _ask(llm, LLMRouting, [("system", "Select the numbered candidates that help."),
                                    ("human", prompt)], "associative.route", schema)
    if out is None:  # rejected as an echo (checked in _ask)
        return
    assert all(1 <= n <= len(shown) for n in out.selected)


def test_insight_text_is_non_empty_and_deterministic(llm: LocalChatModel) -> None:
    schema = constrained_schema(InsightText, min_length=True, max_length=160)
    messages = [("system", "You distil one reusable lesson from a task."),
                ("human", "Task: boil water for tea. Steps: fill kettle, switch on, wait.")]
    first, _ = _ask(llm, InsightText, messages, "experience.intra_insight", schema)
    second, _ = _ask(llm, InsightText, messages, "experience.intra_insight", schema)
    assert first.insight.strip() and first == second


def test_token_bound_raises_a_typed_timeout_with_usage(llm: LocalChatModel) -> None:
    short = llm.model_copy(update={"max_tokens": 4})
    short._llama, short._formatter = llm._llama, llm._formatter
    with pytest.raises(LLMTimeoutError, match="4-token limit") as info:
        short.with_structured_output(InsightText).invoke([("human", "Say something long.")])
    assert info.value.usage_metadata["output_tokens"] == 4
    assert info.value.usage_metadata["input_tokens"] > 0


def test_model_defaults_set_llama_fields_for_one_load_only():
    import llama_cpp.llama_cpp as low

    from graphmem.llm_local import _model_defaults

    assert low.llama_model_default_params().use_extra_bufts is True  # llama.cpp's default
    with _model_defaults(use_extra_bufts=False, not_a_llama_field=1):
        params = low.llama_model_default_params()
        assert params.use_extra_bufts is False and not hasattr(params, "not_a_llama_field")
    assert low.llama_model_default_params().use_extra_bufts is True
    assert LocalChatModel(model_path="m.gguf").extra_buffer_types is False
