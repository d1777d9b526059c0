"""Evaluation of the state memory on real data (no LLM).

- :func:`evaluate_locomo` — LoCoMo evidence recall@k (k = 5, 10, 20) per question category for
  the state memory and for a plain vector-RAG baseline over the raw turns (same Neo4j, same
  embedder, same ``"speaker: text"`` embedding text, one namespace per conversation).
  recall@k of a question = |evidence ∩ first k source ids| / |evidence|, averaged.
- :func:`evaluate_memconflict` — probes built from MemConflict's structured fields: current
  value at rank 1 after dated updates (dynamic), earlier values reachable as history, the true
  claim kept at rank 1 after a false contradiction (static), the right value per condition
  (conditional), and no other person's value at rank 1 (distractor).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from typing import TYPE_CHECKING

from graphmem.conversations import Conversation, read_conversations, read_locomo
from graphmem.names import node_id
from graphmem.state.extraction import normalize_value
from graphmem.state.store import StateStore

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

KS = (5, 10, 20)
CATEGORY_NAMES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}


def recall_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Fraction of ``evidence`` ids among the first ``k`` of ``ranked`` (1.0 when no evidence)."""
    gold = set(evidence)
    return len(gold & set(ranked[:k])) / len(gold) if gold else 1.0


def _summarise(per_q: list[tuple[int, dict[int, float]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    groups: dict[str, list[dict[int, float]]] = defaultdict(list)
    for cat, rec in per_q:
        groups[CATEGORY_NAMES.get(cat, str(cat))].append(rec)
        groups["overall"].append(rec)
    for name, recs in groups.items():
        out[name] = {f"recall@{k}": round(sum(r[k] for r in recs) / len(recs), 4) for k in KS}
        out[name]["questions"] = len(recs)
    return out


def _baseline_ingest(mem: GraphMemory, conv: Conversation) -> None:
    """The raw turns as plain embedded Event nodes in ``mem``'s namespace (the vector baseline)."""
    embedder, namespace = mem.embedder, mem.namespace
    texts = [f"{t.speaker}: {t.text}" for t in conv.turns]
    vecs = embedder.embed_documents(texts)
    rows = [{"id": node_id(namespace, "turn", conv.id, t.source_id), "conversation": conv.id,
             "text": t.text, "speaker": t.speaker, "source_ids": [t.source_id],
             "occurred_at": t.timestamp, "embedding": [float(x) for x in v]}
            for t, v in zip(conv.turns, vecs, strict=True)]
    for start in range(0, len(rows), 500):
        mem.query("state/merge_baseline_turns", rows=rows[start:start + 500])


def evaluate_locomo(mem: GraphMemory, path: str | Path,
                    prefix: str = "eval-state", keep: bool = False, max_questions: int | None = None,
                    ) -> dict[str, Any]:
    """LoCoMo evidence recall@5/10/20 per category: state memory vs vector baseline.

    Each conversation goes into ``<prefix>-<id>`` (state) and ``<prefix>-base-<id>`` (baseline),
    both through ``mem.scoped(...)`` (``mem`` is the :class:`~graphmem.facade.GraphMemory`);
    both are deleted afterwards unless ``keep``. Returns a JSON-ready dict with ``state``,
    ``baseline`` (per category and overall), ``ingest_seconds`` and ``rounds`` statistics.

    Raises:
        InputFormatError: malformed file.
    """
    conversations = read_locomo(path)
    per_state: list[tuple[int, dict[int, float]]] = []
    per_base: list[tuple[int, dict[int, float]]] = []
    ingest_seconds = 0.0
    actions: dict[str, int] = defaultdict(int)
    for conv in conversations:
        scoped, scoped_base = mem.scoped(f"{prefix}-{conv.id}"), mem.scoped(f"{prefix}-base-{conv.id}")
        for m in (scoped, scoped_base):
            m.delete_namespace()
        memory = scoped.state
        began = time.monotonic()
        memory.ingest([conv])
        ingest_seconds += time.monotonic() - began
        logger.info("state eval %s: ingested in %.1f s", conv.id, time.monotonic() - began)
        _baseline_ingest(scoped_base, conv)
        base_store = StateStore(mem.runner, scoped_base.namespace)
        qa = conv.qa[:max_questions] if max_questions else conv.qa
        for item in qa:
            if not item.evidence:
                continue
            run = memory._run(item.question, max(KS), 4, None)  # the whole ranked pool
            for r in run["rounds"]:
                actions[r.action] += 1
            ranked_ids = list(dict.fromkeys(s for h in run["ranked"] for s in h.source_ids))
            per_state.append((item.category, {k: recall_at(ranked_ids, item.evidence, k) for k in KS}))
            base_hits = base_store.search_events(mem.embedder.embed_query(item.question), max(KS))
            base_ids = list(dict.fromkeys(s for h in base_hits for s in h.source_ids))
            per_base.append((item.category, {k: recall_at(base_ids, item.evidence, k) for k in KS}))
        if not keep:
            for m in (scoped, scoped_base):
                m.delete_namespace()
    return {"dataset": str(path), "conversations": len(conversations),
            "state": _summarise(per_state), "baseline": _summarise(per_base),
            "ingest_seconds": round(ingest_seconds, 1), "controller": "heuristic",
            "actions": dict(actions)}


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
