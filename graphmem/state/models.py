"""Pydantic models of the state memory (EMIR², seed 002): extraction output, recalled items and
question time ranges."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, Field, PrivateAttr

from graphmem.memory import RecallItem
from graphmem.state.topics import topic_phrase

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
        topic_name: readable topic name (used when a new Topic is created); the heuristic
            extractor leaves it None on free text and names the topic on demand
            (:meth:`resolved_topic_name`), as only a unit that founds a topic needs a name.
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
    #: ``(speaker, text, fallback)``: the topic is named ``"speaker: <YAKE phrase of text>"``, or
    #: ``"speaker: fallback"`` when no phrase fits (:func:`graphmem.state.topics.topic_phrase`).
    _topic_source: tuple[str, str, str] | None = PrivateAttr(default=None)

    def name_topic_from(self, speaker: str, text: str, fallback: str) -> Extraction:
        """Name the topic on demand from ``text`` (see :meth:`resolved_topic_name`); returns self."""
        self._topic_source = (speaker, text, fallback)
        return self

    def resolved_topic_name(self) -> str | None:
        """``topic_name``, else the name of :meth:`name_topic_from` (computed once: a YAKE key
        phrase costs ~2 ms), else None."""
        if self.topic_name is None and self._topic_source is not None:
            speaker, text, fallback = self._topic_source
            self.topic_name = f"{speaker}: {topic_phrase(text) or fallback}"
        return self.topic_name


class StateItem(RecallItem):
    """One recalled Event or State of the SEMG (EMIR² §3.3), with its score and source turn ids.

    Attributes:
        kind: ``"event"`` (an episodic unit, one turn) or ``"state"`` (a semantic state).
        score: the engine's fused score (:mod:`graphmem.retrieval.fusion`; a state: its anchor
            event's score plus the bonuses of :mod:`graphmem.state.recall`); higher is better.
        source_ids: the turn ids (LoCoMo ``dia_id``) the item rests on.
        topic / topic_id: the topic chain it belongs to.
        occurred_at: event time (events); valid_from / valid_to: validity interval (states;
            ``valid_to`` None while open).
        current: the state is its topic's CURRENT_STATE; conflict: it contradicts an immutable
            fact and is kept side by side.
        condition / subject / value: the state's condition, whose fact it is, its value.
        found_by: the retrieval actions that found it, first first.
        also: ids of the evidence events folded into this state.
        anchor: ``(source ids, "speaker: text")`` of the evidence turn a state stands in for
            (its best-ranked evidence event when it takes that event's place, the first state to
            do so; an event: its own), else None. A state resting on several turns fuses on it
            (:func:`graphmem.documents.conversation_fusion_key`).
        conversation: the conversation of the item's turns (fusion keys are per conversation).
        passage: an event's: ``{"start", "end", "text"}`` of the passage of its message whose
            vector gave its dense score (a long message, :mod:`graphmem.retrieval.passages`;
            ``text`` = that slice of the message), None when its window vector did.
        state_id: an event's: the state it is evidence of (the current one when it evidences
            that, else the latest), whose ``current`` / ``valid_from`` / ``valid_to`` /
            ``conflict`` the event then carries as its validity; None for an event evidencing no
            state and for a state (its own id is ``id``).
    """

    memory: str = "state"
    kind: Literal["event", "state"]
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
    also: list[str] = Field(default_factory=list)
    passage: dict[str, Any] | None = None
    anchor: tuple[list[str], str] | None = Field(default=None, exclude=True)
    conversation: str | None = None
    state_id: str | None = None


class TimeRange(BaseModel):
    """A time range named in a question, half-open: ``start <= t < end`` (UTC bounds,
    :mod:`graphmem.timeparse`)."""

    start: AwareDatetime
    end: AwareDatetime
