"""A turn's statement rewritten as a short State: what holds about whom (pure: no I/O).

EMIR² (seed 002, section 3.2) keeps semantic states -- subject, attribute, value, condition --
separate from the episodic events that evidence them. Without an LLM, the heuristic extractor
takes the statement sentence of a turn (:func:`graphmem.state.utterances.main_statement`) and
:func:`rewrite_statement` turns it into a third-person sentence about its subject:

- first person becomes the subject: "I went" -> "Caroline went", "me" -> "Caroline", "my" ->
  "Caroline's" (then "their" once the name has been said), "we" -> "Caroline and others" (then
  "they"), "our" -> "Caroline's" / "their"; the verb after a replaced "I" agrees ("I love" ->
  "Caroline loves", "I'm" -> "Caroline is", "I've" -> "Caroline has"; lemminflect);
- a sentence without its subject gets one ("Researching adoption agencies" -> "Caroline is
  researching adoption agencies", "Just got back" -> "John just got back", "Been busy" ->
  "Maria has been busy");
- leading fillers and names, trailing vocatives and captions are cut; "a" before a
  vowel-sounding acronym becomes "an";
- at most :data:`MAX_WORDS` words, cut at the last clause boundary that keeps at least
  :data:`MIN_WORDS`, else after :data:`MAX_WORDS` words (and at most :data:`MAX_CHARS`
  characters);
- relative dates in the kept text ("yesterday", "last Saturday") are resolved against the turn's
  time (:func:`graphmem.retrieval.text.resolve_dates`) and added in parentheses.
"""

from __future__ import annotations

import logging
import re
from datetime import date, datetime
from functools import lru_cache

from graphmem.retrieval.text import resolve_dates
from graphmem.state.utterances import WORD, omitted_subject, strip_fillers

logger = logging.getLogger(__name__)

#: Longest State, in words (the resolved date in parentheses not counted).
MAX_WORDS = 20
#: Longest State, in characters (a run of long words is cut with "…").
MAX_CHARS = 240
#: Shortest piece a clause-boundary cut may leave, in words.
MIN_WORDS = 6

_CAPTION = re.compile(r"\[[^\]]*\]")
#: Clause boundaries where a long statement may be cut (before the match).
_BOUNDARY = re.compile(r"\s*(?:[,;:]|\s[\u2014\u2013-]\s|\s(?:and|but|which|because|so|while)\s)")
#: Letters of the alphabet whose name starts with a vowel sound ("an LGBTQ", "an FBI agent").
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")
#: Replacements of a clitic after a subject made third person singular.
_CLITIC_SINGULAR = {"'m": "is", "'ve": "has", "'ll": "will", "'d": "would", "'s": "is", "'re": "is"}
_CLITIC_PLURAL = {"'re": "are", "'ve": "have", "'ll": "will", "'d": "would", "'m": "are", "'s": "is"}
#: The verb put before "gonna" / "gotta" / "wanna" when the subject was left out.
_GOING_TO_VERB = {"gonna": "is ", "gotta": "has ", "wanna": ""}
_NEGATED_SINGULAR = {"don't": "doesn't", "haven't": "hasn't", "am not": "is not", "ain't": "isn't",
                     "wasn't": "wasn't", "do": "does", "have": "has", "am": "is", "was": "was"}


@lru_cache(maxsize=4096)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    from lemminflect import getAllLemmas

    return dict(getAllLemmas(word))


def _is_adverb(word: str) -> bool:
    lemmas = _lemmas(word.lower())
    return "ADV" in lemmas and ("VERB" not in lemmas or word.lower() in ("still", "even"))


def third_singular(word: str) -> str:
    """The verb form after a third-person singular subject, for the word that followed "I":
    ``"love"`` -> ``"loves"``, ``"am"`` -> ``"is"``, ``"have"`` -> ``"has"``, ``"don't"`` ->
    ``"doesn't"``; past forms, modals and non-verbs are returned unchanged (lemminflect)."""
    from lemminflect import getAllInflections, getInflection

    low = word.lower().replace("’", "'")
    if low in _NEGATED_SINGULAR:
        out = _NEGATED_SINGULAR[low]
    else:
        lemmas = _lemmas(low)
        if "AUX" in lemmas or low not in lemmas.get("VERB", ()):
            return word
        if any(low in getAllInflections(lemma, upos="VERB").get("VBD", ())
               for lemma in lemmas["VERB"]):
            return word  # "put", "read", "saw", "found": the past reading is kept
        out = (getInflection(low, tag="VBZ") or (word,))[0]
    return out[:1].upper() + out[1:] if word[:1].isupper() else out


def _is_participle(word: str) -> bool:
    from lemminflect import getAllInflections

    low = word.lower()
    return any(low in getAllInflections(lemma, upos="VERB").get("VBN", ())
               for lemma in _lemmas(low).get("VERB", ()) if lemma != low)


