"""The engine's in-process vector cache (graphmem.retrieval.vectors): exact top-k with the
database's tie order, unscoreable vectors skipped, incremental updates by stamp, LRU by size."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graphmem.retrieval.vectors import NamespaceVectors, VectorCache, cache_enabled


def _rows():
    return [("a", 11, [1.0, 0.0, 0.0]), ("b", 12, [0.0, 2.0, 0.0]), ("c", 13, [1.0, 1.0, 0.0]),
            ("d", 14, [math.nan, 0.0, 0.0]), ("e", 15, [0.0, 0.0]), ("f", 16, [0.0, 0.0, 0.0]),
            ("g", 17, None)]


def test_top_is_exact_cosine_best_first_with_ties_by_id() -> None:
    vecs = NamespaceVectors(3, _rows(), (2, 41))
    assert vecs.bad == 4 and vecs.ids == ["a", "b", "c"]
    assert vecs.token == (2, 41) and NamespaceVectors(3, []).token == (0, 0)
    ids, sims = vecs.top(np.array([1.0, 1.0, 0.0]), 3)
    assert ids == ["c", "a", "b"]                      # a and b tie at 1/sqrt(2): by id
    assert sims == pytest.approx([1.0, 1 / math.sqrt(2), 1 / math.sqrt(2)], abs=1e-6)
    assert vecs.top(np.array([0.0, 1.0, 0.0]), 1) == (["b"], [pytest.approx(1.0)])
    assert vecs.cosine(np.array([1.0, 0.0, 0.0]), ["b", "d", "zz", "a"]) == \
        [pytest.approx(0.0, abs=1e-7), None, None, pytest.approx(1.0)]


def test_updated_reads_only_new_or_restamped_units_and_drops_deleted_ones() -> None:
    vecs = NamespaceVectors(3, _rows())
    now = {"a": 11, "b": 99, "c": 13, "h": 20}          # b re-embedded, h new, d..g deleted
    assert sorted(vecs.changed(now)) == ["b", "h"]
    fresh = vecs.updated(now, {"b": [0.0, 0.0, 5.0], "h": [0.0, 1.0, 0.0]}, (1, 77))
    assert fresh.token == (1, 77) and fresh.bad == 0 and fresh.stamps == now
    assert fresh.top(np.array([0.0, 0.0, 1.0]), 1)[0] == ["b"]
    assert fresh.top(np.array([0.0, 1.0, 0.0]), 1)[0] == ["h"]


def test_an_updated_copy_equals_the_namespace_read_whole() -> None:
    # kept rows come from the cached matrix, fetched ones are normalised: the same entry as
    # reading every vector again (ids in stamp order, bad vectors counted, rows unit-norm)
    rng = np.random.default_rng(7)
    old = [(f"u{i}", i, rng.normal(size=4).tolist()) for i in range(50)]
    vecs = NamespaceVectors(4, old + [("bad", 1, [math.inf, 0.0, 0.0, 0.0])])
    fetched = {"u3": rng.normal(size=4).tolist(), "new": rng.normal(size=4).tolist(),
               "zero": [0.0] * 4}
    now = {uid: stamp for uid, stamp, _ in old if uid != "u7"}
    now.update({"u3": 99, "new": 100, "zero": 101, "bad": 1})
    fresh = vecs.updated(now, fetched, (2, 5))
    stored = {uid: emb for uid, _, emb in old}
    whole = NamespaceVectors(4, [(uid, stamp, fetched.get(uid, stored.get(uid)))
                                 for uid, stamp in now.items()], (2, 5))
    assert fresh.ids == whole.ids and "u7" not in fresh.ids and fresh.ids[-1] == "new"
    assert fresh.bad == whole.bad == 2                   # the stored inf vector and the zero one
    assert fresh.stamps == whole.stamps == now
    np.testing.assert_allclose(fresh.matrix, whole.matrix, atol=1e-7)
    assert fresh.matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(fresh.matrix, axis=1), 1.0, atol=1e-6)


def test_the_cache_keeps_the_most_recent_namespaces_within_its_size() -> None:
    one = NamespaceVectors(3, _rows())
    cache = VectorCache(max_bytes=2 * one.nbytes + 1)
    for key in ("x", "y", "z"):
        cache.put(key, NamespaceVectors(3, _rows()))
    assert cache.get("x") is None and cache.get("y") is not None and cache.get("z") is not None
    assert [cache.miss("q"), cache.miss("q")] == [1, 2]
    cache.drop("y")
    assert cache.get("y") is None


def test_the_cache_can_be_turned_off(monkeypatch) -> None:
    monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "0")
    assert cache_enabled() is False
    monkeypatch.setenv("GRAPHMEM_VECTOR_CACHE", "1")
    assert cache_enabled() is True


def test_complete_fills_the_kept_statistics_and_keeps_what_a_round_read() -> None:
    vecs = NamespaceVectors(3, _rows())
    first = {"dfs": [["dog", 4], ["park", 2]], "speakers": [["Ann", 9], ["Ben", 3]],
             "n_units": 40, "avg_length": 6.5}
    vecs.complete(first, ["dog", "park"], ["Ann", None, "Ben", "Ann"])
    assert first["speakers"] == [["Ann", 9], ["Ben", 3]]
    assert vecs.stats == (40, 6.5) and vecs.dfs == {"dog": 4, "park": 2}
    # a later round at the same token reads only the new term and speaker
    later = {"dfs": [["walk", 7]], "speakers": [["Cy", 1]], "n_units": 40, "avg_length": 6.5}
    vecs.complete(later, ["park", "walk", "dog"], ["Cy", "Ann"])
    assert later["dfs"] == [["park", 2], ["walk", 7], ["dog", 4]]
    assert later["speakers"] == [["Cy", 1], ["Ann", 9]]
    # a new token (an updated copy) starts with nothing kept
    fresh = vecs.updated({"a": 11}, {})
    assert fresh.dfs == {} and fresh.speakers == {} and fresh.stats is None


def test_a_complete_lexicon_gives_every_df_speaker_count_and_the_bm25_statistics() -> None:
    from graphmem.retrieval.vectors import lexical_entry

    rows = [("a", 1, [1.0, 0.0, 0.0]), ("b", 2, [0.0, 1.0, 0.0]), ("c", 3, [0.0, 0.0, 1.0])]
    lexicon = {"a": lexical_entry("ann pottery ann", 3, "Ann"), "b": lexical_entry("ann news", 2, "Ann"),
               "c": lexical_entry(None, None, None)}
    vecs = NamespaceVectors(3, rows, (1, 5), lexicon)
    assert vecs.complete_lexicon
    assert vecs.dfs == {"ann": 2, "pottery": 1, "news": 1}       # units per distinct term
    assert vecs.speakers == {"Ann": 2} and vecs.stats == (2, 2.5)
    assert vecs.df_known("kiln")                                  # absent from every unit: 0
    row = vecs.complete({"dfs": [], "speakers": []}, ["ann", "kiln"], ["Ann", None])
    assert row["dfs"] == [["ann", 2], ["kiln", 0]] and row["speakers"] == [["Ann", 2]]
    # a re-embedded unit brings its own entry; kept units keep theirs; a deleted one leaves
    fresh = vecs.updated({"a": 1, "b": 9}, {"b": [0.0, 1.0, 0.0]}, (1, 6),
                         {"b": lexical_entry("news kiln", 2, "Ben")})
    assert fresh.dfs == {"ann": 1, "pottery": 1, "news": 1, "kiln": 1}
    assert fresh.speakers == {"Ann": 1, "Ben": 1} and fresh.stats == (2, 2.5)
    # without an entry for every unit (or when some unit has no stamp) nothing is assumed
    partial = NamespaceVectors(3, rows, (1, 5), {"a": lexicon["a"]})
    assert not partial.complete_lexicon and not partial.df_known("ann") and partial.stats is None
    assert not vecs.updated({"a": 1}, {}, (1, 7), {}, every_unit=False).complete_lexicon


def test_updated_counts_equal_a_recount_of_the_whole_namespace() -> None:
    # the df, speaker counts and BM25 statistics of an updated entry are counted incrementally
    # (entries of new, re-written and deleted units in or out): they equal a full recount
    from graphmem.retrieval.vectors import lexical_entry

    rng = np.random.default_rng(11)
    words = [f"w{i}" for i in range(30)]

    def entry():
        terms = " ".join(rng.choice(words, size=int(rng.integers(1, 6))))
        return lexical_entry(terms, int(rng.integers(1, 9)), str(rng.choice(["Ann", "Ben", "Cy"])))

    lexicon = {f"u{i}": entry() for i in range(200)}
    vecs = NamespaceVectors(2, [(uid, 1, [1.0, 0.5]) for uid in lexicon], (1, 1), lexicon)
    for step in range(5):
        stamps = {uid: s for uid, s in vecs.stamps.items() if rng.random() > 0.05}
        rewritten = {uid for uid in stamps if rng.random() < 0.1}
        stamps.update({uid: 10 + step for uid in rewritten})
        stamps.update({f"n{step}-{i}": 10 + step for i in range(20)})
        changed = vecs.changed(stamps)
        fetched = {uid: entry() for uid in changed}
        vecs = vecs.updated(stamps, {uid: [0.5, 1.0] for uid in changed}, (1, 2 + step), fetched)
        whole = NamespaceVectors(2, [(uid, s, [0.5, 1.0]) for uid, s in stamps.items()], (1, 2),
                                 vecs.lexicon)
        assert vecs.complete_lexicon and set(vecs.lexicon) == set(stamps)
        assert vecs.dfs == whole.dfs and vecs.speakers == whole.speakers
        assert vecs.stats == whole.stats


def _passage_rows():
    # a: window only; b: window [0, 1, 0] and two passages; c: a bad passage list (NaN): its
    # passages are ignored, it scores by its window; d: passages of another width: ignored
    return [("a", 1, [1.0, 0.0, 0.0]),
            ("b", 2, [0.0, 1.0, 0.0], [0.0, 0.0, 3.0, 1.0, 0.0, 1.0]),
            ("c", 3, [0.0, 1.0, 1.0], [math.nan, 0.0, 0.0]),
            ("d", 4, [1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]),
            ("e", 5, None, [0.0, 0.0, 1.0])]


def test_a_units_dense_score_is_its_best_window_or_passage_cosine() -> None:
    vecs = NamespaceVectors(3, _passage_rows())
    assert vecs.ids == ["a", "b", "c", "d"] and vecs.bad == 1
    assert vecs.passages.matrix.shape == (2, 3) and vecs.passages.offsets.tolist() == [0, 0, 2, 2, 2]
    # along z only b's first passage points: b is first although its window is orthogonal
    ids, sims = vecs.top(np.array([0.0, 0.0, 1.0]), 4)
    assert ids == ["b", "c", "a", "d"]
    assert sims == pytest.approx([1.0, 1 / math.sqrt(2), 0.0, 0.0], abs=1e-6)
    # along x: a's window (1.0) beats b's second passage (1/sqrt(2)) and d's window
    ids, sims = vecs.top(np.array([1.0, 0.0, 0.0]), 3)
    assert ids == ["a", "b", "d"]                       # b and d tie at 1/sqrt(2): by id
    assert sims == pytest.approx([1.0, 1 / math.sqrt(2), 1 / math.sqrt(2)], abs=1e-6)
    # which vector gave it: a passage index, -1 for the window (which wins ties)
    query = np.array([1.0, 0.0, 1.0])
    best = vecs.best(query, ["a", "b", "c", "d", "e", "zz"])
    assert best[0] == (pytest.approx(1 / math.sqrt(2)), -1)
    assert best[1] == (pytest.approx(1.0), 1)            # b's second passage is the query
    assert best[2] == (pytest.approx(0.5), -1) and best[3] == (pytest.approx(0.5), -1)
    assert best[4] is None and best[5] is None
    assert vecs.cosine(query, ["b", "zz"]) == [pytest.approx(best[1][0]), None]
    assert vecs.best(np.array([0.0, 1.0, 0.0]), ["b"]) == [(pytest.approx(1.0), -1)]
    assert vecs.best(np.array([0.0, 0.0, 1.0]), ["b"]) == [(pytest.approx(1.0), 0)]
    # the max over passages is the per-unit max of every vector, at scale (segment max)
    rng = np.random.default_rng(3)
    rows, full = [], {}
    for i in range(300):
        n = int(rng.integers(0, 4))
        window, passages = rng.normal(size=8), rng.normal(size=(n, 8))
        rows.append((f"u{i:03d}", i, window.tolist(), passages.ravel().tolist() if n else None))
        full[f"u{i:03d}"] = np.vstack([window, passages])
    many = NamespaceVectors(8, rows)
    q = rng.normal(size=8)
    expected = {uid: max(float(v @ q) / np.linalg.norm(v) / np.linalg.norm(q) for v in m)
                for uid, m in full.items()}
    ids, sims = many.top(q, 300)
    assert sims == pytest.approx([expected[uid] for uid in ids], abs=1e-5)
    assert sorted(ids) == sorted(expected) and sims == sorted(sims, reverse=True)


def test_an_updated_copy_keeps_the_passages_of_kept_units_and_takes_the_fetched_ones() -> None:
    vecs = NamespaceVectors(3, _passage_rows())
    now = {"a": 1, "b": 2, "c": 30, "f": 6}          # c re-embedded, f new, d and e deleted
    fresh = vecs.updated(now, {"c": [0.0, 1.0, 0.0], "f": [1.0, 0.0, 0.0]}, (1, 2),
                         passages={"c": [0.0, 0.0, 2.0], "f": None})
    whole = NamespaceVectors(3, [("a", 1, [1.0, 0.0, 0.0]),
                                 ("b", 2, [0.0, 1.0, 0.0], [0.0, 0.0, 3.0, 1.0, 0.0, 1.0]),
                                 ("c", 30, [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]),
                                 ("f", 6, [1.0, 0.0, 0.0])])
    assert fresh.ids == whole.ids == ["a", "b", "c", "f"]
    assert fresh.passages.offsets.tolist() == whole.passages.offsets.tolist() == [0, 0, 2, 3, 3]
    np.testing.assert_allclose(fresh.passages.matrix, whole.passages.matrix, atol=1e-7)
    query = np.array([0.2, 0.1, 1.0])
    assert fresh.top(query, 4) == whole.top(query, 4)
    assert fresh.best(query, ["b", "c"]) == whole.best(query, ["b", "c"])
    assert fresh.nbytes > NamespaceVectors(3, [r[:3] for r in _passage_rows()]).nbytes - 100
