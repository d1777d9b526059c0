"""LoCoMo evidence recall@k per category, scored on exactly what a user gets.

Every conversation is ingested into its own namespace (state and associative memory, as
``mem.add`` does), and all of them stay in the database while any is questioned, beside the
baselines' nodes: each tenant is evaluated among others. Per question, in one run:

- ``state`` / ``associative``: the memory's public ``recall(question, k=max(ks))``, the source ids
  of the items returned, in order;
- ``combined``: :class:`graphmem.langchain.retrievers.CombinedGraphMemoryRetriever` over the namespace (the
  memories holding data, reciprocal rank fusion), the documents' ``source_ids``;
- ``bm25``: bm25s over the raw turns (``"speaker: text"``, image captions as the reader puts them
  into the text — the same text the memories store);
- ``cosine``: langchain-neo4j ``Neo4jVector`` over the same raw turns (MiniLM, exact in the
  conversation by metadata filter).

recall@k of a question = |gold ∩ first k distinct source ids| / |gold|, gold normalised by
:func:`graphmem.evaluation.protocol.normalise_evidence` (questions left without gold are counted
as skipped). The memories are scored under every :class:`RetrievalSetting` asked for; the report's
headline is leave-one-conversation-out (each conversation under the setting chosen on the others).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from graphmem.conversations import Conversation
from graphmem.evaluation.baselines import BM25Baseline, VectorBaseline
from graphmem.evaluation.caching import CachedReads
from graphmem.evaluation.metrics import KS, RecallTable, percentiles
from graphmem.evaluation.protocol import (
    SHIPPED,
    RetrievalSetting,
    apply_setting,
    drop_tenants,
    leave_one_out,
    normalise_evidence,
    rank_under_settings,
)
from graphmem.facade import GraphMemory
from graphmem.state.evaluation import recall_at

logger = logging.getLogger(__name__)

MEMORY_METHODS = ("state", "associative", "combined")
BASELINES = ("bm25", "cosine")
METHODS = (*MEMORY_METHODS, *BASELINES)


def turn_text(turn: Any) -> str:
    """The raw-turn text every baseline indexes: ``"<speaker>: <text>"``."""
    return f"{turn.speaker}: {turn.text}"


def truncate_conversation(conv: Conversation, max_turns: int) -> Conversation:
    """The first ``max_turns`` turns of ``conv`` and only the QA items whose evidence lies
    entirely inside them (for quick runs)."""
    turns = conv.turns[:max_turns]
    kept = {t.source_id for t in turns}
    every = {t.source_id for t in conv.turns}
    qa = [q for q in conv.qa
          if (gold := normalise_evidence(q.evidence, every)) and set(gold) <= kept]
    return conv.model_copy(update={"turns": turns, "qa": qa})


def questions_of(conv: Conversation, max_questions: int | None = None) -> tuple[list[dict], int]:
    """``([{"question", "category", "gold"}], skipped)``: the questions with at least one valid
    gold id (normalised), at most ``max_questions``; ``skipped`` counts the others."""
    valid = {t.source_id for t in conv.turns}
    out, skipped = [], 0
    for qa in conv.qa:
        gold = normalise_evidence(qa.evidence, valid)
        if not gold:
            skipped += bool(qa.evidence)
            continue
        out.append({"question": qa.question, "category": qa.category, "gold": gold})
    return out[:max_questions], skipped


def doc_source_ids(docs: Sequence[Any]) -> list[str]:
    """The distinct ``source_ids`` of LangChain Documents, in order (what ``combined`` is
    scored on)."""
    return list(dict.fromkeys(s for d in docs for s in d.metadata.get("source_ids") or []))


def memory_rankings(tenant: GraphMemory, question: str, depth: int,
                    setting: RetrievalSetting) -> tuple[dict[str, list[str]], dict[str, float]]:
    """The ranked source ids of ``state``, ``associative`` and ``combined`` for ``question`` on
    ``tenant`` under ``setting`` (already applied), and each one's milliseconds."""
    from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever

    options = {} if setting.max_rounds is None else {"max_rounds": setting.max_rounds}
    ranked: dict[str, list[str]] = {}
    ms: dict[str, float] = {}
    for name in ("state", "associative"):
        began = time.perf_counter()
        ranked[name] = tenant.memory(name).recall(question, k=depth, **options).source_ids()
        ms[name] = (time.perf_counter() - began) * 1000
    retriever = CombinedGraphMemoryRetriever(
        graph_memory=tenant, k=depth,
        recall_kwargs={m: dict(options) for m in ("state", "associative")} if options else {},
        memories=("state", "associative") if options else None)
    began = time.perf_counter()
    ranked["combined"] = doc_source_ids(retriever.invoke(question))
    ms["combined"] = (time.perf_counter() - began) * 1000
    return ranked, ms


