"""Who is who in one conversation: :class:`Person` resolution (pure: no I/O).

People in a chat are named by other words than their speaker labels: a nickname ("Mel" for
speaker "Melanie"), a first name for an app handle ("Johnny" for speaker "jdoe92"), a long form
("Jonathan" for "Jon"), and people who never speak ("my sister Anna"). :func:`resolve_people`
reads one conversation's turns and returns one :class:`Person` per speaker and per third party,
with the lower-cased names (``aliases``) that refer to them and the turns that mention them.
State memory stores them as ``Person`` nodes (:mod:`graphmem.state.people_store`); the retrieval
engine reads their aliases (:mod:`graphmem.retrieval.aliases`).

Rules (generic, no name list; each function below says why):

1. every speaker label is a person; its aliases are the label and its parts
   (:func:`label_aliases`);
2. a speaker who introduces themself ("I'm Anna", "call me Jo") gets that name
   (:func:`self_names`);
3. a name said to the listener (a *vocative*: "Hey Mel!", "Mel, did you ...", "... , Mel!") is a
   vote that it names the other speaker of the exchange; a name with at least
   :data:`MIN_VOTES` votes for one speaker, at least :data:`VOTE_SHARE` of its votes, joins that
   speaker (:func:`vocative_votes`);
4. any other name used at least :data:`MIN_THIRD_PARTY_USES` times, once at least after a
   possessive ("my sister Anna") or as a possessive ("Anna's"), is a third party
   (:func:`third_parties`): decided before short forms, so "my sister Anna" stays herself
   and does not join speaker "Ann";
5. a remaining capitalised word that is a prefix of one person's alias, or has one as a prefix,
   joins that person (``Mel`` ~ ``Melanie``, ``Jonathan`` ~ ``Jon``; :func:`short_form_owner`).

What counts as a *name* (capitalised, name-shaped, no function or calendar word, not a
sentence's first word unless a comma or "!" follows it) is decided by
:class:`~graphmem.state.name_candidates.ConversationWords`.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphmem.errors import InvalidInputError
from graphmem.retrieval.text import GREETINGS, PHATIC, THANKS
from graphmem.state.name_candidates import (
    CALENDAR_WORDS,
    FUNCTION_WORDS,
    WORD,
    ConversationWords,
    Turn,
    Word,
    capitalised,
    split_words,
)

logger = logging.getLogger(__name__)

#: Votes a vocative name needs for one speaker (one "Hey X" can be a slip or a third person).
MIN_VOTES = 2
#: Share of a name's votes one speaker needs (a name said to both speakers names neither).
VOTE_SHARE = 2 / 3
#: Shortest prefix a short form is matched on ("Mel" ~ "Melanie"; two letters match too much).
MIN_PREFIX = 3
#: Uses a third party's name needs in the conversation (one capitalised word may be anything).
MIN_THIRD_PARTY_USES = 2
#: Characters of a message read for names (its start): people are named in a message's prose,
#: not deep in the code, logs and lists of a long assistant reply, which only cost time (an
#: 800-message agent chat: 2.5-5.7 s unbounded) and add identifiers. Mentions after it are missed.
MAX_TURN_CHARS = 2_000

_PART = re.compile(r"[^\W\d_]+|\d+")
_SEPARATORS = re.compile(r"[\s_.\-]+")
#: Words that open a possessive phrase before a third party's name ("my sister Anna").
_POSSESSORS = frozenset("my your his her our their".split())
#: Self-introductions; "this is X" only at the start of a turn (after greetings at most).
_SELF = re.compile(r"\b(?:I['’]m|I am|[Mm]y name is|[Cc]all me)\s+(\w+)\b(?!['’])")
_THIS_IS = re.compile(r"\b[Tt]his is\s+(\w+)")
class Person(BaseModel):
    """One person of a conversation.

    Attributes:
        key: stable id within the conversation: ``speaker:<label>`` or ``name:<alias>``.
        name: display name: the longest alias written as a proper name, else the speaker label.
        speakers: speaker labels that are this person (empty for a third party).
        aliases: lower-cased names that refer to them, sorted.
        mentions: source ids of the turns that mention them by an alias (their own turns are
            not mentions), in conversation order.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    name: str
    speakers: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()


def label_aliases(label: str) -> list[str]:
    """The label (lower case) and its parts split on whitespace, ``_``, ``.``, ``-`` and
    letter/digit boundaries, parts of two or more letters (``john_doe92`` -> ``john_doe92``,
    ``john``, ``doe``): people are called by the parts of their handle or full name."""
    out = [label.strip().lower()]
    for chunk in _SEPARATORS.split(label.strip()):
        out += [p.lower() for p in _PART.findall(chunk) if p.isalpha() and len(p) >= 2]
    return list(dict.fromkeys(a for a in out if a))


