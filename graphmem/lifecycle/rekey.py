"""Node ids of an import into another namespace.

Node ids are unique on a server and derived from the namespace
(:func:`graphmem.names.node_id`: ``uuid5(namespace | kind | key...)``), so an import into
namespace T of a file exported from namespace S gives every node a new id, and every property
that holds a node id the same new id. An id is **re-derived** when the node's properties give
its natural key: the key is checked against the old id (``node_id(S, kind, *key) == old id``)
and the new id is ``node_id(T, kind, *key)`` -- the id graphmem itself gives that node in T, so a
later ``mem.add`` of an imported message finds it stored, and later writes MERGE onto the
imported cues, tags, topics, locks and themes instead of duplicating them. Any other id (a
random one, a key the properties do not hold, a benchmark's own ids) is **mapped**:
``node_id(T, "imported", old id)``, the same for the node and every reference to it.

Keys re-derived (:data:`DIRECT`): Query (text), Step (query, position), Insight (``api``
content), ControllerDecision (query and insight), Task (task key), DecisionGraph (task key,
kind), Topic (conversation, key), Event (conversation, first source id), ConversationLock,
Person (conversation, key), Cue (text), Tag (cue, text), Episode (conversation, source id),
SemanticUnit (normalised text), Theme (conversation, index < :data:`THEME_CANDIDATES`),
Timeline, RetentionPolicy (one per namespace); predicted from another node
(:data:`PREDICTED`): the State asserted by an Event's turn, the Insight a Query ADDed, an
Insight's revision. Action, EditOperation and AuditRecord ids are mapped (no later write derives
them from a stored node's key), and so is a Query recorded under a caller's task id (the node
keeps its text, not the task id).

The old -> new table of a file can be as large as the namespace, so it lives in a scratch
SQLite file (:class:`IdMap`), not in memory.
"""

from __future__ import annotations

import logging
import sqlite3
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.names import node_id

logger = logging.getLogger(__name__)

#: The kind word of a mapped id: ``node_id(target, MAPPED_KIND, old id)``.
MAPPED_KIND = "imported"
#: Node properties that hold the id of another node of the namespace.
NODE_REFERENCES = ("cue_id", "topic_id", "prev_id", "next_id", "query_id", "insight_id",
                   "result_insight_id")
#: Relationship properties that hold a node id (an evidence edge's older insight version, a
#: CONTEXTUALIZES edge's query).
RELATIONSHIP_REFERENCES = ("carried_from", "via_query")
#: Node properties whose text ends in ``|<node id>`` (an Event's topic-chain key).
SUFFIX_REFERENCES = ("sort_key",)
#: Properties named like references that hold the caller's ids, kept as they are.
CALLER_KEYS = ("conversation_id", "source_id", "source_ids", "task_key")
#: Theme indexes tried when re-deriving a Theme id (a conversation's themes are numbered from 0).
THEME_CANDIDATES = 64
_BATCH = 500


@dataclass(frozen=True)
class Ref:
    """A key part that is the id of another node (its new id goes into the new key)."""

    id: Any


Rule = Callable[[dict[str, Any]], list[tuple[str, tuple[Any, ...]]]]


def _first(values: Any) -> Any:
    return values[0] if isinstance(values, list) and values else None


def _normalised(text: Any) -> Any:
    from graphmem.associative.extraction import normalise_cue

    return normalise_cue(text) if isinstance(text, str) else text


