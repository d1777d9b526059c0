"""Messages of a live agent, turned into conversation turns for online writes (pure; no I/O).

A message is a :class:`Message` or a dict with the same fields (aliases accepted):

- ``role`` or ``speaker`` (required): who said it (``"user"``, ``"assistant"``, a name);
- ``content`` or ``text`` (required, non-blank): what was said;
- ``id`` (optional): the message id. Give ids for idempotency: re-adding a message with the
  same id (in the same conversation) creates nothing. Without one, an id is derived from the
  conversation, the session, the content and the arrival sequence, which differs on every
  call, so re-adding the same id-less message stores it again;
- ``timestamp`` (optional): ISO 8601 text or a ``datetime`` (naive = UTC). A message without
  one takes the time of the previous message of the conversation (so it stays after it), or
  the current time for the first;
- ``meta`` (optional): structured fields passed to the extractors (e.g. ``attribute`` /
  ``value`` of a fact).

Arrival order: every message gets an arrival sequence (:func:`next_sequence`, increasing across
calls within a process and, being based on ``time.time_ns()``, across processes), stored as the
turn's ``position``; memories break timestamp ties with it, so messages with equal or missing
timestamps keep the order they were added in.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from graphmem.conversations import Conversation, Turn
from graphmem.timeparse import parse_timestamp
from graphmem.errors import EmptyTextError, InvalidInputError

_lock = threading.Lock()
_last = 0


def next_sequence() -> int:
    """A strictly increasing arrival sequence number (``time.time_ns()``-based; never repeats
    in this process, so messages added within one nanosecond still keep their order)."""
    global _last
    with _lock:
        _last = max(time.time_ns(), _last + 1)
        return _last


class Message(BaseModel):
    """One chat message (see the module docstring for the fields and their aliases)."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    role: str = Field(min_length=1)
    content: str = Field(min_length=1)
    id: str | None = None
    timestamp: datetime | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if "role" not in data and "speaker" in data:
                data["role"] = data.pop("speaker")
            if "content" not in data and "text" in data:
                data["content"] = data.pop("text")
            stamp = data.get("timestamp")
            if isinstance(stamp, str) and stamp.strip():
                data["timestamp"] = parse_timestamp(stamp, field="message timestamp", default_tz=timezone.utc)
            elif stamp in ("", None):
                data["timestamp"] = None
            if data.get("id") is not None:
                data["id"] = str(data["id"])
        return data


def parse_message(value: Any, index: int = 0) -> Message:
    """One message from a :class:`Message`, a dict, or a LangChain ``BaseMessage``.

    Raises:
        EmptyTextError: blank content. InvalidInputError: anything else malformed (naming the
            message index and the field).
    """
    if isinstance(value, Message):
        return value
    if hasattr(value, "type") and hasattr(value, "content") and not isinstance(value, dict):
        value = {"role": getattr(value, "name", None) or value.type, "content": value.content,
                 "id": getattr(value, "id", None),
                 **({"timestamp": value.additional_kwargs["timestamp"]}
                    if "timestamp" in getattr(value, "additional_kwargs", {}) else {})}
    if not isinstance(value, dict):
        raise InvalidInputError(f"message {index}: expected a dict or Message, got "
                                f"{type(value).__name__}")
    content = value.get("content", value.get("text"))
    if isinstance(content, str) and not content.strip():
        raise EmptyTextError(f"message {index}: content is empty")
    try:
        return Message.model_validate(value)
    except (ValidationError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            err = exc.errors()[0]
            where = ".".join(map(str, err["loc"])) or "message"
            raise InvalidInputError(f"message {index}: {where}: {err['msg']}") from None
        raise InvalidInputError(f"message {index}: {exc}") from None


def parse_messages(messages: Any) -> list[Message]:
    """All messages of ``messages`` (one message or an iterable of them), validated before
    anything is written.

    Raises:
        InvalidInputError / EmptyTextError: see :func:`parse_message`; no messages at all.
    """
    if isinstance(messages, (dict, Message, str)) or hasattr(messages, "content"):
        messages = [messages]
    if not isinstance(messages, Iterable):
        raise InvalidInputError(f"messages must be a list of messages, got {type(messages).__name__}")
    parsed = [parse_message(m, i) for i, m in enumerate(messages)]
    if not parsed:
        raise InvalidInputError("no messages to add")
    return parsed


def message_id(conversation_id: str, session: str, content: str, sequence: int) -> str:
    """The derived id of a message without one (not idempotent across calls: it includes the
    arrival sequence)."""
    digest = hashlib.sha1(f"{conversation_id}\x1f{session}\x1f{content}\x1f{sequence}"
                          .encode("utf-8")).hexdigest()[:16]
    return f"msg-{digest}"


def to_conversation(messages: Sequence[Message], conversation_id: str, session: str | None,
                    last_time: datetime | None) -> Conversation:
    """A :class:`Conversation` of ``messages`` in arrival order, each turn's ``position`` its
    arrival sequence and ``source_id`` its message id; a missing timestamp takes the previous
    message's (``last_time`` for the first; now when unknown).

    Raises:
        InvalidInputError: two messages of the call share an id; a bad conversation id.
    """
    if not isinstance(conversation_id, str) or not conversation_id.strip():
        raise InvalidInputError(f"conversation_id must be a non-empty string, got {conversation_id!r}")
    session_key = session or "default"
    turns: list[Turn] = []
    seen: set[str] = set()
    previous = last_time
    for message in messages:
        seq = next_sequence()
        stamp = message.timestamp or previous or datetime.now(timezone.utc)
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=timezone.utc)
        previous = stamp
        mid = message.id or message_id(conversation_id, session_key, message.content, seq)
        if mid in seen:
            raise InvalidInputError(f"message id {mid!r} appears twice in one add")
        seen.add(mid)
        turns.append(Turn(source_id=mid, speaker=message.role, text=message.content,
                          timestamp=stamp, session=session_key, position=seq,
                          meta=dict(message.meta)))
    speakers = list(dict.fromkeys(t.speaker for t in turns))
    return Conversation(id=conversation_id, turns=turns, speakers=speakers)