def ingest_tenant(mem: GraphMemory, conv: Conversation, prefix: str, say: Callable[[str], None],
                  seconds: dict[str, float]) -> GraphMemory:
    """A fresh tenant ``<prefix>-<conv.id>`` (emptied first) holding ``conv`` in state and
    associative memory; the seconds of each ingest are added to ``seconds[memory]``."""
    tenant = mem.scoped(f"{prefix}-{conv.id}")
    tenant.delete_namespace()
    for name in ("state", "associative"):
        say(f"{conv.id}: {name} ingest ({len(conv.turns)} turns)")
        began = time.perf_counter()
        tenant.memory(name).ingest([conv])
        seconds[name] += time.perf_counter() - began
    return tenant


def ingest_tenants(mem: GraphMemory, conversations: Sequence[Conversation], prefix: str,
                   vector: VectorBaseline, say: Callable[[str], None]) -> dict[str, Any]:
    """Ingest every conversation into ``<prefix>-<conv>`` (state + associative) and the vector
    baseline; returns ``{"tenants", "bm25", "ingest_seconds"}``."""
    tenants: dict[str, GraphMemory] = {}
    bm25: dict[str, BM25Baseline] = {}
    seconds: dict[str, float] = defaultdict(float)
    for conv in conversations:
        tenant = ingest_tenant(mem, conv, prefix, say, seconds)
        texts = [turn_text(t) for t in conv.turns]
        began = time.perf_counter()
        vector.add(texts, mem.embedder.embed_documents(texts),
                   [{"conversation": conv.id, "source_id": t.source_id} for t in conv.turns],
                   [f"{conv.id}:{t.source_id}" for t in conv.turns])
        seconds["cosine"] += time.perf_counter() - began
        bm25[conv.id] = BM25Baseline(texts, [t.source_id for t in conv.turns])
        tenants[conv.id] = tenant
    return {"tenants": tenants, "bm25": bm25,
            "ingest_seconds": {k: round(v, 1) for k, v in seconds.items()}}


