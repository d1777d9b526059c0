"""LangChain retrievers on real Neo4j with real data slices: langchain-tests' standard
``RetrieversIntegrationTests`` for every memory's retriever and the combined one, plus tenancy,
metadata, fusion and async == sync.

Data (ingested once per module into a fresh namespace A): 10 FEVER claims replayed as insight
feedback, 6 ScienceWorld gold tasks as experience memory, LoCoMo conv-26 session 1 (18 turns)
into state and associative memory. Namespace B holds the same slices (A's export imported), so
a leak from B would be as relevant as A's own documents.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_tests.integration_tests import RetrieversIntegrationTests

from graphmem.conversations import read_locomo
from graphmem.errors import InvalidInputError
from graphmem.experience import read_trajectories
from graphmem.facade import GraphMemory
from graphmem.insight import replay
from graphmem.langchain.retrievers import (
    AssociativeRetriever,
    CombinedGraphMemoryRetriever,
    ExperienceRetriever,
    GraphMemoryRetriever,
    InsightRetriever,
    StateRetriever,
)

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out

QUERIES = {
    "insight": "Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.",
    "experience": "Your task is to boil water.",
    "state": "When did Caroline go to the LGBTQ support group?",
    "associative": "When did Caroline go to the LGBTQ support group?",
}
CLASSES = {"insight": InsightRetriever, "experience": ExperienceRetriever,
           "state": StateRetriever, "associative": AssociativeRetriever}


def _seed(mem: GraphMemory, data: Path) -> None:
    replay(mem.insight, "fever", 10, data_root=data)
    mem.experience.ingest(read_trajectories(data / "scienceworld" / "sciworld_gold_train.jsonl",
                                            limit=6))
    conv = read_locomo(data / "locomo" / "locomo-dev.json")[0]
    conv = conv.model_copy(update={"turns": [t for t in conv.turns if t.session == "session_1"]})
    mem.state.ingest([conv])
    mem.associative.ingest([conv])


@pytest.fixture(scope="module")
def tenants(runner, embedder, sample_data, tmp_path_factory):
    """Two namespaces with the same real slices: ``(memory_a, memory_b)``; B is A's export
    imported (the same nodes, properties and relationships under B's ids)."""
    a = GraphMemory(runner, embedder, f"test-ret-a-{uuid.uuid4().hex[:8]}")
    b = a.scoped(f"test-ret-b-{uuid.uuid4().hex[:8]}")
    _seed(a, sample_data)
    export = tmp_path_factory.mktemp("retrievers") / "a.jsonl"
    a.export_namespace(export)
    b.import_namespace(export)
    assert b.counts() == a.counts()
    yield a, b
    for mem in (a, b):
        mem.delete_namespace()


# ---------------------------------------------------------------- langchain-tests standard suite
class _Standard(RetrieversIntegrationTests):
    memory = "state"
    cls: type = StateRetriever

    @pytest.fixture(autouse=True)
    def _tenant(self, tenants) -> None:
        self._graph = tenants[0]

    @property
    def retriever_constructor(self) -> type:
        return self.cls

    @property
    def retriever_constructor_params(self) -> dict:
        return {"graph_memory": self._graph}

    @property
    def retriever_query_example(self) -> str:
        return QUERIES[self.memory]


class TestInsightRetrieverStandard(_Standard):
    memory, cls = "insight", InsightRetriever


class TestExperienceRetrieverStandard(_Standard):
    memory, cls = "experience", ExperienceRetriever


class TestStateRetrieverStandard(_Standard):
    memory, cls = "state", StateRetriever


class TestAssociativeRetrieverStandard(_Standard):
    memory, cls = "associative", AssociativeRetriever


class TestGenericRetrieverStandard(_Standard):
    """The generic class with ``memory=...`` (here associative)."""

    memory, cls = "associative", GraphMemoryRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"graph_memory": self._graph, "memory": "associative"}


class TestCombinedRetrieverStandard(_Standard):
    cls = CombinedGraphMemoryRetriever


