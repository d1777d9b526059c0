"""LangChain retrievers over graphmem's registered memories (the one that fuses them:
:mod:`graphmem.langchain.retrievers.combined`).

    from graphmem import GraphMemory
    from graphmem.langchain.retrievers import StateRetriever, CombinedGraphMemoryRetriever

    mem = GraphMemory.from_settings(namespace="team-a")
    docs = StateRetriever(graph_memory=mem, k=5).invoke("When did Caroline go to the group?")
    docs = await CombinedGraphMemoryRetriever(graph_memory=mem, k=8).ainvoke("...")

The namespace is fixed when the retriever is built (frozen field; by default the facade's); it
cannot be changed per call. ``k`` comes from the constructor and may be overridden per call
(``invoke(query, k=3)``); nothing else may.

Options, as LangChain's vector-store retrievers take them (:data:`SUPPORTED_OPTIONS`): ``k``;
``search_kwargs={"k": n, "score_threshold": x, "filter": {...}, "since": t0, "until": t1,
"as_of": t}``;
``score_threshold`` (documents whose metadata ``score`` is below it are dropped); ``filter`` on
metadata ``kind`` and/or ``memory``, each an exact value or a list of accepted values;
``include_archived`` (True: also the conversation units retention archived,
:mod:`graphmem.agent.retention`; state and associative memory);
``since`` / ``until`` (time-zone-aware datetimes or ISO 8601 text with an offset): every recall
is limited to the half-open window ``since <= t < until``, inside the memories' queries (so
``k`` documents come back when the window holds ``k``; see each memory's ``recall`` for the
time its items have); ``as_of`` (the same kinds of time) answers as at that instant
(:mod:`graphmem.time_travel`). Any other argument raises
:class:`~graphmem.errors.InvalidInputError` at construction, naming it and the supported ones. The async path is native: it awaits the memories'
``arecall`` (worker threads, so the event loop is never blocked), and the combined retriever runs
its memories concurrently.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import pydantic
from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.memory import DEFAULT_K, MAX_K, Memory, check_count, check_number
from graphmem.names import validate_namespace
from graphmem.langchain.retrievers.arguments import (SEARCH_KWARGS, _check_filter, _check_memory,
                                           _check_recall_kwargs, _merge_search_kwargs,
                                           _pydantic_message, _takes_window, select_documents)
from graphmem.time_travel import check_as_of, parse_as_of
from graphmem.timeparse import check_window

#: Documents asked of each fused memory per document returned (when ``fetch_k`` is not set).
FETCH_FACTOR = 3

logger = logging.getLogger(__name__)

#: Constructor arguments every graphmem retriever accepts (plus its own, listed in errors).
SUPPORTED_OPTIONS = ("graph_memory", "namespace", "k", "search_kwargs", "score_threshold",
                     "filter", "since", "until", "as_of", "include_archived", "tags",
                     "metadata")
#: How many more items a recall is asked for when ``filter``/``score_threshold`` may drop some.
OVERFETCH = 4


class _NamespacedRetriever(BaseRetriever):
    """Fields and checks shared by the graphmem retrievers."""

    model_config = ConfigDict(extra="forbid")

    graph_memory: GraphMemory = Field(frozen=True, exclude=True,
                                      description="the facade (connection, embedder, llm)")
    namespace: str = Field(frozen=True, description="tenant scope; default the facade's")
    k: int = Field(DEFAULT_K, description="documents returned (1..200)")
    score_threshold: float | None = Field(
        None, description="drop documents whose metadata score is below it")
    filter: dict[str, Any] | None = Field(
        None, description="metadata filter on kind / memory: a value or a list of values")
    since: datetime | None = Field(
        None, description="only items with since <= time (aware; None: open)")
    until: datetime | None = Field(
        None, description="only items with time < until (aware; None: open)")
    as_of: datetime | None = Field(
        None, description="answer as at this instant (aware; None: now)")
    include_archived: bool = Field(
        False, strict=True, description="also conversation units archived by retention")

    _graph: GraphMemory = PrivateAttr()
    _filter: dict[str, tuple[str, ...]] | None = PrivateAttr(None)

    def __init__(self, **data: Any):
        name = type(self).__name__
        data = _merge_search_kwargs(name, data)
        unknown = sorted(set(data) - set(type(self).model_fields))
        if unknown:
            raise InvalidInputError(
                f"{name}: unsupported argument(s) {unknown!r}; supported: "
                f"{sorted(type(self).model_fields)} (search_kwargs may hold "
                f"{list(SEARCH_KWARGS)})")
        try:
            check_count("k", data.get("k", DEFAULT_K))
            if data.get("score_threshold") is not None:
                data["score_threshold"] = check_number("score_threshold",
                                                       data["score_threshold"])
            _check_filter(data.get("filter"))
            data["since"], data["until"] = check_window(data.get("since"), data.get("until"))
            check_as_of(data["since"], data["until"], data.get("as_of"))
            data["as_of"] = parse_as_of(data.get("as_of"))
        except InvalidInputError as exc:
            raise InvalidInputError(f"{name}: {exc}") from None
        try:
            super().__init__(**data)
        except pydantic.ValidationError as exc:
            raise InvalidInputError(f"{name}: {_pydantic_message(exc)}") from None

    def _window(self) -> dict[str, Any]:
        """``{"since", "until"}`` (and ``"as_of"``, ``"include_archived"``) for the recall,
        ``{}`` without any."""
        window: dict[str, Any] = {}
        if self.since is not None or self.until is not None:
            window = {"since": self.since, "until": self.until}
        if self.as_of is not None:
            window["as_of"] = self.as_of
        if self.include_archived:
            window["include_archived"] = True
        return window

    @property
    def _selecting(self) -> bool:
        return self.score_threshold is not None or bool(self._filter)

    def _select(self, docs: list[Document], k: int) -> list[Document]:
        """The first ``k`` of ``docs`` that pass ``score_threshold`` and ``filter``."""
        return select_documents(docs, self.score_threshold, self._filter)[:k]

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
        self._filter = _check_filter(self.filter)

    def _k_of(self, kwargs: dict[str, Any]) -> int:
        """The per-call ``k`` (only ``k`` may be given per call)."""
        extra = set(kwargs) - {"k"}
        if "namespace" in extra:
            raise InvalidInputError(f"namespace is fixed at construction ({self.namespace!r}); got "
                                  f"namespace={kwargs['namespace']!r} per call")
        if extra:
            raise InvalidInputError(f"unknown retriever argument(s) {sorted(extra)!r}; only k")
        return check_count("k", kwargs.get("k", self.k))


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
        k: documents per call (1..200, default :data:`~graphmem.recall_options.DEFAULT_K`);
            ``invoke(query, k=n)`` overrides it for one call.
        recall_kwargs: options of the memory's ``recall`` (its keyword parameters besides
            ``query`` and ``k``, e.g. insight ``query_k``/``lam``, experience ``t``, state and
            associative ``max_rounds``); checked against the memory's typed options
            (:attr:`~graphmem.memory.Memory.options_model`: names, types, bounds) at
            construction.
        search_kwargs: ``{"k", "score_threshold", "filter", "since", "until", "as_of",
            "include_archived"}`` as LangChain vector-store retrievers take them (each the same
            as the argument of that name).
        score_threshold: drop documents whose metadata ``score`` is below it (finite).
        filter: ``{"kind": ..., "memory": ...}``, each a value or a list of accepted values.
        since, until: the half-open window ``since <= t < until`` of every recall
            (time-zone-aware datetimes or ISO 8601 text with an offset; either may be None),
            passed to the memory's ``recall``, which applies it in its queries.
        as_of: answer as at this instant (aware datetime or ISO 8601 text with an offset;
            :mod:`graphmem.time_travel`), passed to the memory's ``recall``.
        include_archived: also the units retention archived (a bool; state and associative
            memory), passed to the memory's ``recall``.
    Raises:
        InvalidInputError: a bad namespace, memory, k, threshold, filter or recall option, a
            naive or empty window (``since >= until``), a window for a memory whose recall
            takes none, or any other argument (at construction, naming it and the supported
            ones); a ``namespace`` or other unknown argument per call.
    """

    memory: str = Field(frozen=True, description="which registered memory to recall from")
    recall_kwargs: dict[str, Any] = Field(default_factory=dict, description="memory recall options")

    @model_validator(mode="after")
    def _check_options(self) -> GraphMemoryRetriever:
        _check_memory(self.memory)
        _check_recall_kwargs(self.memory, self.recall_kwargs)
        if self.include_archived and not _takes_window(self.memory, ("include_archived",)):
            raise ValueError(f"memory {self.memory!r} holds no archived units (its recall "
                             "takes no include_archived)")
        keys = tuple(sorted(set(self._window()) - {"include_archived"}))
        if keys and not _takes_window(self.memory, keys):
            raise ValueError(f"memory {self.memory!r} cannot limit its recall to a time window "
                             f"(its recall takes no {' / '.join(keys)})")
        return self

    @property
    def memory_object(self) -> Memory:
        """The memory instance this retriever reads (e.g. :class:`graphmem.state.StateMemory`)."""
        return self._graph.memory(self.memory)

    def _asked(self, k: int) -> int:
        """Items asked of the memory: ``k``, more when ``filter``/``score_threshold`` may drop
        some (at most ``MAX_K``)."""
        return min(MAX_K, k * OVERFETCH) if self._selecting else k

    def recall_documents(self, query: str, k: int | None = None) -> list[Document]:
        """Synchronous recall of ``k`` (default ``self.k``) Documents, without callbacks; those
        below ``score_threshold`` or outside ``filter`` dropped."""
        k = self._k_of({} if k is None else {"k": k})
        memory = self.memory_object
        result = memory.recall(query, k=self._asked(k), **self.recall_kwargs, **self._window())
        return self._select(memory.documents(result), k)

    async def arecall_documents(self, query: str, k: int | None = None) -> list[Document]:
        """Async :meth:`recall_documents`: awaits the memory's ``arecall``."""
        k = self._k_of({} if k is None else {"k": k})
        memory = self.memory_object
        result = await memory.arecall(query, k=self._asked(k), **self.recall_kwargs,
                                      **self._window())
        return self._select(memory.documents(result), k)

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
