"""MemConflict reader: persona records with a dated ``Full_Session_Chain`` mapped to turns."""

from __future__ import annotations

import logging
from datetime import timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from pydantic import ValidationError as PydanticValidationError

from graphmem.conversations.files import first_error, iter_jsonl
from graphmem.conversations.models import Conversation, Turn, checked_key
from graphmem.errors import InputFormatError, InvalidInputError
from graphmem.timeparse import parse_timestamp

logger = logging.getLogger(__name__)

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
        InputFormatError: invalid JSON, a record missing fields, a session ``Date`` that is not a
            date (naming the session and the value) or an ``ID`` longer than ``MAX_KEY_BYTES``
            (names file and line).
    """
    path = Path(path)
    out = []
    for lineno, raw in iter_jsonl(path):
        try:
            rec = _McRecord.model_validate(raw)
        except PydanticValidationError as exc:
            raise InputFormatError(f"{path}: line {lineno}: {first_error(exc)}") from exc
        checked_key(f"{path}: line {lineno}", "conversation id (ID)", rec.ID)
        user = str(rec.Fixed_Profile.get("Name") or "user")
        names = {k: str(v.get("Name")) for k, v in rec.Others_Profile.items() if isinstance(v, dict)}
        turns: list[Turn] = []
        for session in rec.Full_Session_Chain:
            try:
                day = parse_timestamp(session.Date, field=f"session {session.Session_ID} Date",
                                      default_tz=default_tz)
            except InvalidInputError as exc:
                raise InputFormatError(f"{path}: line {lineno}: {exc}") from None
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
                try:
                    stamp = day + timedelta(seconds=i)
                except OverflowError:
                    raise InputFormatError(f"{path}: line {lineno}: session "
                                           f"{session.Session_ID} Date {session.Date!r} is out "
                                           f"of range") from None
                turns.append(Turn(source_id=source_id, speaker=user, text=text,
                                  timestamp=stamp, session=sid,
                                  position=len(turns), meta={**meta, "session_id": session.Session_ID,
                                                             "session_type": session.Session_Type}))
        out.append(Conversation(id=rec.ID, turns=turns, speakers=[user],
                                metadata={"user": user, "fixed_profile": rec.Fixed_Profile}))
    return out
