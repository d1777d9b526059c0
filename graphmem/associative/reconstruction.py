"""Active reconstruction: its knobs, the reconstruction state and the graph step's scores
(MRAgent, seed 003, section 4 / 6: the reconstruction state ``S(t) = (Z(t), H(t))`` and its
traversal actions). Pure: no I/O.

The reconstructed context ``H`` is the retrieval engine's candidate set of the question
(:class:`graphmem.retrieval.HybridSearch`, the seed round): every content is scored by the engine's
fusion. Each reconstruction round activates cues ``Z`` — round 1 the question's cues matched to
stored Cue nodes by text, later rounds the cues of the best contents found so far (the backward
action content → cue) — follows each cue's tags the router picks (cue → tag) to their contents
(cue + tag → content), and gives every content of ``H`` so reached the graph step of
:mod:`graphmem.retrieval.fusion` (step 6)::

    w(c) = ln(N / n_c) / ln(N)                 n_c = the episodes cue c leads to, N = all episodes
    g_i  = max_{paths source m -> cue c -> tag -> i}  γ · w(c) · x_m

with ``x_m`` the source's excess (the question's: the best fused score minus the median; a
content's: its own fused score minus the median), so a cue that leads everywhere (a speaker's name)
moves nothing and a rare one (a name, an object) lifts the contents it leads to. Cues that lead to
more than ``hub_share`` of the episodes are not followed. A tag's relevance is the share of its
terms that are question terms (the heuristic router follows the ``tag_beam`` best).

Stop rule: the round budget is spent, a round adds no content to the top ``stop_top_k``, no new
cue can be activated, or (LLM routing) the model says the evidence suffices.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from graphmem.associative.models import Structure
from graphmem.memory import PathStep

logger = logging.getLogger(__name__)


class ReconstructionConfig(BaseModel):
    """Knobs of active reconstruction (the parameters and their values are justified in
    docs/associative.md)."""

    steps: int = Field(default=1, ge=0, le=10, description="reconstruction rounds after the seed")
    structure: Structure = Field(default="ctc", description="ce | cte | ctc (paper's ablation)")
    pool: int = Field(default=30, ge=1, description="contents of H kept per round (≥ k)")
    tags_per_cue: int = Field(default=8, ge=1, description="tags of one cue offered to the router")
    tag_beam: int = Field(default=16, ge=1, description="tags followed per round")
    contents_per_tag: int = Field(default=20, ge=1, description="contents read per tag")
    cue_beam: int = Field(default=6, ge=0, description="cues activated backward per round")
    backward_from: int = Field(default=3, ge=0, description="best contents expanded backward")
    hub_share: float = Field(default=0.05, gt=0.0, le=1.0,
                             description="cues leading to more than this share of episodes are "
                                         "not followed")
    graph_weight: float = Field(default=0.25, ge=0.0, description="γ of the graph step")
    stop_top_k: int = Field(default=10, ge=1)


def specificity(contents: int, total: int) -> float:
    """``ln(N / n_c) / ln(N)`` in [0, 1]; 0 for a cue that leads to every episode or when
    ``total`` < 2."""
    if total < 2 or contents < 1:
        return 0.0
    return max(0.0, math.log(total / min(contents, total)) / math.log(total))


def tag_relevance(tag_terms: Iterable[str], question_terms: Iterable[str]) -> float:
    """Share of a tag's distinct terms that are question terms, in [0, 1] (0 for no terms)."""
    tag = set(tag_terms)
    return len(tag & set(question_terms)) / len(tag) if tag else 0.0


class ActiveCue(BaseModel):
    """A cue in ``Z``: its text, kind, the source that activated it (``"question"`` or a content
    id), its weight ``w(c)`` and the path from the question to it."""

    id: str
    text: str
    kind: str = "keyword"
    source: str
    weight: float
    path: list[PathStep] = Field(default_factory=list)


class ReconstructionState(BaseModel):
    """``S = (Z, H)`` bookkeeping across rounds: the cues already activated, the tags already
    followed, the graph step earned so far (``graph``: content id -> (g_i, source)) and the path of
    each content reached through the graph."""

    visited_cues: set[str] = Field(default_factory=set)
    followed_tags: set[str] = Field(default_factory=set)
    graph: dict[str, tuple[float, str | None]] = Field(default_factory=dict)
    paths: dict[str, list[PathStep]] = Field(default_factory=dict)
    facts: dict[str, list[str]] = Field(default_factory=dict)

    def reach(self, content_id: str, value: float, source: str, path: list[PathStep]) -> bool:
        """Record a path to ``content_id`` worth ``value``; True when it raises the content's
        graph step."""
        if value <= self.graph.get(content_id, (0.0, None))[0]:
            return False
        self.graph[content_id] = (value, source)
        self.paths[content_id] = path
        return True


def select_top(scored: Iterable[tuple[str, float]], k: int) -> list[str]:
    """Ids of the ``k`` best ``(id, score)`` pairs (ties by id), first occurrence of an id."""
    best: dict[str, float] = {}
    for key, score in scored:
        if key not in best or score > best[key]:
            best[key] = score
    return [key for key, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def question_cue_texts(cues: Sequence[str]) -> list[str]:
    """The normalised question cues, each once, in order."""
    return list(dict.fromkeys(c for c in cues if c))
