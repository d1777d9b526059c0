"""Evidence-based state evolution (EMIR² SEMG, seed 002 §3.2 and its appendix Table 3) as a pure
computation: no I/O.

Each assertion of a batch is evidence for its topic. Applied in event-time order (ties in arrival
order) against the topic's current state ``cur``, it is:

- ``initial``: the topic has no state yet -> a new State, INITIAL_STATE and CURRENT_STATE;
- ``confirm``: same value, or -- when the assertion's vector encodes the claim itself (an LLM
  extractor's assertion text, :attr:`Assertion.claim_vector`) -- cosine(cur, new) >=
  ``confirm_threshold`` (a stored vector cosine cannot score -- missing, another width, NaN or
  infinity, all zeros -- never confirms) -> an EVIDENCED_BY edge from ``cur``, its
  ``evidence_count`` + 1. On the heuristic path a state's vector is its evidence event's window
  vector (the turn plus words of its session neighbours): two neighbouring short turns share most
  of their window, so that cosine says "said next to each other", not "the same claim", and only
  the value confirms;
- ``conflict``: an immutable fact contradicted (either side not ``mutable``), or the very same
  instant asserted from another session -> a new State kept side by side (CONFLICTS_WITH ``cur``),
  both flagged ``conflict``; CURRENT_STATE stays;
- ``history``: evidence older than ``cur`` -> a new State inserted into the SEMANTIC_NEXT chain
  after the latest non-conflict chain state ``p`` not later than it (or as the new INITIAL_STATE
  when there is none); ``p.valid_to`` and the new state's ``valid_to`` close the intervals;
- ``change``: otherwise -> a new State; ``cur.valid_to`` = its ``valid_from``, CURRENT_STATE
  moves, ``cur -SEMANTIC_NEXT-> new``.

These are the semantics of the former per-assertion statement ``apply_state_evidence`` (one statement per assertion);
:func:`plan_evidence` computes a whole batch from what was read under the topic locks and returns
the net writes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)


@dataclass
class KnownState:
    """A state of a topic as the batch sees it (stored, or new in this batch).

    ``on_chain``: INITIAL_STATE target or target of a SEMANTIC_NEXT (conflict states are not);
    ``next_id``: its SEMANTIC_NEXT successor (None: none, or not read).
    """

    id: str
    value: str | None
    valid_from: datetime
    embedding: np.ndarray | None = None
    mutable: bool | None = True
    valid_to: datetime | None = None
    session: str | None = None
    conflict: bool = False
    on_chain: bool = True
    next_id: str | None = None
    new: bool = False
    evidence_count: int = 1
    added_evidence: int = 0


@dataclass
class TopicSnapshot:
    """One topic's states read under its lock.

    Attributes:
        current: the CURRENT_STATE (full), or None.
        initial_id: the INITIAL_STATE id, or None.
        priors: stored chain states that may precede a late assertion (see
            :func:`plan_evidence`), with ``next_id`` read.
        valid_from: ``valid_from`` of stored states known only by id (successors of priors,
            the initial state).
    """

    current: KnownState | None = None
    initial_id: str | None = None
    priors: list[KnownState] = field(default_factory=list)
    valid_from: dict[str, datetime] = field(default_factory=dict)


@dataclass(frozen=True)
class Assertion:
    """One piece of evidence: the new event, its session and the state it asserts.

    ``state``: ``id``, ``value``, ``mutable``, ``valid_from`` (aware datetime) and ``embedding``
    (``(d,)`` vector) plus any other properties to store (content, condition, subject, ...).
    ``claim_vector``: the embedding encodes the assertion itself, so cosine may confirm
    (module docstring); False for an event's window vector.
    """

    event_id: str
    topic_id: str
    session: str | None
    state: Mapping[str, Any]
    claim_vector: bool = True


@dataclass
class EvidencePlan:
    """The net writes of a batch of assertions.

    Attributes:
        relations: ``(event_id, relation, state_id)`` per assertion, in application order.
        new_states: rows of the States to create (the assertion's ``state`` properties plus
            ``topic_id``, ``event_id``, ``session``, final ``conflict``, ``valid_to`` and
            ``evidence_count``).
        stored: stored state id -> ``{"valid_to"?, "conflict"?, "added_evidence"?}`` updates.
        evidence: ``(state_id, event_id)`` EVIDENCED_BY edges of confirmations.
        current: topic id -> ``(stored current id or None, final current id)`` when it moved.
        initial: topic id -> ``(stored initial id or None, final initial id)`` when it moved.
        unlink / link: SEMANTIC_NEXT pairs to delete (stored) / create.
        conflicts: ``(new state id, contradicted state id)`` CONFLICTS_WITH edges.
    """

    relations: list[tuple[str, str, str]] = field(default_factory=list)
    new_states: list[dict[str, Any]] = field(default_factory=list)
    stored: dict[str, dict[str, Any]] = field(default_factory=dict)
    evidence: list[tuple[str, str]] = field(default_factory=list)
    current: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    initial: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    unlink: list[tuple[str, str]] = field(default_factory=list)
    link: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)


def usable(vector: Any) -> np.ndarray | None:
    """``vector`` as float64 when cosine can score it (finite, not all zeros), else None."""
    if vector is None:
        return None
    arr = np.asarray(vector, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all() or not arr.any():
        return None
    return arr


def confirms(cur: KnownState, value: str | None, embedding: Any, threshold: float) -> bool:
    """Same value, or cosine(cur, new) >= ``threshold`` with both vectors usable and equally wide."""
    if cur.value == value:
        return True
    a, b = usable(cur.embedding), usable(embedding)
    if a is None or b is None or a.shape != b.shape:
        return False
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))) >= threshold


def relation_of(cur: KnownState | None, state: Mapping[str, Any], session: str | None,
                threshold: float, claim_vector: bool = True) -> str:
    """The relation of a new assertion to the current state (module docstring); without
    ``claim_vector`` only the value confirms."""
    if cur is None:
        return "initial"
    if cur.value == state.get("value") or (
            claim_vector and confirms(cur, state.get("value"), state.get("embedding"), threshold)):
        return "confirm"
    if not state.get("mutable", True) or cur.mutable is False:
        return "conflict"
    vf = state["valid_from"]
    if vf == cur.valid_from and cur.session is not None and cur.session != session:
        return "conflict"
    if vf < cur.valid_from:
        return "history"
    return "change"


class _Topic:
    """The working model of one topic's states during a batch."""

    def __init__(self, topic_id: str, snap: TopicSnapshot):
        self.id = topic_id
        self.states: dict[str, KnownState] = {}
        self.valid_from = dict(snap.valid_from)
        for s in ([snap.current] if snap.current else []) + list(snap.priors):
            self.states.setdefault(s.id, s)
            self.valid_from[s.id] = s.valid_from
        self.current = snap.current.id if snap.current else None
        self.initial = snap.initial_id
        self.stored_current, self.stored_initial = self.current, self.initial
        self.edges = {(s.id, s.next_id) for s in self.states.values() if s.next_id}
        self.stored_edges = set(self.edges)
        self.original = {s.id: (s.valid_to, s.conflict) for s in self.states.values()}

    def prior(self, exclude: str, vf: datetime) -> KnownState | None:
        pool = [s for s in self.states.values() if s.id != exclude and not s.conflict
                and s.on_chain and s.valid_from <= vf]
        return max(pool, key=lambda s: (s.valid_from, s.id)) if pool else None

    def successor(self, state_id: str) -> str | None:
        return next((b for a, b in self.edges if a == state_id), None)


