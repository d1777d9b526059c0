"""The ingest section of ``graphmem bench``: turns/s of state and associative memory against raw
encoding, and their graph write time against raw UNWIND writes of the same number of nodes.

**Throughput.** In each of :data:`THROUGHPUT_ROUNDS` rounds the tenant's turns go through each
memory (into its emptied namespace, every text encoded by the model), timed end to end (turns/s),
its encode and database seconds split out by :mod:`~graphmem.evaluation.timing`, and raw
sentence-transformers encoding of the same turn texts (one ``embed_documents`` call) is timed in
the same round: first in even rounds, last in odd ones. The figure is the median of the per-round
ratios; the split reported is that of the median round. One encode of a LoCoMo conversation
varies by a few percent from call to call on a small machine, which a single pair would carry
into the ratio.

**Graph writes.** In the throughput run the associative memory writes while its encoder thread
runs (on a small machine the two share the CPU), so its write seconds there say little about the
writes. The write figure comes from :data:`WRITE_ROUNDS` further ingests of the same turns into a
scratch namespace through a :class:`~graphmem.evaluation.timing.ReplayEmbedder` (the vectors of the
throughput run, nothing encoded), each followed by the raw reference: plain ``Event`` nodes with
the same turn texts and vectors, as many as the memory created, by UNWIND in batches of
:data:`~graphmem.evaluation.filler.BATCH` (``bench/write_events``). The median of the per-round
ratios is the figure (the pair's order alternates between rounds); the throughput run's own
ratio is reported next to it.
"""

from __future__ import annotations

import logging
import statistics
import time
from typing import Any

import numpy as np

from graphmem.conversations import Conversation
from graphmem.evaluation.filler import BATCH
from graphmem.evaluation.locomo import truncate_conversation, turn_text
from graphmem.evaluation.metrics import ratio
from graphmem.evaluation.timing import ReplayEmbedder, TimedEmbedder, TimedRunner
from graphmem.facade import GraphMemory
from graphmem.names import node_id
from graphmem.timeparse import time_param

logger = logging.getLogger(__name__)

#: Turns ingested (and deleted) before the ingest section is timed.
WARM_TURNS = 12
#: Replayed ingests (and raw references) the write figure is the median of.
WRITE_ROUNDS = 9
#: Timed ingests per memory (each paired with a raw encode) the throughput figure is the median of.
THROUGHPUT_ROUNDS = 3


def _raw_rows(namespace: str, conv: Conversation, texts: list[str], vectors: np.ndarray,
              nodes: int) -> list[dict[str, Any]]:
    """``nodes`` ``bench/write_events`` rows: the turns (text, speaker, time, vector) cycled."""
    reps = int(np.ceil(nodes / len(texts)))
    return [{"id": node_id(namespace, "raw", r, i), "conversation": conv.id, "text": texts[i],
             "speaker": conv.turns[i].speaker, "source_ids": [conv.turns[i].source_id],
             "occurred_at": time_param(conv.turns[i].timestamp), "embedding": vectors[i].tolist(),
             "lexical_terms": None, "lexical_length": None, "ns_token": None}
            for r in range(reps) for i in range(len(texts))][:nodes]


def _raw_unwind(mem: GraphMemory, namespace: str, rows: list[dict[str, Any]]) -> float:
    """Seconds to write ``rows`` by UNWIND in batches into the emptied ``namespace`` (then
    deleted again)."""
    raw = mem.scoped(namespace)
    raw.delete_namespace()
    began = time.perf_counter()
    for start in range(0, len(rows), BATCH):
        raw.query("bench/write_events", rows=rows[start:start + BATCH])
    seconds = time.perf_counter() - began
    raw.delete_namespace()
    return seconds


def _nodes(mem: GraphMemory, namespace: str) -> int:
    return sum(int(r["nodes"]) for r in mem.scoped(namespace).query("core/count_namespace_nodes"))


def _timed_ingest(mem: GraphMemory, namespace: str, name: str, conv: Conversation,
                  embedder: Any = None) -> tuple[float, TimedRunner, TimedEmbedder]:
    """Ingest ``conv`` through memory ``name`` into the emptied ``namespace``; wall seconds and
    the runner / embedder timers (``embedder``: the model to wrap instead of the facade's)."""
    mem.scoped(namespace).delete_namespace()
    timers: dict[str, Any] = {}
    timed = mem.scoped(namespace,
                       wrap_runner=lambda inner: timers.setdefault("runner", TimedRunner(inner)),
                       wrap_embedder=lambda inner: timers.setdefault(
                           "embedder", TimedEmbedder(embedder if embedder is not None else inner)))
    began = time.perf_counter()
    timed.memory(name).ingest([conv])
    return time.perf_counter() - began, timers["runner"], timers["embedder"]


