"""HotpotQA (distractor setting) supporting-fact recall@k: the second dataset the retrieval
parameters chosen on LoCoMo are confirmed on, with nothing tuned on it.

Each example's ten context paragraphs are stored as memory in a namespace of their own: one turn
per sentence, the paragraph's title as the speaker, the paragraph as the session, a fixed date
(documents carry no time). The question is then asked of the state memory, the associative memory
and the combined retriever (public recall, the items returned) and of the baselines over the same
sentence texts (``"title: sentence"``): BM25 (bm25s) and MiniLM cosine (``Neo4jVector``).
recall@k = supporting sentences among the first k distinct source ids / supporting sentences.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from graphmem.conversations import Conversation, Turn
from graphmem.datasets.hotpotqa import HotpotExample
from graphmem.evaluation.baselines import BM25Baseline, VectorBaseline
from graphmem.evaluation.locomo import MEMORY_METHODS, memory_rankings
from graphmem.evaluation.protocol import SHIPPED, RetrievalSetting, apply_setting
from graphmem.facade import GraphMemory
from graphmem.state.evaluation import recall_at

logger = logging.getLogger(__name__)

#: The date every sentence is stored with (documents carry no time).
DOCUMENT_DATE = datetime(2000, 1, 1, tzinfo=timezone.utc)
KS = (5, 10)


def as_conversation(example: HotpotExample) -> tuple[Conversation, list[str]]:
    """``(conversation, gold source ids)``: one turn per context sentence (source id
    ``p<paragraph>:s<sentence>``, speaker = title, session = paragraph)."""
    turns: list[Turn] = []
    where: dict[tuple[str, int], str] = {}
    for p, paragraph in enumerate(example.context):
        for j, sentence in enumerate(paragraph.sentences):
            text = sentence.strip() or paragraph.title
            source = f"p{p}:s{j}"
            where.setdefault((paragraph.title, j), source)
            turns.append(Turn(source_id=source, speaker=paragraph.title, text=text,
                              timestamp=DOCUMENT_DATE, session=f"p{p}", position=len(turns)))
    gold = list(dict.fromkeys(where[(f.title, f.sent_id)] for f in example.supporting_facts
                              if (f.title, f.sent_id) in where))
    conv = Conversation(id=f"hotpot-{example.id}", turns=turns,
                        speakers=list(dict.fromkeys(p.title for p in example.context)))
    return conv, gold


def evaluate_hotpotqa(mem: GraphMemory, examples: Sequence[HotpotExample], vector: VectorBaseline,
                      prefix: str, setting: RetrievalSetting = SHIPPED, keep: bool = False,
                      progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Supporting-fact recall@5 / @10 of the memories (under ``setting``) and the baselines.

    Returns:
        JSON-ready dict: ``examples``, ``supporting_facts``, ``recall`` ({method: {"@5", "@10"}}),
        ``by_type`` ({bridge|comparison: {method: {"@10"}}}), ``setting``, ``seconds``.
    """
    say = progress or (lambda _msg: None)
    began = time.perf_counter()
    methods = (*MEMORY_METHODS, "bm25", "cosine")
    values: dict[str, dict[int, list[float]]] = {m: {k: [] for k in KS} for m in methods}
    by_type: dict[str, dict[str, list[float]]] = {}
    facts = 0
    tenants = []
    try:
        for n, example in enumerate(examples):
            conv, gold = as_conversation(example)
            if not gold:
                continue
            facts += len(gold)
            tenant = mem.scoped(f"{prefix}-{n}")
            tenant.delete_namespace()
            tenants.append(tenant)
            tenant.state.ingest([conv])
            tenant.associative.ingest([conv])
            texts = [f"{t.speaker}: {t.text}" for t in conv.turns]
            vector.add(texts, mem.embedder.embed_documents(texts),
                       [{"conversation": conv.id, "source_id": t.source_id} for t in conv.turns],
                       [f"{conv.id}:{t.source_id}" for t in conv.turns])
            apply_setting(tenant, setting)
            ranked, _ = memory_rankings(tenant, example.question, max(KS), setting)
            ranked["bm25"] = BM25Baseline(texts, [t.source_id for t in conv.turns]).search(
                example.question, max(KS))
            ranked["cosine"] = [h["source_id"] for h in
                                vector.search(example.question, max(KS), conversation=conv.id)]
            for m in methods:
                for k in KS:
                    values[m][k].append(recall_at(ranked[m], gold, k))
                by_type.setdefault(example.type or "unknown", {}).setdefault(m, []).append(
                    recall_at(ranked[m], gold, 10))
            if (n + 1) % 10 == 0:
                say(f"hotpotqa: {n + 1} of {len(examples)} examples")
            if not keep:
                tenant.delete_namespace()
    finally:
        if not keep:
            for tenant in tenants:
                tenant.delete_namespace()
    count = len(values["bm25"][10])

    def mean(xs: list[float]) -> float:
        return round(sum(xs) / len(xs), 4) if xs else 0.0

    return {"examples": count, "supporting_facts": facts, "setting": setting.to_dict(),
            "recall": {m: {f"@{k}": mean(values[m][k]) for k in KS} for m in methods},
            "by_type": {t: {m: {"@10": mean(v), "examples": len(v)} for m, v in per.items()}
                        for t, per in sorted(by_type.items())},
            "seconds": round(time.perf_counter() - began, 1)}
