"""Every LLM controller and extractor against the REAL local model (SmolLM2-135M-Instruct GGUF
through llama-cpp-python, the ``local-llm`` extra), through the memories, on the real Neo4j.

Each test checks the plumbing: the reply parsed into the controller's pydantic model, the graph
changed as the memory reports, and the accounting counted calls and tokens for the operation.
A 135M model decides badly; its judgment is not tested. A scripted fake model checks that a
malformed reply is retried once, then raises ``ControllerError`` with nothing written. The
module prints the model's load time, wall time and reply tokens per second at the end.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fakes import ScriptedChatModel, tool_reply
from pydantic import BaseModel
from rich.console import Console

from graphmem.associative import AssociativeMemory
from graphmem.errors import ConfigurationError, ControllerError
from graphmem.experience import ExperienceMemory
from graphmem.insight import InsightMemory
from graphmem.llm import LLMUsage
from graphmem.state import StateMemory

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out

logger = logging.getLogger(__name__)

_STATS: dict[str, float] = {"calls": 0, "input": 0, "output": 0, "seconds": 0.0}


class RecordingModel:
    """Delegates to a chat model and keeps every parsed reply as ``(schema name, parsed)``."""

    accepts_json_schema = True

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.parsed: list[tuple[str, Any]] = []

    def with_structured_output(self, schema: type[BaseModel], **kwargs: Any) -> Any:
        inner, parsed = self.llm.with_structured_output(schema, **kwargs), self.parsed

        class _Run:
            def invoke(self, prompt: Any) -> Any:
                out = inner.invoke(prompt)
                parsed.append((schema.__name__, out.get("parsed")))
                return out

        return _Run()

    def replies(self, schema_name: str) -> list[Any]:
        """The parsed replies to ``schema_name`` calls (``None`` for an unparsable one)."""
        return [p for name, p in self.parsed if name == schema_name]


@pytest.fixture(scope="module")
def local_llm() -> Iterator[Any]:
    """The packaged SmolLM2 GGUF, loaded once; prints wall time and tokens/s at the end."""
    from graphmem.demo_llm import demo_model

    started = time.perf_counter()
    try:
        model = demo_model()
    except ConfigurationError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield model
    wall = max(_STATS["seconds"], 1e-9)
    summary = (f"LLM path: load {model.load_seconds:.2f} s; {int(_STATS['calls'])} calls, "
               f"{int(_STATS['input'])} prompt + {int(_STATS['output'])} reply tokens in "
               f"{wall:.1f} s of LLM operations: {_STATS['output'] / wall:.1f} reply tokens/s "
               f"(prompt processing, embedding and Neo4j included); module "
               f"{time.perf_counter() - started:.1f} s")
    logger.info(summary)
    print(f"\n{summary}")


@pytest.fixture
def llm(local_llm: Any) -> RecordingModel:
    return RecordingModel(local_llm)


def _timed(fn: Any) -> Any:
    began = time.perf_counter()
    out = fn()
    _STATS["seconds"] += time.perf_counter() - began
    return out


def _counted(usage: LLMUsage, operation: str, max_calls: int = 2) -> None:
    """``usage`` counted 1..``max_calls`` calls (one retry each allowed) with tokens for
    ``operation``."""
    op = usage.operations[operation]
    _STATS["calls"] += op.calls
    _STATS["input"] += op.input_tokens
    _STATS["output"] += op.output_tokens
    logger.info("%s: %d call(s), %d prompt + %d reply tokens", operation, op.calls,
                op.input_tokens, op.output_tokens)
    assert 1 <= op.calls <= max_calls and op.input_tokens > 0 and op.output_tokens > 0


def _conversation(turns: int = 3) -> Any:
    from graphmem.conversations import read_conversations
    from graphmem.datasets import resolve

    conversation = read_conversations(resolve("locomo"))[0]
    return conversation.model_copy(update={"turns": conversation.turns[:turns], "qa": []})


def test_state_ingest_and_recall(runner, embedder, namespace, llm) -> None:
    from graphmem.state.extraction import ExtractionBatch
    from graphmem.state.planner import ControllerChoice

    mem = StateMemory(runner, embedder, namespace, llm=llm)
    conversation = _conversation(3)
    report = _timed(lambda: mem.ingest([conversation]))
    _counted(report.llm_usage, "state.extract")
    batches = llm.replies("ExtractionBatch")
    assert batches and isinstance(batches[-1], ExtractionBatch)
    assert all(0 <= item.index < 3 and item.subject.strip() for item in batches[-1].items)
    counts = mem.counts()
    assert counts["Event"] == 3 and counts["Topic"] >= 1
    assert report.created.get("Event") == 3
    question = f"What did {conversation.turns[0].speaker} talk about?"
    result = _timed(lambda: mem.recall(question, k=5, max_rounds=2))
    _counted(result.llm_usage, "state.controller", max_calls=4)  # <= 2 rounds, 1 retry each
    choices = llm.replies("ControllerChoice")
    assert choices and all(isinstance(c, ControllerChoice) for c in choices)
    assert result.rounds and all(r.action for r in result.rounds)
    assert mem.counts() == counts  # recall writes nothing


def test_associative_ingest_and_recall(runner, embedder, namespace, llm) -> None:
    from graphmem.associative.llm_extraction import EpisodeBatchExtraction
    from graphmem.associative.routing import LLMRouting

    mem = AssociativeMemory(runner, embedder, namespace, llm=llm)
    conversation = _conversation(3)
    wanted = {t.source_id for t in conversation.turns}
    report = _timed(lambda: mem.ingest([conversation]))
    _counted(report.llm_usage, "associative.extract")
    batch = llm.replies("EpisodeBatchExtraction")[-1]
    assert isinstance(batch, EpisodeBatchExtraction)
    assert all(item.source_id in wanted for item in batch.episodes)
    assert all(c.cue.strip() and c.tag.strip() for item in batch.episodes for c in item.cues)
    counts = mem.counts()
    assert counts["Episode"] == 3
    if any(item.cues for item in batch.episodes):
        assert counts["Cue"] >= 1 and counts["Tag"] >= 1
    question = f"What did {conversation.turns[0].speaker} talk about?"
    result = _timed(lambda: mem.recall(question, k=5, max_rounds=1))
    routes = llm.replies("LLMRouting")
    if routes:  # routing runs only when a question cue reached a tag
        _counted(result.llm_usage, "associative.route")
        assert all(isinstance(r, LLMRouting) for r in routes)
    else:
        assert counts["Tag"] == 0 or result.llm_usage.calls == 0
    assert result.items


def test_insight_feedback(runner, embedder, namespace, llm) -> None:
    mem = InsightMemory(runner, embedder, namespace, llm=llm)
    query_id = mem.add_query("Boil water for tea", "resolved", ["fill kettle", "switch on"])
    insight_id = mem.add_insight("Fill the kettle before switching it on.", [query_id])
    before = mem.counts()
    try:
        result = _timed(lambda: mem.feedback("Boil water for pasta", "resolved",
                                             ["fill pot", "cover pot", "switch on"],
                                             [insight_id]))
    except ControllerError as exc:
        # the 135M model may copy the schema (field names, descriptions) into its plan: a
        # failed call twice, and nothing of the feedback is written
        assert "echoes the prompt or the schema" in str(exc), exc
        assert len(llm.replies("ControllerOutput")) == 2 and mem.counts() == before
        return
    _counted(result.llm_usage, "insight.controller")
    plan = llm.replies("ControllerOutput")[-1]
    assert plan is not None and [e.insight_id for e in plan.edits] == [insight_id]
    assert result.controller == "llm"
    edits = [d for d in result.decisions
             if d.insight_id == insight_id and d.operation in ("KEEP", "ARCHIVE", "REVISE")]
    assert len(edits) == 1 and edits[0].operation == plan.edits[0].operation
    after = mem.counts()
    assert after["Query"] == before["Query"] + 1
    assert after["ControllerDecision"] > before["ControllerDecision"]
    assert after["Insight"] == before["Insight"] + int(plan.add) + int(bool(result.revised))


def test_experience_insights(runner, embedder, namespace, llm) -> None:
    from graphmem.demo_llm import demo_slice
    from graphmem.experience.insights import InsightText

    data = demo_slice(turns=1, claims=1, tasks=2, exploration_steps=3)
    mem = ExperienceMemory(runner, embedder, namespace, llm=llm)
    report = _timed(lambda: mem.ingest(data["experts"], explorations=data["explorations"][:1],
                                       k=1, tau=-1.0))
    _counted(report.llm_usage, "experience.intra_insight")
    _counted(report.llm_usage, "experience.cross_insight")
    texts = llm.replies("InsightText")
    assert len(texts) >= 2 and all(isinstance(t, InsightText) and t.insight.strip()
                                   for t in texts)
    counts = mem.counts()
    assert counts["Task"] == 2 and counts["DecisionGraph"] >= 2
    item = mem.recall(data["experts"][0].query, k=1).items[0]
    assert item.text.strip()


def test_malformed_reply_is_retried_once_then_nothing_is_written(runner, embedder,
                                                                 namespace) -> None:
    bad = tool_reply("ControllerOutput", {"edits": [], "add": True}, 20, 4)  # no new_insight
    never = tool_reply("ControllerOutput", {"edits": [], "add": False})
    model = ScriptedChatModel(responses=[bad, bad, never])
    mem = InsightMemory(runner, embedder, namespace, llm=model)
    before = mem.counts()
    with pytest.raises(ControllerError, match="insight.controller: invalid LLM output after 2"):
        mem.feedback("Boil water for tea", "resolved", ["fill kettle", "switch on"], [])
    assert model.i == 2  # asked exactly twice: the first try and one retry
    assert mem.counts() == before
    extraction = ScriptedChatModel(responses=[
        tool_reply("ExtractionBatch", {"items": [{"index": 7, "subject": "A", "topic": "t"}]}),
        tool_reply("ExtractionBatch", {"items": [{"index": 0, "subject": " ", "topic": "t"}]}),
        tool_reply("ExtractionBatch", {"items": []})])
    state = StateMemory(runner, embedder, namespace, llm=extraction)
    with pytest.raises(ControllerError, match="state.extract: invalid LLM output after 2"):
        state.ingest([_conversation(2)])
    assert extraction.i == 2
    assert state.counts() == {"Topic": 0, "Event": 0, "State": 0, "ConversationLock": 0,
                              "Person": 0}


def test_llm_demo_runs_every_operation(runner, embedder, namespace, local_llm) -> None:
    from graphmem.demo_llm import demo_slice, run_llm_demo
    from graphmem.facade import GraphMemory

    mem = GraphMemory(runner, embedder, namespace)
    console = Console(record=True, width=140)
    summary = _timed(lambda: run_llm_demo(mem, console, llm=local_llm,
                                          data=demo_slice(turns=3, claims=1)))
    _STATS["calls"] += summary["calls"]
    _STATS["input"] += summary["input_tokens"]
    _STATS["output"] += summary["output_tokens"]
    operations = {r["operation"] for r in summary["rows"] if r["calls"]}
    assert {"state.extract", "associative.extract", "insight.controller",
            "experience.intra_insight"} <= operations
    assert summary["calls"] >= 4 and summary["output_tokens"] > 0
    assert "LLM path" in console.export_text()
