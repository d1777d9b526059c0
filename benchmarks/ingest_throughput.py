"""Ingest throughput of state and associative memory against raw encoding, through the public API
only (so the same script measures any release): prints one JSON document.

Per round: one raw ``embed_documents`` call on the conversation's turn texts, then one ingest of
the conversation per memory into an emptied scratch namespace (deleted afterwards). The figure
per memory is the median over rounds of raw encode seconds / ingest seconds (ingest turns/s over
raw encode turns/s, the ``ingest_vs_encode`` of ``graphmem bench``). Before the rounds, another
conversation goes through both memories once (the write path warmed, as in a running service).

Uses the Neo4j of the environment (``NEO4J_URI``, else the local launcher of ``GRAPHMEM_HOME``).
To compare two releases on one machine, run it from each checkout in turn, alternating:

    PYTHONPATH=/path/to/checkout python benchmarks/ingest_throughput.py --data DIR --torch-threads 1
"""

from __future__ import annotations

import json
import statistics
import time

from graphmem.progress import quiet_model_loading

quiet_model_loading()  # before anything imports transformers

from locomo_args import conversations, parser  # noqa: E402

from graphmem.evaluation.locomo import turn_text  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402

MEMORIES = ("state", "associative")


def main() -> None:
    options = parser(__doc__.splitlines()[0], rounds=3)
    options.add_argument("--namespace", default="ingest-throughput")
    args = options.parse_args()
    conv, warm_conv = conversations(args)
    mem = GraphMemory.from_settings(migrate=True)
    texts = [turn_text(t) for t in conv.turns]
    mem.embedder.embed_documents(texts[:8])  # load the model
    warm = mem.scoped(f"{args.namespace}-warm")
    for name in MEMORIES:
        warm.memory(name).ingest([warm_conv])
    warm.delete_namespace()
    seconds: dict[str, list[float]] = {"raw_encode": [], **{m: [] for m in MEMORIES}}
    for _ in range(args.rounds):
        began = time.perf_counter()
        mem.embedder.embed_documents(texts)
        seconds["raw_encode"].append(time.perf_counter() - began)
        for name in MEMORIES:
            scoped = mem.scoped(f"{args.namespace}-{name[:5]}")
            scoped.delete_namespace()
            began = time.perf_counter()
            scoped.memory(name).ingest([conv])
            seconds[name].append(time.perf_counter() - began)
            scoped.delete_namespace()
    out = {"conversation": conv.id, "turns": len(texts), "rounds": args.rounds,
           "torch_threads": args.torch_threads,
           "seconds": {k: [round(s, 3) for s in v] for k, v in seconds.items()}}
    out["ingest_vs_encode"] = {m: round(statistics.median(
        raw / s for raw, s in zip(seconds["raw_encode"], seconds[m], strict=True)), 3) for m in MEMORIES}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
