"""State memory store: all database I/O of the SEMG by query name (``cypher/state/*``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.graph.runner import QueryRunner
from graphmem.state.models import StateItem

logger = logging.getLogger(__name__)

#: Minimum oversampling of vector index queries before namespace filtering.
MIN_OVERSAMPLE = 500


def _dt(value: Any) -> datetime | None:
    return value.to_native() if hasattr(value, "to_native") else value


def _event_hit(row: dict[str, Any], score: float) -> StateItem:
    return StateItem(kind="event", id=row["id"], text=f"{row.get('speaker') or ''}: {row['text']}".lstrip(": "),
               score=score, source_ids=list(row.get("source_ids") or []), topic=row.get("topic"),
               topic_id=row.get("topic_id"),
               occurred_at=_dt(row.get("occurred_at")), subject=row.get("speaker"))


def _state_hit(row: dict[str, Any], score: float) -> StateItem:
    return StateItem(kind="state", id=row["id"], text=row["content"], score=score,
               source_ids=list(dict.fromkeys(row.get("source_ids") or [])), topic=row.get("topic"),
               topic_id=row.get("topic_id"),
               valid_from=_dt(row.get("valid_from")), valid_to=_dt(row.get("valid_to")),
               current=row.get("current"), conflict=row.get("conflict"),
               condition=row.get("condition"), subject=row.get("subject"), value=row.get("value"))


class StateStore:
    """Reads and writes of one namespace's SEMG. Pydantic/dict rows in, :class:`StateItem` out.

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

    # ------------------------------------------------------------------ retrieval
    def search_events(self, embedding: np.ndarray, k: int) -> list[StateItem]:
        """Top-``k`` events by cosine; index query oversampled, exact scan when starved."""
        vec = [float(x) for x in embedding]
        rows = self.runner.read("state/search_events", namespace=self.namespace, embedding=vec,
                                oversample=max(k * 10, MIN_OVERSAMPLE), k=k)
        if len(rows) < k:
            rows = self.runner.read("state/scan_events", namespace=self.namespace, embedding=vec, k=k)
        return [_event_hit(r, float(r["score"])) for r in rows]

    def keyword_events(self, query: str, k: int) -> list[StateItem]:
        """Events matching a Lucene query made only of word tokens; ``score`` is BM25 (>= 0)."""
        if not query.strip():
            return []
        rows = self.runner.read("state/fulltext_events", namespace=self.namespace, query=query, k=k)
        return [_event_hit(r, float(r["score"])) for r in rows]

    def search_topics(self, embedding: np.ndarray, k: int) -> list[dict[str, Any]]:
        """Top-``k`` topics by cosine (index, then exact scan when starved)."""
        vec = [float(x) for x in embedding]
        rows = self.runner.read("state/search_topics", namespace=self.namespace, embedding=vec,
                                oversample=max(k * 10, MIN_OVERSAMPLE), k=k)
        if len(rows) < k:
            rows = self.runner.read("state/scan_topics", namespace=self.namespace, embedding=vec, k=k)
        return rows

    def search_states(self, embedding: np.ndarray, k: int) -> list[StateItem]:
        """Top-``k`` states by cosine, with their evidence source ids."""
        vec = [float(x) for x in embedding]
        rows = self.runner.read("state/search_states", namespace=self.namespace, embedding=vec,
                                oversample=max(k * 10, MIN_OVERSAMPLE), k=k)
        if len(rows) < k:
            rows = self.runner.read("state/scan_states", namespace=self.namespace, embedding=vec, k=k)
        return [_state_hit(r, float(r["score"])) for r in rows]

    def topic_states(self, topic_ids: Sequence[str], only_current: bool) -> list[StateItem]:
        """States of ``topic_ids`` (score 0; the caller scores them)."""
        rows = self.runner.read("state/get_topic_states", namespace=self.namespace,
                                topic_ids=list(topic_ids), only_current=only_current)
        return [_state_hit(r, 0.0) for r in rows]

    def timeline(self, event_ids: Sequence[str], hops: int) -> list[tuple[str, int, StateItem]]:
        """``(parent id, distance, hit)`` for chain neighbours within ``hops`` (1..3)."""
        rows = self.runner.read("state/get_timeline", namespace=self.namespace,
                                event_ids=list(event_ids), hops=hops)
        return [(r["parent"], int(r["distance"]), _event_hit(r, 0.0)) for r in rows]

    def related(self, event_ids: Sequence[str]) -> list[tuple[str, float, StateItem]]:
        """``(parent id, similarity, hit)`` over RELATED_EVENT edges."""
        rows = self.runner.read("state/get_related_events", namespace=self.namespace,
                                event_ids=list(event_ids))
        return [(r["parent"], float(r["similarity"]), _event_hit(r, 0.0)) for r in rows]

    def events_in_range(self, start: datetime, end: datetime, embedding: np.ndarray, k: int) -> list[StateItem]:
        """Events inside ``[start, end]`` ranked by cosine."""
        rows = self.runner.read("state/find_events_in_range", namespace=self.namespace, start=start,
                                end=end, embedding=[float(x) for x in embedding], k=k)
        return [_event_hit(r, float(r["score"])) for r in rows]

    # ------------------------------------------------------------------ inspection
    def topic_chain(self, topic_id: str) -> list[dict[str, Any]]:
        """A topic's events in TEMPORAL_NEXT order (id, occurred_at, source_ids, position)."""
        return self.runner.read("state/get_topic_chain", namespace=self.namespace, topic_id=topic_id)

    def structure(self) -> dict[str, int]:
        """Counts and invariant violations (``bad_current``, ``unchained`` must be 0)."""
        return self.runner.read("state/count_state_structure", namespace=self.namespace)[0]
