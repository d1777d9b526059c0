"""Text features of a retrieval unit (pure: no I/O).

A *unit* is one conversation turn (state memory ``Event``, associative memory ``Episode``) or, in
document collections, one sentence whose "session" is its paragraph and whose "speaker" is the
paragraph title. For every unit the engine stores:

- ``lexical_text``: ``"speaker: text [shares caption] (on 7 May 2023)"`` -- the human-readable text the
  lexical side scores; every relative time expression ("yesterday", "last Saturday", "two weekends
  ago", "next month", ...) is resolved against the unit's own timestamp (the session date) and
  appended as ``(on <date>)`` so that a question naming the absolute date matches it;
- ``lexical_terms``: :func:`analyze` of ``lexical_text`` joined by single spaces. The full-text index
  uses Lucene's ``whitespace`` analyzer on this property, so the tokens Lucene matches are *exactly*
  the tokens :func:`analyze` produces for a question (no second analyzer to keep in sync);
- ``ns_token``: :func:`namespace_token`, a single opaque token per namespace, indexed in the same
  full-text index and required by every lexical query (``+ns_token:...``); an archived unit
  (retention, :mod:`graphmem.agent.retention`) carries :func:`archived_token` instead, so the
  lexical queries of a recall find it only when asked for archived units;
- ``is_cue`` (:func:`is_cue`) and ``is_smalltalk`` (:func:`is_smalltalk`);
- the window text (:func:`window_texts`: the turn with a few words of its session neighbours) as
  the input of the stored dense vector.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta, timezone
from typing import Any

import snowballstemmer

#: Lucene's English stop list (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``, 33 words), as bm25s uses.
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)
#: A token: two or more Unicode word characters (single letters and digits carry no signal).
_TOKEN = re.compile(r"(?u)\b\w\w+\b")
#: Cue units (questions and short fragments) pass score to their session neighbours.
CUE_MAX_WORDS = 8
#: Words of each session neighbour in a unit's window text (:func:`window_texts`). 2: on the
#: LoCoMo dev conversations the engine's recall@10 is flat in the window's size once there is
#: one (``benchmarks/retrieval_study.py --context-words N``, leave-one-conversation-out over
#: (α, β): .713 with no context, .741 with 1 or 2 words, .740 with 3, .749 with 4; with the
#: shipped (α, β), 2 words against 4: -0.004, paired bootstrap 95% CI [-0.020, +0.012]; HotpotQA
#: supporting-fact recall@10 .803 against .806, CI [-0.015, +0.012]), while the encoding cost
#: grows with it (the texts of LoCoMo conv-26, one torch thread: 1.17x the single turns with 2
#: words, 1.25x with 3, 1.31x with 4, 3.3x with the whole neighbouring turns). 2 keeps ingest at
#: the speed of encoding.
CONTEXT_WORDS = 2
#: Greeting and farewell words (one vocabulary with :data:`THANKS` and :data:`PHATIC`; the state
#: memory's utterance classifier, :mod:`graphmem.state.utterances`, reads the same sets).
GREETINGS = frozenset("hi hey hello hiya yo bye goodbye goodnight night morning".split())
#: Words of thanks and of answering thanks.
THANKS = frozenset("thanks thank thx ty cheers welcome appreciate".split())
#: Words that carry no content in chat (greetings, thanks, interjections, reactions, discourse
#: fillers): a short turn made only of these (plus stop words and the speaker's name) is small talk.
PHATIC = GREETINGS | THANKS | frozenset(
    "wow cool nice great awesome amazing sweet lovely yes yeah yep yup ok okay sure right totally "
    "definitely absolutely haha lol hehe oh ah um hmm you your me my we our so too very really "
    "just good glad happy same here sounds sound see talk later soon care take catch up again "
    "agree congrats congratulations luck love long well anyway actually honestly btw".split()
)
#: Marker for "no term": an analyzed token that never occurs (analyze() lowercases, this has
#: uppercase), so a query with no terms matches nothing instead of failing to parse.
NO_TERM = "NOTERM"


def analyze(text: str) -> list[str]:
    """The lexical tokens of ``text``: lowercase ``\\w\\w+`` runs minus :data:`STOPWORDS`, in
    order, repeats kept (a repeated query term counts repeatedly, as in bm25s)."""
    return [w for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS]


_STEMMER = snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball (Porter 2) English stem of a lowercase ``word`` (``"camping"`` -> ``"camp"``)."""
    return _STEMMER.stemWord(word)


