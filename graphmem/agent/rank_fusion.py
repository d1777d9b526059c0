"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) of ranked document lists, and
the rule that keeps a superseded state below the state that replaced it.

    RRF(d) = Σ_m  w_m / (k + rank_m(d))

with ``rank_m`` 1-based in list ``m`` and the documented constant ``k = 60`` (the paper's value;
it damps the weight of the very first ranks so no single list dominates). Pure: no I/O.

What is "the same document" is the documents' ``fusion_key``
(:func:`graphmem.documents.conversation_fusion_key`): one conversation turn is one key, whether
state memory found it as an Event or a State, associative memory as an Episode, or one memory
as two items.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from langchain_core.documents import Document

from graphmem.errors import InvalidInputError

logger = logging.getLogger(__name__)

#: The RRF constant k of Cormack et al. (2009).
RRF_K = 60

_VALIDITY_KEYS = ("topic_id", "state_id", "current", "valid_from", "valid_to", "conflict")


def reciprocal_rank_fusion(
    ranked: Sequence[Sequence[Document]],
    k: int = RRF_K,
    weights: Sequence[float] | None = None,
) -> list[Document]:
    """Fuse ranked lists into one, best first.

    Documents are the same when their ``metadata["fusion_key"]`` is (default: ``Document.id``);
    e.g. one conversation turn found by state memory (an Event) and by associative memory (an
    Episode). A key counts once per list, at its best rank there (a second document of the same
    key in one list adds its node ids, not its score); the same key in several lists sums their
    contributions. The fused document is its best-ranked occurrence, with metadata gaining
    ``rrf_score`` (float), ``ranks`` (``{memory: best rank}``; the list index when a document
    has no ``memory``), ``fused_ids`` (the ids of every occurrence), ``node_ids`` (their union)
    and, when any occurrence carries a state judgement (metadata ``validity``), ``validity``:
    that of its best-ranked judged occurrence (a turn found as an Episode keeps the judgement
    state memory made of it). Ties break by the best single rank, then by list order.

    Args:
        ranked: the lists, each best first.
        k: the RRF constant (> 0), default :data:`RRF_K` = 60.
        weights: one non-negative weight per list (default all 1.0).
    Raises:
        InvalidInputError: k ≤ 0, a weight count that differs from the list count, a negative
            weight, or a document without ``id``.
    """
    if k <= 0:
        raise InvalidInputError(f"RRF constant k must be > 0, got {k!r}")
    weights = [1.0] * len(ranked) if weights is None else [float(w) for w in weights]
    if len(weights) != len(ranked) or any(w < 0 for w in weights):
        raise InvalidInputError(f"need one non-negative weight per list ({len(ranked)}), got {weights!r}")
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, int, Document]] = {}
    ranks: dict[str, dict[str, int]] = {}
    ids: dict[str, list[str]] = {}
    node_ids: dict[str, list[str]] = {}
    validity: dict[str, tuple[int, int, dict[str, Any]]] = {}
    for li, (docs, weight) in enumerate(zip(ranked, weights, strict=True)):
        seen: set[str] = set()
        for position, doc in enumerate(docs, start=1):
            if not doc.id:
                raise InvalidInputError(f"cannot fuse a document without id: {doc.page_content[:60]!r}")
            key = str(doc.metadata.get("fusion_key") or doc.id)
            if key not in seen:  # a list's best occurrence of a key is the one that counts
                seen.add(key)
                scores[key] = scores.get(key, 0.0) + weight / (k + position)
                ranks.setdefault(key, {})[str(doc.metadata.get("memory", li))] = position
            ids.setdefault(key, [])
            if doc.id not in ids[key]:
                ids[key].append(doc.id)
            merged = node_ids.setdefault(key, [])
            merged.extend(n for n in doc.metadata.get("node_ids", [doc.id]) if n not in merged)
            judged = doc.metadata.get("validity")
            if judged and (key not in validity or (position, li) < validity[key][:2]):
                validity[key] = (position, li, dict(judged))
            if key not in best or position < best[key][0]:
                best[key] = (position, li, doc)
    order = sorted(scores, key=lambda x: (-scores[x], best[x][0], best[x][1]))
    out = []
    for key in order:
        metadata = {**best[key][2].metadata, "rrf_score": scores[key], "ranks": ranks[key],
                    "fused_ids": ids[key], "node_ids": node_ids[key]}
        if key in validity:
            metadata["validity"] = validity[key][2]
        out.append(Document(page_content=best[key][2].page_content, id=best[key][2].id,
                            metadata=metadata))
    return out


