"""The term statistics a vector-cache entry keeps beside its vectors: what the round query
would otherwise count in the database, kept at the entry's token.

:class:`TermStatistics` is a base of :class:`graphmem.retrieval.vectors.NamespaceVectors`. The
engine's cached rounds fill in the document frequency of the question terms they see, the unit
count of the speakers they see and the namespace's BM25 statistics ``(N, avgdl)``
(:meth:`TermStatistics.complete`). When the entry is given every unit's
:data:`~graphmem.retrieval.lexical.Lexical` (terms, length, speaker), its lexicon is complete: it
counts all of them itself, updated from the entry it replaces by the units that changed, and
keeps their inverted index (:class:`~graphmem.retrieval.lexical.LexicalIndex`), from which the
engine picks the lexical candidates in process (:meth:`TermStatistics.lexical_top`).

Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from graphmem.retrieval.fusion import B, K1
from graphmem.retrieval.lexical import Lexical, LexicalIndex


class TermStatistics:
    """The term statistics of one cache entry (a base of
    :class:`~graphmem.retrieval.vectors.NamespaceVectors`, which sets :attr:`stamps`, every
    unit's id and stamp, and :attr:`archived`, the archived units' ids, before
    :meth:`_fill_statistics`)."""

    stamps: dict[str, int]
    archived: frozenset[str]

    def _fill_statistics(self, lexicon: dict[str, Lexical] | None,
                         base: TermStatistics | None = None,
                         times: dict[str, int | None] | None = None) -> None:
        """Set the statistics at the entry's token: none known yet, or, when ``lexicon`` covers
        every unit of :attr:`stamps`, all of them counted from it (updated from ``base``, the
        entry this one replaces, when its lexicon is complete) with their inverted index (units'
        ``times``: epoch microseconds or None; None: unknown)."""
        #: What the round query reads of the namespace beside the vectors, kept at this token
        #: (filled by the engine's cached rounds): the document frequency of question terms seen
        #: (a df count of a common term reads every unit that has it), the unit count of the
        #: speakers seen (likewise) and the BM25 statistics ``(N, avgdl)`` (reading them reads
        #: every unit of the namespace).
        self.dfs: dict[str, int] = {}
        self.speakers: dict[str, int] = {}
        self.stats: tuple[int, float] | None = None
        #: Per unit its :data:`Lexical` (terms, length, speaker), when given for every unit.
        self.lexicon: dict[str, Lexical] = {}
        #: True when :attr:`lexicon` covers every unit: then :attr:`dfs` holds the df of every
        #: term of the namespace (absent: 0), :attr:`speakers` every speaker's unit count and
        #: :attr:`stats` the namespace's BM25 statistics, and a round reads none of them.
        self.complete_lexicon = False
        self._lengths = (0, 0)  # count and sum of the non-null lengths (with the lexicon)
        #: The inverted index of :attr:`lexicon` (with a complete lexicon; updated from the base
        #: entry's by the units that changed).
        self.lexical_index: LexicalIndex | None = None
        if lexicon is not None and all(uid in lexicon for uid in self.stamps):
            self._count(lexicon, base)
            self.lexical_index = (
                base.lexical_index.updated(base.lexicon, self.lexicon, times, self.archived)
                if base is not None and base.lexical_index is not None
                else LexicalIndex.build(self.lexicon, times, self.archived))

    def _count(self, lexicon: dict[str, Lexical], base: TermStatistics | None = None) -> None:
        """Fill :attr:`dfs`, :attr:`speakers` and :attr:`stats` from every unit's lexical entry
        (what the round query would count: units per distinct term, units per speaker,
        ``count`` / ``avg`` of the non-null lengths). ``base``: the entry this one updates; when
        its lexicon is complete only the entries that differ (new, re-written or deleted
        units; kept entries are the same objects) are counted in or out."""
        self.lexicon = {uid: lexicon[uid] for uid in self.stamps}
        dfs: Counter[str] = Counter()
        speakers: Counter[str] = Counter()
        n_lengths, length_sum = 0, 0
        if base is not None and base.complete_lexicon:
            dfs.update(base.dfs)
            speakers.update(base.speakers)
            n_lengths, length_sum = base._lengths
            out = [lex for uid, lex in base.lexicon.items() if self.lexicon.get(uid) is not lex]
            into = [lex for uid, lex in self.lexicon.items() if base.lexicon.get(uid) is not lex]
        else:
            out, into = [], list(self.lexicon.values())
        for sign, entries in ((-1, out), (1, into)):
            for terms, length, speaker in entries:
                for term in terms:
                    dfs[term] += sign
                if speaker is not None:
                    speakers[speaker] += sign
                if length is not None:
                    n_lengths += sign
                    length_sum += sign * int(length)
        self.dfs = {t: d for t, d in dfs.items() if d > 0}
        self.speakers = {sp: c for sp, c in speakers.items() if c > 0}
        self._lengths = (n_lengths, length_sum)
        self.stats = (n_lengths, length_sum / n_lengths if n_lengths else 0.0)
        self.complete_lexicon = True

    def df_known(self, term: str) -> bool:
        """Whether the df of ``term`` is held (every term's is, with a complete lexicon)."""
        return self.complete_lexicon or term in self.dfs

    def complete(self, row: dict[str, Any], terms: Sequence[str],
                 present: Iterable[str | None]) -> dict[str, Any]:
        """A cached round's row (read at this token) with what this cache kept filled in, and
        what the row read kept: ``dfs`` of every term of ``terms``, ``speakers`` of every
        speaker of ``present`` (the speakers of the row's units; None skipped), ``n_units`` /
        ``avg_length``. Returns ``row``, changed in place."""
        fresh = {str(t): int(d) for t, d in row.get("dfs") or []}
        self.dfs.update(fresh)
        row["dfs"] = [[t, self.dfs.get(t, 0)] for t in terms if self.df_known(t)]
        self.speakers.update({str(sp): int(c) for sp, c in row.get("speakers") or []})
        row["speakers"] = [[sp, self.speakers[sp]] for sp in dict.fromkeys(present)
                           if sp is not None and sp in self.speakers]
        if self.stats is None:
            self.stats = (int(row.get("n_units") or 0), float(row.get("avg_length") or 0.0))
        return row

    def lexical_top(self, terms: Sequence[str], k: int, since: int | None = None,
                    until: int | None = None, k1: float = K1, b: float = B,
                    include_archived: bool = False) -> list[str] | None:
        """The ids of the namespace's ``k`` best units by its own BM25 for the question
        ``terms`` (analyzed, repeats counted), best first, ties by id, inside the window,
        archived units only with ``include_archived``
        (:meth:`graphmem.retrieval.lexical.LexicalIndex.top`); None when the entry cannot tell
        (no complete lexicon, or a window without unit times): the full-text index picks."""
        index = self.lexical_index
        if index is None or self.stats is None or (
                (since is not None or until is not None) and index.times is None):
            return None
        return index.top(terms, self.dfs, self.stats[0], self.stats[1], k, since, until, k1, b,
                         include_archived)
