"""Score fusion for multi-round retrieval (pure).

Round 1 fuses dense and keyword evidence: ``score = cosine + keyword_weight * bm25 / max_bm25``
(cosine in [-1, 1]); later rounds add neighbours with ``decay * parent score`` and never lower an
existing score; an item found by several actions keeps its best score plus ``agreement_bonus``
per extra action. Source ids are then listed in hit order, unique.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from graphmem.state.models import StateItem

logger = logging.getLogger(__name__)


def fuse_keyword(dense: dict[str, float], keyword: dict[str, float], keyword_weight: float) -> dict[str, float]:
    """Combine ``{id: cosine}`` and ``{id: bm25}`` into ``{id: score}`` (ids from either)."""
    top = max(keyword.values(), default=0.0) or 1.0
    ids = set(dense) | set(keyword)
    floor = min(dense.values(), default=0.0)
    return {i: dense.get(i, floor) + keyword_weight * keyword.get(i, 0.0) / top for i in ids}


def merge_hit(pool: dict[str, StateItem], hit: StateItem, action: str, agreement_bonus: float = 0.02) -> bool:
    """Add ``hit`` (found by ``action``) to ``pool``; True when it is new."""
    old = pool.get(hit.id)
    if old is None:
        hit.found_by = [action]
        pool[hit.id] = hit
        return True
    if action not in old.found_by:
        old.found_by.append(action)
        old.score = max(old.score, hit.score) + agreement_bonus
    else:
        old.score = max(old.score, hit.score)
    return False


def rank(pool: Iterable[StateItem]) -> list[StateItem]:
    """Hits by descending score (ties by id for determinism)."""
    return sorted(pool, key=lambda h: (-h.score, h.id))


def source_ids_in_order(hits: Sequence[StateItem]) -> list[str]:
    """Unique source ids in hit order (a state lists its evidence turns)."""
    seen: dict[str, None] = {}
    for hit in hits:
        for sid in hit.source_ids:
            seen.setdefault(sid, None)
    return list(seen)
