"""Associative memory on a real Neo4j with a slice of LoCoMo: construction, idempotent
re-ingest, Browser paths, active reconstruction (heuristic and scripted-LLM), tenancy."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from fakes import ScriptedChatModel, tool_reply

from graphmem.associative import AssociativeMemory
from graphmem.conversation import read_locomo
from graphmem.errors import ControllerError, EmptyTextError


@pytest.fixture(scope="module")
def conversation(shared_data: Path):
    """The first session of LoCoMo conv-26 (18 turns)."""
    conv = read_locomo(shared_data / "locomo" / "locomo-dev.json")[0]
    turns = [t for t in conv.turns if t.session == "session_1"]
    return conv.model_copy(update={"turns": turns})


@pytest.fixture(scope="module")
def ingested(runner, embedder, conversation):
    """One namespace holding the slice, ingested once for the read-only tests."""
    ns = f"test-assoc-{uuid.uuid4().hex[:10]}"
    mem = AssociativeMemory(runner, embedder, ns)
    report = mem.ingest_conversations([conversation])
    yield mem, report
    runner.write("core/delete_namespace", namespace=ns)


def test_ingest_builds_the_graph_and_twice_adds_nothing(ingested, conversation) -> None:
    mem, report = ingested
    assert report.extractor == "heuristic" and report.episodes == len(conversation.turns) == 18
    first = mem.counts()
    assert first["episodes"] == 18 and first["next_episode"] == 17
    assert first["cues"] == report.cues and first["tags"] == report.tags == first["has_tag"]
    assert first["leads_to"] == report.cue_tag_content_triples
    assert first["semantic_units"] == report.semantic_units and first["themes"] == 1 and first["groups"] == 18
    mem.ingest_conversations([conversation])
    assert mem.counts() == first


def test_cues_and_tags_of_an_episode_show_as_paths(runner, ingested) -> None:
    mem, _ = ingested
    rows = runner.read("browser/associative_cue_associations", namespace=mem.namespace,
                       source_id="D1:3")
    paths = [r["p"] for r in rows]
    cue_tag_episode = [p for p in paths if len(p) == 5 and p[1] == "HAS_TAG"]
    cues = {p[0]["text"] for p in cue_tag_episode}
    assert {"caroline", "lgbtq support group", "yesterday"} <= cues
    assert all(p[3] == "LEADS_TO" and p[4]["source_id"] == "D1:3" for p in cue_tag_episode)
    tags = {p[2]["text"] for p in cue_tag_episode if p[0]["text"] == "caroline"}
    assert tags == {"who: went lgbtq support group powerful"}
    assert any(p[1] == "GROUPS" for p in paths)  # its theme


def test_recall_reconstructs_with_paths_and_trace(ingested) -> None:
    mem, _ = ingested
    result = mem.recall("When did Caroline go to the LGBTQ support group?", steps=3)
    assert result.controller == "heuristic" and 1 <= result.rounds <= 3
    assert result.stop_reason in ("no_new_evidence", "step_budget", "no_new_cues")
    assert "D1:3" in result.ranked_source_ids(3)
    assert result.trace[0].round == 0 and "caroline" in result.trace[0].active_cues
    assert result.trace[1].candidates["cue_to_tag"] > 0 and result.trace[1].selected_tags
    graph_hits = [e for e in result.evidence if any(p.action == "cue_tag_to_content" for p in e.path)]
    assert graph_hits
    path = graph_hits[0].path
    assert [p.node for p in path[-3:]] == ["cue", "tag", graph_hits[0].kind]
    assert result.evidence == sorted(result.evidence, key=lambda e: -e.rank_score)
    baseline = mem.vector_search("When did Caroline go to the LGBTQ support group?", 5)
    assert len(baseline) == 5 and baseline[0].score >= baseline[-1].score
    for structure in ("ce", "cte"):
        res = mem.recall("What does Melanie paint?", structure=structure)
        assert res.structure == structure and res.evidence
        assert all(e.kind == "episode" for e in res.evidence)
    with pytest.raises(EmptyTextError):
        mem.recall("  ")


def test_namespaces_do_not_see_each_other(runner, embedder, namespace, ingested) -> None:
    other = AssociativeMemory(runner, embedder, namespace)  # fresh, empty namespace
    result = other.recall("When did Caroline go to the LGBTQ support group?")
    assert result.evidence == [] and other.counts()["cues"] == 0


def test_llm_extractor_and_router(runner, embedder, namespace, conversation) -> None:
    turns = conversation.model_copy(update={"turns": conversation.turns[:3]})
    ids = [t.source_id for t in turns.turns]
    extraction = tool_reply("EpisodeBatchExtraction", {"episodes": [
        {"source_id": ids[2], "cues": [{"cue": "Caroline", "kind": "entity",
                                         "tag": "went to support group"},
                                        {"cue": "LGBTQ support group", "kind": "keyword",
                                         "tag": "Caroline attended"}],
         "semantic_units": [{"text": "Caroline attends an LGBTQ support group", "kind": "fact",
                             "cues": [{"cue": "Caroline", "kind": "entity", "tag": "attends"}]}]},
    ]})
    bad = tool_reply("EpisodeBatchExtraction", {"episodes": [{"source_id": "nope"}]})
    failing = AssociativeMemory(runner, embedder, namespace, llm=ScriptedChatModel(responses=[bad, bad]))
    with pytest.raises(ControllerError):
        failing.ingest_conversations([turns])
    assert failing.counts()["episodes"] == 0  # nothing half-written
    route = tool_reply("LLMRouting", {"selected": [1], "sufficient": True, "reason": "found it"})
    llm = ScriptedChatModel(responses=[extraction, route, route, route])
    mem = AssociativeMemory(runner, embedder, namespace, llm=llm)
    report = mem.ingest_conversations([turns])
    assert report.extractor == "llm" and report.llm_calls == 1
    counts = mem.counts()
    assert counts["cues"] == 2 and counts["tags"] == 3 and counts["semantic_units"] == 1
    result = mem.recall("When did Caroline go to the LGBTQ support group?", steps=3)
    # the model routes tag 1 and says "sufficient": the round finishes, then reconstruction stops
    assert result.controller == "llm" and result.llm_calls == 1 and result.llm_input_tokens == 5
    assert result.stop_reason == "llm_sufficient" and result.rounds == 1
    assert result.trace[1].selected_tags and result.trace[1].stop
    assert result.ranked_source_ids(1) == [ids[2]]
    # LLM accounting: per operation on each result, and a running total on the memory
    assert report.llm_usage.operations["associative.extract"].calls == 1
    assert result.llm_usage.operations["associative.route"].calls == 1
    assert result.llm_usage.operations["associative.route"].input_tokens == 5
    assert mem.llm_usage.calls == 2
