"""The passage vectors of a vector-cache entry
(:class:`graphmem.retrieval.vectors.NamespaceVectors`): every passage vector of the entry's units in one matrix, grouped by unit, and the max-over-passages
dense score (pure numpy, no I/O).

A unit's dense score is ``max(cos(q, window vector), max_p cos(q, passage p))``
(:mod:`graphmem.retrieval.passages`, docs/retrieval.md). The passages of unit ``i`` (the entry's
``i``-th scored unit) are the rows ``offsets[i]:offsets[i + 1]`` of :attr:`PassageVectors.matrix`
(compressed-row layout: units without passages take no row), so one product scores every passage
and a segment max (``np.maximum.reduceat`` over the non-empty groups) gives each unit its best.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def unit_passages(flat: Any, width: int) -> np.ndarray | None:
    """A unit's stored ``passage_embeddings`` (flat: passages × ``width`` floats) as unit-norm
    float32 rows ``(passages, width)``; None when it has none or cosine cannot score them all
    (length not a multiple of ``width``, a non-finite value, an all-zero passage): the passages
    are used all or none, so a passage's index stays its index in the unit's ``passage_spans``."""
    if flat is None:
        return None
    arr = np.asarray(flat, dtype=np.float64).ravel()
    if not arr.size or arr.size % width or not np.isfinite(arr).all():
        return None
    rows = arr.reshape(-1, width)
    norms = np.linalg.norm(rows, axis=1)
    if not (norms > 0.0).all():
        return None
    return (rows / norms[:, None]).astype(np.float32)


class PassageVectors:
    """The passage vectors of an entry's scored units, grouped by unit.

    Args:
        width: the vector width.
        groups: per scored unit (in the entry's order) its :func:`unit_passages` rows, or None.

    Attributes:
        matrix: ``(passages, width) float32`` unit rows, grouped by unit in order.
        offsets: ``(units + 1,) int64``; unit ``i``'s passages are
            ``matrix[offsets[i]:offsets[i + 1]]``.
    """

    def __init__(self, width: int, groups: Sequence[np.ndarray | None]):
        counts = np.asarray([0 if g is None else len(g) for g in groups], dtype=np.int64)
        self.offsets = np.concatenate([np.zeros(1, np.int64), np.cumsum(counts, dtype=np.int64)])
        pieces = [g for g in groups if g is not None and len(g)]
        self.matrix = (np.vstack(pieces).astype(np.float32, copy=False) if pieces
                       else np.zeros((0, width), np.float32))
        #: The units with passages and the first row of each (the segments of the max).
        self._owners = np.flatnonzero(counts > 0)
        self._starts = self.offsets[:-1][self._owners]

    def group(self, i: int) -> np.ndarray | None:
        """Unit ``i``'s passage rows (a view), None when it has none."""
        start, end = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.matrix[start:end] if end > start else None

    def raise_to_best(self, sims: np.ndarray, query: np.ndarray) -> np.ndarray:
        """``sims`` (the window cosines of the units, ``(units,)``) raised in place to each unit's
        best passage cosine with the unit ``query`` ``(width,)``; returns ``sims``."""
        if not len(self._owners):
            return sims
        # einsum's own loop, not BLAS (see NamespaceVectors.top)
        psims = np.einsum("ij,j->i", self.matrix, query)
        best = np.maximum.reduceat(psims, self._starts)
        sims[self._owners] = np.maximum(sims[self._owners], best)
        return sims

    def best(self, i: int, window: float, query: np.ndarray) -> tuple[float, int]:
        """Unit ``i``'s dense score against the unit ``query``: ``(cosine, passage index)``, the
        index ``-1`` when the window cosine ``window`` is at least every passage's (ties go to
        the window, then to the first passage, as the database query orders them)."""
        rows = self.group(i)
        if rows is None:
            return window, -1
        sims = rows @ query
        j = int(np.argmax(sims))
        return (float(sims[j]), j) if float(sims[j]) > window else (window, -1)

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.offsets.nbytes)


__all__ = ["PassageVectors", "unit_passages"]
