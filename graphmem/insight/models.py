"""Pydantic models in and out of the insight memory (EvoGraph-Mem, seed 000)."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from graphmem.errors import InvalidInputError
from graphmem.llm import LLMUsage
from graphmem.memory import RecallItem
from graphmem.validation import MAX_ACTION_CHARS, validate_text

Status = Literal["failed", "resolved"]
EditOperation = Literal["KEEP", "ARCHIVE", "REVISE"]


class OperationSet(str, Enum):
    """Operations the graph controller may use (the paper's ablation, Fig. 3).

    ``add_keep``: only ADD and KEEP; ``add_keep_archive``: also ARCHIVE; ``all``: also REVISE.
    """

    ADD_KEEP = "add_keep"
    ADD_KEEP_ARCHIVE = "add_keep_archive"
    ALL = "all"

    @property
    def edit_operations(self) -> tuple[str, ...]:
        """The eq. 11 operations this set allows (ADD, eq. 12, is always allowed)."""
        return {
            "add_keep": ("KEEP",),
            "add_keep_archive": ("KEEP", "ARCHIVE"),
            "all": ("KEEP", "ARCHIVE", "REVISE"),
        }[self.value]


class RecallParams(BaseModel):
    """Default retrieval parameters: ``query_k`` similar queries (eq. 2), ``lam`` = λ ≥ 0 conflict
    penalty (eq. 8), ``k`` = B insights returned (eq. 10)."""

    query_k: int = Field(5, ge=1, le=200)
    lam: float = Field(1.0, ge=0.0, alias="lambda")
    k: int = Field(3, ge=1, le=200)

    model_config = {"populate_by_name": True}


class InsightItem(RecallItem):
    """One retrieved insight with the evidence that chose it (eqs. 7–10).

    ``text`` is the insight content κ; ``score`` = ``r`` = s − λc; ``s`` = |Ω+ ∩ Q̃ˢ|,
    ``c`` = |Ω− ∩ Q̃ˢ|; ``supporting_query_ids`` / ``conflicting_query_ids`` are those
    intersections (``source_ids`` = supporting then conflicting); ``positive_evidence`` /
    ``negative_evidence`` are the totals |Ω+|, |Ω−|; ``active`` is z (always true for recalled
    insights); ``path``: question -> query (similar_query or RELATED_QUERY) -> insight.
    """

    memory: str = "insight"
    kind: str = "insight"
    s: int
    c: int
    r: float
    version: int = 1
    active: bool = True
    supporting_query_ids: list[str] = Field(default_factory=list)
    conflicting_query_ids: list[str] = Field(default_factory=list)
    positive_evidence: int = 0
    negative_evidence: int = 0

    @property
    def content(self) -> str:
        """The insight content κ (= ``text``)."""
        return self.text


class InsightState(BaseModel):
    """Current state of one insight: κ, z, version and its full evidence Ω+, Ω−."""

    id: str
    content: str
    active: bool
    version: int = 1
    positive_evidence: int = 0
    negative_evidence: int = 0
    supporting_query_ids: list[str] = Field(default_factory=list)
    conflicting_query_ids: list[str] = Field(default_factory=list)


class FeedbackInput(BaseModel):
    """Post-task feedback: query Q, status Ψ, the trajectory (steps of G_inter) and the ids of the
    insights that were retrieved for it. ``retrieved=None`` means "recall them now". Limits:
    the query at most ``MAX_TEXT_CHARS`` characters, each step ``MAX_ACTION_CHARS``."""

    query: str
    status: Status
    trajectory: list[str] = Field(default_factory=list)
    retrieved: list[str] | None = None
    task_id: str | None = None

    @field_validator("query")
    @classmethod
    def _query_not_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(f"query is empty: {value[:40]!r}")
        try:
            return validate_text(value, "query")
        except InvalidInputError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("trajectory")
    @classmethod
    def _steps_not_empty(cls, value: list[str]) -> list[str]:
        for i, step in enumerate(value):
            if not step.strip():
                raise ValueError(f"trajectory step {i} is empty: {step!r}")
            if len(step) > MAX_ACTION_CHARS:
                raise ValueError(f"trajectory step {i} has {len(step)} characters, more than "
                                 f"the limit MAX_ACTION_CHARS={MAX_ACTION_CHARS}: "
                                 f"{step[:40]!r}...")
        return value


class PlannedEdit(BaseModel):
    """The controller's operation o_k for one retrieved insight (eq. 11)."""

    insight_id: str
    operation: EditOperation
    reason: str
    revised_content: str | None = None


class ControllerPlan(BaseModel):
    """Output of the graph controller: one edit per retrieved insight (eq. 11) and the separate
    ADD decision a ∈ {0, 1} with the new insight κ̂ (eq. 12)."""

    controller: Literal["heuristic", "llm"]
    operation_set: OperationSet
    edits: list[PlannedEdit] = Field(default_factory=list)
    add: bool = False
    add_content: str | None = None
    add_reason: str = ""


class DecisionRecord(BaseModel):
    """One audited decision as written to a ControllerDecision node."""

    id: str
    operation: Literal["KEEP", "ARCHIVE", "REVISE", "ADD", "NO_ADD"]
    controller: Literal["heuristic", "llm"]
    reason: str
    insight_id: str | None = None
    result_insight_id: str | None = None


class FeedbackResult(BaseModel):
    """What one ``feedback`` call changed."""

    query_id: str
    status: Status
    controller: Literal["heuristic", "llm"]
    operation_set: OperationSet
    related_query_ids: list[str] = Field(default_factory=list)
    decisions: list[DecisionRecord] = Field(default_factory=list)
    added_insight_id: str | None = None
    revised: dict[str, str] = Field(default_factory=dict, description="old id -> new id")
    archived: list[str] = Field(default_factory=list)
    skipped_inactive: list[str] = Field(default_factory=list)
    created: dict[str, int] = Field(default_factory=dict,
                                    description="nodes created by label (from the write answers)")
    llm_usage: LLMUsage = Field(default_factory=LLMUsage,
                                description="the controller's LLM calls (zero when heuristic)")

    def count(self, operation: str) -> int:
        """How many decisions have ``operation``."""
        return sum(1 for d in self.decisions if d.operation == operation)


class InsightHistory(BaseModel):
    """An insight's audit trail: state, evidence, revision chain and decisions."""

    id: str
    content: str
    active: bool
    version: int
    positive_evidence: int
    negative_evidence: int
    supporting_query_ids: list[str]
    conflicting_query_ids: list[str]
    revision_of: list[str]
    revised_by: list[str]
    contextualized_by: list[dict]
    decisions: list[dict]
