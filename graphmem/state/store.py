"""State memory store: all database I/O of the SEMG by query name (``cypher/state/*``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from graphmem.graph.runner import QueryRunner
from graphmem.state.models import StateItem
from graphmem.state.recall import state_item

logger = logging.getLogger(__name__)


class StateStore:
    """Writes and inspection reads of one namespace's SEMG (recall reads through the retrieval
    engine, :mod:`graphmem.state.recall`); dict rows in and out.

    Args:
        runner: the query runner.
        namespace: tenant scope of every query.
    """

    def __init__(self, runner: QueryRunner, namespace: str):
        self.runner = runner
        self.namespace = namespace

    # ------------------------------------------------------------------ ingest
    def existing_event_ids(self, ids: Sequence[str]) -> set[str]:
        """The subset of ``ids`` already stored."""
        rows = self.runner.read("state/find_existing_events", namespace=self.namespace, ids=list(ids))
        return {r["id"] for r in rows}

    def topics(self, conversation: str) -> list[dict[str, Any]]:
        """Topic heads of ``conversation``: id, key, subject, name, embedding."""
        return self.runner.read("state/list_topics", namespace=self.namespace, conversation=conversation)

    def write_unit(self, topics: list[dict], events: list[dict],
                   links: list[tuple[str, str]], states: list[dict], confirm_threshold: float,
                   ) -> list[list[dict[str, Any]]]:
        """One unit of work in ONE transaction: new topics, new events, chain insertion per
        event (in order), evidence-based state updates per assertion (in order).

        Returns the records of each step (state steps return ``relation``)."""
        steps: list[tuple[str, dict[str, Any]]] = []
        if topics:
            steps.append(("state/merge_topics", {"namespace": self.namespace, "rows": topics}))
        if events:
            steps.append(("state/merge_events", {"namespace": self.namespace, "rows": events}))
        for topic_id, event_id in links:
            steps.append(("state/link_event", {"namespace": self.namespace, "topic_id": topic_id,
                                               "event_id": event_id}))
        for st in states:
            steps.append(("state/apply_state_evidence", {
                "namespace": self.namespace, "topic_id": st["topic_id"], "event_id": st["event_id"],
                "state": st["state"], "confirm_threshold": confirm_threshold}))
        logger.debug("state write unit: %d topics, %d events, %d states", len(topics), len(events),
                     len(states))
        return self.runner.write_many(steps) if steps else []

    def link_related(self, event_ids: Sequence[str], threshold: float, per_event: int) -> int:
        """Cross-topic RELATED_EVENT edges for ``event_ids``; returns the edges merged."""
        total = 0
        ids = list(event_ids)
        for start in range(0, len(ids), 200):
            rows = self.runner.write("state/link_related_events", namespace=self.namespace,
                                     event_ids=ids[start:start + 200], threshold=threshold,
                                     per_event=per_event)
            total += sum(r["edges"] for r in rows)
        return total

    # ------------------------------------------------------------------ inspection
    def topic_states(self, topic_ids: Sequence[str], only_current: bool = False,
                     limit: int = 100) -> list[StateItem]:
        """States of ``topic_ids`` in time order (at most ``limit`` per topic, the latest),
        as :class:`StateItem` s with score 0 (inspection; recall reads the state layer through
        :mod:`graphmem.state.recall`)."""
        rows = self.runner.read("state/get_topic_states", namespace=self.namespace,
                                topic_ids=list(topic_ids), only_current=only_current, limit=limit)
        return [state_item(row, 0.0, []) for row in rows]

    def topic_chain(self, topic_id: str) -> list[dict[str, Any]]:
        """A topic's events in TEMPORAL_NEXT order (id, occurred_at, source_ids, position)."""
        return self.runner.read("state/get_topic_chain", namespace=self.namespace, topic_id=topic_id)

    def structure(self) -> dict[str, int]:
        """Counts and invariant violations (``bad_current``, ``unchained`` must be 0)."""
        return self.runner.read("state/count_state_structure", namespace=self.namespace)[0]
