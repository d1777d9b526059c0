"""Concurrent ingest: N writers at once, their throughput, and proof that no update is lost.

**Writers** are threads. Each has its own facade (``mem.scoped(namespace)``, wrapped in the
benchmark's timing proxies); all of them share ``mem``'s runner, i.e. ONE driver (its
connection pool) and one bookmark manager, and one embedding model, whose encode calls are
serialised (:class:`graphmem.embeddings.SentenceTransformerEmbedder`: the fast tokenizer is not
thread-safe). Writers are released together by a barrier; wall time runs from the release to
the last writer's end, so turns/s = turns of the input / wall seconds.

**Layouts**, for state and associative memory (heuristic path), on LoCoMo turns:

- ``separate_namespaces``: the input's units (each LoCoMo session as its own conversation
  ``<sample_id>-session_<n>``, :func:`~graphmem.evaluation.concurrency_plan.session_units`) dealt
  round-robin into P = max(writers) namespaces; writer w ingests the namespaces p with
  p mod N = w, one after the other (``memory.ingest``);
- ``same_namespace``: every unit into one namespace; writers take the next unit from a shared
  queue, so different conversations are written at once (associative cues are shared by them);
- ``same_conversation``: each input conversation cut into message batches (at most
  ``batch_size`` turns, never across a session) added through ``mem.add`` (message id = the
  ``dia_id``, timestamp = the session's); writers take the next batch from a shared queue, so
  consecutive batches of ONE conversation are written at once.

**Lost updates.** The single-writer run (N = 1) of each layout is the reference. After every
run the graph of its namespaces (node counts per label, relationship counts per type, repeated
relationships, the chain checks of ``cypher/bench/check_*``) is compared with the reference:
``lost_updates`` = integrity violations + count differences
(:func:`~graphmem.evaluation.concurrency_plan.compare`; counts that legitimately follow the
arrival order of one conversation's batches are reported apart). Deadlocks and transient errors
are retried by the driver's managed transactions; ``retries`` are the runner's counts
(:meth:`graphmem.graph.runner.QueryRunner.retry_stats`) over the run.
"""

from __future__ import annotations

import logging
import queue
import statistics
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from graphmem.conversations import Conversation
from graphmem.errors import InvalidInputError
from graphmem.evaluation import concurrency_plan as plan
from graphmem.evaluation.timing import TimedEmbedder, TimedRunner
from graphmem.facade import GraphMemory
from graphmem.memory import memory_spec

logger = logging.getLogger(__name__)

MODE = ("threads; one scoped GraphMemory facade per writer on the shared runner: one driver "
        "(connection pool) and one bookmark manager; one embedding model, encode calls "
        "serialised by its lock")
#: Namespace part per layout.
_SHORT = {"separate_namespaces": "sep", "same_namespace": "one", "same_conversation": "conv"}
#: Each memory's relationship count query (relationships starting at its nodes).
_REL_QUERY = {"state": "bench/count_state_relationships",
              "associative": "bench/count_associative_relationships"}


def graph_of(facade: GraphMemory, memory: str) -> dict[str, Any]:
    """One namespace's graph of ``memory``: ``{"nodes": {label: n}, "relationships":
    {type: n}, "checks": {check: n}}`` (checks: :data:`~graphmem.evaluation.concurrency_plan.VIOLATIONS`
    plus context such as ``conversations``)."""
    mem = facade.memory(memory)
    labels = memory_spec(memory).labels
    nodes = {k: int(v) for k, v in mem.counts().items() if k in labels}
    rows = facade.query(_REL_QUERY[memory])
    checks: dict[str, int] = {"repeated_relationships": sum(int(r["repeated"]) for r in rows)}
    if memory == "state":
        checks.update(mem.check())
        checks.update(facade.query("bench/check_state_chains")[0])
    else:
        timeline = facade.query("bench/check_episode_timeline")[0]
        checks.update(timeline)
        checks["extra_heads"] = int(timeline["timeline_heads"]) - int(timeline["conversations"])
    return {"nodes": nodes, "relationships": {r["type"]: int(r["relationships"]) for r in rows},
            "checks": {k: int(v) for k, v in checks.items()}}


