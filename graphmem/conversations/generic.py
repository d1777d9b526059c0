"""graphmem's generic conversation format: JSON conversations or message lists, or JSONL messages."""

from __future__ import annotations

import logging
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from graphmem.conversations.files import first_error, is_jsonl, iter_jsonl, load_json
from graphmem.conversations.models import Conversation, Turn, parse_timestamp
from graphmem.errors import InputFormatError

logger = logging.getLogger(__name__)

class _GenericMessage(BaseModel):
    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)
    timestamp: datetime
    id: str | None = None
    session: str = "default"
    conversation: str | None = None

    @field_validator("timestamp", mode="before")
    @classmethod
    def _parse(cls, value: Any) -> datetime:
        return parse_timestamp(value, timezone.utc)

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


def _generic_conversation(conv_id: str, messages: list[_GenericMessage], default_tz: tzinfo) -> Conversation:
    turns = []
    for i, m in enumerate(messages):
        stamp = m.timestamp if m.timestamp.tzinfo else m.timestamp.replace(tzinfo=default_tz)
        turns.append(Turn(source_id=m.id or f"{conv_id}:{i}", speaker=m.speaker, text=m.text,
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

    Raises:
        InputFormatError: invalid JSON, a message without speaker/text/timestamp, an unparsable
            timestamp or a duplicate id; names the file and the line (JSONL) or item path (JSON).
    """
    path = Path(path)
    groups: dict[str, list[_GenericMessage]] = {}
    if is_jsonl(path):
        for lineno, raw in iter_jsonl(path):
            try:
                msg = _GenericMessage.model_validate(raw)
            except PydanticValidationError as exc:
                raise InputFormatError(f"{path}: line {lineno}: {first_error(exc)}") from exc
            groups.setdefault(msg.conversation or path.stem, []).append(msg)
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
                try:
                    msg = _GenericMessage.model_validate(raw)
                except PydanticValidationError as exc:
                    raise InputFormatError(
                        f"{path}: conversation {ci} message {mi}: {first_error(exc)}"
                    ) from exc
                groups.setdefault(conv_id, []).append(msg)
    out = []
    for conv_id, messages in groups.items():
        try:
            out.append(_generic_conversation(conv_id, messages, default_tz))
        except InputFormatError as exc:
            raise InputFormatError(f"{path}: {exc}") from exc
    return out
