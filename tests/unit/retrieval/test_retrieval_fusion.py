"""The fusion rule on hand-computed examples, and the engine's ranking of query rows."""

from __future__ import annotations

import math

import pytest

from graphmem.retrieval import fusion
from graphmem.retrieval.engine import HybridSearch
from graphmem.retrieval.text import analyze, index_terms


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
    assert (p.alpha, p.beta, p.delta, p.k1, p.b, p.entity_sources) == (0.45, 0.8, 1.0, 1.5, 0.75, 3)


def test_specificity_and_mentions() -> None:
    assert fusion.specificity(1, 100) == pytest.approx(1.0)
    assert fusion.specificity(50, 100) == pytest.approx(math.log(2) / math.log(100))
    assert fusion.specificity(100, 100) == 0.0 and fusion.specificity(1, 1) == 0.0
    names = {"William King (governor)": ("william", "king"), "Maine": ("maine",)}
    assert fusion.mentioned({"william", "king", "elected"}, names) == ["William King (governor)"]
    assert fusion.mentioned({"maine", "king"}, names, own="Maine") == []


def test_entity_step_lifts_the_units_of_an_entity_a_top_unit_mentions() -> None:
    # "r1" (speaker Rome) mentions Dollfuss; Dollfuss owns 2 of 10 units: w = ln 5 / ln 10
    units = [
        fusion.UnitScore("r1", lexical=5.0, dense=0.9, speaker="Rome",
                         terms=frozenset({"signed", "engelbert", "dollfuss"})),
        fusion.UnitScore("d0", lexical=0.0, dense=0.3, speaker="Engelbert Dollfuss"),
        fusion.UnitScore("x", lexical=1.0, dense=0.5, speaker="Other"),
        fusion.UnitScore("y", lexical=0.0, dense=0.1, speaker="Other"),
    ]
    counts = {"Rome": 3, "Engelbert Dollfuss": 2, "Other": 5}
    off = fusion.fuse(units, fusion.FusionParams(delta=0.0), ["prime", "ministers"], counts, 10)
    on = fusion.fuse(units, fusion.FusionParams(), ["prime", "ministers"], counts, 10)
    assert [f.id for f in off] == ["r1", "x", "d0", "y"]
    got = {f.id: f for f in on}
    # f: r1 = 1.0, d0 = .55 * .25 = .1375, x = .45 * .2 + .55 * .5 = .365, y = 0; median .25125
    w = math.log(5) / math.log(10)
    assert got["d0"].entity == pytest.approx(w * (1.0 - 0.25125))
    assert got["d0"].entity_from == "r1" and got["x"].entity == 0.0
    assert [f.id for f in on] == ["r1", "d0", "x", "y"]


def test_entity_step_question_source_and_own_speaker() -> None:
    units = [fusion.UnitScore("a", lexical=2.0, dense=0.5, speaker="Caroline", terms=frozenset()),
             fusion.UnitScore("b", lexical=1.0, dense=0.4, speaker="Mel",
                              terms=frozenset({"mel", "caroline"}))]
    out = {f.id: f for f in fusion.fuse(units, fusion.FusionParams(), ["caroline", "research"],
                                        {"Caroline": 1, "Mel": 1}, 2)}
    # the question names Caroline: a gets w(1 of 2) = 1 times the question's excess (1 - .5)
    assert out["a"].entity == pytest.approx(0.5) and out["a"].entity_from == "question"
    assert out["b"].entity == 0.0  # b mentions only its own speaker and Caroline (not b's)


class FakeRunner:
    def __init__(self, rows, fail_first: str | None = None):
        self.rows = rows
        self.calls = []
        self.fail_first = fail_first

    def read(self, name, **params):
        self.calls.append((name, params))
        if self.fail_first and len(self.calls) == 1:
            from graphmem.errors import QueryError

            raise QueryError(self.fail_first)
        return self.rows


def _unit(id_, terms, dense, cue=False, prev=None, nxt=None, lex=True, den=True, speaker=None):
    return dict(id=id_, text=id_, lexical_terms=terms, source_ids=[id_ + "-src"], speaker=speaker,
                is_cue=cue, is_smalltalk=False, prev_id=prev, next_id=nxt, dense=dense,
                via_lexical=lex, via_dense=den)


