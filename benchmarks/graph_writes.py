"""Graph write cost of state and associative memory against raw UNWIND writes of as many nodes
(the ``writes_vs_unwind`` of ``graphmem bench``, alone, in about a minute): prints one JSON
document.

Runs :func:`graphmem.evaluation.ingest_bench.write_rounds` for each memory: replayed ingests of
one LoCoMo conversation (its vectors encoded once beforehand, nothing encoded while timing), each
paired with a raw ``UNWIND`` of as many plain ``Event`` nodes (``cypher/bench/write_events``),
the pair's order alternating. Per memory: write-transaction seconds and raw seconds per round,
the median of the per-round ratios, and where the write seconds go (per statement, and beyond
the statements: begin, planning, commit). Before the rounds, another conversation goes through
the memory once and the replay cache is filled by one ingest (the write path warmed, as in a
running service).

Uses the Neo4j of the environment (``NEO4J_URI``, else the local launcher of ``GRAPHMEM_HOME``).
To compare two releases on one machine, run it from each checkout in turn, alternating:

    PYTHONPATH=/path/to/checkout python benchmarks/graph_writes.py --data DIR --rounds 11
"""

from __future__ import annotations

import json
import statistics
import uuid

from graphmem.progress import quiet_model_loading

quiet_model_loading()  # before anything imports transformers

from locomo_args import conversations, parser  # noqa: E402

from graphmem.evaluation import ingest_bench  # noqa: E402
from graphmem.evaluation.locomo import turn_text  # noqa: E402
from graphmem.evaluation.timing import ReplayEmbedder  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402

MEMORIES = ("state", "associative")


def main() -> None:
    options = parser(__doc__.splitlines()[0], rounds=ingest_bench.WRITE_ROUNDS)
    options.add_argument("--memory", choices=MEMORIES, action="append",
                         help="memory to measure (repeatable; default: both)")
    args = options.parse_args()
    if args.rounds < 1:
        options.error(f"--rounds must be at least 1, got {args.rounds}")
    ingest_bench.WRITE_ROUNDS = args.rounds
    conv, warm_conv = conversations(args)
    prefix = f"graph-writes-{uuid.uuid4().hex[:8]}"
    out: dict = {"conversation": conv.id, "turns": len(conv.turns), "rounds": args.rounds}
    with GraphMemory.from_settings(migrate=True) as mem:
        texts = [turn_text(t) for t in conv.turns]
        vectors = mem.embedder.embed_documents(texts)
        replay = ReplayEmbedder(mem.embedder)
        for name in args.memory or MEMORIES:
            warm = mem.scoped(f"{prefix}-warm")
            warm.memory(name).ingest([warm_conv])
            warm.delete_namespace()
            fill = mem.scoped(f"{prefix}-fill", wrap_embedder=lambda inner: replay)
            fill.memory(name).ingest([conv])  # the replay cache learns the conversation's texts
            fill.delete_namespace()
            rounds = ingest_bench.write_rounds(mem, name, conv, prefix, replay, texts, vectors)
            out[name] = {"writes_vs_unwind": rounds["median_ratio"],
                         "write_seconds_median": statistics.median(rounds["write_seconds"]),
                         "raw_unwind_seconds_median": statistics.median(rounds["raw_unwind_seconds"]),
                         **rounds}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
