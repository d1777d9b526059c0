"""Reading conversation files in any supported format: :func:`detect_format` sniffs the content,
:func:`read_conversations` dispatches to the format's reader."""

from __future__ import annotations

import logging
from datetime import timezone, tzinfo
from pathlib import Path
from typing import Literal

from graphmem.conversations.files import is_jsonl, iter_jsonl, load_json
from graphmem.conversations.generic import read_generic
from graphmem.conversations.locomo import read_locomo
from graphmem.conversations.memconflict import read_memconflict
from graphmem.conversations.models import Conversation, Format
from graphmem.errors import InputFormatError

logger = logging.getLogger(__name__)

def detect_format(path: str | Path) -> Literal["locomo", "generic", "memconflict"]:
    """Guess the format from the content: MemConflict lines carry ``Full_Session_Chain``, LoCoMo
    samples ``conversation`` with ``speaker_a``; anything else is generic.

    Raises:
        InputFormatError: unreadable file or first line.
    """
    path = Path(path)
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
    """Read every conversation of ``path`` in format ``fmt`` (``"auto"`` detects it).

    Raises:
        InputFormatError: malformed file, line or item (names file and line or item path).
        ValueError: unknown ``fmt``.
    """
    path = Path(path)
    chosen = detect_format(path) if fmt == "auto" else fmt
    logger.debug("reading %s as %s", path, chosen)
    if chosen == "locomo":
        return read_locomo(path, default_tz)
    if chosen == "generic":
        return read_generic(path, default_tz)
    if chosen == "memconflict":
        return read_memconflict(path, default_tz)
    raise InputFormatError(f"{path}: unknown format {fmt!r} (use auto, locomo, generic, memconflict)")