# ---------------------------------------------------------------- own tests
def _check_common(docs: list[Document], memory: str, namespace: str) -> None:
    assert docs and all(isinstance(d, Document) for d in docs)
    for rank, d in enumerate(docs, start=1):
        m = d.metadata
        assert m["memory"] == memory and m["namespace"] == namespace and m["rank"] == rank
        assert d.id == m["node_ids"][0] and d.page_content.strip()
        assert isinstance(m["score"], float)


@pytest.mark.parametrize("memory", list(CLASSES))
def test_tenancy_a_never_sees_b(tenants, memory) -> None:
    a, b = tenants
    docs_a = CLASSES[memory](graph_memory=a, k=5).invoke(QUERIES[memory])
    docs_b = CLASSES[memory](graph_memory=b, k=5).invoke(QUERIES[memory])
    _check_common(docs_a, memory, a.namespace)
    _check_common(docs_b, memory, b.namespace)
    ids_a = {n for d in docs_a for n in d.metadata["node_ids"]}
    ids_b = {n for d in docs_b for n in d.metadata["node_ids"]}
    assert ids_a.isdisjoint(ids_b), ids_a & ids_b
    # B holds the same data: equally relevant documents exist there (same text), yet none of
    # B's nodes reaches A's results
    assert {d.page_content for d in docs_a} & {d.page_content for d in docs_b}
    # a retriever built on facade A for namespace B reads B, and only B
    via_a = CLASSES[memory](graph_memory=a, namespace=b.namespace, k=5).invoke(QUERIES[memory])
    assert [d.id for d in via_a] == [d.id for d in docs_b]


def test_combined_tenancy(tenants) -> None:
    a, b = tenants
    docs = CombinedGraphMemoryRetriever(graph_memory=a, k=12).invoke(QUERIES["state"])
    ids_b = {n for d in CombinedGraphMemoryRetriever(graph_memory=b, k=12).invoke(QUERIES["state"])
             for n in d.metadata["node_ids"]}
    assert len(docs) == 12 and {d.metadata["namespace"] for d in docs} == {a.namespace}
    ids_a = {n for d in docs for n in d.metadata["node_ids"]}
    assert ids_a.isdisjoint(ids_b), ids_a & ids_b


def test_namespace_is_fixed(tenants) -> None:
    a, b = tenants
    retriever = StateRetriever(graph_memory=a)
    with pytest.raises(Exception, match="frozen"):
        retriever.namespace = b.namespace
    with pytest.raises(InvalidInputError, match="namespace is fixed"):
        retriever.invoke(QUERIES["state"], namespace=b.namespace)
    with pytest.raises(InvalidInputError, match="only k"):
        retriever.invoke(QUERIES["state"], lam=2)
    with pytest.raises(InvalidInputError, match="namespace"):
        StateRetriever(graph_memory=a, namespace="bad namespace!")
    with pytest.raises(InvalidInputError, match="unknown memory 'episodic'"):
        GraphMemoryRetriever(graph_memory=a, memory="episodic")
    with pytest.raises(InvalidInputError, match="steps"):  # associative's old option name
        GraphMemoryRetriever(graph_memory=a, memory="associative", recall_kwargs={"steps": 2})
    GraphMemoryRetriever(graph_memory=a, memory="associative", recall_kwargs={"max_rounds": 2})
    with pytest.raises(InvalidInputError, match="lam"):
        StateRetriever(graph_memory=a, recall_kwargs={"lam": 1.0})
    with pytest.raises(InvalidInputError, match="k must be"):
        retriever.invoke(QUERIES["state"], k=0)
    with pytest.raises(InvalidInputError, match="repeat"):
        CombinedGraphMemoryRetriever(graph_memory=a, memories=("state", "state"))


