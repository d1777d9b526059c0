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
  ``value`` of a fact);
- ``message_json`` (optional): the message's full serialised form (JSON text, e.g. a LangChain
  message's ``message_to_dict``), stored with it and returned by ``GraphMemory.messages`` so a
  chat history replays the message exactly (:mod:`graphmem.langchain.history`).

Limits (checked by :func:`validate_messages` for every message of a call before anything is
written, the same rules every memory's ingest applies, :func:`graphmem.conversations.check_turn_fields`):
``role``, ``id``, the conversation id and the session id are indexed keys of at most
:data:`graphmem.names.MAX_KEY_BYTES` UTF-8 bytes; ``content`` is non-blank text of at most
:data:`graphmem.validation.MAX_TEXT_CHARS` characters (exactly that many is accepted); every
text is valid Unicode; ids are unique within a call. A violation raises
:class:`~graphmem.errors.InvalidInputError` (:class:`~graphmem.errors.EmptyTextError` for blank
content) whose message starts ``message <index>: <field>``.

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

from graphmem.conversations import Conversation, Turn, check_turn_fields
from graphmem.errors import EmptyTextError, InvalidInputError
from graphmem.names import check_key
from graphmem.timeparse import check_offset, parse_timestamp
from graphmem.validation import describe_validation_error

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
    message_json: str | None = None

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


#: Field names of a message, as :func:`check_turn_fields` names them in errors.
MESSAGE_FIELDS = {"source_id": "id", "speaker": "role", "text": "content", "session": "session"}


def check_message(message: Message, index: int = 0) -> Message:
    """``message`` if every memory can store it, else raise (the rules of the module docstring).

    Raises:
        EmptyTextError: blank content. InvalidInputError: a role or id that is not an indexable
            key, content over ``MAX_TEXT_CHARS``, a timestamp whose UTC offset is 18 hours or
            more; the message starts ``message <index>: <field>``.
    """
    check_turn_fields(f"message {index}", source_id=message.id, speaker=message.role,
                      text=message.content, session=None, names=MESSAGE_FIELDS)
    if message.timestamp is not None:  # a datetime given as such: the offset rule of text
        check_offset(message.timestamp, f"message {index}: timestamp")
    return message


def parse_message(value: Any, index: int = 0) -> Message:
    """One message from a :class:`Message`, a dict, or a LangChain ``BaseMessage``, checked with
    :func:`check_message`.

    Raises:
        EmptyTextError: blank content. InvalidInputError: anything else malformed (naming the
            message index and the field).
    """
    if isinstance(value, Message):
        return check_message(value, index)
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
        raise EmptyTextError(f"message {index}: content is empty: {content[:40]!r}")
    try:
        message = Message.model_validate(value)
    except ValidationError as exc:
        raise InvalidInputError(describe_validation_error(exc, f"message {index}")) from None
    except InvalidInputError as exc:
        raise type(exc)(f"message {index}: {exc}") from None
    except ValueError as exc:
        raise InvalidInputError(f"message {index}: {exc}") from None
    return check_message(message, index)


def validate_messages(messages: Any, conversation_id: str = "default",
                      session_id: str | None = None) -> list[Message]:
    """Every message of a call, checked for every memory before anything is written (pure).

    Args:
        messages: one message or an iterable of them (see the module docstring).
        conversation_id: the conversation (an indexed key). session_id: None or a key.
    Returns:
        The parsed :class:`Message` s in order.
    Raises:
        InvalidInputError / EmptyTextError: the first bad message (``message <index>:
            <field>: ...``), a bad conversation or session id, two messages with one id, or no
            messages at all.
    """
    check_key("conversation_id", conversation_id)
    if session_id is not None:
        check_key("session_id", session_id)
    parsed = parse_messages(messages)
    seen: dict[str, int] = {}
    for i, message in enumerate(parsed):
        if message.id is None:
            continue
        if message.id in seen:
            raise InvalidInputError(f"message {i}: id {message.id[:40]!r} is also message "
                                    f"{seen[message.id]}'s; give each message its own id")
        seen[message.id] = i
    return parsed


def parse_messages(messages: Any) -> list[Message]:
    """All messages of ``messages`` (one message or an iterable of them), each checked with
    :func:`parse_message`.

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
    check_key("conversation_id", conversation_id)
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
            raise InvalidInputError(f"message id {mid[:40]!r} appears twice in one add")
        seen.add(mid)
        turns.append(Turn(source_id=mid, speaker=message.role, text=message.content,
                          timestamp=stamp, session=session_key, position=seq,
                          meta=dict(message.meta), message_json=message.message_json))
    speakers = list(dict.fromkeys(t.speaker for t in turns))
    return Conversation(id=conversation_id, turns=turns, speakers=speakers)
