"""Active reconstruction state and heuristic scoring (MRAgent, seed 003, section 4 / 6: the
reconstruction state ``S(t) = (Z(t), H(t))`` and its traversal actions). Pure: no I/O.

- ``Z``: active cues (with the weight they carry), the tags already followed, and the contents
  found last round (the frontier of the backward action content->cue/tag).
- ``H``: the reconstructed context, ``{content id: Evidence}``, each with the path that reached it.

Heuristic routing scores:

- cue weight ``w(c) = match(c) * idf(c)``, ``idf(c) = log(1 + N / n_c) / log(1 + N)`` with ``n_c``
  the contents the cue leads to and ``N`` the contents in the namespace (so a speaker's name
  that leads everywhere weighs little); ``match`` is 1 for a text match, the cosine for a vector
  match, and ``decay * cosine`` for a cue reached backward from found content (novel cues only);
- tag score ``w(c) * max(0, cos(g, q))`` (the tag's embedding includes its cue's text);
- content graph score: the sum over the distinct cues whose paths reach it of their best
  ``w(c) * max(0, cos(g, q))`` (several question cues meeting in one content add up);
- content score ``cos(v, q) + graph_weight * graph_score`` (cosine in [-1, 1]);
- final order: reciprocal rank fusion (Cormack et al. 2009) of the vector ranking of the
  question over episodes and the graph ranking of ``H``: ``sum_l 1 / (rrf_k + rank_l)``.

Stop rule: the step budget is spent, or a round adds no evidence that enters the current
top-``stop_top_k`` of ``H`` (no new evidence over the threshold), or (LLM routing) the model says the
evidence suffices.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from graphmem.associative.models import Evidence, PathStep, Structure

logger = logging.getLogger(__name__)


class ReconstructionConfig(BaseModel):
    """Knobs of active reconstruction (defaults tuned on LoCoMo dev, heuristic routing)."""

    steps: int = Field(default=3, ge=1, le=10, description="step budget (rounds)")
    structure: Structure = Field(default="ctc", description="ce | cte | ctc (paper's ablation)")
    fuse_vector: bool = Field(default=True, description="fuse the vector ranking (RRF)")
    vector_k: int = Field(default=100, ge=1, description="episodes in the vector ranking")
    seed_k: int = Field(default=5, ge=0, description="top vector episodes put into H at start")
    cue_vector_k: int = Field(default=3, ge=0, description="Cue matches per question cue by vector")
    cue_min_cosine: float = Field(default=0.6, description="min cosine of a vector-matched cue")
    tags_per_cue: int = Field(default=8, ge=1)
    tag_beam: int = Field(default=16, ge=1, description="tags followed per round")
    cue_beam: int = Field(default=6, ge=0, description="new cues activated backward per round")
    backward_from: int = Field(default=5, ge=0, description="top new contents expanded backward")
    backward_decay: float = Field(default=0.5, ge=0.0, le=1.0)
    themes: int = Field(default=2, ge=0, description="themes expanded per round (ctc)")
    episodes_per_theme: int = Field(default=3, ge=0)
    ce_per_cue: int = Field(default=10, ge=1, description="episodes per cue in the CE ablation")
    graph_weight: float = Field(default=1.0, ge=0.0)
    rrf_k: int = Field(default=60, ge=1)
    graph_list_weight: float = Field(default=1.0, ge=0.0, description="RRF weight of the graph list")
    stop_top_k: int = Field(default=10, ge=1)
    max_evidence: int = Field(default=50, ge=1, description="evidence returned")


def idf(contents: int, total: int) -> float:
    """``log(1 + N / n_c) / log(1 + N)`` in (0, 1]; 1.0 when ``total`` is unknown (0)."""
    if total <= 1:
        return 1.0
    n_c = max(1, contents)
    return math.log(1.0 + total / n_c) / math.log(1.0 + total)


class ActiveCue(BaseModel):
    """A cue in ``Z``: its weight ``w(c)`` and the path that activated it."""

    id: str
    text: str
    kind: str = "keyword"
    weight: float
    path: list[PathStep] = Field(default_factory=list)


class ReconstructionState(BaseModel):
    """``S = (Z, H)`` plus bookkeeping (what was already expanded)."""

    active_cues: dict[str, ActiveCue] = Field(default_factory=dict)  # Z: cues of this round
    visited_cues: set[str] = Field(default_factory=set)
    followed_tags: set[str] = Field(default_factory=set)  # Z: tags already followed
    frontier: list[str] = Field(default_factory=list)  # Z: contents found last round
    evidence: dict[str, Evidence] = Field(default_factory=dict)  # H
    cue_hits: dict[str, dict[str, float]] = Field(default_factory=dict)  # content -> cue -> best
    visited_themes: set[str] = Field(default_factory=set)

    def activate(self, cue: ActiveCue) -> bool:
        """Put ``cue`` into Z unless already visited; True if it is new (novel)."""
        if cue.id in self.visited_cues:
            return False
        self.visited_cues.add(cue.id)
        self.active_cues[cue.id] = cue
        return True

    def top_ids(self, k: int) -> list[str]:
        """Ids of the best ``k`` evidence items by score."""
        ranked = sorted(self.evidence.values(), key=lambda e: (-e.score, e.id))
        return [e.id for e in ranked[:k]]

    def kth_score(self, k: int) -> float:
        """Score of the k-th best evidence item (``-inf`` when H holds fewer)."""
        ranked = sorted((e.score for e in self.evidence.values()), reverse=True)
        return ranked[k - 1] if len(ranked) >= k else float("-inf")

    def add_content(
        self,
        row: dict,
        path: list[PathStep],
        round_no: int,
        graph_weight: float,
        cue_id: str | None = None,
        path_score: float = 0.0,
    ) -> tuple[Evidence, bool]:
        """Add (or strengthen) a content in H.

        ``row`` holds ``id, kind, text, source_ids, score`` (cosine to the question in [-1, 1]).
        A path from cue ``cue_id`` with ``path_score`` adds to the graph score (best per cue).
        Returns the evidence and whether it is new to H.
        """
        cid = row["id"]
        hits = self.cue_hits.setdefault(cid, {})
        if cue_id is not None:
            hits[cue_id] = max(hits.get(cue_id, 0.0), path_score)
        graph_score = sum(hits.values())
        similarity = float(row.get("score") or 0.0)
        existing = self.evidence.get(cid)
        action = path[-1].action if path else "unknown"
        if existing is not None:
            if action not in existing.found_by:
                existing.found_by.append(action)
            existing.graph_score = graph_score
            existing.score = existing.similarity + graph_weight * graph_score
            return existing, False
        evidence = Evidence(
            id=cid,
            kind=row.get("kind", "episode"),
            text=row["text"],
            source_ids=list(row.get("source_ids") or []),
            conversation_id=row.get("conversation_id") or "",
            occurred_at=row.get("occurred_at"),
            similarity=similarity,
            graph_score=graph_score,
            score=similarity + graph_weight * graph_score,
            round=round_no,
            path=path,
            found_by=[action],
        )
        self.evidence[cid] = evidence
        return evidence, True


def tag_score(cue_weight: float, tag_cosine: float) -> float:
    """Heuristic score of following tag ``g`` of cue ``c``: ``w(c) * max(0, cos(g, q))``."""
    return cue_weight * max(0.0, tag_cosine)


def backward_cue_weight(cosine: float, contents: int, total: int, decay: float) -> float:
    """Weight of a cue found backward from content: ``decay * max(0, cos(c, q)) * idf(c)``."""
    return decay * max(0.0, cosine) * idf(contents, total)


def select_top(items: Iterable[tuple[str, float]], k: int) -> list[str]:
    """The ``k`` keys with the highest score (ties by key, deterministic)."""
    return [key for key, _ in sorted(items, key=lambda kv: (-kv[1], kv[0]))[:k]]


def rrf_fuse(rankings: Sequence[Sequence[str]], weights: Sequence[float], k: int = 60) -> dict[str, float]:
    """Reciprocal rank fusion: ``score(d) = sum_l w_l / (k + rank_l(d))``, ranks from 1.

    Args:
        rankings: lists of ids, best first.
        weights: one weight per list.
        k: the RRF constant (60 in Cormack et al. 2009).
    Returns:
        ``{id: fused score}``.
    """
    fused: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + weight / (k + rank)
    return fused
