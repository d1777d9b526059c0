"""Experience memory (EMG) benchmark; prints one JSON object.

    NEO4J_URI=bolt://127.0.0.1:7687 python benchmarks/experience_benchmark.py \
        --explorations-train .graphmem/explorations/train.jsonl \
        --explorations-dev .graphmem/explorations/dev.jsonl

A thin wrapper over :mod:`graphmem.evaluation.experience` (shared with ``graphmem eval``).
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
import sys
import time
from pathlib import Path

from graphmem.datasets import resolve
from graphmem.evaluation.experience import (
    correction_hit_rate,
    fgw_timing,
    ged_benchmark,
    same_type_hit_at_k,
)
from graphmem.experience.trajectories import read_scienceworld


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--explorations-train", type=Path, required=True)
    parser.add_argument("--explorations-dev", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=None,
                        help="folder with the full ScienceWorld gold files (scienceworld/); "
                             "default GRAPHMEM_DATA (required: the benchmark never runs on samples)")
    parser.add_argument("--namespace", default="bench-experience")
    parser.add_argument("--train-limit", type=int, default=None)
    parser.add_argument("--ged-max-nodes", type=int, default=9)
    parser.add_argument("--ged-timeout", type=float, default=3.0)
    parser.add_argument("--ged-pairs", type=int, default=60)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--t", type=int, default=2)
    args = parser.parse_args()

    from graphmem import GraphMemory

    train = read_scienceworld(resolve("scienceworld_train", args.data, full=True),
                              limit=args.train_limit)
    dev = read_scienceworld(resolve("scienceworld_dev", args.data, full=True))
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
    out["ged"].pop("points")
    print("fgw timing...", file=sys.stderr)
    out["fgw"] = fgw_timing(train[:400])

    facade = GraphMemory.from_settings(namespace=args.namespace, migrate=True)
    facade.delete_namespace()
    mem = facade.experience
    print("ingest...", file=sys.stderr)
    report = mem.ingest(train, explorations=explore_train, k=args.k, tau=0.5)
    out["build"] = report.model_dump(exclude={"llm_usage"})
    out["build"]["counts"] = mem.counts()
    began = time.perf_counter()
    report2 = mem.ingest(train, explorations=explore_train, k=args.k, tau=0.5)
    out["rebuild"] = {"seconds": round(time.perf_counter() - began, 1),
                      "counts_unchanged": mem.counts() == out["build"]["counts"],
                      "created": report2.created, "skipped": report2.skipped}

    print("recall...", file=sys.stderr)
    hit = same_type_hit_at_k(mem, dev, k=5)
    out["dev_same_type_hit_at_5"] = hit["hit@5"]
    out["recall_ms_median"] = hit["recall_ms_median"]
    out["correction"] = correction_hit_rate(mem, facade.embedder, train, explore_dev, by_key,
                                            k=args.k, t=args.t)
    facade.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