#: Per label, the candidate natural keys ``(kind, parts)`` of a node, from its properties.
DIRECT: dict[str, Rule] = {
    "Query": lambda p: [("query", (p.get("text"),))],
    "Step": lambda p: [("step", (Ref(p.get("query_id")), p.get("position")))],
    "Insight": lambda p: [("insight", ("api", p.get("content")))],
    "ControllerDecision": lambda p: [
        ("decision", (Ref(p.get("query_id")), Ref(p.get("insight_id")))),
        ("decision", (Ref(p.get("query_id")), "add")),
        ("decision", (Ref(p.get("query_id")), "api", Ref(p.get("insight_id"))))],
    "Task": lambda p: [("task", (p.get("task_key"),))],
    "DecisionGraph": lambda p: [("decision_graph", (p.get("task_key"), p.get("kind")))],
    "Topic": lambda p: [("topic", (p.get("conversation"), p.get("key")))],
    "Event": lambda p: [("event", (p.get("conversation"), _first(p.get("source_ids"))))],
    "ConversationLock": lambda p: [("conversation-lock", (p.get("conversation"),))],
    "Person": lambda p: [("person", (p.get("conversation_id"), p.get("key")))],
    "Cue": lambda p: [("cue", (p.get("text"),))],
    "Tag": lambda p: [("tag", (Ref(p.get("cue_id")), p.get("text")))],
    "Episode": lambda p: [("episode", (p.get("conversation_id"), p.get("source_id")))],
    "SemanticUnit": lambda p: [("semantic_unit", (_normalised(p.get("text")),))],
    "Theme": lambda p: [("theme", (p.get("conversation_id"), i)) for i in range(THEME_CANDIDATES)],
    "Timeline": lambda p: [("timeline", (p.get("conversation_id"),))],
    "RetentionPolicy": lambda p: [("retention-policy", ())],
}

#: Per label, the keys of OTHER nodes this node's properties give (``Ref(SELF)`` is its own id).
SELF = object()
#: Labels whose ids :data:`PREDICTED` may give: a node of these may learn its id after its own
#: line, so nothing is predicted from its id before it is known.
PREDICTED_LABELS = frozenset({"Insight", "State"})
PREDICTED: dict[str, Rule] = {
    "Query": lambda p: [("insight", ("add", Ref(SELF)))],
    "Insight": lambda p: [("insight", ("revision", Ref(SELF)))],
    "Event": lambda p: [("state", (p.get("conversation"), _first(p.get("source_ids"))))],
}


class IdMap:
    """Old id -> new id of one import from ``source`` into ``target`` (another namespace).

    Fed every node line in file order (:meth:`learn`), then asked for the new ids of nodes and
    references (:meth:`lookup`). The table is a scratch SQLite file in a temporary folder
    (``directory``: where to make it; default the system's), removed by :meth:`close`.

    Attributes:
        source, target: the namespaces.
    """

    def __init__(self, source: str, target: str, directory: str | Path | None = None) -> None:
        self.source, self.target = source, target
        self._folder = tempfile.TemporaryDirectory(prefix="graphmem-import-", dir=directory)
        self._db = sqlite3.connect(Path(self._folder.name) / "ids.sqlite")
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute("CREATE TABLE ids (old TEXT PRIMARY KEY, new TEXT NOT NULL) WITHOUT ROWID")
        self._pending: dict[str, str] = {}

    def mapped(self, old: str) -> str:
        """The id of a node without a re-derived key: ``node_id(target, "imported", old)``."""
        return node_id(self.target, MAPPED_KIND, old)

    def _known(self, old: str) -> str | None:
        if old in self._pending:
            return self._pending[old]
        row = self._db.execute("SELECT new FROM ids WHERE old = ?", (old,)).fetchone()
        return row[0] if row else None

    def _put(self, old: str, new: str) -> None:
        if old not in self._pending and self._known(old) is None:
            self._pending[old] = new
            if len(self._pending) >= _BATCH:
                self.flush()

    def flush(self) -> None:
        """Write what :meth:`learn` gathered to the table."""
        if self._pending:
            self._db.executemany("INSERT OR IGNORE INTO ids VALUES (?, ?)", self._pending.items())
            self._db.commit()
            self._pending.clear()

    def _parts(self, parts: tuple[Any, ...], own: tuple[str, str] | None,
               strict: bool) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
        old_parts, new_parts = [], []
        for part in parts:
            if not isinstance(part, Ref):
                old_parts.append(part)
                new_parts.append(part)
                continue
            if part.id is SELF:
                old, new = own  # type: ignore[misc]
            else:
                old = part.id
                if not isinstance(old, str):
                    return None
                new = self._known(old)
                if new is None:
                    if strict:  # a prediction needs the final id of what it refers to
                        return None
                    new = self.mapped(old)
            old_parts.append(old)
            new_parts.append(new)
        return tuple(old_parts), tuple(new_parts)

    def learn(self, label: str, old_id: str, properties: dict[str, Any]) -> None:
        """Take one node line (``properties`` in their JSON form) into the table: its own id
        when a key of :data:`DIRECT` re-derives it, and the ids :data:`PREDICTED` gives."""
        new = self._known(old_id)
        if new is None:
            for kind, parts in DIRECT.get(label, lambda p: [])(properties):
                both = self._parts(parts, None, strict=False)
                if both and node_id(self.source, kind, *both[0]) == old_id:
                    new = node_id(self.target, kind, *both[1])
                    self._put(old_id, new)
                    break
        own = (old_id, new if new is not None else self.mapped(old_id))
        for kind, parts in PREDICTED.get(label, lambda p: [])(properties):
            if new is None and label in PREDICTED_LABELS and \
                    any(isinstance(x, Ref) and x.id is SELF for x in parts):
                continue  # its own id may still change: predict nothing from it
            both = self._parts(parts, own, strict=True)
            if both:
                self._put(node_id(self.source, kind, *both[0]),
                          node_id(self.target, kind, *both[1]))

    def lookup(self, ids: Iterable[str]) -> tuple[dict[str, str], set[str]]:
        """``({old: new}, re-derived olds)`` for every id of ``ids``: the new id is the
        re-derived one when :meth:`learn` found it, else the mapped one.

        Call :meth:`flush` after the last :meth:`learn` first."""
        wanted = list(dict.fromkeys(i for i in ids if isinstance(i, str)))
        found: dict[str, str] = {}
        for start in range(0, len(wanted), _BATCH):
            chunk = wanted[start:start + _BATCH]
            marks = ",".join("?" * len(chunk))
            found.update(self._db.execute(f"SELECT old, new FROM ids WHERE old IN ({marks})",
                                          chunk))
        return {old: found.get(old) or self.mapped(old) for old in wanted}, set(found)

    def close(self) -> None:
        """Remove the scratch table."""
        self._db.close()
        self._folder.cleanup()


