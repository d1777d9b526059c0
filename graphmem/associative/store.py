"""Database I/O of the associative memory, by query name (``cypher/associative/*.cypher``).

Graph (one documented vocabulary, see ``docs/associative.md``)::

    (:Cue {text, kind})-[:HAS_TAG]->(:Tag {cue_id, text})-[:LEADS_TO]->(:Episode | :SemanticUnit)
    (:Episode)-[:NEXT_EPISODE]->(:Episode)            timeline of a conversation
    (:SemanticUnit)-[:DERIVED_FROM]->(:Episode)       stable fact -> its source turns
    (:Theme)-[:GROUPS]->(:Episode)                    abstraction layer

``phi(c->g)`` is ``(:Cue {id})-[:HAS_TAG]->(:Tag)`` (a unique-id seek, then the cue's edges);
``phi((c,g)->v)`` is ``(:Tag {namespace, cue_id, text})-[:LEADS_TO]->(v)`` (one composite-index
seek, ``V0040``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from graphmem.graph.runner import QueryRunner
from graphmem.retrieval.engine import EXACT_LIMIT

logger = logging.getLogger(__name__)

Row = dict[str, Any]


def _cosine(score: float) -> float:
    """Neo4j's vector scores are ``(1 + cos) / 2`` in [0, 1]; return the cosine in [-1, 1]."""
    return 2.0 * float(score) - 1.0


def _as_cosine(rows: list[Row]) -> list[Row]:
    for row in rows:
        if row.get("score") is not None:
            row["score"] = _cosine(row["score"])
    return rows


def _neighbours(row: dict[str, Any]) -> tuple[Any, ...]:
    """What a batch's plan rests on: the stored episodes around it and whether any is stored."""
    return (row["timeline_before"], row["timeline_after"],
            (row["session_before"] or {}).get("id"), (row["session_after"] or {}).get("id"),
            bool(row["stored"]))


class StaleTimeline(Exception):
    """The stored episodes around a batch changed before its transaction took the timeline lock
    (internal:
    :meth:`AssociativeStore.write_graph` raises it, the memory plans the batch again)."""