def self_names(turn: Turn, words: ConversationWords) -> list[str]:
    """Names a speaker gives themself in their own turn: "I'm X", "I am X", "my name is X",
    "call me X", and "this is X" when it opens the turn (after greetings at most: elsewhere
    "this is Lisbon" names a place); X a capitalised name never written in lower case."""
    found = [m.group(1) for m in _SELF.finditer(turn.text)]
    opening = _THIS_IS.search(turn.text)
    if opening and all(w.lower() in GREETINGS | THANKS | PHATIC
                       for w in WORD.findall(turn.text[:opening.start(1)])[:-2]):
        found.append(opening.group(1))
    written = {w.text for w in turn.words}
    return [x.lower() for x in found if x in written and words.candidate(
        Word(x, False, False, False, 0), strict=True)]


def vocatives(turn: Turn, words: ConversationWords) -> list[str]:
    """Names said to the listener: directly after an opening greeting or thanks word of
    graphmem's vocabulary ("Hey Mel!", "Thanks, Mel"), alone before a comma at the start
    ("Mel, did you ...") or after a comma at the end of a sentence ("..., Mel!"). People name
    the one they talk to in these places; the start and end places (where any word may stand)
    also need a name never written in lower case."""
    ws = turn.words
    out: list[str] = []
    if not ws:
        return out
    i = 0
    while i < len(ws) and ws[i].text.lower() in GREETINGS | THANKS | PHATIC:
        i += 1
    if 0 < i < len(ws) and not ws[i].initial:  # in the opening greeting's sentence
        opener = ws[0].text.lower() in GREETINGS | THANKS
        if words.candidate(ws[i], strict=not opener):
            out.append(ws[i].text.lower())
    elif i == 0 and ws[0].follow == "," and words.candidate(ws[0], strict=True):
        out.append(ws[0].text.lower())
    for w in ws[1:]:
        before = ws[w.index - 1].text
        if w.last and not w.initial and turn.text[:w.start].rstrip().endswith(",") \
                and not before[:1].isupper() and words.candidate(w, strict=True):
            # "..., Mel!" -- but not the last item of a list of names ("Google, Facebook.")
            out.append(w.text.lower())
    return list(dict.fromkeys(out))


def vocative_votes(turns: Sequence[Turn], words: ConversationWords) -> dict[str, Counter[str]]:
    """``{name: Counter(speaker: votes)}``: each vocative votes for the other speaker of the
    exchange -- the previous turn's speaker in the session when it differs from this turn's,
    else the next turn's -- the one the turn answers or is answered by."""
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for i, turn in enumerate(turns):
        target = None
        for j in (i - 1, i + 1):
            if 0 <= j < len(turns) and turns[j].session == turn.session \
                    and turns[j].speaker != turn.speaker:
                target = turns[j].speaker
                break
        if target is None:
            continue
        for name in vocatives(turn, words):
            votes[name][target] += 1
    return votes


def short_form_owner(word: str, aliases: dict[str, set[str]]) -> str | None:
    """The one person (key) of ``aliases`` (key -> aliases) of whom ``word`` is a short or long
    form: ``word`` (at least :data:`MIN_PREFIX` letters) is a prefix of one of their aliases,
    or one of their aliases (as long) is a prefix of it; None when no person or several fit (a
    prefix shared by two people identifies neither)."""
    low = word.lower()
    if len(low) < MIN_PREFIX:
        return None
    owners = {key for key, names in aliases.items()
              if any(a != low and len(a) >= MIN_PREFIX and (a.startswith(low) or low.startswith(a))
                     for a in names)}
    return owners.pop() if len(owners) == 1 else None


def third_parties(turns: Sequence[Turn], words: ConversationWords, taken: set[str]) -> list[str]:
    """Names (lower case) of people who do not speak: a name not already an alias, used at least
    :data:`MIN_THIRD_PARTY_USES` times, once at least after a possessive within three words
    ("my sister Anna", "our friend Tom") or as a possessive ("Anna's"): the two ways a chat
    introduces someone it talks about. In order of first use."""
    uses: Counter[str] = Counter()
    person_like: set[str] = set()
    order: dict[str, int] = {}
    for turn in turns:
        for w in turn.words:
            low = w.text.lower()
            if low in taken or not words.candidate(w, strict=True):
                continue
            uses[low] += 1
            order.setdefault(low, len(order))
            if w.possessive or _after_possessor(turn.words, w.index):
                person_like.add(low)
    return sorted((n for n in person_like if uses[n] >= MIN_THIRD_PARTY_USES), key=order.get)


def _after_possessor(ws: Sequence[Word], index: int) -> bool:
    """A possessive word at most three words back in the same sentence, only content words
    between ("my sister Anna", "our best friend Tom"; not "my trip to Lisbon")."""
    for j in range(index - 1, max(-1, index - 4), -1):
        low = ws[j].text.lower()
        if low in _POSSESSORS:
            return True
        if low in FUNCTION_WORDS or ws[j].initial:
            return False
    return False


def _label(key: str) -> str:
    """The speaker label or name of a person key (``speaker:Mel`` -> ``Mel``)."""
    return key.split(":", 1)[1]


def _get(turn: Any, name: str) -> Any:
    return turn.get(name) if isinstance(turn, dict) else getattr(turn, name, None)


