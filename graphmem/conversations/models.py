"""Conversation models: :class:`Turn`, :class:`QAItem`, :class:`Conversation` and
:func:`parse_timestamp` (timezone-aware dates from ISO-8601 or free text)."""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo
from typing import Any, Literal

from dateutil import parser as date_parser
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

#: Input formats of :func:`graphmem.conversations.read_conversations`.
Format = Literal["auto", "locomo", "generic", "memconflict"]

class Turn(BaseModel):
    """One utterance (or one mapped fact) of a conversation.

    Attributes:
        source_id: id in the source data (LoCoMo ``dia_id`` such as ``"D1:3"``); unique within
            its conversation.
        speaker: who said it.
        text: what was said (non-empty).
        timestamp: when it was said, timezone-aware (LoCoMo: the session's date_time).
        session: session key (``"session_1"``, ``"S5"``, ``"default"``).
        position: 0-based order in the conversation (breaks timestamp ties).
        meta: format-specific structured fields (MemConflict facts), else empty.
    """

    model_config = ConfigDict(frozen=True)

    source_id: str = Field(min_length=1)
    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)
    timestamp: AwareDatetime
    session: str = "default"
    position: int = Field(default=0, ge=0)
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text is blank")
        return value


class QAItem(BaseModel):
    """A LoCoMo question with its evidence turn ids (for recall@k evaluation).

    ``category``: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (LoCoMo).
    """

    model_config = ConfigDict(frozen=True)

    question: str
    answer: str | None = None
    evidence: list[str] = Field(default_factory=list)
    category: int
    adversarial_answer: str | None = None

    @field_validator("answer", "adversarial_answer", mode="before")
    @classmethod
    def _to_text(cls, value: Any) -> Any:
        return None if value is None else str(value)


class Conversation(BaseModel):
    """A conversation: turns in order, its speakers, and (LoCoMo) its QA items.

    ``metadata`` holds format-specific extras (MemConflict: ``user``, ``profile``...).
    """

    id: str = Field(min_length=1)
    turns: list[Turn]
    speakers: list[str]
    qa: list[QAItem] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def sessions(self) -> list[str]:
        """Session keys in first-appearance order."""
        return list(dict.fromkeys(t.session for t in self.turns))

    def turn(self, source_id: str) -> Turn:
        """The turn with ``source_id``; KeyError if absent."""
        for t in self.turns:
            if t.source_id == source_id:
                return t
        raise KeyError(source_id)


def parse_timestamp(value: Any, default_tz: tzinfo = timezone.utc) -> datetime:
    """Parse a date/time (``datetime``, ISO-8601, or free text such as LoCoMo's
    ``"1:56 pm on 8 May, 2023"``) with ``dateutil``; naive results get ``default_tz``.

    Raises:
        ValueError: the value is not a date.
    """
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str) and value.strip():
        try:
            parsed = date_parser.parse(value, fuzzy=True)
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"not a date: {value!r}") from exc
    else:
        raise ValueError(f"not a date: {value!r}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=default_tz)
