"""Passages of a long message (graphmem.retrieval.passages): spans that cover the text with the
stated overlap, none for a short text, the cap, unicode text, one very long word; what
unit_rows gives a unit for them; the item's matched passage."""

from __future__ import annotations

import logging
import re

import pytest

from graphmem.errors import InvalidInputError
from graphmem.retrieval.passages import (MAX_PASSAGES, PASSAGE_OVERLAP, PASSAGE_WORDS, flat_spans,
                                         matched_passage, passage_spans, passage_texts, span_of)
from graphmem.retrieval.units import unit_rows


def _words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def _word_index(text: str) -> dict[int, int]:
    """Character offset of each word's start / end -> the word's index."""
    out = {}
    for i, m in enumerate(re.finditer(r"\S+", text)):
        out[m.start()] = out[m.end()] = i
    return out


def test_spans_cover_the_text_in_windows_that_overlap() -> None:
    text = "  " + _words(250) + "\n"
    spans = passage_spans(text)
    starts = _word_index(text)
    # windows of 100 words starting every 80: words 0-99, 80-179, 160-249
    assert [(starts[s], starts[e]) for s, e in spans] == [(0, 99), (80, 179), (160, 249)]
    assert spans[0][0] == 2 and spans[-1][1] == len(text) - 1      # first word to last word
    assert [text[s:e].split()[0] for s, e in spans] == ["w0", "w80", "w160"]
    assert [len(text[s:e].split()) for s, e in spans] == [100, 100, 90]
    # consecutive passages share exactly PASSAGE_OVERLAP words
    for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
        assert len(text[s2:e1].split()) == PASSAGE_OVERLAP
    covered = set()
    for s, e in spans:
        covered.update(range(s, e))
    assert {i for i, c in enumerate(text) if not c.isspace()} <= covered


def test_an_exact_fit_ends_with_the_window_that_reaches_the_end() -> None:
    spans = passage_spans(_words(180))   # 0-99, 80-179: the second reaches the end
    assert len(spans) == 2 and spans[-1][1] == len(_words(180))
    one_more = passage_spans(_words(101), words=100, overlap=0)
    assert one_more == [(0, len(_words(100))), (len(_words(100)) + 1, len(_words(101)))]


def test_a_short_text_has_no_passages() -> None:
    assert passage_spans(_words(PASSAGE_WORDS)) == []
    assert passage_spans("") == [] and passage_spans("   \n ") == []
    assert len(passage_spans(_words(PASSAGE_WORDS + 1))) == 2


def test_a_long_text_is_covered_to_the_cap(caplog) -> None:
    step = PASSAGE_WORDS - PASSAGE_OVERLAP
    text = _words(step * MAX_PASSAGES + 500)
    with caplog.at_level(logging.DEBUG, logger="graphmem.retrieval.passages"):
        spans = passage_spans(text)
    assert len(spans) == MAX_PASSAGES
    last_words = text[spans[-1][0]:spans[-1][1]].split()
    assert last_words[0] == f"w{step * (MAX_PASSAGES - 1)}" and len(last_words) == PASSAGE_WORDS
    assert "32 passages cover its first 2580 words" in caplog.text
    assert len(passage_spans(text, max_passages=3)) == 3


def test_unicode_text_is_cut_at_its_characters() -> None:
    words = ["Ålesund", "猫", "naïve", "😀", "Zürich", "ß"] * 30      # 180 words
    text = "\u3000".join(words)                                         # ideographic space
    spans = passage_spans(text)
    assert len(spans) == 2
    assert text[spans[0][0]:spans[0][1]].split() == words[:100]
    assert text[spans[1][0]:spans[1][1]].split() == words[80:]
    assert text[spans[1][0]:].startswith("naïve\u3000😀") and words[80] == "naïve"


def test_one_word_of_five_thousand_characters_is_one_word() -> None:
    text = "x" * 5000
    assert passage_spans(text) == []
    assert passage_spans(f"intro {text} outro", words=1, overlap=0) == [(0, 5), (6, 5006),
                                                                          (5007, 5012)]


def test_bad_settings_name_the_value() -> None:
    with pytest.raises(InvalidInputError, match="words must be >= 1, got 0"):
        passage_spans("a b", words=0)
    with pytest.raises(InvalidInputError, match=r"overlap must be in \[0, 10\), got 10"):
        passage_spans("a b", words=10, overlap=10)
    with pytest.raises(InvalidInputError, match="max_passages must be >= 1, got 0"):
        passage_spans("a b", max_passages=0)


def test_texts_name_the_speaker_and_spans_are_stored_flat() -> None:
    text = _words(150)
    spans = passage_spans(text)
    assert passage_texts("assistant", text, spans) == [f"assistant: {text[s:e]}" for s, e in spans]
    assert passage_texts(None, text, spans)[0] == text[spans[0][0]:spans[0][1]]
    flat = flat_spans(spans)
    assert flat == [spans[0][0], spans[0][1], spans[1][0], spans[1][1]]
    assert span_of(flat, 1) == list(spans[1]) and span_of(flat, -1) is None
    assert span_of(flat, None) is None and span_of(flat, 2) is None and span_of([], 0) is None
    assert matched_passage(text, span_of(flat, 1)) == {"start": spans[1][0], "end": spans[1][1],
                                                       "text": text[spans[1][0]:spans[1][1]]}
    assert matched_passage(text, None) is None


def test_unit_rows_give_a_long_message_its_passages() -> None:
    long_text = _words(230)
    rows = unit_rows([dict(speaker="Ann", text="Hi!", session="s"),
                      dict(speaker="Bot", text=long_text, session="s")])
    assert rows[0]["passage_spans"] == [] and rows[0]["passage_texts"] == []
    spans = passage_spans(long_text)
    assert rows[1]["passage_spans"] == flat_spans(spans) and len(spans) == 3
    assert rows[1]["passage_texts"] == passage_texts("Bot", long_text, spans)
    assert rows[1]["passage_texts"][-1].endswith("w229")
