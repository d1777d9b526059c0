"""``GraphMemory``: the facade, one attribute per registered memory.

    with GraphMemory.from_settings() as mem:
        mem.state.ingest_file("locomo.json")
        mem.state.recall("When did Caroline go to the LGBTQ support group?", k=5)
        other = mem.scoped("team-b")          # same connection, another tenant

The memories come from the registry (:data:`graphmem.memory.MEMORY_REGISTRY`): ``mem.<name>``
and ``mem.memory(name)`` work for every registered memory, including one registered at run
time; nothing here names a memory except the typed properties of the four built-ins.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphmem.embeddings import Embedder, ValidatingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.facade_lifecycle import LifecycleVerbs
from graphmem.graph.indexes import check_vector_dimension
from graphmem.graph.runner import QueryRunner
from graphmem.memory import (DEFAULT_K, IngestReport, Memory, RecallResult, load_entry_points, memory_names,
                             memory_spec)
from graphmem.names import validate_namespace

if TYPE_CHECKING:
    from graphmem.agent import FusedItem, TaskFeedback
    from graphmem.conversations import StoredMessage
    from graphmem.associative import AssociativeMemory
    from graphmem.experience import ExperienceMemory
    from graphmem.insight import InsightMemory
    from graphmem.state import StateMemory

logger = logging.getLogger(__name__)


class GraphMemory(LifecycleVerbs):
    """Every registered memory on one Neo4j database and one namespace.

    Args:
        runner: the query runner of a migrated database (see
            :func:`graphmem.graph.connection.open_runner`; :meth:`from_settings` builds one).
        embedder: text embedder; its dimension must match the vector indexes. Kept as
            ``self.embedder`` wrapped in :class:`~graphmem.embeddings.ValidatingEmbedder`, so its
            output is checked (shape, NaN) on every call.
        namespace: tenant scope of every read and write.
        llm: optional langchain-core ``BaseChatModel``; without one, heuristic controllers run.
    Raises:
        EmbeddingDimensionError: an existing vector index has another dimension, or the
            embedder's dimension is not in 1..4096 (checked before anything is written).
        InvalidInputError: a bad namespace.
    """

    def __init__(
        self,
        runner: QueryRunner,
        embedder: Embedder,
        namespace: str = "default",
        llm: Any | None = None,
    ):
        self._setup(runner, embedder, namespace, llm)
        check_vector_dimension(runner, embedder.dimension)

    def _setup(self, runner: Any, embedder: Embedder, namespace: str, llm: Any) -> None:
        load_entry_points()  # memories of installed packages (once per process)
        self.runner = runner
        self.embedder = (embedder if isinstance(embedder, ValidatingEmbedder)
                         else ValidatingEmbedder(embedder))
        self.namespace = validate_namespace(namespace)
        self.llm = llm
        self._memories: dict[str, Memory] = {}
        self._last_message_time: dict[str, Any] = {}  # conversation -> latest message time
        self._data_memories: tuple[float, list[str]] | None = None  # recall's default memories

    @classmethod
    def from_settings(
        cls, namespace: str | None = None, llm: Any | None = None, migrate: bool = False
    ) -> GraphMemory:
        """Build from the environment (``NEO4J_*``, ``GRAPHMEM_*``), starting the local Neo4j
        when no ``NEO4J_URI`` is set. ``migrate=True`` applies pending migrations first."""
        return open_memory_at(namespace=namespace, llm=llm, migrate=migrate)

    # -- the memories -------------------------------------------------------------------------

    def memory(self, name: str) -> Memory:
        """The registered memory called ``name`` (built on first use, then cached), e.g.
        ``mem.memory("state")``.

        Raises:
            InvalidInputError: an unknown memory name (the message lists the registered ones).
        """
        cached = self._memories.get(name)
        if cached is not None:
            return cached
        cls = memory_spec(name).load()
        instance = cls(runner=self.runner, embedder=self.embedder, namespace=self.namespace,
                       llm=self.llm)
        self._memories[name] = instance
        return instance

    def memories(self) -> dict[str, Memory]:
        """Every registered memory, name → instance, in registry order."""
        return {name: self.memory(name) for name in memory_names()}

    def __getattr__(self, name: str) -> Memory:
        # Only called when normal lookup fails: ``mem.<registered memory>``.
        if name.startswith("_") or name not in memory_names():
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r} "
                                 f"(registered memories: {', '.join(memory_names())})")
        return self.memory(name)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *memory_names()})

    @property
    def insight(self) -> InsightMemory:
        """Insight memory (EvoGraph-Mem)."""
        return self.memory("insight")  # type: ignore[return-value]

    @property
    def experience(self) -> ExperienceMemory:
        """Experience memory (EMG)."""
        return self.memory("experience")  # type: ignore[return-value]

    @property
    def state(self) -> StateMemory:
        """State memory (EMIR² SEMG)."""
        return self.memory("state")  # type: ignore[return-value]

    @property
    def associative(self) -> AssociativeMemory:
        """Associative memory (MRAgent)."""
        return self.memory("associative")  # type: ignore[return-value]

    # -- agent verbs --------------------------------------------------------------------------

    def add(self, messages: Any, *, conversation_id: str = "default",
            session_id: str | None = None,
            memories: Sequence[str] | None = None) -> dict[str, IngestReport]:
        """Store chat messages as they arrive (online writes).

        Args:
            messages: one message or a list: dicts or :class:`graphmem.agent.Message` s with
                ``role``/``speaker``, ``content``/``text``, optional ``id``, ``timestamp`` (ISO
                8601 or datetime) and ``meta``; LangChain messages are accepted too.
            conversation_id: the conversation they belong to.
            session_id: optional session key (default ``"default"``).
            memories: where to write (default: every memory that stores messages, today
                ``"state"`` and ``"associative"``; :func:`graphmem.memory.message_memories`).
        Returns:
            ``{memory: IngestReport}``. Messages keep their arrival order when timestamps tie or
            are missing (a missing one takes the previous message's time). Idempotent per
            message ``id``: re-adding stored ids creates nothing; a message without an id gets
            one derived from its arrival, so give ids when you may re-send messages.

        Limits (every field of every message checked for every target memory before the
        first write): ``role``, ``id``, ``conversation_id`` and ``session_id`` at most
        ``graphmem.names.MAX_KEY_BYTES`` (1 024) UTF-8 bytes, ``content`` non-blank and at most
        ``graphmem.validation.MAX_TEXT_CHARS`` (100 000) characters, ids unique in a call.

        All-or-nothing across memories: a bad input writes nothing. When a memory fails after
        the ones before it committed (the database, the LLM), :class:`~graphmem.errors.PartialWriteError` says
        which memories hold the messages (``err.stored``) and which do not (``err.missing``),
        keeps the failure as ``__cause__``, and carries the messages with their final ids and
        timestamps: ``mem.add(err.messages, conversation_id=err.conversation_id,
        session_id=err.session_id, memories=...)`` completes the write (each memory skips the
        ids it already holds).
        Raises:
            InvalidInputError / EmptyTextError (before anything is written, naming the message
            index and field), PartialWriteError, and when nothing was stored ControllerError or
            DatabaseError subclasses.
        """
        from graphmem.agent import add_messages

        return add_messages(self, messages, conversation_id=conversation_id,
                            session_id=session_id, memories=memories)

    def recall(self, query: str, k: int = DEFAULT_K, *,
               memories: Sequence[str] | None = None, since: datetime | None = None,
               until: datetime | None = None,
               as_of: datetime | None = None,
               include_archived: bool = False) -> RecallResult[FusedItem]:
        """The ``k`` best items for ``query`` over several memories, fused by reciprocal rank
        fusion (each memory asked for 3·k items; the same conversation turn found by two
        memories is one item).

        Args:
            query: the question (non-empty). k: items returned (1..200).
            memories: which memories (default: those holding data in this namespace); an
                empty list is refused.
            since, until: the half-open window ``since <= t < until`` (time-zone-aware
                datetimes; either may be None: open), passed to every memory's recall: events
                and episodes by when they occurred, states by ``valid_from``, insights and
                tasks by when they were recorded (``created_at``).
            as_of: answer as at that instant (:mod:`graphmem.time_travel`: what had happened
                and was learned by then, states judged then, insights active then).
            include_archived: also conversation units archived by :meth:`retain`.
        Returns:
            :class:`~graphmem.memory.RecallResult` of :class:`graphmem.agent.FusedItem`: each
            item's ``memory`` and ``path`` come from its best-ranked occurrence, ``memories`` /
            ``ranks`` list every memory that found it, ``score`` is the RRF score.
        Raises:
            EmptyTextError, InvalidInputError (k, unknown memory, a naive ``since`` / ``until`` /
            ``as_of``, ``since >= until``), the memories' own errors.
        """
        from graphmem.agent import fused_recall

        return fused_recall(self, query, k, memories=memories, since=since, until=until,
                            as_of=as_of, include_archived=include_archived)

    def feedback(self, task: str, status: str, *, trajectory: Any = None,
                 retrieved: Sequence[Any] | None = None) -> TaskFeedback:
        """Record a task's outcome: insight memory's feedback and, with ``trajectory`` (an
        experience ``Trajectory``, a dict of one, or a list of action strings), the task's
        trajectory in experience memory (reward 1.0 resolved, 0.0 failed).

        Args:
            task: the task text. status: ``"resolved"`` or ``"failed"``.
            retrieved: insight ids or recall items used for the task (None: insight memory
                recalls them itself).
        Limits: ``task``, each action (``graphmem.validation.MAX_ACTION_CHARS``) and each
        observation at most ``graphmem.validation.MAX_TEXT_CHARS`` (100 000) characters.
        Raises:
            EmptyTextError, InvalidInputError, TrajectoryError (before anything is written,
            naming the bad value; never a raw pydantic error).
        """
        from graphmem.agent import record_feedback

        return record_feedback(self, task, status, trajectory=trajectory, retrieved=retrieved)

    async def aadd(self, messages: Any, **options: Any) -> dict[str, IngestReport]:
        """``await``-able :meth:`add` (same arguments) in a worker thread."""
        return await asyncio.to_thread(lambda: self.add(messages, **options))

    async def arecall(self, query: str, k: int = DEFAULT_K, *,
                      memories: Sequence[str] | None = None, since: datetime | None = None,
                      until: datetime | None = None, as_of: datetime | None = None,
                      include_archived: bool = False) -> RecallResult[FusedItem]:
        """``await``-able :meth:`recall` (same arguments, result and errors) in a worker thread."""
        return await asyncio.to_thread(lambda: self.recall(
            query, k, memories=memories, since=since, until=until, as_of=as_of,
            include_archived=include_archived))

    async def afeedback(self, task: str, status: str, **options: Any) -> TaskFeedback:
        """``await``-able :meth:`feedback` in a worker thread."""
        return await asyncio.to_thread(lambda: self.feedback(task, status, **options))

    def messages(self, conversation_id: str = "default", *, limit: int = 10_000,
                 skip: int = 0) -> list[StoredMessage]:
        """The stored messages of a conversation in conversation order (event time, then
        arrival), at most ``limit`` from ``skip``, read from state memory's events.

        Returns:
            :class:`graphmem.conversations.StoredMessage` s: ``id`` (the caller's message id),
            ``role``, ``content``, ``timestamp`` (aware ``datetime``), ``conversation_id``,
            ``session_id`` and ``message_json`` (the full serialised message when it was added
            with one, else None).
        Raises:
            InvalidInputError: limit / skip out of range.
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInputError(f"limit must be a positive integer, got {limit!r}")
        if isinstance(skip, bool) or not isinstance(skip, int) or skip < 0:
            raise InvalidInputError(f"skip must be a non-negative integer, got {skip!r}")
        from graphmem.conversations import StoredMessage

        rows = self.runner.read("state/conversation_events", namespace=self.namespace,
                                conversation=conversation_id, skip=skip, limit=limit)
        return [StoredMessage.from_row(row, conversation_id) for row in rows]

    # -- tenants ------------------------------------------------------------------------------

    def scoped(self, namespace: str, *, wrap_runner: Callable[[Any], Any] | None = None,
               wrap_embedder: Callable[[Any], Any] | None = None) -> GraphMemory:
        """The same connection, embedder and llm on another ``namespace`` (a new facade; this
        one is unchanged). Closing the scoped facade does not close the shared connection. The
        runner, hence its bookmark manager, is shared: a write through one facade is seen by
        a read through any other of the same connection, on a cluster too.

        Args:
            namespace: the other tenant.
            wrap_runner, wrap_embedder: optional proxies around the runner / embedder (e.g. the
                benchmark's timing proxies), applied to the scoped facade only.
        Raises:
            InvalidInputError: a bad namespace.
        """
        runner = self.runner if wrap_runner is None else wrap_runner(self.runner)
        embedder = self.embedder if wrap_embedder is None else wrap_embedder(self.embedder)
        scoped = object.__new__(GraphMemory)  # the vector dimension was checked by this facade
        scoped._setup(runner, embedder, namespace, self.llm)
        scoped._borrowed = True
        return scoped

    @property
    def bookmark_manager(self) -> Any:
        """The bookmark manager every session of this facade's runner carries (None for a
        runner without one): shared by every :meth:`scoped` facade of the connection, so a
        read after a write sees it on any cluster member (read-your-writes; see
        :class:`~graphmem.graph.runner.QueryRunner`)."""
        return getattr(self.runner, "bookmark_manager", None)

    def counts(self) -> dict[str, dict[str, int]]:
        """Node counts of this namespace per memory, ``{memory: {label: n}}`` (each memory's
        own :meth:`~graphmem.memory.Memory.counts`; nodes only)."""
        return {name: memory.counts() for name, memory in self.memories().items()}

    def relationship_counts(self) -> dict[str, dict[str, int]]:
        """Relationship counts of this namespace per memory, ``{memory: {type: n}}`` (each
        memory's own :meth:`~graphmem.memory.Memory.relationship_counts`: both ends in the
        namespace, types without any left out)."""
        return {name: memory.relationship_counts() for name, memory in self.memories().items()}

    def query(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run the named Cypher query ``name`` (a registry name such as ``"bench/count_units"``)
        with ``namespace`` set to this facade's; for tools above the memories (benchmarks,
        evaluation baselines) that need a query of their own. The transaction kind is the
        query's declared mode.

        Raises:
            UnknownQueryError, QueryError, DatabaseError subclasses.
        """
        if "namespace" in params:
            raise InvalidInputError("query(): the namespace is the facade's; do not pass one")
        declared = self.runner.registry.get(name).params
        if "namespace" in declared:
            params = {**params, "namespace": self.namespace}
        return self.runner.run(name, **params)

    def check_embeddings(self, *, repair: bool = False, all_namespaces: bool = False) -> Any:
        """Find (and with ``repair`` re-embed from their text) stored vectors that are missing,
        of another width than the embedder's, non-finite or all zeros — in this namespace, or in
        every namespace with ``all_namespaces``. See :func:`graphmem.doctor.check_embeddings`.

        Returns:
            A :class:`graphmem.doctor.DoctorReport`.
        """
        from graphmem.doctor import check_embeddings

        return check_embeddings(self.runner, self.embedder,
                                None if all_namespaces else self.namespace, repair=repair)

    # -- lifecycle ----------------------------------------------------------------------------

    _borrowed = False

    def close(self) -> None:
        """Close the runner (and its driver if it owns it); a no-op on a :meth:`scoped` facade,
        which borrows its parent's connection."""
        if not self._borrowed:
            self.runner.close()

    def __enter__(self) -> GraphMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_memory_at(
    neo4j: Any | None = None,
    settings: Any | None = None,
    namespace: str | None = None,
    llm: Any | None = None,
    migrate: bool = False,
    start_local: bool = True,
) -> GraphMemory:
    """A :class:`GraphMemory` from settings (``Neo4jSettings`` / ``GraphmemSettings``, read
    from the environment when not given) that owns its connection: close it (or use it as a
    context manager).

    Args:
        namespace: tenant (default ``GRAPHMEM_NAMESPACE``).
        migrate: apply pending migrations first.
        start_local: start the local Neo4j when ``NEO4J_URI`` is unset (else only connect).
    Raises:
        LauncherError, ServiceUnavailableError, AuthenticationError, MigrationError,
        EmbeddingDimensionError.
    """
    from graphmem.config import GraphmemSettings
    from graphmem.connect import open_runner_at
    from graphmem.embeddings import embedder_from_name

    settings = settings or GraphmemSettings()
    runner = open_runner_at(neo4j, settings, migrate=migrate, start_local=start_local)
    try:
        return GraphMemory(runner, embedder_from_name(settings.embedding_model),
                           namespace=settings.namespace if namespace is None else namespace,
                           llm=llm)
    except BaseException:
        runner.close()
        raise
