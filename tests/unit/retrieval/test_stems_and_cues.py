"""Stems in the lexical terms (text.index_terms) and the cue length cap of the neighbour step."""

from __future__ import annotations

from graphmem.retrieval import fusion
from graphmem.retrieval.fusion import FusionParams, UnitScore, fuse
from graphmem.retrieval.text import analyze, index_terms, stem
from graphmem.retrieval.units import unit_rows


def test_index_terms_keeps_each_word_and_adds_its_stem_after_it():
    assert index_terms("Melanie went camping") == ["melanie", "melani", "went", "camping", "camp"]
    assert index_terms("the cat") == ["cat"]  # stop word gone, "cat" is its own stem


def test_inflections_meet_on_the_stem():
    assert stem("camped") == stem("camping") == "camp"
    assert set(index_terms("Where has she camped?")) & set(index_terms("we went camping"))  == {"camp"}


def test_index_terms_is_analyze_when_no_word_has_another_stem():
    text = "pizza 2024 tokyo"
    assert index_terms(text) == analyze(text)


def test_unit_rows_store_the_stems():
    rows = unit_rows([{"speaker": "Ann", "text": "I was researching adoption agencies",
                       "timestamp": None, "session": "s1"}])
    terms = rows[0]["lexical_terms"].split()
    assert {"researching", "research", "adoption", "adopt"} <= set(terms)
    assert rows[0]["lexical_length"] == len(terms)


def _units(cue_terms: int) -> list[UnitScore]:
    cue_words = frozenset(f"w{i}" for i in range(cue_terms))
    return [
        UnitScore(id="q", lexical=10.0, dense=0.9, is_cue=True, next_id="a", terms=cue_words),
        UnitScore(id="a", lexical=0.0, dense=0.1, prev_id="q", terms=frozenset({"x"})),
        UnitScore(id="b", lexical=1.0, dense=0.2, terms=frozenset({"y"})),
        UnitScore(id="c", lexical=0.5, dense=0.15, terms=frozenset({"z"})),
    ]


def test_a_short_cue_passes_its_excess_to_the_next_turn():
    out = {f.id: f for f in fuse(_units(5), FusionParams(cue_max_terms=10), ["w0"])}
    assert out["a"].neighbour > 0.3
    assert out["a"].neighbour_from == "q"


def test_a_cue_longer_than_the_cap_passes_nothing():
    out = {f.id: f for f in fuse(_units(11), FusionParams(cue_max_terms=10), ["w0"])}
    assert out["a"].neighbour == 0.0
    assert out["a"].neighbour_from is None


def test_the_default_cap_is_the_module_constant():
    assert FusionParams().cue_max_terms == fusion.CUE_MAX_TERMS
