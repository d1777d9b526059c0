"""Intent-guided multi-round retrieval of the state memory (EMIR², seed 002, section 3.3) on the
retrieval engine.

Round 1 (``search_events``) is :class:`graphmem.retrieval.HybridSearch` over the namespace's Events
(one query). Every later round is the action the planner picks, one read query each, and re-ranks
the same candidate set S with the engine (no further search):

- ``search_states`` / ``current_state`` / ``state_history`` — the state layer: the semantic states of
  the topics of the best events (``cypher/state/expand_states``); a state takes the place of its
  best-ranked evidence event (which is folded into it, ``also``), scored as that event, plus
  :data:`CURRENT_BONUS` when it is its topic's current state and the question asks what holds now
  (``current_state``; a tenth of it as a tie-break otherwise, and minus that for a flagged
  conflict), plus :data:`TOPIC_WEIGHT` times its topic match (:func:`topic_match`);
  ``current_state`` and ``state_history`` let a state take the place of its topic's best event when
  that ranks higher (the question is about the topic), ``search_states`` only of its own evidence
  (a state never costs an event its place);
- ``timeline`` (TEMPORAL_NEXT), ``cross_topic`` (RELATED_EVENT) — the graph step of
  :mod:`graphmem.retrieval.fusion` (step 6) for the events of S one edge away from the best
  :data:`GRAPH_SOURCES` events: ``g_i = γ · x_m`` (``cross_topic``: times the edge similarity);
- ``time_range`` — the graph step ``γ · x_question`` for the events of S inside the date range the
  question names (half-open ``[start, end)`` in UTC, :func:`graphmem.state.memory.time_range_of`).

A recall's ``since`` / ``until`` window is applied in the queries: the engine's candidate set S
holds only events inside it, and the state layer only states whose ``valid_from`` is inside it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from graphmem.memory import PathStep, Round
from graphmem.retrieval import Candidate, HybridSearch, stored_time
from graphmem.retrieval.passages import matched_passage
from graphmem.state.models import StateItem, TimeRange
from graphmem.time_travel import judge_row_at
from graphmem.timeparse import epoch_us, window_params

logger = logging.getLogger(__name__)

#: γ of the graph step of ``timeline`` / ``cross_topic`` / ``time_range`` (docs/state.md).
GRAPH_WEIGHT = 0.25
#: Best events whose topic chains / related events / topics a round expands.
GRAPH_SOURCES = 5
#: Score a topic's current state gets above its best event when the question asks what holds
#: now, and a current state over a closed or conflicting one of the same score otherwise.
CURRENT_BONUS = 0.05
#: Weight of a state's topic match: the share of its topic name's terms (subject and attribute,
#: e.g. "Ann birthdate") that the question names, in [0, 1]. 0.5, half the fused scale: a question
#: naming a topic's subject and attribute ("What is Ann's birthdate?") puts that topic's state
#: ahead of the states of topics whose events merely share words with it (MemConflict probes).
TOPIC_WEIGHT = 0.5
#: States read per topic (history) and evidence events per state.
STATES_PER_TOPIC = 20
EVIDENCE_PER_STATE = 10


def _native(value: Any) -> Any:
    return value.to_native() if hasattr(value, "to_native") else value


def event_item(candidate: Candidate, unit: dict[str, Any]) -> StateItem:
    """An engine candidate (an Event) as a :class:`StateItem` (``text`` = ``"speaker: text"``;
    ``passage``: the passage of a long message whose vector matched, None when its window
    vector did)."""
    speaker = unit.get("speaker") or candidate.speaker
    text = f"{speaker}: {candidate.text}" if speaker else candidate.text
    return StateItem(kind="event", id=candidate.id, text=text, score=candidate.score,
                     source_ids=list(candidate.source_ids), path=list(candidate.path),
                     anchor=(list(candidate.source_ids), text), conversation=unit.get("conversation"),
                     occurred_at=_native(stored_time(unit.get("occurred_at"))), subject=speaker,
                     topic_id=unit.get("topic_id"),
                     found_by=[candidate.path[0].action] if candidate.path else [],
                     passage=matched_passage(candidate.text, candidate.passage))


def state_item(row: dict[str, Any], score: float, path: list[PathStep]) -> StateItem:
    """A row of ``state/expand_states`` as a :class:`StateItem`."""
    return StateItem(kind="state", id=row["id"], text=row["content"], score=score,
                     source_ids=list(dict.fromkeys(row.get("source_ids") or [])),
                     topic=row.get("topic"), topic_id=row.get("topic_id"),
                     valid_from=_native(row.get("valid_from")), valid_to=_native(row.get("valid_to")),
                     current=row.get("current"), conflict=row.get("conflict"),
                     condition=row.get("condition"), subject=row.get("subject"),
                     value=row.get("value"), path=path, found_by=[])


class StateRecall:
    """The rounds of one state recall over one namespace (see the module docstring).

    Args:
        runner: the query runner.
        namespace: the tenant.
        search: the engine (its seed row is re-ranked by later rounds).
        graph_weight: γ of the graph step.
        since, until: the recall's window (checked aware datetimes or None), applied to the
            states the state layer reads.
        as_of: the instant the states are judged at (:func:`graphmem.time_travel.judge_row_at`),
            None: now.
    """

    def __init__(self, runner: Any, namespace: str, search: HybridSearch,
                 graph_weight: float = GRAPH_WEIGHT, *, since: Any = None, until: Any = None,
                 as_of: Any = None):
        self.runner = runner
        self.window = window_params(since, until)
        self.as_of = as_of
        self.graph_weight = graph_weight
        self.namespace = namespace
        self.search = search
        self.graph: dict[str, tuple[float, str | None]] = {}
        self.paths: dict[str, list[PathStep]] = {}
        self.states: list[dict[str, Any]] = []
        self.state_mode = ""

    def act(self, action: str, row: dict[str, Any], terms: list[str], ranked: list[Candidate],
            pool: int, span: TimeRange | None) -> tuple[list[Candidate], list[str], dict[str, Any]]:
        """Run ``action`` (after the first round); returns the re-ranked pool, the ids it added
        to the items (states, events lifted into the top), and the round's details."""
        sources = [c.id for c in ranked[:GRAPH_SOURCES]]
        before = {c.id for c in ranked[:pool]}
        details: dict[str, Any] = {}
        added: list[str] = []
        if action in ("search_states", "current_state", "state_history"):
            # as of a past instant, the state current then may be closed now: read the topics'
            # histories and judge each state then (the current one then stands for the topic)
            rows = self.runner.read("state/expand_states", namespace=self.namespace,
                                    event_ids=sources,
                                    history=action == "state_history" or self.as_of is not None,
                                    per_topic=STATES_PER_TOPIC, per_state=EVIDENCE_PER_STATE,
                                    **self.window)
            rows = [judge_row_at(r, self.as_of) for r in rows]
            if action == "current_state" and self.as_of is not None:
                rows = [r for r in rows if r.get("current")]
            known = {s["id"] for s in self.states}
            self.states += [r for r in rows if r["id"] not in known]
            self.state_mode = action
            added = [r["id"] for r in rows if r["id"] not in known]
            details["states"] = len(rows)
            return ranked, added, details
        excess = {f.id: max(0.0, f.fused - self.search.last_median) for f in self.search.last_fused}
        in_s = {u["id"] for u in row.get("units") or []}
        if action in ("timeline", "cross_topic"):
            relation = "TEMPORAL_NEXT" if action == "timeline" else "RELATED_EVENT"
            rows = self.runner.read("state/expand_chain", namespace=self.namespace,
                                    event_ids=sources, relation=relation, per_event=GRAPH_SOURCES)
            for r in rows:
                if r["id"] not in in_s:
                    continue
                value = self.graph_weight * excess.get(r["source"], 0.0) * max(0.0, float(r["similarity"]))
                self._reach(r["id"], value, r["source"], relation, ranked)
            details["edges"] = len(rows)
        elif action == "time_range" and span is not None:
            rows = self.runner.read("state/events_in_span", namespace=self.namespace,
                                    event_ids=sorted(in_s), start=epoch_us(span.start),
                                    end=epoch_us(span.end))
            question = max(excess.values(), default=0.0)
            for r in rows:
                self._reach(r["id"], self.graph_weight * question, None, "time_range", ranked)
            details["in_range"] = len(rows)
        ranked = self.search.rank(row, terms, pool, graph=self.graph, graph_paths=self.paths)
        added = [c.id for c in ranked if c.id not in before]
        return ranked, added, details

    def _reach(self, unit_id: str, value: float, source: str | None, action: str,
               ranked: Sequence[Candidate]) -> None:
        if value <= self.graph.get(unit_id, (0.0, None))[0]:
            return
        self.graph[unit_id] = (value, source)
        head = next((list(c.path) for c in ranked if c.id == source), []) if source else []
        self.paths[unit_id] = [*head, PathStep(action=action, node="event", id=unit_id)]

    def items(self, ranked: list[Candidate], units: dict[str, dict[str, Any]], k: int,
              question: PathStep, terms: Sequence[str] = ()) -> list[StateItem]:
        """The ``k`` best items: events in engine order, each state of the state layer in the
        place of its best-ranked evidence event (that event folded into it) — or, for
        ``current_state`` / ``state_history``, of its topic's best event — scored as described in
        the module docstring; ties by id."""
        events = {c.id: c for c in ranked}
        order = {c.id: i for i, c in enumerate(ranked)}
        topic_best: dict[str, str] = {}
        for c in ranked:
            topic = units.get(c.id, {}).get("topic_id")
            if topic and topic not in topic_best:
                topic_best[topic] = c.id
        out: dict[str, StateItem] = {}
        folded: set[str] = set()
        anchored: set[str] = set()
        asked = set(terms)
        subsumed = subsumed_subjects([row.get("subject") for row in self.states], terms)
        for row in self.states:
            evidence = [e for e in row.get("evidence") or [] if e in events]
            anchor = min(evidence, key=order.__getitem__) if evidence else None
            if self.state_mode in ("current_state", "state_history"):
                best = topic_best.get(row.get("topic_id") or "")
                if best is not None and (anchor is None or order[best] < order[anchor]):
                    anchor = best
            if anchor is None:
                continue
            base = events[anchor].score
            bonus = 0.0
            if row.get("current"):
                bonus = CURRENT_BONUS if self.state_mode == "current_state" else CURRENT_BONUS / 10
            elif row.get("conflict"):
                bonus = -CURRENT_BONUS / 10
            named = asked - subsumed.get(row.get("subject") or "", set())
            bonus += TOPIC_WEIGHT * topic_match(row.get("topic"), named)
            item = state_item(row, base + bonus, [question, *events[anchor].path,
                                                  PathStep(action=self.state_mode or "search_states",
                                                           node="state", id=row["id"],
                                                           text=row["content"][:80])])
            item.found_by = [self.state_mode]
            item.conversation = units.get(anchor, {}).get("conversation")  # the topic's
            if anchor in evidence and anchor not in anchored:
                # fuses on the evidence turn it stands in for (once per turn: a second state of
                # the same turn, or one standing in for another turn, keeps its own key)
                event = event_item(events[anchor], units.get(anchor, {}))
                item.anchor = (list(event.source_ids), event.text)
                anchored.add(anchor)
            item.also = [e for e in evidence if e != row["id"]]
            folded.update(e for e in evidence)
            out[item.id] = item
        # the k best of states and unfolded events; an event becomes an item only when it is one
        keys = [(-h.score, False, h.id) for h in out.values()]
        keys += [(-c.score, True, c.id) for c in ranked if c.id not in folded]
        best_items = []
        for _, is_event, item_id in sorted(keys)[:k]:
            if is_event:
                item = event_item(events[item_id], units.get(item_id, {}))
                item.path = [question, *item.path]
                best_items.append(item)
            else:
                best_items.append(out[item_id])
        return best_items


