"""Pydantic models of the associative memory (MRAgent, seed 003): what goes in, what the
extractors produce, and what reconstruction returns.

Terms follow the paper: a cue ``c`` (entity, attribute, time, action, keyword), a tag ``g`` (a short
association saying how the cue leads to the content), a content ``v`` (an Episode or a
SemanticUnit), themes (the abstraction layer), and the reconstruction state ``S = (Z, H)``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from graphmem.errors import EmptyTextError
from graphmem.llm import LLMUsage

CueKind = Literal["entity", "attribute", "time", "action", "keyword"]
CUE_KINDS: tuple[str, ...] = ("entity", "attribute", "time", "action", "keyword")
ContentKind = Literal["episode", "semantic_unit"]
Structure = Literal["ce", "cte", "ctc"]


def _non_empty(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EmptyTextError(f"{what} is empty: {value!r}")
    return value.strip()


class EpisodeInput(BaseModel):
    """One episodic unit (a conversation turn) to store as an Episode.

    ``source_id`` is the turn's id in its source (LoCoMo ``dia_id``); ``position`` its index on the
    conversation's timeline; ``occurred_at`` its time (timezone-aware).
    """

    conversation_id: str
    source_id: str
    speaker: str
    text: str
    occurred_at: datetime
    session: str = ""
    position: int = Field(ge=0)

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        return _non_empty(value, "episode text")

    @field_validator("source_id", "conversation_id", "speaker")
    @classmethod
    def _ids(cls, value: str) -> str:
        return _non_empty(value, "episode source_id/conversation_id/speaker")

    @property
    def content(self) -> str:
        """The text stored and embedded: ``"<speaker>: <text>"`` (the raw turn)."""
        return f"{self.speaker}: {self.text}"


class CueLink(BaseModel):
    """One (cue, tag) pair attached to a content: ``F_cue`` gives the cue, ``F_tag`` the tag."""

    cue: str = Field(description="the cue text (entity, attribute, time, action or key word)")
    kind: CueKind = Field(description="entity | attribute | time | action | keyword")
    tag: str = Field(description="short phrase saying how the cue leads to the content")

    @field_validator("cue", "tag")
    @classmethod
    def _texts(cls, value: str) -> str:
        return _non_empty(value, "cue/tag text")


class SemanticFact(BaseModel):
    """A stable fact or preference distilled from an episode, with its own cues and tags."""

    text: str = Field(description="the fact, one short sentence naming its subject")
    kind: Literal["fact", "preference"] = "fact"
    cues: list[CueLink] = Field(default_factory=list)

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        return _non_empty(value, "semantic unit text")


class EpisodeExtraction(BaseModel):
    """What an extractor returns for one episode: its cues with tags, and semantic units."""

    cues: list[CueLink] = Field(default_factory=list)
    semantic_units: list[SemanticFact] = Field(default_factory=list)


class IngestReport(BaseModel):
    """Counts of one ingest (rows sent; MERGE makes a repeated ingest create nothing)."""

    namespace: str
    conversations: int = 0
    episodes: int = 0
    cues: int = 0
    tags: int = 0
    cue_tag_content_triples: int = 0
    semantic_units: int = 0
    themes: int = 0
    extractor: str = "heuristic"
    seconds: float = 0.0
    llm_calls: int = 0
    llm_usage: LLMUsage = Field(default_factory=LLMUsage)


class PathStep(BaseModel):
    """One hop of the path that reached a piece of evidence."""

    action: Literal[
        "question_cue_text", "question_cue_vector", "vector_seed", "cue_to_tag",
        "cue_tag_to_content", "cue_to_content", "content_to_cue", "theme_to_episode",
        "question_theme",
    ]
    node: Literal["question", "cue", "tag", "episode", "semantic_unit", "theme"]
    id: str
    text: str


class Evidence(BaseModel):
    """A content in the reconstructed context ``H``.

    ``score`` is the router's score (cosine to the question in [-1, 1] plus the graph bonus);
    ``rank_score`` the fused score used for the final order; ``path`` the hops that reached it.
    """

    id: str
    kind: ContentKind
    text: str
    source_ids: list[str]
    conversation_id: str = ""
    occurred_at: str | None = None
    similarity: float = 0.0
    graph_score: float = 0.0
    score: float = 0.0
    rank_score: float = 0.0
    round: int = 0
    path: list[PathStep] = Field(default_factory=list)
    found_by: list[str] = Field(default_factory=list, description="actions that reached it")


class RoundTrace(BaseModel):
    """What one reconstruction round did: candidates per action, what was routed, what was
    added to ``H``, and the stop decision."""

    round: int
    active_cues: list[str] = Field(default_factory=list)
    candidates: dict[str, int] = Field(default_factory=dict)
    selected_tags: list[str] = Field(default_factory=list)
    new_evidence: list[str] = Field(default_factory=list)
    new_cues: list[str] = Field(default_factory=list)
    stop: bool = False
    stop_reason: str | None = None


class RecallResult(BaseModel):
    """The result of active reconstruction: evidence (best first) with paths, and the trace."""

    question: str
    namespace: str
    controller: Literal["heuristic", "llm"]
    structure: Structure = "ctc"
    rounds: int
    stop_reason: str
    evidence: list[Evidence]
    trace: list[RoundTrace]
    llm_calls: int = 0
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    llm_usage: LLMUsage = Field(default_factory=LLMUsage)

    def ranked_source_ids(self, k: int | None = None) -> list[str]:
        """Source ids (e.g. LoCoMo ``dia_id``) of the evidence in rank order, deduplicated,
        first ``k`` (all when ``None``)."""
        seen: list[str] = []
        for item in self.evidence:
            for sid in item.source_ids:
                if sid not in seen:
                    seen.append(sid)
        return seen if k is None else seen[:k]
