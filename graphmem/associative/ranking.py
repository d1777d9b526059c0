"""Conversion of the associative memory's ranking to recall items and rounds (pure; no I/O)."""

from __future__ import annotations

import logging
from typing import Any

from graphmem.associative.models import AssociativeItem, RoundTrace
from graphmem.associative.reconstruction import ReconstructionState
from graphmem.memory import PathStep, Round
from graphmem.retrieval import Candidate, stored_time
from graphmem.retrieval.passages import matched_passage

logger = logging.getLogger(__name__)


def _iso(value: Any) -> str | None:
    """A stored time as ISO 8601 text (Neo4j ``DateTime`` or Python ``datetime``), else None."""
    if value is None:
        return None
    return value.iso_format() if hasattr(value, "iso_format") else str(value)


def to_items(ranked: list[Candidate], units: dict[str, dict[str, Any]],
             state: ReconstructionState | None, question: PathStep,
             rounds_of: dict[str, int]) -> list[AssociativeItem]:
    """Engine candidates (best first) as :class:`AssociativeItem` s: ``score`` the engine's final
    score, ``similarity`` the dense cosine, ``graph_score`` the graph step, ``facts`` the
    semantic units the reconstruction reached through the episode, ``round`` the round that
    lifted it (1 = seed), ``path`` from the question to the episode, ``passage`` the passage of a
    long message whose vector matched (None when its window vector did)."""
    out = []
    for c in ranked:
        unit = units.get(c.id, {})
        found = [c.path[0].action] if c.path else []
        if c.components.get("graph", 0.0) > 0:
            found.append("cue_tag_to_content")
        out.append(AssociativeItem(
            id=c.id, kind="episode", text=c.text, score=c.score,
            source_ids=list(dict.fromkeys(c.source_ids)), path=[question, *c.path],
            conversation_id=unit.get("conversation") or "",
            occurred_at=_iso(stored_time(unit.get("occurred_at"))), similarity=float(c.components.get("dense", 0.0)),
            graph_score=float(c.components.get("graph", 0.0)), round=rounds_of.get(c.id, 1),
            found_by=list(dict.fromkeys(found)),
            facts=list((state.facts if state else {}).get(c.id, [])),
            passage=matched_passage(c.text, c.passage)))
    return out


def round_action(trace: RoundTrace) -> str:
    """The main action of a round: ``seed`` for round 1, else ``cue_to_tag`` (``stop`` when the
    round had no candidate)."""
    if trace.round == 1:
        return "seed"
    return "cue_to_tag" if trace.candidates.get("cue_to_tag") else "stop"


def to_rounds(trace: list[RoundTrace]) -> list[Round]:
    """The reconstruction trace as :class:`~graphmem.memory.Round` s (number = round, 1 = seed;
    ``added`` = contents that entered the top ``stop_top_k``; ``details``: active_cues, candidates,
    selected_tags, new_cues, stop, stop_reason)."""
    return [Round(number=t.round, action=round_action(t), reason=t.stop_reason or "",
                  added=list(t.new_evidence),
                  details={"active_cues": t.active_cues, "candidates": t.candidates,
                           "selected_tags": t.selected_tags, "new_cues": t.new_cues,
                           "stop": t.stop, "stop_reason": t.stop_reason})
            for t in trace]