def index_terms(text: str) -> list[str]:
    """The terms BM25 indexes and queries: each token of :func:`analyze` followed by its
    Snowball English stem when that differs (``"went camping"`` -> ``went camping camp``).

    Both forms, so a word matches its other inflections through the stem ("camped" finds
    "camping") while an exact match counts twice (the word and its stem), and units stored
    before stems were indexed still match a question's unstemmed words. On the LoCoMo dev
    conversations BM25 recall@10 over raw turns is .546 with the tokens alone, .596 with stems
    alone and .613 with both; on eight BEAM chats .404, .392 and .406.
    """
    out: list[str] = []
    for word in analyze(text):
        out.append(word)
        root = stem(word)
        if root != word:
            out.append(root)
    return out


def namespace_token(namespace: str) -> str:
    """One lowercase alphanumeric token identifying ``namespace`` in the full-text index.

    A hash, so any namespace string (spaces, punctuation, Unicode) becomes one whitespace-free
    token that the query parser needs no escaping for; 96 bits make collisions negligible.
    """
    return "ns" + hashlib.sha256(namespace.encode("utf-8")).hexdigest()[:24]


#: Appended to the namespace token of an archived unit (:func:`archived_token`).
ARCHIVED_SUFFIX = "archived"


def archived_token(namespace: str) -> str:
    """The ``ns_token`` of an archived unit of ``namespace``: :func:`namespace_token` followed by
    :data:`ARCHIVED_SUFFIX`. A namespace token is always ``"ns"`` and 24 hex digits, so no
    namespace's token equals another's archived token; a lexical query requiring the namespace
    token never returns an archived unit."""
    return namespace_token(namespace) + ARCHIVED_SUFFIX


#: A question term found in more than this fraction of a namespace's units selects no full-text
#: candidates (the cutoff frequency of a common-terms query): its Lucene-variant BM25 weight is below
#: ln(1 + 0.1 / 0.9) ≈ 0.105 (a rare term's is 5–8), while its postings are the whole history, so a
#: one-speaker history's name would make every round score all of its units. Such a term still
#: counts in the BM25 of every candidate. On LoCoMo the most common term of a conversation (a
#: speaker's name) is in at most 83% of its units, so its candidate sets are unchanged.
COMMON_TERM_FRACTION = 0.9

def candidate_terms(terms: Sequence[str], dfs: dict[str, int], n_units: int) -> list[str]:
    """The question terms that select full-text candidates: those whose document frequency
    (``dfs``, per-namespace counts; an unknown term counts as rare) is at most
    :data:`COMMON_TERM_FRACTION` of ``n_units``; when every term is that common, the rarest one
    alone. Pure; ``terms`` as given when ``n_units`` is 0 (statistics not known yet)."""
    if n_units <= 0:
        return list(terms)
    limit = COMMON_TERM_FRACTION * n_units
    selective = [t for t in terms if dfs.get(t, 0) <= limit]
    if selective or not terms:
        return selective
    return [min(terms, key=lambda t: dfs.get(t, 0))]


def lucene_query(ns_token: str, terms: Sequence[str], max_terms: int = 64, *,
                 archived: str | None = None) -> str:
    """The full-text query of a question: the namespace token required, any term optional.

    ``+ns_token:<tok> +(lexical_terms:a lexical_terms:b ...)``; with ``archived`` (the
    namespace's :func:`archived_token`) either token: ``+(ns_token:<tok> ns_token:<archived>)
    +(...)``. Terms come from :func:`analyze` (``\\w`` characters only, lowercase), so none is a
    query-syntax character or operator. At most ``max_terms`` distinct terms (Lucene caps
    boolean clauses at 1024).
    """
    unique = list(dict.fromkeys(terms))[:max_terms] or [NO_TERM]
    scope = (f"+ns_token:{ns_token}" if archived is None
             else f"+(ns_token:{ns_token} ns_token:{archived})")
    return f"{scope} +(" + " ".join(f"lexical_terms:{t}" for t in unique) + ")"


