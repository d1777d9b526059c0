"""The graph controller (seed 000, eqs. 11–12): per retrieved insight KEEP / ARCHIVE / REVISE,
and separately whether to ADD a new insight. Two controllers, same output
(:class:`~graphmem.insight.models.ControllerPlan`):

* :class:`HeuristicInsightController` — deterministic rules on Ψ and the evidence counts (default
  without an LLM; its reasons start with ``heuristic:``).
* :class:`LLMInsightController` — a langchain-core chat model with structured output whose schema only
  admits the operations of the chosen :class:`OperationSet` and the retrieved insight ids.

Neither writes anything: the memory writes the plan in one transaction afterwards, so an LLM that
fails twice (:class:`~graphmem.errors.ControllerError`) leaves the graph untouched.
"""

from __future__ import annotations

import logging
import json
from collections.abc import Sequence
from typing import Any, Literal, Optional, Protocol, runtime_checkable

from pydantic import BaseModel, Field, create_model, model_validator

from graphmem.insight.models import (
    ControllerPlan,
    InsightState,
    OperationSet,
    PlannedEdit,
    Status,
)
from graphmem.insight.rendering import render_insight
from graphmem.llm import LLMUsage, constrained_schema, invoke_structured

logger = logging.getLogger(__name__)

CONTROLLER_OPERATION = "insight.controller"


@runtime_checkable
class InsightController(Protocol):
    """What the insight memory needs of a graph controller (eqs. 11–12): a ``name``
    (``"heuristic"`` / ``"llm"``) and ``decide(input, operations, usage) -> ControllerPlan``
    (no writes; LLM calls counted into ``usage``)."""

    name: str

    def decide(self, ctx: ControllerInput, operations: OperationSet,
               usage: LLMUsage) -> ControllerPlan: ...


class ControllerInput(BaseModel):
    """What the controller sees: Q, Ψ, the trajectory and the retrieved (active) insights."""

    query: str
    query_id: str
    status: Status
    trajectory: list[str] = Field(default_factory=list)
    retrieved: list[InsightState] = Field(default_factory=list)
    related_query_ids: list[str] = Field(
        default_factory=list, description="RELATED_QUERY neighbours of this query (E_q)")


class HeuristicPolicy(BaseModel):
    """Thresholds of the heuristic controller.

    Attributes:
        archive_margin: ARCHIVE once |Ω−| − |Ω+| ≥ this (counting the current failure).
    """

    archive_margin: int = Field(2, ge=1)


