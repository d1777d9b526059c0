"""Cross-topic RELATED_EVENT pairs (EMIR² SEMG evidence relation, seed 002 appendix Table 3) from
vectors already in memory: pure numpy, no I/O.

Each new event links to its ``per_event`` most similar events of *other* topics whose cosine
reaches ``threshold``: the other new events of the batch (one conversation) and, optionally,
stored events of the conversation found by the caller with their similarity. Edges are
undirected; a pair found from both ends is one edge, directed from the new event that comes first
in the batch (a stored partner is always the target).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

#: Rows of the similarity matrix computed at a time (memory: BLOCK x n floats).
BLOCK = 1024
#: Decimals a stored partner's cosine is rounded to before ranking (float noise makes no order).
SIMILARITY_DECIMALS = 9


@dataclass(frozen=True)
class StoredMatch:
    """A stored event similar to new event ``index``: its id, topic and cosine."""

    index: int
    id: str
    topic_id: str
    similarity: float


def related_pairs(ids: Sequence[str], topics: Sequence[str], vectors: np.ndarray,
                  threshold: float, per_event: int,
                  stored: Sequence[StoredMatch] = ()) -> list[tuple[str, str, float]]:
    """RELATED_EVENT pairs ``(from id, to id, cosine)`` of a batch, each undirected pair once.

    Args:
        ids / topics: the new events' ids and topic ids, batch order.
        vectors: ``(n, d)`` their vectors (rows that are not finite or all zero take no part).
        threshold: minimum cosine in [-1, 1]; per_event: top partners kept per new event (>= 0).
        stored: candidate stored partners (already of the same conversation).
    Returns:
        Pairs in batch order of their source, best partner first.
    Raises:
        ValueError: lengths differ, or ``vectors`` is not two-dimensional.
    """
    n = len(ids)
    vecs = np.asarray(vectors, dtype=np.float32)
    if len(topics) != n or (n and (vecs.ndim != 2 or vecs.shape[0] != n)):
        raise ValueError(f"related_pairs: {n} ids, {len(topics)} topics, vectors {vecs.shape}")
    if n == 0 or per_event <= 0:
        return []
    norms = np.linalg.norm(vecs, axis=1)
    ok = np.isfinite(vecs).all(axis=1) & (norms > 0)
    unit = np.where(ok[:, None], vecs / np.where(norms > 0, norms, 1.0)[:, None], 0.0)
    topic_codes = np.unique(np.asarray(topics, dtype=object), return_inverse=True)[1]
    by_source: dict[int, list[tuple[float, int | StoredMatch]]] = {}
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        sims = unit[start:stop] @ unit.T
        rows = np.arange(start, stop)
        sims[topic_codes[rows][:, None] == topic_codes[None, :]] = -np.inf  # same topic, self
        sims[~ok[rows]] = -np.inf
        sims[:, ~ok] = -np.inf
        k = min(per_event, n - 1) if n > 1 else 0
        if k == 0:
            continue
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for r, row in enumerate(top):
            i = start + r
            by_source[i] = [(float(sims[r, j]), int(j)) for j in row
                            if sims[r, j] >= threshold]
    for match in stored:
        if ok[match.index] and match.topic_id != topics[match.index] and match.similarity >= threshold:
            by_source.setdefault(match.index, []).append((float(match.similarity), match))
    pairs: dict[frozenset[str], tuple[str, str, float]] = {}
    for i in range(n):
        best = sorted(by_source.get(i, []), key=lambda x: (-x[0], _key(ids, x[1])))[:per_event]
        for sim, other in best:
            a, b = (ids[i], other.id) if isinstance(other, StoredMatch) else \
                ((ids[i], ids[other]) if i < other else (ids[other], ids[i]))
            pairs.setdefault(frozenset((a, b)), (a, b, round(sim, 6)))
    return list(pairs.values())


def stored_matches(vectors: np.ndarray, topics: Sequence[str], stored: Sequence[dict[str, Any]],
                   per_event: int) -> list[StoredMatch]:
    """Per new event its ``per_event`` most similar stored events of another topic: an exact
    cosine scan of ``stored`` (the conversation's own stored events), best first, ties by id.

    Exact, so the answer (and the RELATED_EVENT edges written from it) depends only on the
    conversation's own events -- unlike a vector-index top list filtered afterwards, which other
    namespaces' events would crowd. Cosines are rounded to :data:`SIMILARITY_DECIMALS` first.

    Args:
        vectors: ``(n, d)`` the new events' vectors (rows cosine cannot score -- not finite, all
            zero -- get no match).
        topics: the new events' topic ids (``n``).
        stored: ``{id, topic_id, embedding}`` per stored event (an embedding of another width,
            not finite, all zero or missing is skipped).
        per_event: matches kept per new event (<= 0: none).
    Returns:
        :class:`StoredMatch` es, by new-event index, best first.
    Raises:
        ValueError: ``vectors`` is not two-dimensional or ``topics`` has another length.
    """
    vecs = np.asarray(vectors, dtype=np.float64)
    if vecs.ndim != 2 or vecs.shape[0] != len(topics):
        raise ValueError(f"stored_matches: vectors {vecs.shape}, {len(topics)} topics")
    if per_event <= 0 or not len(topics) or not stored:
        return []
    width = vecs.shape[1]
    keep = [r for r in stored if r.get("embedding") is not None and len(r["embedding"]) == width]
    if not keep:
        return []
    matrix = np.asarray([r["embedding"] for r in keep], dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1)
    usable = np.isfinite(matrix).all(axis=1) & (norms > 0)
    keep = [r for r, ok in zip(keep, usable, strict=True) if ok]
    if not keep:
        return []
    unit = matrix[usable] / norms[usable][:, None]
    ids = [str(r["id"]) for r in keep]
    stored_topics = np.asarray([r.get("topic_id") for r in keep], dtype=object)
    row_norms = np.linalg.norm(vecs, axis=1)
    rows_ok = np.isfinite(vecs).all(axis=1) & (row_norms > 0)
    out: list[StoredMatch] = []
    for start in range(0, len(topics), BLOCK):
        stop = min(len(topics), start + BLOCK)
        block = np.where(rows_ok[start:stop, None],
                         vecs[start:stop] / np.where(row_norms[start:stop] > 0,
                                                     row_norms[start:stop], 1.0)[:, None], 0.0)
        # rounded: cosines equal up to float noise tie, and ties go by id
        sims = np.round(block @ unit.T, SIMILARITY_DECIMALS)
        for r in range(stop - start):
            i = start + r
            if not rows_ok[i]:
                continue
            other = (stored_topics != topics[i]) & (stored_topics != None)  # noqa: E711
            candidates = np.flatnonzero(other)
            if not candidates.size:
                continue
            values = sims[r, candidates]
            if candidates.size > per_event:  # every candidate tied with the k-th best, then sort
                kth = np.partition(values, candidates.size - per_event)[candidates.size - per_event]
                candidates = candidates[values >= kth]
            best = sorted(candidates.tolist(), key=lambda j: (-float(sims[r, j]), ids[j]))[:per_event]
            out.extend(StoredMatch(index=i, id=ids[j], topic_id=str(stored_topics[j]),
                                   similarity=float(sims[r, j])) for j in best)
    return out


def _key(ids: Sequence[str], other: int | StoredMatch) -> str:
    return other.id if isinstance(other, StoredMatch) else ids[other]
