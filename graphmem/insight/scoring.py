"""EvoGraph-Mem retrieval as pure functions (seed 000, eqs. 2–4 and 7–10). No I/O.

The Cypher query ``insight/recall_insights`` computes the same thing inside Neo4j; these functions
are the reference the unit tests pin with exact values (and an integration test compares both).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class InsightEvidence:
    """ι_k = (κ_k, Ω+_k, Ω−_k, z_k) (eq. 6), with query ids for Ω+ and Ω−."""

    id: str
    omega_plus: frozenset[str]
    omega_minus: frozenset[str] = frozenset()
    active: bool = True


@dataclass(frozen=True)
class ScoredInsight:
    """A candidate with s = |Ω+ ∩ Q̃ˢ|, c = |Ω− ∩ Q̃ˢ| (eq. 9) and r = s − λc (eq. 8)."""

    id: str
    s: int
    c: int
    r: float
    supporting_query_ids: tuple[str, ...]
    conflicting_query_ids: tuple[str, ...]


def top_k_queries(
    query_vector: np.ndarray, vectors: np.ndarray, ids: Sequence[str], k: int
) -> list[str]:
    """Eq. 2: the ``k`` ids whose vectors have the highest cosine similarity to the query.

    Args:
        query_vector: ``(d,)`` float.
        vectors: ``(n, d)`` float, one row per id (need not be normalised).
        ids: ``n`` query ids; ties break by id ascending (as the Cypher query does).
        k: how many, ≥ 1.
    Returns:
        Up to ``k`` ids, most similar first.
    """
    if len(ids) == 0:
        return []
    v = np.asarray(vectors, dtype=np.float64)
    q = np.asarray(query_vector, dtype=np.float64)
    cos = (v @ q) / (np.linalg.norm(v, axis=1) * np.linalg.norm(q) + 1e-12)
    order = sorted(range(len(ids)), key=lambda i: (-round(float(cos[i]), 9), ids[i]))
    return [ids[i] for i in order[:k]]


def expand_queries(seeds: Iterable[str], related: Iterable[tuple[str, str]]) -> frozenset[str]:
    """Eqs. 3–4: Q̃ˢ = Qˢ ∪ ΔQ, where ΔQ are the 1-hop neighbours of the seeds in the query graph.

    Args:
        seeds: Qˢ, query ids.
        related: RELATED_QUERY edges ``(a, b)``; direction is ignored (N(q) is undirected).
    """
    seed_set = frozenset(seeds)
    neighbours = set()
    for a, b in related:
        if a in seed_set:
            neighbours.add(b)
        if b in seed_set:
            neighbours.add(a)
    return seed_set | neighbours


def candidates(insights: Iterable[InsightEvidence], expanded: frozenset[str]) -> list[InsightEvidence]:
    """Eq. 7: I_cand = {ι_k | z_k = 1, Ω+_k ∩ Q̃ˢ ≠ ∅}."""
    return [i for i in insights if i.active and i.omega_plus & expanded]


def score(insight: InsightEvidence, expanded: frozenset[str], lam: float) -> ScoredInsight:
    """Eqs. 8–9: s = |Ω+ ∩ Q̃ˢ|, c = |Ω− ∩ Q̃ˢ|, r = s − λc.

    Args:
        lam: λ ≥ 0, the conflict penalty.
    Raises:
        ValueError: λ < 0.
    """
    if lam < 0:
        raise ValueError(f"lambda must be >= 0, got {lam!r}")
    sup = tuple(sorted(insight.omega_plus & expanded))
    con = tuple(sorted(insight.omega_minus & expanded))
    return ScoredInsight(insight.id, len(sup), len(con), float(len(sup)) - lam * len(con), sup, con)


def top_b(
    insights: Iterable[InsightEvidence], expanded: frozenset[str], lam: float, b: int
) -> list[ScoredInsight]:
    """Eq. 10: the top-``b`` candidates (eq. 7) by r; ties by s descending, then id ascending."""
    scored = [score(i, expanded, lam) for i in candidates(insights, expanded)]
    scored.sort(key=lambda x: (-x.r, -x.s, x.id))
    return scored[:b]


def retrieve(
    query_vector: np.ndarray,
    query_vectors: Mapping[str, np.ndarray],
    related: Iterable[tuple[str, str]],
    insights: Iterable[InsightEvidence],
    k: int,
    lam: float,
    b: int,
) -> list[ScoredInsight]:
    """Eqs. 2–4 and 7–10 end to end on an in-memory graph (the reference for the Cypher query)."""
    ids = sorted(query_vectors)
    matrix = np.stack([query_vectors[i] for i in ids]) if ids else np.zeros((0, len(query_vector)))
    seeds = top_k_queries(query_vector, matrix, ids, k)
    return top_b(insights, expand_queries(seeds, related), lam, b)