class HeuristicInsightController:
    """Deterministic controller (the default without an LLM). Rules:

    * Ψ = resolved → KEEP each retrieved insight; the query joins its Ω+.
    * Ψ = failed → the query joins Ω− of each retrieved insight; ARCHIVE it when ARCHIVE is
      allowed and |Ω−| − |Ω+| ≥ ``archive_margin`` afterwards, else KEEP.
    * Never REVISE (rewriting content needs an LLM).
    * ADD (eq. 12) when Ψ = resolved, the trajectory is non-empty and no retrieved insight is
      already backed by this query's neighbourhood (Ω+ ∩ ({q} ∪ N(q)) = ∅, N = RELATED_QUERY
      neighbours found at insert); κ̂ is :func:`render_insight` of the trajectory.
    """

    name = "heuristic"

    def __init__(self, policy: HeuristicPolicy | None = None):
        self.policy = policy or HeuristicPolicy()

    def decide(self, ctx: ControllerInput, operations: OperationSet, usage: LLMUsage) -> ControllerPlan:
        """The plan for one task; ``usage`` is untouched (no LLM calls)."""
        edits = []
        for ins in ctx.retrieved:
            pos, neg = ins.positive_evidence, ins.negative_evidence
            if ctx.status == "resolved":
                if ctx.query_id not in ins.supporting_query_ids:
                    pos += 1
                edits.append(PlannedEdit(
                    insight_id=ins.id, operation="KEEP",
                    reason=f"heuristic: task resolved; query joins Ω+ (|Ω+|={pos}, |Ω−|={neg})"))
                continue
            if ctx.query_id not in ins.conflicting_query_ids:
                neg += 1
            margin = neg - pos
            if "ARCHIVE" in operations.edit_operations and margin >= self.policy.archive_margin:
                edits.append(PlannedEdit(
                    insight_id=ins.id, operation="ARCHIVE",
                    reason=(f"heuristic: task failed; query joins Ω−; |Ω−|-|Ω+| = {neg}-{pos} = "
                            f"{margin} >= margin {self.policy.archive_margin}")))
            else:
                edits.append(PlannedEdit(
                    insight_id=ins.id, operation="KEEP",
                    reason=(f"heuristic: task failed; query joins Ω− (|Ω+|={pos}, |Ω−|={neg}, "
                            f"margin {margin} < {self.policy.archive_margin}"
                            + ("" if "ARCHIVE" in operations.edit_operations
                               else "; ARCHIVE not in the operation set") + ")")))
        neighbourhood = {ctx.query_id, *ctx.related_query_ids}
        confirmed = [i.id for i in ctx.retrieved if neighbourhood & set(i.supporting_query_ids)]
        if ctx.status != "resolved":
            add, reason = False, "heuristic: task failed; nothing to distil"
        elif not ctx.trajectory:
            add, reason = False, "heuristic: resolved but the trajectory is empty"
        elif confirmed:
            add, reason = False, (f"heuristic: retrieved insight(s) {confirmed} already backed "
                                  "by this query or its related queries")
        else:
            add, reason = True, ("heuristic: resolved and no retrieved insight is backed by "
                                 "this query or its related queries")
        return ControllerPlan(
            controller="heuristic",
            operation_set=operations,
            edits=edits,
            add=add,
            add_content=render_insight(ctx.query, ctx.trajectory) if add else None,
            add_reason=reason,
        )


SYSTEM_PROMPT = """You are the graph controller of an insight memory for language agents.
After a task, you judge every insight that was retrieved for it and say whether the task
yields a new reusable insight.
For each retrieved insight output exactly one edit with an operation from: {operations}.
- KEEP: the insight stays active (its evidence is updated from the task outcome).
- ARCHIVE: the insight is invalid, over-generalized or harmful here; deactivate it.
- REVISE: the insight is useful but must be rewritten; give revised_content (the new text).
Separately set add=true only if the task yields a new, reusable insight not covered by the
retrieved ones, and give it as new_insight (one or two sentences, general, actionable).
Give a short reason for each decision."""


def controller_schema(operations: OperationSet, insight_ids: Sequence[str]) -> type[BaseModel]:
    """A structured-output schema named ``ControllerOutput`` that only admits the operations of
    ``operations`` and the given insight ids, requires exactly one edit per id, a
    ``revised_content`` for REVISE and a ``new_insight`` when ``add`` is true."""
    ops = Literal[operations.edit_operations]  # type: ignore[valid-type]
    ids = Literal[tuple(insight_ids)] if insight_ids else str  # type: ignore[valid-type]
    edit = create_model(
        "InsightEdit",
        insight_id=(ids, Field(description="id of a retrieved insight")),
        operation=(ops, Field(description="edit operation")),
        reason=(str, Field(description="why")),
        revised_content=(Optional[str], Field(None, description="new text, REVISE only")),
    )
    wanted = sorted(insight_ids)

    def _check(self: Any) -> Any:
        got = sorted(e.insight_id for e in self.edits)
        if got != wanted:
            raise ValueError(f"need exactly one edit for each of {wanted}, got {got}")
        for e in self.edits:
            if e.operation == "REVISE" and not (e.revised_content or "").strip():
                raise ValueError(f"REVISE of {e.insight_id} lacks revised_content")
        if self.add and not (self.new_insight or "").strip():
            raise ValueError("add is true but new_insight is empty")
        return self

    return create_model(
        "ControllerOutput",
        __validators__={"check_plan": model_validator(mode="after")(_check)},
        edits=(list[edit], Field(description="one edit per retrieved insight")),
        add=(bool, Field(description="does the task yield a new reusable insight")),
        new_insight=(Optional[str], Field(None, description="the new insight if add")),
        add_reason=(str, Field("", description="why add or not")),
    )


