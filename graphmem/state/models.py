"""Pydantic models of the state memory (EMIR², seed 002): extraction output, ingest reports,
retrieval rounds and hits."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, Field

from graphmem.llm import LLMUsage

#: Intents of a question (EMIR² intent-guided retrieval, section 3.3).
Intent = Literal["temporal", "current", "history", "multi_hop", "factual"]

#: Retrieval actions a controller may pick in one round.
Action = Literal[
    "search_events",  # hybrid vector + keyword search over events
    "search_states",  # vector search over semantic states
    "current_state",  # the CURRENT_STATE of the best-matching topics
    "state_history",  # the SEMANTIC_NEXT chain (all states, closed ones too) of those topics
    "timeline",       # TEMPORAL_NEXT neighbours of the best events on their topic chain
    "cross_topic",    # RELATED_EVENT neighbours of the best events in other topics
    "time_range",     # events inside a date range named in the question
    "stop",
]


class Extraction(BaseModel):
    """What one episodic unit (turn) says, in SEMG terms. Both extractors fill this.

    Attributes:
        subject: whose fact it is (the speaker, or another person named in the turn).
        topic_key: an explicit topic key (structured input, LLM topic name); None lets the
            heuristic topic assigner place the event by embedding similarity.
        topic_name: readable topic name (used when a new Topic is created).
        assertion: the state the turn asserts about its topic, or None (no state claim).
        value: the asserted value, compared to decide confirm / change / conflict.
        condition: a condition the fact holds under ("for morning training"), kept on the state.
        mutable: False for facts that cannot change (birth date, birthplace, name): a
            different value is a conflict, never an update.
    """

    subject: str
    topic_key: str | None = None
    topic_name: str | None = None
    assertion: str | None = None
    value: str | None = None
    condition: str | None = None
    mutable: bool = True


class IngestReport(BaseModel):
    """Result of one ingest: what was new, what was skipped, how states evolved."""

    namespace: str
    conversations: int = 0
    events_new: int = 0
    events_skipped: int = 0
    topics_new: int = 0
    state_relations: dict[str, int] = Field(default_factory=dict)
    related_edges: int = 0
    extractor: str = "heuristic"
    seconds: float = 0.0
    llm_usage: LLMUsage = Field(default_factory=LLMUsage)


class Hit(BaseModel):
    """One retrieved item (an Event or a State) with its score and source turn ids."""

    kind: Literal["event", "state"]
    id: str
    text: str
    score: float
    source_ids: list[str] = Field(default_factory=list)
    topic: str | None = None
    topic_id: str | None = None
    occurred_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    current: bool | None = None
    conflict: bool | None = None
    condition: str | None = None
    subject: str | None = None
    value: str | None = None
    found_by: list[str] = Field(default_factory=list)


class Round(BaseModel):
    """One retrieval round: the controller's action, why, and the evidence it added."""

    number: int
    action: Action
    reason: str
    added: list[str] = Field(default_factory=list, description="ids of hits first found here")


class RecallResult(BaseModel):
    """Answer of :meth:`StateMemory.recall`: ranked hits, source ids, and the rounds."""

    question: str
    intent: Intent
    controller: str
    hits: list[Hit]
    source_ids: list[str]
    rounds: list[Round]
    llm_usage: LLMUsage = Field(default_factory=LLMUsage)

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict (datetimes as ISO strings)."""
        return self.model_dump(mode="json")


class TimeRange(BaseModel):
    """A closed time interval named in a question."""

    start: AwareDatetime
    end: AwareDatetime
