"""graphmem's generic conversation format: JSON conversations or message lists, or JSONL messages."""

from __future__ import annotations

import logging
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from graphmem.conversations.files import first_error, is_jsonl, iter_jsonl, load_json
from graphmem.conversations.models import Conversation, Turn, checked_key
from graphmem.errors import InputFormatError, InvalidInputError
from graphmem.timeparse import parse_timestamp

logger = logging.getLogger(__name__)

class _GenericMessage(BaseModel):
    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)
    timestamp: Any
    id: str | None = None
    session: str = "default"
    conversation: str | None = None

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text is blank")
        return value

    @field_validator("id", "session", "conversation", mode="before")
    @classmethod
    def _to_text(cls, value: Any) -> Any:
        return None if value is None else str(value)


def _message(raw: Any, where: str, default_tz: tzinfo) -> tuple[_GenericMessage, datetime]:
    """Validate one raw message and read its timestamp; errors name ``where``."""
    try:
        msg = _GenericMessage.model_validate(raw)
    except PydanticValidationError as exc:
        raise InputFormatError(f"{where}: {first_error(exc)}") from exc
    try:
        stamp = parse_timestamp(msg.timestamp, field="timestamp", default_tz=default_tz)
    except InvalidInputError as exc:
        raise InputFormatError(f"{where}: {exc}") from None
    if msg.id is not None:
        checked_key(where, "message id", msg.id)
    checked_key(where, "session", msg.session)
    if msg.conversation is not None:
        checked_key(where, "conversation id", msg.conversation)
    return msg, stamp


def _generic_conversation(conv_id: str,
                          messages: list[tuple[_GenericMessage, datetime]]) -> Conversation:
    checked_key(f"conversation {conv_id[:40]!r}", "conversation id", conv_id)
    turns = []
    for i, (m, stamp) in enumerate(messages):
        source_id = m.id or checked_key(f"conversation {conv_id!r} message {i}",
                                        "message id", f"{conv_id}:{i}")
        turns.append(Turn(source_id=source_id, speaker=m.speaker, text=m.text,
                          timestamp=stamp, session=m.session, position=i))
    seen: set[str] = set()
    for t in turns:
        if t.source_id in seen:
            raise InputFormatError(f"conversation {conv_id!r}: duplicate message id {t.source_id!r}")
        seen.add(t.source_id)
    return Conversation(id=conv_id, turns=turns,
                        speakers=list(dict.fromkeys(t.speaker for t in turns)))


def read_generic(path: str | Path, default_tz: tzinfo = timezone.utc) -> list[Conversation]:
    """Read graphmem's generic format (see the module docstring) from ``.json`` or ``.jsonl``.

    A timestamp's own zone is honoured; one without a zone is taken as ``default_tz``.

    Raises:
        InputFormatError: invalid JSON, a message without speaker/text/timestamp, a timestamp
            that is not a date (the message names the field and the value), an id or session
            longer than ``MAX_KEY_BYTES`` or a duplicate id; names the file and the line (JSONL)
            or item path (JSON).
    """
    path = Path(path)
    groups: dict[str, list[tuple[_GenericMessage, datetime]]] = {}
    if is_jsonl(path):
        for lineno, raw in iter_jsonl(path):
            msg, stamp = _message(raw, f"{path}: line {lineno}", default_tz)
            groups.setdefault(msg.conversation or path.stem, []).append((msg, stamp))
    else:
        data = load_json(path)
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, list):
            raise InputFormatError(f"{path}: expected a conversation object or a list")
        is_convs = all(isinstance(x, dict) and "messages" in x for x in data) and data
        convs = data if is_convs else [{"id": path.stem, "messages": data}]
        for ci, conv in enumerate(convs):
            conv_id = str(conv.get("id") or f"{path.stem}-{ci}")
            messages = conv.get("messages")
            if not isinstance(messages, list):
                raise InputFormatError(f"{path}: conversation {ci}: 'messages' must be a list")
            for mi, raw in enumerate(messages):
                groups.setdefault(conv_id, []).append(
                    _message(raw, f"{path}: conversation {ci} message {mi}", default_tz))
    out = []
    for conv_id, messages in groups.items():
        try:
            out.append(_generic_conversation(conv_id, messages))
        except InputFormatError as exc:
            raise InputFormatError(f"{path}: {exc}") from None
    return out