class AssociativeStore:
    """Reads and writes of one namespace. Scores returned are cosines in [-1, 1]."""

    def __init__(self, runner: QueryRunner, namespace: str):
        self.runner = runner
        self.namespace = namespace

    # -- writes ------------------------------------------------------------------------------
    def write_graph(self, rows: dict[str, Any], finish: Callable[[], dict[str, list[Row]]],
                    context: dict[str, Any]) -> dict[str, int]:
        """Write one batch's graph in ONE transaction (all lands or nothing): first the lock of
        the conversation's Timeline and, under it, a check that the stored tails the batch was
        planned on (``context``: ``timeline_id``, ``conversation_id``, ``first`` / ``last``
        positions and sessions, and the ``associative/timeline_context`` row read to plan) are
        still the ones around it — else :class:`StaleTimeline` is raised and nothing is written
        (another batch of the conversation committed meanwhile; the caller plans again); then
        the vector-free rows (episodes with their unit properties and NEXT_TURN edges, the timeline, cues,
        tags, cue-tag-episode triples, the refreshed session tail), then ``finish()`` — which
        waits for the batch's encoding and returns ``{"embeddings", "semantic_units", "themes"}``
        (:func:`graphmem.associative.construction.attach_vectors`) — and the rows that need vectors.
        The encoding thus runs while the first part is written.

        Returns:
            nodes created by label (``Episode``, ``Cue``, ``Tag``, ``SemanticUnit``, ``Theme``,
            ``Timeline``), from the write queries' answers (nodes that already existed are not
            counted).
        Raises:
            StaleTimeline: the stored episodes around the batch are not the planned ones any more.
        """
        ns = self.namespace
        first = [
            ("Episode", "associative/merge_episodes", rows["episodes"]),
            (None, "associative/link_episode_timeline", None),
            ("Cue", "associative/merge_cues", rows["cues"]),
            ("Tag", "associative/merge_tags", rows["tags"]),
            (None, "associative/link_tag_episodes", rows["episode_links"]),
            (None, "associative/count_cue_contents", rows["cue_contents"]),
        ]
        done: dict[str, Any] = {}

        def work(tx: Any) -> dict[str, int]:
            created: dict[str, int] = {}

            def step(label: str | None, name: str, data: list[Row] | None) -> None:
                params = ({"namespace": ns, "pairs": rows["timeline"]} if data is None
                          else {"namespace": ns, "rows": data})
                records = self.runner.run_in(tx, name, **params)
                if label:
                    created[label] = created.get(label, 0) + sum(int(r["created"]) for r in records)

            locked = self.runner.run_in(tx, "associative/lock_timeline", namespace=ns,
                                        id=context["timeline_id"],
                                        conversation_id=context["conversation_id"])
            created["Timeline"] = sum(int(r["created"]) for r in locked)
            [now] = self.runner.run_in(tx, "associative/timeline_context", namespace=ns,
                                       conversation_id=context["conversation_id"],
                                       first=context["first"], last=context["last"],
                                       first_session=context["first_session"],
                                       last_session=context["last_session"])
            if _neighbours(now) != _neighbours(context):
                raise StaleTimeline(f"conversation {context['conversation_id']!r}: stored "
                                    f"neighbours {_neighbours(now)} instead of the planned "
                                    f"{_neighbours(context)}")
            for label, name, data in first:
                step(label, name, data)
            self.runner.run_in(tx, "associative/relink_neighbours", namespace=ns, **rows["relink"])
            if "late" not in done:
                with self.runner.waiting():
                    done["late"] = finish()
            late = done["late"]
            step(None, "associative/set_episode_embeddings", late["embeddings"])
            step("SemanticUnit", "associative/merge_semantic_units", late["semantic_units"])
            step(None, "associative/link_tag_semantic_units", rows["semantic_links"])
            step("Theme", "associative/merge_themes", late["themes"])
            return created

        created = self.runner.transaction("write", work, name="associative/write_graph")
        logger.debug("associative write: %d episodes sent, created %s", len(rows["episodes"]),
                     created)
        return {label: created.get(label, 0)
                for label in ("Episode", "Cue", "Tag", "SemanticUnit", "Theme", "Timeline")}

    def timeline_context(self, conversation_id: str, first: int, last: int, first_session: str,
                         last_session: str) -> Row:
        """The stored episodes a batch at positions ``first..last`` sits between (read outside
        the lock to plan; :meth:`write_graph` reads them again under it)."""
        return dict(self.runner.read("associative/timeline_context", namespace=self.namespace,
                                     conversation_id=conversation_id, first=first, last=last,
                                     first_session=first_session, last_session=last_session)[0])

    def existing_episode_ids(self, ids: list[str]) -> set[str]:
        """The subset of Episode ``ids`` already stored in the namespace."""
        rows = self.runner.read("associative/find_existing_episodes", namespace=self.namespace,
                                ids=list(ids))
        return {r["id"] for r in rows}

    # -- reads -------------------------------------------------------------------------------
    def counts(self) -> Row:
        """Node and relationship counts of the associative graph."""
        return self.runner.read("associative/count_structure", namespace=self.namespace)[0]

    def search_episodes(self, embedding: np.ndarray, k: int) -> list[Row]:
        """Top ``k`` episodes by cosine to ``embedding`` ``(d,)``, best first, ties by id: an
        exact scan of the namespace's own episodes when it holds at most
        :data:`~graphmem.retrieval.engine.EXACT_LIMIT` (the answer then does not depend on other
        namespaces), else the vector index oversampled (``max(10k, 200)``) and filtered by
        namespace, with the exact scan when fewer than ``k`` come back."""
        vec = [float(x) for x in embedding]
        rows = self.runner.read("associative/search_episodes", namespace=self.namespace,
                                embedding=vec, oversample=max(10 * k, 200), k=k,
                                exact_limit=EXACT_LIMIT)
        if len(rows) < k:
            rows = self.runner.read("associative/search_episodes_exact", namespace=self.namespace,
                                    embedding=vec, k=k)
        for row in rows:
            row["kind"] = "episode"
        return _as_cosine(rows)
