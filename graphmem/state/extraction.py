"""Extractors: turn -> :class:`Extraction` (EMIR² SEMG construction, section 3.2).

Two extractors fill the same vocabulary:

- :class:`HeuristicStateExtractor` needs no LLM. Structured turns (``Turn.meta`` with ``attribute``,
  e.g. MemConflict's field mapping) give subject, topic key, value and condition directly; free
  text gives subject = speaker, topic by embedding (``topic_key=None``) named by a YAKE key
  phrase, and an assertion when the turn makes a statement about the speaker: that sentence
  rewritten as a short third-person State (:mod:`graphmem.state.utterances`,
  :mod:`graphmem.state.statements`). Greetings, thanks, questions and small talk assert nothing
  and go to the speaker's small-talk topic.
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
from graphmem.state.statements import rewrite_statement
from graphmem.state.utterances import WORD, is_name, main_statement, name_words, utterances

logger = logging.getLogger(__name__)

#: Topic name part of a speaker's small-talk chain (:func:`small_talk_topic`).
SMALL_TALK_TOPIC = "small talk"
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
        """One :class:`Extraction` per turn, same order. The names of the turns' speakers are
        the names :mod:`graphmem.state.utterances` cuts as vocatives ("Thanks, Mel!")."""
        names = name_words({t.speaker for t in turns})
        return [self._one(t, names) for t in turns]

    def _one(self, turn: Turn, names: frozenset[str]) -> Extraction:
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
        return self._free_text(turn, names)

    def _free_text(self, turn: Turn, names: frozenset[str]) -> Extraction:
        """Free text: the turn's best statement becomes its State (rewritten about the speaker,
        :func:`graphmem.state.statements.rewrite_statement`); the topic is placed by embedding
        and, when the turn founds one, named by the YAKE key phrase of that statement (else of the
        turn's other content; :meth:`Extraction.resolved_topic_name`);
        a turn of greetings, thanks, questions and small talk only goes to the speaker's
        small-talk topic (:func:`small_talk_topic`) and asserts nothing."""
        text = turn.text.strip()
        found = utterances(text, names)
        main = main_statement(found)
        content = [u for u in found if u.kind in ("statement", "remark")]
        mutable = not any(w in text.lower() for w in ("i was born", "my name is"))
        if not content:
            key, name = small_talk_topic(turn.speaker)
            return Extraction(subject=turn.speaker, topic_key=key, topic_name=name, mutable=mutable)
        named = [main] if main else [u for u in found if u.kind == "remark"]
        naming = (turn.speaker, _without_names(" ".join(u.core for u in named), names),
                  " ".join(dict.fromkeys(w for u in named for w in u.content[:3])))
        if main is None:
            return Extraction(subject=turn.speaker, mutable=mutable).name_topic_from(*naming)
        assertion = rewrite_statement(main.text, turn.speaker, names, turn.timestamp)
        match = _CONDITION.search(main.text)
        condition = match.group(0).strip() if match and len(match.group(0).split()) >= 2 else None
        return Extraction(subject=turn.speaker, assertion=assertion or None,
                          value=normalize_value(assertion) if assertion else None,
                          condition=condition, mutable=mutable).name_topic_from(*naming)


def small_talk_topic(speaker: str) -> tuple[str, str]:
    """``(topic key, topic name)`` of the chain that holds a speaker's greetings, thanks,
    questions and small talk: ``("Caroline|small talk", "small talk")`` (the Topic's
    ``subject`` says whose). The name carries no speaker name on purpose: the topic's vector is
    the name's, and on the LoCoMo dev conversations "Caroline: small talk"-style names reach the
    joining cosine (0.5) with 18% of the speakers' turns that have content (MiniLM), so those
    would join the chat chain; "small talk" reaches at most 0.37 with any of them."""
    return f"{speaker}|{SMALL_TALK_TOPIC}", SMALL_TALK_TOPIC


def _without_names(text: str, names: frozenset[str]) -> str:
    """``text`` with the conversation's names blanked (so a key phrase is never "Hey Mel")."""
    return WORD.sub(lambda m: " " if is_name(m.group(0), names) else m.group(0), text)


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
