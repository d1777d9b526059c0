"""Feedback files: JSONL, one :class:`~graphmem.insight.models.FeedbackInput` per line::

    {"query": "...", "status": "resolved", "trajectory": ["step", ...], "retrieved": ["id", ...]}

``retrieved`` may be omitted (the insights are recalled then); ``task_id`` is optional."""

from __future__ import annotations

import logging
import json
from pathlib import Path

from graphmem.errors import GraphmemError, InputFormatError
from graphmem.insight.memory import parse_feedback
from graphmem.insight.models import FeedbackInput

logger = logging.getLogger(__name__)


def read_feedback_file(path: str | Path) -> list[FeedbackInput]:
    """Parse and validate every line before anything is written.

    Raises:
        InputFormatError: a line that is not JSON, not an object, or not a valid feedback record;
            the message names the file and the 1-based line number.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputFormatError(f"{path}: cannot read: {exc}") from None
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    items = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFormatError(f"{path}:{lineno}: not JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise InputFormatError(f"{path}:{lineno}: expected a JSON object, got {type(data).__name__}")
        try:
            items.append(parse_feedback(data))
        except GraphmemError as exc:
            raise InputFormatError(f"{path}:{lineno}: {exc}") from None
    return items