class _Rewriter:
    """First person -> ``subject``, one sentence, left to right."""

    def __init__(self, subject: str, named: bool = False):
        self.subject = subject
        self.named = named

    def name(self, then: str) -> str:
        if self.named:
            return then
        self.named = True
        return self.subject

    def possessive(self, then: str) -> str:
        if self.named:
            return then
        self.named = True
        return f"{self.subject}'" if self.subject.endswith("s") else f"{self.subject}'s"

    def run(self, text: str) -> str:
        words = list(WORD.finditer(text))
        out: list[str] = []
        pos = 0
        agree = False
        for i, match in enumerate(words):
            word = match.group(0)
            low = word.lower().replace("’", "'")
            out.append(text[pos:match.start()])
            pos = match.end()
            nxt = words[i + 1].group(0) if i + 1 < len(words) else ""
            if text[match.end():match.end() + 1] == "-" or text[max(match.start() - 1, 0):match.start()] == "-":
                out.append(word)  # "me-time" stays a word
                continue
            if agree:
                if _is_adverb(word):
                    out.append(word)
                    continue
                word = third_singular(word)
                agree = False
            base, _, clitic = low.partition("'")
            clitic = f"'{clitic}" if clitic else ""
            if base == "i":
                self.named = True
                if clitic == "'d" and (nxt.lower() == "been" or _is_participle(nxt)):
                    out.append(f"{self.subject} had")
                elif clitic:
                    out.append(f"{self.subject} {_CLITIC_SINGULAR.get(clitic, clitic)}")
                else:
                    out.append(self.subject)
                    agree = True
            elif low == "me":
                self.named = True
                out.append(self.subject)
            elif low == "my":
                out.append(self.possessive("their"))
            elif low == "mine":
                out.append(self.possessive("theirs"))
            elif low == "myself":
                out.append(self.name("themself"))
            elif base == "we":
                head = self.name("they")
                head = f"{head} and others" if head == self.subject else head
                out.append(f"{head} {_CLITIC_PLURAL.get(clitic, clitic)}" if clitic else head)
            elif low == "us":
                out.append("them")
            elif low == "our":
                out.append(self.possessive("their"))
            elif low == "ours":
                out.append(self.possessive("theirs"))
            elif low == "ourselves":
                out.append("themselves")
            else:
                out.append(word)
        out.append(text[pos:])
        return "".join(out)


def _fix_articles(text: str) -> str:
    def repl(match: re.Match[str]) -> str:
        article, word = match.group(1), match.group(2)
        if word[0] in _VOWEL_LETTERS:
            return f"{article}n {word}"
        return match.group(0)

    return re.sub(r"\b([Aa]) ([A-Z]{2,}\w*)", repl, text)


def shorten(text: str, max_words: int = MAX_WORDS, min_words: int = MIN_WORDS) -> str:
    """``text`` cut to at most ``max_words`` words: at the last clause boundary (comma, dash,
    "and", "but", "which", ...) that leaves at least ``min_words``, else after ``max_words``;
    then to at most :data:`MAX_CHARS` characters."""
    words = text.split()
    if len(words) <= max_words:
        return text if len(text) <= MAX_CHARS else text[:MAX_CHARS].rstrip() + "\u2026"
    best = None
    for match in _BOUNDARY.finditer(text):
        n = len(text[:match.start()].split())
        if min_words <= n <= max_words:
            best = match.start()
    cut = text[:best] if best is not None else " ".join(words[:max_words])
    return cut if len(cut) <= MAX_CHARS else cut[:MAX_CHARS].rstrip() + "\u2026"


def rewrite_statement(sentence: str, subject: str, names: frozenset[str] = frozenset(),
                      when: date | datetime | None = None) -> str:
    """A State's text from one statement sentence of ``subject`` (rules in the module
    docstring): ``"Yeah, I painted that lake sunrise last year!"`` by Melanie on 8 May 2023 ->
    ``"Melanie painted that lake sunrise last year (2022)."``.

    Args:
        sentence: one sentence (a :class:`graphmem.state.utterances.Utterance` text).
        subject: whose statement it is (the speaker's name).
        names: :func:`graphmem.state.utterances.name_words` of the conversation (fillers).
        when: the turn's time; relative dates are resolved against it (None: left as said).
    Returns:
        One sentence, capitalised, ending with ``.``; at most :data:`MAX_WORDS` words plus a
        parenthesised date. An empty sentence gives ``""``.
    """
    text = strip_fillers(_CAPTION.sub(" ", sentence), names)
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return ""
    opening = omitted_subject(text)
    if opening is not None:
        first = text.split()[0].lower()
        verb = {"past": "", "perfect": "has ",
                "going": _GOING_TO_VERB.get(first, "is ")}.get(opening, "is ")
        if first == "wanna":
            text = "wants to" + text[len(first):]
        text = f"{subject} {verb}{text[:1].lower()}{text[1:]}"
    text = _Rewriter(subject, named=opening is not None).run(text)
    text = shorten(text).rstrip(" ,;:-\u2014\u2013")
    text = re.sub(r"[.!?\u2026]+$", "", text).rstrip()
    text = _fix_articles(text)
    dates = resolve_dates(text, when)
    if dates:
        text = f"{text} ({'; '.join(dates)})"
    return f"{text[:1].upper()}{text[1:]}." if text else ""
