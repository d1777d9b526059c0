"""What one round of the retrieval engine returns: the columns of a unit in the round query's
answer (:data:`UNIT_COLUMNS`), its stored time (:func:`stored_time`), the namespace's unit-version
token of a round (:func:`token`) and one ranked unit (:class:`Candidate`). The engine is
:class:`graphmem.retrieval.engine.HybridSearch`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from graphmem.memory import PathStep

#: The columns of a unit in the round query's answer (``units`` is a list of lists in this order;
#: :meth:`HybridSearch.fetch` turns them into dicts): ``occurred_at`` is ISO 8601 text
#: (:func:`stored_time` reads it), ``dense`` the unit's dense score in [-1, 1]: the best cosine
#: of its window vector and its passages' vectors (None when the stored vector cannot be scored),
#: ``passage`` the index of the passage that gave it (-1: the window vector; None: not known,
#: the cache fills it), ``passage_spans`` the unit's flat passage spans (``[]``: none;
#: :mod:`graphmem.retrieval.passages`).
UNIT_COLUMNS = ("id", "text", "lexical_terms", "source_ids", "speaker", "is_cue", "conversation",
                "occurred_at", "topic_id", "is_smalltalk", "prev_id", "next_id", "via_lexical",
                "via_dense", "dense", "passage", "passage_spans")
#: The position of ``speaker`` in :data:`UNIT_COLUMNS`.
SPEAKER = UNIT_COLUMNS.index("speaker")


def stored_time(value: Any) -> Any:
    """A unit's ``occurred_at`` as the Neo4j ``DateTime`` it was stored as: the round query sends
    it as text (``2023-05-08T13:56:00Z``, ``...+02:00`` or ``...+02:00[Europe/Berlin]``, whose
    zone name is dropped, the offset kept); None and non-text values pass through."""
    if not isinstance(value, str):
        return value
    from neo4j.time import DateTime

    text = value.split("[", 1)[0]
    return DateTime.from_iso_format(text[:-1] + "+00:00" if text.endswith("Z") else text)


def token(row: dict[str, Any]) -> tuple[int, int]:
    """The vector-cache token of a round's row: the namespace's unit version (write locks,
    sum of their ``unit_version``; :mod:`graphmem.retrieval.vectors`)."""
    return int(row.get("n_locks") or 0), int(row.get("unit_version") or 0)


class Candidate(BaseModel):
    """One ranked unit.

    Attributes:
        id: the unit's node id.
        score: the final fused score (``fused + neighbour + entity + graph``; higher is better; only
            comparable within one search).
        components: ``lexical`` (per-namespace BM25), ``dense`` (in [-1, 1]: the best cosine
            of the window vector and the unit's passage vectors, absent when the unit has no
            usable vector), ``lexical_norm``, ``dense_norm``,
            ``fused``, ``neighbour``, ``entity``, ``final``.
        flags: ``via_lexical``, ``via_dense`` (found by that side), ``via_neighbour`` (only present
            as a neighbour of a candidate), ``is_cue``, ``is_smalltalk``.
        source_ids: the unit's upstream ids (e.g. LoCoMo dia_id).
        text: the unit's stored ``text``.
        speaker: the unit's speaker (a document's title in a document collection).
        path: how it was found: one seed step (``lexical_seed`` / ``dense_seed``); when the
            neighbour step raised it, the seed of the cue unit followed by a ``NEXT_TURN`` hop; when
            the entity step did, the mentioning unit's seed (none for the question), ``mentions``
            (node ``speaker``) and ``SPEAKER_OF``.
        passage: the ``[start, end)`` character span of :attr:`text` of the passage whose cosine
            was the unit's dense score (:mod:`graphmem.retrieval.passages`); None when the window
            vector gave it (or the unit has no dense score).
    """

    id: str
    score: float
    components: dict[str, float] = Field(default_factory=dict)
    flags: dict[str, bool] = Field(default_factory=dict)
    source_ids: list[str] = Field(default_factory=list)
    text: str = ""
    speaker: str | None = None
    path: list[PathStep] = Field(default_factory=list)
    passage: list[int] | None = None


__all__ = ["Candidate", "SPEAKER", "UNIT_COLUMNS", "stored_time", "token"]
