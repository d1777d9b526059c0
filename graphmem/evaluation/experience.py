"""Experience memory (EMG, seed 001) evaluation, shared by ``graphmem eval`` and
``benchmarks/experience_benchmark.py``:

- :func:`ged_benchmark` — edit-path length (FGW matching + Algorithm 3) against the exact graph
  edit distance (networkx ``optimize_edit_paths``, unit costs, time-limited) on exploration /
  expert prefixes small enough for the exact solver;
- :func:`fgw_timing` — FGW milliseconds per pair by graph size;
- :func:`same_type_hit_at_k` — share of dev tasks with a train task of the same task type among
  the top ``k`` recalled experiences;
- :func:`correction_hit_rate` — for each failed/partial dev exploration, whether the recalled
  memory recommends the expert's action under the observation where the exploration first left
  the expert path, against nearest-expert baselines.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import networkx as nx
import numpy as np

from graphmem.experience import ExperienceMemory, recommended_decisions
from graphmem.experience.decision_graph import LabelVocabulary, action_sequence, build_decision_graph
from graphmem.experience.edit_path import graph_edit_path
from graphmem.experience.matching import fgw_match
from graphmem.experience.trajectories import Trajectory

logger = logging.getLogger(__name__)


def exact_ged(g: nx.DiGraph, h: nx.DiGraph, timeout: float) -> tuple[float, bool]:
    """Best unit-cost GED (labels must match) found within ``timeout`` seconds, and whether the
    search finished (networkx ``optimize_edit_paths``)."""
    began = time.perf_counter()
    best = float("inf")
    for _, _, cost in nx.optimize_edit_paths(
            g, h, node_match=lambda a, b: a["label"] == b["label"],
            edge_match=lambda a, b: a["label"] == b["label"], timeout=timeout):
        best = cost
    return best, time.perf_counter() - began < timeout * 0.98


def _prefix(trajectory: Trajectory, n: int) -> Trajectory:
    return trajectory.model_copy(update={"steps": trajectory.steps[:n]})


def ged_benchmark(pairs: Sequence[tuple[Trajectory, Trajectory]], max_nodes: int, timeout: float,
                  limit: int) -> dict[str, Any]:
    """Edit-path length / exact GED over prefixes (4..12 steps) of (exploration, expert) pairs.

    Returns:
        ``pairs`` compared, ``exact_finished``, ``exact_timed_out``, ``median_ratio``,
        ``mean_ratio``, ``share_within_1_1`` (ratio ≤ 1.1), and ``points`` [(exact, ours)] for plots.
    """
    ratios: list[float] = []
    points: list[tuple[float, int]] = []
    within = unfinished = rows = 0
    vocab = LabelVocabulary()
    for exploration, expert in pairs:
        for n in (4, 6, 8, 10, 12):
            g = build_decision_graph(_prefix(exploration, n), vocab)
            h = build_decision_graph(_prefix(expert, n), vocab)
            if max(g.number_of_nodes(), h.number_of_nodes()) > max_nodes:
                break
            ours = len(graph_edit_path(g, h, fgw_match(g, h).mapping))
            exact, finished = exact_ged(g, h, timeout)
            rows += 1
            if not finished:
                unfinished += 1
                continue
            points.append((exact, ours))
            r = 1.0 if exact == 0 and ours == 0 else (ours / exact if exact else float("inf"))
            ratios.append(r)
            within += r <= 1.1
        if rows >= limit:
            break
    return {"pairs": rows, "exact_finished": len(ratios), "exact_timed_out": unfinished,
            "median_ratio": statistics.median(ratios) if ratios else None,
            "mean_ratio": round(statistics.fmean(ratios), 4) if ratios else None,
            "share_within_1_1": round(within / len(ratios), 4) if ratios else None,
            "max_nodes": max_nodes, "timeout_s": timeout, "points": points}


def fgw_timing(trajectories: Sequence[Trajectory], pairs_per_bucket: int = 15, seed: int = 0,
               draws: int = 400) -> dict[str, Any]:
    """Median FGW matching milliseconds over random pairs, bucketed by the larger graph's size."""
    vocab = LabelVocabulary()
    graphs = [build_decision_graph(t, vocab) for t in trajectories]
    buckets: dict[str, list[float]] = {}
    rng = np.random.default_rng(seed)
    for _ in range(draws):
        i, j = rng.integers(0, len(graphs), 2)
        size = max(graphs[i].number_of_nodes(), graphs[j].number_of_nodes())
        name = "<=10" if size <= 10 else "11-20" if size <= 20 else "21-40" if size <= 40 else ">40"
        if len(buckets.setdefault(name, [])) >= pairs_per_bucket:
            continue
        buckets[name].append(fgw_match(graphs[i], graphs[j]).seconds * 1000)
    allms = [x for v in buckets.values() for x in v]
    return {"median_ms": round(statistics.median(allms), 2) if allms else None,
            "by_max_nodes": {k: {"pairs": len(v), "median_ms": round(statistics.median(v), 2)}
                             for k, v in sorted(buckets.items()) if v}}