def evaluate_locomo(mem: GraphMemory, conversations: Sequence[Conversation],
                    vector: VectorBaseline, prefix: str, max_questions: int | None = None,
                    ks: Sequence[int] = KS, settings: Sequence[RetrievalSetting] = (SHIPPED,),
                    ablation: dict[str, RetrievalSetting] | None = None, keep: bool = False,
                    progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Score every question with evidence by the memories (under each setting of ``settings``
    and of ``ablation``) and the baselines, on one database holding every conversation.

    Returns:
        JSON-ready dict: ``recall`` ({method: {category: {recall@k, questions}}} — the memories
        leave-one-conversation-out when ``settings`` has more than one entry and there are several
        conversations, else under the one setting), ``shipped`` (the memories under the shipped
        setting, when it was run), ``loo`` (picks and per-conversation figures), ``grid``
        (recall@10 overall per setting and memory), ``ablation`` ({name: {method: {category:
        ...}}}), ``latency_ms``, ``ingest_seconds``, ``questions``, ``skipped_questions``,
        ``per_question`` rows (category, gold, top ids of each method under the reported setting).
    """
    say = progress or (lambda _msg: None)
    depth = max(ks)
    by_name = {s.name: s for s in [*settings, *(ablation or {}).values()]}
    questions = {c.id: questions_of(c, max_questions) for c in conversations}
    built = ingest_tenants(mem, conversations, prefix, vector, say)
    tenants, bm25 = built["tenants"], built["bm25"]
    try:
        baseline: dict[str, dict[tuple[str, int], list[str]]] = {m: {} for m in BASELINES}
        latency: dict[str, list[float]] = defaultdict(list)
        for conv in conversations:
            for i, q in enumerate(questions[conv.id][0]):
                began = time.perf_counter()
                baseline["bm25"][(conv.id, i)] = bm25[conv.id].search(q["question"], depth)
                latency["bm25"].append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                hits = vector.search(q["question"], depth, conversation=conv.id)
                baseline["cosine"][(conv.id, i)] = [h["source_id"] for h in hits]
                latency["cosine"].append((time.perf_counter() - began) * 1000)
        runs: dict[str, dict[str, dict[tuple[str, int], list[str]]]] = {
            name: {m: {} for m in MEMORY_METHODS} for name in by_name}
        for conv in conversations:
            say(f"{conv.id}: {len(questions[conv.id][0])} questions under {len(by_name)} "
                "setting(s)")
            plain = tenants[conv.id]
            cached = plain.scoped(plain.namespace, wrap_runner=CachedReads)
            for i, q in enumerate(questions[conv.id][0]):
                rank_under_settings(plain, cached, q["question"], depth, by_name,
                                    memory_rankings, runs, (conv.id, i), latency)
            apply_setting(plain, SHIPPED)
    finally:
        drop_tenants(tenants, keep)

    def table(rankings: dict[str, dict[tuple[str, int], list[str]]]) -> dict[str, Any]:
        t = RecallTable(ks)
        for conv in conversations:
            for i, q in enumerate(questions[conv.id][0]):
                for m, ranked in rankings.items():
                    t.add(m, q["category"], ranked[(conv.id, i)], q["gold"])
        return t.table()

    def r10(ranked: dict[tuple[str, int], list[str]], conv_id: str) -> list[float]:
        return [recall_at(ranked[(conv_id, i)], q["gold"], 10)
                for i, q in enumerate(questions[conv_id][0])]

    grid_names = [s.name for s in settings]
    conv_ids = [c.id for c in conversations]
    report_runs: dict[str, dict[tuple[str, int], list[str]]] = {}
    loo: dict[str, Any] = {}
    for m in MEMORY_METHODS:
        scores = {n: {c: r10(runs[n][m], c) for c in conv_ids} for n in grid_names}
        if len(grid_names) > 1 and len(conv_ids) > 1:
            picks, _ = leave_one_out(scores, by_name)
            report_runs[m] = {key: runs[picks[key[0]]][m][key] for key in runs[grid_names[0]][m]}
            loo[m] = {"picks": picks,
                      "per_conversation": {c: round(sum(scores[picks[c]][c]) /
                                                    max(1, len(scores[picks[c]][c])), 4)
                                           for c in conv_ids}}
        else:
            report_runs[m] = runs[grid_names[0]][m]
    rankings = {**report_runs, **{b: baseline[b] for b in BASELINES}}
    rows = [{"conversation": c.id, "category": q["category"], "gold": q["gold"],
             **{m: rankings[m][(c.id, i)][:depth] for m in METHODS}}
            for c in conversations for i, q in enumerate(questions[c.id][0])]
    recall = table(rankings)
    out = {
        "conversations": conv_ids,
        "questions": len(rows),
        "skipped_questions": sum(s for _, s in questions.values()),
        "ks": list(ks),
        "protocol": ("leave-one-conversation-out over " + ", ".join(grid_names)
                     if len(grid_names) > 1 and len(conv_ids) > 1 else f"setting {grid_names[0]}"),
        "recall": recall,
        "loo": loo,
        "grid": {n: {m: round(sum(v for c in conv_ids for v in r10(runs[n][m], c))
                              / max(1, len(rows)), 4) for m in MEMORY_METHODS}
                 for n in grid_names},
        "settings": {n: s.to_dict() for n, s in by_name.items()},
        "latency_ms": {m: percentiles(v) for m, v in latency.items() if v},
        "ingest_seconds": built["ingest_seconds"],
        "per_question": rows,
    }
    if SHIPPED.name in runs:
        out["shipped"] = table({m: runs[SHIPPED.name][m] for m in MEMORY_METHODS})
    if ablation:
        out["ablation"] = {label: table({m: runs[s.name][m] for m in MEMORY_METHODS})
                           for label, s in ablation.items()}
    return out
