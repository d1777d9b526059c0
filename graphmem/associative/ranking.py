"""Final ranking of the associative memory's evidence and its conversion to recall items and
rounds (pure; no I/O)."""

from __future__ import annotations

import logging
from graphmem.associative.models import AssociativeItem, Evidence, RoundTrace
from graphmem.associative.reconstruction import ReconstructionConfig, ReconstructionState, rrf_fuse
from graphmem.memory import PathStep, Round

logger = logging.getLogger(__name__)


def final_ranking(state: ReconstructionState, vector_rows: list[dict], q_step: PathStep,
                  cfg: ReconstructionConfig) -> list[Evidence]:
    """Final order of the evidence (MRAgent §6): reciprocal rank fusion of the vector ranking
    and the graph ranking (``cfg.fuse_vector``; weights ``1`` and ``cfg.graph_list_weight``,
    constant ``cfg.rrf_k``), else the graph score; ties by id. Sets ``rank_score``."""
    graph_ranked = sorted(state.evidence.values(), key=lambda e: (-e.score, e.id))
    if not cfg.fuse_vector:
        for e in graph_ranked:
            e.rank_score = e.score
        return graph_ranked
    pool = dict(state.evidence)
    for row in vector_rows:
        if row["id"] not in pool:
            pool[row["id"]] = Evidence(
                id=row["id"], kind="episode", text=row["text"], source_ids=row["source_ids"],
                conversation_id=row.get("conversation_id") or "",
                occurred_at=row.get("occurred_at"), similarity=row["score"],
                score=row["score"], round=0, path=[q_step])
    fused = rrf_fuse([[r["id"] for r in vector_rows], [e.id for e in graph_ranked]],
                     [1.0, cfg.graph_list_weight], cfg.rrf_k)
    for key, value in fused.items():
        pool[key].rank_score = value
    return sorted(pool.values(), key=lambda e: (-e.rank_score, e.id))


def to_items(evidence: list[Evidence]) -> list[AssociativeItem]:
    """Evidence (ranked) as :class:`AssociativeItem` (score = ``rank_score``)."""
    return [AssociativeItem(id=e.id, kind=e.kind, text=e.text, score=e.rank_score,
                            source_ids=list(dict.fromkeys(e.source_ids)), path=list(e.path),
                            conversation_id=e.conversation_id, occurred_at=e.occurred_at,
                            similarity=e.similarity, graph_score=e.graph_score, round=e.round,
                            found_by=list(e.found_by))
            for e in evidence]


def round_action(trace: RoundTrace) -> str:
    """The main action of a round: ``seed`` for round 0, else the expansion with the most
    candidates (``cue_to_tag``, ``cue_to_content``, ``theme_to_episode``, ...)."""
    if trace.round == 0:
        return "seed"
    if not trace.candidates:
        return "stop"
    return max(trace.candidates.items(), key=lambda kv: (kv[0] in ("cue_to_tag", "cue_to_content"), kv[1]))[0]


def to_rounds(trace: list[RoundTrace]) -> list[Round]:
    """The reconstruction trace as :class:`~graphmem.memory.Round` s (number = round, 0 = seed;
    ``added`` = new evidence; ``details``: active_cues, candidates, selected_tags, new_cues,
    stop, stop_reason)."""
    return [Round(number=t.round, action=round_action(t), reason=t.stop_reason or "",
                  added=list(t.new_evidence),
                  details={"active_cues": t.active_cues, "candidates": t.candidates,
                           "selected_tags": t.selected_tags, "new_cues": t.new_cues,
                           "stop": t.stop, "stop_reason": t.stop_reason})
            for t in trace]