def type_object(key: str) -> tuple[str, str]:
    """``"focus on thermometer -> ..."`` -> ``("focus", "on thermometer")`` (verb, object)."""
    head = key.split(" -> ")[0]
    kind, _, obj = head.partition(" ")
    return kind, obj


def first_wrong_step(exploration: Trajectory, expert: Trajectory) -> tuple[str, str] | None:
    """(observation, expert action key) at the first step where the exploration leaves the expert
    path, or None when it never does."""
    ours, gold = action_sequence(exploration), action_sequence(expert)
    for i, (obs, key, _) in enumerate(ours):
        if i >= len(gold):
            return None
        if key != gold[i][1]:
            return obs, gold[i][1]
    return (ours[-1][0], gold[len(ours)][1]) if len(ours) < len(gold) else None


def same_type_hit_at_k(memory: ExperienceMemory, dev: Sequence[Trajectory], k: int = 5) -> dict[str, Any]:
    """Share of ``dev`` tasks whose top-``k`` recalled experiences hold a task of the same task
    type (EMG retrieval, eq. 7, without rules), overall and per task type, plus recall ms."""
    hits = 0
    per_type: dict[str, list[int]] = defaultdict(list)
    recall_ms: list[float] = []
    for task in dev:
        began = time.perf_counter()
        result = memory.recall(task.query, k=k, t=0, with_rules=False)
        recall_ms.append((time.perf_counter() - began) * 1000)
        hit = any(item.task_type == task.task_type for item in result.items)
        hits += hit
        per_type[str(task.task_type)].append(int(hit))
    return {f"hit@{k}": round(hits / len(dev), 4) if dev else None, "dev_tasks": len(dev),
            "by_task_type": {t: round(sum(v) / len(v), 4) for t, v in sorted(per_type.items())},
            "recall_ms_median": round(statistics.median(recall_ms), 1) if recall_ms else None}


def correction_hit_rate(memory: ExperienceMemory, embedder: Any, train: Sequence[Trajectory],
                        explore_dev: Sequence[Trajectory], by_key: dict[str, Trajectory],
                        k: int = 3, t: int = 2) -> dict[str, Any]:
    """EMG correction hit rate against the nearest-expert baselines (see module docstring)."""
    train_vectors = embedder.embed_documents([x.query for x in train])
    seqs = {x.task_id: {(o, type_object(a)) for o, a, _ in action_sequence(x)} for x in train}
    emg = emg_intra = base1 = base3 = cases = 0
    for exploration in explore_dev:
        if exploration.reward >= 1.0 or exploration.task_id not in by_key:
            continue
        wrong = first_wrong_step(exploration, by_key[exploration.task_id])
        if wrong is None:
            continue
        obs, expert_key = wrong
        target = (obs, type_object(expert_key))
        cases += 1
        result = memory.recall(exploration.query, k=k, t=t)
        emg += target in {(o, type_object(a)) for o, a in recommended_decisions(result)}
        intra = result.model_copy(update={"items": [item.model_copy(update={"cross": []})
                                                    for item in result.items]})
        emg_intra += target in {(o, type_object(a)) for o, a in recommended_decisions(intra)}
        order = np.argsort(-(train_vectors @ embedder.embed_query(exploration.query)))
        base1 += target in seqs[train[order[0]].task_id]
        base3 += any(target in seqs[train[i].task_id] for i in order[:k])

    def share(n: int) -> float | None:
        return round(n / cases, 4) if cases else None

    return {"cases": cases, "k": k, "t": t, "emg_hit_rate": share(emg),
            "emg_intra_only_hit_rate": share(emg_intra),
            "baseline_nearest_expert_hit_rate": share(base1),
            "baseline_top_k_experts_hit_rate": share(base3)}


def stratified(trajectories: Sequence[Trajectory], per_type: int) -> list[Trajectory]:
    """The first ``per_type`` trajectories of each task type, in file order."""
    seen: dict[str, int] = defaultdict(int)
    out = []
    for x in trajectories:
        if seen[str(x.task_type)] < per_type:
            seen[str(x.task_type)] += 1
            out.append(x)
    return out
