"""File helpers of the conversation readers: JSON / JSONL loading with errors that name the
file and the line."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from graphmem.errors import InputFormatError

logger = logging.getLogger(__name__)


def load_json(path: Path) -> Any:
    """The decoded JSON of ``path``. Raises InputFormatError naming the file (and line)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputFormatError(f"{path}: file not found") from exc
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{path}: not UTF-8 text ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise InputFormatError(f"{path}: line {exc.lineno}: invalid JSON: {exc.msg}") from exc
    except RecursionError:
        raise InputFormatError(f"{path}: JSON nested too deeply") from None
    except (IsADirectoryError, PermissionError) as exc:
        raise InputFormatError(f"{path}: cannot read: {exc.strerror}") from None


def iter_jsonl(path: Path) -> Iterable[tuple[int, Any]]:
    """``(line number, decoded JSON)`` per non-blank line. Raises InputFormatError naming the
    file and the line."""
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputFormatError(f"{path}: file not found") from exc
    with handle:
        try:
            for lineno, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield lineno, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputFormatError(
                        f"{path}: line {lineno}: invalid JSON: {exc.msg}"
                    ) from exc
                except RecursionError:
                    raise InputFormatError(
                        f"{path}: line {lineno}: JSON nested too deeply") from None
        except UnicodeDecodeError as exc:
            raise InputFormatError(f"{path}: not UTF-8 text ({exc})") from exc


def first_error(exc: PydanticValidationError) -> str:
    """The first validation problem as ``"field.path: message (got value)"``."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "value"
    return f"{where}: {err.get('msg')} (got {err.get('input')!r})"[:300]


def is_jsonl(path: Path) -> bool:
    """Whether ``path`` names a JSON-lines file (``.jsonl`` / ``.ndjson``)."""
    return path.suffix.lower() in (".jsonl", ".ndjson")
