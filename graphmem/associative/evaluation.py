"""LoCoMo evidence recall of the associative memory against vector RAG over the raw turns
(MRAgent, seed 003, section "experiments": evidence recall, average rounds, structure ablation).

Protocol:

- each LoCoMo conversation is ingested into its own namespace ``<prefix>-<sample_id>`` (its
  ``dia_id``s repeat across conversations);
- **baseline** (vector RAG over raw turns): the question's embedding against the Episode vector
  index of that namespace; an Episode is exactly one raw turn (``"<speaker>: <text>"`` with the
  image caption the reader appends), embedded by the same embedder the associative memory uses;
- **associative**: :meth:`AssociativeMemory.recall` (heuristic routing unless an LLM is given);
  its ranked evidence is mapped to source ids (a SemanticUnit counts as the turns it was derived
  from), deduplicated, cut at ``k``;
- recall@k of a question = gold evidence ``dia_id``s found in the top ``k`` / gold evidence;
  questions without evidence are skipped; reported per category and overall (macro over
  questions);
- ablation (the paper runs it on multi-hop questions): ``ce`` cue->episode, ``cte``
  cue-tag-episode, ``ctc`` full cue-tag-content graph (episodes, semantic units, themes), each
  with the same rounds and fusion; plus ``ctc`` without vector fusion (graph ranking only) and
  ``ctc`` with one round (no multi-step reconstruction).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from graphmem.associative.reconstruction import ReconstructionConfig
from graphmem.memory import RecallResult

logger = logging.getLogger(__name__)

#: LoCoMo's QA categories.
CATEGORY_NAMES: dict[int, str] = {
    1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial",
}


def evidence_recall(retrieved: Sequence[str], gold: Sequence[str], k: int) -> float:
    """``|gold ∩ retrieved[:k]| / |gold|`` in [0, 1] (``retrieved``: unique ids, best first)."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("evidence_recall needs at least one gold id")
    return len(wanted & set(retrieved[:k])) / len(wanted)


class VariantScores(BaseModel):
    """Recall@k and rounds of one method over a set of questions."""

    questions: int = 0
    recall: dict[str, float] = Field(default_factory=dict)  # "@5" -> mean recall
    rounds: float | None = None
    seconds_per_question: float = 0.0


class Accumulator:
    """Sums recall@k and rounds per category for one method."""

    def __init__(self, ks: Sequence[int]):
        self.ks = list(ks)
        self.sums: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
        self.rounds: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)
        self.seconds: dict[str, float] = defaultdict(float)

    def add(self, category: str, retrieved: Sequence[str], gold: Sequence[str],
            rounds: int | None, seconds: float) -> None:
        """Record one question under ``category`` and ``"overall"``."""
        for key in (category, "overall"):
            self.counts[key] += 1
            self.seconds[key] += seconds
            if rounds is not None:
                self.rounds[key] += rounds
            for k in self.ks:
                self.sums[key][k] += evidence_recall(retrieved, gold, k)

    def scores(self, with_rounds: bool) -> dict[str, VariantScores]:
        """Mean recall@k (and rounds) per category and overall, 4 decimals."""
        out: dict[str, VariantScores] = {}
        for key, n in sorted(self.counts.items()):
            out[key] = VariantScores(
                questions=n,
                recall={f"@{k}": round(self.sums[key][k] / n, 4) for k in self.ks},
                rounds=round(self.rounds[key] / n, 2) if with_rounds else None,
                seconds_per_question=round(self.seconds[key] / n, 3),
            )
        return out


def ablation_variants(base: ReconstructionConfig) -> dict[str, ReconstructionConfig]:
    """The paper's structure ablation (CE, CTE, CTC) plus no-fusion and one-round variants."""
    return {
        "ce_cue_episode": base.model_copy(update={"structure": "ce"}),
        "cte_cue_tag_episode": base.model_copy(update={"structure": "cte"}),
        "ctc_cue_tag_content": base.model_copy(update={"structure": "ctc"}),
        "ctc_graph_only_no_fusion": base.model_copy(update={"structure": "ctc",
                                                            "fuse_vector": False}),
        "ctc_one_round": base.model_copy(update={"structure": "ctc", "steps": 1}),
    }


def rounds_of(result: RecallResult) -> int:
    """Reconstruction rounds run (round 0, the seeding, not counted)."""
    return sum(1 for r in result.rounds if r.number > 0)


