"""Action and observation normalisation for action decision graphs (EMG, seed 001, section 4.1.2).

An action becomes a tuple ``k = (type, object, receptacle)`` (e.g. ``("take", "apple", "table")``
for ``"take apple 1 from table 2"``); an observation becomes a short normalised text ``s`` whose
equality decides edge-label equality. Two grammars are known: ScienceWorld and ALFWorld; any other
text falls back to ``(first word, rest, "")``. Pure functions, no I/O.
"""

from __future__ import annotations

import logging
import re
from typing import Literal, NamedTuple

logger = logging.getLogger(__name__)

Grammar = Literal["scienceworld", "alfworld", "generic"]


class ActionKey(NamedTuple):
    """A normalised action ``(type, object, receptacle)``; empty strings where absent."""

    type: str
    object: str
    receptacle: str

    def text(self) -> str:
        """``"type object -> receptacle"`` (what the graph stores as ``Action.key``)."""
        parts = [self.type]
        if self.object:
            parts.append(self.object)
        if self.receptacle:
            parts.append(f"-> {self.receptacle}")
        return " ".join(parts)


#: The key of the virtual INIT node (label 0).
INIT_KEY = ActionKey("INIT", "", "")

_ARTICLES = re.compile(r"\b(?:a|an|the|some)\b")
_INSTANCE_NUMBER = re.compile(r"\b([a-z]+)\s+\d+\b")
_SPACES = re.compile(r"\s+")
_PUNCT = re.compile(r"[^a-z0-9 ]+")

# (type, regex) in priority order; groups "obj" and optional "rec". Matched on lower-cased text.
_SCIENCEWORLD: list[tuple[str, re.Pattern[str]]] = [
    (t, re.compile(p))
    for t, p in [
        ("open", r"^open (?P<obj>.+)$"),
        ("close", r"^close (?P<obj>.+)$"),
        ("go", r"^go to (?P<obj>.+)$"),
        ("teleport", r"^teleport to (?P<obj>.+)$"),
        ("look", r"^look around$"),
        ("look", r"^look (?:at|in) (?P<obj>.+)$"),
        ("focus", r"^focus on (?P<obj>.+)$"),
        ("pick", r"^pick up (?P<obj>.+)$"),
        ("put", r"^put down (?P<obj>.+)$"),
        ("drop", r"^drop (?P<obj>.+)$"),
        ("move", r"^move (?P<obj>.+?) to (?P<rec>.+)$"),
        ("pour", r"^pour (?P<obj>.+?) (?:into|in) (?P<rec>.+)$"),
        ("dunk", r"^dunk (?P<obj>.+?) (?:into|in) (?P<rec>.+)$"),
        ("use", r"^use (?P<obj>.+?) on (?P<rec>.+)$"),
        ("use", r"^use (?P<obj>.+)$"),
        ("connect", r"^connect (?P<obj>.+?) to (?P<rec>.+)$"),
        ("disconnect", r"^disconnect (?P<obj>.+)$"),
        ("activate", r"^activate (?P<obj>.+)$"),
        ("deactivate", r"^deactivate (?P<obj>.+)$"),
        ("mix", r"^mix (?P<obj>.+)$"),
        ("examine", r"^examine (?P<obj>.+)$"),
        ("read", r"^read (?P<obj>.+)$"),
        ("eat", r"^eat (?P<obj>.+)$"),
        ("flush", r"^flush (?P<obj>.+)$"),
        ("wait", r"^wait\d*$"),
        ("inventory", r"^inventory$"),
        ("task", r"^task$"),
        ("choose", r"^(?P<obj>\d+)$"),
    ]
]
_ALFWORLD: list[tuple[str, re.Pattern[str]]] = [
    (t, re.compile(p))
    for t, p in [
        ("go", r"^go to (?P<obj>.+)$"),
        ("take", r"^take (?P<obj>.+?) from (?P<rec>.+)$"),
        ("put", r"^put (?P<obj>.+?) (?:in/on|in|on) (?P<rec>.+)$"),
        ("open", r"^open (?P<obj>.+)$"),
        ("close", r"^close (?P<obj>.+)$"),
        ("toggle", r"^toggle (?P<obj>.+)$"),
        ("use", r"^use (?P<obj>.+)$"),
        ("clean", r"^clean (?P<obj>.+?) with (?P<rec>.+)$"),
        ("heat", r"^heat (?P<obj>.+?) with (?P<rec>.+)$"),
        ("cool", r"^cool (?P<obj>.+?) with (?P<rec>.+)$"),
        ("slice", r"^slice (?P<obj>.+?) with (?P<rec>.+)$"),
        ("examine", r"^examine (?P<obj>.+)$"),
        ("look", r"^look$"),
        ("inventory", r"^inventory$"),
    ]
]

