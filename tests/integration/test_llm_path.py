"""Every LLM controller and extractor against the REAL local model (SmolLM2-135M-Instruct GGUF
through llama-cpp-python, the ``local-llm`` extra), through the four memories, on the real Neo4j.

One run of the LLM demo (``graphmem.demo_llm.run_llm_demo``) makes every real call, once per
module; each test checks one operation of it: the replies parsed into the controller's pydantic
model, the graph changed as the memory reports, the accounting counted calls and tokens for the
operation, and no stored text is a description from the JSON schema the model was shown (a 135M
model echoes the schema; such a reply is rejected, never stored). A 135M model decides badly; its
judgment is not tested. A scripted fake model checks that a malformed reply is retried once, then
raises ``ControllerError`` with nothing written. The module prints the model's load time, wall
time and reply tokens per second at the end.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fakes import ScriptedChatModel, tool_reply
from pydantic import BaseModel
from reliability import texts_of, tq  # noqa: F401  (tq is a fixture)
from rich.console import Console

from graphmem.errors import ConfigurationError, ControllerError
from graphmem.graph.runner import QueryRunner
from graphmem.insight import InsightMemory
from graphmem.state import StateMemory

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out

logger = logging.getLogger(__name__)


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
def local_llm() -> Any:
    """The packaged SmolLM2 GGUF with the LLM demo's settings, loaded once."""
    from graphmem.demo_llm import demo_model

    try:
        return demo_model()
    except ConfigurationError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="module")
def demo(runner: QueryRunner, embedder: Any, local_llm: Any) -> Iterator[dict[str, Any]]:
    """One LLM demo run in its own namespace, the model wrapped in a :class:`RecordingModel`:
    ``{"namespace", "summary"`` (``run_llm_demo``'s return)``, "llm"`` (the recording model)``,
    "data"`` (the slice)``, "seeded"`` (the insight id the feedback step sees)``,
    "seeded_counts"`` (insight memory's counts before the demo)``, "console"}``.

    The slice: 3 LoCoMo turns, 1 FEVER claim, 2 ScienceWorld tasks with one 3-step exploration
    (so experience memory writes an intra-task and a cross-task insight). An insight is added
    first, so the insight controller has one retrieved insight to keep, archive or revise."""
    from graphmem.demo_llm import demo_slice, run_llm_demo
    from graphmem.facade import GraphMemory

    ns = f"test-llm-{uuid.uuid4().hex[:12]}"
    seed = InsightMemory(runner, embedder, ns)
    query_id = seed.add_query("Boil water for tea", "resolved", ["fill kettle", "switch on"])
    seeded = seed.add_insight("Fill the kettle before switching it on.", [query_id])
    seeded_counts = seed.counts()
    data = demo_slice(turns=3, claims=1, tasks=2, exploration_steps=3)
    data["explorations"] = data["explorations"][:1]
    llm, console = RecordingModel(local_llm), Console(record=True, width=140)
    began = time.perf_counter()
    summary = run_llm_demo(GraphMemory(runner, embedder, ns), console, llm=llm, data=data)
    line = (f"LLM path: load {local_llm.load_seconds:.2f} s; {summary['calls']} calls, "
            f"{summary['input_tokens']} prompt + {summary['output_tokens']} reply tokens in "
            f"{time.perf_counter() - began:.1f} s: {summary['tokens_per_second']:.1f} reply "
            f"tokens/s (prompt processing, embedding and Neo4j included)")
    logger.info("%s", line)
    print(f"\n{line}")
    yield {"namespace": ns, "summary": summary, "llm": llm, "data": data, "seeded": seeded,
           "seeded_counts": seeded_counts, "console": console}
    runner.write("core/delete_namespace", namespace=ns)


def _rows(demo: dict[str, Any], operation: str, max_calls: int = 2) -> list[dict[str, Any]]:
    """The demo's rows for ``operation``, each checked: 1..``max_calls`` calls (one retry
    allowed per call), prompt and reply tokens counted."""
    rows = [r for r in demo["summary"]["rows"] if r["operation"] == operation]
    for row in rows:
        logger.info("%s: %d call(s), %d prompt + %d reply tokens", operation, row["calls"],
                    row["input_tokens"], row["output_tokens"])
        assert 1 <= row["calls"] <= max_calls
        assert row["input_tokens"] > 0 and row["output_tokens"] > 0
    return rows


def _failed(demo: dict[str, Any], step_prefix: str) -> str | None:
    """The error of the demo step whose title starts with ``step_prefix``, else None."""
    errors = [r["error"] for r in demo["summary"]["rows"]
              if r["step"].startswith(step_prefix) and r["error"]]
    return errors[0] if errors else None


