"""Pure metrics of the evaluation and benchmark reports (no I/O).

- recall@k per LoCoMo category: the per-question value is
  :func:`graphmem.state.evaluation.recall_at` (``|gold ∩ ranked[:k]| / |gold|``), macro-averaged
  over the questions of a category and overall;
- latency percentiles (nearest-rank-interpolated, numpy's default ``linear`` method);
- ratios, growth and target checks.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from graphmem.errors import InvalidInputError
from graphmem.state.evaluation import CATEGORY_NAMES, recall_at

logger = logging.getLogger(__name__)

KS: tuple[int, ...] = (5, 10, 20)


def category_name(category: int | str) -> str:
    """LoCoMo category number -> name (``1`` -> ``"multi_hop"``); unknown ones as ``category_<n>``."""
    if isinstance(category, str):
        return category
    return CATEGORY_NAMES.get(category, f"category_{category}")


class RecallTable:
    """Accumulates recall@k per (method, category) over questions.

    ``add(method, category, ranked, gold)`` records one question (``ranked``: unique source ids,
    best first; ``gold``: evidence ids, non-empty) under its category and ``"overall"``.
    """

    def __init__(self, ks: Sequence[int] = KS):
        if not ks or any(int(k) < 1 for k in ks):
            raise InvalidInputError(f"cut-offs must be positive integers, got {list(ks)!r}")
        self.ks = tuple(int(k) for k in ks)
        self._sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0] * len(self.ks)))
        self._counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def add(self, method: str, category: int | str, ranked: Sequence[str], gold: Sequence[str]) -> dict[int, float]:
        """Record one question; returns its ``{k: recall@k}``.

        Raises:
            InvalidInputError: empty ``gold`` (a question without evidence cannot be scored).
        """
        if not gold:
            raise InvalidInputError(f"question of category {category!r} has no gold evidence ids")
        unique = list(dict.fromkeys(ranked))
        values = {k: recall_at(unique, gold, k) for k in self.ks}
        for key in (category_name(category), "overall"):
            sums = self._sums[method][key]
            for i, k in enumerate(self.ks):
                sums[i] += values[k]
            self._counts[method][key] += 1
        return values

    @property
    def methods(self) -> list[str]:
        """Methods in insertion order."""
        return list(self._sums)

    def table(self) -> dict[str, dict[str, dict[str, float | int]]]:
        """``{method: {category: {"recall@5": mean, ..., "questions": n}}}`` (4 decimals)."""
        out: dict[str, dict[str, dict[str, float | int]]] = {}
        for method, per_cat in self._sums.items():
            out[method] = {}
            for cat in sorted(per_cat, key=lambda c: (c == "overall", c)):
                n = self._counts[method][cat]
                row: dict[str, float | int] = {f"recall@{k}": round(per_cat[cat][i] / n, 4)
                                               for i, k in enumerate(self.ks)}
                row["questions"] = n
                out[method][cat] = row
        return out


def percentiles(values: Iterable[float], qs: Sequence[float] = (50, 95)) -> dict[str, float]:
    """``{"p50": ..., "p95": ...}`` of ``values`` (same unit as the input, e.g. ms).

    Raises:
        InvalidInputError: no values, or a percentile outside [0, 100].
    """
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        raise InvalidInputError("percentiles of an empty sample")
    if any(not 0 <= q <= 100 for q in qs):
        raise InvalidInputError(f"percentiles must be in [0, 100], got {list(qs)!r}")
    return {f"p{q:g}": round(float(np.percentile(arr, q)), 3) for q in qs}


def ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator`` to 3 decimals; ``None`` when the denominator is 0."""
    return None if not denominator else round(float(numerator) / float(denominator), 3)


def check_target(value: float | None, limit: float, higher_is_better: bool = False) -> dict[str, Any]:
    """``{"value", "target", "met"}``; a missing value (``None``) is not met.

    ``higher_is_better=False``: met when ``value <= limit`` (latency ratios, growth);
    ``True``: met when ``value >= limit`` (throughput ratios).
    """
    op = ">=" if higher_is_better else "<="
    met = value is not None and (value >= limit if higher_is_better else value <= limit)
    return {"value": value, "target": f"{op} {limit:g}", "met": bool(met)}


def fuse_rankings(rankings: Sequence[Sequence[str]], k: int = 60) -> list[str]:
    """Reciprocal rank fusion of id lists via :func:`graphmem.agent.rank_fusion.reciprocal_rank_fusion`
    (Cormack et al. 2009, ``Σ 1/(k + rank)``), ids deduplicated within each list first.

    Returns:
        Fused ids, best first.
    """
    from langchain_core.documents import Document

    from graphmem.agent.rank_fusion import reciprocal_rank_fusion

    lists = [[Document(page_content="", id=i) for i in dict.fromkeys(r)] for r in rankings]
    return [d.id for d in reciprocal_rank_fusion(lists, k=k)]
