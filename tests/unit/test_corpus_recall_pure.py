"""Plain baselines (bm25, exact dense cosine, RRF hybrid) on a 6-turn corpus with a deterministic
embedder, session recall, and the corpus report table (best plain baseline marked)."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import numpy as np
import pytest

from graphmem.conversations import Turn
from graphmem.errors import InvalidInputError
from graphmem.evaluation.corpora import corpus_markdown, corpus_table
from graphmem.evaluation.corpus_recall import PlainBaselines, session_recall

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
TEXTS = ["I bought a new guitar yesterday.", "The weather was rainy all week.",
         "My kitten sleeps on the sofa.", "We ate ramen for dinner.",
         "The zorblax invoice is due Friday.", "I drove the car to Lyon."]
TURNS = [Turn(source_id=f"d{i}", speaker="Ann" if i % 2 == 0 else "Bob", text=text,
              timestamp=T0, session=f"s{i // 2}", position=i) for i, text in enumerate(TEXTS)]

#: Angle (degrees) of a text's 2-d vector: its first keyword's, else 180.
ANGLES = {"guitar": 0, "rainy": 30, "kitten": 60, "ramen": 90, "zorblax": 120, "car": 150,
          "cat": 62}


class AngleEmbedder:
    """Deterministic 2-d embedder: a text is the unit vector at its first keyword's angle;
    documents come back scaled by 3 (the baseline normalises them)."""

    dimension = 2

    def __init__(self) -> None:
        self.documents: list[list[str]] = []

    @staticmethod
    def _vector(text: str) -> np.ndarray:
        words = text.lower().replace("?", " ").replace(".", " ").split()
        angle = next((ANGLES[w] for w in words if w in ANGLES), 180)
        return np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))],
                        dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.documents.append(list(texts))
        return np.stack([3 * self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


def test_documents_are_the_raw_turns_embedded_once() -> None:
    embedder = AngleEmbedder()
    PlainBaselines(TURNS, embedder)
    assert embedder.documents == [[f"{t.speaker}: {t.text}" for t in TURNS]]


def test_bm25_finds_the_exact_term_turn_first() -> None:
    ranked = PlainBaselines(TURNS, AngleEmbedder()).rank("When is the zorblax invoice due?", 6)
    assert ranked["bm25"] == ["d4"]  # the only turn sharing a term with the question


def test_dense_ranks_by_cosine_to_the_query() -> None:
    base = PlainBaselines(TURNS, AngleEmbedder())
    ranked = base.rank("Where does the cat nap?", 6)  # query at 62 degrees
    assert ranked["bm25"] == []                          # no shared term
    assert ranked["dense"] == ["d2", "d3", "d1", "d4", "d0", "d5"]  # 2, 28, 32, 58, 62, 88 degrees
    assert base.rank("Where does the cat nap?", 2)["dense"] == ["d2", "d3"]
    assert ranked["hybrid"] == ranked["dense"]


def test_hybrid_is_reciprocal_rank_fusion_of_both_lists() -> None:
    ranked = PlainBaselines(TURNS, AngleEmbedder()).rank("Is the cat near the zorblax?", 6)
    assert ranked["bm25"] == ["d4"]
    assert ranked["dense"] == ["d2", "d3", "d1", "d4", "d0", "d5"]
    # RRF, k = 60: d4 1/61 + 1/64, d2 1/61, d3 1/62, d1 1/63, d0 1/65, d5 1/66
    assert ranked["hybrid"] == ["d4", "d2", "d3", "d1", "d0", "d5"]
    assert PlainBaselines(TURNS, AngleEmbedder()).rank("cat zorblax", 2)["hybrid"] == ["d4", "d2"]


def test_bad_input_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="at least one turn"):
        PlainBaselines([], AngleEmbedder())
    with pytest.raises(InvalidInputError, match="depth"):
        PlainBaselines(TURNS, AngleEmbedder()).rank("cat", 0)


def test_session_recall_counts_distinct_sessions() -> None:
    session_of = {"a": "s1", "b": "s1", "c": "s2", "d": "s3", "e": "s4"}
    assert session_recall(["a", "b", "c", "d"], ["d"], session_of, k=3) == 1.0
    assert session_recall(["a", "b", "c", "d"], ["d"], session_of, k=2) == 0.0
    # the third id is only the second session
    assert session_recall(["a", "b", "c"], ["c"], session_of, k=2) == 1.0
    # a gold turn of the same session as a retrieved one counts; any gold id is enough
    assert session_recall(["b"], ["a"], session_of, k=1) == 1.0
    assert session_recall(["e", "c"], ["d", "c"], session_of, k=2) == 1.0
    # ids without a session are passed over; nothing retrieved is 0
    assert session_recall(["zz", "c"], ["c"], session_of, k=1) == 1.0
    assert session_recall([], ["c"], session_of) == 0.0
    with pytest.raises(InvalidInputError, match="k must be"):
        session_recall(["a"], ["a"], session_of, k=0)
    with pytest.raises(InvalidInputError, match="no gold id"):
        session_recall(["a"], ["nope"], session_of)


def _section() -> dict:
    def cats(overall: float, a: float, b: float) -> dict:
        return {"a": {"recall@10": a, "questions": 2}, "b": {"recall@10": b, "questions": 1},
                "overall": {"recall@10": overall, "questions": 3}}

    return {"conversations": ["c1"], "questions": 3, "skipped_questions": 0,
            "protocol": "setting x",
            "recall": {"fused": cats(0.9, 1.0, 0.7), "state": cats(0.5, 0.5, 0.5),
                       "associative": cats(0.4, 0.4, 0.4), "bm25": cats(0.6, 0.8, 0.2),
                       "dense": cats(0.7, 0.6, 0.9), "hybrid": cats(0.7, 0.8, 0.5)},
            "session_recall@5": {m: {"overall": v} for m, v in
                                 {"fused": 1.0, "state": 0.5, "associative": 0.5, "bm25": 0.4,
                                  "dense": 0.6, "hybrid": 0.5}.items()},
            "latency_ms": {"fused": {"p50": 10.0, "p95": 20.0}},
            "ingest_seconds": {"state": 1.0, "associative": 2.0, "baselines": 0.1}}


def test_corpus_table_marks_the_best_plain_baseline_per_column() -> None:
    header, rows, marked = corpus_table(_section())
    assert header == ["method", "R@10", "session R@5", "a R@10", "b R@10"]
    assert [r[0] for r in rows] == ["fused", "state", "associative", "bm25", "dense", "hybrid"]
    assert rows[0] == ["fused", 0.9, 1.0, 1.0, 0.7]
    # overall: dense and hybrid tie at 0.7; session: dense; a: bm25 and hybrid; b: dense
    assert marked == {(4, 1), (5, 1), (4, 2), (3, 3), (5, 3), (4, 4)}
    md = corpus_markdown("beam", _section())
    assert md.startswith("### BEAM") and "| dense | **0.7** | **0.6** | 0.6 | **0.9** |" in md
    assert "per category: a 2, b 1" in md
    assert corpus_markdown("beam", {"skipped": "skipped: not here"}) == "### BEAM\n\nSkipped: not here.\n"
