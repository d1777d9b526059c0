"""Baselines run in the same process and on the same Neo4j as the memories.

- :class:`EmbedderEmbeddings`: our :class:`~graphmem.embeddings.Embedder` as a langchain-core
  ``Embeddings`` (same model, same vectors as the memories).
- :class:`VectorBaseline`: langchain-neo4j ``Neo4jVector`` over the raw turns, in a label and
  vector index dedicated to one eval/bench run (``GraphmemBaseline<run>`` /
  ``graphmem_baseline_<run>``), removed by :meth:`VectorBaseline.cleanup` with the library's own
  ``pre_delete_collection`` path. Its Cypher is the library's, by design: the baseline is the
  plain vector store as users would run it.
- :class:`BM25Baseline`: bm25s (Lucene BM25 variant, k1=1.5, b=0.75) over the raw turns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from graphmem.embeddings import Embedder
from graphmem.errors import InvalidInputError

_RUN_ID = re.compile(r"^[a-z0-9]{4,16}$")


class EmbedderEmbeddings(Embeddings):
    """langchain-core ``Embeddings`` backed by a graphmem :class:`Embedder`.

    ``embed_documents`` -> ``list[list[float]]`` of unit vectors (``embedder.dimension`` floats).
    """

    def __init__(self, embedder: Embedder):
        self.embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return np.asarray(self.embedder.embed_documents(texts), dtype=float).tolist()

    def embed_query(self, text: str) -> list[float]:
        return np.asarray(self.embedder.embed_query(text), dtype=float).tolist()


class VectorBaseline:
    """``Neo4jVector`` over raw turns in a run-scoped label and index.

    Args:
        embedder: the memories' embedder.
        run_id: 4-16 lowercase letters/digits naming the label and the index.
        uri, username, password, database: the Neo4j the memories use.
    Raises:
        InvalidInputError: a malformed ``run_id``.
    """

    def __init__(self, embedder: Embedder, run_id: str, uri: str, username: str = "neo4j",
                 password: str = "neo4j", database: str = "neo4j"):
        from langchain_neo4j import Neo4jVector

        if not _RUN_ID.match(run_id):
            raise InvalidInputError(f"run id must be 4-16 lowercase letters/digits, got {run_id!r}")
        self.label = f"GraphmemBaseline{run_id}"
        self.index_name = f"graphmem_baseline_{run_id}"
        self._id_index = f"graphmem_baseline_{run_id}_id"
        self._kwargs = dict(url=uri, username=username, password=password, database=database,
                            index_name=self.index_name, node_label=self.label,
                            embedding_dimension=embedder.dimension)
        self.embeddings = EmbedderEmbeddings(embedder)
        self.store = Neo4jVector(self.embeddings, **self._kwargs)
        # Neo4jVector MERGEs on `id`; an index on it keeps bulk loads linear (the library does
        # not create one). Index DDL cannot take the label as a parameter.
        self.store.query(f"CREATE INDEX {self._id_index} IF NOT EXISTS FOR (n:`{self.label}`) ON (n.id)")
        self._index_created = False
        self.size = 0

    def add(self, texts: Sequence[str], embeddings: np.ndarray, metadatas: Sequence[dict[str, Any]],
            ids: Sequence[str], batch: int = 2000, wait: bool = True) -> None:
        """Store ``texts`` with precomputed ``(n, d)`` unit ``embeddings`` (no re-encoding), in
        batches of ``batch`` rows; the vector index is created on first use and, with ``wait``,
        awaited."""
        vectors = np.asarray(embeddings, dtype=float)
        for start in range(0, len(texts), batch):
            end = start + batch
            self.store.add_embeddings(list(texts[start:end]), vectors[start:end].tolist(),
                                      metadatas=list(metadatas[start:end]), ids=list(ids[start:end]))
        self.size += len(texts)
        if not self._index_created:
            self.store.create_new_index()
            self._index_created = True
        if wait:
            self.await_index()

    def await_index(self, seconds: int = 1800) -> None:
        """Block until the vector index is online (``db.awaitIndex``)."""
        self.store.query("CALL db.awaitIndex($name, $seconds)",
                         params={"name": self.index_name, "seconds": seconds})

    def search(self, question: str, k: int, conversation: str | None = None) -> list[dict[str, Any]]:
        """``similarity_search_with_score`` (embeds the question); with ``conversation``, the
        library's metadata filter restricts hits to that conversation (an exact cosine scan in
        langchain-neo4j). Returns ``[{"source_id", "score", ...metadata}]`` best first."""
        flt = {"conversation": conversation} if conversation else None
        docs = self.store.similarity_search_with_score(question, k=k, filter=flt)
        return [{**d.metadata, "score": s} for d, s in docs]

    def search_by_vector(self, vector: Sequence[float], k: int) -> list[dict[str, Any]]:
        """Plain index query with a precomputed vector (no filter)."""
        docs = self.store.similarity_search_with_score_by_vector(list(map(float, vector)), k=k)
        return [{**d.metadata, "score": s} for d, s in docs]

    def cleanup(self) -> None:
        """Delete the run's baseline nodes and drop its vector and id indexes."""
        from langchain_neo4j import Neo4jVector

        Neo4jVector(self.embeddings, pre_delete_collection=True, **self._kwargs)
        self.store.query(f"DROP INDEX {self._id_index} IF EXISTS")
        self.store._driver.close()


class BM25Baseline:
    """bm25s index over texts (English stop words, lowercase, regex tokenizer).

    Args:
        texts: the corpus (raw turns, ``"speaker: text"``).
        ids: one source id per text.
    Raises:
        InvalidInputError: mismatched lengths or an empty corpus.
    """

    def __init__(self, texts: Sequence[str], ids: Sequence[str]):
        import bm25s

        if not texts or len(texts) != len(ids):
            raise InvalidInputError(f"BM25 needs one id per text, got {len(texts)} texts and {len(ids)} ids")
        self._bm25s = bm25s
        self.ids = list(ids)
        self.retriever = bm25s.BM25()
        self.retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False),
                             show_progress=False)

    def search(self, question: str, k: int) -> list[str]:
        """Ids of the top ``k`` texts by BM25 score (only those with a positive score)."""
        tokens = self._bm25s.tokenize([question], stopwords="en", show_progress=False)
        if not tokens.ids or not tokens.ids[0]:
            return []
        k = min(k, len(self.ids))
        docs, scores = self.retriever.retrieve(tokens, k=k, show_progress=False)
        return [self.ids[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]
