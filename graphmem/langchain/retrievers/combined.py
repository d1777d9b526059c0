"""LangChain's view of the fused recall: :class:`CombinedGraphMemoryRetriever` asks several
memories (default: those holding data) and fuses their documents by reciprocal rank fusion
(:mod:`graphmem.agent.rank_fusion`), with the options of every graphmem retriever
(:mod:`graphmem.langchain.retrievers.retrievers`)."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from pydantic import Field, PrivateAttr, model_validator

from graphmem.agent.rank_fusion import RRF_K, put_superseded_after, reciprocal_rank_fusion
from graphmem.memory import MAX_K, memory_names
from graphmem.parallel import ask_all
from graphmem.langchain.retrievers.arguments import (_check_memory, _check_recall_kwargs, _takes_window,
                                           select_documents)
from graphmem.langchain.retrievers.retrievers import (FETCH_FACTOR, OVERFETCH, GraphMemoryRetriever,
                                            _NamespacedRetriever)


class CombinedGraphMemoryRetriever(_NamespacedRetriever):
    """One retriever over several memories of one namespace, fused by reciprocal rank fusion.

    Each memory returns its top ``fetch_k`` Documents (default ``3 k``, so an item one memory
    ranks just below ``k`` still counts); the lists are fused with
    RRF(d) = Σ_m w_m / (rrf_k + rank_m(d)) (Cormack et al., SIGIR 2009; ``rrf_k`` = 60 by
    default, :data:`graphmem.agent.rank_fusion.RRF_K`) on the documents' ``fusion_key`` — the same
    conversation turn found by state memory (an Event) and associative memory (an Episode) is one
    document — and the top ``k`` returned. A memory with no results simply contributes nothing.
    Fused Documents keep their memory's metadata (``score``, ``rank``) and gain ``rrf_score`` and
    ``ranks``. Both paths recall the memories at once (the sync one in worker threads,
    :func:`graphmem.parallel.ask_all`).

    Args:
        graph_memory, namespace, k: as :class:`GraphMemoryRetriever`.
        memories: which registered memories to fuse (default: those holding data in the
            namespace when the call is made, in registry order — a conversation question is not
            sent to a memory of task outcomes that is empty; ties go to the earlier one).
        fetch_k: documents asked from each memory (default ``3 k``, at most 200).
        rrf_k: the RRF constant (> 0).
        weights: per-memory RRF weight (default 1.0 each).
        recall_kwargs: per-memory recall options, e.g. ``{"state": {"max_rounds": 2}}``
            (checked against each memory's ``recall`` signature).
        search_kwargs, score_threshold, filter: as :class:`GraphMemoryRetriever`, applied to
            each memory's documents (its own ``score``) before fusion.
        since, until, as_of: as :class:`GraphMemoryRetriever`, passed to every memory's recall.
        include_archived: as :class:`GraphMemoryRetriever`, passed to the memories whose recall
            takes it (the others hold no archived units).
    Raises:
        InvalidInputError: as :class:`GraphMemoryRetriever`; unknown or repeated memories;
            rrf_k ≤ 0; negative weights.
    """

    memories: tuple[str, ...] | None = Field(None, min_length=1, frozen=True)
    fetch_k: int | None = Field(None, ge=1, le=MAX_K)
    rrf_k: int = Field(RRF_K, gt=0)
    weights: dict[str, float] = Field(default_factory=dict)
    recall_kwargs: dict[str, dict[str, Any]] = Field(default_factory=dict)

    _members: dict[str, GraphMemoryRetriever] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> CombinedGraphMemoryRetriever:
        chosen = self.memories if self.memories is not None else memory_names()
        if len(set(chosen)) != len(chosen):
            raise ValueError(f"memories repeat: {list(chosen)!r}")
        for name in (*chosen, *self.weights, *self.recall_kwargs):
            _check_memory(name)
        stray = sorted((set(self.weights) | set(self.recall_kwargs)) - set(chosen))
        if stray:
            raise ValueError(f"weights/recall_kwargs name memories not fused: {stray!r}")
        for name, options in self.recall_kwargs.items():
            _check_recall_kwargs(name, options)
        if any(w < 0 for w in self.weights.values()):
            raise ValueError(f"weights must be >= 0, got {self.weights!r}")
        return self

    def _member(self, name: str) -> GraphMemoryRetriever:
        member = self._members.get(name)
        if member is None:
            member = GraphMemoryRetriever(graph_memory=self._graph, memory=name,
                                          namespace=self.namespace, k=self.k,
                                          recall_kwargs=self.recall_kwargs.get(name, {}),
                                          since=self.since, until=self.until,
                                          as_of=self.as_of, include_archived=(
                                              self.include_archived and _takes_window(
                                                  name, ("include_archived",))))
            self._members[name] = member
        return member

    def members(self) -> list[GraphMemoryRetriever]:
        """The per-memory retrievers of this call: ``memories``, else the memories holding data
        in the namespace now (:func:`graphmem.agent.recall.memories_with_data`, cached briefly)."""
        from graphmem.agent.recall import default_memories

        names = self.memories if self.memories is not None else default_memories(self._graph)
        return [self._member(name) for name in names]

    def _fuse(self, members: list[GraphMemoryRetriever], lists: list[list[Document]],
              k: int) -> list[Document]:
        weights = [self.weights.get(m.memory, 1.0) for m in members]
        lists = [select_documents(docs, self.score_threshold, self._filter) for docs in lists]
        # as the facade's fused recall: a superseded state never above the state replacing it
        fused = reciprocal_rank_fusion(lists, k=self.rrf_k, weights=weights)
        return put_superseded_after(fused, k=k)[:k]

    def _fetch(self, k: int) -> int:
        fetch = max(self.fetch_k or min(MAX_K, FETCH_FACTOR * k), 1)
        return min(MAX_K, fetch * OVERFETCH) if self._selecting else fetch

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        k = self._k_of(kwargs)
        members = self.members()
        fetch = self._fetch(k)
        lists = ask_all(self._graph.embedder, query,
                        [lambda m=m: m.recall_documents(query, fetch) for m in members])
        return self._fuse(members, lists, k)

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **kwargs: Any) -> list[Document]:
        k = self._k_of(kwargs)
        members = self.members()
        lists = await asyncio.gather(*(m.arecall_documents(query, self._fetch(k))
                                       for m in members))
        return self._fuse(members, list(lists), k)
