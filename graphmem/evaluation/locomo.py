"""LoCoMo evidence recall@k per category, five methods on the same questions in one run:

- ``state``: :meth:`graphmem.state.StateMemory.recall` (EMIR², heuristic controller);
- ``associative``: :meth:`graphmem.associative.AssociativeMemory.recall` (MRAgent, heuristic
  router), ranked source ids;
- ``combined``: reciprocal rank fusion (k = 60) of the two rankings above
  (:func:`graphmem.retrievers.fusion.reciprocal_rank_fusion`, as the combined retriever does);
- ``vector_rag``: langchain-neo4j ``Neo4jVector`` over the raw turns (``"speaker: text"``, same
  server, same embedder), restricted to the question's conversation by metadata filter;
- ``bm25``: bm25s over the same raw turns of the conversation.

Protocol as in :mod:`graphmem.state.evaluation` and :mod:`graphmem.associative.evaluation`: one
namespace per conversation and memory (``dia_id``s repeat across conversations), questions
without evidence skipped, recall@k = gold ``dia_id``s in the top-k unique source ids / gold.
The per-question loop lives here because the fusion needs both memories' rankings of the same
question; the metric is :func:`graphmem.state.evaluation.recall_at`.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from graphmem.conversations import Conversation
from graphmem.evaluation.baselines import BM25Baseline, VectorBaseline
from graphmem.evaluation.metrics import KS, RecallTable, fuse_rankings, percentiles
from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

METHODS = ("state", "associative", "combined", "vector_rag", "bm25")


def turn_text(turn: Any) -> str:
    """The raw-turn text every baseline indexes: ``"<speaker>: <text>"``."""
    return f"{turn.speaker}: {turn.text}"


def truncate_conversation(conv: Conversation, max_turns: int) -> Conversation:
    """The first ``max_turns`` turns of ``conv`` and only the QA items whose evidence lies
    entirely inside them (for quick runs)."""
    turns = conv.turns[:max_turns]
    kept = {t.source_id for t in turns}
    qa = [q for q in conv.qa if q.evidence and set(q.evidence) <= kept]
    return conv.model_copy(update={"turns": turns, "qa": qa})


def evaluate_locomo(mem: GraphMemory, conversations: Sequence[Conversation],
                    vector: VectorBaseline, prefix: str, max_questions: int | None = None,
                    ks: Sequence[int] = KS, keep: bool = False,
                    progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Ingest each conversation into both memories and the baselines, then score every question
    with evidence by all :data:`METHODS`.

    Args:
        mem: the facade (connection, embedder); each tenant is ``mem.scoped(...)``.
        conversations: LoCoMo conversations (:func:`graphmem.conversations.read_locomo`).
        vector: the run's ``Neo4jVector`` baseline (turns are added here).
        prefix: namespace prefix (``<prefix>-state-<conv>``, ``<prefix>-assoc-<conv>``),
            deleted afterwards unless ``keep``.
        max_questions: cap per conversation (quick runs).
    Returns:
        JSON-ready dict: ``recall`` ({method: {category: {recall@k, questions}}}),
        ``latency_ms`` ({method: {p50, p95}}), ``ingest_seconds`` per memory, ``questions``,
        ``per_question`` rows (category, gold, top-k ids of each method).
    """
    table = RecallTable(ks)
    depth = max(ks)
    latency: dict[str, list[float]] = defaultdict(list)
    ingest: dict[str, float] = defaultdict(float)
    rows: list[dict[str, Any]] = []
    say = progress or (lambda _msg: None)
    embedder = mem.embedder
    for conv in conversations:
        tenants = [mem.scoped(f"{prefix}-state-{conv.id}"), mem.scoped(f"{prefix}-assoc-{conv.id}")]
        for tenant in tenants:
            tenant.delete_namespace()
        state, assoc = tenants[0].state, tenants[1].associative
        say(f"{conv.id}: state ingest ({len(conv.turns)} turns)")
        began = time.perf_counter()
        state.ingest([conv])
        ingest["state"] += time.perf_counter() - began
        say(f"{conv.id}: associative ingest")
        began = time.perf_counter()
        assoc.ingest([conv])
        ingest["associative"] += time.perf_counter() - began
        texts = [turn_text(t) for t in conv.turns]
        began = time.perf_counter()
        vector.add(texts, embedder.embed_documents(texts),
                   [{"conversation": conv.id, "source_id": t.source_id} for t in conv.turns],
                   [f"{conv.id}:{t.source_id}" for t in conv.turns])
        ingest["vector_rag"] += time.perf_counter() - began
        bm25 = BM25Baseline(texts, [t.source_id for t in conv.turns])
        items = [q for q in conv.qa if q.evidence][:max_questions]
        say(f"{conv.id}: {len(items)} questions")
        for qa in items:
            ranked: dict[str, list[str]] = {}
            began = time.perf_counter()
            ranked["state"] = state.recall(qa.question, k=depth).source_ids(depth)
            latency["state"].append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            ranked["associative"] = assoc.recall(qa.question, k=depth).source_ids(depth)
            latency["associative"].append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            ranked["combined"] = fuse_rankings([ranked["state"], ranked["associative"]])[:depth]
            latency["combined"].append(latency["state"][-1] + latency["associative"][-1]
                                       + (time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            hits = vector.search(qa.question, depth, conversation=conv.id)
            ranked["vector_rag"] = [h["source_id"] for h in hits]
            latency["vector_rag"].append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            ranked["bm25"] = bm25.search(qa.question, depth)
            latency["bm25"].append((time.perf_counter() - began) * 1000)
            for method in METHODS:
                table.add(method, qa.category, ranked[method], qa.evidence)
            rows.append({"conversation": conv.id, "category": qa.category, "gold": list(qa.evidence),
                         **{m: ranked[m][:depth] for m in METHODS}})
        if not keep:
            for tenant in tenants:
                tenant.delete_namespace()
    recall = table.table()
    return {
        "conversations": [c.id for c in conversations],
        "questions": len(rows),
        "ks": list(ks),
        "recall": recall,
        "delta_recall@10_vs_vector_rag": {
            m: round(recall[m]["overall"]["recall@10"] - recall["vector_rag"]["overall"]["recall@10"], 4)
            for m in METHODS if rows},
        "latency_ms": {m: percentiles(v) for m, v in latency.items()},
        "ingest_seconds": {m: round(v, 1) for m, v in ingest.items()},
        "controllers": {"state": "heuristic", "associative": "heuristic"},
        "per_question": rows,
    }
