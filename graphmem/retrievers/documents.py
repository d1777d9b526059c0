"""The shape of the LangChain ``Document``s every memory's ``documents(result)`` returns (pure;
no I/O). Each memory converts its own :class:`~graphmem.memory.RecallResult` (the retrievers hold
no per-memory code); these helpers keep the metadata identical across memories.

Every document has ``page_content`` (the text an LLM should read), ``id`` (the node id) and the
same metadata keys whatever the memory:

- ``memory``: the registered memory's name (``"insight"``, ``"state"``, ...)
- ``namespace``: the tenant the node belongs to
- ``node_ids``: the node itself first, then the nodes that explain it (evidence queries, neighbour
  tasks, topic, path nodes)
- ``score``: the memory's own ranking score (insight r = s − λc; experience cosine in [-1, 1];
  state fused hit score; associative fused rank score)
- ``rank``: 1-based position in the memory's ranking
- ``kind``: what the node is (``insight``, ``task``, ``event``, ``state``, ``episode``,
  ``semantic_unit``)
- ``provenance``: where it came from — ``supporting_query_ids`` (insight), ``task_ids``
  (experience), ``dia_ids`` (state, associative: LoCoMo turn ids), ``path`` (associative hops)
- ``fusion_key``: what the combined retriever fuses on — the node id, except for a raw
  conversation turn (state Event, associative Episode), where it is the turn's source ids plus a
  hash of its text, so the same turn found by both memories counts as one document

Values are JSON types only (datetimes as ISO 8601 strings).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from langchain_core.documents import Document

logger = logging.getLogger(__name__)


def turn_key(source_ids: list[str], text: str) -> str:
    """Fusion key of a raw conversation turn: its source ids and a SHA-1 of its text."""
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]
    return f"turn:{'|'.join(source_ids)}:{digest}"


def make_document(content: str, node: str, memory: str, namespace: str, rank: int, score: float,
                  kind: str, node_ids: list[str | None], provenance: dict[str, Any],
                  fusion_key: str | None = None) -> Document:
    """One Document with the shared metadata keys (see the module docstring); ``node_ids``
    gets the node itself first, duplicates and empty ids dropped."""
    ids = list(dict.fromkeys(i for i in [node, *node_ids] if i))
    metadata = {"memory": memory, "namespace": namespace, "node_ids": ids, "score": float(score),
                "rank": rank, "kind": kind, "provenance": provenance,
                "fusion_key": fusion_key or node}
    return Document(page_content=content, id=node, metadata=metadata)
