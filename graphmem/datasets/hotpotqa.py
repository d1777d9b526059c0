"""HotpotQA (distractor setting) reader: questions with their ten context paragraphs and the
supporting facts, as pydantic models.

Two layouts are accepted, a JSON list of examples either way:

- the official one (``hotpot_dev_distractor_v1.json``): ``_id``, ``supporting_facts`` as
  ``[[title, sent_id], ...]`` and ``context`` as ``[[title, [sentence, ...]], ...]``;
- the column form of the bundled sample (``hotpot-qa-distractor-sample.json``): ``id``,
  ``supporting_facts`` as ``{"title": [...], "sent_id": [...]}`` and ``context`` as
  ``{"title": [...], "sentences": [[...], ...]}``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from graphmem.errors import InputFormatError

__all__ = ["HotpotExample", "Paragraph", "SupportingFact", "read_hotpotqa"]

logger = logging.getLogger(__name__)


class SupportingFact(BaseModel):
    """A gold sentence: the paragraph ``title`` and the sentence index ``sent_id`` in it."""

    model_config = ConfigDict(frozen=True)
    title: str
    sent_id: int = Field(ge=0)


class Paragraph(BaseModel):
    """A context paragraph: its Wikipedia ``title`` and its ``sentences`` in order."""

    title: str
    sentences: list[str]


class HotpotExample(BaseModel):
    """One HotpotQA question with its answer, type (``bridge``/``comparison``), level, the context
    paragraphs (gold and distractors) and the supporting facts."""

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    answer: str
    type: str = ""
    level: str = ""
    supporting_facts: list[SupportingFact]
    context: list[Paragraph]

    def supporting_sentences(self) -> list[str]:
        """The text of each supporting fact, in ``supporting_facts`` order.

        Raises:
            KeyError: a supporting fact names a paragraph or sentence not in ``context``.
        """
        by_title = {p.title: p.sentences for p in self.context}
        out = []
        for fact in self.supporting_facts:
            sentences = by_title.get(fact.title)
            if sentences is None or fact.sent_id >= len(sentences):
                raise KeyError(f"{self.id}: supporting fact {fact.title!r}/{fact.sent_id} not in context")
            out.append(sentences[fact.sent_id])
        return out


def _columns(value: Any, keys: tuple[str, str]) -> list[tuple[Any, Any]]:
    """Rows of either ``[[a, b], ...]`` or ``{keys[0]: [...], keys[1]: [...]}``."""
    if isinstance(value, dict):
        first, second = value.get(keys[0]), value.get(keys[1])
        if not isinstance(first, list) or not isinstance(second, list) or len(first) != len(second):
            raise ValueError(f"expected lists {keys[0]!r} and {keys[1]!r} of equal length")
        return list(zip(first, second, strict=True))
    if isinstance(value, list):
        rows = []
        for row in value:
            if not isinstance(row, (list, tuple)) or len(row) != 2:
                raise ValueError(f"expected [{keys[0]}, {keys[1]}] pairs, got {row!r:.80}")
            rows.append((row[0], row[1]))
        return rows
    raise ValueError(f"expected a list or an object, got {type(value).__name__}")


def _example(raw: Any) -> HotpotExample:
    if not isinstance(raw, dict):
        raise ValueError(f"expected an object, got {type(raw).__name__}")
    payload = {
        "id": raw.get("id", raw.get("_id")),
        "question": raw.get("question"),
        "answer": raw.get("answer", ""),
        "type": raw.get("type", ""),
        "level": raw.get("level", ""),
        "supporting_facts": [{"title": t, "sent_id": s}
                             for t, s in _columns(raw.get("supporting_facts"), ("title", "sent_id"))],
        "context": [{"title": t, "sentences": list(s)}
                    for t, s in _columns(raw.get("context"), ("title", "sentences"))],
    }
    return HotpotExample.model_validate(payload)


def read_hotpotqa(path: str | Path, limit: int | None = None) -> list[HotpotExample]:
    """Read a HotpotQA distractor JSON file (either layout, see the module docstring).

    Args:
        path: the JSON file (a list of examples).
        limit: keep the first ``limit`` examples (None = all).
    Returns:
        The examples in file order.
    Raises:
        InputFormatError: unreadable file, invalid JSON (names file and line), not a list, or an
            example with missing/ill-typed fields (names file and example index).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise InputFormatError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None
    if not isinstance(data, list):
        raise InputFormatError(f"{path}: expected a JSON list of HotpotQA examples")
    out: list[HotpotExample] = []
    for index, raw in enumerate(data):
        if limit is not None and len(out) >= limit:
            break
        try:
            out.append(_example(raw))
        except (ValueError, TypeError, PydanticValidationError) as exc:
            detail = exc.errors()[0]["msg"] if isinstance(exc, PydanticValidationError) else str(exc)
            raise InputFormatError(f"{path}: example {index}: {detail}") from None
    logger.debug("read %d HotpotQA examples from %s", len(out), path)
    return out
