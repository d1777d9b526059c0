"""Evaluation of the state memory on real data (no LLM). LoCoMo evidence recall of every memory is
:func:`graphmem.evaluation.locomo.evaluate_locomo` (``graphmem eval``, ``graphmem state eval``).

- :func:`recall_at` — the per-question metric: |evidence ∩ first k source ids| / |evidence|;
- :func:`evaluate_memconflict` — probes built from MemConflict's structured fields: current
  value at rank 1 after dated updates (dynamic), earlier values reachable as history, the true
  claim kept at rank 1 after a false contradiction (static), the right value per condition
  (conditional), and no other person's value at rank 1 (distractor).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.conversations import read_conversations
from graphmem.state.extraction import normalize_value

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

KS = (5, 10, 20)
CATEGORY_NAMES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}


def recall_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Fraction of ``evidence`` ids among the first ``k`` of ``ranked`` (1.0 when no evidence)."""
    gold = set(evidence)
    return len(gold & set(ranked[:k])) / len(gold) if gold else 1.0


# ----------------------------------------------------------------------------- MemConflict


def _value_of(hit: Any) -> str:
    return hit.value or ""


def _attr_words(attribute: str) -> str:
    return attribute.replace(".", " ").replace("_", " ").lower()


def evaluate_memconflict(mem: GraphMemory, path: str | Path,
                         prefix: str = "eval-state-mc", keep: bool = False,
                         max_personas: int | None = None) -> dict[str, Any]:
    """MemConflict probes (structured fields only, heuristic paths, no LLM).

    Per persona (one namespace each, ``mem.scoped(...)``) after ingesting every session:

    - ``dynamic_current@1``: for each updated attribute, "What is <user>'s current <attr>?" has
      the last ``After`` value at rank 1.
    - ``history_reachable``: "What was <user>'s <attr> before?" lists every earlier value among
      its hits (fraction of earlier values found).
    - ``static_true@1``: for each static conflict, "What is <user>'s <field>?" has the Point_A
      (true) value at rank 1 although a false Point_B claim arrived later.
    - ``conditional@1``: for each conditional rule, "What <preference> does <user> prefer for
      <condition>?" has that rule's item at rank 1.
    - ``no_distractor@1``: for each other person's fact about an attribute, the question about
      the user's own attribute does not return that person's fact at rank 1.
    """
    personas = read_conversations(path, "memconflict")[:max_personas]
    scores: dict[str, list[float]] = defaultdict(list)
    for conv in personas:
        scoped = mem.scoped(f"{prefix}-{conv.id[:8]}")
        scoped.delete_namespace()
        memory = scoped.state
        memory.ingest([conv])
        user = conv.metadata["user"]
        attrs = [t.meta for t in conv.turns if t.meta.get("kind") == "attribute"]
        last: dict[str, Any] = {}
        earlier: dict[str, list[Any]] = defaultdict(list)
        for meta in attrs:
            name = meta["attribute"]
            if name in last and normalize_value(last[name]) != normalize_value(meta["value"]):
                earlier[name].append(last[name])
            last[name] = meta["value"]
        for name in earlier:
            top = memory.recall(f"What is {user}'s current {_attr_words(name)}?", k=5).items
            scores["dynamic_current@1"].append(float(bool(top) and top[0].kind == "state"
                                                     and _value_of(top[0]) == normalize_value(last[name])))
            hist = memory.recall(f"What was {user}'s {_attr_words(name)} before it changed?", k=20).items
            seen = {_value_of(h) for h in hist}
            olds = {normalize_value(v) for v in earlier[name]}
            scores["history_reachable"].append(len(olds & seen) / len(olds))
        statics: dict[str, dict[str, Any]] = defaultdict(dict)
        for t in conv.turns:
            if t.meta.get("kind") == "static":
                statics[t.meta["conflict_id"]][t.meta["role"]] = t.meta
        for roles in statics.values():
            if "Point_A" not in roles or "Point_B" not in roles:
                continue
            field = roles["Point_A"]["attribute"]
            top = memory.recall(f"What is {user}'s {_attr_words(field)}?", k=5).items
            scores["static_true@1"].append(float(bool(top) and _value_of(top[0]) == normalize_value(roles["Point_A"]["value"])))
        for t in conv.turns:
            meta = t.meta
            if meta.get("kind") == "conditional" and meta.get("role") != "Distractor":
                q = (f"What {_attr_words(meta['attribute'])} does {user} prefer for "
                     f"{meta['condition'][:1].lower() + meta['condition'][1:]}?")
                top = memory.recall(q, k=5).items
                scores["conditional@1"].append(float(bool(top) and _value_of(top[0]) == normalize_value(meta["value"])))
            if meta.get("person") and meta.get("attribute"):
                top = memory.recall(f"What is {user}'s {_attr_words(meta['attribute'])}?", k=5).items
                scores["no_distractor@1"].append(float(not top or (top[0].subject or "") != meta["person"]))
        if not keep:
            scoped.delete_namespace()
    return {"dataset": str(path), "personas": len(personas), "controller": "heuristic",
            "probes": {name: {"score": round(sum(v) / len(v), 4), "n": len(v)}
                       for name, v in sorted(scores.items())}}
