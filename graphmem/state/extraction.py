"""Extractors: turn -> :class:`Extraction` (EMIR² SEMG construction, section 3.2).

Two extractors fill the same vocabulary:

- :class:`HeuristicStateExtractor` needs no LLM. Structured turns (``Turn.meta`` with ``attribute``,
  e.g. MemConflict's field mapping) give subject, topic key, value and condition directly; free
  text gives subject = speaker, topic by embedding (``topic_key=None``), and an assertion when
  the turn is a first-person statement (the latest assertion becomes the topic's state).
- :class:`LLMStateExtractor` asks a langchain-core chat model for the same fields with structured
  output (one call per batch of turns; one retry, then ControllerError).
"""

from __future__ import annotations

import logging
import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from graphmem.conversations import Turn
from graphmem.llm import LLMUsage, constrained_schema, invoke_structured
from graphmem.state.models import Extraction

logger = logging.getLogger(__name__)

_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|ours)\b", re.I)
_CONDITION = re.compile(r"\b(?:when(?:ever)?|if|during|on weekends|in the (?:morning|evening))\b[^.,;!?]*",
                        re.I)
#: Attribute words whose value cannot change over time (a different later claim is a conflict).
IMMUTABLE_ATTRIBUTES = ("name", "birth", "gender", "birthplace", "birthdate", "family_information",
                        "has_mother", "has_father", "born")


def normalize_value(value: Any) -> str:
    """Canonical text of a value for equality tests: JSON for structures, lower-case, squeezed
    whitespace. ``None`` -> ``""``."""
    if value is None:
        return ""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value)
    return " ".join(text.lower().split())


def is_immutable(attribute: str) -> bool:
    """True when ``attribute`` names a fact that does not change (birth date, name, ...)."""
    low = attribute.lower()
    return any(word in low for word in IMMUTABLE_ATTRIBUTES)


def _human(attribute: str) -> str:
    return attribute.replace(".", " ").replace("_", " ").lower()


def _value_text(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{_human(k)}: {_value_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_value_text(v) for v in value)
    return str(value)


class HeuristicStateExtractor:
    """Rule-based extractor (no LLM). Deterministic; ``name = "heuristic"``."""

    name = "heuristic"

    def __init__(self) -> None:
        self.usage = LLMUsage()

    def extract(self, turns: Sequence[Turn]) -> list[Extraction]:
        """One :class:`Extraction` per turn, same order."""
        return [self._one(t) for t in turns]

    def _one(self, turn: Turn) -> Extraction:
        meta = turn.meta
        if meta.get("attribute") and meta.get("kind") != "outline":
            subject = str(meta.get("person") or turn.speaker)
            attribute = str(meta["attribute"])
            condition = meta.get("condition") if meta.get("kind") == "conditional" else None
            key = "|".join([subject, attribute] + ([condition] if condition else []))
            name = f"{subject} {_human(attribute)}" + (f" ({condition})" if condition else "")
            value_text = _value_text(meta.get("value"))
            assertion = f"{subject}'s {_human(attribute)} is {value_text}" + (
                f" (condition: {condition})" if condition else "")
            return Extraction(subject=subject, topic_key=key, topic_name=name, assertion=assertion,
                              value=normalize_value(meta.get("value")), condition=condition,
                              mutable=not (meta.get("kind") == "static" or is_immutable(attribute)))
        text = turn.text.strip()
        statement = bool(_FIRST_PERSON.search(text)) and not text.endswith("?")
        condition = None
        match = _CONDITION.search(text) if statement else None
        if match and len(match.group(0).split()) >= 2:
            condition = match.group(0).strip()
        return Extraction(
            subject=turn.speaker,
            assertion=f"{turn.speaker}: {text}" if statement else None,
            value=normalize_value(text) if statement else None,
            condition=condition,
            mutable=not any(w in text.lower() for w in ("i was born", "my name is")),
        )


class _LLMItem(BaseModel):
    index: int = Field(description="index of the turn in the list")
    subject: str = Field(description="whose fact this is (speaker or person named)")
    topic: str = Field(description="short topic name, e.g. 'Caroline / adoption plans'")
    assertion: str | None = Field(None, description="state asserted about the topic, or null")
    value: str | None = Field(None, description="the asserted value, short")
    condition: str | None = Field(None, description="condition the fact holds under, or null")
    mutable: bool = Field(True, description="false for facts that cannot change (birth date)")


class ExtractionBatch(BaseModel):
    """Structured LLM output: one item per turn."""

    items: list[_LLMItem]


_SYSTEM = (
    "You build a State-Evolving Memory Graph. For each numbered turn give: subject, a short "
    "topic name (the same name for turns about the same thing), the state it asserts about "
    "that topic (or null), its value, a condition if the fact only holds under one, and whether "
    "the fact can change over time."
)


def extraction_json_schema(n_turns: int) -> dict[str, Any]:
    """The call-specific JSON schema of one extraction call over ``n_turns`` (>= 1) turns:
    indices ``0..n_turns-1`` only, at most one item per turn, non-blank subject and topic."""
    return constrained_schema(ExtractionBatch, ranges={"items.index": (0, n_turns - 1)},
                              min_length=["items.subject", "items.topic"],
                              max_items={"items": n_turns})


class LLMStateExtractor:
    """Extractor backed by a langchain-core ``BaseChatModel`` (structured output).

    Args:
        llm: chat model supporting ``with_structured_output``.
        batch_size: turns per call.
    Raises (from :meth:`extract`):
        ControllerError: invalid output after one retry (nothing is written by the caller).
    """

    name = "llm"

    def __init__(self, llm: Any, batch_size: int = 20):
        self.llm = llm
        self.batch_size = batch_size
        self.usage = LLMUsage()

    def extract(self, turns: Sequence[Turn]) -> list[Extraction]:
        """One :class:`Extraction` per turn, same order; a turn the model skipped gets only its
        speaker as subject. One call per ``batch_size`` turns, under
        :func:`extraction_json_schema`; a repeated index keeps its last item.

        Raises:
            ControllerError: invalid or rule-breaking output twice for a batch.
        """
        out: list[Extraction] = []
        for start in range(0, len(turns), self.batch_size):
            chunk = list(turns[start:start + self.batch_size])
            listing = "\n".join(f"[{i}] {t.timestamp.date()} {t.speaker}: {t.text}"
                                for i, t in enumerate(chunk))
            batch = invoke_structured(self.llm, ExtractionBatch,
                                      [("system", _SYSTEM), ("human", listing)],
                                      self.usage, "state.extract",
                                      json_schema=extraction_json_schema(len(chunk)))
            by_index = {item.index: item for item in batch.items}
            for i, turn in enumerate(chunk):
                item = by_index.get(i)
                if item is None:
                    out.append(Extraction(subject=turn.speaker))
                    continue
                key = " ".join(item.topic.lower().split())
                out.append(Extraction(subject=item.subject, topic_key=key, topic_name=item.topic,
                                      assertion=item.assertion,
                                      value=normalize_value(item.value or item.assertion),
                                      condition=item.condition, mutable=item.mutable))
        return out