def references(properties: dict[str, Any], names: Iterable[str]) -> list[str]:
    """The node ids held by ``properties`` under ``names`` (strings only)."""
    return [v for k in names if isinstance(v := properties.get(k), str)]


def suffix_id(text: Any) -> str | None:
    """The node id after the last ``|`` of ``text`` (a chain key), or None."""
    if not isinstance(text, str) or "|" not in text:
        return None
    return text.rsplit("|", 1)[1] or None


def translate(properties: dict[str, Any], new_ids: dict[str, str],
              names: Iterable[str]) -> dict[str, Any]:
    """``properties`` with every reference under ``names`` (and each :data:`SUFFIX_REFERENCES`
    suffix) replaced by its new id from ``new_ids``; the input is not changed."""
    out = dict(properties)
    for key in names:
        value = out.get(key)
        if isinstance(value, str) and value in new_ids:
            out[key] = new_ids[value]
    for key in SUFFIX_REFERENCES:
        old = suffix_id(out.get(key))
        if old is not None and old in new_ids:
            out[key] = out[key][:-len(old)] + new_ids[old]
    return out


def retoken(value: Any, source: str, target: str) -> Any:
    """An ``ns_token`` value of namespace ``source`` for namespace ``target``: the source's
    :func:`~graphmem.retrieval.text.namespace_token` at its start becomes the target's, what
    follows it is kept (an archived unit's suffix); another text becomes the target's token
    (what graphmem writes on a unit); a non-text value is returned unchanged."""
    from graphmem.retrieval.text import namespace_token

    if not isinstance(value, str):
        return value
    old, new = namespace_token(source), namespace_token(target)
    return new + value[len(old):] if value.startswith(old) else new


__all__ = ["CALLER_KEYS", "DIRECT", "MAPPED_KIND", "NODE_REFERENCES", "PREDICTED",
           "PREDICTED_LABELS", "RELATIONSHIP_REFERENCES", "SUFFIX_REFERENCES", "THEME_CANDIDATES",
           "IdMap", "Ref", "references", "retoken", "suffix_id", "translate"]
