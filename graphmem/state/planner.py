"""Intent detection and retrieval controllers (EMIR², section 3.3: intent-guided multi-round
retrieval). Each round a controller picks one :data:`Action` from the question's intent and the
evidence gathered so far, within a round budget.

- :class:`HeuristicStatePlanner` — intent from rules plus embedding prototypes; a fixed plan per
  intent that stops early when a round adds nothing. Named ``"heuristic"`` in results.
- :class:`LLMStatePlanner` — a langchain-core chat model picks the action with structured output.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any, get_args

import numpy as np
from pydantic import BaseModel, Field

from graphmem.llm import LLMUsage, constrained_schema, invoke_structured
from graphmem.memory import Round
from graphmem.state.models import Action, Intent
from graphmem.state.models import StateItem

logger = logging.getLogger(__name__)

_RULES: list[tuple[Intent, re.Pattern[str]]] = [
    ("history", re.compile(r"\b(used to|previously|before (?:that|moving|changing)|formerly|"
                           r"originally|earlier|in the past|history|changed?|former|old)\b", re.I)),
    ("current", re.compile(r"\b(now|currently|current|still|these days|at the moment|latest|"
                           r"present|today)\b", re.I)),
    ("temporal", re.compile(r"\b(when|what (?:year|month|date|day|time)|how long|since|ago|"
                            r"which (?:year|month))\b", re.I)),
    ("multi_hop", re.compile(r"\b(both|likely|would|might|in common|all the|what (?:kinds?|types?) of|"
                             r"how many|and)\b", re.I)),
    # "What is X's job?", "What are her hobbies?": a question about what holds for someone
    ("current", re.compile(r"^\s*what(?:'s| is| are)\s+(?:(?:[\w.-]+\s+){0,3}[\w.-]+'s|his|her|their|"
                           r"my|your)\s", re.I)),
]

_PROTOTYPES: dict[Intent, list[str]] = {
    "temporal": ["When did this happen?", "What date was the event?"],
    "current": ["What is it now?", "Where does she live currently?"],
    "history": ["What was it before it changed?", "What did he use to do?"],
    "multi_hop": ["What do they both like?", "Would she likely enjoy this?"],
    "factual": ["What did she say about it?", "What is his job?"],
}

#: Fixed plan per intent (heuristic controller): the engine's ``search_events`` round, then the
#: expansions the intent needs, in order (a round budget of 2 runs the first one).
PLANS: dict[Intent, list[Action]] = {
    "current": ["search_events", "current_state", "stop"],
    "history": ["search_events", "state_history", "stop"],
    "temporal": ["search_events", "time_range", "timeline", "stop"],
    "multi_hop": ["search_events", "cross_topic", "timeline", "stop"],
    "factual": ["search_events", "search_states", "timeline", "stop"],
}


def detect_intent(question: str, embedder: Any | None = None) -> Intent:
    """Intent of ``question``: the first matching rule (history, current, temporal, multi-hop);
    with no rule match and an ``embedder``, the intent whose prototype questions are most
    cosine-similar; else ``"factual"``."""
    for intent, pattern in _RULES:
        if pattern.search(question):
            return intent
    if embedder is None:
        return "factual"
    q = embedder.embed_query(question)
    best: Intent = "factual"
    best_sim = -2.0
    for intent, examples in _PROTOTYPES.items():
        sim = float(np.max(embedder.embed_documents(examples) @ q))
        if sim > best_sim:
            best, best_sim = intent, sim
    return best


class ControllerChoice(BaseModel):
    """One controller decision: the action and a short reason."""

    action: Action
    reason: str = Field(default="", description="why this action, in one sentence")


class HeuristicStatePlanner:
    """Rule-and-embedding controller: follows :data:`PLANS` for the intent, skipping
    ``time_range`` when the question names no date, and stops when a round added nothing."""

    name = "heuristic"
    #: :meth:`choose` does not read ``hits`` (the recall skips building them for it).
    reads_hits = False

    def __init__(self) -> None:
        self.usage = LLMUsage()

    def choose(self, question: str, intent: Intent, rounds: Sequence[Round], hits: Sequence[StateItem],
               has_time_range: bool) -> ControllerChoice:
        """Next action given the rounds so far (``rounds``) and the evidence (``hits``)."""
        plan = PLANS[intent]
        done = [r.action for r in rounds]
        if rounds and not rounds[-1].added and rounds[-1].action != "search_events" and len(rounds) > 2:
            return ControllerChoice(action="stop", reason="heuristic: last round added no evidence")
        for action in plan:
            if action in done:
                continue
            if action == "time_range" and not has_time_range:
                continue
            return ControllerChoice(action=action, reason=f"heuristic: {intent} plan step")
        return ControllerChoice(action="stop", reason="heuristic: plan complete")


_CONTROLLER_SYSTEM = (
    "You control retrieval over a State-Evolving Memory Graph of a conversation. Pick the next "
    "action: search_events (hybrid search over events), search_states (semantic states), "
    "current_state (current state of matching topics), state_history (earlier states), "
    "timeline (neighbouring events on the topic chain), cross_topic (related events of other "
    "topics), time_range (events in a date range named in the question), or stop when the "
    "evidence suffices."
)


def planner_json_schema(actions: Sequence[str] | None = None) -> dict[str, Any]:
    """The JSON schema of one planner call: ``action`` from ``actions`` (default: every
    :data:`~graphmem.state.models.Action`)."""
    allowed = list(actions) if actions is not None else list(get_args(Action))
    return constrained_schema(ControllerChoice, enums={"action": allowed})


class LLMStatePlanner:
    """Controller backed by a langchain-core chat model (structured :class:`ControllerChoice`).

    Raises (from :meth:`choose`): ControllerError after one retry on invalid output.
    """

    name = "llm"

    def __init__(self, llm: Any):
        self.llm = llm
        self.usage = LLMUsage()

    def choose(self, question: str, intent: Intent, rounds: Sequence[Round], hits: Sequence[StateItem],
               has_time_range: bool) -> ControllerChoice:
        """The next action, asked of the model under :func:`planner_json_schema` (without
        ``time_range`` when the question names no date range).

        Raises:
            ControllerError: invalid output twice.
        """
        history = "\n".join(f"round {r.number}: {r.action} added {len(r.added)}" for r in rounds)
        evidence = "\n".join(f"- [{h.kind}] {h.text[:160]}" for h in list(hits)[:8])
        prompt = (f"Question: {question}\nIntent (heuristic): {intent}\n"
                  f"Rounds so far:\n{history or 'none'}\nEvidence so far:\n{evidence or 'none'}")
        return invoke_structured(self.llm, ControllerChoice,
                                 [("system", _CONTROLLER_SYSTEM), ("human", prompt)],
                                 self.usage, "state.controller",
                                 json_schema=planner_json_schema(
                                     None if has_time_range else
                                     [a for a in get_args(Action) if a != "time_range"]))