def plan_evidence(assertions: Sequence[Assertion], snapshots: Mapping[str, TopicSnapshot],
                  confirm_threshold: float) -> EvidencePlan:
    """Apply ``assertions`` in the given order (event time, then arrival) and return the writes.

    Args:
        assertions: the batch's assertions, in event-time order.
        snapshots: topic id -> its :class:`TopicSnapshot` (a missing topic has no state). For a
            late assertion (``valid_from`` before the stored current state's) the snapshot must
            hold, among ``priors``, the latest stored non-conflict chain state not later than it
            other than the current one (if any), with its SEMANTIC_NEXT successor; the
            successor's and the initial state's ``valid_from`` in ``valid_from``.
        confirm_threshold: cosine in [-1, 1].
    Returns:
        :class:`EvidencePlan`.
    Raises:
        ValueError: two assertions of one event, or a state id used twice.
    """
    plan = EvidencePlan()
    topics: dict[str, _Topic] = {}
    seen_events: set[str] = set()
    for a in assertions:
        if a.event_id in seen_events:
            raise ValueError(f"plan_evidence: event {a.event_id!r} asserts twice")
        seen_events.add(a.event_id)
        topic = topics.get(a.topic_id)
        if topic is None:
            topic = topics[a.topic_id] = _Topic(a.topic_id, snapshots.get(a.topic_id) or TopicSnapshot())
        cur = topic.states.get(topic.current) if topic.current else None
        relation = relation_of(cur, a.state, a.session, confirm_threshold, a.claim_vector)
        if relation == "confirm":
            assert cur is not None
            cur.added_evidence += 1
            plan.evidence.append((cur.id, a.event_id))
            plan.relations.append((a.event_id, relation, cur.id))
            continue
        sid = str(a.state["id"])
        if sid in topic.states:
            raise ValueError(f"plan_evidence: state id {sid!r} used twice")
        vf = a.state["valid_from"]
        new = KnownState(id=sid, value=a.state.get("value"), valid_from=vf,
                         embedding=a.state.get("embedding"), mutable=a.state.get("mutable", True),
                         session=a.session, conflict=relation == "conflict",
                         on_chain=relation != "conflict", new=True)
        topic.states[sid] = new
        topic.valid_from[sid] = vf
        plan.new_states.append({**a.state, "topic_id": a.topic_id, "event_id": a.event_id,
                                "session": a.session})
        if relation == "initial":
            topic.initial = topic.current = sid
        elif relation == "change":
            assert cur is not None
            cur.valid_to = vf
            topic.current = sid
            topic.edges.add((cur.id, sid))
        elif relation == "conflict":
            assert cur is not None
            cur.conflict = True
            plan.conflicts.append((sid, cur.id))
        else:  # history
            p = topic.prior(sid, vf)
            if p is not None:
                succ = topic.successor(p.id)
                if succ is not None:
                    topic.edges.discard((p.id, succ))
                p.valid_to = vf
                topic.edges.add((p.id, sid))
            else:
                succ = topic.initial
                topic.initial = sid
            if succ is not None:
                new.valid_to = topic.valid_from.get(succ)
                topic.edges.add((sid, succ))
        plan.relations.append((a.event_id, relation, sid))
    _finish(plan, topics)
    return plan


def _finish(plan: EvidencePlan, topics: Mapping[str, _Topic]) -> None:
    """Net writes from the working models."""
    rows = {row["id"]: row for row in plan.new_states}
    for topic in topics.values():
        for s in topic.states.values():
            if s.new:
                row = rows[s.id]
                row.update(conflict=s.conflict, valid_to=s.valid_to,
                           evidence_count=s.evidence_count + s.added_evidence)
                continue
            update: dict[str, Any] = {}
            valid_to, conflict = topic.original[s.id]
            if s.valid_to != valid_to:
                update["valid_to"] = s.valid_to
            if s.conflict and not conflict:
                update["conflict"] = True
            if s.added_evidence:
                update["added_evidence"] = s.added_evidence
            if update:
                plan.stored[s.id] = update
        if topic.current != topic.stored_current and topic.current is not None:
            plan.current[topic.id] = (topic.stored_current, topic.current)
        if topic.initial != topic.stored_initial and topic.initial is not None:
            plan.initial[topic.id] = (topic.stored_initial, topic.initial)
        plan.unlink.extend(sorted(topic.stored_edges - topic.edges))
        plan.link.extend(sorted(topic.edges - topic.stored_edges))
