"""Where a vector or full-text index's global top list may be filtered by namespace: only the two
hybrid-retrieval read queries, each behind an exact in-namespace path for small namespaces. No
write path (the partners of RELATED_EVENT, RELATED_QUERY, SIMILAR_TASK) and no other read asks
an index for a top list, so their answers cannot depend on other namespaces' data."""

from __future__ import annotations

from graphmem.graph.registry import CypherRegistry

#: Queries allowed to take a top list from a vector index, and the parameter of their exact path.
VECTOR_INDEX_READS = {"retrieval/search_units": "exact_limit", "associative/search_episodes": "exact_limit"}
#: Queries allowed to query a full-text index.
FULLTEXT_READS = {"retrieval/search_units"}


def _base(name: str) -> str:
    return name.split("@", 1)[0]


def test_only_the_gated_reads_query_an_index() -> None:
    registry = CypherRegistry.load()
    vector = {_base(n) for n in registry.names() if "db.index.vector.queryNodes" in registry.get(n).text}
    fulltext = {_base(n) for n in registry.names() if "db.index.fulltext.queryNodes" in registry.get(n).text}
    assert vector == set(VECTOR_INDEX_READS)
    assert fulltext == FULLTEXT_READS
    for name, gate in VECTOR_INDEX_READS.items():
        query = next(registry.get(n) for n in registry.names() if _base(n) == name)
        assert gate in query.params and query.mode == "read"
        assert "vector.similarity.cosine" in query.text  # the exact in-namespace path


def test_partner_queries_of_write_paths_scan_their_namespace() -> None:
    registry = CypherRegistry.load()
    for name in ("state/find_related_candidates", "insight/find_related_queries",
                 "experience/find_tasks", "insight/recall_insights"):
        query = registry.get(name)
        assert "db.index" not in query.text, name
        assert "namespace: $namespace" in query.text, name
