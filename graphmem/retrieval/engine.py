"""HybridSearch: the retrieval engine the state (``Event``) and associative (``Episode``) memories call.

One round = ONE read query (``cypher/retrieval/search_events`` or ``search_episodes``) that returns
the namespace's BM25 statistics, the full-text and dense candidates and their ``NEXT_TURN``
neighbours; the Python side scores BM25 with the namespace's own statistics and fuses
(:mod:`graphmem.retrieval.fusion`). Writing is the memories' job: :func:`unit_rows` gives the
properties a unit must be written with and :func:`window_texts` the dense-embedding inputs.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from graphmem.errors import InvalidInputError
from graphmem.memory import PathStep
from graphmem.retrieval import fusion
from graphmem.retrieval.text import (
    analyze,
    is_cue,
    is_smalltalk,
    lexical_text,
    lucene_query,
    namespace_token,
    window_texts,
)

logger = logging.getLogger(__name__)

#: Full-text candidates per round (top by Lucene). 100: on LoCoMo leave-one-conversation-out the
#: bounded candidate set keeps the all-units figure (K = 25/50/100/200/all: .755/.751/.749/.750/.739,
#: differences within noise) while S stays ≈ 300 units; BM25 is exact for a namespace whose
#: matches of the question fit in K.
LEXICAL_K = 100
#: Dense candidates per round (same reason and measurement as LEXICAL_K).
DENSE_K = 100
#: Namespaces with at most this many units are scanned exactly (cosine against every unit) instead of
#: querying the vector index. Measured (tests/integration/test_retrieval_engine.py, a 2,000-unit
#: tenant among 50,000 foreign units, whole search round p50): exact scan 182 / 117 ms vs vector index
#: 211 / 184 ms in two runs -- at 2,000 units the scan is no slower, and it is exact (the index query
#: post-filters a global top list by namespace, so it can starve a small tenant).
EXACT_LIMIT = 2000
#: Vector-index query size before the namespace filter: max(OVERSAMPLE_FACTOR · DENSE_K, MIN_OVERSAMPLE).
OVERSAMPLE_FACTOR = 10
MIN_OVERSAMPLE = 500
#: Per-term document-frequency count cap (df beyond it saturates; idf is then ≈ 0 anyway).
DF_CAP = 100_000

QUERY = {"Event": "retrieval/search_events", "Episode": "retrieval/search_episodes"}
#: The relationship between consecutive units of one session (older → newer).
NEXT_TURN = "NEXT_TURN"


class Candidate(BaseModel):
    """One ranked unit.

    Attributes:
        id: the unit's node id.
        score: the final fused score (``fused + neighbour``; higher is better; only comparable
            within one search).
        components: ``lexical`` (per-namespace BM25), ``dense`` (cosine of the window vector, absent
            when the unit has no usable vector), ``lexical_norm``, ``dense_norm``, ``fused``,
            ``neighbour``, ``final``.
        flags: ``via_lexical``, ``via_dense`` (found by that side), ``via_neighbour`` (only present
            as a neighbour of a candidate), ``is_cue``, ``is_smalltalk``.
        source_ids: the unit's upstream ids (e.g. LoCoMo dia_id).
        text: the unit's stored ``text``.
        path: how it was found: one seed step (``lexical_seed`` / ``dense_seed``) and, when the
            neighbour step raised it, the seed of the cue unit followed by a ``NEXT_TURN`` hop.
    """

    id: str
    score: float
    components: dict[str, float] = Field(default_factory=dict)
    flags: dict[str, bool] = Field(default_factory=dict)
    source_ids: list[str] = Field(default_factory=list)
    text: str = ""
    path: list[PathStep] = Field(default_factory=list)


def unit_rows(turns: Sequence[Any], vectors: Sequence[Sequence[float]] | None = None,
              namespace: str = "default") -> list[dict[str, Any]]:
    """The retrieval properties of each unit, in the order of ``turns``.

    Args:
        turns: units in conversation order (``graphmem.conversation.Turn`` or dicts with
            ``speaker``, ``text``, ``timestamp`` (session date, may be None), ``session`` and an
            optional ``caption``); consecutive turns of one session are window neighbours.
        vectors: the embeddings of :func:`window_texts` (turns) -- one per turn -- or None.
        namespace: the tenant; gives ``ns_token``.

    Returns:
        One dict per turn: ``lexical_text``, ``lexical_terms`` (space-joined analyzed terms),
        ``lexical_length``, ``ns_token``, ``is_cue``, ``is_smalltalk``, ``window_text`` (the
        embedding input, not to be stored) and ``embedding`` (a list of floats, or None when
        ``vectors`` is None). The memories SET every key except ``window_text`` on the node.

    Raises:
        InvalidInputError: ``vectors`` of a different length than ``turns``, or a vector that is
            empty or not finite.
    """
    if vectors is not None and len(vectors) != len(turns):
        raise InvalidInputError(f"unit_rows: {len(vectors)} vectors for {len(turns)} turns")
    token = namespace_token(namespace)
    windows = window_texts(turns)
    rows = []
    for i, turn in enumerate(turns):
        get = turn.get if isinstance(turn, dict) else lambda k, d=None, t=turn: getattr(t, k, d)
        speaker, text = get("speaker"), get("text")
        if not text or not str(text).strip():
            raise InvalidInputError(f"unit_rows: turn {i} has empty text")
        lex = lexical_text(speaker, text, get("timestamp"), get("caption"))
        terms = analyze(lex)
        vector = None
        if vectors is not None:
            vector = [float(x) for x in vectors[i]]
            if not vector or not all(math.isfinite(x) for x in vector):
                raise InvalidInputError(f"unit_rows: vector {i} is empty or not finite")
        rows.append({
            "lexical_text": lex,
            "lexical_terms": " ".join(terms),
            "lexical_length": len(terms),
            "ns_token": token,
            "is_cue": is_cue(text),
            "is_smalltalk": is_smalltalk(text, speaker),
            "window_text": windows[i],
            "embedding": vector,
        })
    return rows


class HybridSearch:
    """Hybrid lexical + dense + neighbour search over one unit label.

    Args:
        runner: a :class:`graphmem.graph.runner.QueryRunner` (anything with ``read(name, **params)``).
        label: ``"Event"`` (state memory) or ``"Episode"`` (associative memory).
        params: fusion parameters (defaults: :mod:`graphmem.retrieval.fusion` constants).
        lexical_k, dense_k, exact_limit: candidate sizes (see the module constants).
    """

    def __init__(self, runner: Any, label: Literal["Event", "Episode"] = "Event",
                 params: fusion.FusionParams | None = None, lexical_k: int = LEXICAL_K,
                 dense_k: int = DENSE_K, exact_limit: int = EXACT_LIMIT):
        if label not in QUERY:
            raise InvalidInputError(f"HybridSearch: label must be one of {sorted(QUERY)}, got {label!r}")
        self.runner = runner
        self.label = label
        self.query = QUERY[label]
        self.params = params or fusion.FusionParams()
        self.lexical_k = lexical_k
        self.dense_k = dense_k
        self.exact_limit = exact_limit
        self.last_details: dict[str, Any] = {}

    def search(self, namespace: str, question: str, query_vector: Sequence[float],
               k: int = 10) -> list[Candidate]:
        """The ``k`` best units of ``namespace`` for ``question`` (best first).

        Args:
            namespace: the tenant.
            question: the question text (analyzed with :func:`graphmem.retrieval.text.analyze`).
            query_vector: the question's embedding (same model and width as the window vectors).
            k: items returned.

        Raises:
            InvalidInputError: empty question, k < 1, empty or non-finite query vector.
        """
        if not question or not question.strip():
            raise InvalidInputError("search: question is empty")
        if k < 1:
            raise InvalidInputError(f"search: k must be >= 1, got {k}")
        vector = [float(x) for x in query_vector]
        if not vector or not all(math.isfinite(x) for x in vector):
            raise InvalidInputError("search: query vector is empty or not finite")
        terms = analyze(question)
        token = namespace_token(namespace)
        rows = self.runner.read(
            self.query, namespace=namespace, ns_token=token, lucene_query=lucene_query(token, terms),
            terms=list(dict.fromkeys(terms)), embedding=vector, lexical_k=self.lexical_k,
            dense_k=self.dense_k, oversample=max(OVERSAMPLE_FACTOR * self.dense_k, MIN_OVERSAMPLE),
            exact_limit=self.exact_limit, df_cap=DF_CAP)
        return self.rank(rows, terms, k)

    def rank(self, rows: list[dict[str, Any]], terms: Sequence[str], k: int) -> list[Candidate]:
        """Score and fuse the rows of the search query (pure; unit-tested with a fake runner)."""
        if not rows:
            self.last_details = {"units": 0}
            return []
        n_units = int(rows[0]["n_units"])
        avg_length = float(rows[0]["avg_length"] or 0.0)
        df = {t: int(d) for t, d in rows[0]["dfs"]}
        scores = []
        by_id = {}
        for row in rows:
            doc = (row.get("lexical_terms") or "").split()
            dense = row.get("dense")
            if dense is not None and not math.isfinite(dense):
                dense = None
            scores.append(fusion.UnitScore(
                id=row["id"], lexical=fusion.bm25(terms, doc, df, n_units, avg_length,
                                                  self.params.k1, self.params.b),
                dense=dense, is_cue=bool(row.get("is_cue")), prev_id=row.get("prev_id"),
                next_id=row.get("next_id")))
            by_id[row["id"]] = row
        fused = fusion.fuse(scores, self.params)
        self.last_details = {"units": n_units, "candidates": len(rows),
                             "dense_mode": rows[0].get("dense_mode"), "avg_length": avg_length,
                             "df": df}
        kind = self.label.lower()
        out = []
        for f in fused[:k]:
            row = by_id[f.id]
            flags = {"via_lexical": bool(row.get("via_lexical")),
                     "via_dense": bool(row.get("via_dense")),
                     "is_cue": bool(row.get("is_cue")), "is_smalltalk": bool(row.get("is_smalltalk"))}
            flags["via_neighbour"] = not (flags["via_lexical"] or flags["via_dense"])
            components = {key: value for key, value in f.components.items()
                          if not (isinstance(value, float) and math.isnan(value))}
            out.append(Candidate(id=f.id, score=f.final, components=components, flags=flags,
                                 source_ids=list(row.get("source_ids") or []),
                                 text=row.get("text") or row.get("lexical_text") or "",
                                 path=self._path(f, by_id, kind)))
        return out

    @staticmethod
    def _seed(row: dict[str, Any], kind: str) -> PathStep:
        action = "lexical_seed" if row.get("via_lexical") else (
            "dense_seed" if row.get("via_dense") else "neighbour")
        return PathStep(action=action, node=kind, id=row["id"],
                        text=(row.get("text") or "")[:80])

    def _path(self, f: fusion.Fused, by_id: dict[str, dict[str, Any]], kind: str) -> list[PathStep]:
        row = by_id[f.id]
        if f.neighbour > 0 and f.neighbour_from is not None:
            source = by_id[f.neighbour_from]
            return [self._seed(source, kind),
                    PathStep(action=NEXT_TURN, node=kind, id=f.id, text=(row.get("text") or "")[:80])]
        return [self._seed(row, kind)]


__all__ = ["Candidate", "HybridSearch", "unit_rows", "window_texts", "NEXT_TURN", "EXACT_LIMIT",
           "LEXICAL_K", "DENSE_K"]
