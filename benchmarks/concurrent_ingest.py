"""Concurrent ingest benchmark: 1, 2, 4 writers into separate namespaces, one namespace and one
conversation, for state and associative memory; turns/s, speed-up and lost updates, as JSON
(:func:`graphmem.evaluation.concurrency.concurrency_section`).

    python benchmarks/concurrent_ingest.py --turns 120 --repeats 2 --out reports/concurrency.json

Runs on the configured Neo4j (``NEO4J_URI``, else the local launcher) and the bundled LoCoMo
sample unless ``--data DIR`` / ``GRAPHMEM_DATA`` names the full data.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from graphmem import GraphMemory
from graphmem.conversations import read_locomo
from graphmem.datasets import resolve
from graphmem.evaluation.concurrency import concurrency_section
from graphmem.evaluation.locomo import truncate_conversation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--conversations", type=int, default=2,
                        help="first N LoCoMo conversations")
    parser.add_argument("--turns", type=int, default=None,
                        help="first N turns of each conversation (default: all)")
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--memories", nargs="+", default=["state", "associative"])
    parser.add_argument("--layouts", nargs="+",
                        default=["separate_namespaces", "same_namespace", "same_conversation"])
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    conversations = read_locomo(resolve("locomo", args.data))[:args.conversations]
    if args.turns:
        conversations = [truncate_conversation(c, args.turns) for c in conversations]
    began = time.monotonic()
    with GraphMemory.from_settings(migrate=True) as mem:
        section = concurrency_section(
            mem, conversations, args.writers, memories=args.memories, layouts=args.layouts,
            batch_size=args.batch_size, repeats=args.repeats,
            progress=lambda line: print(f"{time.strftime('%H:%M:%S')} {line}", file=sys.stderr))
    section["total_seconds"] = round(time.monotonic() - began, 1)
    text = json.dumps(section, indent=1, default=str)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
