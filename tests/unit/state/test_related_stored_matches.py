"""stored_matches: the exact scan of a conversation's stored events that RELATED_EVENT partners
come from (pure, no database)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.state.related import StoredMatch, stored_matches


def _brute(vectors, topics, stored, per_event):
    out = []
    for i, (vec, topic) in enumerate(zip(vectors, topics, strict=True)):
        scored = []
        for row in stored:
            if row["topic_id"] == topic:
                continue
            a, b = np.asarray(vec, float), np.asarray(row["embedding"], float)
            cosine = round(float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)), 9)
            scored.append((-cosine, row["id"], row))
        for neg, _, row in sorted(scored, key=lambda x: (x[0], x[1]))[:per_event]:
            out.append((i, row["id"], row["topic_id"], round(-neg, 9)))
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n_new=st.integers(1, 5), n_stored=st.integers(0, 30),
       per_event=st.integers(1, 4), width=st.integers(2, 6))
def test_equals_a_brute_force_scan_ties_by_id(seed, n_new, n_stored, per_event, width) -> None:
    rng = np.random.default_rng(seed)
    # small integer vectors: many exact ties, so the id order of ties is exercised
    vectors = rng.integers(-2, 3, size=(n_new, width)).astype(float)
    vectors[np.abs(vectors).sum(axis=1) == 0, 0] = 1.0
    topics = [f"t{rng.integers(0, 3)}" for _ in range(n_new)]
    stored = []
    for j in range(n_stored):
        emb = rng.integers(-2, 3, size=width).astype(float)
        if not emb.any():
            emb[0] = 1.0
        stored.append({"id": f"e{rng.integers(0, 10**6):07d}-{j}", "topic_id": f"t{rng.integers(0, 3)}",
                       "embedding": emb.tolist()})
    got = [(m.index, m.id, m.topic_id, round(m.similarity, 9))
           for m in stored_matches(vectors, topics, stored, per_event)]
    assert got == _brute(vectors, topics, stored, per_event)


def test_unscoreable_rows_and_vectors_take_no_part() -> None:
    stored = [{"id": "a", "topic_id": "x", "embedding": [1.0, 0.0]},
              {"id": "b", "topic_id": "x", "embedding": [0.0, 0.0]},         # all zero
              {"id": "c", "topic_id": "x", "embedding": [float("nan"), 1.0]},  # not finite
              {"id": "d", "topic_id": "x", "embedding": [1.0, 0.0, 0.0]},     # other width
              {"id": "e", "topic_id": "x", "embedding": None},
              {"id": "f", "topic_id": "y", "embedding": [1.0, 1.0]}]         # the row's topic
    vectors = np.array([[1.0, 1.0], [0.0, 0.0]])
    got = stored_matches(vectors, ["y", "y"], stored, 5)
    assert got == [StoredMatch(index=0, id="a", topic_id="x", similarity=pytest.approx(2 ** -0.5))]


def test_nothing_to_match() -> None:
    vectors = np.array([[1.0, 0.0]])
    assert stored_matches(vectors, ["t"], [], 3) == []
    assert stored_matches(vectors, ["t"], [{"id": "a", "topic_id": "u", "embedding": [1.0, 0.0]}], 0) == []
    with pytest.raises(ValueError, match="stored_matches"):
        stored_matches(vectors, ["t", "u"], [], 3)
