"""Conversation input shared by the memories: pydantic models and readers for three formats.

Every :class:`Turn` keeps its ``source_id`` (LoCoMo's ``dia_id``, a generic message's ``id``, a
MemConflict fact's ``S<session>:<kind>:<n>``) so anything built from it can be scored against
evidence lists.

Formats (``read_conversations(path, fmt="auto")`` picks one by content):

- **locomo** — LoCoMo (Maharana et al., ACL 2024): a JSON list of samples, each with
  ``conversation`` (``speaker_a``, ``speaker_b``, ``session_N`` turn lists with ``speaker``,
  ``dia_id``, ``text`` and optional ``blip_caption``; ``session_N_date_time`` like
  ``"1:56 pm on 8 May, 2023"``) and ``qa`` (``question``, ``answer``, ``evidence`` dia_ids,
  ``category``). A shared image's caption is appended to the turn text as ``[shares <caption>]``.
- **generic** — graphmem's own documented format. Either a JSON file holding one conversation
  ``{"id": "c1", "messages": [...]}``, a list of such conversations, or a bare list of messages;
  or a JSONL file with one message per line. A message is::

      {"speaker": "Ann", "text": "I moved to Lyon.", "timestamp": "2024-03-01T10:00:00+01:00",
       "id": "m1", "session": "s1", "conversation": "c1"}

  ``speaker``, ``text`` and ``timestamp`` (ISO-8601 or any date ``dateutil`` parses) are
  required; ``id`` defaults to ``"<conversation>:<position>"``, ``session`` to ``"default"``,
  ``conversation`` (JSONL only) to the file's stem.
- **memconflict** — MemConflict (2026) ``Step4_1.jsonl``: one persona per line with a dated
  ``Full_Session_Chain``. Each session becomes turns by field mapping: the ``Session_Outline``,
  one turn per revealed or updated attribute, per static-conflict claim, per conditional
  preference rule and per other person's (distractor) fact. Structured values are kept in
  ``Turn.meta`` (``kind``, ``attribute``, ``value``, ``condition``, ``role``, ``person``,
  ``conflict_id``) for probes.

Timestamps are timezone-aware; naive dates are taken as ``default_tz`` (UTC unless given).

Raises (all readers): :class:`~graphmem.errors.InputFormatError` naming the file and the line
(JSON decode errors and JSONL lines) or the item path (schema errors inside a JSON file).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any, Literal

from dateutil import parser as date_parser
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from graphmem.errors import InputFormatError

Format = Literal["auto", "locomo", "generic", "memconflict"]

__all__ = [
    "Conversation",
    "Format",
    "QAItem",
    "Turn",
    "detect_format",
    "parse_timestamp",
    "read_conversations",
    "read_generic",
    "read_locomo",
    "read_memconflict",
]


class Turn(BaseModel):
    """One utterance (or one mapped fact) of a conversation.

    Attributes:
        source_id: id in the source data (LoCoMo ``dia_id`` such as ``"D1:3"``); unique within
            its conversation.
        speaker: who said it.
        text: what was said (non-empty).
        timestamp: when it was said, timezone-aware (LoCoMo: the session's date_time).
        session: session key (``"session_1"``, ``"S5"``, ``"default"``).
        position: 0-based order in the conversation (breaks timestamp ties).
        meta: format-specific structured fields (MemConflict facts), else empty.
    """

    model_config = ConfigDict(frozen=True)

    source_id: str = Field(min_length=1)
    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)
    timestamp: AwareDatetime
    session: str = "default"
    position: int = Field(default=0, ge=0)
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text is blank")
        return value


class QAItem(BaseModel):
    """A LoCoMo question with its evidence turn ids (for recall@k evaluation).

    ``category``: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (LoCoMo).
    """

    model_config = ConfigDict(frozen=True)

    question: str
    answer: str | None = None
    evidence: list[str] = Field(default_factory=list)
    category: int
    adversarial_answer: str | None = None

    @field_validator("answer", "adversarial_answer", mode="before")
    @classmethod
    def _to_text(cls, value: Any) -> Any:
        return None if value is None else str(value)


class Conversation(BaseModel):
    """A conversation: turns in order, its speakers, and (LoCoMo) its QA items.

    ``metadata`` holds format-specific extras (MemConflict: ``user``, ``profile``...).
    """

    id: str = Field(min_length=1)
    turns: list[Turn]
    speakers: list[str]
    qa: list[QAItem] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def sessions(self) -> list[str]:
        """Session keys in first-appearance order."""
        return list(dict.fromkeys(t.session for t in self.turns))

    def turn(self, source_id: str) -> Turn:
        """The turn with ``source_id``; KeyError if absent."""
        for t in self.turns:
            if t.source_id == source_id:
                return t
        raise KeyError(source_id)


def parse_timestamp(value: Any, default_tz: tzinfo = timezone.utc) -> datetime:
    """Parse a date/time (``datetime``, ISO-8601, or free text such as LoCoMo's
    ``"1:56 pm on 8 May, 2023"``) with ``dateutil``; naive results get ``default_tz``.

    Raises:
        ValueError: the value is not a date.
    """
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str) and value.strip():
        try:
            parsed = date_parser.parse(value, fuzzy=True)
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"not a date: {value!r}") from exc
    else:
        raise ValueError(f"not a date: {value!r}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=default_tz)


# ----------------------------------------------------------------------------- file helpers


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputFormatError(f"{path}: file not found") from exc
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{path}: not UTF-8 text ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise InputFormatError(f"{path}: line {exc.lineno}: invalid JSON: {exc.msg}") from exc


def _iter_jsonl(path: Path) -> Iterable[tuple[int, Any]]:
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
        except UnicodeDecodeError as exc:
            raise InputFormatError(f"{path}: not UTF-8 text ({exc})") from exc


def _first_error(exc: PydanticValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "value"
    return f"{where}: {err.get('msg')} (got {err.get('input')!r})"[:300]


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in (".jsonl", ".ndjson")


def detect_format(path: str | Path) -> Literal["locomo", "generic", "memconflict"]:
    """Guess the format from the content: MemConflict lines carry ``Full_Session_Chain``, LoCoMo
    samples ``conversation`` with ``speaker_a``; anything else is generic.

    Raises:
        InputFormatError: unreadable file or first line.
    """
    path = Path(path)
    if _is_jsonl(path):
        for _, first in _iter_jsonl(path):
            return "memconflict" if isinstance(first, dict) and "Full_Session_Chain" in first else "generic"
        raise InputFormatError(f"{path}: line 1: empty file")
    data = _load_json(path)
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
    if chosen == "locomo":
        return read_locomo(path, default_tz)
    if chosen == "generic":
        return read_generic(path, default_tz)
    if chosen == "memconflict":
        return read_memconflict(path, default_tz)
    raise InputFormatError(f"{path}: unknown format {fmt!r} (use auto, locomo, generic, memconflict)")


# ----------------------------------------------------------------------------- LoCoMo

_SESSION_KEY = re.compile(r"^session_(\d+)$")


class _LocomoTurn(BaseModel):
    speaker: str = Field(min_length=1)
    dia_id: str = Field(min_length=1)
    text: str
    blip_caption: str | None = None


class _LocomoSample(BaseModel):
    sample_id: str | None = None
    conversation: dict[str, Any]
    qa: list[QAItem] = Field(default_factory=list)


def read_locomo(path: str | Path, default_tz: tzinfo = timezone.utc) -> list[Conversation]:
    """Read a LoCoMo JSON file (list of samples, or one sample) into conversations with QA.

    Turns are in session order then turn order; each turn's timestamp is its session's
    ``session_N_date_time``. Turns with empty text and no image caption are skipped.

    Raises:
        InputFormatError: invalid JSON (file and line), a sample/turn missing fields or a bad
            session date (file and item path, e.g. ``sample 0 session_3 turn 5``).
    """
    path = Path(path)
    data = _load_json(path)
    samples = data if isinstance(data, list) else [data]
    out = []
    for si, raw in enumerate(samples):
        where = f"{path}: sample {si}"
        try:
            sample = _LocomoSample.model_validate(raw)
        except PydanticValidationError as exc:
            raise InputFormatError(f"{where}: {_first_error(exc)}") from exc
        conv = sample.conversation
        numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.match(k)))
        turns: list[Turn] = []
        for n in numbers:
            key = f"session_{n}"
            stamp_raw = conv.get(f"{key}_date_time")
            try:
                stamp = parse_timestamp(stamp_raw, default_tz)
            except ValueError as exc:
                raise InputFormatError(f"{where} {key}_date_time: {exc}") from exc
            if not isinstance(conv[key], list):
                raise InputFormatError(f"{where} {key}: expected a list of turns")
            for ti, raw_turn in enumerate(conv[key]):
                try:
                    lt = _LocomoTurn.model_validate(raw_turn)
                except PydanticValidationError as exc:
                    raise InputFormatError(f"{where} {key} turn {ti}: {_first_error(exc)}") from exc
                text = lt.text.strip()
                if lt.blip_caption:
                    text = f"{text} [shares {lt.blip_caption}]".strip()
                if not text:
                    continue
                turns.append(Turn(source_id=lt.dia_id, speaker=lt.speaker, text=text,
                                  timestamp=stamp, session=key, position=len(turns)))
        speakers = [conv[k] for k in ("speaker_a", "speaker_b") if isinstance(conv.get(k), str)]
        speakers = speakers or list(dict.fromkeys(t.speaker for t in turns))
        conv_id = sample.sample_id or f"{path.stem}-{si}"
        out.append(Conversation(id=conv_id, turns=turns, speakers=speakers, qa=sample.qa))
    return out


# ----------------------------------------------------------------------------- generic


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
    if _is_jsonl(path):
        for lineno, raw in _iter_jsonl(path):
            try:
                msg = _GenericMessage.model_validate(raw)
            except PydanticValidationError as exc:
                raise InputFormatError(f"{path}: line {lineno}: {_first_error(exc)}") from exc
            groups.setdefault(msg.conversation or path.stem, []).append(msg)
    else:
        data = _load_json(path)
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
                        f"{path}: conversation {ci} message {mi}: {_first_error(exc)}"
                    ) from exc
                groups.setdefault(conv_id, []).append(msg)
    out = []
    for conv_id, messages in groups.items():
        try:
            out.append(_generic_conversation(conv_id, messages, default_tz))
        except InputFormatError as exc:
            raise InputFormatError(f"{path}: {exc}") from exc
    return out


# ----------------------------------------------------------------------------- MemConflict


class _McSession(BaseModel):
    Session_ID: int
    Date: str
    Session_Type: str
    Session_Outline: str | None = None
    Revealed_Attributes: dict[str, Any] = Field(default_factory=dict)
    Updated_Attributes: list[dict[str, Any]] = Field(default_factory=list)
    Static_Conflict_Information: list[dict[str, Any]] = Field(default_factory=list)
    Conditional_Conflict_Information: list[dict[str, Any]] = Field(default_factory=list)
    Others_Dynamic_Information: list[dict[str, Any]] = Field(default_factory=list)


class _McRecord(BaseModel):
    ID: str
    Fixed_Profile: dict[str, Any]
    Others_Profile: dict[str, Any] = Field(default_factory=dict)
    Full_Session_Chain: list[_McSession]


def _value_text(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k.replace('_', ' ')}: {_value_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_value_text(v) for v in value)
    return str(value)


def _attr_text(attribute: str) -> str:
    return attribute.replace(".", " ").replace("_", " ").lower()


def read_memconflict(path: str | Path, default_tz: tzinfo = timezone.utc) -> list[Conversation]:
    """Read MemConflict persona records (``Step4_1.jsonl``) as conversations, one per persona.

    Field mapping per session (speaker = the user's name; timestamp = the session ``Date`` plus
    one second per turn so order inside a session is kept):

    - ``S<id>:outline`` — the Session_Outline text (``meta.kind = "outline"``);
    - ``S<id>:attr:<n>`` — "My <attribute> is <value>." for each revealed attribute or
      ``Updated_Attributes`` entry's ``After`` (``kind = "attribute"``, ``attribute``, ``value``,
      ``update`` True for updates);
    - ``S<id>:static:<n>`` — "My <field> is <value>." for Point_A/Point_B static-conflict claims
      (``kind = "static"``, ``role``, ``conflict_id``); a Distractor claim is the other person's
      ("My <relation> <name>'s <field> is <value>.", ``person`` set);
    - ``S<id>:conditional:<n>`` — "For <condition>, my <preference type> is <item>."
      (``kind = "conditional"``, ``condition``), or the other person's preference for distractors;
    - ``S<id>:other:<n>`` — another person's dynamic fact (``kind = "other"``, ``person``).

    ``Conversation.metadata`` holds ``user`` (name) and ``fixed_profile``.

    Raises:
        InputFormatError: invalid JSON or a record missing fields (names file and line).
    """
    path = Path(path)
    out = []
    for lineno, raw in _iter_jsonl(path):
        try:
            rec = _McRecord.model_validate(raw)
        except PydanticValidationError as exc:
            raise InputFormatError(f"{path}: line {lineno}: {_first_error(exc)}") from exc
        user = str(rec.Fixed_Profile.get("Name") or "user")
        names = {k: str(v.get("Name")) for k, v in rec.Others_Profile.items() if isinstance(v, dict)}
        turns: list[Turn] = []
        for session in rec.Full_Session_Chain:
            try:
                day = parse_timestamp(session.Date, default_tz)
            except ValueError as exc:
                raise InputFormatError(
                    f"{path}: line {lineno}: session {session.Session_ID}: {exc}"
                ) from exc
            sid = f"S{session.Session_ID}"
            facts: list[tuple[str, str, dict[str, Any]]] = []
            if session.Session_Outline and session.Session_Outline.strip():
                facts.append(("outline", session.Session_Outline.strip(), {"kind": "outline"}))
            for attr, value in session.Revealed_Attributes.items():
                facts.append(("attr", f"My {_attr_text(attr)} is {_value_text(value)}.",
                              {"kind": "attribute", "attribute": attr, "value": value,
                               "update": False}))
            for upd in session.Updated_Attributes:
                attr = str(upd.get("Attribute"))
                facts.append(("attr", f"My {_attr_text(attr)} is now {_value_text(upd.get('After'))}.",
                              {"kind": "attribute", "attribute": attr, "value": upd.get("After"),
                               "before": upd.get("Before"), "update": True}))
            for sc in session.Static_Conflict_Information:
                field, value, role = str(sc.get("Target_Field_Path")), sc.get("Value"), sc.get("Role")
                meta = {"kind": "static", "attribute": field, "value": value, "role": role,
                        "conflict_id": sc.get("Conflict_ID")}
                if role == "Distractor":
                    person = names.get(str(sc.get("Source_Person_ID")), str(sc.get("Source_Person_ID")))
                    rel = str(sc.get("Relationship_To_User", "contact")).lower()
                    meta["person"] = person
                    text = f"My {rel} {person}'s {_attr_text(field)} is {_value_text(value)}."
                else:
                    text = f"My {_attr_text(field)} is {_value_text(value)}."
                facts.append(("static", text, meta))
            for cc in session.Conditional_Conflict_Information:
                role = cc.get("Role")
                meta = {"kind": "conditional", "role": role, "conflict_id": cc.get("Conflict_ID")}
                if role == "Distractor":
                    person = names.get(str(cc.get("Source_Person_ID")), str(cc.get("Source_Person_ID")))
                    rel = str(cc.get("Relationship_To_User", "contact")).lower()
                    item = str(cc.get("Preference_Key", "")).replace("_", " ")
                    cond = str(cc.get("Preference_Description", ""))
                    meta.update(person=person, value=item, condition=cond)
                    text = f"My {rel} {person} likes {item}: {cond}."
                else:
                    ptype = str(cc.get("Preference_Type"))
                    item, cond = str(cc.get("Item")), str(cc.get("Condition"))
                    meta.update(attribute=ptype, value=item, condition=cond, rule_id=cc.get("Rule_ID"))
                    text = f"For {cond[:1].lower() + cond[1:]}, my {_attr_text(ptype)} is {item}."
                facts.append(("conditional", text, meta))
            for other in session.Others_Dynamic_Information:
                person = names.get(str(other.get("Source_Person_ID")), str(other.get("Source_Person_ID")))
                rel = str(other.get("Relationship_To_User", "contact")).lower()
                attr = str(other.get("Attribute"))
                facts.append(("other",
                              f"My {rel} {person}'s {_attr_text(attr)} is {_value_text(other.get('Value'))}.",
                              {"kind": "other", "attribute": attr, "value": other.get("Value"),
                               "person": person, "role": other.get("Role")}))
            counters: dict[str, int] = {}
            for i, (kind, text, meta) in enumerate(facts):
                n = counters[kind] = counters.get(kind, -1) + 1
                source_id = f"{sid}:{kind}" if kind == "outline" else f"{sid}:{kind}:{n}"
                turns.append(Turn(source_id=source_id, speaker=user, text=text,
                                  timestamp=day + timedelta(seconds=i), session=sid,
                                  position=len(turns), meta={**meta, "session_id": session.Session_ID,
                                                             "session_type": session.Session_Type}))
        out.append(Conversation(id=rec.ID, turns=turns, speakers=[user],
                                metadata={"user": user, "fixed_profile": rec.Fixed_Profile}))
    return out
