"""Routing: which candidate tags to follow each round, and whether the evidence suffices
(MRAgent, seed 003, section 4 "LLM routing and state update" / "termination").

- :class:`HeuristicAssociativeRouter`: the ``tag_beam`` best tags by ``w(c) * relevance(g, q)``
  (cue specificity times the share of the tag's terms that are question terms, see
  :mod:`graphmem.associative.reconstruction`); never declares sufficiency (the stop rule and the
  round budget stop it).
- :class:`LLMAssociativeRouter`: a langchain-core chat model picks the relevant tags by number and says
  whether the evidence so far answers the question (structured output, one retry, then
  ``ControllerError``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from graphmem.associative.reconstruction import select_top
from graphmem.errors import ControllerError
from graphmem.llm import LLMUsage, constrained_schema, invoke_structured

logger = logging.getLogger(__name__)


class TagCandidate(BaseModel):
    """A tag reachable from an active cue (cue->tag): ``relevance`` is the share of its terms that
    are question terms in [0, 1]; ``score`` = cue specificity × relevance; ``contents`` the
    contents read for it."""

    cue_id: str
    cue_text: str
    tag_id: str
    tag_text: str
    relevance: float
    score: float
    contents: int = 0


class RouteDecision(BaseModel):
    """The router's choice for one round."""

    tag_ids: list[str]
    sufficient: bool = False
    reason: str = ""


class HeuristicAssociativeRouter:
    """Heuristic routing: top ``beam`` tags by score, never "sufficient"."""

    name = "heuristic"

    def __init__(self, beam: int = 16):
        self.beam = beam

    def route(self, question: str, evidence: Sequence[Any],
              candidates: Sequence[TagCandidate]) -> RouteDecision:
        """Pick the ``beam`` best-scoring candidates with a positive score (a tag sharing no term
        with the question is not followed)."""
        chosen = select_top(((c.tag_id, c.score) for c in candidates if c.score > 0), self.beam)
        return RouteDecision(tag_ids=chosen, reason="heuristic: top tags by w(c) * relevance(g, q)")


class LLMRouting(BaseModel):
    """Structured output of the LLM router."""

    selected: list[int] = Field(
        default_factory=list, description="numbers of the tags worth following (may be empty)"
    )
    sufficient: bool = Field(description="true if the evidence so far answers the question")
    reason: str = Field(default="", description="one short sentence")


_SYSTEM = (
    "You reconstruct memories to answer a question. Memory is a graph cue -> tag -> content. "
    "Given the question, the evidence found so far and numbered candidate (cue, tag) pairs, "
    "select the pairs whose contents are likely to help answer the question, and say whether "
    "the evidence so far is already sufficient."
)


def routing_json_schema(n_shown: int) -> dict[str, Any]:
    """The call-specific JSON schema of one routing call over ``n_shown`` numbered candidates:
    each selected number in ``1..n_shown`` and at most ``n_shown`` of them; with no candidate
    shown, ``selected`` must be empty."""
    if n_shown <= 0:
        return constrained_schema(LLMRouting, max_items={"selected": 0})
    return constrained_schema(LLMRouting, ranges={"selected": (1, n_shown)},
                              max_items={"selected": n_shown})


class LLMAssociativeRouter:
    """LLM routing over tag candidates; counts calls in ``usage`` under ``associative.route``.

    Raises (from :meth:`route`):
        ControllerError: invalid output, or selected numbers outside the list (they break
            the call's schema), twice.
    """

    name = "llm"

    def __init__(self, llm: Any, usage: LLMUsage, max_candidates: int = 40, evidence_shown: int = 8):
        self.llm = llm
        self.usage = usage
        self.max_candidates = max_candidates
        self.evidence_shown = evidence_shown

    def route(self, question: str, evidence: Sequence[Any],
              candidates: Sequence[TagCandidate]) -> RouteDecision:
        """Ask the model; candidates beyond ``max_candidates`` (by heuristic score) are not shown."""
        shown = sorted(candidates, key=lambda c: (-c.score, c.tag_id))[: self.max_candidates]
        lines = [f"{i}. cue '{c.cue_text}' -> tag '{c.tag_text}'" for i, c in enumerate(shown, 1)]
        found = [f"- {e.text}" for e in evidence[: self.evidence_shown]] or ["(none yet)"]
        messages = [
            ("system", _SYSTEM),
            ("human", f"Question: {question}\n\nEvidence so far:\n" + "\n".join(found)
             + "\n\nCandidates:\n" + ("\n".join(lines) or "(none)")),
        ]
        out = invoke_structured(self.llm, LLMRouting, messages, self.usage, "associative.route",
                                json_schema=routing_json_schema(len(shown)))
        bad = [n for n in out.selected if not 1 <= n <= len(shown)]
        if bad:  # the schema rules this out; kept for models that ignore it
            raise ControllerError(f"associative.route: selected numbers {bad} outside "
                                  f"1..{len(shown)}")
        ids = list(dict.fromkeys(shown[n - 1].tag_id for n in out.selected))
        return RouteDecision(tag_ids=ids, sufficient=out.sufficient,
                             reason=f"llm: {out.reason}".strip())
