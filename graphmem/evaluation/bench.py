"""``graphmem bench``: what the memories cost next to plain vector search, at scale, in one run.

**Recall latency.** One real tenant per memory (a LoCoMo conversation ingested through the
heuristic path) sits among filler tenants (:mod:`graphmem.evaluation.filler`) until each memory
holds ``size`` memory units (state: Event nodes, associative: Episode nodes). The baseline,
langchain-neo4j ``Neo4jVector``, holds the same number of raw turns (same base vectors, same
perturbation) in its own label and index on the same server. Per size, ``questions`` LoCoMo
questions of the tenant are timed (after warm-up questions that are never timed) for state recall,
associative recall, the combined retriever (both memories of one namespace) and
``Neo4jVector.similarity_search``, taking turns per question; each embeds the question once with
its own embedder wrapper (no method reuses another's query vector). p50/p95 in ms, ratios to the
baseline and growth from the smallest to the largest size.

**Ingest throughput.** The tenant's turns through each memory (turns/s; encode and write seconds
split out by :mod:`~graphmem.evaluation.timing`) against raw sentence-transformers encoding of the
same texts and raw UNWIND writes of the same number of nodes the memory created.

**Long history** (:mod:`graphmem.evaluation.history`), **concurrent writers**
(:mod:`graphmem.evaluation.concurrency`) and the **warm process** (:mod:`graphmem.evaluation.warm`)
are sections of the same run. Targets and report: :mod:`graphmem.evaluation.bench_report`.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.conversations import Conversation, read_locomo
from graphmem.datasets import resolve
from graphmem.embeddings import ValidatingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.evaluation import report as rpt
from graphmem.evaluation.baselines import EmbedderEmbeddings, VectorBaseline
from graphmem.evaluation.bench_report import (TARGETS, bench_markdown, bench_plots,
                                              summary_lines, targets_check)
from graphmem.evaluation.filler import BATCH, SIGMA, Filler
from graphmem.evaluation.history import SIZES as HISTORY_SIZES
from graphmem.evaluation.history import long_history_section
from graphmem.evaluation.concurrency import concurrency_section
from graphmem.evaluation.warm import server_env, warm_process_section
from graphmem.evaluation.locomo import truncate_conversation, turn_text
from graphmem.evaluation.metrics import percentiles, ratio
from graphmem.evaluation.run_eval import seed_everything
from graphmem.evaluation.timing import TimedEmbedder, TimedRunner
from graphmem.facade import GraphMemory
from graphmem.names import node_id
from graphmem.retrievers import CombinedGraphMemoryRetriever

logger = logging.getLogger(__name__)


#: Questions that warm each method up (plans, caches) and are never timed: a timed question is
#: embedded by the method itself, never answered from a query-vector cache.
WARMUP = ("What happened last week?", "Who did they talk to?")
#: Turns ingested (and deleted) before the ingest section is timed.
WARM_TURNS = 12


def _fresh(embedder: Any) -> ValidatingEmbedder:
    """A new validating wrapper (its own, empty query-vector cache) around the same model."""
    return ValidatingEmbedder(embedder.inner if isinstance(embedder, ValidatingEmbedder) else embedder)


def time_methods(methods: dict[str, Any], questions: Sequence[str]) -> dict[str, list[float]]:
    """Milliseconds of each method per question, the methods taking turns on every question (so
    a change of machine load hits them alike), after the :data:`WARMUP` questions."""
    for q in WARMUP:
        for fn in methods.values():
            fn(q)
    out: dict[str, list[float]] = {m: [] for m in methods}
    for q in questions:
        for m, fn in methods.items():
            began = time.perf_counter()
            fn(q)
            out[m].append((time.perf_counter() - began) * 1000)
    return out


def ingest_section(mem: GraphMemory, conv: Conversation, prefix: str) -> dict[str, Any]:
    """Ingest throughput of state and associative memory on ``conv`` vs raw encode and raw UNWIND.

    Before timing, the first :data:`WARM_TURNS` turns go through each memory and one raw row
    through the raw UNWIND in a scratch namespace (deleted): the timed runs then measure steady
    writing, not Neo4j compiling each query's plan on its first use (a running service has them).
    The memories' namespaces ``<prefix>-state`` / ``<prefix>-assoc`` are kept (the recall tenant).
    """
    embedder = mem.embedder
    texts = [turn_text(t) for t in conv.turns]
    embedder.embed_documents(texts[:8])  # load the model and warm up before timing
    began = time.perf_counter()
    base_vecs = embedder.embed_documents(texts)
    encode_s = time.perf_counter() - began
    out: dict[str, Any] = {"turns": len(texts), "raw_encode": {
        "seconds": round(encode_s, 3), "turns_per_s": round(len(texts) / encode_s, 1)}}
    warm = mem.scoped(f"{prefix}-warm")
    for name in ("state", "associative"):  # compile the write queries once, as a running service has
        warm.memory(name).ingest([truncate_conversation(conv, WARM_TURNS)])
    warm.query("bench/write_events", rows=[{
        "id": node_id(warm.namespace, "raw", 0, 0), "conversation": conv.id, "text": texts[0],
        "speaker": conv.turns[0].speaker, "source_ids": [conv.turns[0].source_id],
        "occurred_at": conv.turns[0].timestamp, "embedding": base_vecs[0].tolist(),
        "lexical_terms": None, "lexical_length": None, "ns_token": None}])
    warm.delete_namespace()
    for name, ns in (("state", f"{prefix}-state"), ("associative", f"{prefix}-assoc")):
        mem.scoped(ns).delete_namespace()
        timers: dict[str, Any] = {}

        def wrap(key: str, cls: Any) -> Any:
            return lambda inner: timers.setdefault(key, cls(inner))

        timed = mem.scoped(ns, wrap_runner=wrap("runner", TimedRunner),
                           wrap_embedder=wrap("embedder", TimedEmbedder))
        timed_runner, timed_embedder = timers["runner"], timers["embedder"]
        began = time.perf_counter()
        timed.memory(name).ingest([conv])
        total = time.perf_counter() - began
        nodes = sum(int(r["nodes"]) for r in mem.scoped(ns).query("core/count_namespace_nodes"))
        # raw UNWIND of the same number of nodes (plain Events with embeddings)
        raw_ns = f"{prefix}-raw-{name[:5]}"
        raw = mem.scoped(raw_ns)
        raw.delete_namespace()
        reps = int(np.ceil(nodes / len(texts)))
        rows = [{"id": node_id(raw_ns, "raw", r, i), "conversation": conv.id, "text": texts[i],
                 "speaker": conv.turns[i].speaker, "source_ids": [conv.turns[i].source_id],
                 "occurred_at": conv.turns[i].timestamp, "embedding": base_vecs[i].tolist(),
                 "lexical_terms": None, "lexical_length": None, "ns_token": None}
                for r in range(reps) for i in range(len(texts))][:nodes]
        began = time.perf_counter()
        for start in range(0, len(rows), BATCH):
            raw.query("bench/write_events", rows=rows[start:start + BATCH])
        unwind_s = time.perf_counter() - began
        raw.delete_namespace()
        out[name] = {
            "seconds": round(total, 2), "turns_per_s": round(len(texts) / total, 1),
            "encode_seconds": round(timed_embedder.seconds, 2), "texts_encoded": timed_embedder.texts,
            "write_seconds": round(timed_runner.seconds["write"], 2),
            "read_seconds": round(timed_runner.seconds["read"], 2),
            "wait_seconds": round(timed_runner.seconds["wait"], 2),
            "other_seconds": round(total - timed_embedder.seconds - timed_runner.seconds["write"]
                                   - timed_runner.seconds["read"] - timed_runner.seconds["wait"], 2),
            "db_calls": dict(timed_runner.calls), "nodes_created": nodes,
            "raw_unwind_seconds_same_nodes": round(unwind_s, 3),
            "ingest_vs_encode": ratio(len(texts) / total, len(texts) / encode_s),
            "writes_vs_unwind": ratio(timed_runner.seconds["write"], unwind_s),
        }
    return out


def run_bench(mem: GraphMemory, server: dict[str, Any], data: Path | None, out: Path,
              sizes: Sequence[int] = (10_000, 100_000), seed: int = 0, questions: int = 60,
              quick: bool = False, console: Any = None,
              history_sizes: Sequence[int] = HISTORY_SIZES) -> dict[str, Any]:
    """Run the benchmark; writes ``report.json``, ``report.md`` and plots into ``out``.

    Args:
        mem: the facade (its connection and embedder; every tenant is ``mem.scoped(...)``).
        server: ``{"uri", "username", "password", "database"}`` for the ``Neo4jVector`` baseline.
        data: a folder with the full LoCoMo (``locomo/``); None: ``GRAPHMEM_DATA``, else (quick
            run only) the bundled sample. The full run requires the full dataset.
        sizes: memory units per memory (ascending after sorting; each ≥ the tenant's own units).
        questions: timed recalls per method and size.
        quick: one truncated conversation (40 turns), sizes (500, 1500), 8 questions, histories
            of 50 and 200 turns.
        history_sizes: the long-history sizes (turns in one topic chain / contents of one cue).
    Raises:
        InvalidInputError: a size below 1. DataNotFoundError: LoCoMo is missing.
    """
    embedder = mem.embedder
    say = (lambda m: console.print(f"[dim]{time.strftime('%H:%M:%S')}[/dim] {m}")) if console else (lambda m: None)
    seed_everything(seed)
    if quick:
        sizes, questions = (500, 1500), min(questions, 8)
    sizes = sorted(int(s) for s in sizes)
    if not sizes or sizes[0] < 1:
        raise InvalidInputError(f"sizes must be positive, got {sizes!r}")
    locomo = resolve("locomo", data, full=not quick)
    conversations = read_locomo(locomo)
    tenant = truncate_conversation(conversations[1], 40) if quick else conversations[0]
    base_convs = [tenant] if quick else conversations
    run_id = uuid.uuid4().hex[:8]
    prefix = f"bench-{run_id}"
    out.mkdir(parents=True, exist_ok=True)
    config = rpt.configuration("graphmem bench", {
        "sizes": sizes, "seed": seed, "questions": questions, "quick": quick, "run_id": run_id,
        "sigma": SIGMA, "batch": BATCH, "tenant": tenant.id, "tenant_turns": len(tenant.turns),
        "embedder": rpt.embedder_name(embedder)},
        {"locomo": locomo}, {"uri": server["uri"], "ping": mem.query("core/ping")})
    report: dict[str, Any] = {"kind": "bench", "config": config, "targets": TARGETS}
    began_all = time.perf_counter()
    vector = VectorBaseline(mem.scoped(f"{prefix}-baseline"), server)
    namespaces = [f"{prefix}-state", f"{prefix}-assoc", f"{prefix}-both"]
    filler: Filler | None = None
    try:
        say(f"ingest throughput on {tenant.id} ({len(tenant.turns)} turns)")
        report["ingest"] = ingest_section(mem, tenant, prefix)
        own = mem.scoped(f"{prefix}-state").query("bench/count_units")[0]["events"], \
            mem.scoped(f"{prefix}-assoc").query("bench/count_units")[0]["episodes"]
        turns = [t for c in base_convs for t in c.turns]
        conv_ids = [c.id for c in base_convs for _ in c.turns]
        say(f"encoding {len(turns)} base turns once")
        base_vecs = embedder.embed_documents([turn_text(t) for t in turns])
        filler = Filler(mem, vector, prefix, turns, conv_ids, base_vecs, seed)
        qs = [q.question for q in tenant.qa if q.evidence][:questions]
        both = f"{prefix}-both"
        for name in ("state", "associative"):
            mem.scoped(both).memory(name).ingest([tenant])

        def methods_now() -> dict[str, Any]:
            # each method its own embedder wrapper: every timed question is embedded once by it
            st = mem.scoped(f"{prefix}-state", wrap_embedder=_fresh).state
            asc = mem.scoped(f"{prefix}-assoc", wrap_embedder=_fresh).associative
            combined = CombinedGraphMemoryRetriever(
                graph_memory=mem.scoped(both, wrap_embedder=_fresh), k=10)
            vec = EmbedderEmbeddings(_fresh(embedder))
            return {"state": lambda q: st.recall(q, k=10),
                    "associative": lambda q: asc.recall(q, k=10),
                    "combined": lambda q: combined.invoke(q),
                    "vector_rag": lambda q: vector.search_by_vector(vec.embed_query(q), 10)}

        latency: dict[str, dict[str, Any]] = {}
        for size in sizes:
            say(f"scaling to {size} units per memory")
            began = time.perf_counter()
            filler.fill_to({"state": int(own[0]), "associative": int(own[1])}, size, progress=None)
            vector.await_index()
            fill_s = time.perf_counter() - began
            say(f"timing {len(qs)} recalls per method at {size}")
            methods = methods_now()
            per = {m: percentiles(v) for m, v in time_methods(methods, qs).items()}
            for m in ("state", "associative", "combined"):
                per[m]["p50_ratio"] = ratio(per[m]["p50"], per["vector_rag"]["p50"])
                per[m]["p95_ratio"] = ratio(per[m]["p95"], per["vector_rag"]["p95"])
            latency[str(size)] = {"units": {"state": int(own[0]) + filler.units["state"],
                                            "associative": int(own[1]) + filler.units["associative"],
                                            "vector_rag": filler.units["vector"]},
                                  "fill_seconds": round(fill_s, 1), "ms": per}
        report["recall"] = latency
        lo, hi = str(sizes[0]), str(sizes[-1])
        report["growth"] = {m: {"p50": ratio(latency[hi]["ms"][m]["p50"], latency[lo]["ms"][m]["p50"]),
                                "p95": ratio(latency[hi]["ms"][m]["p95"], latency[lo]["ms"][m]["p95"])}
                            for m in latency[hi]["ms"]} if len(sizes) > 1 else {}
        report["filler"] = {"namespaces": len(filler.namespaces), "write_seconds": round(filler.write_seconds, 1),
                            "units": filler.units}
        say("warm process: recalls through a running graphmem shell vs in this process")
        report["warm"] = warm_process_section(mem, both, [*WARMUP, *qs[:20]],
                                              warmup=len(WARMUP), env=server_env(server),
                                              cold_repeats=1 if quick else 3)
        say("long histories: one topic chain and one cue grown in batches")
        report["history"] = long_history_section(
            mem, prefix, [t.text for t in turns], (50, 200) if quick else history_sizes, say)
        say("concurrent writers: N = 1, 2, 4")
        report["concurrency"] = concurrency_section(
            mem, [truncate_conversation(tenant, 40 if quick else 120)], (1, 2, 4),
            prefix=f"{prefix}-conc", progress=say)
    finally:
        say("cleanup")
        for ns in namespaces + (filler.namespaces if filler else []):
            mem.scoped(ns).delete_namespace()
        vector.cleanup()
    report["targets_check"] = targets_check(report, sizes)
    report["seconds"] = round(time.perf_counter() - began_all, 1)
    report["summary"] = summary_lines(report)
    report["plots"] = bench_plots(report, out, sizes)
    rpt.write_json(out, report)
    (out / "report.md").write_text(bench_markdown(report), encoding="utf-8")
    return report
