"""The pure half of the concurrent ingest benchmark (:mod:`graphmem.evaluation.concurrency`):
how the input is cut into units of work, and how a concurrent run's graph is compared with the
single-writer run of the same input. No I/O.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.conversations import Conversation
from graphmem.errors import InvalidInputError

logger = logging.getLogger(__name__)

#: The three layouts of the benchmark, in report order.
LAYOUTS = ("separate_namespaces", "same_namespace", "same_conversation")

#: Integrity checks per memory: every one is 0 in a sound graph (the keys of the check rows).
VIOLATIONS = {
    "state": ("bad_current", "unchained", "temporal_forks", "bad_first", "out_of_order",
              "semantic_forks", "related_both_ways", "repeated_relationships"),
    "associative": ("timeline_forks", "extra_heads", "cross_conversation_links", "out_of_order",
                    "without_cue", "repeated_relationships"),
}

#: Counts that depend on the order in which the batches of ONE conversation arrive, so the
#: ``same_conversation`` layout may differ from the single-writer run on them without losing
#: an update. State memory's heuristic topic assignment reads the conversation's topics before
#: the batch's transaction; a batch written at the same time as another one of the same
#: conversation does not see the topics that one founds, so it may found its own: topics, and
#: with them the chains (first events, TEMPORAL_NEXT), the states (initial / confirm / change /
#: conflict are decided per topic) and the cross-topic RELATED_EVENT edges (the events stored
#: before a batch) follow the arrival order. Events and their evidence (one EVIDENCED_BY per
#: asserting event) do not. Associative memory makes a conversation's themes from the batch that
#: finds nothing of it stored (later batches under :data:`graphmem.associative.memory.MIN_THEME_EPISODES`
#: make none), so which batch's episodes the themes GROUP follows the arrival order too.
#: A conversation's people (Person, MENTIONS) are resolved again once it has grown by a tenth
#: (:func:`graphmem.state.people_store.people_due`): the batch that crosses that mark resolves
#: them from the events committed by then, which depends on the arrival order until
#: ``StateMemory.resolve_people`` brings them up to date.
ORDER_DEPENDENT = {
    "state": frozenset({"Topic", "State", "FIRST_TIMELINE_NODE", "TEMPORAL_NEXT", "INITIAL_STATE",
                        "CURRENT_STATE", "SEMANTIC_NEXT", "CONFLICTS_WITH", "SUPPORTED_BY",
                        "RELATED_EVENT", "Person", "MENTIONS"}),
    "associative": frozenset({"Theme", "GROUPS"}),
}


@dataclass(frozen=True)
class Batch:
    """A slice of one conversation's turns within one session, added with ``mem.add``."""

    conversation_id: str
    session: str
    messages: list[dict[str, Any]]


def check_writers(writers: Sequence[int]) -> list[int]:
    """The distinct writer counts ascending, with 1 (the reference run) always included.

    Raises:
        InvalidInputError: a count that is not an integer in 1..64.
    """
    out = set()
    for n in writers:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 64:
            raise InvalidInputError(f"writers must be integers in 1..64, got {n!r}")
        out.add(n)
    return sorted(out | {1})


def session_units(conversations: Sequence[Conversation]) -> list[Conversation]:
    """One conversation per session of each input conversation, id ``<id>-<session>``, turns and
    speakers kept (the unit of work of the ``separate_namespaces`` and ``same_namespace``
    layouts).

    Raises:
        InvalidInputError: no turns at all.
    """
    units = []
    for conv in conversations:
        for session in conv.sessions:
            turns = [t for t in conv.turns if t.session == session]
            units.append(Conversation(id=f"{conv.id}-{session}", turns=turns,
                                      speakers=conv.speakers))
    if not units:
        raise InvalidInputError("the input conversations have no turns")
    return units


def deal(units: Sequence[Any], parts: int) -> list[list[Any]]:
    """``units`` dealt round-robin into ``parts`` lists (unit i goes to part i mod parts)."""
    return [list(units[p::parts]) for p in range(parts)]


def message_batches(conversations: Sequence[Conversation], batch_size: int) -> list[Batch]:
    """Each conversation's turns as ``mem.add`` messages (``id`` = source id, ``role`` =
    speaker, ``content`` = text, ``timestamp`` = the turn's) in batches of at most
    ``batch_size`` turns that never span two sessions, in conversation order.

    Raises:
        InvalidInputError: ``batch_size`` < 1.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidInputError(f"batch_size must be a positive integer, got {batch_size!r}")
    out = []
    for conv in conversations:
        for session in conv.sessions:
            turns = [t for t in conv.turns if t.session == session]
            for start in range(0, len(turns), batch_size):
                out.append(Batch(conv.id, session, [
                    {"id": t.source_id, "role": t.speaker, "content": t.text,
                     "timestamp": t.timestamp} for t in turns[start:start + batch_size]]))
    return out


def violations(memory: str, graph: dict[str, Any]) -> dict[str, int]:
    """The integrity checks of ``memory`` (:data:`VIOLATIONS`) read from a run's ``graph``
    (``{"checks": {...}}``)."""
    checks = graph["checks"]
    return {key: int(checks.get(key, 0)) for key in VIOLATIONS[memory]}


def compare(memory: str, layout: str, reference: dict[str, Any],
            run: dict[str, Any]) -> dict[str, Any]:
    """Compare a run's graph with the single-writer reference of the same input.

    Args:
        reference, run: ``{"nodes": {label: n}, "relationships": {type: n}, "checks": {...}}``.
    Returns:
        ``{"differences": {key: {"single": a, "concurrent": b}}, "order_dependent_differences":
        {...}, "violations": {check: n}, "lost_updates": n}``; ``lost_updates`` = the sum of the
        violations plus ``|single - concurrent|`` over every count that does not depend on
        arrival order (all of them, except :data:`ORDER_DEPENDENT` in the ``same_conversation``
        layout); 0 means nothing was lost, doubled or mislinked.
    """
    loose = ORDER_DEPENDENT[memory] if layout == "same_conversation" else frozenset()
    strict: dict[str, dict[str, int]] = {}
    ordered: dict[str, dict[str, int]] = {}
    for part in ("nodes", "relationships"):
        keys = set(reference[part]) | set(run[part])
        for key in sorted(keys):
            a, b = int(reference[part].get(key, 0)), int(run[part].get(key, 0))
            if a != b:
                (ordered if key in loose else strict)[key] = {"single": a, "concurrent": b}
    bad = violations(memory, run)
    lost = sum(bad.values()) + sum(abs(d["single"] - d["concurrent"]) for d in strict.values())
    return {"differences": strict, "order_dependent_differences": ordered, "violations": bad,
            "lost_updates": lost}


def merge_graphs(graphs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The sum of several namespaces' graphs (nodes, relationships and checks key by key)."""
    out: dict[str, Any] = {"nodes": {}, "relationships": {}, "checks": {}}
    for graph in graphs:
        for part in out:
            for key, value in graph[part].items():
                out[part][key] = out[part].get(key, 0) + int(value)
    return out


def speedup(turns_per_s: float | None, single: float | None) -> float | None:
    """``turns_per_s / single`` rounded to 2 places, None when either is missing or zero."""
    if not turns_per_s or not single:
        return None
    return round(turns_per_s / single, 2)
