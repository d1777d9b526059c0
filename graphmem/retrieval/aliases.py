"""People's aliases in retrieval: who a question names, and the other names it may go by.

State memory stores the people of each conversation as ``Person`` nodes (speaker labels and
lower-cased aliases, :mod:`graphmem.state.people`). The engine uses them twice per round
(:class:`graphmem.retrieval.engine.HybridSearch`):

1. **Entity step**: a question or unit that holds every term of ONE alias of a person who is a
   speaker mentions that speaker (:meth:`Aliases.names`: speaker -> alternative term tuples,
   :func:`graphmem.retrieval.fusion.mentioned`), so "What did Johnny say?" lifts the units of
   speaker ``jdoe92`` as "What did jdoe92 say?" would.
2. **Expansion**: the question's lexical terms get the terms of the other aliases of every person
   it mentions (:meth:`Aliases.expansion`): "Jonathan" also matches "Jon", and a speaker's label
   (the ``"speaker: text"`` lexical text of every unit) matches the speaker's own units.

The aliases of a namespace are read by one small query (``retrieval/person_aliases@<Label>``,
which returns the namespace's unit version with them) and cached per runner, ``(label,
namespace)``, under that version (:class:`AliasCache`): a round whose version equals the cached
one costs no query, so a namespace without Person nodes costs one query at its first recall and
none after. Writing people raises the version (``state/lock_people``).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.retrieval.text import mention_alternatives, mention_terms

logger = logging.getLogger(__name__)

#: Namespaces kept per runner (least recently used dropped first).
CACHE_NAMESPACES = 4096

Terms = tuple[str, ...]


@dataclass(frozen=True)
class Aliases:
    """The people of one namespace as the engine uses them (immutable; shared by threads).

    Attributes:
        token: the namespace's unit version ``(write locks, sum of unit_version)`` when read.
        people: per person, ``(speaker labels, alternative mention-term tuples)`` -- the
            alternatives of its aliases and labels (:func:`~graphmem.retrieval.text.mention_alternatives`).
    """

    token: tuple[int, int]
    people: tuple[tuple[tuple[str, ...], tuple[Terms, ...]], ...] = ()

    @classmethod
    def from_row(cls, row: dict[str, Any] | None) -> Aliases:
        """From a ``retrieval/person_aliases`` row (None or no row: no people, token (0, 0))."""
        row = row or {}
        people = []
        for speakers, aliases in row.get("people") or []:
            labels = tuple(str(s) for s in speakers or [])
            alts = mention_alternatives(None, [*labels, *(str(a) for a in aliases or [])])
            if alts:
                people.append((labels, tuple(alts)))
        return cls((int(row.get("n_locks") or 0), int(row.get("unit_version") or 0)), tuple(people))

    def names(self, speakers: Iterable[str]) -> dict[str, Terms | list[Terms]]:
        """The entity step's names map: speaker -> its :func:`mention_terms`, or -- for a
        speaker some person is -- the list of that term tuple and every alias's alternative."""
        names: dict[str, Terms | list[Terms]] = {}
        extra: dict[str, list[Terms]] = {}
        for labels, alts in self.people:
            for label in labels:
                extra.setdefault(label, []).extend(alts)
        for speaker in speakers:
            own = mention_terms(speaker)
            more = [t for t in dict.fromkeys(extra.get(speaker, ())) if t != own]
            names[speaker] = [own, *more] if more else own
        return names

    def expansion(self, terms: Sequence[str]) -> list[str]:
        """The terms to add to a question's analyzed ``terms``: every term of every alias of each
        person the question mentions (holds every term of one alias) that the question lacks,
        in order; ``[]`` when it mentions nobody."""
        present = set(terms)
        out: dict[str, None] = {}
        for _, alts in self.people:
            if any(all(t in present for t in alt) for alt in alts):
                for alt in alts:
                    out.update((t, None) for t in alt if t not in present)
        return list(out)


class AliasCache:
    """Per runner: ``(label, namespace)`` -> :class:`Aliases`, least recently used first out
    beyond :data:`CACHE_NAMESPACES` (thread-safe)."""

    def __init__(self, limit: int = CACHE_NAMESPACES):
        self.limit = limit
        self._entries: OrderedDict[tuple[str, str], Aliases] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> Aliases | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: tuple[str, str], entry: Aliases) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def read_aliases(runner: Any, label: str, namespace: str) -> Aliases:
    """The namespace's aliases and unit version, one read (``retrieval/person_aliases@<label>``).

    Raises:
        DatabaseError subclasses.
    """
    rows = runner.read(f"retrieval/person_aliases@{label}", namespace=namespace)
    aliases = Aliases.from_row(rows[0] if rows else None)
    logger.debug("person aliases %s/%s: %d people at %s", label, namespace, len(aliases.people),
                 aliases.token)
    return aliases


__all__ = ["AliasCache", "Aliases", "CACHE_NAMESPACES", "alias_cache_of", "read_aliases"]


def alias_cache_of(runner: Any) -> AliasCache | None:
    """The :class:`AliasCache` of ``runner`` (a :class:`~graphmem.graph.runner.QueryRunner`:
    one per runner, made on first use; a runner without ``shared``: its ``alias_cache``
    attribute, else None, meaning no people step)."""
    shared = getattr(runner, "shared", None)
    if shared is None:
        return getattr(runner, "alias_cache", None)
    return shared("alias_cache", AliasCache)
