"""Insight memory replay benchmark: stream FEVER claims (or another dataset) through the memory
with the recorded outcomes as Ψ, for several λ and operation sets; print JSON.

Outcomes are replayed from the dataset's labels, not produced by an agent reading the insights.

    NEO4J_URI=bolt://127.0.0.1:7687 python benchmarks/insight_replay.py --limit 200 \
        --lambdas 0 1 2 --operations all add_keep
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from graphmem import GraphMemory
from graphmem.insight import OperationSet, replay_sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="fever")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--data", type=Path, default=None,
                        help="folder with the full datasets (default GRAPHMEM_DATA, else the "
                             "bundled samples: FEVER's first 250 claims)")
    parser.add_argument("--lambdas", type=float, nargs="+", default=[0.0, 1.0, 2.0])
    parser.add_argument("--operations", nargs="+", default=["all"],
                        choices=[o.value for o in OperationSet])
    parser.add_argument("--k", type=int, default=3, help="insights recalled per task (top-B)")
    parser.add_argument("--query-k", type=int, default=5, help="similar queries (eq. 2)")
    args = parser.parse_args()
    began = time.monotonic()
    with GraphMemory.from_settings(migrate=True) as mem:
        reports = replay_sweep(mem, args.dataset, args.limit, lambdas=args.lambdas,
                               operation_sets=[OperationSet(o) for o in args.operations],
                               k=args.k, query_k=args.query_k, data_root=args.data)
    print(json.dumps({
        "dataset": args.dataset, "limit": args.limit, "note": reports[0].note,
        "outcome_source": reports[0].outcome_source,
        "runs": [{
            "operation_set": r.operation_set, "lambda": r.lam, "tasks": r.tasks,
            "resolved": r.resolved, "failed": r.failed, "added": r.added, "kept": r.kept,
            "archived": r.archived, "revised": r.revised, "retrieved": r.retrieved,
            "tasks_with_retrieval": r.tasks_with_retrieval,
            "same_kind_share": r.same_kind_share,
            "same_kind_share_in_subgraph": r.same_kind_share_in_subgraph,
            "same_kind_share_by_kind": {k: round(v.same_kind / v.retrieved, 4) if v.retrieved else None
                                        for k, v in r.by_kind.items()},
            "active_insights": r.graph["active_insights"],
            "archived_insights": r.graph["archived_insights"],
            "seconds": r.seconds,
        } for r in reports],
        "total_seconds": round(time.monotonic() - began, 1),
    }, indent=1))


if __name__ == "__main__":
    main()