# Observations that leave the environment unchanged (Algorithm 1, line 13: "not valid").
_INVALID_OBSERVATIONS = re.compile(
    r"^(?:nothing happens?\.?|nothing happened\.?|no known action matches that input\.?"
    r"|the door is already open\.?|the .+ is already (?:open|closed|activated|deactivated)\.?"
    r"|it's not clear how to .*|i'm not sure what you mean.*|you can't .*|that can't be .*"
    r"|unknown action.*|the .+ is not (?:open|movable)\.?|there is nothing .*|"
    r"you don't see .*|that is not possible.*|)$"
)


def _clean_object(text: str, grammar: Grammar) -> str:
    text = text.strip().lower()
    if grammar == "scienceworld":
        text = re.sub(r"\s+containing\s+.*$", "", text)   # "metal pot containing nothing"
        text = re.sub(r"\s+in inventory$", "", text)
        text = re.sub(r"\s+in (?:the )?\w+ room$", "", text)
    text = _INSTANCE_NUMBER.sub(r"\1", text)          # "drawer 1" -> "drawer"
    text = _ARTICLES.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def normalize_action(raw: str, grammar: Grammar = "generic") -> ActionKey:
    """Normalise one raw action into ``(type, object, receptacle)`` (EMG section 4.1.2).

    Instance numbers (``"drawer 1"``), articles and ScienceWorld's ``"containing ..."``/
    ``"in inventory"`` qualifiers are dropped, so the same action on another instance of an object
    reuses the same node.

    Args:
        raw: action text as the agent typed it.
        grammar: ``"scienceworld"``, ``"alfworld"`` or ``"generic"`` (tries both grammars, then
            falls back to ``(first word, rest, "")``).
    Raises:
        TrajectoryError: ``raw`` is empty or not a string (names it).
    """
    from graphmem.errors import TrajectoryError

    if not isinstance(raw, str) or not raw.strip():
        raise TrajectoryError(f"action must be a non-empty string, got {raw!r}")
    text = _SPACES.sub(" ", raw.strip().lower())
    tables = {
        "scienceworld": [_SCIENCEWORLD],
        "alfworld": [_ALFWORLD],
        "generic": [_ALFWORLD, _SCIENCEWORLD],
    }[grammar]
    for table in tables:
        for kind, pattern in table:
            match = pattern.match(text)
            if match:
                groups = match.groupdict()
                obj = _clean_object(groups.get("obj") or "", grammar)
                rec = _clean_object(groups.get("rec") or "", grammar)
                return ActionKey(kind, obj, rec)
    head, _, rest = text.partition(" ")
    return ActionKey(head, _clean_object(rest, grammar), "")


def is_valid_observation(raw: str) -> bool:
    """``False`` for observations that show no state change ("Nothing happens.", "No known action
    matches that input.", "The door is already open.", empty text): Algorithm 1, line 13."""
    text = _SPACES.sub(" ", (raw or "").strip().lower())
    return not _INVALID_OBSERVATIONS.match(text)


def normalize_observation(raw: str, max_chars: int = 120) -> str:
    """Normalised observation text ``s`` (EMG section 4.1.2): lower case, no articles, instance
    numbers or punctuation; a room description becomes ``"room <name>"``; at most ``max_chars``
    characters of the first sentence. Identical ``s`` get identical edge labels."""
    text = (raw or "").strip().lower()
    room = re.match(r"^this (?:room|outside location) is called the ([a-z ]+?)\.", text)
    if room:
        return f"room {room.group(1).strip()}"
    alf = re.match(r"^-= welcome to textworld, alfred! =-\s*", text)
    if alf:
        text = text[alf.end():]
        text = re.sub(r"^you are in the middle of a room\. looking quickly around you, ", "", text)
    first = re.split(r"(?<=[.!?])\s|\n", text, maxsplit=1)[0]
    first = _INSTANCE_NUMBER.sub(r"\1", first)
    first = _PUNCT.sub(" ", first)
    first = _ARTICLES.sub(" ", first)
    first = _SPACES.sub(" ", first).strip()
    return first[:max_chars].strip() or "empty"
