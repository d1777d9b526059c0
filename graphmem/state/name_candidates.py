"""Which words of a conversation can be names of people (pure: no I/O).

The turns are split into :class:`Word` s that know their place in their sentence
(:func:`split_words`); :class:`ConversationWords` holds what the whole conversation writes in
lower case and decides which occurrences can be names. :mod:`graphmem.state.people` resolves
who is who from them.

What counts as a *name* (:class:`ConversationWords`): a word written as one capital then
lower-case letters (so not an identifier, acronym or product name of a technical chat:
"RefreshToken", "PDFs", "GitLab"; names written "McKay" are missed), not "I", not a stop or
chat-filler word of graphmem's vocabulary, not a month or weekday (:mod:`calendar` and
:mod:`dateutil` names), and not the first word of a sentence unless a comma or "!" follows it
(a sentence's first word is capitalised whatever it is). Where one occurrence decides (start or
end of a turn, self-introduction, mentions of a sentence-initial word) the word must also never
be written in lower case in the conversation: "Sometimes, ..." is not a vocative because
"sometimes" appears in lower case elsewhere, "Melanie" never does.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from dateutil.parser import parserinfo
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from graphmem.retrieval.text import PHATIC, STOPWORDS

#: A word: letters, with inner apostrophes ("Mel's", "don't").
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
#: A sentence: a run without . ! ? … ; : line breaks or pictographs (emoji end a chat sentence).
SENTENCE = re.compile(r"[^.!?…;:\n\u2600-\u27bf\U0001f000-\U0001faff]+")
#: Month and weekday names and abbreviations, lower-cased (never names of people here).
CALENDAR_WORDS = frozenset(
    w.lower() for w in [*calendar.month_name, *calendar.month_abbr, *calendar.day_name,
                        *calendar.day_abbr] if w) | frozenset(
    w.lower() for pair in (*parserinfo.MONTHS, *parserinfo.WEEKDAYS) for w in pair)
#: Lower-cased words that are never names: stop words and chat fillers of graphmem's vocabulary.
FUNCTION_WORDS = frozenset(ENGLISH_STOP_WORDS) | STOPWORDS | PHATIC


@dataclass(slots=True)
class Word:
    """One word of a turn and its place in its sentence."""

    text: str          # as written, possessive cut ("Mel" of "Mel's")
    initial: bool      # first word of its sentence
    last: bool         # last word of its sentence
    possessive: bool   # written "X's"
    index: int         # position in the turn's word list
    start: int = 0     # offset in the turn's text
    follow: str = ""   # the first non-space character after it


@dataclass
class Turn:
    """One turn as people resolution reads it: its speaker, text (its start, at most
    ``graphmem.state.people.MAX_TURN_CHARS``), source id, session and words."""

    speaker: str
    text: str
    source_id: str
    session: str
    words: list[Word] = field(default_factory=list)


def split_words(text: str) -> list[Word]:
    """The words of ``text`` with their place in their sentence (:data:`SENTENCE`)."""
    out: list[Word] = []
    for sentence in SENTENCE.finditer(text):
        matches = list(WORD.finditer(text, sentence.start(), sentence.end()))
        for i, m in enumerate(matches):
            after = text[m.end():m.end() + 3].lstrip()[:1]
            word = m.group()
            base = word[:-2] if word.endswith(("'s", "’s")) else word
            out.append(Word(base, i == 0, i == len(matches) - 1, base != word, len(out),
                            m.start(), after))
    return out


def capitalised(word: str) -> bool:
    """Written with a capital first letter, and not all in capitals ("Mel", not "PDF")."""
    return word[:1].isupper() and not (len(word) > 1 and word.isupper())


def name_shaped(word: str) -> bool:
    """One capital then lower-case letters ("Mel", "Jonathan"): not an identifier or product
    name of technical chats ("RefreshToken", "PDFs", "RESTful", "GitLab"), which are not people."""
    return word[:1].isupper() and (len(word) == 1 or word[1:].islower())


class ConversationWords:
    """The conversation's word statistics: which words it ever writes in lower case."""

    def __init__(self, turns: Sequence[Turn]):
        self.lower = {w.text.lower() for t in turns for w in t.words if w.text.islower()}
        self.mid = {w.text.lower() for t in turns for w in t.words
                    if not w.initial and capitalised(w.text)}

    def candidate(self, w: Word, strict: bool = False) -> bool:
        """``w`` can be a name: capitalised, not "I", a function or calendar word, not a
        sentence's first word unless a comma or "!" follows; ``strict`` (where a single
        occurrence decides): also never written in lower case in the conversation and written
        capitalised inside a sentence somewhere ("Woah, ..." opens sentences only)."""
        if not w.text[:1].isupper():
            return False
        low = w.text.lower()
        if not name_shaped(w.text) or len(low) < 2 or "'" in low or "’" in low:
            return False
        if low in FUNCTION_WORDS or low in CALENDAR_WORDS:
            return False
        if w.initial and w.follow not in (",", "!"):
            return False
        return not strict or (low not in self.lower and low in self.mid)

    def proper(self, w: Word) -> bool:
        """A mention-worthy occurrence: capitalised, and not sentence-initial unless the word
        is never written in lower case (a sentence's "Will" is no mention of speaker Will)."""
        return capitalised(w.text) and (not w.initial or w.text.lower() not in self.lower)