def controller_json_schema(model: type[BaseModel], operations: OperationSet,
                           insight_ids: Sequence[str]) -> dict[str, Any]:
    """The call-specific JSON schema of one controller call: ``model`` (from
    :func:`controller_schema`) with exactly one edit per retrieved insight id, in order; the
    operation from ``operations`` only; a non-blank reason per edit; ``revised_content``
    required and non-blank with REVISE; ``new_insight`` required and non-blank when ``add`` is
    true. Without retrieved insights, ``edits`` must be empty."""
    edit_ops = list(operations.edit_operations)
    required_if: dict[str, tuple[str, Any]] = {"new_insight": ("add", True)}
    if "REVISE" in edit_ops:
        required_if["edits.revised_content"] = ("operation", "REVISE")
    if not insight_ids:
        return constrained_schema(model, enums={"edits.operation": edit_ops},
                                  min_length=["edits.reason"], max_items={"edits": 0},
                                  required_if={"new_insight": ("add", True)})
    return constrained_schema(model, enums={"edits.operation": edit_ops},
                              min_length=["edits.reason"],
                              one_each={"edits.insight_id": list(insight_ids)},
                              required_if=required_if)


class LLMInsightController:
    """Prompt-constrained LLM controller (the paper's instantiation).

    Args:
        llm: a langchain-core ``BaseChatModel`` supporting ``with_structured_output``.
    Raises (from :meth:`decide`):
        ControllerError: invalid output twice (one retry), via :func:`graphmem.llm.invoke_structured`.
    """

    name = "llm"

    def __init__(self, llm: Any, max_trajectory_steps: int = 30):
        self.llm = llm
        self.max_trajectory_steps = max_trajectory_steps

    def messages(self, ctx: ControllerInput, operations: OperationSet) -> list[tuple[str, str]]:
        """The system and human messages for one task."""
        payload = {
            "query": ctx.query,
            "status": ctx.status,
            "trajectory": ctx.trajectory[: self.max_trajectory_steps],
            "retrieved_insights": [
                {"id": i.id, "content": i.content, "positive_evidence": i.positive_evidence,
                 "negative_evidence": i.negative_evidence, "version": i.version}
                for i in ctx.retrieved
            ],
        }
        return [
            ("system", SYSTEM_PROMPT.format(operations=", ".join(operations.edit_operations))),
            ("human", json.dumps(payload, ensure_ascii=False, indent=1)),
        ]

    def decide(self, ctx: ControllerInput, operations: OperationSet, usage: LLMUsage) -> ControllerPlan:
        """Ask the LLM once (plus one retry) and convert its output into a plan.

        The call decodes under (and is checked against) :func:`controller_json_schema`.

        Raises:
            ControllerError: invalid or rule-breaking output twice.
        """
        ids = [i.id for i in ctx.retrieved]
        schema = controller_schema(operations, ids)
        out = invoke_structured(self.llm, schema, self.messages(ctx, operations), usage,
                                CONTROLLER_OPERATION,
                                json_schema=controller_json_schema(schema, operations, ids))
        return ControllerPlan(
            controller="llm",
            operation_set=operations,
            edits=[PlannedEdit(insight_id=e.insight_id, operation=e.operation,
                               reason=f"llm: {e.reason}", revised_content=e.revised_content)
                   for e in out.edits],
            add=out.add,
            add_content=out.new_insight if out.add else None,
            add_reason=f"llm: {out.add_reason}",
        )
