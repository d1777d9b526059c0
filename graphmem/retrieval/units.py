"""What a memory writes for each retrieval unit (an ``Event`` of state memory, an ``Episode`` of
associative memory): its lexical, flag and session-neighbour properties (:func:`unit_rows`) and
the window texts its dense vector embeds (:func:`graphmem.retrieval.text.window_texts`) and, for a
long message, the passages whose vectors the unit also stores
(:mod:`graphmem.retrieval.passages`). Pure."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.validation import clip_derived
from graphmem.retrieval.passages import flat_spans, passage_spans, passage_texts
from graphmem.retrieval.text import (
    index_terms,
    is_cue,
    is_smalltalk,
    lexical_text,
    namespace_token,
    window_texts,
)


def unit_rows(turns: Sequence[Any], vectors: Sequence[Sequence[float]] | None = None,
              namespace: str = "default", ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The retrieval properties of each unit, in the order of ``turns``.

    Args:
        turns: units in conversation order (``graphmem.conversation.Turn`` or dicts with
            ``speaker``, ``text``, ``timestamp`` (session date, may be None), ``session`` and an
            optional ``caption``); consecutive turns of one session are window neighbours.
        vectors: the embeddings of :func:`window_texts` (turns) -- one per turn -- or None.
        namespace: the tenant; gives ``ns_token``.
        ids: the units' node ids, one per turn; they give ``prev_id`` / ``next_id`` (None
            without ``ids``).

    Returns:
        One dict per turn: ``lexical_text``, ``lexical_terms`` (space-joined :func:`~graphmem.retrieval.text.index_terms`: analyzed words and their stems),
        ``lexical_length``, ``ns_token``, ``is_cue``, ``is_smalltalk``, ``prev_id`` / ``next_id``
        (the ids of the previous / next turn of the same session, None at a session's edge),
        ``window_text`` (the embedding input, not to be stored; cut to ``MAX_TEXT_CHARS`` by
        :func:`graphmem.validation.clip_derived`, so a valid turn is never refused for the
        prefix and context graphmem adds), ``embedding`` (a list of
        floats, or None when ``vectors`` is None), ``passage_spans`` (the character spans of the
        text's passages, :func:`graphmem.retrieval.passages.passage_spans`, flat:
        ``[s0, e0, s1, e1, ...]``; an empty list for a text of at most ``PASSAGE_WORDS`` words)
        and ``passage_texts`` (their embedding inputs ``"speaker: passage"``, not to be stored).
        The memories SET every key except ``window_text`` and ``passage_texts`` on the node
        (``passage_spans`` only when not empty), the passages' vectors as the flat
        ``passage_embeddings`` (passages × d floats), and MERGE
        ``(prev)-[:NEXT_TURN]->(unit)``.

    Raises:
        InvalidInputError: ``vectors`` or ``ids`` of a different length than ``turns``, or a
            vector that is empty or not finite.
    """
    if vectors is not None and len(vectors) != len(turns):
        raise InvalidInputError(f"unit_rows: {len(vectors)} vectors for {len(turns)} turns")
    if ids is not None and len(ids) != len(turns):
        raise InvalidInputError(f"unit_rows: {len(ids)} ids for {len(turns)} turns")
    token = namespace_token(namespace)
    windows = window_texts(turns)
    rows = []
    for i, turn in enumerate(turns):
        get = turn.get if isinstance(turn, dict) else lambda k, d=None, t=turn: getattr(t, k, d)
        speaker, text = get("speaker"), get("text")
        if not text or not str(text).strip():
            raise InvalidInputError(f"unit_rows: turn {i} has empty text")
        lex = lexical_text(speaker, text, get("timestamp"), get("caption"))
        terms = index_terms(lex)
        vector = None
        if vectors is not None:
            vector = [float(x) for x in vectors[i]]
            if not vector or not all(math.isfinite(x) for x in vector):
                raise InvalidInputError(f"unit_rows: vector {i} is empty or not finite")
        spans = passage_spans(str(text))
        rows.append({
            "lexical_text": lex,
            "lexical_terms": " ".join(terms),
            "lexical_length": len(terms),
            "ns_token": token,
            "is_cue": is_cue(text),
            "is_smalltalk": is_smalltalk(text, speaker),
            "prev_id": None,
            "next_id": None,
            "window_text": clip_derived(windows[i]),
            "embedding": vector,
            "passage_spans": flat_spans(spans),
            "passage_texts": passage_texts(speaker, str(text), spans),
        })
    if ids is not None:
        sessions = [turn.get("session", "default") if isinstance(turn, dict)
                    else getattr(turn, "session", "default") for turn in turns]
        for i in range(1, len(turns)):
            if sessions[i] == sessions[i - 1]:
                rows[i]["prev_id"], rows[i - 1]["next_id"] = ids[i - 1], ids[i]
    return rows


__all__ = ["unit_rows", "window_texts"]
