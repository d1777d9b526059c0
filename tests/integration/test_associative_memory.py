"""Associative memory on a real Neo4j with a slice of LoCoMo: construction, idempotent
re-ingest, Browser paths, active reconstruction (heuristic and scripted-LLM), tenancy."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from fakes import ScriptedChatModel, tool_reply

from graphmem.associative import AssociativeMemory
from graphmem.conversations import read_locomo
from graphmem.errors import ControllerError, EmptyTextError


@pytest.fixture(scope="module")
def conversation(sample_data: Path):
    """The first session of LoCoMo conv-26 (18 turns)."""
    conv = read_locomo(sample_data / "locomo" / "locomo-dev.json")[0]
    turns = [t for t in conv.turns if t.session == "session_1"]
    return conv.model_copy(update={"turns": turns})


@pytest.fixture(scope="module")
def ingested(runner, embedder, conversation):
    """One namespace holding the slice, ingested once for the read-only tests."""
    ns = f"test-assoc-{uuid.uuid4().hex[:10]}"
    mem = AssociativeMemory(runner, embedder, ns)
    report = mem.ingest([conversation])
    yield mem, report
    runner.write("core/delete_namespace", namespace=ns)


def test_ingest_builds_the_graph_and_twice_adds_nothing(ingested, conversation) -> None:
    mem, report = ingested
    assert report.extractor == "heuristic" and report.inputs == len(conversation.turns) == 18
    first, edges = mem.counts(), mem.relationship_counts()
    assert first["Episode"] == 18 and edges["NEXT_EPISODE"] == 17
    labels = ("Cue", "Tag", "Episode", "SemanticUnit", "Theme", "Timeline")
    assert set(first) == set(labels)  # nodes only
    assert report.created == {label: first[label] for label in labels if first[label]}
    assert first["Tag"] == edges["HAS_TAG"]
    assert edges["LEADS_TO"] == report.details["cue_tag_content_triples"]
    assert first["Theme"] == 1 and edges["GROUPS"] == 18 and first["Timeline"] == 1
    again = mem.ingest([conversation])
    assert again.created == {} and again.skipped == {"turn": 18}
    assert mem.counts() == first and mem.relationship_counts() == edges


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
    config = mem.config.model_copy(update={"graph_weight": 2.0})  # make the graph step decide
    result = mem.recall("When did Caroline go to the LGBTQ support group?", k=18, max_rounds=3,
                        config=config)
    assert result.controller == "heuristic" and 2 <= len(result.rounds) <= 3
    assert result.rounds[-1].details["stop_reason"] in ("no_new_evidence", "step_budget", "no_new_cues")
    assert "D1:3" in result.source_ids(3)
    assert result.rounds[0].number == 1 and result.rounds[0].action == "seed"
    # the question's cues are matched to Cue nodes by text (the speaker's name leads everywhere:
    # a hub, not followed)
    assert "lgbtq support group" in result.rounds[1].details["active_cues"]
    assert "caroline" not in result.rounds[1].details["active_cues"]
    assert result.rounds[1].details["candidates"]["cue_to_tag"] > 0
    assert result.rounds[1].details["selected_tags"] and result.rounds[1].action == "cue_to_tag"
    graph_hits = [e for e in result.items if e.graph_score > 0]
    assert graph_hits and any(e.source_ids == ["D1:3"] for e in graph_hits)
    lifted = next(e for e in result.items if any(p.action == "cue_tag_to_content" for p in e.path))
    assert [p.node for p in lifted.path[-3:]] == ["cue", "tag", "episode"]
    assert result.items == sorted(result.items, key=lambda e: -e.score)
    assert len(mem.recall("When did Caroline go to the LGBTQ support group?", k=4).items) == 4
    baseline = mem.vector_search("When did Caroline go to the LGBTQ support group?", 5)
    assert len(baseline) == 5 and baseline[0].score >= baseline[-1].score
    for structure in ("ce", "cte"):
        res = mem.recall("What does Melanie paint?", structure=structure)
        assert res.items and all(e.kind == "episode" for e in res.items)
    with pytest.raises(EmptyTextError):
        mem.recall("  ")


def test_namespaces_do_not_see_each_other(runner, embedder, namespace, ingested) -> None:
    other = AssociativeMemory(runner, embedder, namespace)  # fresh, empty namespace
    result = other.recall("When did Caroline go to the LGBTQ support group?")
    assert result.items == [] and other.counts()["Cue"] == 0


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
        failing.ingest([turns])
    assert failing.counts()["Episode"] == 0  # nothing half-written
    route = tool_reply("LLMRouting", {"selected": [1], "sufficient": True, "reason": "found it"})
    llm = ScriptedChatModel(responses=[extraction, route, route, route])
    mem = AssociativeMemory(runner, embedder, namespace, llm=llm)
    report = mem.ingest([turns])
    assert report.extractor == "llm" and report.llm_usage.calls == 1
    counts = mem.counts()
    assert counts["Cue"] == 2 and counts["Tag"] == 3 and counts["SemanticUnit"] == 1
    assert report.created == {"Episode": 3, "Cue": 2, "Tag": 3, "SemanticUnit": 1,
                              "Theme": counts["Theme"], "Timeline": 1}
    result = mem.recall("When did Caroline go to the LGBTQ support group?", max_rounds=3)
    # the model routes tag 1 and says "sufficient": the round finishes, then reconstruction stops
    assert result.controller == "llm" and result.llm_usage.calls == 1
    assert result.rounds[-1].details["stop_reason"] == "llm_sufficient" and len(result.rounds) == 2
    assert result.rounds[1].details["selected_tags"] and result.rounds[1].details["stop"]
    assert result.rounds[1].number == 2
    assert result.source_ids(1) == [ids[2]]
    # LLM accounting: per operation on each result, and a running total on the memory
    assert report.llm_usage.operations["associative.extract"].calls == 1
    assert result.llm_usage.operations["associative.route"].calls == 1
    assert result.llm_usage.operations["associative.route"].input_tokens == 5
    assert mem.llm_usage.calls == 2
