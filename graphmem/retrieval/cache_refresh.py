"""Bring a vector-cache entry to a namespace's stored units: the reads the retrieval engine makes
for its in-process cache (:mod:`graphmem.retrieval.vectors`), outside a recall's round.

One ``retrieval/unit_stamps@<Label>`` read gives every unit's ``vector_stamp``, time and archived
flag with the namespace's unit version (one transaction); then only the vectors (and lexical
entries and passages) of new or re-stamped units are read, ``VECTOR_BATCH`` per
``retrieval/unit_vectors@<Label>`` query. Times and archived flags are read for every unit at
every refresh, so archiving (which raises the unit version but leaves the stamps) re-reads no
vector.
"""

from __future__ import annotations

import logging
from typing import Any

from graphmem.retrieval.candidates import token as _token
from graphmem.retrieval.vectors import INLINE_READ, Lexical, NamespaceVectors, lexical_entry

logger = logging.getLogger(__name__)

#: Units per ``retrieval/unit_vectors`` read when the vector cache loads a namespace.
VECTOR_BATCH = 500


def refresh_entry(runner: Any, label: str, cache: Any, key: tuple[str, str, int],
                  entry: NamespaceVectors | None, namespace: str, width: int, limit: int,
                  inline: bool = True) -> NamespaceVectors | None:
    """The cache entry of ``key`` brought to the namespace's stored units (also put into
    ``cache``); None (and dropped) when the namespace has no stamped unit or more than ``limit``
    units.

    Args:
        runner: the query runner. label: ``"Event"`` or ``"Episode"``.
        cache: the runner's :class:`graphmem.retrieval.vector_cache.VectorCache`.
        key: ``(label, namespace, width)``. entry: the entry kept now (None: none).
        width: the vector width. limit: the largest namespace (units) cached.
        inline: within a recall: more than :data:`~graphmem.retrieval.vectors.INLINE_READ`
            vectors to read are left to the background loader, and None is returned (the recall
            uses the database).
    """
    [now] = runner.read(f"retrieval/unit_stamps@{label}", namespace=namespace, limit=limit)
    stamps = {str(row[0]): int(row[1]) for row in now["stamps"]}
    times = {str(row[0]): None if row[2] is None else int(row[2]) for row in now["stamps"]}
    archived = {str(row[0]) for row in now["stamps"] if len(row) > 3 and row[3]}
    if not stamps:
        cache.drop(key)
        return None
    wanted = list(stamps) if entry is None else entry.changed(stamps)
    if inline and len(wanted) > INLINE_READ:
        cache.drop(key)  # until the loader is done, recalls use the database
        cache.in_background(key, lambda: refresh_entry(runner, label, cache, key, entry,
                                                       namespace, width, limit, inline=False))
        return None
    vectors: dict[str, Any] = {}
    passages: dict[str, Any] = {}
    lexicon: dict[str, Lexical] = {}
    every_unit = int(now["n_units"] or 0) == len(stamps)
    for start in range(0, len(wanted), VECTOR_BATCH):
        for r in runner.read(f"retrieval/unit_vectors@{label}", namespace=namespace,
                             ids=wanted[start:start + VECTOR_BATCH]):
            vectors[r["id"]] = r["embedding"]
            # taken only when the spans name as many passages as the list holds of this width
            if len(r["passage_embeddings"] or []) == int(r["passage_count"] or 0) * width:
                passages[r["id"]] = r["passage_embeddings"]
            lexicon[r["id"]] = lexical_entry(r["lexical_terms"], r["lexical_length"],
                                             r["speaker"])
            stamps[r["id"]] = int(r["stamp"])
    for uid in wanted:
        if uid not in vectors:  # deleted meanwhile: the next round's token tells
            stamps.pop(uid, None)
    fresh = (entry or NamespaceVectors(width, [])).updated(stamps, vectors, _token(now), lexicon,
                                                           every_unit, times, passages,
                                                           archived & set(stamps))
    if fresh.bad and (entry is None or fresh.bad != entry.bad):
        logger.warning("namespace %r holds %d %s vectors that cosine cannot score (NaN, "
                       "infinity, all zeros or another width); they are skipped -- `graphmem "
                       "doctor --repair -n %s` re-embeds them", namespace, fresh.bad, label,
                       namespace)
    cache.put(key, fresh)
    logger.debug("vector cache %s/%s: %d units (%d read, %d archived)", label, namespace,
                 len(stamps), len(wanted), len(archived))
    return fresh


__all__ = ["VECTOR_BATCH", "refresh_entry"]
