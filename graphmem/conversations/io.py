"""Reading conversation files in any supported format: :func:`detect_format` sniffs the content,
:func:`read_conversations` dispatches to the format's reader."""

from __future__ import annotations

import logging
from datetime import timezone, tzinfo
from pathlib import Path
from typing import Literal

from graphmem.conversations.beam import CHAT_FILE, read_beam
from graphmem.conversations.files import is_jsonl, iter_jsonl, load_json
from graphmem.conversations.generic import read_generic
from graphmem.conversations.locomo import read_locomo
from graphmem.conversations.memconflict import read_memconflict
from graphmem.conversations.models import Conversation, Format, validate_conversation
from graphmem.errors import InputFormatError

logger = logging.getLogger(__name__)

def detect_format(path: str | Path) -> Literal["locomo", "generic", "memconflict", "beam"]:
    """Guess the format from the content: a folder holding ``chat.json`` (itself or in
    sub-folders) is BEAM, MemConflict lines carry ``Full_Session_Chain``, LoCoMo samples
    ``conversation`` with ``speaker_a``; anything else is generic.

    Raises:
        InputFormatError: unreadable file or first line, or a folder without ``chat.json``.
    """
    path = Path(path)
    if path.is_dir():
        if (path / CHAT_FILE).is_file() or any(path.rglob(CHAT_FILE)):
            return "beam"
        raise InputFormatError(f"{path}: a folder, but no {CHAT_FILE} in it or below it (only "
                               "BEAM chats are read from folders; pass a file otherwise)")
    if is_jsonl(path):
        for _, first in iter_jsonl(path):
            return "memconflict" if isinstance(first, dict) and "Full_Session_Chain" in first else "generic"
        raise InputFormatError(f"{path}: line 1: empty file")
    data = load_json(path)
    first = data[0] if isinstance(data, list) and data else data
    if isinstance(first, dict) and isinstance(first.get("conversation"), dict):
        return "locomo"
    if isinstance(first, dict) and "Full_Session_Chain" in first:
        return "memconflict"
    return "generic"


def read_conversations(
    path: str | Path, fmt: Format = "auto", default_tz: tzinfo = timezone.utc
) -> list[Conversation]:
    """Read every conversation of ``path`` in format ``fmt`` (``"auto"`` detects it; ``beam``
    reads a chat folder or a folder of them).

    Every conversation read passes :func:`~graphmem.conversations.models.validate_conversation`
    (the limits every memory applies), so a file that reads is one every memory can store.

    Raises:
        InputFormatError: malformed file, line or item (names file and line or item path), an
            unknown ``fmt``, or a turn over a limit (names the file, conversation, turn, field).
    """
    path = Path(path)
    chosen = detect_format(path) if fmt == "auto" else fmt
    logger.debug("reading %s as %s", path, chosen)
    readers = {"locomo": read_locomo, "generic": read_generic, "memconflict": read_memconflict,
               "beam": read_beam}
    if chosen not in readers:
        raise InputFormatError(
            f"{path}: unknown format {fmt!r} (use auto, locomo, generic, memconflict, beam)")
    return [validate_conversation(c, str(path)) for c in readers[chosen](path, default_tz)]