def _read(turns: Sequence[Any]) -> list[Turn]:
    out = []
    for i, t in enumerate(turns):
        speaker, text, source = _get(t, "speaker"), _get(t, "text"), _get(t, "source_id")
        if not isinstance(speaker, str) or not speaker.strip():
            raise InvalidInputError(f"resolve_people: turn {i} has no speaker ({speaker!r}); "
                                    "give every turn a non-empty speaker label")
        if not isinstance(text, str):
            raise InvalidInputError(f"resolve_people: turn {i} text must be a string, got "
                                    f"{type(text).__name__}")
        if not isinstance(source, str) or not source:
            raise InvalidInputError(f"resolve_people: turn {i} has no source_id ({source!r})")
        session = _get(t, "session")
        text = text[:MAX_TURN_CHARS]
        out.append(Turn(speaker.strip(), text, source, str(session or "default"),
                        split_words(text)))
    return out


def resolve_people(turns: Sequence[Any]) -> list[Person]:
    """The people of one conversation (module docstring: the rules, in that order).

    Args:
        turns: the conversation's turns in conversation order: objects or dicts with
            ``speaker``, ``text``, ``source_id`` and ``session`` (None: ``"default"``).
    Returns:
        The speakers (first appearance order), then the third parties (first use order).
    Raises:
        InvalidInputError: a turn without speaker, text string or source id (names the index).
    """
    ts = _read(turns)
    if not ts:
        return []
    words = ConversationWords(ts)
    speakers = list(dict.fromkeys(t.speaker for t in ts))
    aliases: dict[str, set[str]] = {f"speaker:{s}": set(label_aliases(s)) for s in speakers}
    counts = Counter(a for names in aliases.values() for a in names)
    for key in aliases:  # a label part shared by two speakers ("john" of two Johns) names neither
        aliases[key] = {a for a in aliases[key] if counts[a] == 1 or a == _label(key).lower()}
    owner = {a: k for k, names in aliases.items() for a in names}
    for t in ts:
        for name in self_names(t, words):
            owner.setdefault(name, f"speaker:{t.speaker}")
    for name, votes in vocative_votes(ts, words).items():
        speaker, n = votes.most_common(1)[0]
        if n >= MIN_VOTES and n >= VOTE_SHARE * sum(votes.values()):
            owner.setdefault(name, f"speaker:{speaker}")
    for name in third_parties(ts, words, set(owner)):
        owner.setdefault(name, f"name:{name}")
    _join_short_forms(ts, words, owner)
    return _people(ts, words, speakers, owner)


def _join_short_forms(ts: Sequence[Turn], words: ConversationWords, owner: dict[str, str]) -> None:
    by_key: dict[str, set[str]] = defaultdict(set)
    for a, k in owner.items():
        by_key[k].add(a)
    for t in ts:
        for w in t.words:
            if not w.text[:1].isupper():
                continue
            low = w.text.lower()
            if low not in owner and words.candidate(w, strict=True):
                key = short_form_owner(low, by_key)
                if key is not None:
                    owner[low] = key
                    by_key[key].add(low)


def _people(ts: Sequence[Turn], words: ConversationWords, speakers: list[str],
            owner: dict[str, str]) -> list[Person]:
    by_key: dict[str, set[str]] = defaultdict(set)
    for a, k in owner.items():
        by_key[k].add(a)
    keys = [f"speaker:{s}" for s in speakers] + [k for k in dict.fromkeys(owner.values())
                                                 if k.startswith("name:")]
    written: dict[str, Counter[str]] = defaultdict(Counter)  # alias -> its proper spellings
    mentions: dict[str, list[str]] = defaultdict(list)
    handles = {f"speaker:{s}": re.compile(r"(?<!\w)" + re.escape(s.lower()) + r"(?!\w)")
               for s in speakers if not s.isalpha()}
    for t in ts:
        hit = {key for key, pattern in handles.items() if pattern.search(t.text.lower())}
        for w in t.words:
            low = w.text.lower()
            if low in owner and words.proper(w):
                written[low][w.text] += 1
                hit.add(owner[low])
        for key in hit - {f"speaker:{t.speaker}"}:
            mentions[key].append(t.source_id)
    for s in speakers:  # a capitalised label is written as a proper name
        for part in _SEPARATORS.split(s):
            if part.isalpha() and capitalised(part) and part.lower() in owner:
                written[part.lower()][part] += 1
    out = []
    for key in keys:
        label = _label(key)
        proper = [a for a in by_key[key] if written.get(a)]
        best = max(proper, key=lambda a: (len(a), a), default=None)
        name = written[best].most_common(1)[0][0] if best else label
        out.append(Person(key=key, name=name,
                          speakers=(label,) if key.startswith("speaker:") else (),
                          aliases=tuple(sorted(by_key[key])),
                          mentions=tuple(dict.fromkeys(mentions[key]))))
    logger.debug("resolved %d people from %d turns", len(out), len(ts))
    return out


__all__ = ["Person", "resolve_people", "label_aliases", "MIN_VOTES", "VOTE_SHARE", "MIN_PREFIX",
           "MIN_THIRD_PARTY_USES", "CALENDAR_WORDS", "FUNCTION_WORDS"]
