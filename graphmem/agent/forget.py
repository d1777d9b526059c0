"""Forget: remove messages, and everything derived from them, from every memory of a namespace.

``GraphMemory.forget(message_ids=..., conversation_id=..., speaker=...)`` selects stored
messages (every given selector must match; at least one is required) and removes them for
real, in every memory that stores conversation messages (a memory whose class sets
:attr:`graphmem.memory.Memory.message_queries`: state and associative memory), memory by
memory (each deleted and rebuilt before the next is touched):

1. the memory's ``find_messages`` query lists the selected messages per conversation;
2. each affected conversation's messages are read (``conversation_messages``);
3. in one write transaction per memory, ``lock_conversations`` takes the conversations' write
   locks (a concurrent add waits), their messages are read again (a message added since the
   plan restarts it), and ``delete_conversations`` deletes, in one statement, everything it holds
   of those conversations (units, passages and their vectors, states, topics, people, episodes,
   themes, locks) and the shared nodes left without support (semantic units, tags, cues; a
   cue's content counter is recounted). Neo4j's full-text and vector indexes drop deleted nodes
   themselves; the in-process vector cache sees the change through the conversation locks;
4. the remaining messages are ingested again into that memory, with their ids, times,
   sessions, arrival order and serialised forms: derived structure (a state whose evidence was
   forgotten, a topic chain, a person known only from a forgotten message) is judged again from
   what is left, exactly as if the forgotten messages had never been added.

A forget of whole conversations (``conversation_id`` alone) rebuilds nothing. Insight and
experience memory hold no conversation messages (they are fed by task feedback), so nothing of
theirs cites a message. Every call writes an :class:`graphmem.schema.audit.AuditRecord` (who,
when, salted digests of the selectors, the counts; no content) and is idempotent: a second call
finds nothing and removes nothing.

Cost: the delete is one statement per memory; the rebuild is an ingest of what remains of the
affected conversations (with an LLM configured, its calls too). Measured figures: docs/lifecycle.md.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from graphmem.conversations import Conversation, Turn
from graphmem.errors import DatabaseError, IncompleteForgetError, InvalidInputError
from graphmem.instrumentation import traced
from graphmem.names import check_key

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: Most message ids one forget accepts (a longer list: call again with the rest).
MAX_MESSAGE_IDS = 100_000
#: Plans of one memory's delete a forget tries while concurrent adds change its conversations.
PLAN_ATTEMPTS = 3


class ForgetReport(BaseModel):
    """What one :func:`forget` did (or, with ``dry_run``, would do).

    Attributes:
        audit_id: the id of the :class:`~graphmem.schema.audit.AuditRecord` written ("" for a
            dry run, and when nothing matched in a namespace that holds no memory at all: no
            record creates a mistyped namespace).
        messages: distinct messages forgotten (``(conversation, message id)`` pairs found in any
            memory).
        per_memory: messages forgotten per memory, ``{memory: n}``.
        conversations: the conversations that held them, sorted.
        rebuilt: remaining messages ingested again per memory, ``{memory: n}``.
        nodes: nodes removed per label (count before minus count after; only labels that
            changed), ``{label: n}``.
        relationships: relationships removed per type, likewise, ``{type: n}``. Both are net
            changes of the whole forget, rebuild included: a count is negative when the
            rebuild made more of a kind than it removed (the remaining episodes regrouped into
            more themes, say).
        seconds: wall time of the call.
        dry_run: True when nothing was written.
    """

    audit_id: str = ""
    messages: int = 0
    per_memory: dict[str, int] = Field(default_factory=dict)
    conversations: list[str] = Field(default_factory=list)
    rebuilt: dict[str, int] = Field(default_factory=dict)
    nodes: dict[str, int] = Field(default_factory=dict)
    relationships: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    dry_run: bool = False


def check_selectors(message_ids: Sequence[str] | str | None, conversation_id: str | None,
                    speaker: str | None) -> dict[str, Any]:
    """The validated selectors of a forget (pure): ``{"message_ids": [...] | None,
    "conversation": str | None, "speaker": str | None}``.

    Raises:
        InvalidInputError: no selector at all; an empty ``message_ids`` list, one over
            :data:`MAX_MESSAGE_IDS`, or a bare string (give a list); an id, conversation id or
            speaker that is not an indexed key (empty, too long, not text) -- naming it.
    """
    if message_ids is None and conversation_id is None and speaker is None:
        raise InvalidInputError("forget needs at least one selector: message_ids=[...], "
                                "conversation_id=... or speaker=...")
    ids: list[str] | None = None
    if message_ids is not None:
        if isinstance(message_ids, (str, bytes)):
            raise InvalidInputError(f"message_ids must be a list of ids, got the string "
                                    f"{message_ids[:40]!r}: pass [{message_ids[:40]!r}]")
        ids = list(dict.fromkeys(message_ids))
        if not ids:
            raise InvalidInputError("message_ids is empty: give at least one message id, or "
                                    "leave it out to select by conversation_id / speaker")
        if len(ids) > MAX_MESSAGE_IDS:
            raise InvalidInputError(f"{len(ids)} message ids in one forget; at most "
                                    f"{MAX_MESSAGE_IDS}: split the list")
        for index, value in enumerate(ids):
            check_key(f"message_ids[{index}]", value)
    if conversation_id is not None:
        check_key("conversation_id", conversation_id)
    if speaker is not None:
        check_key("speaker", speaker)
    return {"message_ids": ids, "conversation": conversation_id, "speaker": speaker}


def selector_digests(namespace: str, selectors: dict[str, Any]) -> dict[str, list[str]]:
    """The audit form of ``selectors`` (pure): each given value as
    ``sha256(namespace + "\\x1f" + value)`` hex, so an auditor holding a value can check that it
    was forgotten while the record itself keeps no id or name."""
    def digest(value: str) -> str:
        return hashlib.sha256(f"{namespace}\x1f{value}".encode()).hexdigest()

    out: dict[str, list[str]] = {}
    for key, value in selectors.items():
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        out[key] = sorted(digest(v) for v in values)
    return out


def removed(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """``before - after`` per key, keys whose count changed only (pure)."""
    keys = sorted(set(before) | set(after))
    return {key: before.get(key, 0) - after.get(key, 0) for key in keys
            if before.get(key, 0) != after.get(key, 0)}


def rebuild_conversation(conversation_id: str, rows: Sequence[dict[str, Any]]) -> Conversation:
    """The :class:`Conversation` of stored message ``rows`` (``conversation_messages``:
    source_id, text, speaker, session, occurred_at, seq, message_json), in their stored order,
    each turn keeping its id, time, session, arrival position and serialised form (pure)."""
    turns = []
    for row in rows:
        stamp = row["occurred_at"]
        stamp = stamp.to_native() if hasattr(stamp, "to_native") else stamp
        turns.append(Turn(source_id=row["source_id"], speaker=row["speaker"], text=row["text"],
                          timestamp=stamp, session=row.get("session") or "default",
                          position=max(int(row.get("seq") or 0), 0),
                          message_json=row.get("message_json")))
    speakers = list(dict.fromkeys(t.speaker for t in turns))
    return Conversation(id=conversation_id, turns=turns, speakers=speakers)


def _flat_counts(mem: GraphMemory) -> tuple[dict[str, int], dict[str, int]]:
    nodes: dict[str, int] = {}
    for per_label in mem.counts().values():
        for label, n in per_label.items():
            nodes[label] = nodes.get(label, 0) + int(n)
    rels: dict[str, int] = {}
    for per_type in mem.relationship_counts().values():
        for rel_type, n in per_type.items():
            rels[rel_type] = rels.get(rel_type, 0) + int(n)
    return nodes, rels


def _span_attributes(report: ForgetReport) -> dict[str, Any]:
    return {"messages": report.messages, "conversations": len(report.conversations),
            "nodes_removed": sum(report.nodes.values()), "dry_run": report.dry_run}


@traced("graphmem.forget", _span_attributes)
def forget(mem: GraphMemory, *, message_ids: Sequence[str] | None = None,
           conversation_id: str | None = None, speaker: str | None = None,
           actor: str | None = None, dry_run: bool = False,
           progress: Callable[[int], None] | None = None) -> ForgetReport:
    """Forget the selected messages of ``mem``'s namespace and everything derived from them
    (see the module docstring).

    Args:
        message_ids: the caller's message ids (as given to ``mem.add``; LoCoMo ``dia_id`` s).
        conversation_id: a conversation. speaker: a role / speaker name, exactly as stored.
            Every given selector must match; at least one is required.
        actor: who asks (kept in the audit record; default ``"unknown"``).
        dry_run: report what would be forgotten (``messages``, ``per_memory``,
            ``conversations``) and write nothing (no audit record either).
        progress: called with the number of remaining messages rebuilt, after each
            conversation.
    Returns:
        :class:`ForgetReport`.
    Raises:
        InvalidInputError: see :func:`check_selectors`; a bad ``actor``.
        IncompleteForgetError: a rebuild failed after its conversations were deleted; its
            ``pending`` conversations complete the forget (``err.complete(mem)``).
        DatabaseError subclasses: the database failed before anything was deleted.
    """
    began = time.perf_counter()
    selectors = check_selectors(message_ids, conversation_id, speaker)
    if actor is not None:
        check_key("actor", actor)
    ns = mem.namespace
    stores = [(name, memory) for name, memory in mem.memories().items()
              if getattr(memory, "message_queries", None)]
    found: dict[str, dict[str, set[str]]] = {}
    for name, memory in stores:
        rows = mem.runner.read(f"{memory.message_queries}/find_messages", namespace=ns,
                               message_ids=selectors["message_ids"],
                               conversation=selectors["conversation"],
                               speaker=selectors["speaker"])
        for row in rows:
            found.setdefault(name, {}).setdefault(row["conversation"], set()).add(row["source_id"])
    pairs = {(conv, sid) for per_conv in found.values() for conv, ids in per_conv.items()
             for sid in ids}
    report = ForgetReport(messages=len(pairs),
                          per_memory={name: sum(len(v) for v in per_conv.values())
                                      for name, per_conv in found.items()},
                          conversations=sorted({conv for conv, _ in pairs}), dry_run=dry_run)
    if dry_run:
        report.seconds = time.perf_counter() - began
        return report
    nodes_before, rels_before = _flat_counts(mem)
    rebuilt: dict[str, int] = {}
    for name, memory in stores:  # each memory deleted and rebuilt before the next is touched
        if not found.get(name):
            continue
        try:
            pending = _delete(mem, name, memory.message_queries, found[name])
        except DatabaseError as exc:
            done = [n for n in rebuilt] or "none"
            raise type(exc)(f"{exc} (memories already forgotten: {done}; forget is idempotent: "
                            "call it again to finish)") from exc
        _reset_caches(mem, report.conversations)
        for index, (_, conversation) in enumerate(pending):
            try:
                mem.memory(name).ingest([conversation])
            except Exception as exc:
                raise IncompleteForgetError(
                    f"forget removed the selected messages of {', '.join(report.conversations)} "
                    f"from {name} memory but rebuilding the {len(conversation.turns)} remaining "
                    f"messages of {conversation.id!r} failed with {type(exc).__name__}: {exc}. "
                    "err.complete(mem) completes the rebuild; then call forget again for the "
                    "other memories", pending=pending[index:]) from exc
            if progress is not None:
                progress(len(conversation.turns))
        rebuilt[name] = sum(len(c.turns) for _, c in pending)
    rebuilt = {name: n for name, n in rebuilt.items() if n}
    _reset_caches(mem, report.conversations)
    nodes_after, rels_after = _flat_counts(mem)
    report.rebuilt = rebuilt
    report.nodes = removed(nodes_before, nodes_after)
    report.relationships = removed(rels_before, rels_after)
    counts = {"messages": report.messages, "nodes": report.nodes,
              "relationships": report.relationships, "rebuilt": rebuilt}
    if not report.messages and not any(nodes_after.values()):
        # a namespace that holds nothing (a mistyped name, say): no audit record creates it
        report.seconds = time.perf_counter() - began
        logger.info("forget in %s: the namespace holds no memory; nothing recorded", ns)
        return report
    [row] = mem.runner.write("core/record_audit", namespace=ns, id=str(uuid.uuid4()),
                             action="forget", actor=actor or "unknown",
                             selectors=json.dumps(selector_digests(ns, selectors), sort_keys=True),
                             counts=json.dumps(counts, sort_keys=True))
    report.audit_id = row["id"]
    report.seconds = time.perf_counter() - began
    logger.info("forget in %s: %d messages of %d conversations, %d nodes removed, %.1f s", ns,
                report.messages, len(report.conversations), sum(report.nodes.values()),
                report.seconds)
    return report


class _Changed(Exception):
    """A conversation changed between the plan of a forget and its delete transaction."""


def _delete(mem: GraphMemory, name: str, folder: str,
            forgotten: dict[str, set[str]]) -> list[tuple[str, Conversation]]:
    """Delete ``forgotten``'s conversations (``{conversation: forgotten source ids}``) from one
    memory, returning what to rebuild: ``[(name, Conversation of the remaining messages)]``.

    One write transaction locks the conversations (``<folder>/lock_conversations``: a
    concurrent add waits), reads their messages again and deletes them only when those are the
    messages planned from; a message added in between restarts the plan (at most
    :data:`PLAN_ATTEMPTS` times), so no concurrent add is deleted unseen.

    Raises:
        DatabaseError: the conversations kept changing (naming them).
    """
    convs = sorted(forgotten)
    ns = mem.namespace
    runner = mem.runner
    for _ in range(PLAN_ATTEMPTS):
        planned = {conv: runner.read(f"{folder}/conversation_messages", namespace=ns,
                                     conversation=conv) for conv in convs}

        def work(tx: Any) -> None:
            runner.run_in(tx, f"{folder}/lock_conversations", namespace=ns, conversations=convs)
            for conv in convs:
                now = runner.run_in(tx, f"{folder}/conversation_messages", namespace=ns,
                                    conversation=conv)
                if [r["source_id"] for r in now] != [r["source_id"] for r in planned[conv]]:
                    raise _Changed(conv)
            runner.run_in(tx, f"{folder}/delete_conversations", namespace=ns,
                          conversations=convs)

        try:
            runner.transaction("write", work, name=f"{folder}/delete_conversations")
        except _Changed as changed:
            logger.info("forget in %s: conversation %s of %s memory changed; planning again",
                        ns, changed, name)
            continue
        return [(name, rebuild_conversation(conv, [r for r in planned[conv]
                                                   if r["source_id"] not in forgotten[conv]]))
                for conv in convs
                if any(r["source_id"] not in forgotten[conv] for r in planned[conv])]
    raise DatabaseError(f"forget in {ns!r}: conversations {convs} of {name} memory kept "
                        f"changing during {PLAN_ATTEMPTS} attempts; nothing was deleted from "
                        f"{name} memory: try again when the writes have settled")


def _reset_caches(mem: GraphMemory, conversations: Sequence[str]) -> None:
    mem._data_memories = None
    for conv in conversations:
        mem._last_message_time.pop(conv, None)


def audit_records(mem: GraphMemory, limit: int = 100) -> list[dict[str, Any]]:
    """The namespace's audit records, newest first (at most ``limit``): ``id``, ``action``,
    ``actor``, ``selectors`` and ``counts`` (decoded JSON), ``created_at`` (aware datetime).

    Raises:
        InvalidInputError: ``limit`` < 1.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive integer, got {limit!r}")
    rows = mem.runner.read("core/list_audit_records", namespace=mem.namespace, limit=limit)
    out = []
    for row in rows:
        stamp = row["created_at"]
        out.append({"id": row["id"], "action": row["action"], "actor": row["actor"],
                    "selectors": json.loads(row["selectors"] or "{}"),
                    "counts": json.loads(row["counts"] or "{}"),
                    "created_at": stamp.to_native() if hasattr(stamp, "to_native") else stamp})
    return out


__all__ = ["MAX_MESSAGE_IDS", "ForgetReport", "audit_records", "check_selectors", "forget",
           "rebuild_conversation", "removed", "selector_digests"]