def write_rounds(mem: GraphMemory, name: str, conv: Conversation, prefix: str,
                 replay: ReplayEmbedder, texts: list[str], vectors: np.ndarray) -> dict[str, Any]:
    """:data:`WRITE_ROUNDS` replayed ingests of ``conv`` through memory ``name``, each paired
    with the raw UNWIND of as many nodes, the pair's order alternating (even rounds: the ingest
    first; odd rounds: the raw reference first, as many nodes as the previous ingest created):
    neither side always follows the other's namespace deletion. Write seconds per round
    (database time of the ingest's transactions, waits excluded), raw seconds per round and the
    median ratio; where the write breaks down: ``statement_seconds`` (per query run inside the
    ingest's transactions, the median over rounds) and ``outside_statement_seconds`` (the median
    over rounds of write seconds beyond those statements: transaction begin, planning between
    statements and commit, where Neo4j applies the vector and full-text index updates)."""
    scratch, raw_ns = f"{prefix}-replay-{name[:5]}", f"{prefix}-raw-{name[:5]}"
    writes, raws, ratios = [], [], []
    statements: list[dict[str, float]] = []
    nodes = 0
    for round_no in range(WRITE_ROUNDS):
        unwind_s = None
        if round_no % 2 and nodes:
            unwind_s = _raw_unwind(mem, raw_ns, _raw_rows(raw_ns, conv, texts, vectors, nodes))
        _, runner, _ = _timed_ingest(mem, scratch, name, conv, embedder=replay)
        nodes = _nodes(mem, scratch)
        mem.scoped(scratch).delete_namespace()
        if unwind_s is None:
            unwind_s = _raw_unwind(mem, raw_ns, _raw_rows(raw_ns, conv, texts, vectors, nodes))
        writes.append(runner.seconds["write"])
        statements.append(dict(runner.statement_seconds))
        raws.append(unwind_s)
        ratios.append(ratio(runner.seconds["write"], unwind_s))
    return {"write_seconds": [round(s, 3) for s in writes],
            "raw_unwind_seconds": [round(s, 3) for s in raws],
            "ratios": ratios, "median_ratio": statistics.median(ratios),
            "statement_seconds": {q: round(statistics.median(r.get(q, 0.0) for r in statements), 4)
                                  for q in sorted({q for r in statements for q in r})},
            "outside_statement_seconds": round(statistics.median(
                w - sum(r.values()) for w, r in zip(writes, statements, strict=True)), 4)}


def _raw_encode(embedder: Any, texts: list[str]) -> float:
    """Seconds of one ``embed_documents`` call on ``texts``."""
    began = time.perf_counter()
    embedder.embed_documents(texts)
    return time.perf_counter() - began


def throughput_rounds(mem: GraphMemory, conv: Conversation, namespaces: dict[str, str],
                      texts: list[str]) -> dict[str, Any]:
    """:data:`THROUGHPUT_ROUNDS` rounds, each: a raw encode of ``texts`` and one timed ingest of
    ``conv`` per memory (``namespaces``: memory name -> namespace, left holding the last round's
    graph), the raw encode first in even rounds and last in odd ones.

    Returns:
        ``{"raw_encode_seconds": [...], name: [(seconds, TimedRunner, TimedEmbedder,
        ReplayEmbedder), ...] per round}``.
    """
    raws: list[float] = []
    runs: dict[str, list[tuple[float, TimedRunner, TimedEmbedder, ReplayEmbedder]]] = {
        name: [] for name in namespaces}
    for round_no in range(THROUGHPUT_ROUNDS):
        if round_no % 2 == 0:
            raws.append(_raw_encode(mem.embedder, texts))
        for name, ns in namespaces.items():
            replay = ReplayEmbedder(mem.embedder)  # empty: every text goes to the model
            total, runner, timed = _timed_ingest(mem, ns, name, conv, embedder=replay)
            runs[name].append((total, runner, timed, replay))
        if round_no % 2:
            raws.append(_raw_encode(mem.embedder, texts))
        logger.info("ingest throughput round %d: raw encode %.2f s, %s", round_no + 1, raws[-1],
                    ", ".join(f"{n} {r[-1][0]:.2f} s" for n, r in runs.items()))
    return {"raw_encode_seconds": raws, **runs}


