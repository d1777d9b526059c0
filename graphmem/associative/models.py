"""Pydantic models of the associative memory (MRAgent, seed 003): what goes in, what the
extractors produce, and what reconstruction returns.

Terms follow the paper: a cue ``c`` (entity, attribute, time, action, keyword), a tag ``g`` (a short
association saying how the cue leads to the content), a content ``v`` (an Episode or a
SemanticUnit), themes (the abstraction layer), and the reconstruction state ``S = (Z, H)``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from graphmem.errors import EmptyTextError
from graphmem.memory import PathStep, RecallItem

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
        """The text stored: ``"<speaker>: <text>"`` (the raw turn). Derived, so not checked
        against ``MAX_TEXT_CHARS`` again: the limit applies to ``text`` (checked by
        :func:`graphmem.associative.construction.episodes_of`), and the embedding input built
        from it is cut by :func:`graphmem.validation.clip_derived`."""
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


class AssociativeItem(RecallItem):
    """One recalled content of the reconstructed context ``H`` (MRAgent §4), in final rank order.

    Attributes:
        kind: ``"episode"`` (a conversation turn).
        score: the retrieval engine's final score (:mod:`graphmem.retrieval.fusion`: lexical +
            dense fusion, neighbour, entity and graph steps); higher is better, comparable within
            one recall.
        source_ids: turn ids (LoCoMo ``dia_id``) the content rests on.
        path: the hops from the question: the engine's seed (``lexical_seed`` / ``dense_seed``),
            ``NEXT_TURN`` / ``mentions`` steps, or question cue -> tag -> content when the graph
            step lifted it most.
        conversation_id: the conversation it belongs to; occurred_at: ISO time of the turn.
        similarity: cosine in [-1, 1] of the question and the episode's window vector;
            graph_score: the graph step ``g_i`` it earned; round: the round that lifted it into the
            top (1 = seed);
        found_by: the actions that reached it.
        facts: semantic units (distilled facts) the reconstruction reached that derive from it.
        passage: ``{"start", "end", "text"}`` of the passage of the turn whose vector gave its
            dense score (a long message, :mod:`graphmem.retrieval.passages`; ``text`` = that
            slice of the turn), None when its window vector did.
    """

    memory: str = "associative"
    kind: ContentKind
    conversation_id: str = ""
    occurred_at: str | None = None
    similarity: float = 0.0
    graph_score: float = 0.0
    round: int = 1
    found_by: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    passage: dict[str, Any] | None = None
