"""Long histories in ``graphmem bench``: does the cost of a recall and of a write stay bounded as one
user's history grows?

- **state**: one topic chain grown to each size — every turn is a structured fact of the same
  person and attribute (so the heuristic extractor puts them all on one topic, each a new semantic
  state), text from real LoCoMo turns; at each size, a history question, a current-state question
  and a topical question are timed (state recall, k = 10, after two warm-up recalls of each and
  the vector cache's background load: a running service's steady state), and the last batch's
  ingest cost per turn.
- **associative**: one cue leading to each number of contents — every turn mentions the same name
  (a pet's) — timed the same way with associative recall.

Turns arrive in batches through the memories' public ``ingest`` (an agent's history growing), so
each batch is an incremental write into the stored chain.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from graphmem.conversations import Conversation, Turn
from graphmem.evaluation.metrics import percentiles, ratio
from graphmem.facade import GraphMemory
from graphmem.retrieval.vectors import vector_cache_of

logger = logging.getLogger(__name__)

SIZES = (250, 1000, 10_000)
#: Turns per ingest call while a history grows.
BATCH = 250
#: Repetitions of each timed question per size.
REPEATS = 5
START = datetime(2023, 1, 1, tzinfo=timezone.utc)
PERSON = "Ann"
PET = "Biscuit"
QUESTIONS = {
    "state": [f"What was {PERSON}'s news before it changed?", f"What is {PERSON}'s news now?",
              "When did she go to the pottery class?"],
    "associative": [f"What did {PET} do at the park?", f"When did {PET} chew the shoes?",
                    "What did they cook for dinner?"],
}


def history_turns(texts: Sequence[str], start: int, count: int, memory: str) -> list[Turn]:
    """Turns ``start .. start + count - 1`` of a synthetic history built from real ``texts``
    (cycled): for ``state`` structured facts of one person and attribute (one topic chain), for
    ``associative`` turns that all mention :data:`PET` (one cue); one session per 50 turns, one
    minute apart."""
    out = []
    for i in range(start, start + count):
        text = texts[i % len(texts)]
        stamp = START + timedelta(minutes=i)
        if memory == "state":
            out.append(Turn(source_id=f"h{i}", speaker=PERSON, text=text, timestamp=stamp,
                            session=f"s{i // 50}", position=i,
                            meta={"kind": "attribute", "attribute": "news", "value": f"{text} #{i}"}))
        else:
            speaker = PERSON if i % 2 else "Ben"
            out.append(Turn(source_id=f"h{i}", speaker=speaker, text=f"{PET}: {text}",
                            timestamp=stamp, session=f"s{i // 50}", position=i))
    return out


def long_history_section(mem: GraphMemory, prefix: str, texts: Sequence[str],
                         sizes: Sequence[int] = SIZES,
                         say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Grow one history per memory to each of ``sizes`` and time recall and ingest there.

    Returns:
        ``{memory: {"sizes": {size: {"recall_ms": {p50, p95, max}, "ingest_ms_per_turn"}},
        "growth_p50": recall p50 at the largest size / at the smallest, "max_recall_ms"}}``.
    """
    say = say or (lambda _m: None)
    sizes = sorted(int(s) for s in sizes)
    out: dict[str, Any] = {}
    for memory in ("state", "associative"):
        tenant = mem.scoped(f"{prefix}-history-{memory[:5]}")
        tenant.delete_namespace()
        store = tenant.memory(memory)
        done, per_size = 0, {}
        try:
            for size in sizes:
                last_ms = None
                while done < size:
                    count = min(BATCH, size - done)
                    conv = Conversation(id="history", speakers=[PERSON, "Ben"],
                                        turns=history_turns(texts, done, count, memory))
                    began = time.perf_counter()
                    store.ingest([conv])
                    last_ms = (time.perf_counter() - began) * 1000 / count
                    done += count
                say(f"long history: {memory} at {done} turns")
                times = []
                for q in QUESTIONS[memory] * 2:  # warm-up: this size's plans, the vector cache
                    store.recall(q, k=10)
                cache = vector_cache_of(tenant.runner)
                if cache is not None:
                    cache.wait()  # a large history's vectors load in the background: steady state
                for q in QUESTIONS[memory]:
                    for _ in range(REPEATS):
                        began = time.perf_counter()
                        store.recall(q, k=10)
                        times.append((time.perf_counter() - began) * 1000)
                stats = percentiles(times)
                per_size[str(size)] = {"recall_ms": {**stats, "max": round(max(times), 3)},
                                       "ingest_ms_per_turn": round(last_ms or 0.0, 3)}
        finally:
            tenant.delete_namespace()
        lo, hi = str(sizes[0]), str(sizes[-1])
        out[memory] = {"sizes": per_size,
                       "growth_p50": ratio(per_size[hi]["recall_ms"]["p50"],
                                           per_size[lo]["recall_ms"]["p50"]),
                       "ingest_growth": ratio(per_size[hi]["ingest_ms_per_turn"],
                                              per_size[lo]["ingest_ms_per_turn"]),
                       "max_recall_ms": max(v["recall_ms"]["max"] for v in per_size.values())}
    return out
