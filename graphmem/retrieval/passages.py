"""Passages of a long message: the extra dense-side inputs of a retrieval unit (pure, no I/O).

A unit's one window vector (:func:`graphmem.retrieval.text.window_texts`) is the embedding of the
message's first words: the embedder (all-MiniLM-L6-v2) reads at most 256 word pieces, so in a
long message (an assistant reply of thousands of characters: code, lists, plans) everything after
the first ~200 words is invisible to the dense side. :func:`passage_spans` cuts such a message
into overlapping windows of words that cover it to the end; each passage is embedded on its own
(:func:`passage_texts`) and stored on the unit (``passage_embeddings``, docs/retrieval.md), and a
unit's dense score is the best cosine of its window vector and its passages' vectors.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.validation import clip_derived

logger = logging.getLogger(__name__)

#: Words per passage. all-MiniLM-L6-v2 was trained on inputs of at most 128 word pieces; English
#: prose runs ~1.3 word pieces per whitespace-separated word, so ~100 words fit that length: a
#: passage the model reads whole, at the length it embeds best.
PASSAGE_WORDS = 100
#: Words shared by consecutive passages: a sentence cut at one passage's end starts again inside
#: the next one (20 words: a long sentence), so no fact is split between two vectors.
PASSAGE_OVERLAP = 20
#: Most passages per message: 32 passages of 100 words (step 80) cover ~2,600 words, beyond the
#: longest messages of the chats seen (BEAM's longest of its first 200 messages: 913 words), and
#: bound a unit's stored vectors (32 × 384 floats = 96 KiB) and its encode cost. A longer message
#: is covered to its 32nd passage; the rest stays lexical only (logged at DEBUG).
MAX_PASSAGES = 32

_WORD = re.compile(r"\S+")


def passage_spans(text: str, words: int = PASSAGE_WORDS, overlap: int = PASSAGE_OVERLAP,
                  max_passages: int = MAX_PASSAGES) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of the passages of ``text``: consecutive windows of
    ``words`` whitespace-separated words, each starting ``words - overlap`` words after the
    previous one, from the first word to the last (each span starts at a word's first character
    and ends after a word's last); ``text[start:end]`` is the passage.

    Args:
        text: the message text.
        words: words per passage (>= 1).
        overlap: words shared by consecutive passages (0 <= overlap < words).
        max_passages: most passages returned (>= 1); a longer text is covered to that many.

    Returns:
        The spans in text order; an empty list when ``text`` has at most ``words`` words (its
        window vector already reads it whole).

    Raises:
        InvalidInputError: ``words < 1``, ``overlap`` outside ``[0, words)`` or
            ``max_passages < 1``.
    """
    if words < 1:
        raise InvalidInputError(f"passage_spans: words must be >= 1, got {words}")
    if not 0 <= overlap < words:
        raise InvalidInputError(f"passage_spans: overlap must be in [0, {words}), got {overlap}")
    if max_passages < 1:
        raise InvalidInputError(f"passage_spans: max_passages must be >= 1, got {max_passages}")
    tokens = [m.span() for m in _WORD.finditer(text or "")]
    if len(tokens) <= words:
        return []
    step = words - overlap
    spans: list[tuple[int, int]] = []
    last = -1
    for first in range(0, len(tokens), step):
        if len(spans) == max_passages:
            logger.debug("message of %d words: %d passages cover its first %d words; the rest "
                         "is lexical only", len(tokens), max_passages, last + 1)
            break
        last = min(first + words, len(tokens)) - 1
        spans.append((tokens[first][0], tokens[last][1]))
        if last == len(tokens) - 1:
            break
    return spans


def passage_texts(speaker: str | None, text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The embedding inputs of the passages ``spans`` of ``text``: ``"<speaker>: <passage>"``
    (the passage alone when ``speaker`` is empty), as the window text names its speaker; cut to
    ``MAX_TEXT_CHARS`` (:func:`graphmem.validation.clip_derived`)."""
    return [clip_derived(f"{speaker}: {text[start:end]}" if speaker else text[start:end])
            for start, end in spans]


def flat_spans(spans: Sequence[tuple[int, int]]) -> list[int]:
    """``spans`` as the flat list a unit stores (``[s0, e0, s1, e1, ...]``: a Neo4j property
    cannot hold a list of lists)."""
    return [int(x) for span in spans for x in span]


def span_of(flat: Sequence[int] | None, index: int | None) -> list[int] | None:
    """The ``[start, end)`` span of passage ``index`` of a unit's stored ``passage_spans``
    ``flat``; None for the window (``index`` None or negative) or an index it does not hold."""
    if index is None or index < 0 or not flat or 2 * index + 1 >= len(flat):
        return None
    return [int(flat[2 * index]), int(flat[2 * index + 1])]


def matched_passage(text: str, span: Sequence[int] | None) -> dict[str, Any] | None:
    """What a recall item says of the passage that matched: ``{"start", "end", "text"}`` with
    ``text`` = ``text[start:end]`` (the unit's own text), for a candidate's ``passage`` span; None
    when the window vector matched (``span`` None)."""
    if not span:
        return None
    start, end = int(span[0]), int(span[1])
    return {"start": start, "end": end, "text": text[start:end]}


__all__ = ["MAX_PASSAGES", "PASSAGE_OVERLAP", "PASSAGE_WORDS", "flat_spans", "matched_passage",
           "passage_spans", "passage_texts", "span_of"]
