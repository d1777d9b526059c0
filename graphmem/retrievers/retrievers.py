"""LangChain retrievers over graphmem's four memories, and one that fuses them.

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
from typing import Any, ClassVar, Literal, get_args

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
from graphmem.names import validate_namespace
from graphmem.retrievers.documents import CONVERTERS
from graphmem.retrievers.fusion import RRF_K, reciprocal_rank_fusion

MemoryName = Literal["insight", "experience", "state", "associative"]
MEMORIES: tuple[str, ...] = get_args(MemoryName)

#: recall options a retriever may fix at construction, per memory (besides k)
RECALL_OPTIONS: dict[str, tuple[str, ...]] = {
    "insight": ("query_k", "lam"),
    "experience": ("t",),
    "state": ("max_rounds",),
    "associative": ("steps", "structure"),
}


def _pydantic_message(exc: pydantic.ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(x) for x in first["loc"]) or "retriever"
    return f"{where}: {first['msg']} (got {first.get('input')!r})"


def _recall_call(name: str, memory: Any, query: str, k: int,
                 options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The recall method name and its keyword arguments for ``k`` documents."""
    if name == "insight":
        return "recall", {"query": query, "b": k, "k": options.get("query_k"),
                          "lam": options.get("lam")}
    if name == "experience":
        return "recall", {"query": query, "k": k, "t": options.get("t", 2), "with_rules": False}
    if name == "state":
        return "recall", {"question": query, "k": k, "max_rounds": options.get("max_rounds", 4)}
    config = memory.config
    if config.max_evidence < k:
        config = config.model_copy(update={"max_evidence": k})
    return "recall", {"question": query, "steps": options.get("steps"),
                      "structure": options.get("structure"), "config": config}


class _NamespacedRetriever(BaseRetriever):
    """Fields and checks shared by the graphmem retrievers."""

    graph_memory: GraphMemory = Field(frozen=True, exclude=True,
                                      description="the facade (connection, embedder, llm)")
    namespace: str = Field(frozen=True, description="tenant scope; default the facade's")
    k: int = Field(4, ge=1, le=200, description="documents returned")

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
        self._graph = facade if facade.namespace == self.namespace else GraphMemory(
            facade.runner, facade.embedder, namespace=self.namespace, llm=facade.llm)

    def _k_of(self, kwargs: dict[str, Any]) -> int:
        """The per-call ``k`` (only ``k`` may be given per call)."""
        extra = set(kwargs) - {"k"}
        if "namespace" in extra:
            raise InvalidInputError(f"namespace is fixed at construction ({self.namespace!r}); got "
                                  f"namespace={kwargs['namespace']!r} per call")
        if extra:
            raise InvalidInputError(f"unknown retriever argument(s) {sorted(extra)!r}; only k")
        k = kwargs.get("k", self.k)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 200:
            raise InvalidInputError(f"k must be an integer in 1..200, got {k!r}")
        return k