def _rows(*units, speakers=()):
    """The round query's answer: units as lists in UNIT_COLUMNS order."""
    from graphmem.retrieval.engine import UNIT_COLUMNS

    return [dict(n_units=10, avg_length=3.0, dfs=[["violin", 1], ["instrument", 1]],
                 dense_mode="exact", speakers=list(speakers),
                 units=[[u.get(c) for c in UNIT_COLUMNS] for u in units])]


def test_search_sends_one_query_and_ranks_with_namespace_statistics() -> None:
    rows = _rows(
        _unit("q", "mel what instrument learning", 0.6, cue=True, nxt="a"),
        _unit("a", "caroline violin since march", 0.2, prev="q", lex=False, den=False),
        _unit("x", "caroline went hiking", 0.1, lex=False),
    )
    runner = FakeRunner(rows)
    search = HybridSearch(runner, label="Event")
    out = search.search("ns1", "Which instrument is Caroline learning?", [0.1, 0.2, 0.3], k=3)
    assert len(runner.calls) == 1
    name, params = runner.calls[0]
    assert name == "retrieval/search_units@Event" and params["guard"] is False
    assert params["terms"] == index_terms("Which instrument is Caroline learning?")
    assert params["terms"][-2:] == ["learning", "learn"]  # each word, then its stem
    assert params["lucene_query"].startswith("+ns_token:ns")
    assert [c.id for c in out][0] == "q"
    a = next(c for c in out if c.id == "a")
    assert a.components["neighbour"] > 0 and a.flags["via_neighbour"]
    assert [s.action for s in a.path] == ["lexical_seed", "NEXT_TURN"] and a.path[0].id == "q"
    assert a.source_ids == ["a-src"]
    assert HybridSearch(FakeRunner([]), "Episode").search("ns", "q?", [1.0], 5) == []


def test_a_candidate_names_the_passage_whose_cosine_was_its_dense_score() -> None:
    long_unit = _unit("long", "caroline violin", 0.7)
    long_unit.update(passage=1, passage_spans=[0, 40, 32, 75])
    window = _unit("w", "caroline violin lessons", 0.4)
    window.update(passage=-1, passage_spans=[0, 40, 32, 75])
    old = _unit("old", "caroline violin march", 0.2)           # stored before passages: columns null
    out = HybridSearch(FakeRunner(_rows(long_unit, window, old)), "Event").search(
        "ns", "violin?", [1.0], 3)
    assert {c.id: c.passage for c in out} == {"long": [32, 75], "w": None, "old": None}


def test_a_bad_stored_vector_reruns_the_round_with_the_guard() -> None:
    runner = FakeRunner(_rows(_unit("a", "caroline violin", 0.5)),
                        fail_first="ClientError: Invalid input for 'vector.similarity.cosine()': "
                                   "Argument a is not a valid vector for this function")
    out = HybridSearch(runner, "Episode").search("ns", "violin?", [1.0], 3)
    assert [c.id for c in out] == ["a"]
    assert [(n, p["guard"]) for n, p in runner.calls] == [("retrieval/search_units@Episode", False),
                                                          ("retrieval/search_units@Episode", True)]
    other = FakeRunner(_rows(), fail_first="ClientError: syntax error")
    with pytest.raises(Exception, match="syntax"):
        HybridSearch(other).search("ns", "violin?", [1.0], 3)


def test_entity_path_names_the_mentioning_unit_and_the_speaker() -> None:
    rows = _rows(
        _unit("r1", "rome signed engelbert dollfuss", 0.9, speaker="Rome"),
        _unit("d0", "engelbert dollfuss austrian statesman", 0.3, lex=False, speaker="Engelbert Dollfuss"),
        _unit("x", "other words", 0.5, speaker="Other"),
        _unit("y", "nothing", 0.1, lex=False, speaker="Other"),
        speakers=[["Rome", 3], ["Engelbert Dollfuss", 2], ["Other", 5]])
    rows[0]["dfs"] = [["signed", 1]]
    out = HybridSearch(FakeRunner(rows)).search("ns", "Who signed?", [1.0], 4)
    d0 = next(c for c in out if c.id == "d0")
    assert [s.action for s in d0.path] == ["lexical_seed", "mentions", "SPEAKER_OF"]
    assert d0.path[0].id == "r1" and d0.path[1].id == "Engelbert Dollfuss"
    assert d0.components["entity"] > 0 and d0.speaker == "Engelbert Dollfuss"


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
