"""Insight memory orchestration without a database (fake runner, hash embedder)."""

from __future__ import annotations

import pytest
from fake_runner import FakeRunner, HashEmbedder

from graphmem.errors import InvalidInputError
from graphmem.insight import InsightMemory

ROW = {"id": "i1", "content": "search the entity first", "version": 2, "s": 2, "c": 1,
       "r": 1.5, "supporting_query_ids": ["q1", "q9"], "conflicting_query_ids": ["q2"],
       "positive_evidence": 4, "negative_evidence": 1,
       "seed_query_ids": ["q1", "q2"], "expanded_query_ids": ["q1", "q2", "q9"]}


def test_recall_passes_query_k_lam_and_k_through() -> None:
    runner = FakeRunner({"insight/recall_insights": [ROW]})
    result = InsightMemory(runner, HashEmbedder(), "ns-unit").recall(
        "Mohra is a truck", k=4, query_k=7, lam=0.5)
    [(name, params)] = runner.calls
    assert name == "insight/recall_insights"
    assert (params["k"], params["b"], params["lambda"]) == (7, 4, 0.5)
    [item] = result.items
    assert (item.text, item.score, item.s, item.c, item.version) == (
        "search the entity first", 1.5, 2, 1, 2)
    assert item.source_ids == ["q1", "q9", "q2"]
    assert [(s.action, s.node, s.id) for s in item.path] == [
        ("ask", "question", "question"), ("similar_query", "query", "q1"),
        ("SUPPORTS", "insight", "i1")]
    [round_] = result.rounds
    assert round_.action == "recall_insights" and round_.details == {
        "seed_query_ids": ["q1", "q2"], "expanded_query_ids": ["q1", "q2", "q9"],
        "query_k": 7, "lam": 0.5}


def test_defaults_and_bad_values() -> None:
    runner = FakeRunner()
    mem = InsightMemory(runner, HashEmbedder(), "ns-unit")
    assert mem.recall("q").items == []
    assert (runner.calls[0][1]["k"], runner.calls[0][1]["b"]) == (5, 10)  # query_k of eq. 2; B = DEFAULT_K
    for kwargs in ({"k": 0}, {"query_k": 201}, {"lam": -1.0}, {"k": True}):
        with pytest.raises(InvalidInputError):
            mem.recall("q", **kwargs)


def test_ingest_skips_records_whose_query_is_stored() -> None:
    runner = FakeRunner({"insight/find_existing_queries":
                         lambda params: [{"id": i} for i in params["ids"]]})
    done: list[int] = []
    report = InsightMemory(runner, HashEmbedder(), "ns-unit").ingest(
        [{"query": "a", "status": "resolved", "trajectory": ["x"]},
         {"query": "b", "status": "failed", "trajectory": []}], progress=done.append)
    assert runner.transactions == [] and report.created == {}
    assert report.skipped == {"record": 2} and report.inputs == 2 and done == [1, 1]


def test_ingest_counts_what_the_writes_answer() -> None:
    runner = FakeRunner({"insight/merge_query": [{"id": "x", "created": True}],
                         "insight/merge_steps": [{"steps": 2, "created": 2}],
                         "insight/add_insight": [{"id": "i", "contextualized": 0, "created": True}],
                         "insight/record_decisions": [{"recorded": 1, "created": 1}]})
    report = InsightMemory(runner, HashEmbedder(), "ns-unit").ingest(
        [{"query": "boil water", "status": "resolved", "trajectory": ["go to stove", "boil"]}])
    assert report.created == {"Query": 1, "Step": 2, "Insight": 1, "ControllerDecision": 1}
    assert runner.transactions == [["insight/merge_query", "insight/merge_steps",
                                    "insight/add_insight", "insight/record_decisions"]]
    assert report.details["operations"] == {"ADD": 1}
