"""One recalled item per underlying evidence (pure; no I/O).

A State derived from a single turn often says exactly what the turn's Event says; recall would
then return the same sentence twice. :func:`dedupe_items` keeps the higher-ranked of two items
whose texts are equal after :func:`graphmem.text.normalise_for_matching` and that rest on the
same source turn ids, and records the other's id in the kept item's ``also`` (the document
metadata carries it in ``provenance["also"]`` and ``node_ids``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from graphmem.state.models import StateItem
from graphmem.text import normalise_for_matching

logger = logging.getLogger(__name__)


def evidence_key(item: StateItem) -> tuple[str, tuple[str, ...]]:
    """``(normalised text, sorted source ids)``: the evidence an item stands for."""
    return normalise_for_matching(item.text), tuple(sorted(item.source_ids))


def dedupe_items(items: Iterable[StateItem]) -> list[StateItem]:
    """``items`` (best first) with each evidence kept once: the first (higher-ranked) item of
    an evidence key stays, later ones are dropped and their ids appended to its ``also``."""
    kept: dict[tuple[str, tuple[str, ...]], StateItem] = {}
    out: list[StateItem] = []
    for item in items:
        key = evidence_key(item)
        first = kept.get(key)
        if first is None:
            kept[key] = item
            out.append(item)
            continue
        if item.id != first.id and item.id not in first.also:
            first.also.append(item.id)
        logger.debug("state recall: %s %s folded into %s %s (same text and source ids)",
                     item.kind, item.id, first.kind, first.id)
    return out
