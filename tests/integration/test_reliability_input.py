"""Bad input through the public entry points on the real Neo4j: each raises a typed graphmem
error naming the bad value, before anything is written (the namespace stays empty)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from reliability import counts, tq  # noqa: F401

from graphmem.embeddings import HashingEmbedder
from graphmem.errors import (
    EmbeddingDimensionError,
    EmptyTextError,
    InputFormatError,
    TrajectoryError,
    InvalidInputError,
)
from graphmem.facade import GraphMemory
from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever, GraphMemoryRetriever

EMPTY = {"nodes": 0, "relationships": 0}


class NaNEmbedder(HashingEmbedder):
    """A plugged-in embedder with a bug: NaN in every vector."""

    def embed_documents(self, texts):
        vectors = super().embed_documents(texts)
        vectors[:, 3] = np.nan
        return vectors


class NarrowEmbedder(HashingEmbedder):
    """Claims 384 dimensions but returns 383."""

    def embed_documents(self, texts):
        return super().embed_documents(texts)[:, :383]


def test_facade_refuses_unknown_memory_bad_namespace_and_other_index_dimension(runner, embedder,
                                                                               namespace) -> None:
    mem = GraphMemory(runner, embedder, namespace)
    assert mem.memory("insight") is mem.insight
    with pytest.raises(InvalidInputError, match="unknown memory 'nope'"):
        mem.memory("nope")
    with pytest.raises(InvalidInputError, match="'bad namespace'"):
        GraphMemory(runner, embedder, "bad namespace")
    with pytest.raises(EmbeddingDimensionError, match=r"dimension 384.*produces 128"):
        GraphMemory(runner, HashingEmbedder(128), namespace)
    with pytest.raises(InvalidInputError, match="batch_size"):
        mem.delete_namespace(batch_size=0)
    with pytest.raises(InvalidInputError, match="'nope'"):
        GraphMemoryRetriever(graph_memory=mem, memory="nope")
    with pytest.raises(InvalidInputError, match="'nope'"):
        CombinedGraphMemoryRetriever(graph_memory=mem, memories=("insight", "nope"))
    with pytest.raises(InvalidInputError, match="k"):
        GraphMemoryRetriever(graph_memory=mem, memory="insight", k=0)


def test_insight_bad_input_is_typed_and_writes_nothing(runner, embedder, tq, namespace) -> None:
    insight = GraphMemory(runner, embedder, namespace).insight
    cases = [
        (EmptyTextError, "''", lambda: insight.recall("")),
        (EmptyTextError, "query", lambda: insight.feedback("   ", "resolved", ["a"])),
        (InvalidInputError, "'maybe'", lambda: insight.feedback("q", "maybe", ["a"])),
        (TrajectoryError, "step 1", lambda: insight.feedback("q", "failed", ["a", " "])),
        (EmptyTextError, "content", lambda: insight.add_insight("", ["x"])),
        (InvalidInputError, "k must be an integer in 1..200, got 0",
         lambda: insight.recall("q", k=0)),
        (InvalidInputError, "query_k must be an integer", lambda: insight.recall("q", query_k=0)),
        (InvalidInputError, "lam must be a finite number in 0..inf, got -1", lambda: insight.recall("q", lam=-1.0)),
        (EmbeddingDimensionError, r"\(1, 0\)", lambda: insight.recall("q", embedding=np.zeros(0))),
        (EmbeddingDimensionError, r"\(1, 5000\)",
         lambda: insight.add_query("q", "resolved", embedding=np.ones(5000))),
        (EmbeddingDimensionError, r"\(1, 383\)",
         lambda: insight.feedback("q", "resolved", [], [], embedding=np.ones(383))),
        (EmbeddingDimensionError, "NaN",
         lambda: insight.add_query("q", "resolved", embedding=np.full(384, np.nan))),
    ]
    for error, named, call in cases:
        with pytest.raises(error, match=named):
            call()
    assert counts(tq, namespace) == EMPTY


@pytest.mark.parametrize("bad_embedder,named", [(NaNEmbedder(), "NaN"),
                                                (NarrowEmbedder(), r"\(1, 383\)")])
def test_a_broken_plugged_in_embedder_is_refused_before_writing(runner, tq, namespace,
                                                               bad_embedder, named) -> None:
    mem = GraphMemory(runner, bad_embedder, namespace)
    with pytest.raises(EmbeddingDimensionError, match=named):
        mem.insight.add_query("Is Kiel a port?", "resolved", ["search[Kiel]"])
    with pytest.raises(EmbeddingDimensionError):
        mem.experience.ingest([{"task_id": "t", "query": "q", "reward": 1.0,
                               "steps": [{"action": "go to desk 1", "observation": "o"}]}])
    with pytest.raises(EmbeddingDimensionError):
        mem.experience.recall("q")
    from reliability import conversation

    chat = conversation("c", [("Alice", "I moved to Kiel."), ("Bob", "When?")])
    with pytest.raises(EmbeddingDimensionError):
        mem.state.ingest([chat])
    with pytest.raises(EmbeddingDimensionError):
        mem.associative.ingest([chat])
    with pytest.raises(EmbeddingDimensionError):
        mem.state.recall("Where does Alice live?")
    assert counts(tq, namespace) == EMPTY


def test_experience_bad_input_is_typed_and_writes_nothing(runner, embedder, tq, namespace,
                                                          tmp_path) -> None:
    experience = GraphMemory(runner, embedder, namespace).experience
    step = {"action": "go to desk 1", "observation": "You arrive at desk 1."}
    with pytest.raises(InvalidInputError, match="no expert"):
        experience.ingest([])
    with pytest.raises(TrajectoryError, match=r"'no-actions'.*no actions"):
        experience.ingest([{"task_id": "no-actions", "query": "q", "steps": [], "reward": 1.0}])
    with pytest.raises(TrajectoryError, match="reward"):
        experience.ingest([{"task_id": "r", "query": "q", "steps": [step], "reward": 7}])
    with pytest.raises(InvalidInputError, match="k must be an integer in 0..200, got -1"):
        experience.ingest([{"task_id": "a", "query": "q", "steps": [step], "reward": 1.0}], k=-1)
    with pytest.raises(EmptyTextError):
        experience.recall(" ")
    with pytest.raises(InvalidInputError, match="k must be an integer in 1..200, got 0"):
        experience.recall("q", k=0)
    path = tmp_path / "experts.jsonl"
    good = {"task_id": "a", "query": "q", "steps": [step], "reward": 1.0}
    path.write_text(json.dumps(good) + "\n" + json.dumps(good)[:-5] + "\n")
    with pytest.raises(InputFormatError, match=r"experts\.jsonl:2: malformed JSON"):
        experience.ingest_files(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "task_id": "b", "steps": []}))
    with pytest.raises(TrajectoryError, match=r"experts\.jsonl:2: bad trajectory record 'b'"):
        experience.ingest_files(path)
    assert counts(tq, namespace) == EMPTY


def test_state_and_associative_bad_input_is_typed_and_writes_nothing(runner, embedder, tq,
                                                                     namespace, tmp_path) -> None:
    from graphmem.conversations import Conversation

    mem = GraphMemory(runner, embedder, namespace)
    state, associative = mem.state, mem.associative
    for call, error, named in [
        (lambda: state.recall(""), EmptyTextError, "question"),
        (lambda: state.recall("When?", k=0), InvalidInputError,
         "k must be an integer in 1..200, got 0"),
        (lambda: state.recall("When?", max_rounds=99), InvalidInputError, "99"),
        (lambda: associative.recall("  "), EmptyTextError, "question"),
        (lambda: associative.vector_search(""), EmptyTextError, "question"),
        (lambda: associative.ingest([Conversation(id="c", turns=[], speakers=[])]),
         InvalidInputError, "'c' has no turns"),
    ]:
        with pytest.raises(error, match=named):
            call()
    ok = {"speaker": "A", "text": "I moved to Kiel.", "timestamp": "2024-01-01T10:00:00Z"}
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps(ok) + "\n" + json.dumps(ok) + "\n" + '{"speaker": "B", "text": \n')
    for ingest in (state.ingest_file, associative.ingest_file):
        with pytest.raises(InputFormatError, match=r"chat\.jsonl: line 3: invalid JSON"):
            ingest(path)
    path.write_text(json.dumps(ok) + "\n" + json.dumps({**ok, "text": " "}) + "\n")
    for ingest in (state.ingest_file, associative.ingest_file):
        with pytest.raises(InputFormatError, match=r"line 2.*text"):
            ingest(path)
    with pytest.raises(InputFormatError, match="unknown format 'csv'"):
        state.ingest_file(path, fmt="csv")
    assert counts(tq, namespace) == EMPTY
