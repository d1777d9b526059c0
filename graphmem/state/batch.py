"""One conversation batch of state-memory ingest: the rows it writes and the session order of
its turns (pure: no I/O).

A batch is the new turns of one conversation. Each becomes an Event written with the
retrieval-unit properties of :func:`graphmem.retrieval.unit_rows` -- among them ``prev_id`` /
``next_id``, its neighbours in its session (conversation order: ``seq`` = ``Turn.position``,
then id) -- the embedding of its window text (:func:`graphmem.retrieval.window_texts`) and,
for a long message, its passages' spans and vectors (:mod:`graphmem.retrieval.passages`).
When turns are added to a session already stored, the stored events next to them get new
``prev_id`` / ``next_id``, a new NEXT_TURN edge and a re-encoded window
(:func:`session_order`), so the graph is the same whether a conversation arrives at once or
message by message. A refreshed neighbour keeps its stored passages (they depend on its own
text only): only its window is re-encoded.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.conversations import Turn
from graphmem.retrieval import unit_rows

logger = logging.getLogger(__name__)


class StaleBatch(Exception):
    """The stored graph around a batch changed between its preparation and its transaction (a
    concurrent writer stored one of its turns or a session neighbour); the batch is prepared
    again. Internal: never leaves :mod:`graphmem.state`."""


@dataclass
class SessionOrder:
    """The session order of a batch (:func:`session_order`).

    Attributes:
        units: new event id -> its :func:`~graphmem.retrieval.unit_rows` row (``window_text``,
            ``passage_spans`` and ``passage_texts`` included, ``embedding`` None).
        refresh: stored neighbours whose session neighbours change: ``id``, ``prev_id``,
            ``next_id``, ``window_text``, ``old_embedding``, ``topic_id``, ``conversation``,
            ``source_ids``.
        link: NEXT_TURN ``(older, newer)`` pairs to create.
        unlink: stored NEXT_TURN pairs a new turn now sits between.
    """

    units: dict[str, dict[str, Any]] = field(default_factory=dict)
    refresh: list[dict[str, Any]] = field(default_factory=list)
    link: list[tuple[str, str]] = field(default_factory=list)
    unlink: list[tuple[str, str]] = field(default_factory=list)


def neighbour_signature(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple]:
    """What a batch assumed about the stored session neighbours of its turns, comparable between
    the read before the transaction and the one under the locks: per new event id the ids and
    ``prev_id`` / ``next_id`` of its stored predecessor and successor."""
    def one(node: Mapping[str, Any] | None) -> tuple:
        return (None,) if node is None else (node["id"], node.get("prev_id"), node.get("next_id"))

    return {r["id"]: one(r.get("predecessor")) + one(r.get("successor")) for r in rows}


def session_order(turns: Sequence[Turn], ids: Sequence[str], neighbours: Mapping[str, Mapping[str, Any]],
                  namespace: str) -> SessionOrder:
    """Session order of the new ``turns`` among the stored events next to them.

    Args:
        turns: the batch's new turns (any order); ``ids`` their event ids.
        neighbours: new event id -> ``{"predecessor": node | None, "successor": node | None}``
            as read by ``state/find_session_neighbours`` (a node: ``id``, ``seq``, ``speaker``,
            ``text``, ``session``, ``prev_id``, ``next_id``, ``embedding``, ``topic_id``,
            ``conversation``, ``source_ids``, ``far``: its own stored neighbour on the far side
            or None); a missing id has no stored neighbour.
        namespace: the tenant (``ns_token``).
    Returns:
        :class:`SessionOrder`.
    Raises:
        InvalidInputError: a turn with empty text (from :func:`~graphmem.retrieval.unit_rows`).
    """
    items: dict[str, dict[str, Any]] = {}
    for turn, eid in zip(turns, ids, strict=True):
        items[eid] = {"id": eid, "seq": turn.position, "speaker": turn.speaker, "text": turn.text,
                      "session": turn.session, "timestamp": turn.timestamp, "new": True}
    for eid in ids:
        for role in ("predecessor", "successor"):
            node = (neighbours.get(eid) or {}).get(role)
            if not node:
                continue
            far = node.get("far")
            if far and far["id"] not in items:
                items[far["id"]] = {**far, "timestamp": None, "new": False, "context": True}
            if node["id"] not in items or items[node["id"]].get("context"):
                # a stored unit's lexical properties stay as stored: no timestamp needed
                items[node["id"]] = {**node, "timestamp": None, "new": False, "context": False}
    by_session: dict[str, list[dict[str, Any]]] = {}
    for item in items.values():
        by_session.setdefault(item.get("session") or "default", []).append(item)
    out = SessionOrder()
    unlink: set[tuple[str, str]] = set()
    for members in by_session.values():
        members.sort(key=lambda m: (-1 if m.get("seq") is None else m["seq"], m["id"]))
        rows = unit_rows(members, None, namespace=namespace, ids=[m["id"] for m in members])
        for item, row in zip(members, rows, strict=True):
            if item["new"]:
                out.units[item["id"]] = row
                if row["prev_id"] is not None:
                    out.link.append((row["prev_id"], item["id"]))
                if row["next_id"] is not None and not items[row["next_id"]]["new"]:
                    out.link.append((item["id"], row["next_id"]))
            elif not item["context"] and (row["prev_id"], row["next_id"]) != (
                    item.get("prev_id"), item.get("next_id")):
                for old, new, pair in ((item.get("prev_id"), row["prev_id"], (item.get("prev_id"), item["id"])),
                                       (item.get("next_id"), row["next_id"], (item["id"], item.get("next_id")))):
                    if old is not None and old != new:
                        unlink.add(pair)  # type: ignore[arg-type]
                out.refresh.append({
                    "id": item["id"], "prev_id": row["prev_id"], "next_id": row["next_id"],
                    "window_text": row["window_text"], "old_embedding": item.get("embedding"),
                    "topic_id": item.get("topic_id"), "conversation": item.get("conversation"),
                    "source_ids": list(item.get("source_ids") or [])})
    out.unlink = sorted(unlink)
    return out


@dataclass
class Batch:
    """Everything one batch writes, prepared before its transaction
    (:func:`graphmem.state.ingest.prepare_batch`); the chain links and state evolution are
    computed inside it, under the topic locks (:meth:`graphmem.state.store.StateStore.write_batch`).

    Attributes:
        conversation: the conversation id.
        event_ids: the new events, in event-time order.
        topics: ``state/lock_topics`` rows, by id: every topic the batch touches; a new one with
            its properties (``conversation``, ``key``, ``name``, ``subject``, ``embedding``,
            ``seq``); ``embedding`` None when the topic takes the vector of the event that
            founds it (that event's row has ``founds_topic`` True).
        lock_event_ids: the stored session neighbours the batch relinks (locked too).
        session_rows: ``{id, session, seq}`` per new event (``state/find_session_neighbours``);
            ``signature``: :func:`neighbour_signature` of what was read before the transaction;
            ``batches_seen``: the conversation's batch count read before it (None: unknown).
        events: ``state/merge_events`` rows (a long message's with its flat ``passage_spans``
            and ``passage_embeddings``, None for a short one).
        chain: the new events' chain keys (:class:`graphmem.state.chain.NewEvent`).
        assertions: the batch's assertions in event-time order
            (:class:`graphmem.state.evolution.Assertion`).
        refresh: ``state/link_turns`` refresh rows (``id``, ``prev_id``, ``next_id``,
            ``embedding``, ``state_id``); ``turn_link`` / ``turn_unlink``: NEXT_TURN pairs.
        refreshed_vectors: stored event id -> ``(old, new)`` window vector of a refreshed
            neighbour, and ``state_of``: stored event id -> the id of the state it founded.
        related: ``state/merge_related_events`` rows (``source``, ``target``, ``similarity``).
    """

    conversation: str
    event_ids: list[str] = field(default_factory=list)
    topics: list[dict[str, Any]] = field(default_factory=list)
    lock_event_ids: list[str] = field(default_factory=list)
    session_rows: list[dict[str, Any]] = field(default_factory=list)
    batches_seen: int | None = None
    signature: dict[str, tuple] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    chain: list[Any] = field(default_factory=list)
    assertions: list[Any] = field(default_factory=list)
    refresh: list[dict[str, Any]] = field(default_factory=list)
    turn_link: list[tuple[str, str]] = field(default_factory=list)
    turn_unlink: list[tuple[str, str]] = field(default_factory=list)
    refreshed_vectors: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    state_of: dict[str, str] = field(default_factory=dict)
    related: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class BatchResult:
    """What a batch's transaction created: nodes by label, RELATED_EVENT edges, and
    ``relations``: ``(event_id, relation, state_id)`` per assertion."""

    topics: int = 0
    events: int = 0
    states: int = 0
    locks: int = 0
    related_edges: int = 0
    relations: list[tuple[str, str, str]] = field(default_factory=list)
