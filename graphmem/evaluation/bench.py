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

**Ingest throughput** and **graph writes** (:mod:`graphmem.evaluation.ingest_bench`): the tenant's
turns through each memory against raw sentence-transformers encoding of the same texts, and the
memory's write time (replayed ingests, nothing encoded) against raw UNWIND writes of the same
number of nodes.

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

from graphmem.conversations import read_locomo
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
from graphmem.evaluation.ingest_bench import ingest_section
from graphmem.evaluation.warm import server_env, warm_process_section
from graphmem.evaluation.locomo import truncate_conversation, turn_text
from graphmem.evaluation.metrics import percentiles, ratio
from graphmem.evaluation.run_eval import seed_everything
from graphmem.facade import GraphMemory
from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever

logger = logging.getLogger(__name__)


#: Questions that warm each method up (plans, caches) and are never timed: a timed question is
#: embedded by the method itself, never answered from a query-vector cache.
WARMUP = ("What happened last week?", "Who did they talk to?")


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
        quick: one truncated conversation (24 turns), sizes (300, 900), 8 questions, histories
            of 30 and 60 turns, 1 and 2 concurrent writers of 20 turns.
        history_sizes: the long-history sizes (turns in one topic chain / contents of one cue).
    Raises:
        InvalidInputError: a size below 1. DataNotFoundError: LoCoMo is missing.
    """
    embedder = mem.embedder
    say = (lambda m: console.print(f"[dim]{time.strftime('%H:%M:%S')}[/dim] {m}")) if console else (lambda m: None)
    seed_everything(seed)
    if quick:
        sizes, questions = (300, 900), min(questions, 8)
    sizes = sorted(int(s) for s in sizes)
    if not sizes or sizes[0] < 1:
        raise InvalidInputError(f"sizes must be positive, got {sizes!r}")
    locomo = resolve("locomo", data, full=not quick)
    conversations = read_locomo(locomo)
    tenant = truncate_conversation(conversations[1], 24) if quick else conversations[0]
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
        report["ingest"] = ingest_section(mem, tenant, prefix,
                                          warm_with=None if quick else conversations[1])
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
            mem, prefix, [t.text for t in turns], (30, 60) if quick else history_sizes, say)
        writers = (1, 2) if quick else (1, 2, 4)
        say(f"concurrent writers: N = {', '.join(map(str, writers))}")
        report["concurrency"] = concurrency_section(
            mem, [truncate_conversation(tenant, 20 if quick else 120)], writers,
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
    (out / "report.md").write_text(bench_markdown(report, __doc__ or ""), encoding="utf-8")
    return report
