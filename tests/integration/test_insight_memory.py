"""Insight memory on real Neo4j: retrieval in Cypher equals the pure eqs. 2–10, feedback and the
graph controller (heuristic and scripted LLM), archive-never-delete, REVISE with carried evidence."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fakes import ScriptedChatModel, tool_reply
from typer.testing import CliRunner

from graphmem.errors import ControllerError, TrajectoryError, InvalidInputError
from graphmem.insight import InsightMemory, OperationSet
from graphmem.insight.scoring import InsightEvidence, retrieve

TEXTS = [
    "How do I boil water on a stove?",
    "Heat water in a kettle until it boils",
    "Which planet is the largest in the solar system?",
    "Name the biggest planet orbiting the Sun",
    "Bake bread with yeast and flour",
]


def _nodes(runner, namespace) -> dict[str, int]:
    return {r["label"]: r["nodes"] for r in runner.read("core/count_namespace_nodes",
                                                         namespace=namespace)}


@pytest.fixture
def graph(runner, embedder, namespace):
    """Five queries, RELATED_QUERY q0-q2 by API only, three insights with chosen evidence."""
    mem = InsightMemory(runner, embedder, namespace, related_top=0)
    vectors = embedder.embed_documents(TEXTS)
    q = [mem.add_query(t, "resolved", [f"step of {i}"], embedding=v)
         for i, (t, v) in enumerate(zip(TEXTS, vectors))]
    assert mem.relate_queries(q[0], [q[2]]) == 1
    a = mem.add_insight("Use a lid to boil faster.", [q[0], q[1]])
    b = mem.add_insight("Jupiter is the largest planet.", [q[2], q[3]])
    c = mem.add_insight("Knead dough ten minutes.", [q[4]])
    mem.record_evidence(a, q[3], positive=False)
    mem.record_evidence(b, q[0], positive=False)
    mem.record_evidence(b, q[1], positive=False)
    omega = {a: ({q[0], q[1]}, {q[3]}), b: ({q[2], q[3]}, {q[0], q[1]}), c: ({q[4]}, set())}
    return mem, q, dict(zip(q, vectors)), omega, (a, b, c)


def test_recall_exact_values_when_every_query_is_a_seed(graph) -> None:
    mem, q, _, _, (a, b, c) = graph
    out = mem.recall("boiling water quickly", k=3, query_k=5, lam=0.5)
    details = out.rounds[0].details
    assert set(details["seed_query_ids"]) == set(q) and set(details["expanded_query_ids"]) == set(q)
    got = {i.id: (i.s, i.c, i.r) for i in out.items}
    assert got == {a: (2, 1, 1.5), b: (2, 2, 1.0), c: (1, 0, 1.0)}
    assert [i.id for i in out.items] == [a, b, c]  # r desc, then s desc
    first = out.items[0]
    assert sorted(first.supporting_query_ids) == sorted([q[0], q[1]])
    assert first.conflicting_query_ids == [q[3]]
    assert (first.positive_evidence, first.negative_evidence) == (2, 1)


@pytest.mark.parametrize("k, lam, b", [(1, 1.0, 3), (2, 0.0, 3), (2, 2.0, 2), (3, 1.0, 1)])
def test_cypher_recall_equals_pure_scoring(graph, embedder, k, lam, b) -> None:
    mem, q, vectors, omega, _ = graph
    text = "What is the largest planet?"
    vector = embedder.embed_query(text)
    expected = retrieve(vector, vectors, [(q[0], q[2])],
                        [InsightEvidence(i, frozenset(p), frozenset(n)) for i, (p, n) in omega.items()],
                        k=k, lam=lam, b=b)
    out = mem.recall(text, k=b, query_k=k, lam=lam, embedding=vector)
    assert [(i.id, i.s, i.c, i.r, sorted(i.supporting_query_ids), sorted(i.conflicting_query_ids))
            for i in out.items] == [
        (e.id, e.s, e.c, e.r, list(e.supporting_query_ids), list(e.conflicting_query_ids))
        for e in expected]


def test_archived_insight_is_never_recalled_but_kept_with_history(graph, runner) -> None:
    mem, q, _, _, (a, _, _) = graph
    # a: |Ω+| = 2, |Ω−| = 1. Failures: 2-2=0 keep, 3-2=1 keep, 4-2=2 >= 2 archive.
    ops = [mem.feedback(f"Boil water fail {i}", "failed", ["tried"], [a]).decisions[0].operation
           for i in range(3)]
    assert ops == ["KEEP", "KEEP", "ARCHIVE"]
    for text in TEXTS + ["boil water", "Use a lid to boil faster."]:
        assert a not in [i.id for i in mem.recall(text, k=10, query_k=5, lam=0.0).items]
    [state] = mem.get_insights([a])
    assert (state.active, state.positive_evidence, state.negative_evidence) == (False, 2, 4)
    hist = mem.history(a)
    assert hist.content == "Use a lid to boil faster." and not hist.active
    assert len(hist.supporting_query_ids) == 2 and len(hist.conflicting_query_ids) == 4
    # in decision order as history returns it (seq; a created_at string can tie or misorder)
    assert [d["operation"] for d in hist.decisions] == ["ADD", "KEEP", "KEEP", "ARCHIVE"]
    assert all(d["controller"] == "heuristic" for d in hist.decisions)
    archive = [d for d in hist.decisions if d["operation"] == "ARCHIVE"][0]
    assert archive["status"] == "failed" and archive["reason"].startswith("heuristic:")
    assert archive["query_id"] == mem.query_id("Boil water fail 2")
    # a later failure on an archived insight is skipped, not re-decided
    again = mem.feedback("Boil water fail 9", "failed", ["tried"], [a])
    assert again.skipped_inactive == [a] and again.decisions[-1].operation == "NO_ADD"


def test_add_keep_switch_never_archives(graph) -> None:
    mem, _, _, _, (a, _, _) = graph
    for i in range(4):
        res = mem.feedback(f"fail {i}", "failed", [], [a], operation_set=OperationSet.ADD_KEEP)
        assert res.decisions[0].operation == "KEEP"
    assert mem.get_insights([a])[0].active


def test_resolved_feedback_adds_insight_with_interaction_graph(graph, runner, namespace) -> None:
    mem, q, _, _, (a, _, _) = graph
    before = _nodes(runner, namespace)
    res = mem.feedback("Make pasta al dente", "resolved", ["boil water", "add pasta", "taste"], [a])
    assert [d.operation for d in res.decisions] == ["KEEP", "ADD"]
    assert res.added_insight_id and res.controller == "heuristic"
    after = _nodes(runner, namespace)
    assert after["Step"] - before["Step"] == 3 and after["Query"] - before["Query"] == 1
    assert after["ControllerDecision"] - before["ControllerDecision"] == 2
    new = mem.history(res.added_insight_id)
    assert new.supporting_query_ids == [res.query_id] and new.active
    assert new.contextualized_by == [{"insight_id": a, "via_query": res.query_id}]
    assert "add pasta" in new.content
    # re-ingesting the same feedback creates nothing new
    mem.feedback("Make pasta al dente", "resolved", ["boil water", "add pasta", "taste"], [a])
    assert _nodes(runner, namespace) == after
    assert mem.get_insights([a])[0].positive_evidence == 3


def test_llm_revise_creates_version_with_carried_evidence(graph, runner, namespace) -> None:
    mem, q, _, _, (a, _, _) = graph
    reply = tool_reply("ControllerOutput", {
        "edits": [{"insight_id": a, "operation": "REVISE", "reason": "too general",
                   "revised_content": "Use a lid to boil faster, except in a pressure cooker."}],
        "add": False, "add_reason": "covered"}, 40, 20)
    llm_mem = InsightMemory(runner, mem.embedder, namespace,
                            llm=ScriptedChatModel(responses=[reply]))
    res = llm_mem.feedback("Boil water in a pressure cooker", "resolved", ["close lid"], [a])
    new = res.revised[a]
    assert res.controller == "llm" and [d.operation for d in res.decisions] == ["REVISE", "NO_ADD"]
    assert res.llm_usage.operations["insight.controller"].input_tokens == 40
    old_h, new_h = llm_mem.history(a), llm_mem.history(new)
    assert not old_h.active and old_h.revised_by == [new]
    assert new_h.active and new_h.version == 2 and new_h.revision_of == [a]
    # carried over: Ω+ {q0, q1}, Ω− {q3}; plus the current resolved query on both versions
    assert sorted(new_h.supporting_query_ids) == sorted([q[0], q[1], res.query_id])
    assert new_h.conflicting_query_ids == [q[3]]
    assert (new_h.positive_evidence, new_h.negative_evidence) == (3, 1)
    assert res.query_id in old_h.supporting_query_ids
    assert [d["controller"] for d in new_h.decisions] == ["llm"]
    hits = [i.id for i in llm_mem.recall(TEXTS[0], k=5, query_k=5, lam=1.0).items]
    assert new in hits and a not in hits


def test_invalid_llm_output_twice_writes_nothing(graph, runner, namespace) -> None:
    mem, _, _, _, (a, _, _) = graph
    bad = tool_reply("ControllerOutput", {"edits": [{"insight_id": a, "operation": "DELETE",
                                                     "reason": "x"}], "add": False})
    llm_mem = InsightMemory(runner, mem.embedder, namespace,
                            llm=ScriptedChatModel(responses=[bad, bad]))
    before = _nodes(runner, namespace)
    with pytest.raises(ControllerError):
        llm_mem.feedback("A brand new query", "failed", ["x"], [a])
    assert _nodes(runner, namespace) == before
    assert mem.get_insights([a])[0].negative_evidence == 1


def test_bad_input_is_refused_before_writing(graph, runner, namespace) -> None:
    mem, _, _, _, _ = graph
    before = _nodes(runner, namespace)
    with pytest.raises(InvalidInputError, match="not-an-insight"):
        mem.feedback("q", "failed", [], ["not-an-insight"])
    with pytest.raises(TrajectoryError):
        mem.feedback("q", "resolved", ["ok", "  "], [])
    with pytest.raises(InvalidInputError, match="k must be"):
        mem.recall("q", k=0)
    assert _nodes(runner, namespace) == before


def test_namespaces_do_not_leak(graph, runner, embedder) -> None:
    other = InsightMemory(runner, embedder, graph[0].namespace + "-other")
    try:
        assert other.recall(TEXTS[0], k=5).items == []
    finally:
        runner.write("core/delete_namespace", namespace=other.namespace)


def test_cli_recall_json(graph, neo4j_server, namespace, monkeypatch) -> None:
    from graphmem.cli.insight import app

    monkeypatch.setenv("NEO4J_URI", neo4j_server["uri"])
    out = CliRunner().invoke(app, ["recall", TEXTS[2], "--k", "3", "--query-k", "5",
                                   "--lambda", "0.5", "--namespace", namespace, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["rounds"][0]["details"]["query_k"] == 5 and data["rounds"][0]["details"]["lam"] == 0.5
    assert [(i["s"], i["c"], i["r"]) for i in data["items"]] == [(2, 1, 1.5), (2, 2, 1.0),
                                                                 (1, 0, 1.0)]
