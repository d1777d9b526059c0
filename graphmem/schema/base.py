"""Base node class: every graphmem node has ``id`` (unique), ``namespace`` (indexed) and
``created_at``. Embedded labels add ``embedding``, with a cosine vector index where a query
searches it (``db.index.vector.queryNodes``)."""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    DateTimeProperty,
    FloatProperty,
    StringProperty,
    StructuredNode,
    VectorIndex,
)

#: Vector dimension declared for the schema (the migration uses GRAPHMEM_VECTOR_DIMENSION).
DEFAULT_DIMENSION = 384


class GraphmemNode(StructuredNode):
    """Abstract base: ``id`` (unique constraint), ``namespace`` (index), ``created_at``."""

    __abstract_node__ = True
    id = StringProperty(unique_index=True, required=True)
    namespace = StringProperty(index=True, required=True)
    created_at = DateTimeProperty()


def embedding_property(indexed: bool = True) -> ArrayProperty:
    """``embedding``: list of floats, ``(DEFAULT_DIMENSION,)``; with a cosine vector index when
    ``indexed`` (a query searches the label's vectors). An index no query reads would cost every
    write an HNSW insert (migrations/V0110 dropped those of Topic, State, SemanticUnit, Theme and
    Insight)."""
    if not indexed:
        return ArrayProperty(FloatProperty())
    return ArrayProperty(
        FloatProperty(),
        vector_index=VectorIndex(dimensions=DEFAULT_DIMENSION, similarity_function="cosine"),
    )
