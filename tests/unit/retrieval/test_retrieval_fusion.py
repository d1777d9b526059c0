"""The fusion rule on hand-computed examples, and the engine's ranking of query rows."""

from __future__ import annotations

import math

import pytest

from graphmem.retrieval import fusion
from graphmem.retrieval.engine import HybridSearch
from graphmem.retrieval.text import analyze


def test_bm25_matches_the_hand_computed_lucene_formula() -> None:
    got = fusion.bm25(["pottery", "class"], ["caroline", "pottery", "class", "pottery"],
                      {"pottery": 2, "class": 1}, n=10, avg_length=4.0)
    # |d| = avgdl -> norm = k1 = 1.5; tf(pottery) = 2, tf(class) = 1
    expected = math.log(4.4) * 2 * 2.5 / (2 + 1.5) + math.log(1 + 9.5 / 1.5) * 1 * 2.5 / (1 + 1.5)
    assert got == pytest.approx(expected)
    assert fusion.bm25(["x"], ["y"], {}, 10, 4.0) == 0.0
    assert fusion.bm25(["x"], [], {"x": 1}, 10, 4.0) == 0.0


def test_minmax_ignores_missing_and_flat_values() -> None:
    assert fusion.minmax([1.0, None, 3.0]) == [0.0, 0.0, 1.0]
    assert fusion.minmax([2.0, 2.0]) == [0.0, 0.0]
    assert fusion.minmax([None]) == [0.0]


def test_fuse_hand_computed_example() -> None:
    units = [
        fusion.UnitScore("a", lexical=4.0, dense=0.5, is_cue=False, next_id="b"),
        fusion.UnitScore("b", lexical=0.0, dense=0.9, is_cue=True, prev_id="a", next_id="c"),
        fusion.UnitScore("c", lexical=2.0, dense=0.1, is_cue=False, prev_id="b"),
        fusion.UnitScore("d", lexical=1.0, dense=None),
    ]
    out = fusion.fuse(units, fusion.FusionParams(alpha=0.4, beta=0.6))
    # l^ = 1, 0, .5, .25; d^ = .5, 1, 0, 0 -> f = .7, .6, .2, .1; median .4;
    # b is a cue with excess .2 -> a and c get .6 * .2 = .12
    got = {f.id: f for f in out}
    assert [f.id for f in out] == ["a", "b", "c", "d"]
    assert got["a"].fused == pytest.approx(0.7) and got["a"].final == pytest.approx(0.82)
    assert got["b"].final == pytest.approx(0.6) and got["b"].neighbour == 0.0
    assert got["c"].fused == pytest.approx(0.2) and got["c"].final == pytest.approx(0.32)
    assert got["c"].neighbour_from == "b"
    assert got["d"].final == pytest.approx(0.1) and got["d"].dense_norm == 0.0
    assert "dense" not in {k for k, v in got["d"].components.items() if not math.isnan(v)}
    assert fusion.fuse([]) == []


def test_default_parameters_are_the_documented_ones() -> None:
    p = fusion.FusionParams()
    assert (p.alpha, p.beta, p.k1, p.b) == (0.45, 0.8, 1.5, 0.75)


class FakeRunner:
    def __init__(self, rows):
        self.rows = rows
        self.calls = []

    def read(self, name, **params):
        self.calls.append((name, params))
        return self.rows


def _row(id_, terms, dense, cue=False, prev=None, nxt=None, lex=True, den=True):
    return dict(id=id_, text=id_, lexical_text=id_, lexical_terms=terms, source_ids=[id_ + "-src"],
                is_cue=cue, is_smalltalk=False, prev_id=prev, next_id=nxt, dense=dense,
                via_lexical=lex, via_dense=den, n_units=10, avg_length=3.0,
                dfs=[["violin", 1], ["instrument", 1]], dense_mode="exact")


def test_search_sends_one_query_and_ranks_with_namespace_statistics() -> None:
    rows = [
        _row("q", "mel what instrument learning", 0.6, cue=True, nxt="a"),
        _row("a", "caroline violin since march", 0.2, prev="q", lex=False, den=False),
        _row("x", "caroline went hiking", 0.1, lex=False),
    ]
    runner = FakeRunner(rows)
    search = HybridSearch(runner, label="Event")
    out = search.search("ns1", "Which instrument is Caroline learning?", [0.1, 0.2, 0.3], k=3)
    assert len(runner.calls) == 1
    name, params = runner.calls[0]
    assert name == "retrieval/search_events"
    assert params["terms"] == analyze("Which instrument is Caroline learning?")
    assert params["lucene_query"].startswith("+ns_token:ns")
    assert [c.id for c in out][0] == "q"
    a = next(c for c in out if c.id == "a")
    assert a.components["neighbour"] > 0 and a.flags["via_neighbour"]
    assert [s.action for s in a.path] == ["lexical_seed", "NEXT_TURN"] and a.path[0].id == "q"
    assert a.source_ids == ["a-src"]
    assert HybridSearch(FakeRunner([]), "Episode").search("ns", "q?", [1.0], 5) == []


def test_search_refuses_bad_input() -> None:
    search = HybridSearch(FakeRunner([]))
    with pytest.raises(Exception):
        search.search("ns", "  ", [1.0])
    with pytest.raises(Exception):
        search.search("ns", "q", [float("nan")])
    with pytest.raises(Exception):
        search.search("ns", "q", [1.0], k=0)
    with pytest.raises(Exception):
        HybridSearch(FakeRunner([]), label="Query")  # type: ignore[arg-type]
