"""Lexical candidates chosen in process: the exact per-namespace BM25 top-k of a question.

The round query's full-text side asks Lucene for the top ``lexical_k`` matches of the namespace
(``+ns_token:<tok>``), but Lucene ranks them with index-wide statistics (idf and average length
over every tenant's units), so when more than ``lexical_k`` of a namespace's units match, *which*
of them become candidates would move when another tenant writes. Once the in-process vector cache
holds every unit of a namespace (:attr:`graphmem.retrieval.vectors.NamespaceVectors.complete_lexicon`:
each unit's term counts, the per-term df and ``(N, avgdl)`` of the namespace), the engine picks
the candidates here instead: the ``k`` units with the highest BM25 under the namespace's own
statistics -- exactly the score :func:`graphmem.retrieval.fusion.bm25` gives them afterwards --
ties by id (the units tying with the k-th kept, :data:`TIE_FACTOR`), only units with a positive
score (matching at least one question term), and, for a windowed recall, only units inside
``since <= t < until`` before the cut; archived units (retention) only when the recall asks for
them, also before the cut (the statistics count them either way). The full-text index is
then not queried at all, so the candidates depend on the namespace's own units only.

:class:`LexicalIndex` is the inverted index of one cache entry (term -> positions of the units
that have it and the term's count in each, plus every unit's token count and time), built once
when an entry's lexicon becomes complete and updated with the units that changed when the entry
is (:meth:`LexicalIndex.updated`). Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from graphmem.retrieval import fusion

#: What the round query counts of one unit: per distinct term of its ``lexical_terms`` the term's
#: count in the unit (the BM25 term frequency; the keys are its distinct terms), its
#: ``lexical_length`` and its ``speaker`` (None when unset). Shared, never mutated.
Lexical = tuple[Mapping[str, int], int | None, str | None]


def lexical_entry(terms: str | None, length: Any, speaker: str | None) -> Lexical:
    """A unit's :data:`Lexical` from its stored ``lexical_terms`` (space-separated, as the
    ``whitespace`` full-text analyzer splits them), ``lexical_length`` and ``speaker``."""
    return (dict(Counter((terms or "").split())), None if length is None else int(length),
            None if speaker is None else str(speaker))


#: The candidates may grow to this many times ``k`` to keep every unit that ties with the k-th
#: best: a cut through equal scores would pick by node id, so two namespaces holding the same
#: conversation would get different candidates.
TIE_FACTOR = 2


class LexicalIndex:
    """The inverted index of one namespace's units for :meth:`top` (immutable once built).

    Attributes:
        ids: per position its unit id (None: a freed position, reused by a later unit).
        position: unit id -> position.
        lengths: ``(positions,) float64``: each unit's token count (``len(lexical_terms.split())``,
            the document length :func:`graphmem.retrieval.fusion.bm25` uses).
        times, timed: ``(positions,)`` epoch microseconds of each unit's time (UTC instant) and
            whether it has one; None when the times are unknown (a windowed :meth:`top` refuses).
        archived: ``(positions,) bool``: the unit is archived (:meth:`top` leaves it out unless
            asked); None when no unit is.
        postings: term -> ``(2, df) int32``: the positions of the units that have the term and
            the term's count in each.
    """

    def __init__(self, ids: list[str | None], lengths: np.ndarray,
                 postings: dict[str, np.ndarray], times: Mapping[str, int | None] | None,
                 archived: Collection[str] | None = None):
        self.ids = ids
        self.position = {uid: i for i, uid in enumerate(ids) if uid is not None}
        self.lengths = lengths
        self.postings = postings
        self.times: np.ndarray | None = None
        self.timed: np.ndarray | None = None
        if times is not None:
            found = [None if uid is None else times.get(uid) for uid in ids]
            self.timed = np.asarray([t is not None for t in found], dtype=bool)
            self.times = np.asarray([0 if t is None else int(t) for t in found], dtype=np.int64)
        self.archived: np.ndarray | None = None
        if archived:
            self.archived = np.asarray([uid is not None and uid in archived for uid in ids],
                                       dtype=bool)

    @classmethod
    def build(cls, lexicon: Mapping[str, Lexical],
              times: Mapping[str, int | None] | None = None,
              archived: Collection[str] | None = None) -> LexicalIndex:
        """The index of every unit of ``lexicon`` (unit id -> :data:`Lexical`); ``times``: each
        unit's time (epoch microseconds or None), None: unknown; ``archived``: the ids of the
        archived units (None: none)."""
        ids: list[str | None] = list(lexicon)
        lengths = np.asarray([sum(lexicon[uid][0].values()) for uid in lexicon], dtype=np.float64)
        cols: dict[str, tuple[list[int], list[int]]] = {}
        for pos, uid in enumerate(lexicon):
            _add(cols, pos, lexicon[uid][0])
        return cls(ids, lengths, {t: np.asarray(c, dtype=np.int32) for t, c in cols.items()}, times,
                   archived)

    def updated(self, base: Mapping[str, Lexical], lexicon: Mapping[str, Lexical],
                times: Mapping[str, int | None] | None = None,
                archived: Collection[str] | None = None) -> LexicalIndex:
        """The index of ``lexicon`` (every unit now), given ``base``, the lexicon this index was
        built for: entries are compared by identity (a kept unit keeps its entry object), and
        only the postings of the terms of deleted, re-written and new units are rewritten (the
        others are shared with this index). A deleted unit's position is reused by a new one.
        ``times`` / ``archived``: every unit's time and the archived ids now (as :meth:`build`)."""
        ids = list(self.ids)
        position = dict(self.position)
        lengths = list(self.lengths.tolist())
        drop: dict[str, list[int]] = {}
        free = [i for i, uid in enumerate(ids) if uid is None]
        for uid, old in base.items():
            if lexicon.get(uid) is old:
                continue
            pos = position[uid]
            for term in old[0]:
                drop.setdefault(term, []).append(pos)
            if uid not in lexicon:
                ids[pos], lengths[pos] = None, 0.0
                del position[uid]
                free.append(pos)
        cols: dict[str, tuple[list[int], list[int]]] = {}
        for uid, new in lexicon.items():
            if base.get(uid) is new:
                continue
            pos = position.get(uid)
            if pos is None:
                pos = free.pop() if free else len(ids)
                if pos == len(ids):
                    ids.append(None)
                    lengths.append(0.0)
                ids[pos], position[uid] = uid, pos
            lengths[pos] = float(sum(new[0].values()))
            _add(cols, pos, new[0])
        postings = dict(self.postings)
        for term in set(drop) | set(cols):
            old = postings.get(term)
            if old is not None and term in drop:
                old = old[:, ~np.isin(old[0], np.asarray(drop[term], dtype=np.int32))]
            add = np.asarray(cols[term], dtype=np.int32) if term in cols else None
            merged = old if add is None else add if old is None else np.concatenate([old, add], 1)
            if merged is None or not merged.shape[1]:
                postings.pop(term, None)
            else:
                postings[term] = merged
        return LexicalIndex(ids, np.asarray(lengths, dtype=np.float64), postings, times, archived)

    @property
    def nbytes(self) -> int:
        """Approximate bytes held: the arrays plus ~120 per posting array and ~100 per unit."""
        return (sum(int(p.nbytes) + 120 for p in self.postings.values()) + 100 * len(self.ids)
                + int(self.lengths.nbytes)
                + (0 if self.times is None else int(self.times.nbytes) + len(self.ids))
                + (0 if self.archived is None else len(self.ids)))

    def scores(self, terms: Sequence[str], dfs: Mapping[str, int], n_units: int,
               avg_length: float, k1: float = fusion.K1, b: float = fusion.B) -> np.ndarray:
        """``(positions,) float64``: each unit's BM25 for the question ``terms`` (analyzed,
        repeats counted) with the namespace's statistics ``dfs`` / ``n_units`` / ``avg_length``;
        bit for bit :func:`graphmem.retrieval.fusion.bm25` of the unit (the same operations in the
        same order); 0 for a unit matching no term and for freed positions."""
        out = np.zeros(len(self.ids), dtype=np.float64)
        if n_units <= 0:
            return out
        norm = k1 * (1.0 - b + b * self.lengths / (avg_length if avg_length > 0 else 1.0))
        for term in terms:
            posting = self.postings.get(term)
            if posting is None:
                continue
            pos, tf = posting[0], posting[1].astype(np.float64)
            weight = fusion.idf(min(dfs.get(term, 1), n_units), n_units)
            out[pos] += weight * tf * (k1 + 1.0) / (tf + norm[pos])
        return out

    def top(self, terms: Sequence[str], dfs: Mapping[str, int], n_units: int, avg_length: float,
            k: int, since: int | None = None, until: int | None = None, k1: float = fusion.K1,
            b: float = fusion.B, include_archived: bool = False) -> list[str]:
        """The ids of the ``k`` units with the highest :meth:`scores` (> 0: matching at least one
        term), best first, ties by id, and every further unit whose score equals the k-th's while
        they are at most :data:`TIE_FACTOR` ``* k`` in all (more: only the first ``k``).
        ``since`` / ``until`` (epoch microseconds, None: open): only units whose time ``t`` has
        ``since <= t < until``, filtered before the cut (a unit without a time is in no window);
        archived units only with ``include_archived`` (likewise before the cut).

        Raises:
            ValueError: a window on an index without times.
        """
        scores = self.scores(terms, dfs, n_units, avg_length, k1, b)
        pool = np.flatnonzero(scores > 0.0)
        if since is not None or until is not None:
            if self.times is None or self.timed is None:
                raise ValueError("this lexical index has no unit times; a windowed top needs them")
            keep = self.timed[pool]
            if since is not None:
                keep &= self.times[pool] >= since
            if until is not None:
                keep &= self.times[pool] < until
            pool = pool[keep]
        if self.archived is not None and not include_archived:
            pool = pool[~self.archived[pool]]
        if k < 1 or not len(pool):
            return []
        if len(pool) > k:
            local = scores[pool]
            pool = pool[local >= np.partition(local, len(local) - k)[len(local) - k]]
        # the units tying with the k-th come too (up to TIE_FACTOR * k in all): which of equals
        # to keep would otherwise follow the node ids, which differ between namespaces
        keep = len(pool) if len(pool) <= TIE_FACTOR * k else k
        order = sorted(pool.tolist(), key=lambda i: (-float(scores[i]), self.ids[i]))[:keep]
        return [str(self.ids[i]) for i in order]


def _add(cols: dict[str, tuple[list[int], list[int]]], pos: int, terms: Mapping[str, int]) -> None:
    """Append the unit at ``pos`` with its term counts ``terms`` to the posting lists ``cols``."""
    for term, count in terms.items():
        col = cols.get(term)
        if col is None:
            cols[term] = col = ([], [])
        col[0].append(pos)
        col[1].append(count)


__all__ = ["Lexical", "LexicalIndex", "TIE_FACTOR", "lexical_entry"]
