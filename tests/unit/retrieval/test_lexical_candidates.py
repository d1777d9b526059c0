"""The lexical candidates the vector cache picks in process (graphmem.retrieval.lexical): the
namespace's exact BM25 top-k (the score fusion.bm25 gives, ties by id, the units tying with the
k-th kept up to TIE_FACTOR * k), inside the time window,
the same after incremental updates as from a fresh build."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.retrieval import fusion
from graphmem.retrieval.lexical import TIE_FACTOR, LexicalIndex, lexical_entry
from graphmem.retrieval.vectors import NamespaceVectors

VOCAB = ["ann", "kiln", "pottery", "lisbon", "boat", "faro", "news"]
#: A unit: its terms (repeats allowed), its lexical_length (None: unset) and its time (None: unset).
UNIT = st.tuples(st.lists(st.sampled_from(VOCAB), max_size=6),
                 st.one_of(st.none(), st.integers(0, 9)), st.one_of(st.none(), st.integers(0, 20)))
QUESTION = st.lists(st.sampled_from(VOCAB + ["absent"]), min_size=1, max_size=5)
BOUND = st.one_of(st.none(), st.integers(0, 21))


def _entry(units: dict[str, tuple[list[str], int | None, int | None]]) -> NamespaceVectors:
    lexicon = {uid: lexical_entry(" ".join(terms), length, "Ann") for uid, (terms, length, _) in
               units.items()}
    times = {uid: t for uid, (_, _, t) in units.items()}
    return NamespaceVectors(2, [(uid, 1, [1.0, 0.5]) for uid in units], (1, 1), lexicon, times)


def _brute(units: dict[str, tuple[list[str], int | None, int | None]], question: list[str],
           k: int, since: int | None = None, until: int | None = None) -> list[str]:
    """Every unit scored by fusion.bm25 with the namespace's recounted statistics, ranked."""
    df = {t: sum(t in terms for terms, _, _ in units.values()) for t in VOCAB}
    lengths = [length for _, length, _ in units.values() if length is not None]
    n, avg = len(lengths), (sum(lengths) / len(lengths) if lengths else 0.0)
    scored = []
    for uid, (terms, _, t) in units.items():
        if (since is not None or until is not None) and t is None:
            continue
        if (since is not None and t < since) or (until is not None and t >= until):
            continue
        score = fusion.bm25(question, terms, df, n, avg)
        if score > 0:
            scored.append((-score, uid))
    ranked = sorted(scored)
    if len(ranked) > k:   # the units scoring at least the k-th's, unless they are too many
        at_least = [uid for score, uid in ranked if score <= ranked[k - 1][0]]
        ranked = ranked[:len(at_least) if len(at_least) <= TIE_FACTOR * k else k]
    return [uid for _, uid in ranked]


@settings(max_examples=300, deadline=None)
@given(st.lists(UNIT, max_size=40), st.randoms(use_true_random=False), QUESTION,
       st.integers(1, 12), BOUND, BOUND)
def test_top_is_the_brute_force_bm25_ranking_with_ties_by_id_inside_the_window(
        rows, rng, question, k, since, until) -> None:
    ids = [f"u{i:02d}" for i in range(len(rows))]
    rng.shuffle(ids)                       # insertion order is not id order
    units = dict(zip(ids, rows, strict=True))
    entry = _entry(units)
    assert entry.complete_lexicon
    assert entry.lexical_top(question, k) == _brute(units, question, k)
    assert entry.lexical_top(question, k, since, until) == _brute(units, question, k, since, until)


def test_scores_are_bit_for_bit_fusion_bm25_and_ties_go_by_id() -> None:
    units = {"c": (["ann", "kiln", "kiln"], 3, 5), "a": (["ann", "news"], 2, 1),
             "b": (["ann", "news"], 2, 9), "d": (["boat"], 1, None), "e": ([], None, 3)}
    entry = _entry(units)
    index = entry.lexical_index
    assert index is not None and entry.stats == (4, 2.0)
    question = ["ann", "kiln", "ann"]
    scores = index.scores(question, entry.dfs, 4, 2.0)
    for uid, (terms, _, _) in units.items():
        assert scores[index.position[uid]] == fusion.bm25(question, terms, entry.dfs, 4, 2.0)
    assert entry.lexical_top(question, 5) == ["c", "a", "b"]           # a and b tie: by id
    assert entry.lexical_top(question, 2) == ["c", "a", "b"]           # b ties with the 2nd
    assert entry.lexical_top(question, 1) == ["c"]
    assert entry.lexical_top(question, 5, since=2) == ["c", "b"]       # a (t=1) is before
    assert entry.lexical_top(question, 5, until=5) == ["a"]            # c (t=5) is not before 5
    assert entry.lexical_top(["boat"], 5, since=0) == []               # d has no time
    assert entry.lexical_top(["boat"], 5) == ["d"]
    assert entry.lexical_top(["absent"], 5) == []
    # more ties than TIE_FACTOR * k: the first k by id
    many = _entry({f"t{i}": (["ann"], 1, 0) for i in range(7)})
    assert many.lexical_top(["ann"], 3) == ["t0", "t1", "t2"]
    assert many.lexical_top(["ann"], 4) == [f"t{i}" for i in range(7)]


