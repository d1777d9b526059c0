"""The memory contract: what every graphmem memory implements, and the registry of memories.

Every memory (insight, experience, state, associative, and any added later) subclasses
:class:`Memory` and speaks the same language:

- ``recall(query, k=..., **options) -> RecallResult``: items in rank order (at most ``k``; ``k``
  always means *items returned*), each a :class:`RecallItem` with ``id``, ``kind``, ``text``,
  ``score``, ``source_ids`` (the upstream ids it rests on: LoCoMo ``dia_id``s, task ids, query
  ids) and ``path`` (the graph path that produced it); plus ``rounds`` (a list of
  :class:`Round`), ``llm_usage`` and ``timings``. Paper-specific sizes get paper names
  (``query_k`` for EvoGraph-Mem eq. 2, ``tasks_k``/``t`` for EMG eq. 7, ...).
- ``ingest(inputs, ...) -> IngestReport``: the one write verb; the report's numbers come from the
  database's own answer and equal what a count query finds afterwards.
- ``counts() -> dict[str, int]``: node counts of the memory's labels in its namespace (nodes
  only); ``relationship_counts() -> dict[str, int]``: its relationships by type, both ends in the
  namespace.
- ``documents(result)``: the result as LangChain ``Document``s (the retrievers use it).

The registry (:data:`MEMORY_REGISTRY`) is the one list the facade, the CLI, the retrievers, the
schema check and the Cypher label unions loop over: adding a memory is one new package plus one
:func:`register_memory` line.
"""

from __future__ import annotations

import asyncio
import logging
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field

from graphmem.errors import InvalidInputError
from graphmem.instrumentation import instrument_memory
from graphmem.memory_registry import (  # noqa: F401 (re-exported: the registry's public names)
    ENTRY_POINT_GROUP,
    MEMORY_REGISTRY,
    MemorySpec,
    all_labels,
    load_entry_points,
    memory_names,
    memory_spec,
    message_memories,
    register_memory,
)
from graphmem.llm import LLMAccounting, LLMUsage
from graphmem.names import validate_namespace
from graphmem.recall_options import (  # noqa: F401 (re-exported)
    DEFAULT_K,
    MAX_K,
    RecallOptions,
)

if TYPE_CHECKING:
    from langchain_core.documents import Document

    from graphmem.embeddings import Embedder
    from graphmem.graph.runner import QueryRunner

logger = logging.getLogger(__name__)

#: ``progress(done)``: called with the number of input units (turns, tasks, records) finished
#: since the previous call.
Progress = Callable[[int], None]



class PathStep(BaseModel):
    """One hop of the graph path that produced a recalled item.

    Attributes:
        action: how this node was reached (e.g. ``"vector_seed"``, ``"cue_to_tag"``,
            ``"TEMPORAL_NEXT"``, ``"SUPPORTS"``).
        node: the kind of node reached (``"question"``, ``"cue"``, ``"tag"``, ``"episode"``,
            ``"event"``, ``"state"``, ``"topic"``, ``"query"``, ``"insight"``, ``"task"``, ...).
        id: the node id (``"question"`` for the question itself).
        text: a short text of the node, for display.
    """

    action: str
    node: str
    id: str
    text: str = ""


class RecallItem(BaseModel):
    """One recalled item. Memories subclass it to add typed fields of their own (a state's
    validity interval, an insight's s / c / r, a task's reward).

    Attributes:
        id: the node id (deterministic, see :func:`graphmem.names.node_id`).
        memory: the memory that produced it (``"state"``, ...).
        kind: what the node is (``"event"``, ``"state"``, ``"episode"``, ``"semantic_unit"``,
            ``"insight"``, ``"task"``).
        text: the text an LLM should read.
        score: the memory's ranking score (higher is better; its meaning is documented by the
            memory's ``recall``).
        source_ids: the upstream ids the item rests on, most specific first (unique).
        path: the graph path that produced it, from the question to the item.
    """

    id: str
    memory: str
    kind: str
    text: str
    score: float
    source_ids: list[str] = Field(default_factory=list)
    path: list[PathStep] = Field(default_factory=list)


