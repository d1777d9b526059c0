"""The real local model (SmolLM2-135M GGUF through llama-cpp-python, the ``local-llm`` extra),
shown each call's JSON schema, never gets the schema's own words stored as memory: cue
extraction on real LoCoMo turns and the intra-task insight of a real ScienceWorld task either
store content or fail (``ControllerError``, counted as failed calls) with nothing of the failed
call written. No stored text equals or contains a description of the schemas sent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from graphmem.associative import AssociativeMemory
from graphmem.associative.llm_extraction import EpisodeBatchExtraction, extraction_json_schema
from graphmem.errors import ConfigurationError, ControllerError
from graphmem.experience import ExperienceMemory
from graphmem.experience.insights import InsightText
from graphmem.llm_local import LocalChatModel, local_chat_model
from reliability import texts_of, tq  # noqa: F401  (tq is a fixture)

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out


@pytest.fixture(scope="module")
def llm() -> Iterator[LocalChatModel]:
    """The packaged SmolLM2 GGUF with the LLM demo's settings (short free strings)."""
    try:
        model = local_chat_model(max_tokens=768, max_string_chars=80, timeout_s=180.0)
    except ConfigurationError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield model


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


def test_cue_extraction_on_real_turns_stores_no_schema_description(llm, runner, embedder,
                                                                    namespace, tq) -> None:
    from graphmem.demo_llm import demo_slice

    conversation = demo_slice(turns=3)["conversation"]
    ids = [t.source_id for t in conversation.turns]
    descriptions = (_descriptions(EpisodeBatchExtraction.model_json_schema())
                    | _descriptions(extraction_json_schema(ids)))
    assert "the fact one short sentence naming its subject" in descriptions
    mem = AssociativeMemory(runner, embedder, namespace, llm=llm)
    try:
        report = mem.ingest([conversation])
    except ControllerError as exc:  # rejected twice (an echo, say): nothing written
        assert "associative.extract" in str(exc)
        assert all(n == 0 for n in mem.counts().values())
        return
    assert report.extractor == "llm" and report.created["Episode"] == 3
    stored = {label: [t for t in texts_of(tq, namespace, label, "text") if t]
              for label in ("Cue", "Tag", "SemanticUnit")}
    assert stored["Cue"] and stored["Tag"]
    for label, texts in stored.items():
        assert _echoes(texts, descriptions) == [], (label, texts)
    op = mem.llm_usage.operations["associative.extract"]
    assert op.calls - op.failed == 1  # one call's reply was stored


def test_intra_task_insight_stores_no_schema_description(llm, runner, embedder, namespace,
                                                        tq) -> None:
    from graphmem.demo_llm import demo_slice

    data = demo_slice(tasks=1, exploration_steps=4)
    descriptions = _descriptions(InsightText.model_json_schema())
    assert "concise actionable guidance for the agent" in descriptions
    mem = ExperienceMemory(runner, embedder, namespace, llm=llm)
    try:
        mem.ingest(data["experts"], explorations=data["explorations"], k=1, tau=-1.0)
    except ControllerError as exc:  # rejected twice (an echo, say): nothing written
        assert "experience.intra_insight" in str(exc)
        assert all(n == 0 for n in mem.counts().values())
        return
    insights = [t for t in texts_of(tq, namespace, "Task", "intra_insight") if t]
    renderers = texts_of(tq, namespace, "Task", "intra_renderer")
    assert insights and renderers == ["llm"]
    assert _echoes(insights, descriptions) == [], insights