def stop_reason_of(result: RecallResult) -> str:
    """Why reconstruction stopped (the last round's ``stop_reason``; ``step_budget`` if none)."""
    for r in reversed(result.rounds):
        if r.details.get("stop_reason"):
            return str(r.details["stop_reason"])
    return "step_budget"


def evaluate_locomo(
    memories: dict[str, Any],
    conversations: Sequence[Any],
    ks: Sequence[int] = (5, 10, 20),
    ablation_categories: Sequence[int] = (1,),
    config: ReconstructionConfig | None = None,
    max_questions: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Evidence recall@k per category: vector baseline vs associative reconstruction, and the
    structure ablation on ``ablation_categories`` (multi-hop by default, as in the paper).

    Args:
        memories: ``{conversation id: AssociativeMemory}`` (already ingested).
        conversations: LoCoMo conversations with ``qa`` (graphmem.conversations).
        ks: cut-offs.
        ablation_categories: categories the ablation runs on (empty: no ablation).
        config: reconstruction config (default: the memory's).
        max_questions: cap per conversation (for quick runs); ``None`` = all.
        progress: called with 1 after each question.
    Returns:
        JSON-ready dict: ``protocol``, ``baseline``, ``associative`` (per category),
        ``ablation`` (per variant, per category), ``delta_recall@10``.
    """
    depth = max(ks)
    base = Accumulator(ks)
    assoc = Accumulator(ks)
    variants = ablation_variants(config or next(iter(memories.values())).config)
    ablation = {name: Accumulator(ks) for name in variants} if ablation_categories else {}
    stops: dict[str, int] = defaultdict(int)
    controller = "heuristic"
    for conv in conversations:
        memory = memories[conv.id]
        controller = memory.controller
        items = [q for q in conv.qa if q.evidence][: max_questions]
        for qa in items:
            category = CATEGORY_NAMES.get(qa.category, f"category_{qa.category}")
            began = time.monotonic()
            baseline = memory.vector_search(qa.question, depth)
            base_ids = list(dict.fromkeys(s for e in baseline for s in e.source_ids))
            base.add(category, base_ids, qa.evidence, None, time.monotonic() - began)
            began = time.monotonic()
            cfg = config or memory.config
            result = memory.recall(qa.question, k=cfg.max_evidence, config=config)
            assoc.add(category, result.source_ids(depth), qa.evidence, rounds_of(result),
                      time.monotonic() - began)
            stops[stop_reason_of(result)] += 1
            if qa.category in ablation_categories:
                for name, variant in variants.items():
                    began = time.monotonic()
                    res = memory.recall(qa.question, k=variant.max_evidence, config=variant)
                    ablation[name].add(category, res.source_ids(depth), qa.evidence,
                                       rounds_of(res), time.monotonic() - began)
            if progress is not None:
                progress(1)
    base_scores = base.scores(with_rounds=False)
    assoc_scores = assoc.scores(with_rounds=True)
    delta = {
        key: round(assoc_scores[key].recall["@10"] - base_scores[key].recall["@10"], 4)
        for key in assoc_scores if "@10" in assoc_scores[key].recall
    }
    return {
        "protocol": {
            "data": "LoCoMo locomo-dev.json, questions with evidence dia_ids",
            "baseline": "vector RAG over raw turns: question embedding vs Episode vector index "
                        "(one Episode per turn, same embedder and embeddings), same namespace",
            "associative": f"{controller} active reconstruction, structure "
                           f"{(config or next(iter(memories.values())).config).structure}, "
                           "RRF fusion of the vector ranking and the graph ranking",
            "recall": "gold dia_ids in top-k unique source ids / gold dia_ids, mean over questions",
            "ablation_categories": [CATEGORY_NAMES.get(c, str(c)) for c in ablation_categories],
            "ks": list(ks),
        },
        "baseline": {k: v.model_dump(exclude={"rounds"}) for k, v in base_scores.items()},
        "associative": {k: v.model_dump() for k, v in assoc_scores.items()},
        "delta_recall@10": delta,
        "stop_reasons": dict(stops),
        "ablation": {
            name: {k: v.model_dump() for k, v in acc.scores(with_rounds=True).items()}
            for name, acc in ablation.items()
        },
    }
