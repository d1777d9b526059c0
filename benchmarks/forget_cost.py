"""Cost of ``GraphMemory.forget`` on a long conversation: prints one JSON document.

One conversation of ``--turns`` real LoCoMo turns (default 900: the bundled sample's
conversations one after the other, each turn keeping its session and time, source ids made
unique) goes into state and associative memory of a fresh namespace; then, in turn, on what
remains:

1. ``forget(message_ids=[one])``: one message of the middle of the conversation (the rest is
   rebuilt: the cost of forgetting one message is a re-ingest of its conversation);
2. ``forget(conversation_id=c, speaker=s)``: every message of one speaker (the other speaker's
   messages are rebuilt);
3. ``forget(conversation_id=c)``: the whole conversation (nothing to rebuild).

Per step: seconds, messages forgotten, messages rebuilt, nodes and relationships removed.
Also the ingest seconds of the whole conversation, for scale. The namespace is deleted at the
end. Uses the Neo4j of the environment (``NEO4J_URI``, else the local launcher of
``GRAPHMEM_HOME``):

    python benchmarks/forget_cost.py [--turns 900] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from datetime import timedelta

from graphmem.progress import quiet_model_loading

quiet_model_loading()  # before anything imports transformers

from graphmem.conversations import Conversation, Turn, read_locomo  # noqa: E402
from graphmem.datasets import resolve  # noqa: E402
from graphmem.facade import GraphMemory  # noqa: E402


def long_conversation(turns: int, data: str | None) -> Conversation:
    """``turns`` real turns in one conversation: LoCoMo's conversations one after the other
    (sessions and source ids prefixed by the block, each block 1,000 days after the one
    before, positions renumbered), repeated when there are fewer turns than asked."""
    convs = read_locomo(resolve("locomo", data, full=data is not None))
    out: list[Turn] = []
    speakers = ("A", "B")
    block = 0
    while len(out) < turns:
        for conv in convs:
            names = {name: speakers[i % 2] for i, name in enumerate(conv.speakers)}
            shift = timedelta(days=1000 * block)  # each block after the one before
            for turn in conv.turns[:turns - len(out)]:
                out.append(Turn(source_id=f"{block}/{turn.source_id}",
                                speaker=names[turn.speaker], text=turn.text,
                                timestamp=turn.timestamp + shift,
                                session=f"{block}/{turn.session}", position=len(out)))
            block += 1
    return Conversation(id="long-chat", turns=out, speakers=list(speakers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=900, help="turns of the conversation")
    parser.add_argument("--data", default=None, help="datasets folder (default: bundled sample)")
    args = parser.parse_args()
    if args.turns < 10:
        parser.error(f"--turns must be at least 10, got {args.turns}")
    conv = long_conversation(args.turns, args.data)
    namespace = f"forget-cost-{uuid.uuid4().hex[:8]}"
    out: dict = {"turns": len(conv.turns), "namespace": namespace, "steps": []}
    with GraphMemory.from_settings(namespace=namespace, migrate=True) as mem:
        try:
            began = time.perf_counter()
            for memory in (mem.state, mem.associative):
                memory.ingest([conv])
            out["ingest_seconds"] = round(time.perf_counter() - began, 2)
            out["nodes"] = sum(n for per in mem.counts().values() for n in per.values())
            middle = conv.turns[len(conv.turns) // 2].source_id
            for step, selectors in (
                    ("one_message", {"message_ids": [middle]}),
                    ("one_speaker", {"conversation_id": conv.id, "speaker": "A"}),
                    ("whole_conversation", {"conversation_id": conv.id})):
                report = mem.forget(**selectors, actor="benchmark")
                out["steps"].append({
                    "step": step, "seconds": round(report.seconds, 2),
                    "messages": report.messages, "rebuilt": report.rebuilt,
                    "nodes_removed": sum(report.nodes.values()),
                    "relationships_removed": sum(report.relationships.values())})
        finally:
            mem.delete_namespace()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
