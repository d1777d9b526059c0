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
- ``fusion_key``: what a combined retriever fuses on. One rule (:func:`conversation_fusion_key`):
  an item that rests on one conversation turn (a state Event, an associative Episode or semantic
  unit, a State asserted by one turn) fuses on that turn, :func:`turn_key` of its conversation
  and source message id; a State resting on several turns fuses on the evidence turn it stands
  in for in its memory's ranking, if any; every other item on its node id. So one turn found
  by several memories, or as several items of one memory, counts as one document
- ``validity`` (items that carry a state judgement, else absent): ``{"topic_id", "state_id",
  "current", "valid_from", "valid_to", "conflict"}`` of the state the item is or is evidence of
  (``current``: its topic's current state; ``valid_to``: when a later state replaced it), so a
  fusion can keep a superseded state below the state that replaced it
- ``passage`` (a state event or associative episode of a long message whose passage vector
  matched, else absent): ``{"start", "end", "text"}``, the character span of the message and
  its text (:mod:`graphmem.retrieval.passages`), so the reader sees the part that matched

Values are JSON types only (datetimes as ISO 8601 strings).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

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


def turn_key(source_id: str, conversation: str | None = None) -> str:
    """Fusion key of one conversation turn: ``turn:["<conversation>", "<source id>"]`` (JSON of
    the pair, so no id can run into the other; source ids are unique within a conversation, not
    across conversations). Every document resting on that turn shares it, whatever its memory
    and text."""
    return "turn:" + json.dumps([conversation or "", str(source_id)], ensure_ascii=False)


def conversation_fusion_key(source_ids: Sequence[str], conversation: str | None,
                            anchor_ids: Sequence[str] | None = None) -> str | None:
    """The fusion key of a conversation item (see the module docstring): :func:`turn_key` of the
    one turn ``source_ids`` name (repeats ignored); when they name several, of the one turn
    ``anchor_ids`` name (the evidence turn the item stands in for); else None (the caller uses
    the node id)."""
    for ids in (source_ids, anchor_ids or ()):
        unique = dedupe(list(ids))
        if len(unique) == 1:
            return turn_key(unique[0], conversation)
    return None


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

    The metadata also holds ``passage`` when the item has one (its ``passage`` attribute: the
    matched passage of a long message, see the module docstring).
    """
    from langchain_core.documents import Document

    metadata = {"memory": item.memory, "namespace": namespace,
                "node_ids": dedupe([item.id, *node_ids]), "score": float(item.score),
                "rank": rank, "kind": item.kind, "source_ids": list(item.source_ids),
                "path": [step.model_dump() for step in item.path], "provenance": provenance,
                "fusion_key": fusion_key or item.id}
    passage = getattr(item, "passage", None)
    if passage:
        metadata["passage"] = dict(passage)
    return Document(page_content=item.text, id=item.id, metadata=metadata)