def _time(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


_END = datetime.max.replace(tzinfo=timezone.utc)


def _span(validity: dict[str, Any]) -> tuple[datetime, datetime] | None:
    """``(valid_from, valid_to or the end of time)`` as aware datetimes, None without a start."""
    start, end = _time(validity.get("valid_from")), _time(validity.get("valid_to"))
    if start is None:
        return None
    start = start if start.tzinfo else start.replace(tzinfo=timezone.utc)
    end = _END if end is None else (end if end.tzinfo else end.replace(tzinfo=timezone.utc))
    return start, end


def is_superseded(validity: dict[str, Any] | None) -> bool:
    """A state judgement of a replaced state: not current, closed (``valid_to`` set), not a
    flagged conflict (conflicting facts are kept side by side, neither replaces the other)."""
    return bool(validity) and validity.get("current") is False \
        and validity.get("valid_to") is not None and not validity.get("conflict")


def replaces(newer: dict[str, Any] | None, older: dict[str, Any] | None) -> bool:
    """Whether the state judged in ``newer`` replaced the one judged in ``older``: ``older`` is
    superseded (:func:`is_superseded`), both are states of the same topic, ``newer`` is another
    state, not a flagged conflict, and later: its ``(valid_from, valid_to)`` (an open state ends
    at the end of time) is greater. Strict, so two states never replace each other."""
    if not newer or not is_superseded(older) or newer.get("conflict"):
        return False
    if not older.get("topic_id") or newer.get("topic_id") != older.get("topic_id") \
            or newer.get("state_id") == older.get("state_id"):
        return False
    a, b = _span(older), _span(newer)
    return a is not None and b is not None and b > a


def put_superseded_after(fused: Sequence[Document], k: int | None = None) -> list[Document]:
    """Fused documents (best first) with no superseded state above a state that replaced it.

    The rule: when a document whose ``validity`` is superseded (:func:`is_superseded`) ranks
    above documents whose ``validity`` :func:`replaces` it, the latest of those (the current
    state when present) is promoted to just above it, its ``rrf_score`` raised to the
    superseded document's (so scores stay in rank order). The replacement moves up rather than
    the superseded document down: what the memories ranked high stays in the result, and the
    truth that replaced it comes first. With ``k``, only replacements among the first ``k``
    documents are promoted (the set of the first ``k`` is kept; a superseded document whose
    replacement ranks below ``k`` stays, marked). Every superseded document gains metadata
    ``superseded_by``: the ``fusion_key`` of the latest document among those that replaced it,
    else None. Everything else keeps its order; documents without ``validity`` never move.
    Pure.
    """
    order = [Document(page_content=d.page_content, id=d.id, metadata=dict(d.metadata))
             for d in fused]
    limit = len(order) if k is None else min(k, len(order))
    for _ in range(len(order) * len(order) + 1):  # each move is upward under a strict order
        moved = False
        for i, doc in enumerate(order[:limit]):
            older = doc.metadata.get("validity")
            if not is_superseded(older):
                continue
            below = [j for j in range(i + 1, limit)
                     if replaces(order[j].metadata.get("validity"), older)]
            if below:
                j = max(below, key=lambda j: _span(order[j].metadata["validity"]))
                newer = order.pop(j)
                newer.metadata["rrf_score"] = max(float(newer.metadata.get("rrf_score", 0.0)),
                                                  float(doc.metadata.get("rrf_score", 0.0)))
                order.insert(i, newer)
                moved = True
                break
        if not moved:
            break
    for doc in order:
        older = doc.metadata.get("validity")
        if not is_superseded(older):
            continue
        newer = [d for d in order if replaces(d.metadata.get("validity"), older)]
        latest = max(newer, key=lambda d: _span(d.metadata["validity"]), default=None)
        doc.metadata["superseded_by"] = (str(latest.metadata.get("fusion_key") or latest.id)
                                         if latest is not None else None)
    return order
