"""graphmem.doctor on the real Neo4j: legacy rows with a missing, wrong-width, NaN or zero
embedding are listed per namespace and label, re-embedded from their text with repair=True, and
the next check is clean; another tenant is untouched."""

from __future__ import annotations

import math

import numpy as np
import pytest
from reliability import conversation, other_namespace, snapshot, tq  # noqa: F401

from graphmem.doctor import check_embeddings
from graphmem.embeddings import HashingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.insight import InsightMemory


def _tenant(runner, embedder, ns: str) -> dict[str, str]:
    turns = [("Alice", "I live in Porto now."), ("Bob", "Do you still sail Mohra?"),
             ("Alice", "Yes, every Saturday.")]
    facade = GraphMemory(runner, embedder, ns)
    facade.state.ingest([conversation("doctor-conv", turns)])
    facade.associative.ingest([conversation("doctor-conv", turns)])
    mem = InsightMemory(runner, embedder, ns, related_top=0)
    qid = mem.add_query("How tall is the Eiffel tower?", "resolved", ["search[Eiffel]"])
    insight = mem.add_insight("Look up the official height.", [qid])
    return {"query": qid, "insight": insight}


def _first(tq, ns: str, label: str) -> tuple[str, dict]:
    rows = sorted(tq.read("read_nodes", namespace=ns, label=label), key=lambda r: r["id"])
    return rows[0]["id"], rows[0]["props"]


def test_doctor_lists_and_repairs_bad_embeddings(runner, tq, namespace, other_namespace):
    embedder = HashingEmbedder(384)
    ids = _tenant(runner, embedder, namespace)
    _tenant(runner, embedder, other_namespace)
    other_before = snapshot(tq, other_namespace)
    event_id, event = _first(tq, namespace, "Event")
    episode_id, _ = _first(tq, namespace, "Episode")
    topic_id, _ = _first(tq, namespace, "Topic")
    bad = {("Query", ids["query"]): ([math.nan] * 384, "non_finite"),
           ("Insight", ids["insight"]): ([0.0] * 384, "zero"),
           ("Event", event_id): ([0.1] * 768, "wrong_width"),
           ("Episode", episode_id): (None, "missing"),
           ("Topic", topic_id): ([math.inf] + [0.1] * 383, "non_finite")}
    for (_, node), (vector, _) in bad.items():
        tq.write("set_embedding", namespace=namespace, id=node, embedding=vector)

    found = check_embeddings(runner, embedder, namespace, batch_size=2)
    assert {(f.label, f.id): f.problem for f in found.findings} == {
        key: problem for key, (_, problem) in bad.items()}
    assert not found.ok and found.bad == 5 and found.remaining == 5
    assert {(s.label, s.bad) for s in found.summary} == {
        ("Query", 1), ("Insight", 1), ("Event", 1), ("Episode", 1), ("Topic", 1)}
    assert next(f.width for f in found.findings if f.problem == "wrong_width") == 768

    fixed = check_embeddings(runner, embedder, namespace, repair=True, batch_size=2)
    assert fixed.bad == 5 and fixed.ok and all(f.repaired for f in fixed.findings)
    assert check_embeddings(runner, embedder, namespace).bad == 0
    # re-embedded from the text the embedding is made of
    stored = _first(tq, namespace, "Event")[1]
    expected = embedder.embed_documents([f"{event['speaker']}: {event['text']}"])[0]
    assert np.allclose(stored["embedding"], expected, atol=1e-6)
    assert snapshot(tq, other_namespace) == other_before

    everywhere = check_embeddings(runner, embedder, max_findings=0)
    assert namespace in everywhere.namespaces and other_namespace in everywhere.namespaces
    assert everywhere.findings == [] and not any(
        s.namespace in (namespace, other_namespace) for s in everywhere.summary)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"namespace": "bad namespace"}, "invalid namespace"),
    ({"batch_size": 0}, "batch_size"),
    ({"max_findings": -1}, "max_findings"),
])
def test_doctor_refuses_bad_arguments(runner, kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        check_embeddings(runner, HashingEmbedder(384), **kwargs)