class GraphMemoryRetriever(_NamespacedRetriever):
    """A LangChain retriever over one graphmem memory of one namespace.

    Each call runs the memory's own recall — insight: EvoGraph-Mem evidence-aware retrieval
    (eqs. 2–10, top-B = k); experience: EMG eq. 7 (top-k tasks with intra/cross-task insights);
    state: EMIR² intent-guided multi-round retrieval; associative: MRAgent active
    reconstruction — and returns its ranking as Documents (see
    :mod:`graphmem.retrievers.documents` for the metadata).

    Args:
        graph_memory: a :class:`graphmem.GraphMemory` (its connection, embedder and llm).
        memory: ``"insight" | "experience" | "state" | "associative"``.
        namespace: tenant scope (default ``graph_memory.namespace``); frozen.
        k: documents per call (1..200); ``invoke(query, k=n)`` overrides it for one call.
        recall_kwargs: recall options of the memory (insight: ``query_k``, ``lam``; experience:
            ``t``; state: ``max_rounds``; associative: ``steps``, ``structure``).
    Raises:
        InvalidInputError: a bad namespace, memory, k or recall option (at construction); a
            ``namespace`` or other unknown argument per call.
    """

    memory: MemoryName = Field(frozen=True, description="which memory to recall from")
    recall_kwargs: dict[str, Any] = Field(default_factory=dict, description="memory recall options")

    @model_validator(mode="after")
    def _check_options(self) -> GraphMemoryRetriever:
        allowed = RECALL_OPTIONS[self.memory]
        unknown = sorted(set(self.recall_kwargs) - set(allowed))
        if unknown:
            raise ValueError(f"recall option(s) {unknown!r} are not options of {self.memory} "
                             f"memory (allowed: {list(allowed)})")
        return self

    @property
    def memory_object(self) -> Any:
        """The memory instance this retriever reads (e.g. :class:`graphmem.state.StateMemory`)."""
        return self._graph.memory(self.memory)

    def _to_documents(self, result: Any, k: int) -> list[Document]:
        return CONVERTERS[self.memory](result, self.namespace)[:k]

    def recall_documents(self, query: str, k: int | None = None) -> list[Document]:
        """Synchronous recall of ``k`` (default ``self.k``) Documents, without callbacks."""
        k = self._k_of({} if k is None else {"k": k})
        memory = self.memory_object
        method, kwargs = _recall_call(self.memory, memory, query, k, self.recall_kwargs)
        return self._to_documents(getattr(memory, method)(**kwargs), k)

    async def arecall_documents(self, query: str, k: int | None = None) -> list[Document]:
        """Async :meth:`recall_documents`: awaits the memory's ``arecall``."""
        k = self._k_of({} if k is None else {"k": k})
        memory = self.memory_object
        _, kwargs = _recall_call(self.memory, memory, query, k, self.recall_kwargs)
        arecall = getattr(memory, "arecall", None)
        result = (await arecall(**kwargs) if arecall is not None
                  else await asyncio.to_thread(memory.recall, **kwargs))
        return self._to_documents(result, k)

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

    memory: Literal["insight"] = Field("insight", frozen=True)


class ExperienceRetriever(GraphMemoryRetriever):
    """:class:`GraphMemoryRetriever` over experience memory (EMG): Documents are similar past
    tasks with their intra- and cross-task insights, provenance the task ids."""

    memory: Literal["experience"] = Field("experience", frozen=True)


class StateRetriever(GraphMemoryRetriever):
    """:class:`GraphMemoryRetriever` over state memory (EMIR² SEMG): Documents are events and
    semantic states with validity intervals, provenance the turn ids (``dia_ids``)."""

    memory: Literal["state"] = Field("state", frozen=True)


class AssociativeRetriever(GraphMemoryRetriever):
    """:class:`GraphMemoryRetriever` over associative memory (MRAgent): Documents are episodes
    and semantic units, provenance the turn ids and the cue → tag → content path."""

    memory: Literal["associative"] = Field("associative", frozen=True)


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
        memories: which memories to fuse (default all four, in this order; ties go to the
            earlier one).
        fetch_k: documents asked from each memory (default ``k``).
        rrf_k: the RRF constant (> 0).
        weights: per-memory RRF weight (default 1.0 each).
        recall_kwargs: per-memory recall options, e.g. ``{"state": {"max_rounds": 2}}``.
    Raises:
        InvalidInputError: as :class:`GraphMemoryRetriever`; unknown or repeated memories;
            rrf_k ≤ 0; negative weights.
    """

    DEFAULT_MEMORIES: ClassVar[tuple[str, ...]] = MEMORIES

    memories: tuple[MemoryName, ...] = Field(MEMORIES, min_length=1, frozen=True)  # type: ignore[assignment]
    fetch_k: int | None = Field(None, ge=1, le=200)
    rrf_k: int = Field(RRF_K, gt=0)
    weights: dict[MemoryName, float] = Field(default_factory=dict)
    recall_kwargs: dict[MemoryName, dict[str, Any]] = Field(default_factory=dict)

    _members: list[GraphMemoryRetriever] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> CombinedGraphMemoryRetriever:
        if len(set(self.memories)) != len(self.memories):
            raise ValueError(f"memories repeat: {list(self.memories)!r}")
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
        weights = [self.weights.get(m, 1.0) for m in self.memories]  # type: ignore[call-overload]
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
