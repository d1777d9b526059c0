"""Checks of the live schema against what graphmem needs."""

from __future__ import annotations

from graphmem.errors import EmbeddingDimensionError
from graphmem.graph.runner import QueryRunner


def check_vector_dimension(runner: QueryRunner, dimension: int) -> None:
    """Raise before anything is written when an existing graphmem vector index (named
    ``<label>_embedding``) has a dimension other than the embedder's.

    Raises:
        EmbeddingDimensionError: naming the index, its dimension and the embedder's.
    """
    for row in runner.read("core/list_vector_indexes"):
        if row["name"].endswith("_embedding") and row["dimension"] not in (None, dimension):
            raise EmbeddingDimensionError(
                f"vector index {row['name']!r} has dimension {row['dimension']}, but the embedder"
                f" produces {dimension}; use a matching embedder or a fresh database"
            )