def _plain(text: str) -> str:
    """Lower case, runs of anything but letters and digits as one space (this test's own
    normalisation, independent of graphmem's)."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def _descriptions(schema: Any) -> set[str]:
    """Every ``description`` in a JSON schema, normalised."""
    found: set[str] = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                found.add(_plain(value))
            else:
                found |= _descriptions(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= _descriptions(value)
    return found


def _echoes(texts: list[str], descriptions: set[str]) -> list[str]:
    return [t for t in texts if any(d == _plain(t) or d in _plain(t) for d in descriptions)]


def test_llm_demo_runs_every_operation(demo) -> None:
    summary = demo["summary"]
    operations = {r["operation"] for r in summary["rows"] if r["calls"]}
    # every step ran (a step with no call, or whose reply stayed invalid, is one row)
    steps = [r["step"].split(" ")[:2] for r in summary["rows"]
             if r["operation"] != "experience.intra_insight"]
    assert steps == [
        ["state:", "ingest"], ["state:", "recall"], ["associative:", "ingest"],
        ["associative:", "recall"], ["insight:", "feedback"], ["experience:", "ingest"]]
    assert {"state.extract", "state.controller", "associative.extract",
            "experience.intra_insight", "experience.cross_insight"} <= operations
    assert ("insight.controller" in operations) != bool(_failed(demo, "insight: feedback"))
    assert summary["calls"] >= 5 and summary["output_tokens"] > 0
    assert summary["calls"] == sum(r["calls"] for r in summary["rows"])
    assert "LLM path" in demo["console"].export_text()


def test_state_extraction_and_planner(demo) -> None:
    from graphmem.state.extraction import ExtractionBatch
    from graphmem.state.planner import ControllerChoice

    assert _failed(demo, "state: ingest") is None
    assert len(_rows(demo, "state.extract")) == 1
    batches = demo["llm"].replies("ExtractionBatch")
    assert batches and isinstance(batches[-1], ExtractionBatch)
    assert all(0 <= item.index < 3 and item.subject.strip() for item in batches[-1].items)
    counts = demo["summary"]["counts"]["state"]
    assert counts["Event"] == 3 and counts["Topic"] >= 1
    assert _failed(demo, "state: recall") is None
    assert len(_rows(demo, "state.controller", max_calls=4)) == 1  # <= 2 rounds, 1 retry each
    choices = demo["llm"].replies("ControllerChoice")
    assert choices and all(isinstance(c, ControllerChoice) for c in choices)


def test_associative_extraction_and_routing(demo, tq) -> None:
    from graphmem.associative.llm_extraction import (EpisodeBatchExtraction,
                                                     extraction_json_schema)
    from graphmem.associative.routing import LLMRouting

    assert _failed(demo, "associative: ingest") is None
    assert len(_rows(demo, "associative.extract")) == 1
    turns = demo["data"]["conversation"].turns
    wanted = [t.source_id for t in turns]
    batch = demo["llm"].replies("EpisodeBatchExtraction")[-1]
    assert isinstance(batch, EpisodeBatchExtraction)
    assert all(item.source_id in wanted for item in batch.episodes)
    assert all(c.cue.strip() and c.tag.strip() for item in batch.episodes for c in item.cues)
    counts = demo["summary"]["counts"]["associative"]
    assert counts["Episode"] == 3
    if any(item.cues for item in batch.episodes):
        assert counts["Cue"] >= 1 and counts["Tag"] >= 1
    routes = demo["llm"].replies("LLMRouting")
    if routes:  # routing runs only when a question cue reached a tag
        assert _rows(demo, "associative.route")
        assert all(isinstance(r, LLMRouting) for r in routes)
    descriptions = (_descriptions(EpisodeBatchExtraction.model_json_schema())
                    | _descriptions(extraction_json_schema(wanted)))
    assert "the fact one short sentence naming its subject" in descriptions
    for label in ("Cue", "Tag", "SemanticUnit"):
        texts = [t for t in texts_of(tq, demo["namespace"], label, "text") if t]
        assert _echoes(texts, descriptions) == [], (label, texts)


def test_insight_controller_edits_the_retrieved_insight(demo) -> None:
    before, counts = demo["seeded_counts"], demo["summary"]["counts"]["insight"]
    assert before["Query"] == 1 and before["Insight"] == 1
    error = _failed(demo, "insight: feedback")
    if error is not None:
        # the 135M model may copy the schema (field names, descriptions) into its plan: a
        # failed call twice, and nothing of the feedback is written
        assert "echoes the prompt or the schema" in error, error
        assert len(demo["llm"].replies("ControllerOutput")) == 2
        assert counts == before
        return
    assert len(_rows(demo, "insight.controller")) == 1
    plan = demo["llm"].replies("ControllerOutput")[-1]
    assert plan is not None and [e.insight_id for e in plan.edits] == [demo["seeded"]]
    assert counts["Query"] == before["Query"] + 1
    assert counts["ControllerDecision"] > before["ControllerDecision"]
    revised = int(plan.edits[0].operation == "REVISE")
    assert counts["Insight"] == before["Insight"] + int(plan.add) + revised


def test_experience_intra_and_cross_insights(demo, runner, embedder, tq) -> None:
    from graphmem.experience import ExperienceMemory
    from graphmem.experience.insights import InsightText

    assert _failed(demo, "experience: ingest") is None
    assert len(_rows(demo, "experience.intra_insight")) == 1
    assert len(_rows(demo, "experience.cross_insight")) == 1
    texts = demo["llm"].replies("InsightText")
    assert len(texts) >= 2 and all(isinstance(t, InsightText) and t.insight.strip()
                                   for t in texts)
    counts = demo["summary"]["counts"]["experience"]
    assert counts["Task"] == 2 and counts["DecisionGraph"] >= 2
    descriptions = _descriptions(InsightText.model_json_schema())
    assert "concise actionable guidance for the agent" in descriptions
    insights = [t for t in texts_of(tq, demo["namespace"], "Task", "intra_insight") if t]
    assert insights and "llm" in texts_of(tq, demo["namespace"], "Task", "intra_renderer")
    assert _echoes(insights, descriptions) == [], insights
    mem = ExperienceMemory(runner, embedder, demo["namespace"])
    item = mem.recall(demo["data"]["experts"][0].query, k=1).items[0]
    assert item.text.strip()


def _conversation(turns: int = 3) -> Any:
    from graphmem.conversations import read_conversations
    from graphmem.datasets import resolve

    conversation = read_conversations(resolve("locomo"))[0]
    return conversation.model_copy(update={"turns": conversation.turns[:turns], "qa": []})


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
