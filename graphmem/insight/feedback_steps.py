"""Feedback records and the write steps of one feedback (EvoGraph-Mem eqs. 11–12), pure except
the embedder: validation of a record, the controller plan as named write steps, and the node
counts the writes report."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import pydantic

from graphmem.embeddings import Embedder
from graphmem.errors import EmptyTextError, InvalidInputError, TrajectoryError
from graphmem.insight.models import ControllerPlan, DecisionRecord, FeedbackInput, FeedbackResult
from graphmem.insight.store import InsightStore
from graphmem.names import node_id

logger = logging.getLogger(__name__)

#: Write query -> the label whose created nodes its ``created`` column counts.
CREATED_LABEL = {"insight/merge_query": "Query", "insight/merge_steps": "Step",
                 "insight/revise_insight": "Insight", "insight/add_insight": "Insight",
                 "insight/record_decisions": "ControllerDecision"}


def parse_feedback(data: Any) -> FeedbackInput:
    """Validate one feedback record (dict or :class:`FeedbackInput`).

    Raises:
        EmptyTextError: empty query (names the value).
        TrajectoryError: a trajectory that is not a list of non-empty strings (names the step).
        InvalidInputError: any other bad field (e.g. a status other than failed/resolved).
    """
    if isinstance(data, FeedbackInput):
        return data
    try:
        return FeedbackInput.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        message = f"feedback field {where!r}: {first['msg']} (got {first.get('input')!r})"
        if first["loc"][:1] == ("query",):
            raise EmptyTextError(message) from None
        if first["loc"][:1] == ("trajectory",):
            raise TrajectoryError(message) from None
        raise InvalidInputError(message) from None


def plan_steps(st: InsightStore, embedder: Embedder, item: FeedbackInput, qid: str,
               vector: np.ndarray, related: list[dict],
               plan: ControllerPlan) -> tuple[list, FeedbackResult]:
    """The write steps of one feedback (eqs. 11–12), for ONE transaction: the query node, its
    interaction graph, RELATED_QUERY edges, the controller's edits (KEEP / ARCHIVE / REVISE
    evidence, new versions), ADD, and one ControllerDecision per decision. Embeds revised and
    added insight texts. Returns ``(steps, result)`` (``result.created`` filled by the caller).
    """
    namespace = st.namespace
    resolved = item.status == "resolved"
    steps = [st.merge_query(qid, item.query, item.status, vector)]
    if item.trajectory:
        steps.append(st.merge_steps(qid, [
            {"id": node_id(namespace, "step", qid, i), "position": i, "content": text}
            for i, text in enumerate(item.trajectory)]))
    if related:
        steps.append(st.merge_related(qid, related))

    new_texts = [e.revised_content for e in plan.edits if e.operation == "REVISE"]
    if plan.add:
        new_texts.append(plan.add_content)
    new_vectors = iter(embedder.embed_documents(new_texts)) if new_texts else iter(())

    positive, negative, archived, revised = [], [], [], {}
    for edit in plan.edits:
        if edit.operation == "REVISE":
            new_id = node_id(namespace, "insight", "revision", edit.insight_id)
            steps.append(st.revise(edit.insight_id, new_id, edit.revised_content or "",
                                   next(new_vectors)))
            revised[edit.insight_id] = new_id
            (positive if resolved else negative).append(edit.insight_id)
            if resolved:
                positive.append(new_id)
        elif edit.operation == "ARCHIVE":
            negative.append(edit.insight_id)
            archived.append(edit.insight_id)
        else:
            (positive if resolved else negative).append(edit.insight_id)
    if positive:
        steps.append(st.evidence(qid, positive, positive=True))
    if negative:
        steps.append(st.evidence(qid, negative, positive=False))
    if archived:
        steps.append(st.archive(archived))

    added_id = None
    if plan.add:
        added_id = node_id(namespace, "insight", "add", qid)
        kept = [e.insight_id for e in plan.edits if e.operation == "KEEP"] if resolved else []
        steps.append(st.add_insight(added_id, qid, plan.add_content or "", next(new_vectors),
                                    kept))

    decisions = [
        DecisionRecord(id=node_id(namespace, "decision", qid, e.insight_id),
                       operation=e.operation, controller=plan.controller, reason=e.reason,
                       insight_id=e.insight_id, result_insight_id=revised.get(e.insight_id))
        for e in plan.edits
    ]
    decisions.append(DecisionRecord(
        id=node_id(namespace, "decision", qid, "add"),
        operation="ADD" if plan.add else "NO_ADD", controller=plan.controller,
        reason=plan.add_reason, result_insight_id=added_id))
    steps.append(st.record_decisions(qid, [
        {**d.model_dump(), "status": item.status, "operation_set": plan.operation_set.value}
        for d in decisions]))
    result = FeedbackResult(
        query_id=qid, status=item.status, controller=plan.controller,
        operation_set=plan.operation_set, related_query_ids=[r["id"] for r in related],
        decisions=decisions, added_insight_id=added_id, revised=revised, archived=archived)
    return steps, result


def created_counts(steps: Sequence[tuple[str, dict]], answers: Sequence[list]) -> dict[str, int]:
    """Nodes created by label from the answers of a feedback transaction's write steps (each
    query of :data:`CREATED_LABEL` returns a ``created`` column)."""
    out: dict[str, int] = {}
    for (name, _params), rows in zip(steps, answers, strict=True):
        label = CREATED_LABEL.get(name)
        if label is not None:
            made = sum(int(r["created"]) for r in rows)
            if made:
                out[label] = out.get(label, 0) + made
    return out
