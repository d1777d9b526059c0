"""The in-process vector cache of the retrieval engine: the unit vectors of small namespaces kept
in memory, so a round scores its dense side with numpy instead of reading every stored vector.

Reading a namespace's vectors is what an exact in-namespace scan costs (Neo4j loads each 384-float
array property; on the bench, 8-10 ms of a 15 ms round for a 419-unit tenant), and the engine
needs the cosine of every unit of its candidate set S. :class:`HybridSearch` therefore keeps, per
``(label, namespace, width)``, the ids, per-unit ``vector_stamp`` s and unit-normalised vectors of
a namespace of at most :data:`CACHE_UNITS` units (:class:`NamespaceVectors`), in a size-bounded
LRU per query runner (:class:`graphmem.retrieval.vector_cache.VectorCache`). A namespace is
loaded on its second recall in the process; up to :data:`INLINE_READ` vectors are read within
that recall, a larger load runs in a background thread while recalls keep using the database.

**Freshness.** Every graphmem write of a unit vector sets a new random ``vector_stamp`` on the unit
and, in the same transaction, raises the *unit version* of the namespace: the ``unit_version`` of
the write lock of the unit's conversation (``ConversationLock`` for an Event, ``Timeline`` for an
Episode; the lock every batch of a conversation takes first, so raising it adds no contention;
random on creation, so a namespace deleted and written again does not repeat a version). Each
round query returns the namespace's token -- ``(lock count, unit_version sum)``, a read of its few
lock nodes whatever its number of units -- in the same transaction as the lexical candidates, and
an entry keeps the token read in the same transaction as its stamps (:attr:`NamespaceVectors.token`).
A round whose token differs from the cached one is not used: the engine reads the stamps, fetches
the vectors of the new or re-stamped units only, drops deleted ones, and runs the round again (or
uses the database for this round when writers keep changing the namespace, or when more than
:data:`INLINE_READ` vectors changed, which the background loader then reads). So a recall sees
exactly the committed vectors its transaction sees. A vector written *around* graphmem (plain
Cypher that raises no unit version) is seen after the next graphmem write to the namespace or a
restart; ``graphmem doctor --repair`` raises the version of what it re-embeds, and
``GRAPHMEM_VECTOR_CACHE=0`` turns the cache off.

**Passages.** A long message's unit also stores the vectors of its passages
(:mod:`graphmem.retrieval.passages`); an entry keeps them in a second matrix grouped by unit
(:class:`graphmem.retrieval.passage_vectors.PassageVectors`) and a unit's dense score is the best
cosine of its window vector and its passages' vectors (:meth:`NamespaceVectors.top`,
:meth:`NamespaceVectors.best`), as the database scan scores it.

**Time windows.** With the stamps the engine reads each unit's time (``occurred_at`` as epoch
microseconds of its UTC instant, ``retrieval/unit_stamps``), so a recall with ``since`` /
``until`` takes its dense candidates from the units inside the window, cut to the top k after
the window filter (:meth:`NamespaceVectors.top`), as the database scan does. Likewise whether
each unit is archived (retention, :mod:`graphmem.agent.retention`): an archived unit stays in
the entry and in its statistics, and is masked out of both top-k lists unless a recall asks
for archived units. Archiving raises the unit version, so the entry is re-read at once.

**Term statistics.** With each vector the engine reads the unit's ``lexical_terms``,
``lexical_length`` and ``speaker`` (written in the transaction that stamps the vector), so an
entry that has every unit holds what the round query would otherwise count in the database: the
df of every term, the unit count of every speaker and the BM25 statistics ``(N, avgdl)``, and
an inverted index of the units (:class:`graphmem.retrieval.lexical.LexicalIndex`) from which the
engine picks the lexical candidates itself (:meth:`NamespaceVectors.lexical_top`); they are kept
by :class:`graphmem.retrieval.term_statistics.TermStatistics`, a base of the entry.

Pure: no I/O (the engine reads; this module keeps and scores).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import numpy as np

from graphmem.retrieval.lexical import Lexical, LexicalIndex, lexical_entry  # noqa: F401 (re-export)
from graphmem.retrieval.passage_vectors import PassageVectors, unit_passages
from graphmem.retrieval.term_statistics import TermStatistics
from graphmem.retrieval.vector_cache import CACHE_BYTES, VectorCache  # noqa: F401 (re-export)

logger = logging.getLogger(__name__)

#: Namespace misses before its vectors are loaded: a one-shot process (a CLI call) recalls once
#: and never pays the load; a server, shell or agent loads on its second recall.
LOAD_AFTER_MISSES = 2
#: Largest namespace (units) the cache holds: 20,000 units of 384 floats are 31 MB; scoring them
#: with numpy takes about a millisecond, where the database's exact scan of a namespace this large
#: takes hundreds and the vector index, post-filtered by namespace, may starve.
CACHE_UNITS = 20_000
#: Vectors read within a recall when the cache is (re)loaded; a larger read runs in the
#: background loader while recalls use the database, so no recall waits for a big load.
INLINE_READ = 2_000

#: ``(write locks, sum of their unit_version)`` of a namespace (see Freshness above).
Token = tuple[int, int]
def cache_enabled() -> bool:
    """False when ``GRAPHMEM_VECTOR_CACHE`` is ``0`` / ``false`` / ``no`` / ``off``."""
    return os.environ.get("GRAPHMEM_VECTOR_CACHE", "1").strip().lower() not in {"0", "false", "no", "off"}


class NamespaceVectors(TermStatistics):
    """The unit vectors of one namespace and label, with their term statistics
    (:class:`~graphmem.retrieval.term_statistics.TermStatistics`).

    Args:
        width: the vector width the cache is for (the query vectors' width).
        rows: ``(id, stamp, embedding | None)`` or ``(id, stamp, embedding | None,
            passage_embeddings | None)`` per unit; an embedding that cosine cannot score
            (another width, NaN or infinity, all zeros, missing) is kept as unscoreable;
            ``passage_embeddings`` is the unit's flat passages × ``width`` floats
            (:func:`~graphmem.retrieval.passage_vectors.unit_passages`: unusable ones are
            ignored, the unit then scored by its window vector alone).
        token: the namespace's unit version read with the stamps (``(0, 0)``: none yet).
        lexicon: per unit id its :data:`Lexical`; when it covers every unit of ``rows`` the
            entry holds every term's df, every speaker's unit count and the BM25 statistics
            (:attr:`complete_lexicon`).
        times: per unit id its time in epoch microseconds (UTC instant; None: unset), for
            every unit of ``rows``; None: unknown (a windowed :meth:`top` then refuses).
        archived: the ids of the archived units (None: none).

    Attributes:
        token: the :data:`Token` the entry is valid at.
        bad: units whose stored vector cannot be scored.
    """

    def __init__(self, width: int, rows: Iterable[tuple[Any, ...]],
                 token: Token = (0, 0), lexicon: dict[str, Lexical] | None = None,
                 times: dict[str, int | None] | None = None,
                 archived: Collection[str] | None = None):
        self.width = width
        self.stamps: dict[str, int] = {}
        good_ids: list[str] = []
        good: list[np.ndarray] = []
        groups: list[np.ndarray | None] = []
        self.bad = 0
        for uid, stamp, emb, *more in rows:
            self.stamps[uid] = int(stamp or 0)
            vec = _unit(emb, width)
            if vec is None:
                self.bad += 1
                continue
            good_ids.append(uid)
            good.append(vec)
            groups.append(unit_passages(more[0], width) if more else None)
        matrix = np.vstack(good).astype(np.float32) if good else np.zeros((0, width), np.float32)
        self._fill(good_ids, matrix, token, lexicon, times=times,
                   passages=PassageVectors(width, groups), archived=archived)

    def _fill(self, ids: list[str], matrix: np.ndarray, token: Token,
              lexicon: dict[str, Lexical] | None, base: NamespaceVectors | None = None,
              times: dict[str, int | None] | None = None,
              passages: PassageVectors | None = None,
              archived: Collection[str] | None = None) -> None:
        """Set the scored units ``ids`` with their unit rows ``matrix`` ``(len(ids), width)
        float32`` and their ``passages`` (None: none), the token, the units' times, the archived
        units and the lexical statistics (:attr:`stamps` and :attr:`bad` set)."""
        self.ids = ids
        self.index = {uid: i for i, uid in enumerate(ids)}
        self.matrix = matrix
        #: The scored units' passage vectors (grouped in the order of :attr:`ids`).
        self.passages = (passages if passages is not None
                         else PassageVectors(self.width, [None] * len(ids)))
        #: Per scored unit (aligned with :attr:`ids`) its time in epoch microseconds and whether
        #: it has one; None when the times are unknown.
        self.times: np.ndarray | None = None
        self.timed: np.ndarray | None = None
        if times is not None:
            found = [times.get(uid) for uid in ids]
            self.timed = np.asarray([t is not None for t in found], dtype=bool)
            self.times = np.asarray([0 if t is None else int(t) for t in found], dtype=np.int64)
        #: The ids of the archived units, and per scored unit whether it is not archived (None:
        #: no unit is archived, nothing to mask).
        self.archived: frozenset[str] = frozenset(archived or ())
        self.live: np.ndarray | None = (
            np.asarray([uid not in self.archived for uid in ids], dtype=bool)
            if self.archived else None)
        self.token: Token = (int(token[0]), int(token[1]))
        self._fill_statistics(lexicon, base, times)

    @property
    def nbytes(self) -> int:
        return (int(self.matrix.nbytes) + self.passages.nbytes + 100 * len(self.stamps)
                + 9 * len(self.ids)
                + 60 * sum(len(terms) for terms, _, _ in self.lexicon.values())
                + (0 if self.lexical_index is None else self.lexical_index.nbytes))

    def updated(self, stamps: dict[str, int], vectors: dict[str, Sequence[float] | None],
                token: Token = (0, 0), lexicon: dict[str, Lexical] | None = None,
                every_unit: bool = True,
                times: dict[str, int | None] | None = None,
                passages: dict[str, Sequence[float] | None] | None = None,
                archived: Collection[str] | None = None) -> NamespaceVectors:
        """A copy for the namespace's current ``stamps`` (id -> stamp, every unit) read at
        ``token``, taking the vectors (and ``lexicon`` entries, and ``passages``: flat passage
        vectors) of new or re-stamped units from ``vectors`` (and ``lexicon``, ``passages``;
        absent: none) and the rest from this cache. ``every_unit``: the stamps
        list every unit of the namespace (else the lexicon cannot be complete). ``times``: every
        unit's time (epoch microseconds or None), read with the stamps; None: unknown.
        ``archived``: the ids of the archived units, read with the stamps (None: none)."""
        merged = None
        if lexicon is not None and every_unit:
            merged = {uid: lexicon[uid] if uid in lexicon else self.lexicon.get(uid)
                      for uid in stamps}
            merged = {uid: lex for uid, lex in merged.items() if lex is not None}
        # kept units take their row of this cache's (already unit-norm) matrix in one gather;
        # only new or re-stamped vectors are normalised: linear in the namespace with a numpy
        # constant, not a Python-level normalisation per kept unit
        ids: list[str] = []
        source: list[int] = []  # >= 0: row of self.matrix; < 0: -1 - index into fresh
        fresh: list[np.ndarray] = []
        groups: list[np.ndarray | None] = []
        bad = 0
        for uid in stamps:
            if uid in vectors:
                vec = _unit(vectors[uid], self.width)
                if vec is None:
                    bad += 1
                    continue
                source.append(-1 - len(fresh))
                fresh.append(vec)
                groups.append(unit_passages((passages or {}).get(uid), self.width))
            elif uid in self.index:
                source.append(self.index[uid])
                groups.append(self.passages.group(self.index[uid]))
            else:
                bad += 1
                continue
            ids.append(uid)
        where = np.asarray(source, dtype=np.int64)
        matrix = np.empty((len(ids), self.width), dtype=np.float32)
        kept = where >= 0
        matrix[kept] = self.matrix[where[kept]]
        if fresh:
            matrix[~kept] = np.vstack(fresh)[-1 - where[~kept]]
        out = NamespaceVectors.__new__(NamespaceVectors)
        out.width = self.width
        out.stamps = {uid: int(stamp or 0) for uid, stamp in stamps.items()}
        out.bad = bad
        out._fill(ids, matrix, token, merged, base=self, times=times,
                  passages=PassageVectors(self.width, groups), archived=archived)
        return out

    def changed(self, stamps: dict[str, int]) -> list[str]:
        """The ids of ``stamps`` (the namespace now) that are new or re-stamped."""
        return [uid for uid, stamp in stamps.items() if self.stamps.get(uid) != stamp]

    @property
    def has_times(self) -> bool:
        """Whether the entry knows its units' times (a windowed :meth:`top` needs them)."""
        return self.times is not None

    def top(self, query: np.ndarray, k: int, since: int | None = None,
            until: int | None = None,
            include_archived: bool = False) -> tuple[list[str], list[float]]:
        """The ``k`` units most similar to ``query`` ``(width,)``: ids and dense scores in
        [-1, 1] (a unit's best cosine of its window vector and its passages' vectors), best
        first, ties by id (as the database scan orders them). ``since`` / ``until`` (epoch
        microseconds, None: open): only units whose time ``t`` has ``since <= t < until`` are
        candidates, filtered before the top-k cut (a unit without a time is in no window);
        archived units only with ``include_archived`` (likewise before the cut).

        Raises:
            ValueError: a window on an entry without times (:attr:`has_times`).
        """
        if not self.ids:
            return [], []
        # einsum's own loop, not BLAS: OpenBLAS's threads made this product 5-30x slower on a
        # busy two-core host (0.3 ms against 1.3-7.7 ms for 3,152 x 384)
        q = _unit(query, self.width)
        sims = self.passages.raise_to_best(np.einsum("ij,j->i", self.matrix, q), q)
        mask = None if include_archived or self.live is None else self.live.copy()
        if since is not None or until is not None:
            if self.times is None or self.timed is None:
                raise ValueError("this vector-cache entry has no unit times; a windowed top "
                                 "needs them")
            mask = self.timed.copy() if mask is None else mask & self.timed
            if since is not None:
                mask &= self.times >= since
            if until is not None:
                mask &= self.times < until
        pool = np.arange(len(self.ids)) if mask is None else np.flatnonzero(mask)
        if not len(pool):
            return [], []
        k = min(k, len(pool))
        local = sims[pool]
        part = pool[np.argpartition(-local, k - 1)[:k]] if k < len(pool) else pool
        order = sorted(part.tolist(), key=lambda i: (-float(sims[i]), self.ids[i]))
        return [self.ids[i] for i in order], [float(sims[i]) for i in order]

    def cosine(self, query: np.ndarray, ids: Sequence[str]) -> list[float | None]:
        """The dense score of each of ``ids`` to ``query`` (the best cosine of its window and
        passage vectors; None: not cached or not scoreable)."""
        return [None if best is None else best[0] for best in self.best(query, ids)]

    def best(self, query: np.ndarray, ids: Sequence[str]) -> list[tuple[float, int] | None]:
        """Per unit of ``ids`` its dense score against ``query`` ``(width,)`` and what gave it:
        ``(cosine, passage index)``, the index ``-1`` for the window vector (which wins ties);
        None: not cached or not scoreable."""
        q = _unit(query, self.width)
        out: list[tuple[float, int] | None] = []
        for uid in ids:
            i = self.index.get(uid)
            out.append(None if i is None else self.passages.best(i, float(self.matrix[i] @ q), q))
        return out


def _unit(vector: Any, width: int) -> np.ndarray | None:
    """``vector`` as a unit-norm float32 ``(width,)`` array, None when cosine cannot score it."""
    if vector is None:
        return None
    arr = np.asarray(vector, dtype=np.float64)
    if arr.shape != (width,) or not np.isfinite(arr).all():
        return None
    norm = float(np.linalg.norm(arr))
    if norm == 0.0:
        return None
    return (arr / norm).astype(np.float32)


def vector_cache_of(runner: Any) -> VectorCache | None:
    """The :class:`VectorCache` of ``runner`` (a :class:`~graphmem.graph.runner.QueryRunner`:
    one per runner, made on first use; a runner without ``shared``: its ``vector_cache``
    attribute, else None, meaning no cache)."""
    shared = getattr(runner, "shared", None)
    if shared is None:
        return getattr(runner, "vector_cache", None)
    return shared("vector_cache", VectorCache)
