"""A toy fifth memory (tests/toy_memory.py, label ``Note``, queries from
tests/integration/cypher/note/) registered at run time on a real Neo4j: the facade serves it,
``counts()`` reports it, a retriever reads it, and ``delete_namespace()`` deletes its nodes with
the rest of the tenant — without editing graphmem. Unregistered afterwards."""

from __future__ import annotations

import pytest

from graphmem.facade import GraphMemory
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever, GraphMemoryRetriever
from toy_memory import TEST_CYPHER, NoteMemory, note_registered


@pytest.fixture
def note_runner(runner: QueryRunner) -> QueryRunner:
    """The session's driver with the shipped queries plus the test-only ones."""
    return QueryRunner(runner.driver, CypherRegistry.load(extra=[TEST_CYPHER]),
                       database=runner.database)


def test_a_registered_toy_memory_is_served_counted_retrieved_and_deleted(
        note_runner: QueryRunner, embedder, namespace: str) -> None:
    with note_registered():
        mem = GraphMemory(note_runner, embedder, namespace)
        assert isinstance(mem.note, NoteMemory)
        report = mem.note.ingest(["Caroline went to the LGBTQ support group", "Melanie paints"])
        assert report.created == {"Note": 2}
        assert mem.note.ingest(["Melanie paints"]).created == {}
        other = mem.scoped(f"{namespace}-other")
        other.note.ingest(["Melanie paints"])
        counts = mem.counts()
        assert counts["note"] == {"Note": 2} and set(counts) >= {"insight", "state", "note"}

        docs = GraphMemoryRetriever(graph_memory=mem, memory="note", k=1).invoke("support group")
        assert [d.page_content for d in docs] == ["Caroline went to the LGBTQ support group"]
        fused = CombinedGraphMemoryRetriever(graph_memory=mem, k=3).invoke("Melanie paints")
        assert any(d.metadata["memory"] == "note" for d in fused)

        assert mem.delete_namespace(batch_size=1) == 2
        assert mem.note.counts() == {"Note": 0}
        left = note_runner.read("count_any_namespace", namespace=namespace)[0]
        assert left["nodes"] == 0
        # the other tenant is untouched
        assert other.note.counts() == {"Note": 1}
        assert other.delete_namespace() == 1
