"""Text features of retrieval units: relative dates, flags, analyzer, window texts."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from graphmem.retrieval import text
from graphmem.retrieval.units import unit_rows

# Monday 8 May 2023
MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


@pytest.mark.parametrize("phrase, expected", [
    ("I went there yesterday", ["7 May 2023"]),
    ("we met last night", ["7 May 2023"]),
    ("I'm baking today", ["8 May 2023"]),
    ("see you tomorrow", ["9 May 2023"]),
    ("we hiked last Saturday", ["6 May 2023"]),
    ("last Monday was rough", ["1 May 2023"]),
    ("next Friday is the show", ["12 May 2023"]),
    ("last weekend we camped", ["6 May 2023"]),
    ("two weekends ago we camped", ["week of 24 April 2023"]),
    ("I started last week", ["week of 1 May 2023"]),
    ("a few days ago I ran", ["5 May 2023"]),
    ("3 days ago I ran", ["5 May 2023"]),
    ("two months ago I moved", ["March 2023"]),
    ("I moved last month", ["April 2023"]),
    ("she moves next month", ["June 2023"]),
    ("last year I graduated", ["2022"]),
    ("a couple of years ago", ["2021"]),
    ("next year we travel", ["2024"]),
    ("nothing relative here", []),
])
def test_relative_dates_resolve_against_the_session_date(phrase: str, expected: list[str]) -> None:
    assert text.resolve_dates(phrase, MONDAY) == expected


def test_dates_cross_year_and_accept_a_plain_date() -> None:
    assert text.resolve_dates("last month", date(2023, 1, 15)) == ["December 2022"]
    assert text.resolve_dates("next month", date(2023, 12, 31)) == ["January 2024"]
    assert text.resolve_dates("yesterday", None) == []


def test_lexical_text_appends_caption_and_resolved_dates() -> None:
    got = text.lexical_text("Mel", "I painted a sunset yesterday", MONDAY, caption="a sunset painting")
    assert got == "Mel: I painted a sunset yesterday [shares a sunset painting] (on 7 May 2023)"
    # a caption already inlined by the LoCoMo reader is not repeated
    assert text.lexical_text("Mel", "look [shares a dog]", None, caption="a dog") == "Mel: look [shares a dog]"


def test_analyzer_lowercases_drops_stopwords_and_single_characters() -> None:
    assert text.analyze("The Cat and I went to Lisbon in 2023, it's 5 o'clock!") == [
        "cat", "went", "lisbon", "2023", "clock"]
    assert text.analyze("Zoë's café") == ["zoë", "café"]
    assert text.analyze("Lisbon lisbon") == ["lisbon", "lisbon"]  # repeats kept


def test_lucene_query_requires_namespace_and_ors_unique_terms() -> None:
    token = text.namespace_token("tenant A / ü")
    assert token.isalnum() and token == token.lower() and token.startswith("ns")
    assert token != text.namespace_token("tenant B")
    q = text.lucene_query(token, ["pottery", "class", "pottery"])
    assert q == f"+ns_token:{token} +(lexical_terms:pottery lexical_terms:class)"
    assert "lexical_terms:NOTERM" in text.lucene_query(token, [])  # matches nothing, still parses


def test_cue_and_smalltalk_flags() -> None:
    assert text.is_cue("What did you do?")
    assert text.is_cue("The violin, since March.")
    assert not text.is_cue("I adopted a golden retriever puppy named Biscuit two weeks ago, so fun.")
    assert text.is_smalltalk("Wow, cool!")
    assert text.is_smalltalk("Thanks, Mel!", speaker="Caroline Mel")
    assert not text.is_smalltalk("Thanks for the violin!")
    assert not text.is_smalltalk("That's a really long message with many words in it, thanks so much")


def test_window_texts_stay_inside_the_session() -> None:
    turns = [dict(speaker="A", text="one", session="s1"), dict(speaker="B", text="two", session="s1"),
             dict(speaker="A", text="three", session="s2")]
    assert text.window_texts(turns) == ["A: one\ntwo", "one\nB: two", "A: three"]


def test_window_texts_keep_only_the_neighbours_edge_words() -> None:
    turns = [dict(speaker="Mel", text="What instrument have you been learning lately?", session="s1"),
             dict(speaker="Caroline", text="The violin.", session="s1"),
             dict(speaker="Mel", text="Oh nice, since when do you play it?", session="s1")]
    assert text.window_texts(turns, words=4)[1] == ("you been learning lately?\nCaroline: The "
                                                    "violin.\nOh nice, since when")
    assert text.window_texts(turns)[1] == "learning lately?\nCaroline: The violin.\nOh nice,"
    assert text.window_texts(turns, words=0)[1] == "Caroline: The violin."


def test_mention_terms_drop_parenthesised_qualifiers() -> None:
    assert text.mention_terms("William King (governor)") == ("william", "king")
    assert text.mention_terms("Caroline") == ("caroline",)
    assert text.mention_terms(None) == ()


def test_unit_rows_give_every_property_a_unit_is_written_with() -> None:
    turns = [dict(speaker="Mel", text="We hiked last Saturday!", timestamp=MONDAY, session="s1"),
             dict(speaker="Caroline", text="Wow, cool!", timestamp=MONDAY, session="s1")]
    rows = unit_rows(turns, [[0.1, 0.2], [0.3, 0.4]], namespace="a")
    assert rows[0]["lexical_text"] == "Mel: We hiked last Saturday! (on 6 May 2023)"
    assert rows[0]["lexical_terms"] == "mel we hiked hike last saturday may 2023"  # word, stem
    assert rows[0]["lexical_length"] == 8  # the terms BM25 scores, stems included
    assert rows[0]["ns_token"] == text.namespace_token("a")
    assert rows[1]["is_smalltalk"] and rows[1]["is_cue"]
    assert rows[0]["window_text"] == "Mel: We hiked last Saturday!\nWow, cool!"
    assert rows[1]["embedding"] == [0.3, 0.4]
    assert rows[0]["prev_id"] is None and rows[0]["next_id"] is None
    linked = unit_rows([*turns, dict(speaker="Mel", text="Later.", session="s2")], None,
                       namespace="a", ids=["u1", "u2", "u3"])
    assert [(r["prev_id"], r["next_id"]) for r in linked] == [(None, "u2"), ("u1", None),
                                                              (None, None)]
    with pytest.raises(Exception):
        unit_rows(turns, [[0.1, float("nan")], [0.3, 0.4]])
    with pytest.raises(Exception):
        unit_rows(turns, [[0.1]])


def test_candidate_terms_drop_terms_in_almost_every_unit() -> None:
    from graphmem.retrieval.text import COMMON_TERM_FRACTION, candidate_terms

    dfs = {"ann": 10_000, "news": 9_000, "pottery": 12, "class": 300}
    # "ann" is in every unit, "news" exactly at the cutoff (kept), an unknown term counts as rare
    assert COMMON_TERM_FRACTION == 0.9
    assert candidate_terms(["ann", "news", "pottery", "kiln"], dfs, 10_000) == ["news", "pottery", "kiln"]
    # every term common: the rarest one alone selects candidates
    assert candidate_terms(["ann", "news"], dfs, 9_500) == ["news"]
    # statistics not known yet: every term
    assert candidate_terms(["ann", "news"], dfs, 0) == ["ann", "news"]
    assert candidate_terms([], dfs, 10_000) == []


def test_candidate_terms_keep_every_locomo_term() -> None:
    """No term of a LoCoMo conversation is common enough to be cut (its speakers' names reach 83%
    of the units), so the candidate sets the retrieval parameters were chosen on are unchanged."""
    from collections import Counter

    from graphmem.conversations import read_locomo
    from graphmem.datasets import resolve
    from graphmem.retrieval.text import candidate_terms

    for conv in read_locomo(resolve("locomo", None)):
        turns = [{"speaker": t.speaker, "text": t.text, "timestamp": t.timestamp,
                  "session": str(t.session)} for t in conv.turns]
        rows = unit_rows(turns, None, namespace="t", ids=[f"u{i}" for i in range(len(turns))])
        dfs = Counter(term for r in rows for term in set((r["lexical_terms"] or "").split()))
        assert candidate_terms(list(dfs), dfs, len(rows)) == list(dfs), conv.id