def test_without_every_unit_or_without_times_the_full_text_index_picks() -> None:
    rows = [("a", 1, [1.0, 0.0]), ("b", 2, [0.0, 1.0])]
    partial = NamespaceVectors(2, rows, (1, 1), {"a": lexical_entry("ann", 1, None)})
    assert partial.lexical_index is None and partial.lexical_top(["ann"], 5) is None
    untimed = NamespaceVectors(2, rows, (1, 1), {"a": lexical_entry("ann", 1, None),
                                                 "b": lexical_entry("ann kiln", 2, None)})
    assert untimed.lexical_top(["kiln", "ann"], 5) == ["b", "a"]
    assert untimed.lexical_top(["ann"], 5, since=0) is None            # a window needs times
    with pytest.raises(ValueError, match="no unit times"):
        untimed.lexical_index.top(["ann"], untimed.dfs, 2, 1.5, 5, since=0)
    # the index counts in the entry's size
    bare = NamespaceVectors(2, rows, (1, 1))
    assert untimed.nbytes > bare.nbytes + untimed.lexical_index.nbytes - 1


def _postings(index: LexicalIndex) -> dict[str, set[tuple[str, int]]]:
    return {t: {(index.ids[p], int(c)) for p, c in zip(*p_c, strict=True)}
            for t, p_c in index.postings.items()}


@settings(max_examples=60, deadline=None)
@given(st.lists(UNIT, min_size=1, max_size=30),
       st.lists(st.tuples(st.lists(st.integers(0, 3), min_size=30, max_size=30),
                          st.lists(UNIT, max_size=8)), min_size=1, max_size=4),
       QUESTION, BOUND)
def test_an_updated_index_equals_a_fresh_build(rows, steps, question, since) -> None:
    # each step deletes (0), keeps (1, 2) or re-writes (3) the units and adds new ones; the
    # index updated from the previous entry's equals one built from scratch
    units = {f"u{i:02d}": row for i, row in enumerate(rows)}
    entry, peak = _entry(units), len(units)
    for n, (fates, new) in enumerate(steps):
        kept = {}
        for (uid, row), fate in zip(units.items(), fates):
            if fate == 3:
                kept[uid] = (row[0][::-1] + ["news"], row[1], row[2])
            elif fate:
                kept[uid] = row
        kept.update({f"n{n}-{i}": row for i, row in enumerate(new)})
        changed = {uid for uid in kept if uid not in units or kept[uid] is not units[uid]}
        lexicon = {uid: lexical_entry(" ".join(kept[uid][0]), kept[uid][1], "Ann") for uid in changed}
        entry = entry.updated({uid: 1 + n if uid in changed else 1 for uid in kept},
                              {uid: [1.0, 0.5] for uid in changed}, (1, 2 + n), lexicon,
                              times={uid: t for uid, (_, _, t) in kept.items()})
        units = kept
        fresh = _entry(units)
        if not units:
            assert entry.lexical_top(question, 5) == []
            continue
        assert entry.lexical_index is not None and fresh.lexical_index is not None
        assert _postings(entry.lexical_index) == _postings(fresh.lexical_index)
        assert entry.lexical_top(question, 7, since) == _brute(units, question, 7, since)
        live = [i for i, uid in enumerate(entry.lexical_index.ids) if uid is not None]
        assert {entry.lexical_index.ids[i]: entry.lexical_index.lengths[i] for i in live} == \
            {uid: float(len(terms)) for uid, (terms, _, _) in units.items()}
        # deleted units' positions are reused: no more positions than the most units ever held
        peak = max(peak, len(units))
        assert len(entry.lexical_index.ids) <= peak
        freed = [i for i, uid in enumerate(entry.lexical_index.ids) if uid is None]
        assert not np.any(entry.lexical_index.lengths[freed])
