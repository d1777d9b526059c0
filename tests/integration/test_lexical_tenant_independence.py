"""A tenant's lexical candidates, and so its recall, do not depend on other tenants (real Neo4j).

The tenant has 90 units matching the question's terms -- more than the round's ``LEXICAL_K``
(50) -- so *which* of them become candidates decides the answer. Lucene would rank them with
index-wide statistics; a foreign namespace then writes 300 units where one of the two terms is
very common and long, which moves that ranking (idf and average length across the index). With
the namespace in the vector cache the engine picks the namespace's exact BM25 top-k itself: the
candidates, the ranking, the scores and the state memory's answer stay identical.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from reliability import conversation

from graphmem.facade import GraphMemory
from graphmem.retrieval import HybridSearch
from graphmem.retrieval.engine import LEXICAL_K
from graphmem.retrieval.text import analyze, index_terms
from graphmem.retrieval.vectors import vector_cache_of

QUESTION = "kayak lighthouse"
FILLER = ["river", "morning", "paddle", "friends", "weather", "harbor", "picnic", "camera",
          "sunset", "bread", "garden", "music", "island", "ferry"]
#: The tenant's units with each question term, and without either.
PER_TERM = 45
OTHERS = 30
#: The foreign namespace's units: one term one to four times in long texts, the other rare.
FOREIGN = 300


def _tenant_turns() -> list[tuple[str, str]]:
    turns = []
    for i in range(PER_TERM):
        turns.append(("Ann", " ".join(["kayak"] * (1 + i % 2) + FILLER[i % 5:i % 5 + i % 11])))
        turns.append(("Ben", " ".join(["lighthouse"] * (1 + (i + 1) % 2)
                                      + FILLER[(3 * i) % 7:(3 * i) % 7 + (i * 7) % 10])))
    turns += [("Ann", " ".join(FILLER[i % 6:i % 6 + 3 + i % 5])) for i in range(OTHERS)]
    return turns


def _foreign_turns() -> list[tuple[str, str]]:
    return [("Cy", " ".join(["lighthouse"] * (1 + i % 4) + FILLER * (1 + i % 3)
                            + (["kayak"] if i % 60 == 0 else []))) for i in range(FOREIGN)]


def _answers(mem: GraphMemory, search: HybridSearch, vector: list[float]) -> dict:
    ns = mem.namespace
    row = search.fetch(ns, QUESTION, vector)
    window = dict(since=datetime(2024, 3, 2, tzinfo=timezone.utc),
                  until=datetime(2024, 3, 3, 16, tzinfo=timezone.utc))
    windowed = search.fetch(ns, QUESTION, vector, **window)
    return {
        "mode": (row["dense_mode"], windowed["dense_mode"]),
        "lexical": sorted(u["id"] for u in row["units"] if u["via_lexical"]),
        "windowed_lexical": sorted(u["id"] for u in windowed["units"] if u["via_lexical"]),
        "ranking": [(c.id, round(c.score, 9), c.flags["via_lexical"])
                    for c in search.search(ns, QUESTION, vector, k=60)],
        "windowed": [c.id for c in search.search(ns, QUESTION, vector, k=20, **window)],
        "state": [(i.id, round(i.score, 9)) for i in mem.state.recall(QUESTION, k=20).items],
    }


def test_lexical_candidates_and_recall_do_not_move_when_another_tenant_writes(
        runner, embedder, namespace) -> None:
    tenant = GraphMemory(runner, embedder, namespace)
    tenant.state.ingest([conversation("conv-lex", _tenant_turns())])
    search = HybridSearch(runner, "Event")
    vector = embedder.embed_query(QUESTION)
    for _ in range(3):                                   # loaded on the second miss
        search.fetch(namespace, QUESTION, vector)
    entry = vector_cache_of(runner).get(("Event", namespace, embedder.dimension))
    assert entry is not None and entry.complete_lexicon
    assert entry.dfs["kayak"] == PER_TERM and entry.dfs["lighthouse"] == PER_TERM
    before = _answers(tenant, search, vector)
    assert before["mode"] == ("cache", "cache")
    # the candidates are the namespace's exact BM25 top-k (with the units tying with the k-th);
    # more units match than they hold
    top = entry.lexical_top(index_terms(QUESTION), LEXICAL_K)
    assert LEXICAL_K <= len(top) < 2 * PER_TERM and before["lexical"] == sorted(top)
    assert 0 < len(before["windowed_lexical"]) <= LEXICAL_K
    assert sum(flag for _, _, flag in before["ranking"]) > 0 and len(before["state"]) == 20

    foreign = GraphMemory(runner, embedder, f"test-foreign-{uuid.uuid4().hex[:10]}")
    try:
        foreign.state.ingest([conversation("conv-lex", _foreign_turns())])
        after = _answers(tenant, search, vector)
    finally:
        foreign.delete_namespace()
    assert vector_cache_of(runner).get(("Event", namespace, embedder.dimension)) is entry
    assert after == before
