"""Study of the combined retriever's fusion (reciprocal rank fusion of state and associative
memory) on LoCoMo and HotpotQA, against a real Neo4j: prints one JSON document.

Every LoCoMo conversation is ingested into a namespace of its own (state + associative, all of
them in the database at once); every HotpotQA example into its own namespace (one turn per
sentence, as :func:`graphmem.evaluation.hotpot.as_conversation` builds it). Per question, each
memory's Documents are fetched once exactly as
:class:`graphmem.langchain.retrievers.CombinedGraphMemoryRetriever` asks for them (``3 k`` each, shipped
retrieval setting); the fusion is then replayed offline with
:func:`graphmem.agent.rank_fusion.reciprocal_rank_fusion` over a grid of the RRF constant and the
state memory's weight (associative weight 1). recall@k = gold ids among the first k distinct
``source_ids`` of the fused Documents / gold ids (as ``graphmem eval`` scores ``combined``).

- ``locomo``: recall@10 of each memory alone, of the shipped fusion, of the fusion chosen on the
  other conversations (leave-one-conversation-out, ties towards the shipped values), the picks,
  and a paired bootstrap 95% interval of (chosen − shipped) over questions;
- ``hotpotqa``: supporting-fact recall@5 / @10 of the memories, the shipped fusion and the fusion
  chosen on all LoCoMo conversations (nothing tuned on HotpotQA).

Uses the Neo4j of the environment (``NEO4J_URI``, else the local launcher of ``GRAPHMEM_HOME``);
its namespaces are deleted at the end.

    python benchmarks/fusion_study.py --data /path/to/data
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import numpy as np

from graphmem.progress import quiet_model_loading

quiet_model_loading()  # before anything imports transformers

from graphmem.cli.eval import set_torch_threads  # noqa: E402
from graphmem.conversations import read_locomo  # noqa: E402
from graphmem.datasets import resolve  # noqa: E402
from graphmem.datasets.hotpotqa import read_hotpotqa  # noqa: E402
from graphmem.evaluation.hotpot import as_conversation  # noqa: E402
from graphmem.evaluation.locomo import doc_source_ids, questions_of  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402
from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever  # noqa: E402
from graphmem.agent.rank_fusion import RRF_K, reciprocal_rank_fusion  # noqa: E402
from graphmem.langchain.retrievers.retrievers import FETCH_FACTOR  # noqa: E402
from graphmem.state.evaluation import recall_at  # noqa: E402

MEMORIES = ("state", "associative")
#: The grid: RRF constant × weight of the state memory (associative 1.0).
RRF_KS = (1, 5, 10, 20, 30, 60, 120)
STATE_WEIGHTS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
SHIPPED = (RRF_K, 1.0)
BOOTSTRAP = 2000


def fetch_lists(tenant: GraphMemory, question: str, k: int) -> list[list]:
    """Each memory's Documents for ``question``, fetched as the combined retriever with ``k``
    fetches them."""
    retriever = CombinedGraphMemoryRetriever(graph_memory=tenant, k=k, memories=MEMORIES)
    return [m.recall_documents(question, FETCH_FACTOR * k) for m in retriever.members()]


def fused(lists: list[list], rrf_k: int, state_weight: float, k: int) -> list[str]:
    return doc_source_ids(reciprocal_rank_fusion(lists, k=rrf_k, weights=[state_weight, 1.0])[:k])


def scores(rows: list[dict], k: int) -> dict:
    """``{"state"|"associative"|(rrf_k, w): per-question recall@k array}``."""
    out: dict = {m: np.array([recall_at(doc_source_ids(r["lists"][i][:k]), r["gold"], k)
                              for r in rows])
                 for i, m in enumerate(MEMORIES)}
    for p in itertools.product(RRF_KS, STATE_WEIGHTS):
        out[p] = np.array([recall_at(fused(r["lists"], *p, k), r["gold"], k) for r in rows])
    return out


def distance(p: tuple) -> float:
    return abs(np.log(p[0] / SHIPPED[0])) + abs(np.log(p[1] / SHIPPED[1]))


def choose(values: dict, mask: np.ndarray) -> tuple:
    grid = [p for p in values if isinstance(p, tuple)]
    return max(grid, key=lambda p: (round(float(values[p][mask].mean()), 6), -distance(p)))


def bootstrap(diff: np.ndarray, seed: int = 0) -> list[float]:
    rng = np.random.default_rng(seed)
    means = [diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(BOOTSTRAP)]
    return [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]


def study_locomo(mem: GraphMemory, data: str | None, say) -> tuple[dict, tuple]:
    convs = read_locomo(resolve("locomo", data, full=data is not None))
    tenants = {c.id: mem.scoped(f"fusion-study-{c.id}") for c in convs}
    rows: list[dict] = []
    try:
        for conv in convs:  # every conversation's tenant in the database at once
            say(f"locomo {conv.id}: ingest {len(conv.turns)} turns")
            tenants[conv.id].delete_namespace()
            for name in MEMORIES:
                tenants[conv.id].memory(name).ingest([conv])
        for conv in convs:
            for q in questions_of(conv)[0]:
                rows.append({"conversation": conv.id, "gold": q["gold"],
                             "lists": fetch_lists(tenants[conv.id], q["question"], 10)})
    finally:
        for tenant in tenants.values():
            tenant.delete_namespace()
    values = scores(rows, 10)
    conv_of = np.array([r["conversation"] for r in rows])
    picks, loo = {}, np.zeros(len(rows))
    for conv in convs:
        held = conv_of == conv.id
        pick = choose(values, ~held)
        picks[conv.id] = {"rrf_k": pick[0], "state_weight": pick[1]}
        loo[held] = values[pick][held]
    overall = choose(values, np.ones(len(rows), bool))
    per_conv = {c.id: {name: round(float(v[conv_of == c.id].mean()), 4)
                       for name, v in (("state", values["state"]),
                                       ("associative", values["associative"]),
                                       ("shipped", values[SHIPPED]), ("loo", loo))}
                for c in convs}
    return {
        "conversations": [c.id for c in convs], "questions": len(rows),
        "recall@10": {"state": round(float(values["state"].mean()), 4),
                      "associative": round(float(values["associative"].mean()), 4),
                      "combined_shipped": round(float(values[SHIPPED].mean()), 4),
                      "combined_loo": round(float(loo.mean()), 4)},
        "loo_minus_shipped_ci95": bootstrap(loo - values[SHIPPED]),
        "state_minus_shipped_ci95": bootstrap(values["state"] - values[SHIPPED]),
        "per_conversation": per_conv, "loo_picks": picks,
        "chosen_on_all": {"rrf_k": overall[0], "state_weight": overall[1]},
        "grid_recall@10": {f"rrf_k={p[0]},w={p[1]}": round(float(v.mean()), 4)
                           for p, v in values.items() if isinstance(p, tuple)},
    }, overall


def study_hotpot(mem: GraphMemory, data: str | None, chosen: tuple, limit: int, say) -> dict:
    examples = read_hotpotqa(resolve("hotpotqa", data, full=data is not None))[:limit]
    rows: dict[int, list[dict]] = {5: [], 10: []}
    for n, example in enumerate(examples):
        conv, gold = as_conversation(example)
        if not gold:
            continue
        tenant = mem.scoped(f"fusion-study-hotpot-{n}")
        tenant.delete_namespace()
        try:
            for name in MEMORIES:
                tenant.memory(name).ingest([conv])
            for k, kept in rows.items():
                kept.append({"gold": gold, "lists": fetch_lists(tenant, example.question, k)})
        finally:
            tenant.delete_namespace()
        if (n + 1) % 20 == 0:
            say(f"hotpotqa: {n + 1} of {len(examples)}")
    out: dict = {"examples": len(rows[10]), "recall": {}}
    for k, kept in rows.items():
        values = scores(kept, k)
        for name, key in (("state", "state"), ("associative", "associative"),
                          ("combined_shipped", SHIPPED), ("combined_chosen", chosen)):
            out["recall"].setdefault(name, {})[f"@{k}"] = round(float(values[key].mean()), 4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="datasets folder (default: bundled samples)")
    parser.add_argument("--hotpot-examples", type=int, default=100)
    parser.add_argument("--torch-threads", type=int, default=0, help="0 = torch default")
    args = parser.parse_args()
    set_torch_threads(args.torch_threads)
    began = time.monotonic()
    mem = GraphMemory.from_settings(migrate=True)

    def say(msg: str) -> None:
        print(f"[{time.monotonic() - began:6.0f} s] {msg}", flush=True, file=sys.stderr)

    locomo, chosen = study_locomo(mem, args.data, say)
    hotpot = study_hotpot(mem, args.data, chosen, args.hotpot_examples, say)
    print(json.dumps({"grid": {"rrf_k": RRF_KS, "state_weight": STATE_WEIGHTS},
                      "shipped": {"rrf_k": SHIPPED[0], "state_weight": SHIPPED[1]},
                      "locomo": locomo, "hotpotqa": hotpot,
                      "seconds": round(time.monotonic() - began, 1)}, indent=1))


if __name__ == "__main__":
    main()
