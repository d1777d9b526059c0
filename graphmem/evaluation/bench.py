"""``graphmem bench``: what the memories cost next to plain vector search, at scale.

**Recall latency.** One real tenant per memory (a LoCoMo conversation ingested through the
heuristic path) sits among filler tenants until each memory holds ``size`` memory units (state:
Event nodes, associative: Episode nodes). Filler = the LoCoMo turns repeated across namespaces
``<run>-fill-<j>``: text perturbed (two words swapped, a variant tag appended) and embedding
perturbed instead of re-encoded — ``v' = normalise(v + ε)``, ``ε ~ N(0, σ² I)``, σ = 0.02 per
dimension (cosine to the original ≈ 0.93 at 384 dims) — so scaling costs only writes. Units are
written with UNWIND batches (``cypher/bench/write_*``). The baseline, langchain-neo4j
``Neo4jVector``, holds the same number of raw turns (same base vectors, same perturbation) in
its own label and index on the same server. Per size, ``questions`` LoCoMo questions of the
tenant are timed (after 2 warm-up calls) for state recall, associative recall and
``Neo4jVector.similarity_search`` (each embeds the question once); p50/p95 in ms, ratios to the
baseline and growth from the smallest to the largest size.

**Ingest throughput.** The tenant's turns through each memory (turns/s; encode and write seconds
split out by :mod:`~graphmem.evaluation.timing`) against raw sentence-transformers encoding of the
same texts and raw UNWIND writes of the same number of nodes the memory created.

Targets (issue 7): recall p50 ≤ 2× and p95 ≤ 3× the vector query; growth ≤ 1.5×; ingest ≥ 70%
of raw encode throughput; graph writes ≤ 1.3× raw UNWIND.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.conversations import Conversation, read_locomo
from graphmem.datasets import resolve
from graphmem.errors import InvalidInputError
from graphmem.evaluation import report as rpt
from graphmem.evaluation.baselines import VectorBaseline
from graphmem.evaluation.locomo import truncate_conversation, turn_text
from graphmem.evaluation.metrics import check_target, percentiles, ratio
from graphmem.evaluation.run_eval import seed_everything
from graphmem.evaluation.timing import TimedEmbedder, TimedRunner
from graphmem.facade import GraphMemory
from graphmem.names import node_id

logger = logging.getLogger(__name__)

SIGMA = 0.02
BATCH = 1000
TARGETS = {"recall_p50_ratio": 2.0, "recall_p95_ratio": 3.0, "growth": 1.5,
           "ingest_vs_encode": 0.7, "writes_vs_unwind": 1.3}


def perturb_vectors(base: np.ndarray, rng: np.random.Generator, sigma: float = SIGMA) -> np.ndarray:
    """``normalise(base + N(0, sigma²))`` row-wise: ``(n, d)`` float32 unit rows."""
    noisy = base + rng.normal(0.0, sigma, size=base.shape)
    return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


def perturb_text(text: str, rng: np.random.Generator, variant: int) -> str:
    """Swap two adjacent words (when there are two) and append ``[v<variant>]``."""
    words = text.split()
    if len(words) > 2:
        i = int(rng.integers(0, len(words) - 1))
        words[i], words[i + 1] = words[i + 1], words[i]
    return " ".join(words) + f" [v{variant}]"


class Filler:
    """Writes perturbed copies of the base turns as filler tenants for both memories and the
    baseline until each holds a requested number of units."""

    def __init__(self, mem: GraphMemory, vector: VectorBaseline, prefix: str, turns: Sequence[Any],
                 conv_ids: Sequence[str], vectors: np.ndarray, seed: int):
        self.mem, self.vector, self.prefix = mem, vector, prefix
        self.turns, self.conv_ids, self.vectors = list(turns), list(conv_ids), vectors
        self.rng = np.random.default_rng(seed)
        self.units = {"state": 0, "associative": 0, "vector": 0}
        self.namespaces: list[str] = []
        self.write_seconds = 0.0

    def _rows(self, ns: str, j: int, n: int) -> tuple[list[dict], list[dict], list[str], np.ndarray]:
        vecs = perturb_vectors(self.vectors[:n], self.rng)
        texts = [perturb_text(turn_text(t), self.rng, j) for t in self.turns[:n]]
        events, episodes = [], []
        for i, (t, c, text, v) in enumerate(zip(self.turns[:n], self.conv_ids[:n], texts, vecs, strict=True)):
            emb = v.tolist()
            occurred = t.timestamp if isinstance(t.timestamp, datetime) else None
            events.append({"id": node_id(ns, "bench-event", j, i), "conversation": c, "text": text,
                           "speaker": t.speaker, "source_ids": [t.source_id], "occurred_at": occurred,
                           "embedding": emb})
            episodes.append({"id": node_id(ns, "bench-episode", j, i), "conversation": c, "text": text,
                             "speaker": t.speaker, "source_id": t.source_id, "occurred_at": occurred,
                             "embedding": emb})
        return events, episodes, texts, vecs

    def fill_to(self, memory_units: dict[str, int], size: int, progress: Any = None) -> None:
        """Add filler until state, associative (``memory_units`` = the tenant's own units) and
        the baseline hold ``size`` units each."""
        while True:
            need = {"state": size - memory_units["state"] - self.units["state"],
                    "associative": size - memory_units["associative"] - self.units["associative"],
                    "vector": size - self.units["vector"]}
            if max(need.values()) <= 0:
                return
            j = len(self.namespaces)
            ns = f"{self.prefix}-fill-{j}"
            self.namespaces.append(ns)
            n = min(len(self.turns), max(need.values()))
            events, episodes, texts, vecs = self._rows(ns, j, n)
            tenant = self.mem.scoped(ns)
            began = time.perf_counter()
            for start in range(0, n, BATCH):
                if need["state"] > start:
                    tenant.query("bench/write_events",
                                 rows=events[start:min(start + BATCH, need["state"])])
                if need["associative"] > start:
                    tenant.query("bench/write_episodes",
                                 rows=episodes[start:min(start + BATCH, need["associative"])])
            self.write_seconds += time.perf_counter() - began
            self.units["state"] += max(0, min(n, need["state"]))
            self.units["associative"] += max(0, min(n, need["associative"]))
            m = max(0, min(n, need["vector"]))
            if m:
                self.vector.add(texts[:m], vecs[:m],
                                [{"conversation": c, "source_id": t.source_id, "namespace": ns}
                                 for t, c in zip(self.turns[:m], self.conv_ids[:m], strict=True)],
                                [f"{ns}:{i}" for i in range(m)], wait=False)
                self.units["vector"] += m
            if progress:
                progress(f"filler {ns}: units {self.units}")


def _time_calls(fn: Any, questions: Sequence[str], warmup: int = 2) -> list[float]:
    for q in questions[:warmup]:
        fn(q)
    out = []
    for q in questions:
        began = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - began) * 1000)
    return out


def ingest_section(mem: GraphMemory, conv: Conversation, prefix: str) -> dict[str, Any]:
    """Ingest throughput of state and associative memory on ``conv`` vs raw encode and raw UNWIND.

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
                 "occurred_at": conv.turns[i].timestamp, "embedding": base_vecs[i].tolist()}
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
            "other_seconds": round(total - timed_embedder.seconds - timed_runner.seconds["write"]
                                   - timed_runner.seconds["read"], 2),
            "db_calls": dict(timed_runner.calls), "nodes_created": nodes,
            "raw_unwind_seconds_same_nodes": round(unwind_s, 3),
            "ingest_vs_encode": ratio(len(texts) / total, len(texts) / encode_s),
            "writes_vs_unwind": ratio(timed_runner.seconds["write"], unwind_s),
        }
    return out


