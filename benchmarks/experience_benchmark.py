"""Experience memory (EMG) benchmark; prints one JSON object.

    NEO4J_URI=bolt://127.0.0.1:7687 python benchmarks/experience_benchmark.py \
        --explorations-train .graphmem/explorations/train.jsonl \
        --explorations-dev .graphmem/explorations/dev.jsonl

Measures (issue 9, items 9 and 10):
* edit-path length (FGW matching + Algorithm 3) against the exact graph edit distance
  (networkx ``optimize_edit_paths``, unit costs, with a time limit) on exploration/expert pairs
  small enough for the exact solver (prefixes of real pairs, <= --ged-max-nodes nodes each);
* FGW milliseconds per pair against graph size;
* build time of the memory for the whole train split plus its explorations;
* dev recall: share of dev tasks with a train task of the same task type in the top 5;
* correction hit rate: for each failed/partial dev exploration, its first wrong step (the
  observation under which it leaves the expert path) and whether the recalled memory (train
  tasks only) recommends the expert's action (same normalised type and object) under that same
  observation; baselines: the nearest train task's expert action sequence (and the top-3 ones).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np

from graphmem.experience import ExperienceMemory, recommended_decisions
from graphmem.experience.decision_graph import LabelVocabulary, action_sequence, build_decision_graph
from graphmem.experience.edit_path import graph_edit_path
from graphmem.experience.matching import fgw_match
from graphmem.experience.trajectories import read_scienceworld

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "scienceworld"


def exact_ged(g: nx.DiGraph, h: nx.DiGraph, timeout: float) -> tuple[float, bool]:
    """Best unit-cost GED found within ``timeout`` s and whether the search finished."""
    began = time.perf_counter()
    best = float("inf")
    for _, _, cost in nx.optimize_edit_paths(
            g, h, node_match=lambda a, b: a["label"] == b["label"],
            edge_match=lambda a, b: a["label"] == b["label"], timeout=timeout):
        best = cost
    return best, time.perf_counter() - began < timeout * 0.98


def _prefix(trajectory, n):
    return trajectory.model_copy(update={"steps": trajectory.steps[:n]})


def ged_benchmark(pairs, max_nodes: int, timeout: float, limit: int) -> dict:
    ratios, within, unfinished, rows = [], 0, 0, 0
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
            ratio = 1.0 if exact == 0 and ours == 0 else (ours / exact if exact else float("inf"))
            ratios.append(ratio)
            within += ratio <= 1.1
        if rows >= limit:
            break
    return {"pairs": rows, "exact_finished": len(ratios), "exact_timed_out": unfinished,
            "median_ratio": statistics.median(ratios) if ratios else None,
            "mean_ratio": round(statistics.fmean(ratios), 4) if ratios else None,
            "share_within_1_1": round(within / len(ratios), 4) if ratios else None,
            "max_nodes": max_nodes, "timeout_s": timeout}


def fgw_timing(trajectories, pairs_per_bucket: int = 15) -> dict:
    vocab = LabelVocabulary()
    graphs = [build_decision_graph(t, vocab) for t in trajectories]
    buckets: dict[str, list[float]] = {}
    rng = np.random.default_rng(0)
    for _ in range(400):
        i, j = rng.integers(0, len(graphs), 2)
        size = max(graphs[i].number_of_nodes(), graphs[j].number_of_nodes())
        name = "<=10" if size <= 10 else "11-20" if size <= 20 else "21-40" if size <= 40 else ">40"
        if len(buckets.setdefault(name, [])) >= pairs_per_bucket:
            continue
        buckets[name].append(fgw_match(graphs[i], graphs[j]).seconds * 1000)
    allms = [x for v in buckets.values() for x in v]
    return {"median_ms": round(statistics.median(allms), 2),
            "by_max_nodes": {k: {"pairs": len(v), "median_ms": round(statistics.median(v), 2)}
                             for k, v in sorted(buckets.items())}}


def _type_object(key: str) -> tuple[str, str]:
    head = key.split(" -> ")[0]
    kind, _, obj = head.partition(" ")
    return kind, obj


def first_wrong_step(exploration, expert):
    """(observation, expert action key) at the first step where the exploration leaves the expert
    path, or None when it never does."""
    ours, gold = action_sequence(exploration), action_sequence(expert)
    for i, (obs, key, _) in enumerate(ours):
        if i >= len(gold):
            return None
        if key != gold[i][1]:
            return obs, gold[i][1]
    return (ours[-1][0], gold[len(ours)][1]) if len(ours) < len(gold) else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--explorations-train", type=Path, required=True)
    parser.add_argument("--explorations-dev", type=Path, required=True)
    parser.add_argument("--namespace", default="bench-experience")
    parser.add_argument("--train-limit", type=int, default=None)
    parser.add_argument("--ged-max-nodes", type=int, default=9)
    parser.add_argument("--ged-timeout", type=float, default=3.0)
    parser.add_argument("--ged-pairs", type=int, default=60)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--t", type=int, default=2)
    args = parser.parse_args()

    from graphmem.config import GraphmemSettings, Neo4jSettings
    from graphmem.connect import open_runner
    from graphmem.embeddings import SentenceTransformerEmbedder

    train = read_scienceworld(DATA / "sciworld_gold_train.jsonl", limit=args.train_limit)
    dev = read_scienceworld(DATA / "sciworld_gold_dev.jsonl")
    train_keys = {t.task_id for t in train}
    explore_train = [t.model_copy(update={"kind": "exploration"})
                     for t in read_scienceworld(args.explorations_train, kind="exploration")
                     if t.task_id in train_keys]
    explore_dev = read_scienceworld(args.explorations_dev, kind="exploration")
    by_key = {t.task_id: t for t in train + dev}
    out: dict = {"train_tasks": len(train), "dev_tasks": len(dev),
                 "train_explorations": len(explore_train), "dev_explorations": len(explore_dev)}
    print("ged...", file=sys.stderr)
    pairs = [(e, by_key[e.task_id]) for e in explore_train + explore_dev if e.reward < 1.0]
    out["ged"] = ged_benchmark(pairs, args.ged_max_nodes, args.ged_timeout, args.ged_pairs)
    print("fgw timing...", file=sys.stderr)
    out["fgw"] = fgw_timing(train[:400])

    embedder = SentenceTransformerEmbedder()
    runner = open_runner(Neo4jSettings(), GraphmemSettings())
    runner.write("core/delete_namespace", namespace=args.namespace)
    mem = ExperienceMemory(runner=runner, embedder=embedder, namespace=args.namespace)
    print("build...", file=sys.stderr)
    report = mem.build(train, explore_train, k=args.k, tau=0.5)
    out["build"] = report.model_dump(exclude={"llm_usage"})
    out["build"]["counts"] = mem.counts()
    began = time.perf_counter()
    report2 = mem.build(train, explore_train, k=args.k, tau=0.5)
    out["rebuild"] = {"seconds": round(time.perf_counter() - began, 1),
                      "counts_unchanged": mem.counts() == out["build"]["counts"],
                      "tasks": report2.tasks}

    print("recall...", file=sys.stderr)
    hits, recall_ms = 0, []
    for task in dev:
        began = time.perf_counter()
        result = mem.recall(task.query, k=5, t=0, with_rules=False)
        recall_ms.append((time.perf_counter() - began) * 1000)
        hits += any(e.task.task_type == task.task_type for e in result.experiences)
    out["dev_same_type_hit_at_5"] = round(hits / len(dev), 4)
    out["recall_ms_median"] = round(statistics.median(recall_ms), 1)

    # correction hit rate (item 10)
    train_vectors = embedder.embed_documents([t.query for t in train])
    seqs = {t.task_id: {(o, _type_object(k)) for o, k, _ in action_sequence(t)} for t in train}
    emg_hits = emg_intra_hits = base1_hits = base3_hits = cases = 0
    for exploration in explore_dev:
        if exploration.reward >= 1.0:
            continue
        wrong = first_wrong_step(exploration, by_key[exploration.task_id])
        if wrong is None:
            continue
        obs, expert_key = wrong
        target = (obs, _type_object(expert_key))
        cases += 1
        result = mem.recall(exploration.query, k=args.k, t=args.t)
        recs = {(o, _type_object(k)) for o, k in recommended_decisions(result)}
        emg_hits += target in recs
        intra = result.model_copy(update={"experiences": [e.model_copy(update={"cross": []})
                                                          for e in result.experiences]})
        emg_intra_hits += target in {(o, _type_object(k)) for o, k in recommended_decisions(intra)}
        sims = train_vectors @ embedder.embed_query(exploration.query)
        order = np.argsort(-sims)
        base1_hits += target in seqs[train[order[0]].task_id]
        base3_hits += any(target in seqs[train[i].task_id] for i in order[:args.k])
    out["correction"] = {
        "cases": cases, "k": args.k, "t": args.t,
        "emg_hit_rate": round(emg_hits / cases, 4) if cases else None,
        "emg_intra_only_hit_rate": round(emg_intra_hits / cases, 4) if cases else None,
        "baseline_nearest_expert_hit_rate": round(base1_hits / cases, 4) if cases else None,
        "baseline_top_k_experts_hit_rate": round(base3_hits / cases, 4) if cases else None,
    }
    runner.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
