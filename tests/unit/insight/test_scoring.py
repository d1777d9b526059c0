"""Eqs. 2–4 and 7–10 of EvoGraph-Mem on hand-built graphs, exact values."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.insight.scoring import (
    InsightEvidence,
    candidates,
    expand_queries,
    retrieve,
    score,
    top_b,
    top_k_queries,
)

# Query graph: q1 - q2 - q3, q4 isolated, q5 - q6.
RELATED = [("q1", "q2"), ("q3", "q2"), ("q5", "q6")]
INSIGHTS = [
    InsightEvidence("iA", frozenset({"q1", "q2", "q4"}), frozenset({"q3"})),          # s=2 c=1
    InsightEvidence("iB", frozenset({"q3"}), frozenset()),                            # s=1 c=0
    InsightEvidence("iC", frozenset({"q1", "q2", "q3"}), frozenset({"q2", "q3", "q1"}), True),
    InsightEvidence("iD", frozenset({"q1", "q2"}), frozenset(), active=False),        # archived
    InsightEvidence("iE", frozenset({"q5"}), frozenset()),                            # off-subgraph
    InsightEvidence("iF", frozenset({"q4"}), frozenset({"q1"})),                      # no Ω+ hit
]


def test_expansion_adds_one_hop_neighbours_both_directions() -> None:
    assert expand_queries(["q1"], RELATED) == {"q1", "q2"}
    assert expand_queries(["q2"], RELATED) == {"q1", "q2", "q3"}  # q3->q2 taken backwards
    assert expand_queries(["q1", "q4"], RELATED) == {"q1", "q2", "q4"}
    assert expand_queries([], RELATED) == frozenset()


def test_candidates_are_active_with_positive_evidence_in_the_subgraph() -> None:  # eq. 7
    expanded = expand_queries(["q2"], RELATED)  # {q1, q2, q3}
    assert [i.id for i in candidates(INSIGHTS, expanded)] == ["iA", "iB", "iC"]


def test_s_c_r_exact_values() -> None:  # eqs. 8-9
    expanded = frozenset({"q1", "q2", "q3"})
    a = score(INSIGHTS[0], expanded, lam=1.0)
    assert (a.s, a.c, a.r) == (2, 1, 1.0)
    assert a.supporting_query_ids == ("q1", "q2") and a.conflicting_query_ids == ("q3",)
    c = score(INSIGHTS[2], expanded, lam=0.5)
    assert (c.s, c.c, c.r) == (3, 3, 1.5)
    assert score(INSIGHTS[2], expanded, lam=2.0).r == -3.0
    assert score(INSIGHTS[0], expanded, lam=0.0).r == 2.0


def test_top_b_order_depends_on_lambda() -> None:  # eq. 10
    expanded = frozenset({"q1", "q2", "q3"})
    no_penalty = top_b(INSIGHTS, expanded, lam=0.0, b=3)
    assert [(x.id, x.r) for x in no_penalty] == [("iC", 3.0), ("iA", 2.0), ("iB", 1.0)]
    penalised = top_b(INSIGHTS, expanded, lam=1.0, b=3)
    # iA r=1 s=2 beats iB r=1 s=1 on the s tie-break; iC falls to r=0
    assert [(x.id, x.r) for x in penalised] == [("iA", 1.0), ("iB", 1.0), ("iC", 0.0)]
    assert [x.id for x in top_b(INSIGHTS, expanded, lam=1.0, b=1)] == ["iA"]


def test_ties_break_by_id() -> None:
    tied = [InsightEvidence("z", frozenset({"q1"})), InsightEvidence("a", frozenset({"q1"}))]
    assert [x.id for x in top_b(tied, frozenset({"q1"}), 1.0, 2)] == ["a", "z"]


def test_negative_lambda_is_refused() -> None:
    with pytest.raises(ValueError, match="lambda"):
        score(INSIGHTS[0], frozenset({"q1"}), -0.1)


def test_top_k_queries_by_cosine() -> None:  # eq. 2
    vectors = np.array([[1, 0], [0.8, 0.6], [0, 1], [-1, 0]], dtype=np.float32)
    ids = ["q1", "q2", "q3", "q4"]
    assert top_k_queries(np.array([1.0, 0.1]), vectors, ids, 2) == ["q1", "q2"]
    assert top_k_queries(np.array([0.0, 2.0]), vectors * 3, ids, 1) == ["q3"]  # scale-free


def test_retrieve_end_to_end() -> None:
    vectors = {"q1": np.array([1.0, 0.0]), "q2": np.array([0.0, 1.0]), "q3": np.array([-1.0, 0.0]),
               "q4": np.array([0.7, 0.7]), "q5": np.array([0.0, -1.0]), "q6": np.array([0.1, -1.0])}
    out = retrieve(np.array([1.0, 0.05]), vectors, RELATED, INSIGHTS, k=1, lam=1.0, b=5)
    # seeds {q1}; expanded {q1, q2}; iA s=2 c=0, iC s=2 c=2 r=0, iF has no Ω+ hit
    assert [(x.id, x.s, x.c, x.r) for x in out] == [("iA", 2, 0, 2.0), ("iC", 2, 2, 0.0)]