def ingest_section(mem: GraphMemory, conv: Conversation, prefix: str,
                   warm_with: Conversation | None = None) -> dict[str, Any]:
    """Ingest throughput and graph write cost of state and associative memory on ``conv``.

    Before timing, ``warm_with`` (another conversation; None: the first :data:`WARM_TURNS` turns
    of ``conv``) goes through each memory, and as many raw rows through the raw UNWIND, in a
    scratch namespace (deleted): the timed runs then measure steady writing, not Neo4j compiling
    each query's plan and the JVM compiling its write path on their first use (a running
    service has done both). The memories' namespaces ``<prefix>-state`` / ``<prefix>-assoc`` are
    kept (the recall tenant).

    Returns:
        ``{"turns", "raw_encode": {"seconds", "turns_per_s", "rounds"}, "state": {...},
        "associative": {...}}``; per memory (of the median round of :func:`throughput_rounds`)
        ``seconds``, ``turns_per_s``, ``encode_seconds``, ``write_seconds``, ``read_seconds``,
        ``wait_seconds``, ``other_seconds``, ``db_calls``, ``nodes_created``, ``ingest_vs_encode``
        (the median of the per-round ratios), ``throughput_rounds`` (per-round seconds and
        ratios), ``write_rounds`` (:func:`write_rounds`), ``writes_vs_unwind`` (their median
        ratio) and ``ingest_writes_vs_unwind`` (the median round's write seconds over one raw
        UNWIND of its node count).
    """
    texts = [turn_text(t) for t in conv.turns]
    base_vecs = mem.embedder.embed_documents(texts)  # untimed: loads and warms the model
    warm = mem.scoped(f"{prefix}-warm")
    warm_conv = warm_with if warm_with is not None else truncate_conversation(conv, WARM_TURNS)
    for name in ("state", "associative"):  # warm the write path, as a running service has
        warm.memory(name).ingest([warm_conv])
        _raw_unwind(mem, f"{prefix}-warm-raw", _raw_rows(
            f"{prefix}-warm-raw", conv, texts, base_vecs, _nodes(mem, warm.namespace)))
        warm.delete_namespace()
    namespaces = {"state": f"{prefix}-state", "associative": f"{prefix}-assoc"}
    rounds = throughput_rounds(mem, conv, namespaces, texts)
    raws = rounds["raw_encode_seconds"]
    encode_s = statistics.median(raws)
    out: dict[str, Any] = {"turns": len(texts), "raw_encode": {
        "seconds": round(encode_s, 3), "turns_per_s": round(len(texts) / encode_s, 1),
        "rounds": [round(s, 3) for s in raws]}}
    for name, ns in namespaces.items():
        runs = rounds[name]
        ratios = [ratio(raw, run[0]) for raw, run in zip(raws, runs, strict=True)]
        middle = ratios.index(statistics.median_low(ratios))
        total, runner, timed_embedder, replay = runs[middle]
        nodes = _nodes(mem, ns)  # every round creates the same graph; ns holds the last one
        raw_ns = f"{prefix}-raw-{name[:5]}"
        unwind_s = _raw_unwind(mem, raw_ns, _raw_rows(raw_ns, conv, texts, base_vecs, nodes))
        writes = write_rounds(mem, name, conv, prefix, runs[-1][3], texts, base_vecs)
        out[name] = {
            "seconds": round(total, 3), "turns_per_s": round(len(texts) / total, 1),
            "encode_seconds": round(timed_embedder.seconds, 2), "texts_encoded": timed_embedder.texts,
            "write_seconds": round(runner.seconds["write"], 2),
            "read_seconds": round(runner.seconds["read"], 2),
            "wait_seconds": round(runner.seconds["wait"], 2),
            "other_seconds": round(total - timed_embedder.seconds - runner.seconds["write"]
                                   - runner.seconds["read"] - runner.seconds["wait"], 2),
            "db_calls": dict(runner.calls), "nodes_created": nodes,
            "raw_unwind_seconds_same_nodes": round(unwind_s, 3),
            "ingest_vs_encode": statistics.median(ratios),
            "throughput_rounds": {"seconds": [round(r[0], 3) for r in runs], "ratios": ratios},
            "ingest_writes_vs_unwind": ratio(runner.seconds["write"], unwind_s),
            "write_rounds": writes,
            "writes_vs_unwind": writes["median_ratio"],
        }
    return out