def run_bench(mem: GraphMemory, server: dict[str, Any], data: Path | None, out: Path,
              sizes: Sequence[int] = (10_000, 100_000), seed: int = 0, questions: int = 60,
              quick: bool = False, console: Any = None) -> dict[str, Any]:
    """Run the benchmark; writes ``report.json``, ``report.md`` and plots into ``out``.

    Args:
        mem: the facade (its connection and embedder; every tenant is ``mem.scoped(...)``).
        server: ``{"uri", "username", "password", "database"}`` for the ``Neo4jVector`` baseline.
        data: a folder with the full LoCoMo (``locomo/``); None: ``GRAPHMEM_DATA``, else (quick
            run only) the bundled sample. The full run requires the full dataset.
        sizes: memory units per memory (ascending after sorting; each ≥ the tenant's own units).
        questions: timed recalls per method and size.
        quick: one truncated conversation (40 turns), sizes (500, 1500), 8 questions.
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
    namespaces = [f"{prefix}-state", f"{prefix}-assoc"]
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
        state = mem.scoped(f"{prefix}-state").state
        assoc = mem.scoped(f"{prefix}-assoc").associative
        methods = {
            "state": lambda q: state.recall(q, k=10),
            "associative": lambda q: assoc.recall(q, k=10),
            "vector_rag": lambda q: vector.search(q, 10),
        }
        latency: dict[str, dict[str, Any]] = {}
        for size in sizes:
            say(f"scaling to {size} units per memory")
            began = time.perf_counter()
            filler.fill_to({"state": int(own[0]), "associative": int(own[1])}, size, progress=None)
            vector.await_index()
            fill_s = time.perf_counter() - began
            say(f"timing {len(qs)} recalls per method at {size}")
            per = {m: percentiles(_time_calls(fn, qs)) for m, fn in methods.items()}
            for m in ("state", "associative"):
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
                            for m in methods} if len(sizes) > 1 else {}
        report["filler"] = {"namespaces": len(filler.namespaces), "write_seconds": round(filler.write_seconds, 1),
                            "units": filler.units}
    finally:
        say("cleanup")
        for ns in namespaces + (filler.namespaces if filler else []):
            mem.scoped(ns).delete_namespace()
        vector.cleanup()
    report["targets_check"] = targets_check(report, sizes)
    report["diagnosis"] = diagnosis(report, sizes)
    report["seconds"] = round(time.perf_counter() - began_all, 1)
    report["summary"] = summary_lines(report)
    report["plots"] = bench_plots(report, out, sizes)
    rpt.write_json(out, report)
    (out / "report.md").write_text(bench_markdown(report), encoding="utf-8")
    return report


def targets_check(report: dict[str, Any], sizes: Sequence[int]) -> dict[str, Any]:
    """Each target per memory: ``{"value", "target", "met"}`` (latency at the largest size)."""
    hi = str(sizes[-1])
    out: dict[str, Any] = {}
    for m in ("state", "associative"):
        ms = report["recall"][hi]["ms"][m]
        ing = report["ingest"][m]
        out[m] = {
            f"recall_p50_ratio@{hi}": check_target(ms["p50_ratio"], TARGETS["recall_p50_ratio"]),
            f"recall_p95_ratio@{hi}": check_target(ms["p95_ratio"], TARGETS["recall_p95_ratio"]),
            "growth_p50": check_target(report["growth"].get(m, {}).get("p50"), TARGETS["growth"]),
            "ingest_vs_encode": check_target(ing["ingest_vs_encode"], TARGETS["ingest_vs_encode"], True),
            "writes_vs_unwind": check_target(ing["writes_vs_unwind"], TARGETS["writes_vs_unwind"]),
        }
    return out


def diagnosis(report: dict[str, Any], sizes: Sequence[int]) -> list[str]:
    """Why each missed target is missed, from the measured split, and what would meet it."""
    out: list[str] = []
    ing = report["ingest"]
    hi = str(sizes[-1])
    vec = report["recall"][hi]["ms"]["vector_rag"]["p50"]
    for m in ("state", "associative"):
        checks = report["targets_check"][m]
        i = ing[m]
        if not checks[f"recall_p50_ratio@{hi}"]["met"] or not checks[f"recall_p95_ratio@{hi}"]["met"]:
            ms = report["recall"][hi]["ms"][m]["p50"]
            out.append(
                f"{m} recall p50 {ms} ms vs {vec} ms: the vector baseline is one index query; {m} "
                "recall runs several rounds of Cypher (vector seeds oversampled and filtered by "
                "namespace, an exact in-namespace rescan when the oversampled index result is "
                "starved by other tenants, keyword/graph expansions) plus the question embedding"
                + (" and the question cues' embeddings" if m == "associative" else "")
                + ". Would meet it: one round trip per round (merge the per-round reads into one "
                "query), exact-first search for small tenants (their namespace index seek is cheaper "
                "than a starved index query plus a rescan)"
                + (", match question cues to stored Cue nodes by text before encoding them"
                   if m == "associative" else "") + ".")
        if not checks["growth_p50"]["met"]:
            out.append(
                f"{m} growth x{checks['growth_p50']['value']}: the index-wide parts grow with other "
                "tenants' data - the full-text query over all tenants filtered afterwards by "
                "namespace, and the oversampled vector query that returns fewer in-namespace hits "
                "as the index grows. Would meet it: a namespace clause inside the full-text query "
                "(namespace as an indexed field of the full-text index) and exact-first search "
                "for tenants below a few thousand units.")
        if not checks["ingest_vs_encode"]["met"]:
            per_turn = round(i["texts_encoded"] / ing["turns"], 1)
            out.append(
                f"{m} ingest {i['turns_per_s']} turns/s = x{i['ingest_vs_encode']} of raw encode: "
                f"it encodes {i['texts_encoded']} texts for {ing['turns']} turns ({per_turn} per "
                f"turn; encode {i['encode_seconds']} s), writes {i['write_seconds']} s, other "
                f"{i['other_seconds']} s. Would meet it: "
                + ("encode each distinct cue/tag text once per namespace (reuse stored embeddings, "
                   "deduplicate across conversations) instead of per link" if per_turn > 1.5 else
                   "cut the write time (below)") + ".")
        if not checks["writes_vs_unwind"]["met"]:
            out.append(
                f"{m} graph writes {i['write_seconds']} s = x{i['writes_vs_unwind']} of a raw "
                f"UNWIND of the same {i['nodes_created']} nodes ({i['raw_unwind_seconds_same_nodes']} s): "
                + ("one transaction of a constant number of UNWIND statements writes the batch's "
                   "nodes with their relationships (SUPPORTED_BY, TEMPORAL_NEXT, NEXT_TURN, "
                   "EVIDENCED_BY, RELATED_EVENT) and keeps more indexes than the raw UNWIND (the "
                   "retrieval units' full-text index, the chain and session range indexes, the "
                   "state and topic vector indexes); the rest is the commit of those index "
                   "updates. Would meet it: fewer indexed properties per event." if m == "state" else
                   "the graph holds many more relationships than nodes. Would meet it: fewer, "
                   "larger UNWIND statements per transaction."))
    return out


def summary_lines(report: dict[str, Any]) -> list[str]:
    """One line per measured number, for the console."""
    lines = []
    for size, row in report["recall"].items():
        lines.append(f"recall ms @{size}: " + "; ".join(
            f"{m} p50 {v['p50']} p95 {v['p95']}" + (f" (x{v['p50_ratio']}/x{v['p95_ratio']})" if "p50_ratio" in v else "")
            for m, v in row["ms"].items()))
    if report.get("growth"):
        lines.append("growth p50: " + ", ".join(f"{m} x{v['p50']}" for m, v in report["growth"].items()))
    ing = report["ingest"]
    lines.append(f"raw encode {ing['raw_encode']['turns_per_s']} turns/s; " + "; ".join(
        f"{m} {ing[m]['turns_per_s']} turns/s (x{ing[m]['ingest_vs_encode']} of encode, writes "
        f"x{ing[m]['writes_vs_unwind']} of raw UNWIND)" for m in ("state", "associative")))
    return lines


def bench_plots(report: dict[str, Any], out: Path, sizes: Sequence[int]) -> list[str]:
    """Latency vs size (p50, p95) and ingest throughput bars."""
    xs = [int(s) for s in report["recall"]]
    methods = list(next(iter(report["recall"].values()))["ms"])
    files = [rpt.line_chart(out / f"recall_latency_{p}.png", f"recall latency {p} (ms)", xs,
                            {m: [report["recall"][str(s)]["ms"][m][p] for s in xs] for m in methods},
                            "memory units per memory", "ms").name for p in ("p50", "p95")]
    ing = report["ingest"]
    files.append(rpt.bar_chart(out / "ingest_throughput.png", f"ingest throughput ({ing['turns']} turns)",
                               ["raw encode", "state", "associative"],
                               {"turns/s": [ing["raw_encode"]["turns_per_s"], ing["state"]["turns_per_s"],
                                            ing["associative"]["turns_per_s"]]}, "turns/s").name)
    return files


def bench_markdown(report: dict[str, Any]) -> str:
    """report.md of ``graphmem bench``."""
    cfg = report["config"]["parameters"]
    parts = ["# graphmem bench", "",
             f"Run `{cfg['run_id']}`, sizes {cfg['sizes']}, {cfg['questions']} questions, tenant "
             f"{cfg['tenant']} ({cfg['tenant_turns']} turns), σ = {cfg['sigma']}, total {report['seconds']} s.", "",
             (__doc__ or "").split("Targets")[0].strip(), "", "## Recall latency (ms)", ""]
    rows = []
    for size, row in report["recall"].items():
        for m, v in row["ms"].items():
            rows.append([size, m, row["units"].get(m), v["p50"], v["p95"], v.get("p50_ratio"), v.get("p95_ratio")])
    parts += [rpt.md_table(["size", "method", "units", "p50", "p95", "p50 / vector", "p95 / vector"], rows), ""]
    if report.get("growth"):
        parts += ["Growth (largest / smallest size): " + ", ".join(
            f"{m} p50 x{v['p50']} p95 x{v['p95']}" for m, v in report["growth"].items()), ""]
    ing = report["ingest"]
    parts += ["## Ingest throughput (heuristic path)", "",
              f"Raw sentence-transformers encode: {ing['raw_encode']['turns_per_s']} turns/s.", "",
              rpt.md_table(["memory", "turns/s", "x encode", "encode s", "write s", "read s", "other s",
                            "nodes", "raw UNWIND s (same nodes)", "writes / UNWIND"],
                           [[m, ing[m]["turns_per_s"], ing[m]["ingest_vs_encode"], ing[m]["encode_seconds"],
                             ing[m]["write_seconds"], ing[m]["read_seconds"], ing[m]["other_seconds"],
                             ing[m]["nodes_created"], ing[m]["raw_unwind_seconds_same_nodes"],
                             ing[m]["writes_vs_unwind"]] for m in ("state", "associative")]), "",
              "## Targets", ""]
    rows = [[m, name, c["value"], c["target"], "yes" if c["met"] else "**no**"]
            for m, checks in report["targets_check"].items() for name, c in checks.items()]
    parts += [rpt.md_table(["memory", "target", "value", "limit", "met"], rows), ""]
    if report.get("diagnosis"):
        parts += ["## Missed targets: why, and what would meet them", ""]
        parts += [f"- {line}" for line in report["diagnosis"]] + [""]
    parts += ["## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]] + ["", rpt.config_md(report["config"]), ""]
    return "\n".join(parts)
