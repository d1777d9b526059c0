"""Conversation models: :class:`Turn`, :class:`QAItem`, :class:`Conversation`.

Timestamps are read by the one shared parser, :func:`graphmem.timeparse.parse_timestamp`;
ids stored in indexed properties pass :func:`graphmem.names.check_key` (see :func:`checked_key`).

The rules every memory's conversation input must meet live in one function,
:func:`check_turn_fields` (used for agent messages, file readers and each memory's ingest):
the source id, the speaker and the session are indexed keys (:func:`graphmem.names.check_key`,
at most ``MAX_KEY_BYTES`` UTF-8 bytes), the text a non-blank text of at most ``MAX_TEXT_CHARS``
characters (:func:`graphmem.validation.validate_text`). :func:`validate_conversation` applies
them to a whole :class:`Conversation`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from graphmem.errors import InputFormatError, InvalidInputError
from graphmem.names import check_key
from graphmem.validation import validate_text

#: Input formats of :func:`graphmem.conversations.read_conversations`.
Format = Literal["auto", "locomo", "generic", "memconflict", "beam"]

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
        message_json: the message's full serialised form (JSON text) when it came from an
            agent message that carries one (a LangChain message of
            :class:`graphmem.langchain.GraphmemChatMessageHistory`), stored on state memory's
            Event; else None.
    """

    model_config = ConfigDict(frozen=True)

    source_id: str = Field(min_length=1)
    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)
    timestamp: AwareDatetime
    session: str = "default"
    position: int = Field(default=0, ge=0)
    meta: dict[str, Any] = Field(default_factory=dict)
    message_json: str | None = None

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text is blank")
        return value


class StoredMessage(BaseModel):
    """One stored message of a conversation, as :meth:`graphmem.facade.GraphMemory.messages`
    returns it (state memory's Event of the message).

    Attributes:
        id: the message id: the caller's own (``Message.id``, a LangChain message's ``id``) or
            the one graphmem derived for a message without one (``msg-<hash>``).
        role: who said it (the message's role or speaker).
        content: what was said (the text that was stored and is searched).
        timestamp: when it was said (timezone-aware).
        conversation_id: its conversation. session_id: its session key (``"default"`` unless
            one was given).
        message_json: the message's full serialised form (JSON text) when it was added with one
            (:class:`graphmem.langchain.GraphmemChatMessageHistory` stores every message so),
            else None.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    role: str
    content: str
    timestamp: AwareDatetime
    conversation_id: str
    session_id: str = "default"
    message_json: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any], conversation_id: str) -> StoredMessage:
        """A row of ``state/conversation_events`` (``occurred_at`` a Neo4j or Python datetime)."""
        stamp = row["occurred_at"]
        stamp = stamp.to_native() if hasattr(stamp, "to_native") else stamp
        return cls(id=(row.get("source_ids") or [row["id"]])[0], role=row.get("speaker") or "",
                   content=row["text"], timestamp=stamp,
                   conversation_id=row.get("conversation") or conversation_id,
                   session_id=row.get("session") or "default", message_json=row.get("message_json"))


class QAItem(BaseModel):
    """A LoCoMo question with its evidence turn ids (for recall@k evaluation).

    ``category``: LoCoMo's number (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5
    adversarial) or another dataset's category name (BEAM's question type, such as
    ``"knowledge_update"``).
    """

    model_config = ConfigDict(frozen=True)

    question: str
    answer: str | None = None
    evidence: list[str] = Field(default_factory=list)
    category: int | str
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


#: Field names of :func:`check_turn_fields` for a conversation turn.
TURN_FIELDS = {"source_id": "source_id", "speaker": "speaker", "text": "text",
               "session": "session"}


def check_turn_fields(where: str, *, source_id: object, speaker: object, text: object,
                      session: object = "default", names: dict[str, str] | None = None) -> None:
    """The one set of rules for a turn (or an agent message) that any memory stores.

    Args:
        where: what is checked (``"message 3"``, ``"conversation 'c1' turn 3"``), named first.
        source_id: its id, or None for one graphmem derives. speaker: who said it.
        text: what was said. session: its session key, or None for the default session.
        names: the fields' names in the caller's vocabulary (keys ``source_id``, ``speaker``,
            ``text``, ``session``; default :data:`TURN_FIELDS`), used in messages.
    Raises:
        EmptyTextError: a blank or missing text. InvalidInputError: an id, speaker or session
            that is not an indexable key (blank, not UTF-8, over ``MAX_KEY_BYTES`` bytes), or a
            text over ``MAX_TEXT_CHARS`` characters; each names ``where``, the field and the
            value.
    """
    label = {**TURN_FIELDS, **(names or {})}
    check_key(f"{where}: {label['speaker']}", speaker)
    if source_id is not None:
        check_key(f"{where}: {label['source_id']}", source_id)
    if session is not None:
        check_key(f"{where}: {label['session']}", session)
    validate_text(text, f"{where}: {label['text']}")


def validate_conversation(conversation: Conversation, where: str = "") -> Conversation:
    """``conversation`` if every memory can store it (its id and every turn pass
    :func:`check_turn_fields`; turn ids are unique), else raise. Pure: no I/O.

    Args:
        where: a prefix for messages (a file name), or ``""``.
    Raises:
        EmptyTextError / InvalidInputError: naming the conversation, the turn index, the field
            and the value; InputFormatError instead (same message) when ``where`` is given.
    """
    prefix = f"{where}: " if where else ""
    try:
        check_key(f"{prefix}conversation id", conversation.id)
        seen: set[str] = set()
        for i, turn in enumerate(conversation.turns):
            here = f"{prefix}conversation {conversation.id[:40]!r} turn {i}"
            check_turn_fields(here, source_id=turn.source_id, speaker=turn.speaker,
                              text=turn.text, session=turn.session)
            if turn.source_id in seen:
                raise InvalidInputError(f"{here}: source_id {turn.source_id!r} appears twice; "
                                        "give every turn its own id")
            seen.add(turn.source_id)
    except InvalidInputError as exc:
        if where and not isinstance(exc, InputFormatError):
            raise InputFormatError(str(exc)) from None
        raise
    return conversation
