"""Recall results of the four memories as LangChain ``Document``s (pure; no I/O).

Every document has ``page_content`` (the text an LLM should read), ``id`` (the node id) and the
same metadata keys whatever the memory:

- ``memory``: ``"insight" | "experience" | "state" | "associative"``
- ``namespace``: the tenant the node belongs to
- ``node_ids``: the node itself first, then the nodes that explain it (evidence queries, neighbour
  tasks, topic, path nodes)
- ``score``: the memory's own ranking score (insight r = s − λc; experience cosine in [-1, 1];
  state fused hit score; associative fused rank score)
- ``rank``: 1-based position in the memory's ranking
- ``kind``: what the node is (``insight``, ``task``, ``event``, ``state``, ``episode``,
  ``semantic_unit``)
- ``provenance``: where it came from — ``supporting_query_ids`` (insight), ``task_ids``
  (experience), ``dia_ids`` (state, associative: LoCoMo turn ids), ``path`` (associative hops)
- ``fusion_key``: what the combined retriever fuses on — the node id, except for a raw
  conversation turn (state Event, associative Episode), where it is the turn's source ids plus a
  hash of its text, so the same turn found by both memories counts as one document

Values are JSON types only (datetimes as ISO 8601 strings).
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from langchain_core.documents import Document


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _dedupe(ids: list[str | None]) -> list[str]:
    return list(dict.fromkeys(i for i in ids if i))


def turn_key(source_ids: list[str], text: str) -> str:
    """Fusion key of a raw conversation turn: its source ids and a SHA-1 of its text."""
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]
    return f"turn:{'|'.join(source_ids)}:{digest}"


def _doc(content: str, node: str, memory: str, namespace: str, rank: int, score: float, kind: str,
         node_ids: list[str | None], provenance: dict[str, Any], fusion_key: str | None = None
         ) -> Document:
    metadata = {"memory": memory, "namespace": namespace, "node_ids": _dedupe([node, *node_ids]),
                "score": float(score), "rank": rank, "kind": kind, "provenance": provenance,
                "fusion_key": fusion_key or node}
    return Document(page_content=content, id=node, metadata=metadata)


def insight_documents(result: Any, namespace: str) -> list[Document]:
    """Documents of an insight :class:`graphmem.insight.RecallResult` (EvoGraph-Mem eqs. 7–10):
    one per insight; ``score`` = r = s − λc; provenance = Ω+ ∩ Q̃ˢ and Ω− ∩ Q̃ˢ query ids."""
    return [
        _doc(i.content, i.id, "insight", namespace, rank, i.r, "insight",
             [*i.supporting_query_ids, *i.conflicting_query_ids],
             {"supporting_query_ids": list(i.supporting_query_ids),
              "conflicting_query_ids": list(i.conflicting_query_ids),
              "s": i.s, "c": i.c, "version": i.version,
              "positive_evidence": i.positive_evidence, "negative_evidence": i.negative_evidence})
        for rank, i in enumerate(result.insights, start=1)
    ]


def _experience_text(exp: Any) -> str:
    lines = [f"Task: {exp.task.query}"]
    if exp.task.intra_insight:
        lines.append(f"Insight: {exp.task.intra_insight}")
    for cross in exp.cross:
        if cross.insight:
            lines.append(f"Related task {cross.neighbour_key}: {cross.insight}")
    return "\n".join(lines)


def experience_documents(result: Any, namespace: str) -> list[Document]:
    """Documents of an experience :class:`graphmem.experience.RecallResult` (EMG eq. 7): one per
    recalled task — its query, intra-task insight and the top-T cross-task insights; ``score`` =
    cosine of the task query to the question; provenance = the task ids (own key first, then
    the SIMILAR_TASK neighbours')."""
    docs = []
    for rank, exp in enumerate(result.experiences, start=1):
        task = exp.task
        docs.append(_doc(
            _experience_text(exp), task.id, "experience", namespace, rank, task.similarity, "task",
            [c.neighbour_id for c in exp.cross],
            {"task_ids": _dedupe([task.task_key, *(c.neighbour_key for c in exp.cross)]),
             "task_type": task.task_type, "reward": task.reward,
             "renderer": task.intra_renderer,
             "cross_similarities": {c.neighbour_key: c.similarity for c in exp.cross}}))
    return docs


def state_documents(result: Any, namespace: str) -> list[Document]:
    """Documents of a state :class:`graphmem.state.RecallResult` (EMIR² §3.3): one per hit
    (Event or State); provenance = the source turn ids (LoCoMo ``dia_id``), topic, validity
    interval and the retrieval actions that found it."""
    return [
        _doc(h.text, h.id, "state", namespace, rank, h.score, h.kind, [h.topic_id],
             {"dia_ids": list(h.source_ids), "topic": h.topic, "topic_id": h.topic_id,
              "occurred_at": _iso(h.occurred_at), "valid_from": _iso(h.valid_from),
              "valid_to": _iso(h.valid_to), "current": h.current, "conflict": h.conflict,
              "found_by": list(h.found_by)},
             turn_key(list(h.source_ids), h.text) if h.kind == "event" and h.source_ids else None)
        for rank, h in enumerate(result.hits, start=1)
    ]


def associative_documents(result: Any, namespace: str) -> list[Document]:
    """Documents of an associative :class:`graphmem.associative.RecallResult` (MRAgent active
    reconstruction): one per evidence item; ``score`` = the fused rank score; provenance = source
    turn ids (``dia_id``) and the evidence path (question → cue → tag → content hops)."""
    docs = []
    for rank, ev in enumerate(result.evidence, start=1):
        path = [step.model_dump() for step in ev.path]
        docs.append(_doc(
            ev.text, ev.id, "associative", namespace, rank, ev.rank_score, ev.kind,
            [step["id"] for step in path if step["node"] != "question"],
            {"dia_ids": list(ev.source_ids), "conversation_id": ev.conversation_id,
             "occurred_at": ev.occurred_at, "round": ev.round, "similarity": ev.similarity,
             "found_by": list(getattr(ev, "found_by", None) or []), "path": path},
            turn_key(list(ev.source_ids), ev.text) if ev.kind == "episode" and ev.source_ids
            else None))
    return docs


#: memory name -> converter of its RecallResult
CONVERTERS = {
    "insight": insight_documents,
    "experience": experience_documents,
    "state": state_documents,
    "associative": associative_documents,
}
