"""LangChain retrievers over graphmem's registered memories, and one that fuses them.

    from graphmem import GraphMemory
    from graphmem.retrievers import StateRetriever, CombinedGraphMemoryRetriever

    mem = GraphMemory.from_settings(namespace="team-a")
    docs = StateRetriever(graph_memory=mem, k=5).invoke("When did Caroline go to the group?")
    docs = await CombinedGraphMemoryRetriever(graph_memory=mem, k=8).ainvoke("...")

The namespace is fixed when the retriever is built (frozen field; by default the facade's); it
cannot be changed per call. ``k`` comes from the constructor and may be overridden per call
(``invoke(query, k=3)``); nothing else may. The async path is native: it awaits the memories'
``arecall`` (worker threads, so the event loop is never blocked), and the combined retriever runs
its memories concurrently.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

import pydantic
from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, PrivateAttr, model_validator

from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.memory import MAX_K, Memory, memory_names, memory_spec
from graphmem.names import validate_namespace
from graphmem.retrievers.fusion import RRF_K, reciprocal_rank_fusion

logger = logging.getLogger(__name__)

#: Parameters of ``recall`` that are not options (the retriever sets them).
_NOT_OPTIONS = {"self", "query", "k"}


def recall_options(memory: str) -> tuple[str, ...]:
    """The recall options of registered memory ``memory``: the keyword parameters of its
    class's ``recall`` other than ``query`` and ``k`` (read with :func:`inspect.signature`).

    Raises:
        InvalidInputError: an unknown memory name.
    """
    cls = memory_spec(memory).load()
    params = inspect.signature(cls.recall).parameters.values()
    return tuple(p.name for p in params if p.name not in _NOT_OPTIONS
                 and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _check_memory(name: str) -> str:
    if name not in memory_names():
        raise ValueError(f"unknown memory {name!r}: use one of {', '.join(memory_names())}")
    return name


def _check_recall_kwargs(memory: str, options: dict[str, Any]) -> None:
    allowed = recall_options(memory)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"recall option(s) {unknown!r} are not options of {memory} memory "
                         f"(allowed: {list(allowed)})")


def _pydantic_message(exc: pydantic.ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(x) for x in first["loc"]) or "retriever"
    return f"{where}: {first['msg']} (got {first.get('input')!r})"


class _NamespacedRetriever(BaseRetriever):
    """Fields and checks shared by the graphmem retrievers."""

    graph_memory: GraphMemory = Field(frozen=True, exclude=True,
                                      description="the facade (connection, embedder, llm)")
    namespace: str = Field(frozen=True, description="tenant scope; default the facade's")
    k: int = Field(4, ge=1, le=MAX_K, description="documents returned")

    _graph: GraphMemory = PrivateAttr()

    def __init__(self, **data: Any):
        try:
            super().__init__(**data)
        except pydantic.ValidationError as exc:
            raise InvalidInputError(f"{type(self).__name__}: {_pydantic_message(exc)}") from None

    @model_validator(mode="before")
    @classmethod
    def _default_namespace(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("namespace") is None:
            facade = data.get("graph_memory")
            if isinstance(facade, GraphMemory):
                data = {**data, "namespace": facade.namespace}
        return data

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        validate_namespace(self.namespace)
        facade = self.graph_memory
        self._graph = (facade if facade.namespace == self.namespace
                       else facade.scoped(self.namespace))

    def _k_of(self, kwargs: dict[str, Any]) -> int:
        """The per-call ``k`` (only ``k`` may be given per call)."""
        extra = set(kwargs) - {"k"}
        if "namespace" in extra:
            raise InvalidInputError(f"namespace is fixed at construction ({self.namespace!r}); got "
                                  f"namespace={kwargs['namespace']!r} per call")
        if extra:
            raise InvalidInputError(f"unknown retriever argument(s) {sorted(extra)!r}; only k")
        k = kwargs.get("k", self.k)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise InvalidInputError(f"k must be an integer in 1..{MAX_K}, got {k!r}")
        return k


class GraphMemoryRetriever(_NamespacedRetriever):
    """A LangChain retriever over one registered graphmem memory of one namespace.

    Each call runs the memory's own ``recall(query, k=k, **recall_kwargs)`` — insight:
    EvoGraph-Mem evidence-aware retrieval (top-B = k); experience: EMG eq. 7; state: EMIR²
    intent-guided multi-round retrieval; associative: MRAgent active reconstruction; any memory
    registered later the same way — and returns ``memory.documents(result)`` (metadata
    ``memory``, ``namespace``, ``node_ids``, ``score``, ``rank``, ``kind``, ``provenance``,
    ``fusion_key``).

    Args:
        graph_memory: a :class:`graphmem.GraphMemory` (its connection, embedder and llm).
        memory: the name of a registered memory (:func:`graphmem.memory.memory_names`).
        namespace: tenant scope (default ``graph_memory.namespace``); frozen.
        k: documents per call (1..200); ``invoke(query, k=n)`` overrides it for one call.
        recall_kwargs: options of the memory's ``recall`` (its keyword parameters besides
            ``query`` and ``k``, e.g. insight ``query_k``/``lam``, experience ``t``, state and
            associative ``max_rounds``); checked against the signature at construction.
    Raises:
        InvalidInputError: a bad namespace, memory, k or recall option (at construction); a
            ``namespace`` or other unknown argument per call.
    """

    memory: str = Field(frozen=True, description="which registered memory to recall from")
    recall_kwargs: dict[str, Any] = Field(default_factory=dict, description="memory recall options")

    @model_validator(mode="after")
    def _check_options(self) -> GraphMemoryRetriever:
        _check_memory(self.memory)
        _check_recall_kwargs(self.memory, self.recall_kwargs)
        return self

    @property
    def memory_object(self) -> Memory:
        """The memory instance this retriever reads (e.g. :class:`graphmem.state.StateMemory`)."""
        return self._graph.memory(self.memory)

    def recall_documents(self, query: str, k: int | None = None) -> list[Document]:
        """Synchronous recall of ``k`` (default ``self.k``) Documents, without callbacks."""
        k = self._k_of({} if k is None else {"k": k})
        memory = self.memory_object
        return memory.documents(memory.recall(query, k=k, **self.recall_kwargs))[:k]

    async def arecall_documents(self, query: str, k: int | None = None) -> list[Document]:
        """Async :meth:`recall_documents`: awaits the memory's ``arecall``."""
        k = self._k_of({} if k is None else {"k": k})
        memory = self.memory_object
        return memory.documents(await memory.arecall(query, k=k, **self.recall_kwargs))[:k]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        return self.recall_documents(query, self._k_of(kwargs))

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **kwargs: Any) -> list[Document]:
        return await self.arecall_documents(query, self._k_of(kwargs))