# ----------------------------------------------------------------------------- relative dates
_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2,
        "a couple": 2, "a few": 3, "few": 3, "several": 3}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMRE = "|".join(sorted((re.escape(k) for k in _NUM), key=len, reverse=True)) + r"|\d+"


def _day(d: date) -> str:
    return f"{d.day} {d:%B} {d.year}"


def _month(d: date) -> str:
    return f"{d:%B} {d.year}"


def _add_months(d: date, n: int) -> date:
    m = d.month - 1 + n
    return date(d.year + m // 12, m % 12 + 1, 1)


def resolve_dates(text: str, when: date | datetime | None) -> list[str]:
    """Absolute date phrases for the relative time expressions in ``text``, anchored at ``when``
    (the session date; an aware one is read on its UTC day). Output like ``"7 May 2023"``, ``"week of 1 May 2023"``, ``"April 2023"``,
    ``"2022"``; in text order of the rules below, duplicates removed; ``[]`` when ``when`` is None.

    Covered: yesterday / last night, today / tonight / this morning|afternoon|evening, tomorrow,
    last|this past <weekday>, next <weekday>, last|past|this past weekend, next weekend,
    last / next week, last / next month, last / next year, and
    "<n|a|one..ten|a couple of|a few|several> days|weeks|weekends|months|years ago".
    """
    if when is None:
        return []
    if isinstance(when, datetime):
        # the day a message belongs to is its UTC day (one rule, graphmem.timeparse)
        day = (when.astimezone(timezone.utc) if when.tzinfo is not None else when).date()
    else:
        day = when
    t = text.lower()
    out: list[str] = []
    if re.search(r"\b(yesterday|last night)\b", t):
        out.append(_day(day - timedelta(days=1)))
    if re.search(r"\b(today|tonight|this morning|this afternoon|this evening)\b", t):
        out.append(_day(day))
    if re.search(r"\btomorrow\b", t):
        out.append(_day(day + timedelta(days=1)))
    for m in re.finditer(r"\b(?:last|this past) (" + "|".join(_WEEKDAYS) + r")\b", t):
        back = (day.weekday() - _WEEKDAYS.index(m.group(1))) % 7 or 7
        out.append(_day(day - timedelta(days=back)))
    for m in re.finditer(r"\bnext (" + "|".join(_WEEKDAYS) + r")\b", t):
        ahead = (_WEEKDAYS.index(m.group(1)) - day.weekday()) % 7 or 7
        out.append(_day(day + timedelta(days=ahead)))
    if re.search(r"\b(last|this past|past) weekend\b", t):
        back = (day.weekday() - 5) % 7 or 7
        out.append(_day(day - timedelta(days=back)))
    if re.search(r"\bnext weekend\b", t):
        ahead = (5 - day.weekday()) % 7 or 7
        out.append(_day(day + timedelta(days=ahead)))
    if re.search(r"\blast week\b", t):
        out.append("week of " + _day(day - timedelta(days=7)))
    if re.search(r"\bnext week\b", t):
        out.append("week of " + _day(day + timedelta(days=7)))
    if re.search(r"\blast month\b", t):
        out.append(_month(_add_months(day, -1)))
    if re.search(r"\bnext month\b", t):
        out.append(_month(_add_months(day, 1)))
    if re.search(r"\blast year\b", t):
        out.append(str(day.year - 1))
    if re.search(r"\bnext year\b", t):
        out.append(str(day.year + 1))
    for m in re.finditer(r"\b(" + _NUMRE + r") (day|week|weekend|month|year)s? ago\b", t):
        n = _NUM.get(m.group(1)) or int(m.group(1))
        unit = m.group(2)
        if unit == "day":
            out.append(_day(day - timedelta(days=n)))
        elif unit in ("week", "weekend"):
            out.append("week of " + _day(day - timedelta(days=7 * n)))
        elif unit == "month":
            out.append(_month(_add_months(day, -n)))
        else:
            out.append(str(day.year - n))
    return list(dict.fromkeys(out))


# ----------------------------------------------------------------------------- unit features
def _get(turn: Any, name: str, default: Any = None) -> Any:
    if isinstance(turn, Mapping):
        return turn.get(name, default)
    return getattr(turn, name, default)


def base_text(speaker: str | None, text: str, caption: str | None = None) -> str:
    """``"speaker: text [shares caption]"`` (the caption only when not already in ``text``)."""
    body = text.strip()
    if caption and f"[shares {caption}]" not in body:
        body = f"{body} [shares {caption}]"
    return f"{speaker}: {body}" if speaker else body


def lexical_text(speaker: str | None, text: str, when: date | datetime | None = None,
                 caption: str | None = None) -> str:
    """The unit's lexical text: :func:`base_text` plus ``" (on <date>)"`` per resolved date."""
    return base_text(speaker, text, caption) + "".join(f" (on {d})" for d in resolve_dates(text, when))


def word_count(text: str) -> int:
    return len(text.split())


def is_cue(text: str) -> bool:
    """A question (contains ``?``) or a short fragment (≤ :data:`CUE_MAX_WORDS` words): in dialogue
    the answer sits in the turn after a question, and a fragment's meaning in its neighbours."""
    return "?" in text or word_count(text) <= CUE_MAX_WORDS


def is_smalltalk(text: str, speaker: str | None = None) -> bool:
    """A short turn (≤ :data:`CUE_MAX_WORDS` words) with no content word: every token is a stop
    word, a :data:`PHATIC` word or part of the speaker's name ("Thanks, Mel!", "Wow, cool!").
    Stored as a flag; the fusion gives it weight 0 (the study found the penalty to be noise)."""
    if word_count(text) > CUE_MAX_WORDS:
        return False
    names = set(analyze(speaker or ""))
    return all(w in PHATIC or w in names for w in analyze(text))


def turn_base_text(turn: Any) -> str:
    """``"speaker: text"`` of a turn (a :class:`graphmem.conversation.Turn` or a dict)."""
    return base_text(_get(turn, "speaker"), _get(turn, "text"), _get(turn, "caption"))


def context_words(text: str, count: int, last: bool) -> str:
    """The first (``last=False``) or last ``count`` whitespace words of ``text``."""
    words = text.split()
    return " ".join(words[-count:] if last else words[:count]) if count > 0 else ""


def window_texts(turns: Sequence[Any], words: int = CONTEXT_WORDS) -> list[str]:
    """The dense-embedding input of every turn: the last ``words`` words of the previous turn, the
    turn's own ``"speaker: text"`` line and the first ``words`` words of the next turn, both
    neighbours *of the same session* (``turns`` in conversation order; a turn without ``session``
    is in session ``"default"``). Lines are joined with ``"\n"``; a missing neighbour is left out.

    The context is cut to :data:`CONTEXT_WORDS` so each turn is encoded once at about 1.17x the
    cost of its own text (the whole neighbouring turns cost 3.3x); see :data:`CONTEXT_WORDS`.
    """
    out = []
    n = len(turns)
    for i, turn in enumerate(turns):
        session = _get(turn, "session", "default")
        lines = []
        if i > 0 and _get(turns[i - 1], "session", "default") == session:
            lines.append(context_words(str(_get(turns[i - 1], "text") or ""), words, last=True))
        lines.append(turn_base_text(turn))
        if i + 1 < n and _get(turns[i + 1], "session", "default") == session:
            lines.append(context_words(str(_get(turns[i + 1], "text") or ""), words, last=False))
        out.append("\n".join(line for line in lines if line))
    return out


def mention_terms(name: str | None) -> tuple[str, ...]:
    """The analyzed terms a mention of ``name`` (a speaker, or a document title in the speaker
    slot) must contain: :func:`analyze` of the name without parenthesised qualifiers
    (``"William King (governor)"`` -> ``("william", "king")``); ``()`` for no name."""
    if not name:
        return ()
    return tuple(dict.fromkeys(analyze(re.sub(r"\([^)]*\)", " ", name))))


def mention_alternatives(name: str | None, aliases: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """The ways a text may mention ``name``: its :func:`mention_terms`, then those of each alias
    (a person's nicknames, handle parts and long forms, :mod:`graphmem.state.people`); a text
    mentions it when it holds every term of ONE alternative. Empty alternatives (an alias made
    of stop words) and repeats are left out."""
    out = [mention_terms(name)] + [mention_terms(a) for a in aliases]
    return [t for t in dict.fromkeys(out) if t]
