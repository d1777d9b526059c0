"""Topic chain insertion (EMIR² SEMG, seed 002 §3.2: events on a topic's timeline in event-time
order, late events inserted in place) as a pure computation: no I/O.

The stored chain of a topic is ``(Topic)-[:FIRST_TIMELINE_NODE]->(e1)-[:TEMPORAL_NEXT]->(e2)...``
in ``sort_key`` order. A batch of new events is inserted by reading, for each new event, its
stored chain *predecessor* (the stored event of the topic with the largest ``sort_key`` below it)
and *successor* (the smallest above it) — two adjacent stored events, or the chain's ends — and
threading the new events of each such gap between them in ``sort_key`` order.
:func:`plan_links` turns those reads into the relationships to delete and to create.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NewEvent:
    """A new event of the batch: its id, topic and chain key (``sort_key``, unique per event)."""

    id: str
    topic_id: str
    sort_key: str


@dataclass(frozen=True)
class Gap:
    """The stored neighbours of a new event on its topic chain: ``predecessor`` / ``successor``
    event ids (None at the chain's start / end, both None for a topic without stored events)."""

    predecessor: str | None = None
    successor: str | None = None


@dataclass
class ChainPlan:
    """What one batch changes on the topic chains.

    Attributes:
        unlink: ``(from, to)`` stored ``TEMPORAL_NEXT`` pairs that a new event now sits between.
        link: ``(from, to)`` ``TEMPORAL_NEXT`` pairs to create, in chain order per topic.
        unfirst: ``(topic, event)`` stored ``FIRST_TIMELINE_NODE`` edges to delete.
        first: ``(topic, event)`` ``FIRST_TIMELINE_NODE`` edges to create.
    """

    unlink: list[tuple[str, str]] = field(default_factory=list)
    link: list[tuple[str, str]] = field(default_factory=list)
    unfirst: list[tuple[str, str]] = field(default_factory=list)
    first: list[tuple[str, str]] = field(default_factory=list)


def plan_links(events: Sequence[NewEvent], gaps: Mapping[str, Gap],
               firsts: Mapping[str, str | None]) -> ChainPlan:
    """The chain changes that insert ``events`` into their topics' stored chains.

    Args:
        events: the batch's new events (any order; none of them stored yet).
        gaps: event id -> its stored :class:`Gap` (a missing id counts as ``Gap()``: no stored
            neighbour, i.e. the topic holds no stored event).
        firsts: topic id -> its stored ``FIRST_TIMELINE_NODE`` event id (None or missing: none).
    Returns:
        :class:`ChainPlan`. New events between the same stored pair (or before the first /
        after the last stored event) are threaded in ``sort_key`` order: ``pred -> e1 -> ... ->
        ek -> succ``, the stored ``pred -> succ`` edge removed; a new first event takes over
        ``FIRST_TIMELINE_NODE`` from the stored first one.
    Raises:
        ValueError: two new events share an id or a ``sort_key`` within one topic.
    """
    seen: set[str] = set()
    by_gap: dict[tuple[str, Gap], list[NewEvent]] = defaultdict(list)
    keys: dict[str, set[str]] = defaultdict(set)
    for event in events:
        if event.id in seen:
            raise ValueError(f"plan_links: event {event.id!r} appears twice")
        if event.sort_key in keys[event.topic_id]:
            raise ValueError(f"plan_links: sort_key {event.sort_key!r} appears twice in topic "
                             f"{event.topic_id!r}")
        seen.add(event.id)
        keys[event.topic_id].add(event.sort_key)
        by_gap[(event.topic_id, gaps.get(event.id, Gap()))].append(event)
    plan = ChainPlan()
    for (topic_id, gap), members in sorted(by_gap.items(), key=lambda kv: (
            kv[0][0], min(e.sort_key for e in kv[1]))):
        members.sort(key=lambda e: e.sort_key)
        head, tail = members[0], members[-1]
        if gap.predecessor is not None and gap.successor is not None:
            plan.unlink.append((gap.predecessor, gap.successor))
        if gap.predecessor is not None:
            plan.link.append((gap.predecessor, head.id))
        else:
            stored_first = firsts.get(topic_id)
            if stored_first is not None:
                if stored_first != gap.successor:
                    logger.warning("topic %s: stored first event %s is not the successor %s of "
                                   "new first event %s", topic_id, stored_first, gap.successor,
                                   head.id)
                plan.unfirst.append((topic_id, stored_first))
            plan.first.append((topic_id, head.id))
        plan.link.extend((a.id, b.id) for a, b in zip(members, members[1:]))
        if gap.successor is not None:
            plan.link.append((tail.id, gap.successor))
    return plan
