"""Baselines run in the same process and on the same Neo4j as the memories.

- :class:`EmbedderEmbeddings`: our :class:`~graphmem.embeddings.Embedder` as a langchain-core
  ``Embeddings`` (same model, same vectors as the memories).
- :class:`VectorBaseline`: langchain-neo4j ``Neo4jVector`` over the raw turns, under the fixed
  label ``GraphmemBaseline`` and the fixed vector index ``graphmem_baseline`` (plus the id index
  ``graphmem_baseline_id``); one eval/bench run is scoped by the ``namespace`` property of its
  nodes (``<prefix>-baseline``). :meth:`VectorBaseline.cleanup` deletes the run's nodes and drops
  the shared indexes once no run's node is left. The store's own reads and writes are the
  library's Cypher, by design (the plain vector store as users would run it); graphmem's
  bookkeeping around it is ``cypher/evaluation/*.cypher``, run by name through the facade.
- :class:`BM25Baseline`: bm25s (Lucene BM25 variant, k1=1.5, b=0.75) over the raw turns.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from langchain_core.embeddings import Embeddings

from graphmem.embeddings import Embedder
from graphmem.errors import InvalidInputError
from graphmem.optional import require

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: The baseline's fixed label and vector index (runs are scoped by ``namespace``).
BASELINE_LABEL = "GraphmemBaseline"
BASELINE_INDEX = "graphmem_baseline"


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
    """``Neo4jVector`` over raw turns, one run scoped by a namespace.

    Args:
        mem: the facade; its namespace is the run's baseline scope (e.g. ``eval-<run>-baseline``)
            and its embedder the memories' embedder.
        server: ``{"uri", "username", "password", "database"}`` of the Neo4j the memories use
            (``Neo4jVector`` opens its own driver).
    """

    def __init__(self, mem: GraphMemory, server: dict[str, Any]):
        Neo4jVector = require("langchain_neo4j", "eval", "the vector-RAG baseline").Neo4jVector

        self.mem = mem
        self.namespace = mem.namespace
        self.label = BASELINE_LABEL
        self.index_name = BASELINE_INDEX
        self._kwargs = dict(url=server["uri"], username=server.get("username") or "neo4j",
                            password=server.get("password") or "neo4j",
                            database=server.get("database") or "neo4j",
                            index_name=self.index_name, node_label=self.label,
                            embedding_dimension=mem.embedder.dimension)
        self.embeddings = EmbedderEmbeddings(mem.embedder)
        self.store = Neo4jVector(self.embeddings, **self._kwargs)
        # Neo4jVector merges on `id`; an index on it keeps bulk loads linear.
        mem.query("evaluation/create_baseline_id_index")
        self._index_created = False
        self.size = 0

    def add(self, texts: Sequence[str], embeddings: np.ndarray, metadatas: Sequence[dict[str, Any]],
            ids: Sequence[str], batch: int = 2000, wait: bool = True) -> None:
        """Store ``texts`` with precomputed ``(n, d)`` unit ``embeddings`` (no re-encoding), in
        batches of ``batch`` rows, each node carrying the run's ``namespace``; the vector index
        is created on first use and, with ``wait``, awaited. Ids are prefixed with the
        namespace, so runs never merge onto each other's nodes."""
        vectors = np.asarray(embeddings, dtype=float)
        metas = [{**m, "namespace": self.namespace} for m in metadatas]
        scoped_ids = [f"{self.namespace}:{i}" for i in ids]
        for start in range(0, len(texts), batch):
            end = start + batch
            self.store.add_embeddings(list(texts[start:end]), vectors[start:end].tolist(),
                                      metadatas=metas[start:end], ids=scoped_ids[start:end])
        self.size += len(texts)
        if not self._index_created:
            self.store.create_new_index()
            self._index_created = True
        if wait:
            self.await_index()

    def await_index(self, seconds: int = 1800) -> None:
        """Block until the vector index is online (``db.awaitIndex``)."""
        self.mem.query("evaluation/await_baseline_index", seconds=seconds)

    def search(self, question: str, k: int, conversation: str | None = None) -> list[dict[str, Any]]:
        """The ``k`` nearest raw turns of this run, best first: with ``conversation``, the
        library's metadata filter (namespace and conversation; an exact cosine scan in
        langchain-neo4j); without, the plain vector-index query, keeping this run's hits.
        Returns ``[{"source_id", "score", ...metadata}]``."""
        if conversation:
            docs = self.store.similarity_search_with_score(
                question, k=k, filter={"namespace": self.namespace, "conversation": conversation})
            return [{**d.metadata, "score": s} for d, s in docs]
        return self.search_by_vector(self.embeddings.embed_query(question), k)

    def search_by_vector(self, vector: Sequence[float], k: int) -> list[dict[str, Any]]:
        """Plain index query with a precomputed vector; hits of other runs (only when runs
        overlap on one server) are dropped."""
        docs = self.store.similarity_search_with_score_by_vector(list(map(float, vector)), k=k)
        return [{**d.metadata, "score": s} for d, s in docs
                if d.metadata.get("namespace", self.namespace) == self.namespace]

    def cleanup(self, batch: int = 10_000) -> None:
        """Delete the run's baseline nodes; drop the shared indexes when no run's node is left;
        close the store's driver."""
        try:
            while self.mem.query("evaluation/delete_baseline_nodes", batch=batch)[0]["deleted"]:
                pass
            if self.mem.query("evaluation/count_all_baseline_nodes")[0]["nodes"] == 0:
                self.mem.query("evaluation/drop_baseline_vector_index")
                self.mem.query("evaluation/drop_baseline_id_index")
            logger.info("baseline %s cleaned up", self.namespace)
        finally:
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
        bm25s = require("bm25s", "eval", "the BM25 baseline")

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
