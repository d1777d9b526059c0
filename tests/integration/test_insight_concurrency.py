"""3 concurrent writers × 100 feedback calls on ONE insight: every evidence update lands (the
counters change in the same single Cypher statement as the SUPPORTS/CONFLICTS_WITH edge)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from graphmem.insight import InsightMemory, OperationSet

WRITERS, UPDATES = 3, 100


def test_three_writers_hundred_updates_exact_counts(runner, embedder, namespace) -> None:
    mem = InsightMemory(runner, embedder, namespace, operation_set=OperationSet.ADD_KEEP,
                        related_top=2, related_threshold=0.5)
    seed = mem.add_query("How to verify a claim about a film?", "resolved", ["search[film]"])
    insight = mem.add_insight("Check the film's Wikipedia page first.", [seed])
    texts = [[f"Writer {w} claim {i} about film number {i * 7 + w}" for i in range(UPDATES)]
             for w in range(WRITERS)]
    vectors = [embedder.embed_documents(t) for t in texts]

    def writer(w: int) -> list[str]:
        ops = []
        for i in range(UPDATES):
            status = "resolved" if i % 2 == 0 else "failed"
            res = mem.feedback(texts[w][i], status, [], [insight], embedding=vectors[w][i])
            ops.append(res.decisions[0].operation)
        return ops

    with ThreadPoolExecutor(WRITERS) as pool:
        results = list(pool.map(writer, range(WRITERS)))
    assert all(op == "KEEP" for ops in results for op in ops)

    [state] = mem.get_insights([insight])
    assert state.positive_evidence == 1 + WRITERS * UPDATES // 2 == 151
    assert state.negative_evidence == WRITERS * UPDATES // 2 == 150
    assert len(state.supporting_query_ids) == 151 and len(state.conflicting_query_ids) == 150
    assert state.active
    stats = mem.graph_summary()
    assert mem.counts()["Query"] == 1 + WRITERS * UPDATES
    assert stats["queries"] == 1 + WRITERS * UPDATES
    assert stats["decisions"] == {"ADD": 1, "KEEP": 300, "NO_ADD": 300}
    assert len(mem.history(insight).decisions) == 301
