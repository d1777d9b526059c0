"""Helpers the memories use to turn recall results into LangChain ``Document``s (pure; no I/O).

Every memory's ``documents(result)`` gives one Document per item with ``page_content`` (the text
an LLM should read), ``id`` (the node id) and the same metadata keys whatever the memory:

- ``memory``, ``namespace``: who answered, for which tenant
- ``node_ids``: the node itself first, then the nodes that explain it (evidence queries,
  neighbour tasks, topic, path nodes)
- ``score``: the memory's own ranking score; ``rank``: 1-based position in its ranking
- ``kind``: what the node is (``insight``, ``task``, ``event``, ``state``, ``episode``,
  ``semantic_unit``)
- ``source_ids``: the item's upstream ids; ``path``: its graph path (list of step dicts)
- ``provenance``: memory-specific facts (query ids and s / c of an insight, task ids of a task,
  ``dia_ids`` and validity of a state, ``dia_ids`` and path of an associative item)
- ``fusion_key``: what a combined retriever fuses on — the node id, except for a raw
  conversation turn (state Event, associative Episode), where it is :func:`turn_key`, so the
  same turn found by two memories counts as one document

Values are JSON types only (datetimes as ISO 8601 strings).
"""

from __future__ import annotations

import logging
import hashlib
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphmem.text import normalise_for_matching

if TYPE_CHECKING:
    from langchain_core.documents import Document

    from graphmem.memory import RecallItem

logger = logging.getLogger(__name__)


def iso(value: datetime | None) -> str | None:
    """ISO 8601 text of ``value`` (None stays None)."""
    return value.isoformat() if value is not None else None


def dedupe(ids: list[str | None]) -> list[str]:
    """Non-empty ids, unique, in first-seen order."""
    return list(dict.fromkeys(i for i in ids if i))


def turn_key(source_ids: list[str], text: str) -> str:
    """Fusion key of what one or more conversation turns say:
    ``turn:<sorted source ids joined by |>:<sha1(normalised text)[:16]>``, the text through
    :func:`graphmem.text.normalise_for_matching` (so case, Unicode form and spacing do not
    matter). An Event, an Episode of the same turn and a State with the same text on the same
    turns share it."""
    digest = hashlib.sha1(normalise_for_matching(text).encode("utf-8", "surrogatepass")
                          ).hexdigest()[:16]
    return f"turn:{'|'.join(sorted(source_ids))}:{digest}"


def item_document(item: RecallItem, namespace: str, rank: int, node_ids: list[str | None],
                  provenance: dict[str, Any], fusion_key: str | None = None) -> Document:
    """One Document of ``item`` with the common metadata keys (see the module docstring).

    Args:
        item: the recalled item (its ``text`` becomes ``page_content``).
        namespace: the tenant of the result.
        rank: 1-based position in the memory's ranking.
        node_ids: nodes that explain the item (the item's own id is put first).
        provenance: memory-specific JSON-ready facts.
        fusion_key: the fusion key; None uses the node id.
    """
    from langchain_core.documents import Document

    metadata = {"memory": item.memory, "namespace": namespace,
                "node_ids": dedupe([item.id, *node_ids]), "score": float(item.score),
                "rank": rank, "kind": item.kind, "source_ids": list(item.source_ids),
                "path": [step.model_dump() for step in item.path], "provenance": provenance,
                "fusion_key": fusion_key or item.id}
    return Document(page_content=item.text, id=item.id, metadata=metadata)
