"""How readable is the state memory's graph? States and topics of LoCoMo conversations.

Ingests every conversation of a LoCoMo file into the state memory (heuristic path, no LLM), one
namespace per conversation, and prints ONE JSON document:

- per conversation and in total: ``turns``, ``events``, ``topics``, ``states``, the States that
  read as small talk by the rule below (per kind and ``any``) and their ``share`` of all States;
- ``state_words``: mean and longest State in words; ``small_talk_topics``: the speakers' small-talk
  topics (key ``<speaker>|small talk``) and the Events and States on them;
- ``topic_names``: the first topic names of each conversation (creation order);
- ``topic_of``: for every ``--turn SOURCE_ID`` (default ``D1:3``), the topic the turn's Event is
  on, with its States (the same topic before/after a change of the extractor);
- ``sample``: ``--sample`` States drawn with a fixed seed (content, topic, evidence turn text) to
  read by eye;
- with ``--memconflict FILE``: :func:`graphmem.state.evaluation.evaluate_memconflict` on it;
- with ``--recall``: :func:`graphmem.state.evaluation.evaluate_locomo` on the LoCoMo file
  (evidence recall@5/10/20 of the state memory and of the vector baseline).

The small-talk rule is applied to a State's ``content`` after dropping a leading
``"<speaker>: "``; a State is small talk when any of these holds:

- ``question``: it contains ``?``;
- ``greeting``: one of its sentences starts with a word of
  :data:`graphmem.retrieval.text.GREETINGS` (hi, hey, hello, bye, ...);
- ``thanks``: it contains "thanks", "thank" or "thx", or a sentence starts with a word of
  :data:`graphmem.retrieval.text.THANKS`;
- ``smalltalk``: it has no content word (every word is a stop word of scikit-learn's English
  list, a word of :data:`graphmem.retrieval.text.PHATIC`, a speaker's name or a number), or
  :func:`graphmem.retrieval.text.is_smalltalk` says so.

The rule reads only the stored text; it shares the vocabulary with the extractor's classifier
(:mod:`graphmem.state.utterances`) but not its sentence choice.

    GRAPHMEM_HOME=/tmp/h GRAPHMEM_BOLT_PORT=7699 python benchmarks/state_readability.py \\
        --data /path/to/data --memconflict /path/to/data/memconflict/Step4_1.jsonl

Namespaces are ``<prefix>-<conversation id>`` (default prefix ``readable``), deleted before the
run and, unless ``--keep``, after it (keep them to look at the graph in Neo4j Browser).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from segtok.segmenter import split_single  # noqa: E402
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # noqa: E402

from graphmem.conversations import read_locomo  # noqa: E402
from graphmem.datasets import resolve  # noqa: E402
from graphmem.retrieval.text import GREETINGS, PHATIC, THANKS, is_smalltalk  # noqa: E402

KINDS = ("greeting", "question", "thanks", "smalltalk")
_WORD = re.compile(r"[^\W_]+")
_THANK_WORDS = frozenset({"thanks", "thank", "thx"})


def smalltalk_kinds(content: str, speakers: list[str]) -> set[str]:
    """The small-talk kinds of one State's ``content`` by the rule of this module's docstring
    (an empty set: the State reads as a statement). ``speakers``: the conversation's names."""
    body = content
    for name in speakers:
        if body.startswith(f"{name}: "):
            body = body[len(name) + 2:]
    names = {w.lower() for s in speakers for w in _WORD.findall(s)}
    words = [w.lower() for w in _WORD.findall(body)]
    firsts = [(_WORD.findall(s) or [""])[0].lower() for s in split_single(body)]
    kinds = set()
    if "?" in body:
        kinds.add("question")
    if any(f in GREETINGS for f in firsts):
        kinds.add("greeting")
    if _THANK_WORDS & set(words) or any(f in THANKS for f in firsts):
        kinds.add("thanks")
    content_words = [w for w in words if w not in ENGLISH_STOP_WORDS and w not in PHATIC
                     and w not in names and not w.isdigit() and len(w) > 1]
    if not content_words or is_smalltalk(body, " ".join(speakers)):
        kinds.add("smalltalk")
    return kinds


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def measure(mem: Any, path: Path, prefix: str, keep: bool, turns_of: list[str]) -> dict[str, Any]:
    """Ingest every conversation of ``path`` and describe its topics and states."""
    out: dict[str, Any] = {"dataset": str(path), "conversations": {}, "topic_of": {}}
    all_states: list[dict[str, Any]] = []
    total: Counter[str] = Counter()
    for conv in read_locomo(path):
        scoped = mem.scoped(f"{prefix}-{conv.id}")
        scoped.delete_namespace()
        began = time.monotonic()
        report = scoped.state.ingest([conv])
        seconds = time.monotonic() - began
        topics = scoped.query("state/list_topics", conversation=conv.id)
        states = scoped.query("state/get_topic_states", topic_ids=[t["id"] for t in topics],
                              only_current=False)
        events = {e["source_ids"][0]: e for e in scoped.query(
            "state/conversation_events", conversation=conv.id, skip=0, limit=len(conv.turns))}
        for topic in topics:
            for link in scoped.state.topic_chain(topic["id"]):
                events[link["source_ids"][0]]["topic_id"] = topic["id"]
        counts = scoped.state.counts()
        kinds: Counter[str] = Counter()
        for s in states:
            found = smalltalk_kinds(s["content"], conv.speakers)
            kinds.update(found)
            kinds["any"] += bool(found)
            first = (s["source_ids"] or [""])[0]
            all_states.append({"conversation": conv.id, "content": s["content"],
                               "topic": s["topic"], "turn": first,
                               "evidence": f"{events[first]['speaker']}: {events[first]['text']}"
                               if first in events else None, "smalltalk": sorted(found)})
        words = [len(s["content"].split()) for s in states]
        chat_topics = {t["id"] for t in topics if t["key"].endswith("|small talk")}
        row = {"turns": len(conv.turns), "events": counts["Event"], "topics": counts["Topic"],
               "states": counts["State"], "smalltalk_states": {k: kinds[k] for k in (*KINDS, "any")},
               "share_smalltalk": _share(kinds["any"], counts["State"]),
               "state_words": {"mean": round(sum(words) / len(words), 1) if words else 0,
                               "max": max(words, default=0)},
               "small_talk_topics": {"topics": len(chat_topics),
                                     "events": sum(e.get("topic_id") in chat_topics
                                                   for e in events.values()),
                                     "states": sum(s["topic_id"] in chat_topics for s in states)},
               "state_relations": report.details["state_relations"],
               "ingest_seconds": round(seconds, 1),
               "topic_names": [t["name"] for t in topics[:15]]}
        out["conversations"][conv.id] = row
        total.update({k: row[k] for k in ("turns", "events", "topics", "states")})
        total.update({f"smalltalk_{k}": v for k, v in row["smalltalk_states"].items()})
        for turn in turns_of:
            event = events.get(turn)
            if event is None:
                continue
            topic = next(t for t in topics if t["id"] == event["topic_id"])
            out["topic_of"][f"{conv.id}/{turn}"] = {
                "topic": topic["name"], "events": sum(e.get("topic_id") == topic["id"] for e in events.values()),
                "states": [s["content"] for s in states if s["topic_id"] == topic["id"]]}
        if not keep:
            scoped.delete_namespace()
    out["total"] = {k: total[k] for k in ("turns", "events", "topics", "states")}
    out["total"]["smalltalk_states"] = {k: total[f"smalltalk_{k}"] for k in (*KINDS, "any")}
    out["total"]["share_smalltalk"] = _share(total["smalltalk_any"], total["states"])
    out["states"] = all_states
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="folder with the full datasets")
    parser.add_argument("--locomo", type=Path, default=None, help="a LoCoMo-format file")
    parser.add_argument("--memconflict", type=Path, default=None,
                        help="also run the MemConflict probes on this file")
    parser.add_argument("--recall", action="store_true",
                        help="also run graphmem.state.evaluation.evaluate_locomo on the file")
    parser.add_argument("--prefix", default="readable")
    parser.add_argument("--keep", action="store_true", help="keep the namespaces")
    parser.add_argument("--sample", type=int, default=40, help="States to print for reading")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--turn", action="append", default=None,
                        help="report the topic of this turn id (repeatable; default D1:3)")
    parser.add_argument("--all-states", type=Path, default=None,
                        help="write every State (JSON lines) to this file")
    args = parser.parse_args()

    from graphmem.facade import GraphMemory

    path = args.locomo or resolve("locomo", args.data, full=args.data is not None)
    with GraphMemory.from_settings(namespace=args.prefix, migrate=True) as mem:
        result = measure(mem, path, args.prefix, args.keep, args.turn or ["D1:3"])
        if args.recall:
            from graphmem.state.evaluation import evaluate_locomo

            result["locomo_recall"] = evaluate_locomo(mem, path, prefix=f"{args.prefix}-eval")
        if args.memconflict is not None:
            from graphmem.state.evaluation import evaluate_memconflict

            result["memconflict"] = evaluate_memconflict(mem, args.memconflict,
                                                         prefix=f"{args.prefix}-mc")
    states = result.pop("states")
    if args.all_states is not None:
        with args.all_states.open("w") as fh:
            for s in states:
                fh.write(json.dumps(s, ensure_ascii=False) + "\n")
    result["sample"] = random.Random(args.seed).sample(states, min(args.sample, len(states)))
    json.dump(result, sys.stdout, indent=1, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
