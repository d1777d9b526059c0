"""Base node class: every graphmem node has ``id`` (unique), ``namespace`` (indexed) and
``created_at``. Embedded labels add ``embedding`` with a cosine vector index."""

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


def embedding_property() -> ArrayProperty:
    """``embedding``: list of floats, ``(DEFAULT_DIMENSION,)``, cosine vector index."""
    return ArrayProperty(
        FloatProperty(),
        vector_index=VectorIndex(dimensions=DEFAULT_DIMENSION, similarity_function="cosine"),
    )