def subsumed_subjects(subjects: Sequence[str | None], terms: Sequence[str]) -> dict[str, set[str]]:
    """Subjects the question names only inside a longer subject's name (longest match, as in
    dictionary-based entity linking): with subjects "Jackson" and "Jackson Andrews", the question
    "What is Jackson Andrews's career status?" names Jackson Andrews, not Jackson.

    Args:
        subjects: the subjects of the candidate states (None and repeats allowed).
        terms: the question's analyzed terms, in order (:func:`graphmem.retrieval.text.analyze`).

    Returns:
        subject -> its analyzed terms, for each subject every occurrence of which in ``terms`` lies
        inside an occurrence of a longer subject; those terms do not count for its topic match.
    """
    from graphmem.retrieval.text import analyze

    names = {s: tuple(analyze(s)) for s in dict.fromkeys(x for x in subjects if x)}
    spans: dict[str, list[tuple[int, int]]] = {}
    for subject, name in names.items():
        n = len(name)
        if n:
            spans[subject] = [(i, i + n) for i in range(len(terms) - n + 1)
                              if tuple(terms[i:i + n]) == name]
    out: dict[str, set[str]] = {}
    for subject, own in spans.items():
        longer = [(a, b) for other, found in spans.items() if len(names[other]) > len(names[subject])
                  for a, b in found]
        if own and all(any(a <= i and j <= b for a, b in longer) for i, j in own):
            out[subject] = set(names[subject])
    return out


def topic_match(topic: str | None, question_terms: set[str]) -> float:
    """Share of the analyzed terms of a topic's name (its subject and attribute) that are
    question terms, in [0, 1]; 0 for no name."""
    from graphmem.retrieval.text import analyze

    name = set(analyze(topic or ""))
    return len(name & question_terms) / len(name) if name else 0.0


def first_round(number: int, details: dict[str, Any]) -> Round:
    """The :class:`Round` of the engine's ``search_events`` round."""
    return Round(number=number, action="search_events", reason="hybrid search over events",
                 added=list(details.pop("added", [])), details=details)
