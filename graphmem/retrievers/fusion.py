"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) of ranked document lists.

    RRF(d) = Σ_m  w_m / (k + rank_m(d))

with ``rank_m`` 1-based in list ``m`` and the documented constant ``k = 60`` (the paper's value;
it damps the weight of the very first ranks so no single list dominates). Pure: no I/O.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from langchain_core.documents import Document

from graphmem.errors import InvalidInputError

logger = logging.getLogger(__name__)

#: The RRF constant k of Cormack et al. (2009).
RRF_K = 60


def reciprocal_rank_fusion(
    ranked: Sequence[Sequence[Document]],
    k: int = RRF_K,
    weights: Sequence[float] | None = None,
) -> list[Document]:
    """Fuse ranked lists into one, best first.

    Documents are the same when their ``metadata["fusion_key"]`` is (default: ``Document.id``);
    e.g. one conversation turn found by state memory (an Event) and by associative memory (an
    Episode). The same document in several lists sums its contributions; the fused document is
    its best-ranked occurrence, with metadata gaining ``rrf_score`` (float), ``ranks``
    (``{memory: rank}``; the list index when a document has no ``memory``), ``fused_ids`` (the
    ids of every occurrence) and ``node_ids`` (their union). Ties break by the best single rank,
    then by list order.

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
    for li, (docs, weight) in enumerate(zip(ranked, weights, strict=True)):
        for position, doc in enumerate(docs, start=1):
            if not doc.id:
                raise InvalidInputError(f"cannot fuse a document without id: {doc.page_content[:60]!r}")
            key = str(doc.metadata.get("fusion_key") or doc.id)
            scores[key] = scores.get(key, 0.0) + weight / (k + position)
            ranks.setdefault(key, {})[str(doc.metadata.get("memory", li))] = position
            ids.setdefault(key, [])
            if doc.id not in ids[key]:
                ids[key].append(doc.id)
            merged = node_ids.setdefault(key, [])
            merged.extend(n for n in doc.metadata.get("node_ids", [doc.id]) if n not in merged)
            if key not in best or position < best[key][0]:
                best[key] = (position, li, doc)
    order = sorted(scores, key=lambda x: (-scores[x], best[x][0], best[x][1]))
    return [
        Document(page_content=best[key][2].page_content, id=best[key][2].id,
                 metadata={**best[key][2].metadata, "rrf_score": scores[key], "ranks": ranks[key],
                           "fused_ids": ids[key], "node_ids": node_ids[key]})
        for key in order
    ]