def _retry_stats(mem: GraphMemory) -> dict[str, Any]:
    stats = getattr(mem.runner, "retry_stats", None)
    return stats() if callable(stats) else {"retries": 0, "by_code": {}}


def _codes_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


class _Writers:
    """N writer threads released together; each runs ``job(writer index, facade)``."""

    def __init__(self, mem: GraphMemory, n: int, namespace_of: Callable[[int], str]):
        self.n = n
        self.timers: list[dict[str, Any]] = [{} for _ in range(n)]
        self.facades = []
        for w in range(n):
            timers = self.timers[w]
            self.facades.append(mem.scoped(
                namespace_of(w),
                wrap_runner=lambda inner, t=timers: t.setdefault("runner", TimedRunner(inner)),
                wrap_embedder=lambda inner, t=timers: t.setdefault("embedder", TimedEmbedder(inner))))
        self.errors: list[str] = []
        self._lock = threading.Lock()

    def run(self, job: Callable[[int, GraphMemory], None]) -> float:
        """Run the writers; wall seconds from the barrier's release to the last writer's end."""
        began: list[float] = []
        barrier = threading.Barrier(self.n, action=lambda: began.append(time.perf_counter()))

        def body(w: int) -> None:
            barrier.wait()
            try:
                job(w, self.facades[w])
            except Exception as exc:  # reported in the section, never swallowed silently
                logger.exception("writer %d failed", w)
                with self._lock:
                    self.errors.append(f"writer {w}: {type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=body, args=(w,), name=f"graphmem-writer-{w}")
                   for w in range(self.n)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return time.perf_counter() - began[0]

    def seconds(self) -> dict[str, float]:
        """Summed wall seconds of the writers in encode calls and database reads / writes
        (waits for the encode lock and for database locks included)."""
        return {"encode": round(sum(t["embedder"].seconds for t in self.timers), 2),
                "db_read": round(sum(t["runner"].seconds["read"] for t in self.timers), 2),
                "db_write": round(sum(t["runner"].seconds["write"] for t in self.timers), 2)}


def _queue_of(items: Sequence[Any]) -> queue.SimpleQueue:
    q: queue.SimpleQueue = queue.SimpleQueue()
    for item in items:
        q.put(item)
    return q


def _next(q: queue.SimpleQueue) -> Any:
    try:
        return q.get_nowait()
    except queue.Empty:
        return None


def run_layout(mem: GraphMemory, memory: str, layout: str, n: int, units: list[Conversation],
               batches: list[plan.Batch], parts: int, prefix: str) -> dict[str, Any]:
    """One run of ``layout`` with ``n`` writers into fresh namespaces under ``prefix``.

    Returns:
        ``{"seconds", "retries", "retry_codes", "errors", "writer_seconds", "graph"}``; the
        namespaces are deleted afterwards.
    """
    if layout == "separate_namespaces":
        namespaces = [f"{prefix}-p{p}" for p in range(parts)]
        owned = plan.deal(list(range(parts)), n)          # writer w -> its namespaces
        groups = plan.deal(units, parts)                  # namespace p -> its units
        writers = _Writers(mem, n, lambda w: namespaces[owned[w][0]] if owned[w] else prefix)

        def job(w: int, facade: GraphMemory) -> None:
            for p in owned[w]:
                facade.scoped(namespaces[p]).memory(memory).ingest(groups[p])
    elif layout == "same_namespace":
        namespaces = [prefix]
        writers = _Writers(mem, n, lambda w: prefix)
        work = _queue_of(units)

        def job(w: int, facade: GraphMemory) -> None:
            while (unit := _next(work)) is not None:
                facade.memory(memory).ingest([unit])
    else:
        namespaces = [prefix]
        writers = _Writers(mem, n, lambda w: prefix)
        work = _queue_of(batches)

        def job(w: int, facade: GraphMemory) -> None:
            while (batch := _next(work)) is not None:
                facade.add(batch.messages, conversation_id=batch.conversation_id,
                           session_id=batch.session, memories=(memory,))
    before = _retry_stats(mem)
    try:
        wall = writers.run(job)
        after = _retry_stats(mem)
        graph = plan.merge_graphs([graph_of(mem.scoped(ns), memory) for ns in namespaces])
    finally:
        for ns in namespaces:
            mem.scoped(ns).delete_namespace()
    return {"seconds": round(wall, 3), "retries": after["retries"] - before["retries"],
            "retry_codes": _codes_delta(before["by_code"], after["by_code"]),
            "errors": writers.errors, "writer_seconds": writers.seconds(), "graph": graph}


def _warm_up(mem: GraphMemory, memory: str, unit: Conversation, prefix: str) -> None:
    """One small ingest before timing (model, query plans, page cache), then deleted."""
    scratch = mem.scoped(f"{prefix}-warmup")
    try:
        scratch.memory(memory).ingest([unit.model_copy(update={"turns": unit.turns[:8]})])
    finally:
        scratch.delete_namespace()


def concurrency_section(mem: GraphMemory, conversations: Sequence[Conversation],
                        writers: Sequence[int] = (1, 2, 4), *,
                        memories: Sequence[str] = ("state", "associative"),
                        layouts: Sequence[str] = plan.LAYOUTS, batch_size: int = 8,
                        repeats: int = 1, prefix: str | None = None,
                        progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Concurrent ingest throughput and lost updates (see the module docstring), JSON-ready.

    Args:
        mem: the facade; every namespace is ``mem.scoped(...)`` of it, deleted after its run.
        conversations: LoCoMo conversations (e.g. the bundled sample, possibly truncated).
        writers: writer counts N; 1 (the reference) is always run, first.
        memories: ``"state"`` and/or ``"associative"``.
        layouts: a subset of :data:`~graphmem.evaluation.concurrency_plan.LAYOUTS`.
        batch_size: turns per ``mem.add`` call in the ``same_conversation`` layout.
        repeats: runs per (layout, N), in rounds of N = 1, 2, 4 (so a change of load on the
            machine spreads over every N); turns/s is their median, with the range.
        prefix: namespace prefix (default ``conc-<random>``).
        progress: called with one line per run.
    Returns:
        ``{"mode", "writers", "input", "memories": {memory: {layout: {N: run}}}, "lost_updates",
        "retries", "errors", "summary"}``; a run holds ``turns_per_s`` (median), ``turns_per_s_runs``,
        ``speedup`` (vs N = 1), ``seconds``, ``retries``, ``retry_codes``, ``writer_seconds``,
        ``lost_updates`` (max over repeats), ``differences``, ``order_dependent_differences``,
        ``violations``, ``nodes``, ``relationships``, ``errors``.
    Raises:
        InvalidInputError: bad writers, batch_size, repeats, an unknown memory or layout, or no
            turns.
    """
    counts = plan.check_writers(writers)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InvalidInputError(f"repeats must be a positive integer, got {repeats!r}")
    for name in memories:
        if name not in plan.VIOLATIONS:
            raise InvalidInputError(f"memory {name!r} is not benchmarked here; use one of "
                                         f"{', '.join(plan.VIOLATIONS)}")
    for layout in layouts:
        if layout not in plan.LAYOUTS:
            raise InvalidInputError(f"unknown layout {layout!r}; use {', '.join(plan.LAYOUTS)}")
    units = plan.session_units(conversations)
    batches = plan.message_batches(conversations, batch_size)
    turns = sum(len(u.turns) for u in units)
    parts = max(counts)
    prefix = prefix or f"conc-{uuid.uuid4().hex[:8]}"
    say = progress or (lambda line: None)
    out: dict[str, Any] = {
        "mode": MODE, "writers": counts, "repeats": repeats,
        "input": {"conversations": [c.id for c in conversations], "turns": turns,
                  "units": len(units), "namespaces_separate": parts, "batch_size": batch_size,
                  "batches": len(batches)},
        "memories": {}, "lost_updates": 0, "retries": 0, "errors": 0}
    for memory in memories:
        _warm_up(mem, memory, units[0], prefix)
        per_memory: dict[str, Any] = {}
        for layout in layouts:
            reference: dict[str, Any] | None = None
            runs: dict[int, list[dict[str, Any]]] = {n: [] for n in counts}
            for r in range(repeats):       # N = 1, 2, 4, then again: load drifts spread over N
                for n in counts:
                    ns = f"{prefix}-{memory[:5]}-{_SHORT[layout]}-n{n}-r{r}"
                    got = run_layout(mem, memory, layout, n, units, batches, parts, ns)
                    reference = reference or got["graph"]
                    got["check"] = plan.compare(memory, layout, reference, got["graph"])
                    runs[n].append(got)
                    say(f"{memory} {layout} N={n} run {r + 1}/{repeats}: {got['seconds']} s, "
                        f"{round(turns / got['seconds'], 1)} turns/s, lost updates "
                        f"{got['check']['lost_updates']}, retries {got['retries']}")
            rows = {str(n): _summarise(runs[n], turns) for n in counts}
            single = rows["1"]["turns_per_s"]
            for row in rows.values():
                row["speedup"] = plan.speedup(row["turns_per_s"], single)
                out["lost_updates"] += row["lost_updates"]
                out["retries"] += row["retries"]
                out["errors"] += len(row["errors"])
            per_memory[layout] = rows
        out["memories"][memory] = per_memory
    out["summary"] = summary_lines(out)
    return out


def _summarise(runs: list[dict[str, Any]], turns: int) -> dict[str, Any]:
    rates = [round(turns / r["seconds"], 1) for r in runs]
    last = runs[-1]
    return {
        "turns_per_s": round(statistics.median(rates), 1), "turns_per_s_runs": rates,
        "seconds": [r["seconds"] for r in runs],
        "retries": sum(r["retries"] for r in runs),
        "retry_codes": {k: sum(r["retry_codes"].get(k, 0) for r in runs)
                        for k in sorted({k for r in runs for k in r["retry_codes"]})},
        "writer_seconds": last["writer_seconds"],
        "lost_updates": max(r["check"]["lost_updates"] for r in runs),
        "differences": [r["check"]["differences"] for r in runs if r["check"]["differences"]],
        "order_dependent_differences": [r["check"]["order_dependent_differences"] for r in runs
                                        if r["check"]["order_dependent_differences"]],
        "violations": last["check"]["violations"],
        "nodes": last["graph"]["nodes"], "relationships": last["graph"]["relationships"],
        "errors": [e for r in runs for e in r["errors"]],
    }


def concurrency_markdown(section: dict[str, Any]) -> str:
    """The section as Markdown: one table row per memory, layout and N (turns/s median and
    range, speed-up, retries, lost updates), then the differences from the single-writer run."""
    from graphmem.evaluation.report import md_table

    rows, notes = [], []
    for memory, layouts in section["memories"].items():
        for layout, runs in layouts.items():
            for n, row in runs.items():
                rates = row["turns_per_s_runs"]
                rows.append([memory, layout, n, row["turns_per_s"],
                             f"{min(rates)}–{max(rates)}", row["speedup"], row["retries"],
                             row["lost_updates"]])
                for kind in ("differences", "order_dependent_differences"):
                    for diff in row[kind]:
                        notes.append(f"- {memory} {layout} N={n} {kind.replace('_', ' ')}: "
                                     + ", ".join(f"{k} {v['single']} → {v['concurrent']}"
                                                 for k, v in diff.items()))
                bad = {k: v for k, v in row["violations"].items() if v}
                if bad:
                    notes.append(f"- {memory} {layout} N={n} violations: {bad}")
    inp = section["input"]
    head = (f"{inp['turns']} turns of {', '.join(inp['conversations'])}; writers: "
            f"{section['mode']}; {section['repeats']} run(s) per row.")
    table = md_table(["memory", "layout", "N", "turns/s", "range", "speed-up", "retries",
                      "lost updates"], rows)
    return "\n".join([head, "", table, "", *notes, ""])


def summary_lines(section: dict[str, Any]) -> list[str]:
    """One line per memory and layout: turns/s and speed-up per N, lost updates, retries."""
    lines = []
    for memory, layouts in section["memories"].items():
        for layout, rows in layouts.items():
            lines.append(f"{memory} {layout}: " + "; ".join(
                f"N={n} {row['turns_per_s']} turns/s (x{row['speedup']}), lost {row['lost_updates']}"
                f", retries {row['retries']}" for n, row in rows.items()))
    lines.append(f"lost updates {section['lost_updates']}, retries {section['retries']}, "
                 f"writer errors {section['errors']}")
    return lines
