"""Replay harness: stream a real labelled task set through the insight memory.

For each task, in file order: recall insights (eqs. 2–10), then call ``feedback`` with the
outcome the DATASET RECORDED as Ψ, so the graph controller keeps, archives, revises or adds.
Outcomes are replayed, not produced by an agent reading the insights: the numbers describe how the
memory evolves and what it retrieves, not task accuracy.

Reported: decisions (ADD / KEEP / ARCHIVE / REVISE), the share of retrieved insights whose Ω+ holds
a task of the same kind as the current one (full Ω+, and only the Ω+ ∩ Q̃ˢ that chose it), and —
with :func:`replay_sweep` — how λ and the operation set change that.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field

from graphmem.embeddings import validate_vectors
from graphmem.errors import InvalidInputError
from graphmem.insight.datasets import ReplayTask, load_tasks, outcome_source
from graphmem.insight.memory import InsightMemory
from graphmem.insight.models import OperationSet
from graphmem.llm import LLMUsage
from graphmem.memory import check_count, check_number

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

REPLAY_NOTE = ("outcomes are replayed from the dataset's recorded labels/scores, not produced by "
               "an agent reading the recalled insights")


class KindShare(BaseModel):
    """Retrieved insights for tasks of one kind, and how many have a same-kind task in Ω+."""

    tasks: int = 0
    retrieved: int = 0
    same_kind: int = 0
    same_kind_in_subgraph: int = 0


class ReplayReport(BaseModel):
    """Outcome of one replay run (one namespace, one λ, one operation set)."""

    dataset: str
    note: str = REPLAY_NOTE
    outcome_source: str
    namespace: str
    tasks: int
    resolved: int
    failed: int
    controller: str
    operation_set: str
    k: int = Field(description="B: insights recalled per task (eq. 10)")
    query_k: int = Field(description="similar queries seeding each recall (eq. 2)")
    lam: float = Field(serialization_alias="lambda")
    added: int = 0
    kept: int = 0
    archived: int = 0
    revised: int = 0
    tasks_with_retrieval: int = 0
    retrieved: int = 0
    same_kind_share: float | None = None
    same_kind_share_in_subgraph: float | None = None
    by_kind: dict[str, KindShare] = Field(default_factory=dict)
    graph: dict[str, Any] = Field(default_factory=dict)
    seconds: float = 0.0
    llm_usage: LLMUsage = Field(default_factory=LLMUsage)


def replay(
    memory: InsightMemory,
    dataset: str | Path,
    limit: int | None = 60,
    *,
    k: int = 3,
    query_k: int = 5,
    lam: float = 1.0,
    operation_set: OperationSet | str | None = None,
    tasks: Sequence[ReplayTask] | None = None,
    embeddings: np.ndarray | None = None,
    data_root: Path | None = None,
    progress: bool = False,
) -> ReplayReport:
    """Replay ``limit`` tasks of ``dataset`` into ``memory`` (use a fresh namespace).

    Args:
        memory: the insight memory to evolve (its controller: LLM if it has one, else heuristic).
        dataset: ``"fever"``, ``"scienceworld"`` or a JSONL path (see
            :func:`graphmem.insight.datasets.load_tasks`).
        limit: number of tasks, in file order.
        k, query_k, lam: retrieval parameters: B insights (eq. 10), similar queries (eq. 2),
            λ (eq. 8).
        operation_set: the controller's operations (default: the memory's).
        tasks, embeddings: pre-loaded tasks and their ``(n, d)`` float32 query vectors (a sweep
            embeds once); computed when None.
        progress: show graphmem's progress (a bar in a terminal, periodic lines when piped).
    Returns:
        The report (decision counts, same-kind shares, final graph sizes, seconds).
    Raises:
        InvalidInputError, InputFormatError, ConfigurationError (dataset); ControllerError (LLM).
    """
    began = time.monotonic()
    check_count("k", k)
    check_count("query_k", query_k)
    lam = check_number("lam", lam, low=0.0)
    if limit is not None:
        check_count("limit", limit, high=10_000_000)
    items = list(tasks) if tasks is not None else load_tasks(dataset, limit, data_root)
    if tasks is not None and limit is not None:
        items = items[:limit]
    if embeddings is not None:
        vectors = validate_vectors(embeddings, memory.embedder.dimension, "replay embeddings")
        if len(vectors) < len(items):
            raise InvalidInputError(f"replay embeddings: {len(vectors)} rows for {len(items)} "
                                    f"tasks")
        vectors = vectors[: len(items)]
    else:
        vectors = memory.embedder.embed_documents([t.query for t in items])
    ops = OperationSet(operation_set or memory.operation_set)
    kinds: dict[str, str] = {}
    decisions: Counter[str] = Counter()
    by_kind: dict[str, KindShare] = defaultdict(KindShare)
    usage = LLMUsage()
    with_retrieval = retrieved_total = same = same_sub = 0
    iterator: Any = zip(items, vectors)
    if progress:
        iterator = _with_progress(iterator, len(items), str(dataset))
    for task, vector in iterator:
        recalled = memory.recall(task.query, k=k, query_k=query_k, lam=lam,
                                 embedding=vector).items
        share = by_kind[task.kind]
        share.tasks += 1
        if recalled:
            with_retrieval += 1
            full = {s.id: s for s in memory.get_insights([r.id for r in recalled])}
            for r in recalled:
                omega = full[r.id].supporting_query_ids if r.id in full else []
                hit = any(kinds.get(q) == task.kind for q in omega)
                hit_sub = any(kinds.get(q) == task.kind for q in r.supporting_query_ids)
                retrieved_total += 1
                same += hit
                same_sub += hit_sub
                share.retrieved += 1
                share.same_kind += hit
                share.same_kind_in_subgraph += hit_sub
        result = memory.feedback(task.query, task.status, task.trajectory,
                                 [r.id for r in recalled], task_id=task.task_id,
                                 operation_set=ops, embedding=vector)
        kinds[result.query_id] = task.kind
        usage.merge(result.llm_usage)
        for d in result.decisions:
            decisions[d.operation] += 1
    statuses = Counter(t.status for t in items)
    return ReplayReport(
        dataset=str(dataset), outcome_source=outcome_source(dataset), namespace=memory.namespace,
        tasks=len(items), resolved=statuses["resolved"], failed=statuses["failed"],
        controller=memory.controller, operation_set=ops.value, k=k, query_k=query_k, lam=lam,
        added=decisions["ADD"], kept=decisions["KEEP"], archived=decisions["ARCHIVE"],
        revised=decisions["REVISE"], tasks_with_retrieval=with_retrieval,
        retrieved=retrieved_total,
        same_kind_share=round(same / retrieved_total, 4) if retrieved_total else None,
        same_kind_share_in_subgraph=round(same_sub / retrieved_total, 4) if retrieved_total else None,
        by_kind=dict(sorted(by_kind.items())), graph=memory.graph_summary(),
        seconds=round(time.monotonic() - began, 2), llm_usage=usage,
    )


def replay_sweep(
    mem: GraphMemory,
    dataset: str | Path,
    limit: int | None = 60,
    *,
    lambdas: Sequence[float] = (0.0, 1.0, 2.0),
    operation_sets: Sequence[OperationSet | str] = (OperationSet.ALL,),
    k: int = 3,
    query_k: int = 5,
    data_root: Path | None = None,
    keep: bool = False,
    progress: bool = False,
) -> list[ReplayReport]:
    """One :func:`replay` per (operation set, λ), each in its own fresh namespace
    ``replay-<uuid>`` through ``mem.scoped(...)`` (``mem`` is the
    :class:`~graphmem.facade.GraphMemory`; its ``llm`` drives the controller), deleted afterwards
    unless ``keep``. Tasks are loaded and embedded once. ``k`` = B insights per task (eq. 10),
    ``query_k`` similar queries (eq. 2).

    Raises:
        InvalidInputError: ``k``, ``query_k``, ``limit`` or a λ out of range (before any work).
    """
    check_count("k", k)
    check_count("query_k", query_k)
    lambdas = [check_number("lam", lam, low=0.0) for lam in lambdas]
    if limit is not None:
        check_count("limit", limit, high=10_000_000)
    items = load_tasks(dataset, limit, data_root)
    vectors = mem.embedder.embed_documents([t.query for t in items])
    reports = []
    for ops in operation_sets:
        for lam in lambdas:
            scoped = mem.scoped(f"replay-{uuid.uuid4().hex[:10]}")
            try:
                reports.append(replay(scoped.insight, dataset, None, k=k, query_k=query_k, lam=lam,
                                      operation_set=ops, tasks=items, embeddings=vectors,
                                      progress=progress))
            finally:
                if not keep:
                    scoped.delete_namespace()
    return reports


def _with_progress(pairs: Any, total: int, dataset: str) -> Any:
    """``pairs`` with :func:`graphmem.progress.track` counting each finished task."""
    from graphmem.progress import track

    with track(f"replay {dataset}", unit="task", total=total) as tick:
        for pair in pairs:
            yield pair
            tick(1)
