"""Conversation models: :class:`Turn`, :class:`QAItem`, :class:`Conversation`.

Timestamps are read by the one shared parser, :func:`graphmem.timeparse.parse_timestamp`;
ids stored in indexed properties pass :func:`graphmem.names.check_key` (see :func:`checked_key`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from graphmem.errors import InputFormatError, InvalidInputError
from graphmem.names import check_key

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


def checked_key(where: str, field: str, value: str) -> str:
    """``value`` if it can be stored as an indexed key (:func:`graphmem.names.check_key`).

    Raises:
        InputFormatError: naming ``where`` (file and item), ``field`` and the limit.
    """
    try:
        return check_key(field, value)
    except InvalidInputError as exc:
        raise InputFormatError(f"{where}: {exc}") from None