class InsightRetriever(GraphMemoryRetriever):
    """:class:`GraphMemoryRetriever` over insight memory (EvoGraph-Mem): Documents are active
    insights ranked by r = s − λc, provenance the supporting/conflicting query ids."""

    memory: str = Field("insight", frozen=True)


class ExperienceRetriever(GraphMemoryRetriever):
    """:class:`GraphMemoryRetriever` over experience memory (EMG): Documents are similar past
    tasks with their intra- and cross-task insights, provenance the task ids."""

    memory: str = Field("experience", frozen=True)


class StateRetriever(GraphMemoryRetriever):
    """:class:`GraphMemoryRetriever` over state memory (EMIR² SEMG): Documents are events and
    semantic states with validity intervals, provenance the turn ids (``dia_ids``)."""

    memory: str = Field("state", frozen=True)


class AssociativeRetriever(GraphMemoryRetriever):
    """:class:`GraphMemoryRetriever` over associative memory (MRAgent): Documents are episodes
    and semantic units, provenance the turn ids and the cue → tag → content path."""

    memory: str = Field("associative", frozen=True)


class CombinedGraphMemoryRetriever(_NamespacedRetriever):
    """One retriever over several memories of one namespace, fused by reciprocal rank fusion.

    Each memory returns its top ``fetch_k`` Documents; the lists are fused with
    RRF(d) = Σ_m w_m / (rrf_k + rank_m(d)) (Cormack et al., SIGIR 2009; ``rrf_k`` = 60 by
    default, :data:`graphmem.retrievers.fusion.RRF_K`) and the top ``k`` returned. Node ids differ
    across memories, so in practice the fusion interleaves the memories by rank, ordered by
    weight; a memory with no results simply contributes nothing. Fused Documents keep their
    memory's metadata (``score``, ``rank``) and gain ``rrf_score`` and ``ranks``. The async path
    recalls all memories concurrently.

    Args:
        graph_memory, namespace, k: as :class:`GraphMemoryRetriever`.
        memories: which registered memories to fuse (default: every registered memory, in
            registry order; ties go to the earlier one).
        fetch_k: documents asked from each memory (default ``k``).
        rrf_k: the RRF constant (> 0).
        weights: per-memory RRF weight (default 1.0 each).
        recall_kwargs: per-memory recall options, e.g. ``{"state": {"max_rounds": 2}}``
            (checked against each memory's ``recall`` signature).
    Raises:
        InvalidInputError: as :class:`GraphMemoryRetriever`; unknown or repeated memories;
            rrf_k ≤ 0; negative weights.
    """

    memories: tuple[str, ...] = Field(default_factory=memory_names, min_length=1, frozen=True)
    fetch_k: int | None = Field(None, ge=1, le=MAX_K)
    rrf_k: int = Field(RRF_K, gt=0)
    weights: dict[str, float] = Field(default_factory=dict)
    recall_kwargs: dict[str, dict[str, Any]] = Field(default_factory=dict)

    _members: list[GraphMemoryRetriever] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> CombinedGraphMemoryRetriever:
        if len(set(self.memories)) != len(self.memories):
            raise ValueError(f"memories repeat: {list(self.memories)!r}")
        for name in (*self.memories, *self.weights, *self.recall_kwargs):
            _check_memory(name)
        stray = sorted((set(self.weights) | set(self.recall_kwargs)) - set(self.memories))
        if stray:
            raise ValueError(f"weights/recall_kwargs name memories not fused: {stray!r}")
        for name, options in self.recall_kwargs.items():
            _check_recall_kwargs(name, options)
        if any(w < 0 for w in self.weights.values()):
            raise ValueError(f"weights must be >= 0, got {self.weights!r}")
        return self

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._members = [
            GraphMemoryRetriever(graph_memory=self._graph, memory=name, namespace=self.namespace,
                                 k=self.fetch_k or self.k,
                                 recall_kwargs=self.recall_kwargs.get(name, {}))
            for name in self.memories
        ]

    def _fuse(self, lists: list[list[Document]], k: int) -> list[Document]:
        weights = [self.weights.get(m, 1.0) for m in self.memories]
        return reciprocal_rank_fusion(lists, k=self.rrf_k, weights=weights)[:k]

    def _fetch(self, k: int) -> int:
        return max(self.fetch_k or k, 1)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        k = self._k_of(kwargs)
        lists = [m.recall_documents(query, self._fetch(k)) for m in self._members]
        return self._fuse(lists, k)

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **kwargs: Any) -> list[Document]:
        k = self._k_of(kwargs)
        lists = await asyncio.gather(*(m.arecall_documents(query, self._fetch(k))
                                       for m in self._members))
        return self._fuse(list(lists), k)
