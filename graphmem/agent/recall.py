"""One recall over several memories for agents: reciprocal rank fusion of their rankings.

Each memory is asked for more than ``k`` items (:data:`FETCH_FACTOR` × ``k``), so an item a
memory ranks just below the cut still counts; the lists are fused with
:func:`graphmem.retrievers.fusion.reciprocal_rank_fusion` on the documents' ``fusion_key`` (the
same conversation turn found by state memory and associative memory is one item).

The memories are asked at once (:func:`graphmem.parallel.ask_all`), so the fused recall costs about
its slowest memory rather than their sum. The question is embedded once before, and every
memory of the facade takes the vector from its embedder's query cache.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field

from graphmem.embeddings import validate_texts
from graphmem.errors import InvalidInputError
from graphmem.llm import LLMUsage
from graphmem.memory import MAX_K, RecallItem, RecallResult, Round, check_count, memory_spec
from graphmem.parallel import ask_all
from graphmem.retrievers.fusion import RRF_K, reciprocal_rank_fusion

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
        metadata: the best occurrence's document metadata (provenance, validity, current...).
    """

    memories: list[str] = Field(default_factory=list)
    ranks: dict[str, int] = Field(default_factory=dict)
    fusion_key: str = ""
    node_ids: list[str] = Field(default_factory=list)
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
    fused = reciprocal_rank_fusion([docs for _, docs in results], k=rrf_k)
    out: list[FusedItem] = []
    for doc in fused[:k]:
        meta = dict(doc.metadata)
        best = items[(meta["memory"], doc.id)]
        ranks = {str(m): int(r) for m, r in meta.get("ranks", {}).items()}
        base = best.model_dump(include=set(RecallItem.model_fields))
        base["score"] = float(meta["rrf_score"])
        out.append(FusedItem(**base, memories=sorted(ranks, key=ranks.__getitem__), ranks=ranks,
                             fusion_key=str(meta.get("fusion_key") or doc.id),
                             node_ids=list(meta.get("node_ids") or [doc.id]),
                             metadata={key: v for key, v in meta.items()
                                       if key not in ("rrf_score", "ranks", "node_ids")}))
    return out


def fused_recall(mem: GraphMemory, query: str, k: int = 10, *,
                 memories: Sequence[str] | None = None) -> RecallResult[FusedItem]:
    """The ``k`` best items for ``query`` over ``memories`` (default: those holding data).

    Returns:
        :class:`RecallResult` with ``memory="fused"``; one :class:`Round` per memory asked
        (``action="recall:<memory>"``, ``added`` the ids it found, ``details`` its item count
        and time); ``llm_usage`` summed; ``timings`` in ms per memory and ``total``.
    Raises:
        EmptyTextError: an empty query. InvalidInputError: ``k`` out of 1..200, an unknown
            memory name. Any error of a memory's own recall.
    """
    began = time.perf_counter()
    validate_texts([query], what="query")
    check_count("k", k)
    if memories is not None:
        if isinstance(memories, str):
            memories = [memories]
        for name in memories:
            memory_spec(name)
    names = default_memories(mem) if memories is None else list(memories)
    fetch = min(MAX_K, FETCH_FACTOR * k)

    def one(name: str) -> tuple[RecallResult, list[Document], float]:
        started = time.perf_counter()
        memory = mem.memory(name)
        result = memory.recall(query, k=fetch)
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
