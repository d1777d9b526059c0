"""Writing a conversation's people (``Person`` nodes, ``MENTIONS`` edges) into state memory.

After a state ingest stores new events of a conversation, :func:`write_people` resolves the
conversation's people again from ALL its stored events (:func:`graphmem.state.people.resolve_people`
is pure and whole-conversation: a vocative needs votes from many turns, a third party two
uses) and replaces the conversation's Person nodes and MENTIONS edges, in ONE write
transaction that first takes the conversation's write lock (``state/lock_people``): two
replacements of one conversation serialise, each reading every event stored before it, and the
unit version the retrieval engine caches the namespace's aliases under is raised
(:mod:`graphmem.retrieval.aliases`).

Resolution reads the whole conversation, so it is not repeated at every small write:
:func:`people_due` asks for it when the conversation has grown by :data:`REFRESH_SHARE` of the
events it was last resolved from (at least one event). A chat written one message at a time is
resolved O(log n) times over n messages instead of n times; its people are then at most
:data:`REFRESH_SHARE` of the conversation behind.

Statements: ``state/people_due`` (read), then in one transaction ``state/lock_people``,
``state/conversation_texts`` (paged by :data:`PAGE`), ``state/delete_people``,
``state/merge_people``, ``state/people_resolved``.
"""

from __future__ import annotations

import logging
from typing import Any

from graphmem.names import node_id
from graphmem.state.people import Person, resolve_people

logger = logging.getLogger(__name__)

#: Events read per ``state/conversation_texts`` page.
PAGE = 5_000
#: Growth of a conversation (share of the events its people were last resolved from) after
#: which they are resolved again (:func:`people_due`).
REFRESH_SHARE = 0.1


def people_due(runner: Any, namespace: str, conversation: str, lock_id: str) -> bool:
    """Whether the conversation's people should be resolved again: never resolved yet, or its
    events now exceed those of the last resolution by :data:`REFRESH_SHARE` of them (at least
    one more). False when the conversation has no write lock (nothing stored).

    Raises:
        DatabaseError subclasses.
    """
    rows = runner.read("state/people_due", namespace=namespace, lock_id=lock_id,
                       conversation=conversation)
    if not rows:
        return False
    events, before = int(rows[0]["events"] or 0), rows[0]["people_events"]
    if before is None:
        return events > 0
    return events >= int(before) + max(1, int(REFRESH_SHARE * int(before)))


def person_id(namespace: str, conversation: str, key: str) -> str:
    """The node id of a conversation's person (deterministic: the same person of a conversation
    re-resolved keeps its id)."""
    return node_id(namespace, "person", conversation, key)


def people_rows(namespace: str, conversation: str, people: list[Person],
                event_of: dict[str, str]) -> list[dict[str, Any]]:
    """``state/merge_people`` rows: ``id``, ``key``, ``name``, ``aliases``, ``speakers`` and
    ``events`` (the node ids of the events that mention the person; ``event_of``: source id ->
    event id)."""
    return [{"id": person_id(namespace, conversation, p.key), "key": p.key, "name": p.name,
             "aliases": list(p.aliases), "speakers": list(p.speakers),
             "events": [event_of[s] for s in p.mentions if s in event_of]} for p in people]


def write_people(runner: Any, namespace: str, conversation: str, lock_id: str) -> dict[str, int]:
    """Re-resolve and replace the people of ``conversation`` (module docstring), one write
    transaction.

    Args:
        runner: the query runner. namespace: the tenant. conversation: the conversation id.
        lock_id: the id of the conversation's ConversationLock
            (:meth:`graphmem.state.store.StateStore.lock_id`).
    Returns:
        ``{"people": n, "mentions": m, "deleted": d}`` (all 0 when the conversation has no
        write lock, i.e. nothing stored).
    Raises:
        DatabaseError subclasses (nothing written).
    """

    def work(tx: Any) -> dict[str, int]:
        def run(name: str, **params: Any) -> list[dict[str, Any]]:
            return runner.run_in(tx, name, namespace=namespace, **params)

        if not run("state/lock_people", lock_id=lock_id, conversation=conversation):
            return {"people": 0, "mentions": 0, "deleted": 0}
        rows: list[dict[str, Any]] = []
        while True:
            page = run("state/conversation_texts", conversation=conversation, skip=len(rows),
                       limit=PAGE)
            rows += page
            if len(page) < PAGE:
                break
        turns = [{"speaker": r["speaker"] or "unknown", "text": r["text"] or "",
                  "source_id": r["source_id"], "session": r["session"]} for r in rows]
        event_of = {t["source_id"]: r["id"] for t, r in zip(turns, rows, strict=True)}
        people = resolve_people(turns)
        deleted = run("state/delete_people", conversation=conversation)
        written = run("state/merge_people", conversation=conversation,
                      people=people_rows(namespace, conversation, people, event_of))
        run("state/people_resolved", lock_id=lock_id, events=len(rows))
        return {"people": int(written[0]["people"] or 0) if written else 0,
                "mentions": int(written[0]["mentions"] or 0) if written else 0,
                "deleted": int(deleted[0]["deleted"] or 0) if deleted else 0}

    result = runner.transaction("write", work, name="state/merge_people")
    logger.debug("people of %s/%s: %s", namespace, conversation, result)
    return result


__all__ = ["PAGE", "REFRESH_SHARE", "people_due", "people_rows", "person_id", "write_people"]
