"""BEAM reader (Tavakoli et al., "Beyond a Million Tokens: Benchmarking and Enhancing Long-Term
Memory in LLMs"): multi-session user-assistant chats with message-level evidence.

A chat is a folder holding ``chat.json`` (a list of batches ``{"batch_number", "turns"}``; a
batch's ``turns`` is a list of exchanges, each a list of messages ``{"role", "id", "content"}``,
one message of the batch carrying the batch's ``time_anchor`` such as ``"January-05-2024"``) and
``probing_questions.json`` (``{question type: [{"question", "source_chat_ids", ...}]}``, where
``source_chat_ids`` is a list of message ids, a list of lists, a dict of such lists, or null).

Each message becomes a :class:`~graphmem.conversations.Turn`: ``source_id`` its ``id`` as text,
``speaker`` its ``role``, ``session`` ``batch_<n>``, ``timestamp`` its batch's time anchor (UTC
midnight; a message's own anchor wins). A message longer than ``MAX_TEXT_CHARS`` is cut to that
length (a warning names it and ``Turn.meta["clipped_from"]`` keeps its length). Each probing
question becomes a :class:`~graphmem.conversations.QAItem` whose ``category`` is its question
type and whose ``evidence`` is every message id of ``source_chat_ids`` (flattened, in order).
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

from graphmem.conversations.files import load_json
from graphmem.conversations.models import Conversation, QAItem, Turn, checked_key
from graphmem.errors import InputFormatError, InvalidInputError
from graphmem.timeparse import parse_timestamp
from graphmem.validation import MAX_TEXT_CHARS

logger = logging.getLogger(__name__)

#: The files of one chat folder.
CHAT_FILE = "chat.json"
QUESTIONS_FILE = "probing_questions.json"


def chat_folders(path: str | Path) -> list[Path]:
    """The chat folders under ``path``: ``path`` itself when it holds ``chat.json``, else its
    sub-folders (at any depth) that do, in natural order (``2`` before ``10``).

    Raises:
        InputFormatError: ``path`` holds no chat folder.
    """
    path = Path(path)
    if (path / CHAT_FILE).is_file():
        return [path]
    found = sorted((p.parent for p in path.rglob(CHAT_FILE)),
                   key=lambda p: [int(s) if s.isdigit() else s for s in p.relative_to(path).parts])
    if not found:
        raise InputFormatError(f"{path}: no {CHAT_FILE} in this folder or below it")
    return found


def evidence_ids(value: Any) -> list[str]:
    """Every message id of a ``source_chat_ids`` value (list, nested lists, dict of lists or
    null), flattened in order, as text, without repeats."""
    out: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for inner in v.values():
                walk(inner)
        elif isinstance(v, list):
            for inner in v:
                walk(inner)
        elif v is not None and not isinstance(v, bool):
            out.append(str(v))

    walk(value)
    return list(dict.fromkeys(out))


def _anchor(value: Any, where: str, default_tz: tzinfo) -> datetime:
    if isinstance(value, str):
        value = value.replace("-", " ")
    try:
        return parse_timestamp(value, field=f"{where} time_anchor", default_tz=default_tz)
    except InvalidInputError as exc:
        raise InputFormatError(str(exc)) from None


def read_beam_chat(folder: str | Path, default_tz: tzinfo = timezone.utc) -> Conversation:
    """One BEAM chat folder as a :class:`Conversation` with its probing questions.

    The conversation id is ``beam-<folder name>``.

    Raises:
        InputFormatError: a missing or malformed file, a batch or message without the fields
            above, a time anchor that is not a date (each names the file and the item).
    """
    folder = Path(folder)
    chat_path = folder / CHAT_FILE
    if not chat_path.is_file():
        raise InputFormatError(f"{folder}: no {CHAT_FILE}")
    batches = load_json(chat_path)
    if not isinstance(batches, list):
        raise InputFormatError(f"{chat_path}: expected a list of batches")
    turns: list[Turn] = []
    for bi, batch in enumerate(batches):
        where = f"{chat_path}: batch {bi}"
        if not isinstance(batch, dict) or not isinstance(batch.get("turns"), list):
            raise InputFormatError(f"{where}: expected an object with a 'turns' list")
        session = f"batch_{batch.get('batch_number', bi + 1)}"
        messages = [m for exchange in batch["turns"]
                    for m in (exchange if isinstance(exchange, list) else [exchange])]
        anchors = [m.get("time_anchor") for m in messages if isinstance(m, dict)
                   and m.get("time_anchor")] or [batch.get("time_anchor")]
        if anchors[0] is None:
            raise InputFormatError(f"{where}: no message carries a time_anchor")
        stamp = _anchor(anchors[0], where, default_tz)
        for mi, message in enumerate(messages):
            here = f"{where} message {mi}"
            if not isinstance(message, dict) or not {"role", "id", "content"} <= set(message):
                raise InputFormatError(f"{here}: expected 'role', 'id' and 'content'")
            text = str(message["content"] or "").strip()
            if not text:
                continue
            meta: dict[str, Any] = {}
            if len(text) > MAX_TEXT_CHARS:
                logger.warning("%s: message %s has %d characters; cut to %d", chat_path,
                               message["id"], len(text), MAX_TEXT_CHARS)
                meta["clipped_from"] = len(text)
                text = text[:MAX_TEXT_CHARS]
            own = (_anchor(message["time_anchor"], here, default_tz)
                   if message.get("time_anchor") else stamp)
            turns.append(Turn(source_id=checked_key(here, "id", str(message["id"])),
                              speaker=checked_key(here, "role", str(message["role"])),
                              text=text, timestamp=own, session=session,
                              position=len(turns), meta=meta))
    qa: list[QAItem] = []
    questions_path = folder / QUESTIONS_FILE
    if questions_path.is_file():
        probing = load_json(questions_path)
        if not isinstance(probing, dict):
            raise InputFormatError(f"{questions_path}: expected {{question type: [questions]}}")
        for kind, items in probing.items():
            for qi, item in enumerate(items if isinstance(items, list) else []):
                if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                    raise InputFormatError(f"{questions_path}: {kind} {qi}: no 'question' text")
                answer = item.get("answer", item.get("ideal_answer", item.get("ideal_response")))
                qa.append(QAItem(question=item["question"], category=str(kind),
                                 answer=None if answer is None else str(answer),
                                 evidence=evidence_ids(item.get("source_chat_ids"))))
    speakers = list(dict.fromkeys(t.speaker for t in turns))
    return Conversation(id=checked_key(str(folder), "conversation id", f"beam-{folder.name}"),
                        turns=turns, speakers=speakers, qa=qa)


def read_beam(path: str | Path, default_tz: tzinfo = timezone.utc) -> list[Conversation]:
    """Every BEAM chat under ``path`` (a chat folder or a folder of them), see
    :func:`read_beam_chat`.

    Raises:
        InputFormatError: no chat folder, or a malformed chat (names the file and the item).
    """
    return [read_beam_chat(folder, default_tz) for folder in chat_folders(path)]
