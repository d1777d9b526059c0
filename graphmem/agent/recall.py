"""One recall over several memories for agents: reciprocal rank fusion of their rankings.

Each memory is asked for more than ``k`` items (:data:`FETCH_FACTOR` × ``k``), so an item a
memory ranks just below the cut still counts; the lists are fused with
:func:`graphmem.agent.rank_fusion.reciprocal_rank_fusion` on the documents' ``fusion_key``.

The fused recall tells the truth about time and gives one item per conversation turn:

- one key rule (:func:`graphmem.documents.conversation_fusion_key`): an item that rests on one
  turn fuses on that turn's conversation and source message id, so a turn found by state memory
  (as an Event or the State it asserted) and by associative memory (as an Episode) is one item;
- each item keeps the state judgement any memory made of it (``current``, ``valid_to``: its
  documents' ``validity``), and among the ``k`` items returned a superseded state never
  outranks a state that replaced it (:func:`graphmem.agent.rank_fusion.put_superseded_after`):
  the replacement is moved up to just above it, and its ``superseded_by`` names that item's
  ``fusion_key``. The set of the ``k`` items is what the fusion chose (moving a replacement in
  from below the cut pushed evidence out: LoCoMo dev recall@10 .746 -> .710).

The memories are asked at once (:func:`graphmem.parallel.ask_all`), so the fused recall costs about
its slowest memory rather than their sum. The question is embedded once before, and every
memory of the facade takes the vector from its embedder's query cache.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import Field

from graphmem.instrumentation import traced_recall
from graphmem.embeddings import validate_texts
from graphmem.errors import InvalidInputError
from graphmem.llm import LLMUsage
from graphmem.memory import (DEFAULT_K, MAX_K, RecallItem, RecallResult, Round, check_count,
                             memory_spec)
from graphmem.parallel import ask_all
from graphmem.agent.rank_fusion import RRF_K, put_superseded_after, reciprocal_rank_fusion
from graphmem.time_travel import check_as_of

if TYPE_CHECKING:
    from langchain_core.documents import Document

    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: Items asked of each memory per item returned.
FETCH_FACTOR = 3
#: Seconds a facade reuses its "which memories hold data" answer (writes through the facade's
#: agent verbs reset it at once).
DATA_CACHE_SECONDS = 30.0


class FusedItem(RecallItem):
    """An item of the fused recall.

    ``memory``, ``kind``, ``text``, ``source_ids`` and ``path`` are those of its best-ranked
    occurrence; ``score`` is its RRF score. Extra attributes:

    Attributes:
        memories: every memory that found it (best-ranked first).
        ranks: its 1-based rank in each memory's list, ``{memory: rank}``.
        fusion_key: what it was deduplicated on.
        node_ids: the nodes of every occurrence (itself first, then its explanation).
        current: whether what it says still holds, as judged by the memory that keeps states
            (state memory: the state it is, or is evidence of, is its topic's current state);
            None when no memory judged it.
        valid_to: when the state it is or evidences was replaced (aware datetime), else None.
        superseded_by: for a superseded state, the ``fusion_key`` of the latest item of the
            result that replaced it (ranked above it), else None.
        metadata: the best occurrence's document metadata (provenance, ...), plus ``validity``
            (the judgement behind ``current``) when one was made.
    """

    memories: list[str] = Field(default_factory=list)
    ranks: dict[str, int] = Field(default_factory=dict)
    fusion_key: str = ""
    node_ids: list[str] = Field(default_factory=list)
    current: bool | None = None
    valid_to: datetime | None = None
    superseded_by: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

#: The parametrized result model, built once: pydantic holds parametrized generics weakly, so
#: one built inside a call is collected and built again (~4 ms) by a later call.
FusedRecallResult = RecallResult[FusedItem]



def memories_with_data(mem: GraphMemory, names: Sequence[str] | None = None) -> list[str]:
    """The memories (of ``names``, default all registered) holding at least one node in the
    namespace, in registry order (from each memory's ``counts()``; relationship counts are not
    nodes and are ignored)."""
    chosen = list(names) if names is not None else list(mem.memories())
    out = []
    for name in chosen:
        labels = set(memory_spec(name).labels)
        counts = mem.memory(name).counts()
        if any(int(v) > 0 for label, v in counts.items() if label in labels):
            out.append(name)
    return out


def default_memories(mem: GraphMemory) -> list[str]:
    """:func:`memories_with_data`, cached on the facade for :data:`DATA_CACHE_SECONDS`."""
    cached = getattr(mem, "_data_memories", None)
    now = time.monotonic()
    if cached is not None and now - cached[0] < DATA_CACHE_SECONDS:
        return list(cached[1])
    names = memories_with_data(mem)
    mem._data_memories = (now, names)
    return names


def fuse_results(results: Sequence[tuple[RecallResult, list[Document]]], k: int,
                 rrf_k: int = RRF_K) -> list[FusedItem]:
    """Fuse ranked results (each with its memory's documents, one per item in order) into the
    ``k`` best :class:`FusedItem` s (pure).

    Reciprocal rank fusion on the documents' ``fusion_key`` (one item per conversation turn:
    the key of an item resting on one turn is that turn's conversation and source message id),
    then :func:`~graphmem.agent.rank_fusion.put_superseded_after` within the first ``k`` (a
    superseded state is never above a state that replaced it: the replacement moves up, its
    score raised to the superseded one's), then the cut to ``k``.

    Raises:
        InvalidInputError: a document list whose length differs from its result's items.
    """
    items: dict[tuple[str, str], RecallItem] = {}
    for result, docs in results:
        if len(docs) != len(result.items):
            raise InvalidInputError(f"{result.memory}: {len(docs)} documents for "
                                    f"{len(result.items)} items")
        for item in result.items:
            items[(item.memory, item.id)] = item
    fused = put_superseded_after(reciprocal_rank_fusion([docs for _, docs in results], k=rrf_k),
                                 k=k)
    out: list[FusedItem] = []
    for doc in fused[:k]:
        meta = dict(doc.metadata)
        best = items[(meta["memory"], doc.id)]
        ranks = {str(m): int(r) for m, r in meta.get("ranks", {}).items()}
        base = best.model_dump(include=set(RecallItem.model_fields))
        base["score"] = float(meta["rrf_score"])
        validity = meta.get("validity") or {}
        out.append(FusedItem(**base, memories=sorted(ranks, key=ranks.__getitem__), ranks=ranks,
                             fusion_key=str(meta.get("fusion_key") or doc.id),
                             node_ids=list(meta.get("node_ids") or [doc.id]),
                             current=validity.get("current"), valid_to=validity.get("valid_to"),
                             superseded_by=meta.get("superseded_by"),
                             metadata={key: v for key, v in meta.items()
                                       if key not in ("rrf_score", "ranks", "node_ids",
                                                      "superseded_by")}))
    return out


def takes_window(memory: Any, keys: Sequence[str] = ("since", "until")) -> bool:
    """Whether ``memory``'s typed recall options (:attr:`~graphmem.memory.Memory.options_model`)
    include every one of ``keys`` (``since`` / ``until`` / ``as_of`` / ``include_archived``:
    every built-in memory takes the first three; a memory registered later may not)."""
    return memory.options_model.takes(*keys)


@traced_recall("fused")
def fused_recall(mem: GraphMemory, query: str, k: int = DEFAULT_K, *,
                 memories: Sequence[str] | None = None, since: datetime | None = None,
                 until: datetime | None = None,
                 as_of: datetime | None = None,
                 include_archived: bool = False) -> RecallResult[FusedItem]:
    """The ``k`` best items for ``query`` over ``memories`` (default: those holding data).

    ``since`` / ``until`` (time-zone-aware datetimes, either may be None) limit every memory's
    recall to the half-open window ``since <= t < until`` (see each memory's ``recall`` for the
    time its items have); each memory applies it in its queries, before its own top-k.
    ``as_of`` (aware datetime or None) asks every memory to answer as at that instant
    (:mod:`graphmem.time_travel`): states are judged then, so a state superseded by then never
    outranks the state that held then.
    ``include_archived`` asks the memories whose recall takes it (state and associative: the
    conversation units retention archives, :mod:`graphmem.agent.retention`) for archived units
    too; the others hold no archived unit and are asked without it.

    Returns:
        :class:`RecallResult` with ``memory="fused"``; one :class:`Round` per memory asked
        (``action="recall:<memory>"``, ``added`` the ids it found, ``details`` its item count
        and time); ``llm_usage`` summed; ``timings`` in ms per memory and ``total``.
    Raises:
        EmptyTextError: an empty query. InvalidInputError: ``k`` out of 1..200, an unknown
            memory name, an empty ``memories`` list; a naive ``since`` / ``until`` or ``since >=
            until`` (naming the value), a window for a memory whose recall takes none. Any
            error of a memory's own recall.
    """
    began = time.perf_counter()
    validate_texts([query], what="query")
    check_count("k", k)
    if not isinstance(include_archived, bool):
        raise InvalidInputError(f"include_archived must be True or False, got {include_archived!r}")
    since, until, as_of = check_as_of(since, until, as_of)
    window: dict[str, datetime | None] = (
        {} if since is None and until is None else {"since": since, "until": until})
    if as_of is not None:
        window["as_of"] = as_of
    if memories is not None:
        if isinstance(memories, str):
            memories = [memories]
        memories = list(memories)
        if not memories:
            from graphmem.memory import memory_names

            raise InvalidInputError("memories is empty: name at least one memory "
                                    f"({', '.join(memory_names())}), or pass None for those "
                                    "holding data")
        for name in memories:
            memory_spec(name)
    names = default_memories(mem) if memories is None else list(memories)
    fetch = min(MAX_K, FETCH_FACTOR * k)
    for name in names if window else ():
        if not takes_window(mem.memory(name), sorted(window)):
            raise InvalidInputError(f"memory {name!r} cannot limit its recall to a time window "
                                    f"(its recall takes no {' / '.join(sorted(window))}); leave "
                                    "it out of memories or recall without them")

    def one(name: str) -> tuple[RecallResult, list[Document], float]:
        started = time.perf_counter()
        memory = mem.memory(name)
        archived = ({"include_archived": True} if include_archived
                    and takes_window(memory, ("include_archived",)) else {})
        result = memory.recall(query, k=fetch, **window, **archived)
        return result, memory.documents(result), round((time.perf_counter() - started) * 1000, 3)

    answers = ask_all(mem.embedder, query, [lambda name=name: one(name) for name in names])
    results: list[tuple[RecallResult, list[Document]]] = []
    rounds: list[Round] = []
    usage = LLMUsage()
    timings: dict[str, float] = {}
    for number, (name, (result, docs, ms)) in enumerate(zip(names, answers, strict=True), start=1):
        results.append((result, docs))
        usage.merge(result.llm_usage)
        timings[name] = ms
        rounds.append(Round(number=number, action=f"recall:{name}",
                            added=[item.id for item in result.items],
                            details={"items": len(result.items), "ms": timings[name],
                                     "controller": result.controller}))
    items = fuse_results(results, k) if results else []
    timings["total"] = round((time.perf_counter() - began) * 1000, 3)
    logger.info("fused recall over %s: %d items in %.1f ms", names, len(items), timings["total"])
    controller = "llm" if any(r.controller == "llm" for r, _ in results) else "heuristic"
    return FusedRecallResult(memory="fused", namespace=mem.namespace, query=query,
                                   items=items, rounds=rounds, controller=controller,
                                   llm_usage=usage, timings=timings)