ItemT = TypeVar("ItemT", bound=RecallItem)


class Round(BaseModel):
    """One retrieval round (EMIR² §3.3 rounds, MRAgent reconstruction steps, or the single round
    of a one-shot recall).

    Attributes:
        number: 1-based round number (0 for a seeding step before the first round).
        action: what the round did (e.g. ``"search_events"``, ``"cue_to_tag"``, ``"stop"``).
        reason: why (the controller's or planner's explanation), may be empty.
        added: ids of items first found in this round.
        details: per-round facts of the memory (candidate counts, active cues, stop reason).
    """

    number: int
    action: str
    reason: str = ""
    added: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)


class RecallResult(BaseModel, Generic[ItemT]):
    """The answer of every memory's ``recall``: items in rank order, best first.

    Attributes:
        memory: the memory that answered.
        namespace: the tenant it answered for.
        query: the question as asked.
        items: at most ``k`` items, best first.
        rounds: the rounds that produced them, in order.
        controller: ``"heuristic"`` or ``"llm"`` (who planned the rounds / routed).
        llm_usage: LLM calls and tokens of this recall (zero on heuristic paths).
        timings: milliseconds per phase (``"embed"``, ``"search"``, ``"total"``, ...).
    """

    memory: str
    namespace: str
    query: str
    items: list[ItemT] = Field(default_factory=list)
    rounds: list[Round] = Field(default_factory=list)
    controller: str = "heuristic"
    llm_usage: LLMUsage = Field(default_factory=LLMUsage)
    timings: dict[str, float] = Field(default_factory=dict)

    def source_ids(self, limit: int | None = None) -> list[str]:
        """Unique source ids in item order (an item's own ids in its order), at most ``limit``."""
        seen: dict[str, None] = {}
        for item in self.items:
            for sid in item.source_ids:
                seen.setdefault(sid, None)
                if limit is not None and len(seen) >= limit:
                    return list(seen)
        return list(seen)

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict (datetimes as ISO 8601 strings)."""
        return self.model_dump(mode="json")


class IngestReport(BaseModel):
    """What one ``ingest`` call did. ``created`` comes from the database's own answer (the write
    queries' counters), so it equals what a count query finds afterwards.

    Attributes:
        memory: the memory written.
        namespace: the tenant written.
        inputs: input units read (turns, trajectories, feedback records).
        created: nodes and relationships created, by label / relationship type.
        skipped: input units already stored (re-ingest), by kind.
        extractor: ``"heuristic"`` or ``"llm"``.
        seconds: wall time (s).
        llm_usage: LLM calls and tokens of this ingest.
        details: memory-specific outcome counts (e.g. state relations confirm/change/conflict).
    """

    memory: str
    namespace: str
    inputs: int = 0
    created: dict[str, int] = Field(default_factory=dict)
    skipped: dict[str, int] = Field(default_factory=dict)
    extractor: str = "heuristic"
    seconds: float = 0.0
    llm_usage: LLMUsage = Field(default_factory=LLMUsage)
    details: dict[str, Any] = Field(default_factory=dict)

    def add_created(self, counts: dict[str, int]) -> None:
        """Add per-kind creation counts (from a write's answer) into :attr:`created`."""
        for key, value in counts.items():
            if value:
                self.created[key] = self.created.get(key, 0) + int(value)

    def add_skipped(self, kind: str, count: int) -> None:
        """Count ``count`` input units of ``kind`` as already stored."""
        if count:
            self.skipped[kind] = self.skipped.get(kind, 0) + int(count)


def check_count(name: str, value: Any, low: int = 1, high: int = MAX_K) -> int:
    """The one rule for counts (``k``, rounds, steps, beams): an ``int`` (not bool) in
    ``low..high``.

    Raises:
        InvalidInputError: naming the parameter, the value and the allowed range.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    return value


def check_number(name: str, value: Any, low: float | None = None,
                 high: float | None = None) -> float:
    """The one rule for real-valued parameters (thresholds such as ``tau``, ``lam``,
    ``score_threshold``): an ``int`` or ``float`` (not bool), finite (no NaN, no infinity), in
    ``low..high`` (an omitted bound is open). Returns it as a float.

    Raises:
        InvalidInputError: naming the parameter, the value and the allowed range.
    """
    span = ("any finite value" if low is None and high is None else
            f"{'-inf' if low is None else format(low, 'g')}.."
            f"{'inf' if high is None else format(high, 'g')}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInputError(f"{name} must be a finite number in {span}, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or (low is not None and number < low) \
            or (high is not None and number > high):
        raise InvalidInputError(f"{name} must be a finite number in {span}, got {value!r}")
    return number


class Memory(ABC, Generic[ItemT], LLMAccounting):
    """Base class of every memory: one namespace of one Neo4j database.

    Subclasses set :attr:`name` (the registry name) and implement :meth:`recall`,
    :meth:`ingest` and :meth:`counts`. Every subclass's own ``recall`` and ``ingest`` are traced
    (a ``graphmem.recall`` / ``graphmem.ingest`` span and metrics,
    :mod:`graphmem.instrumentation`).

    Args:
        runner: the query runner of a migrated database.
        embedder: the text embedder (``(n, d) float32`` unit rows, ``d`` = the vector indexes');
            wrapped in :class:`~graphmem.embeddings.ValidatingEmbedder` unless it already is.
        namespace: tenant scope of every read and write.
        llm: optional langchain-core ``BaseChatModel``; None runs the heuristic controllers.
    Raises:
        InvalidInputError: a bad namespace.
    """

    name: ClassVar[str]
    #: For a memory that stores conversation messages: the Cypher folder of its four message
    #: queries -- ``<folder>/find_messages`` (params namespace, message_ids, conversation,
    #: speaker; returns conversation, source_id), ``<folder>/conversation_messages`` (namespace,
    #: conversation; returns source_id, text, speaker, session, occurred_at, seq, message_json
    #: in conversation order), ``<folder>/lock_conversations`` and
    #: ``<folder>/delete_conversations`` (namespace, conversations) -- which
    #: ``GraphMemory.forget`` runs (:mod:`graphmem.agent.forget`). None: no messages.
    message_queries: ClassVar[str | None] = None
    #: The typed options of :meth:`recall` besides ``query`` and ``k``
    #: (:class:`~graphmem.recall_options.RecallOptions`: one field per keyword parameter, same
    #: defaults); the retrievers, the fused recall and the MCP server read it.
    options_model: ClassVar[type[RecallOptions]] = RecallOptions

    def check_conversation(self, conversation: Any) -> None:
        """For a memory that stores messages: its own pure checks of one conversation
        (:class:`graphmem.conversations.Conversation`), run by ``mem.add`` for every target
        memory before the first write so that no memory refuses what another stored. Raises
        InvalidInputError subclasses; the default checks nothing more."""

    def last_message_time(self, conversation_id: str) -> Any:
        """For a memory that stores messages: the time (aware datetime) of the latest stored
        message of ``conversation_id``, or None (the default: this memory does not tell);
        ``mem.add`` dates messages without a timestamp after it."""
        return None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        instrument_memory(cls)

    def __init__(self, runner: QueryRunner, embedder: Embedder, namespace: str = "default",
                 llm: Any | None = None):
        from graphmem.embeddings import ValidatingEmbedder

        self.runner = runner
        #: the embedder, wrapped once in :class:`~graphmem.embeddings.ValidatingEmbedder` (a
        #: wrapped one is kept as is), so a memory built directly refuses NaN, all-zero or
        #: wrong-width vectors just as one built by ``GraphMemory``.
        self.embedder = (embedder if embedder is None or isinstance(embedder, ValidatingEmbedder)
                         else ValidatingEmbedder(embedder))
        self.namespace = validate_namespace(namespace)
        self.llm = llm
        spec = MEMORY_REGISTRY.get(getattr(type(self), "name", ""))
        if spec is not None and spec.cypher and hasattr(getattr(runner, "registry", None),
                                                        "include"):
            runner.registry.include(spec.cypher)  # a plugin memory's own queries

    @property
    def controller(self) -> str:
        """``"llm"`` when a chat model is configured, else ``"heuristic"``."""
        return "heuristic" if self.llm is None else "llm"

    @property
    def labels(self) -> tuple[str, ...]:
        """The node labels this memory owns (from the registry)."""
        return memory_spec(self.name).labels

    @abstractmethod
    def recall(self, query: str, k: int = DEFAULT_K, **options: Any) -> RecallResult[ItemT]:
        """The ``k`` best items for ``query`` (see the subclass for options and scores)."""

    def recall_with(self, query: str, k: int = DEFAULT_K,
                    options: RecallOptions | dict[str, Any] | None = None) -> RecallResult[ItemT]:
        """:meth:`recall` with its options as one typed value: an instance of
        :attr:`options_model` (or a dict checked against it; None: the defaults).

        Raises:
            InvalidInputError: options of another memory's model, an unknown option or a bad
                value (naming it); any error of :meth:`recall`.
        """
        if isinstance(options, RecallOptions) and not isinstance(options, self.options_model):
            raise InvalidInputError(
                f"{type(options).__name__} are not the recall options of {self.name} memory; "
                f"use {self.options_model.__name__}")
        checked = self.options_model.parse(options, where=f"{self.name} recall")
        return self.recall(query, k, **checked.keywords())

    async def arecall(self, query: str, k: int = DEFAULT_K, **options: Any) -> RecallResult[ItemT]:
        """``await``-able :meth:`recall` (same arguments, result and errors) in a worker
        thread, so the event loop never blocks."""
        return await asyncio.to_thread(self.recall, query, k, **options)

    @abstractmethod
    def ingest(self, inputs: Any, *, progress: Progress | None = None,
               **options: Any) -> IngestReport:
        """Write ``inputs`` (the memory's own input type) and report what was created."""

    async def aingest(self, inputs: Any, *, progress: Progress | None = None,
                      **options: Any) -> IngestReport:
        """``await``-able :meth:`ingest` in a worker thread."""
        return await asyncio.to_thread(self.ingest, inputs, progress=progress, **options)

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """Node counts of this memory in its namespace, by label (zeros included); nodes only
        (relationships: :meth:`relationship_counts`)."""

    def relationship_counts(self) -> dict[str, int]:
        """Relationships of this memory in its namespace, by type (``{"HAS_TAG": 412, ...}``,
        sorted by type, types without any left out): those whose start node carries one of the
        memory's :attr:`labels` and whose both ends are in the namespace, each counted once.

        Raises:
            DatabaseError subclasses.
        """
        rows = self.runner.read("core/count_memory_relationships", namespace=self.namespace,
                                labels=list(self.labels))
        return {str(r["type"]): int(r["relationships"]) for r in rows if r["relationships"]}

    def documents(self, result: RecallResult[ItemT]) -> list[Document]:
        """``result`` as LangChain Documents, one per item in rank order: ``page_content`` the
        item text, ``id`` the node id, metadata ``memory``, ``namespace``, ``kind``, ``score``,
        ``rank`` (1-based), ``source_ids``, ``path`` and the item's own fields."""
        from langchain_core.documents import Document

        docs = []
        base = set(RecallItem.model_fields)
        for rank, item in enumerate(result.items, start=1):
            extra = item.model_dump(mode="json", exclude=base)
            metadata = {"memory": item.memory, "namespace": result.namespace, "kind": item.kind,
                        "score": float(item.score), "rank": rank,
                        "source_ids": list(item.source_ids),
                        "path": [step.model_dump() for step in item.path], **extra}
            docs.append(Document(page_content=item.text, id=item.id, metadata=metadata))
        return docs
