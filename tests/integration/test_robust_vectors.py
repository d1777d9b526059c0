"""Bad stored vectors and archived neighbours on the real Neo4j.

A legacy row written before vectors were validated (an embedding of another width, with NaN or
infinity, or all zeros) must not take down a tenant's recall: every read query that scores a
stored vector with ``vector.similarity.cosine`` skips such rows. Archived insights, however many,
must not crowd the live ones out of insight recall.
"""

from __future__ import annotations

import math

import pytest
from reliability import conversation, other_namespace, tq  # noqa: F401

from graphmem.facade import GraphMemory
from graphmem.insight import InsightMemory

EMBEDDED = ("Topic", "Event", "State", "Episode", "SemanticUnit", "Theme")


def _bad_vectors(dimension: int) -> list[list[float]]:
    unit = [1.0 / math.sqrt(dimension)] * dimension
    return [unit[:7],                                   # another width (an older model)
            [math.nan] + unit[1:],                      # NaN
            [math.inf] + unit[1:],                      # infinity
            [0.0] * dimension]                          # zero: no direction


def _corrupt_one_per_label(tq, namespace: str) -> int:
    """Give the first node of every embedded label a bad vector (cycling through the kinds)."""
    bad = _bad_vectors(384)
    corrupted = 0
    for n, label in enumerate(EMBEDDED):
        rows = sorted(r["id"] for r in tq.read("read_nodes", namespace=namespace, label=label))
        if rows:
            tq.write("set_embedding", namespace=namespace, id=rows[0], embedding=bad[n % len(bad)])
            corrupted += 1
    return corrupted


def test_one_bad_stored_vector_does_not_take_down_recall(runner, embedder, tq, namespace):
    turns = [("Alice", "I live in Porto now, close to the river."),
             ("Bob", "Do you still sail your boat Mohra?"),
             ("Alice", "Yes, I sail Mohra every Saturday."),
             ("Bob", "And your sister?"),
             ("Alice", "She moved to Lisbon last year.")]
    conv = conversation("conv-bad-vectors", turns)
    facade = GraphMemory(runner, embedder, namespace)
    facade.state.ingest([conv])
    facade.associative.ingest([conv])
    mem = InsightMemory(runner, embedder, namespace, related_top=0)
    questions = ["Where does Alice live?", "How do I boil water faster?", "Who is Mohra?"]
    qids = [mem.add_query(q, "resolved", ["search[x]"]) for q in questions]
    insights = [mem.add_insight(f"Insight number {i} about {q}", [qid])
                for i, (q, qid) in enumerate(zip(questions, qids))]
    tq.write("set_embedding", namespace=namespace, id=qids[0], embedding=[math.nan] * 384)
    tq.write("set_embedding", namespace=namespace, id=insights[1], embedding=[0.0] * 384)
    assert _corrupt_one_per_label(tq, namespace) >= 5

    out = mem.recall("Where does Alice live?", query_k=5, k=5)
    assert {i.id for i in out.items} == set(insights[1:])   # the NaN query is skipped
    assert qids[0] not in out.rounds[0].details["seed_query_ids"]
    state = facade.state.recall("Where does Alice live?", k=5, max_rounds=2)
    assert state.items
    associative = facade.associative.recall("Where does Alice live?", max_rounds=2)
    assert associative is not None
    assert facade.associative.vector_search("Where does Alice live?", k=5)


def test_archived_insights_do_not_starve_live_ones(runner, embedder, namespace):
    mem = InsightMemory(runner, embedder, namespace, related_top=0)
    archived_texts = [f"How do I boil water quickly, attempt {i}?" for i in range(50)]
    live_texts = ["What is a fast way to heat water in a kettle?",
                  "Tips for getting water to a boil sooner at home"]
    vectors = embedder.embed_documents(archived_texts + live_texts)
    qids = [mem.add_query(t, "resolved", ["search[boil]"], embedding=v)
            for t, v in zip(archived_texts + live_texts, vectors)]
    archived = [mem.add_insight(f"Old advice {i}: put a lid on the pot.", [q])
                for i, q in enumerate(qids[:50])]
    live = [mem.add_insight("Use an electric kettle.", [qids[50]]),
            mem.add_insight("Cover the pot and use less water.", [qids[51]])]
    name, params = mem.store.archive(archived)
    runner.write(name, **params)
    assert all(not s.active for s in mem.get_insights(archived))

    out = mem.recall("How do I boil water quickly?", k=2)   # default query_k
    assert {i.id for i in out.items} == set(live)
    assert set(out.rounds[0].details["seed_query_ids"]) == set(qids[50:])
