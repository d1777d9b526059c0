"""State memory store: all database I/O of the SEMG by query name (``cypher/state/*``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.graph.runner import QueryRunner
from graphmem.memory import check_count
from graphmem.names import node_id
from graphmem.state.batch import Batch, BatchResult, StaleBatch, neighbour_signature
from graphmem.state.chain import Gap, plan_links
from graphmem.state.evolution import EvidencePlan, KnownState, TopicSnapshot, plan_evidence
from graphmem.state.models import StateItem
from graphmem.state.related import stored_matches
from graphmem.timeparse import time_param

logger = logging.getLogger(__name__)

#: Events a topic chain inspection reads by default.
CHAIN_LIMIT = 10_000


def _dt(value: Any) -> datetime | None:
    return value.to_native() if hasattr(value, "to_native") else value


def _known(row: dict[str, Any], next_id: str | None = None) -> KnownState:
    return KnownState(id=row["id"], value=row.get("value"), valid_from=_dt(row["valid_from"]),
                      embedding=row.get("embedding"), mutable=row.get("mutable"),
                      valid_to=_dt(row.get("valid_to")), session=row.get("session"),
                      conflict=bool(row.get("conflict")), next_id=next_id)


def _snapshot(row: dict[str, Any], batch: Batch) -> TopicSnapshot:
    """A locked topic's states; a current state whose vector was a refreshed event's vector
    is seen with the refreshed one (the write refreshes it too)."""
    snap = TopicSnapshot(initial_id=row.get("initial_id"))
    if row.get("initial_id") and row.get("initial_valid_from") is not None:
        snap.valid_from[row["initial_id"]] = _dt(row["initial_valid_from"])
    if row.get("current"):
        snap.current = _known(row["current"])
        for event_id, (old, new) in batch.refreshed_vectors.items():
            if batch.state_of.get(event_id) == snap.current.id and old is not None \
                    and snap.current.embedding is not None \
                    and list(snap.current.embedding) == list(old):
                snap.current.embedding = new
    return snap


def _late(snap: TopicSnapshot | None, valid_from: datetime) -> bool:
    """Only evidence older than the stored current state can be ``history`` (a batch applies
    its assertions in time order, and the current state's time never decreases)."""
    return snap is not None and snap.current is not None and valid_from < snap.current.valid_from


def _add_prior(snap: TopicSnapshot, row: dict[str, Any]) -> None:
    if all(p.id != row["id"] for p in snap.priors):
        snap.priors.append(_known(row, row.get("next_id")))
    if row.get("next_id") and row.get("next_valid_from") is not None:
        snap.valid_from[row["next_id"]] = _dt(row["next_valid_from"])


def _state_params(plan: EvidencePlan, window_vector_states: set[str]) -> dict[str, Any]:
    """``state/write_states`` parameters of an :class:`EvidencePlan`. A state whose id is in
    ``window_vector_states`` (its vector is its event's window vector:
    ``Assertion.claim_vector`` False) is sent without one and takes its event's on the server,
    so each vector crosses the wire once."""
    states = [{**row, "embedding": None if row["id"] in window_vector_states
               else np.asarray(row["embedding"], dtype=np.float64).tolist(),
               "valid_from": time_param(row["valid_from"]), "valid_to": time_param(row.get("valid_to"))}
              for row in plan.new_states]
    stored = [{"id": sid, "set_valid_to": "valid_to" in up, "valid_to": time_param(up.get("valid_to")),
               "conflict": bool(up.get("conflict")), "added_evidence": int(up.get("added_evidence", 0))}
              for sid, up in plan.stored.items()]
    return {"states": states, "stored": stored, "evidence": [list(p) for p in plan.evidence],
            "current": [{"topic_id": t, "new": new} for t, (_, new) in plan.current.items()],
            "initial": [{"topic_id": t, "new": new} for t, (_, new) in plan.initial.items()],
            "unlink": [list(p) for p in plan.unlink], "link": [list(p) for p in plan.link],
            "conflicts": [list(p) for p in plan.conflicts]}


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

    def lock_id(self, conversation: str) -> str:
        """The id of ``conversation``'s ConversationLock node."""
        return node_id(self.namespace, "conversation-lock", conversation)

    def conversation_batches(self, conversation: str) -> int:
        """Batches of ``conversation`` written so far (``state/conversation_batches``)."""
        rows = self.runner.read("state/conversation_batches", namespace=self.namespace,
                                lock_id=self.lock_id(conversation))
        return int(rows[0]["batches"]) if rows else 0

    def session_neighbours(self, conversation: str, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Per new turn (``{id, session, seq}``) its stored session neighbours
        (``state/find_session_neighbours``): ``id``, ``predecessor``, ``successor``."""
        if not rows:
            return []
        return self.runner.read("state/find_session_neighbours", namespace=self.namespace,
                                conversation=conversation, rows=list(rows))

    def related_candidates(self, conversation: str, rows: Sequence[dict[str, Any]], per_event: int,
                           ) -> list[dict[str, Any]]:
        """Stored events of ``conversation`` and another topic most similar to each new event
        (``{index, topic_id, embedding}``): ``index``, ``id``, ``topic_id``, ``similarity``
        (cosine in [-1, 1]), at most ``per_event`` per new event, best first, ties by id.

        The conversation's stored events are read with their vectors
        (``state/find_related_candidates``) and scored exactly in process
        (:func:`graphmem.state.related.stored_matches`), not by a vector-index query: the index
        ranks every namespace's events before any filter, so its answer (and the RELATED_EVENT
        edges written from it) would depend on other tenants' data."""
        if not rows or per_event <= 0:
            return []
        stored = self.runner.read("state/find_related_candidates", namespace=self.namespace,
                                  conversation=conversation)
        vectors = np.asarray([r["embedding"] for r in rows], dtype=np.float64)
        matches = stored_matches(vectors, [r["topic_id"] for r in rows], stored, per_event)
        return [{"index": int(rows[m.index]["index"]), "id": m.id, "topic_id": m.topic_id,
                 "similarity": m.similarity} for m in matches]

    def write_batch(self, batch: Batch, confirm_threshold: float) -> BatchResult:
        """Write one conversation batch in ONE transaction with a constant number of statements:
        lock the conversation (its ``ConversationLock``, so batches of one conversation
        serialise), lock (and create) its topics and the stored session neighbours it relinks; check under
        the locks that none of its events was stored meanwhile and -- when the lock's batch count
        shows another batch of the conversation landed since the batch was prepared -- that its
        session neighbours are still the ones it was prepared with (else :class:`StaleBatch`,
        nothing written); read
        each new event's stored chain neighbours and the states late assertions need (index
        seeks); compute the chain links (:func:`graphmem.state.chain.plan_links`) and the state
        evolution (:func:`graphmem.state.evolution.plan_evidence`); write events, session links,
        chain links, states and RELATED_EVENT edges by UNWIND.

        Raises:
            StaleBatch: the stored graph around the batch changed (the caller prepares it again).
            DatabaseError subclasses: translated Neo4j errors (nothing written).
        """
        ns = self.namespace

        def work(tx: Any) -> BatchResult:
            def run(name: str, **params: Any) -> list[dict[str, Any]]:
                return self.runner.run_in(tx, name, namespace=ns, **params)

            answer = run("state/lock_topics", lock_id=self.lock_id(batch.conversation),
                         conversation=batch.conversation, rows=batch.topics,
                         event_ids=batch.lock_event_ids)
            locked = {r["id"]: r for r in answer}
            alone = (batch.batches_seen is not None and bool(answer)
                     and int(answer[0]["batches"]) == batch.batches_seen + 1)
            if run("state/find_existing_events", ids=batch.event_ids):
                raise StaleBatch("an event of the batch was stored meanwhile")
            if batch.session_rows and not alone:  # another batch landed since it was prepared
                seen = run("state/find_session_neighbours", conversation=batch.conversation,
                           rows=batch.session_rows)
                if neighbour_signature(seen) != batch.signature:
                    raise StaleBatch("a session neighbour of the batch changed meanwhile")
            snapshots = {tid: _snapshot(row, batch) for tid, row in locked.items()}
            stored_topics = {tid for tid, row in locked.items() if not row["created"]}
            chain_rows = [{"id": e.id, "topic_id": e.topic_id, "sort_key": e.sort_key}
                          for e in batch.chain if e.topic_id in stored_topics]
            prior_rows = [{"event_id": a.event_id, "topic_id": a.topic_id,
                           "valid_from": a.state["valid_from"]} for a in batch.assertions
                          if _late(snapshots.get(a.topic_id), a.state["valid_from"])]
            gaps: dict[str, Gap] = {}
            if chain_rows or prior_rows:
                [context] = run("state/find_batch_context", events=chain_rows, priors=prior_rows)
                gaps = {r["id"]: Gap(r["predecessor"], r["successor"]) for r in context["chain"]}
                topic_of = {a.event_id: a.topic_id for a in batch.assertions}
                for r in context["priors"]:
                    if r["prior"]:
                        _add_prior(snapshots[topic_of[r["event_id"]]], r["prior"])
            links = plan_links(batch.chain, gaps, {t: r["first_id"] for t, r in locked.items()})
            evolution = plan_evidence(batch.assertions, snapshots, confirm_threshold)
            result = BatchResult(topics=sum(1 for r in locked.values() if r["created"]),
                                 relations=evolution.relations,
                                 # the first batch of a conversation creates its lock (count 1)
                                 locks=int(bool(answer) and int(answer[0]["batches"]) == 1))
            result.events = run("state/merge_events", rows=batch.events)[0]["created"]
            if batch.turn_link or batch.turn_unlink or batch.refresh:
                run("state/link_turns", unlink=[list(p) for p in batch.turn_unlink],
                    link=[list(p) for p in batch.turn_link], refresh=batch.refresh)
            run("state/link_timeline", unlink=[list(p) for p in links.unlink],
                link=[list(p) for p in links.link], unfirst=[list(p) for p in links.unfirst],
                first=[list(p) for p in links.first])
            if batch.assertions:
                window = {a.state["id"] for a in batch.assertions if not a.claim_vector}
                result.states = run("state/write_states",
                                    **_state_params(evolution, window))[0]["created"]
            if batch.related:
                result.related_edges = run("state/merge_related_events",
                                           pairs=batch.related)[0]["created"]
            return result

        logger.debug("state batch %s: %d events, %d topics, %d assertions", batch.conversation,
                     len(batch.events), len(batch.topics), len(batch.assertions))
        return self.runner.transaction("write", work, name="state/write_batch")

    # ------------------------------------------------------------------ retrieval
    def topic_states(self, topic_ids: Sequence[str], only_current: bool = False) -> list[StateItem]:
        """States of ``topic_ids`` in time order (the 100 latest and the current one per topic),
        as :class:`StateItem` s with score 0 (inspection; recall reads the state layer through
        :mod:`graphmem.state.recall`)."""
        from graphmem.state.recall import state_item

        rows = self.runner.read("state/get_topic_states", namespace=self.namespace,
                                topic_ids=list(topic_ids), only_current=only_current)
        return [state_item(r, 0.0, []) for r in rows]

    def topic_chain(self, topic_id: str, limit: int = CHAIN_LIMIT) -> list[dict[str, Any]]:
        """A topic's events in TEMPORAL_NEXT order from its FIRST_TIMELINE_NODE (``id``,
        ``occurred_at``, ``source_ids``, ``position``), among its first ``limit`` events by chain
        key; the walk stops where the stored chain does (an event off the chain is not listed).

        Raises:
            InvalidInputError: ``limit`` out of 1..1,000,000.
        """
        check_count("limit", limit, high=1_000_000)
        rows = self.runner.read("state/get_topic_chain", namespace=self.namespace,
                                topic_id=topic_id, limit=limit)
        by_id = {r["id"]: r for r in rows}
        current = next((r for r in rows if r["first"]), None)
        out: list[dict[str, Any]] = []
        while current is not None and len(out) < len(rows):
            out.append({"id": current["id"], "occurred_at": current["occurred_at"],
                        "source_ids": current["source_ids"], "position": len(out)})
            current = by_id.get(current["next_id"])
        return out

    def structure(self) -> dict[str, int]:
        """Counts and invariant violations (``bad_current``, ``unchained`` must be 0)."""
        return self.runner.read("state/count_state_structure", namespace=self.namespace)[0]
