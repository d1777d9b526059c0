"""``GraphMemory``: the facade, one attribute per memory.

    with GraphMemory.from_settings() as mem:
        mem.state.ingest_file("locomo.json")
        mem.state.recall("When did Caroline go to the LGBTQ support group?")
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from graphmem.embeddings import Embedder, ValidatingEmbedder, embedder_from_name
from graphmem.errors import InvalidInputError
from graphmem.graph.indexes import check_vector_dimension
from graphmem.graph.runner import QueryRunner
from graphmem.names import validate_namespace

#: The memories of the facade, by attribute name.
MEMORY_NAMES = ("insight", "experience", "state", "associative")

if TYPE_CHECKING:
    from graphmem.associative import AssociativeMemory
    from graphmem.experience import ExperienceMemory
    from graphmem.insight import InsightMemory
    from graphmem.state import StateMemory


class GraphMemory:
    """All four memories on one Neo4j database and one namespace.

    Args:
        runner: the query runner (see :func:`graphmem.connect.open_runner`).
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
        self.runner = runner
        self.embedder = ValidatingEmbedder(embedder)
        self.namespace = validate_namespace(namespace)
        self.llm = llm
        check_vector_dimension(runner, embedder.dimension)

    @classmethod
    def from_settings(
        cls, namespace: str | None = None, llm: Any | None = None, migrate: bool = False
    ) -> GraphMemory:
        """Build from the environment (``NEO4J_*``, ``GRAPHMEM_*``), starting the local Neo4j
        when no ``NEO4J_URI`` is set. ``migrate=True`` applies pending migrations first."""
        from graphmem.config import GraphmemSettings, Neo4jSettings
        from graphmem.connect import open_runner

        settings = GraphmemSettings()
        runner = open_runner(Neo4jSettings(), settings)
        if migrate:
            from graphmem.graph.migrations import Migrator

            Migrator(runner, vector_dimension=settings.vector_dimension).migrate()
        return cls(
            runner,
            embedder_from_name(settings.embedding_model),
            namespace=settings.namespace if namespace is None else namespace,
            llm=llm,
        )

    def _kwargs(self) -> dict[str, Any]:
        return {"runner": self.runner, "embedder": self.embedder, "namespace": self.namespace,
                "llm": self.llm}

    @cached_property
    def insight(self) -> InsightMemory:
        """Insight memory (EvoGraph-Mem)."""
        from graphmem.insight import InsightMemory

        return InsightMemory(**self._kwargs())

    @cached_property
    def experience(self) -> ExperienceMemory:
        """Experience memory (EMG)."""
        from graphmem.experience import ExperienceMemory

        return ExperienceMemory(**self._kwargs())

    @cached_property
    def state(self) -> StateMemory:
        """State memory (EMIR² SEMG)."""
        from graphmem.state import StateMemory

        return StateMemory(**self._kwargs())

    @cached_property
    def associative(self) -> AssociativeMemory:
        """Associative memory (MRAgent)."""
        from graphmem.associative import AssociativeMemory

        return AssociativeMemory(**self._kwargs())

    def memory(self, name: str) -> Any:
        """The memory called ``name`` (one of :data:`MEMORY_NAMES`), e.g. ``mem.memory("state")``.

        Raises:
            InvalidInputError: an unknown memory name (named in the message).
        """
        if name not in MEMORY_NAMES:
            raise InvalidInputError(f"unknown memory {name!r}: use one of {', '.join(MEMORY_NAMES)}")
        return getattr(self, name)

    def delete_namespace(self, batch_size: int = 10_000) -> int:
        """Delete every node of this namespace with its relationships, in write transactions of
        at most ``batch_size`` nodes each (so a large tenant never needs one huge transaction),
        until none is left. Other namespaces are not touched. Explicit and irreversible: memory
        edits archive, only this deletes.

        Returns:
            The number of nodes deleted.
        Raises:
            InvalidInputError: ``batch_size`` < 1. DatabaseError subclasses.
        """
        if not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInputError(f"batch_size must be a positive integer, got {batch_size!r}")
        total = 0
        while True:
            rows = self.runner.write("core/delete_namespace_batch", namespace=self.namespace,
                                     batch=batch_size)
            deleted = int(rows[0]["deleted"]) if rows else 0
            if deleted == 0:
                return total
            total += deleted

    def close(self) -> None:
        """Close the runner (and its driver if it owns it)."""
        self.runner.close()

    def __enter__(self) -> GraphMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