def test_metadata_and_provenance(tenants, sample_data) -> None:
    a, _ = tenants
    state = StateRetriever(graph_memory=a, k=3).invoke(QUERIES["state"])
    assert state[0].metadata["provenance"]["dia_ids"] == ["D1:3"]
    assert "LGBTQ support group" in state[0].page_content
    assert state[0].metadata["provenance"]["topic_id"] in state[0].metadata["node_ids"]

    assoc = AssociativeRetriever(graph_memory=a, k=3).invoke(QUERIES["associative"])
    top = assoc[0].metadata
    assert top["provenance"]["dia_ids"] == ["D1:3"] and top["kind"] == "episode"
    path = top["provenance"]["path"]
    assert path and path[0]["node"] == "question"
    assert {s["id"] for s in path if s["node"] != "question"} <= set(top["node_ids"])

    insight = InsightRetriever(graph_memory=a, k=3).invoke(QUERIES["insight"])
    for d in insight:
        prov = d.metadata["provenance"]
        assert d.metadata["score"] == prov["s"] - 1.0 * prov["c"]  # r = s − λc, λ = 1
        assert set(prov["supporting_query_ids"]) <= set(d.metadata["node_ids"])
        assert prov["s"] == len(prov["supporting_query_ids"]) >= 1
    assert [d.metadata["score"] for d in insight] == sorted(
        (d.metadata["score"] for d in insight), reverse=True)

    exp = ExperienceRetriever(graph_memory=a, k=3).invoke(QUERIES["experience"])
    keys = {t.task_id for t in read_trajectories(
        sample_data / "scienceworld" / "sciworld_gold_train.jsonl", limit=6)}
    for d in exp:
        prov = d.metadata["provenance"]
        assert prov["task_ids"] and set(prov["task_ids"]) <= keys
        assert d.page_content.startswith("Task: ") and -1.0 <= d.metadata["score"] <= 1.0
    assert [d.metadata["score"] for d in exp] == sorted(
        (d.metadata["score"] for d in exp), reverse=True)


def test_combined_fuses_the_same_turn_across_memories(tenants) -> None:
    a, _ = tenants
    docs = CombinedGraphMemoryRetriever(graph_memory=a, k=6, memories=("state", "associative")
                                        ).invoke(QUERIES["state"])
    [top] = [d.metadata for d in docs if d.metadata["provenance"].get("dia_ids") == ["D1:3"]]
    # D1:3 is rank 1 in both memories: one document, RRF = 1/61 + 1/61; first, unless it is a
    # superseded state: then the state that replaced it comes just before it (as mem.recall)
    assert top["ranks"] == {"state": 1, "associative": 1}
    position = [d.metadata for d in docs].index(top)
    if position:
        assert position == 1 and top["superseded_by"] == docs[0].metadata["fusion_key"]
    assert top["rrf_score"] == pytest.approx(2 / 61)
    assert len(top["fused_ids"]) == 2 and set(top["fused_ids"]) <= set(top["node_ids"])
    assert len({d.metadata["fusion_key"] for d in docs}) == len(docs)
    weighted = CombinedGraphMemoryRetriever(graph_memory=a, k=6, memories=("insight", "state"),
                                            weights={"insight": 0.0}).invoke(QUERIES["state"])
    assert weighted[0].metadata["memory"] == "state"


@pytest.mark.parametrize("memory", [*CLASSES, "combined"])
async def test_async_equals_sync(tenants, memory) -> None:
    a, _ = tenants
    retriever = (CombinedGraphMemoryRetriever(graph_memory=a, k=5) if memory == "combined"
                 else CLASSES[memory](graph_memory=a, k=5))
    query = QUERIES["state" if memory == "combined" else memory]
    sync = retriever.invoke(query)
    assert await retriever.ainvoke(query) == sync
    assert await retriever.ainvoke(query, k=2) == retriever.invoke(query, k=2)


async def test_concurrent_async_recalls(tenants) -> None:
    a, _ = tenants
    retrievers = [CLASSES[m](graph_memory=a, k=3) for m in CLASSES]
    expected = [r.invoke(QUERIES[m]) for r, m in zip(retrievers, CLASSES)]
    got = await asyncio.gather(*(r.ainvoke(QUERIES[m]) for r, m in zip(retrievers, CLASSES)))
    # the same documents (scores may move slightly: BM25 statistics of the shared full-text
    # index change while other tenants write)
    assert [{d.id for d in docs} for docs in got] == [{d.id for d in docs} for docs in expected]
    assert all(len(docs) == 3 for docs in got)
