"""What each sentence of a conversation turn is: greeting, thanks, question, small talk, a
statement about the speaker, or another remark (pure: no I/O).

The heuristic extractor (:class:`graphmem.state.extraction.HeuristicStateExtractor`) turns only
*statements* into semantic States and names topics only from statements and remarks (EMIR²
SEMG, seed 002, section 3.2: a state is what holds about a topic, supported by the events that
evidence it; greetings and questions support no state). One vocabulary for all of it:
:data:`graphmem.retrieval.text.GREETINGS`, :data:`~graphmem.retrieval.text.THANKS` and
:data:`~graphmem.retrieval.text.PHATIC`, with scikit-learn's English stop words as function words.

Rules, per sentence (:func:`classify_sentence`), after bracketed captions ("[shares a photo of
...]") are removed and a leading run of fillers and names ("Wow, Melanie!", "Hey Caroline,",
"Yeah,") is cut (:func:`strip_fillers`):

1. ``question``: the sentence ends with ``?``;
2. ``thanks``: it starts with a :data:`THANKS` word ("Thanks for the support!");
3. ``greeting`` / ``thanks`` / ``smalltalk``: it has no content word (a word that is not a stop
   word, a :data:`PHATIC` word, a name or a number), named by the first greeting or thanks word
   it holds ("Hey Mel!", "That's really cool.");
4. ``smalltalk``: it speaks to the listener (you, your, ...): compliments and reactions
   ("You'd be a great counselor!", "I'm so proud of you");
5. ``statement``: it speaks about the speaker -- a first-person singular word (I, me, my, ...),
   a first-person plural subject at its start ("We're going camping"), or a verb with the
   subject left out ("Researching adoption agencies", "Just got back", "Been busy", "Gonna");
6. ``remark``: anything else with two content words or more ("The transgender stories were so
   inspiring!", "Taking care of ourselves is vital"); with fewer, ``smalltalk`` ("No doubts.").

A turn's kind (:func:`classify_turn`) is ``statement`` when any sentence is one, else
``remark`` when any sentence is one, else the kind of its first sentence that is not plain
small talk.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from segtok.segmenter import split_single
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from graphmem.retrieval.text import GREETINGS, PHATIC, THANKS

logger = logging.getLogger(__name__)

Kind = Literal["greeting", "thanks", "question", "smalltalk", "statement", "remark"]
#: Kinds that never become a State nor name a topic.
SMALL_TALK: frozenset[str] = frozenset({"greeting", "thanks", "question", "smalltalk"})

#: A word: letters/digits with inner apostrophes ("I'm", "y'all", "Caroline's").
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_CAPTION = re.compile(r"\[[^\]]*\]")
_PUNCT = re.compile(r"[,!.;:?\u2014\u2013-]")
_CLITIC = re.compile(r"'(?:s|m|re|ve|ll|d|t)$|n't$")

FIRST_SINGULAR = frozenset({"i", "me", "my", "mine", "myself"})
FIRST_PLURAL = frozenset({"we", "us", "our", "ours", "ourselves"})
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "yourselves", "y'all", "ya", "u"})
#: First-person words that can open a sentence as (part of) its subject.
_SUBJECT_OPENERS = frozenset({"i", "my", "we", "our"})
#: Statements with fewer content words are a turn's State only when it has no other.
WEAK_CONTENT = 3
#: Conjunctions a leading filler run may start with ("And btw - ...").
_LEADING_CONJUNCTIONS = frozenset({"and", "but", "plus"})
#: Words that stand for "I'm going to" with the subject left out.
_GOING_TO = frozenset({"gonna", "gotta", "wanna"})


@dataclass(frozen=True)
class Utterance:
    """One classified sentence.

    Attributes:
        text: the sentence as written, caption removed.
        core: the sentence with leading fillers / names and trailing vocatives cut.
        kind: see the module docstring.
        content: its content words (lower case), in order.
        rank: how directly a statement speaks about the speaker, lower is better: 0 opens with
            I / my or an omitted subject, 1 opens with we / our, 2 has a first-person singular
            word elsewhere; 3 for every other kind. A turn's State comes from its best-ranked
            statement (:func:`main_statement`).
    """

    text: str
    core: str
    kind: Kind
    content: tuple[str, ...]
    rank: int = 3


def base_word(word: str) -> str:
    """Lower case, curly apostrophe straightened, clitic cut: ``"I'm"`` -> ``"i"``,
    ``"don't"`` -> ``"do"``, ``"Caroline's"`` -> ``"caroline"``."""
    low = word.lower().replace("’", "'")
    return _CLITIC.sub("", low) or low


def name_words(names: Iterable[str]) -> frozenset[str]:
    """The lower-case words of the conversation's names (``["Caroline", "Melanie"]``)."""
    return frozenset(w.lower() for n in names for w in WORD.findall(n))


def is_name(word: str, names: frozenset[str]) -> bool:
    """``word`` is one of ``names`` or a capitalised short form of one ("Mel" for Melanie)."""
    low = base_word(word)
    if low in names:
        return True
    return len(low) >= 3 and word[:1].isupper() and any(n.startswith(low) for n in names)


@lru_cache(maxsize=4096)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    from lemminflect import getAllLemmas

    return dict(getAllLemmas(word))


def content_words(text: str, names: frozenset[str]) -> tuple[str, ...]:
    """Words of ``text`` that carry content: not a stop word, :data:`PHATIC` word or a verb form
    of one ("agreed", "loved"), pronoun, "gonna"-like word, name or number (lower case, clitics
    cut, in order)."""
    out = []
    for word in WORD.findall(text):
        low = base_word(word)
        if (low in ENGLISH_STOP_WORDS or low in PHATIC or low in SECOND_PERSON or len(low) < 2
                or low in _GOING_TO or low.isdigit() or is_name(word, names)
                or PHATIC.intersection(_lemmas(low).get("VERB", ()))):
            continue
        out.append(low)
    return tuple(out)


def _filler(word: str, names: frozenset[str], first: bool) -> bool:
    low = base_word(word)
    if low in FIRST_SINGULAR or low in FIRST_PLURAL or low in SECOND_PERSON:
        return False
    return low in PHATIC or is_name(word, names) or (first and low in _LEADING_CONJUNCTIONS)


def strip_fillers(sentence: str, names: frozenset[str]) -> str:
    """``sentence`` without its leading run of fillers and names that ends at a punctuation
    mark ("Wow, Melanie! The colors ..." -> "The colors ...", "Hey Caroline, since ..." ->
    "since ...", "So I'm ..." -> "I'm ...") and without a trailing vocative ("..., Mel!" ->
    "...!"). A run neither closed by punctuation nor followed by I / we is kept ("Great that
    ..."); pronouns never count as fillers."""
    text = sentence.strip()
    cut = 0
    pos = 0
    for match in WORD.finditer(text):
        if text[pos:match.start()].strip(" ,!.;:\u2014\u2013-"):
            break
        if not _filler(match.group(0), names, first=pos == 0):
            if pos and base_word(match.group(0)) in ("i", "we"):
                cut = match.start()  # "So I'm carving out ..." -> "I'm carving out ..."
            break
        pos = match.end()
        following = re.match(r"[\s,!.;:\u2014\u2013-]*", text[pos:]).group(0)
        if _PUNCT.search(following):
            cut = pos + len(following)
    text = text[cut:]
    tail = re.search(r",\s*([^\W_]+)\s*([.!?]*)\s*$", text)
    if tail and is_name(tail.group(1), names):
        text = text[:tail.start()] + tail.group(2)
    return text.strip()


def is_gerund(word: str) -> bool:
    """An -ing form of a verb that is no adjective ("researching", "going"; not "exciting")."""
    low = word.lower()
    lemmas = _lemmas(low)
    if "ADJ" in lemmas and low != "going":
        return False
    return low.endswith("ing") and any(lemma != low for lemma in lemmas.get("VERB", ()))


def is_past_verb(word: str) -> bool:
    """A simple-past verb that is no noun or adjective ("went", "got", "painted")."""
    from lemminflect import getAllInflections

    low = word.lower()
    lemmas = _lemmas(low)
    if "NOUN" in lemmas or "ADJ" in lemmas or "VERB" not in lemmas:
        return False
    return any(low in getAllInflections(lemma, upos="VERB").get("VBD", ())
               for lemma in lemmas["VERB"] if lemma != low)


def _finite(word: str, previous: str) -> bool:
    """A verb form that needs a third-person or past subject ("motivates", "made"); a word that
    can also be a noun counts only after a content word ("a memorial makes", not "the kids")."""
    from lemminflect import getAllInflections

    low = word.lower()
    lemmas = _lemmas(low)
    if "VERB" not in lemmas or ("NOUN" in lemmas and base_word(previous) in ENGLISH_STOP_WORDS):
        return False
    for lemma in lemmas["VERB"]:
        forms = getAllInflections(lemma, upos="VERB")
        if lemma != low and (low in forms.get("VBZ", ()) or low in forms.get("VBD", ())):
            return True
    return False


def _is_adverb(word: str) -> bool:
    lemmas = _lemmas(word.lower())
    return "ADV" in lemmas and "VERB" not in lemmas


def omitted_subject(core: str) -> str | None:
    """How a sentence without its subject opens, after leading adverbs ("Just got back ..."):
    ``"gerund"`` ("Researching adoption agencies"), ``"past"`` ("Got a new job"),
    ``"perfect"`` ("Been busy volunteering"), ``"going"`` ("Gonna continue my edu") or None."""
    words = WORD.findall(core)
    start = 0
    while start < len(words) - 1 and _is_adverb(words[start]):
        start += 1
    if not words:
        return None
    first = words[start]
    low = first.lower()
    if low in _GOING_TO:
        return "going"
    if "'" in first or "’" in first:
        return None
    following = words[start + 1].lower() if start + 1 < len(words) else ""
    if low == "been":  # "Been busy volunteering"; not "Been a busy week" (it has been)
        return None if following in ("a", "an", "the", "such") else "perfect"
    head = re.split(r"[,;:\u2014\u2013]| - ", core, maxsplit=1)[0]
    rest = WORD.findall(head)[start:]
    if is_gerund(first) and not any("AUX" in _lemmas(base_word(w)) or _finite(w, prev)
                                    for prev, w in zip(rest, rest[1:])) \
            and not re.search(r"\w's\b", head):
        return "gerund"  # not "Taking care of ourselves is vital" (a gerund as subject)
    if is_past_verb(first):
        return "past"
    return None


def classify_sentence(sentence: str, names: frozenset[str]) -> Utterance:
    """Classify one sentence (rules in the module docstring). ``names``: :func:`name_words`."""
    text = _CAPTION.sub(" ", sentence).strip()
    core = strip_fillers(text, names)
    words = [base_word(w) for w in WORD.findall(core)]
    content = content_words(core, names)
    all_words = {base_word(w) for w in WORD.findall(text)}
    vocab_kind: Kind = ("greeting" if all_words & GREETINGS else
                        "thanks" if all_words & THANKS else "smalltalk")
    if text.endswith("?"):
        return Utterance(text, core, "question", content)
    opener = words[0] if words else ""
    first_written = base_word((WORD.findall(text) or [""])[0])
    if opener in THANKS or (first_written in THANKS and opener not in _SUBJECT_OPENERS):
        return Utterance(text, core, "thanks", content)
    if not content:
        return Utterance(text, core, vocab_kind, content)
    if SECOND_PERSON & set(words):
        return Utterance(text, core, "smalltalk", content)
    if opener in ("i", "my") or omitted_subject(core):
        return Utterance(text, core, "statement", content, rank=0)
    if opener in ("we", "our") and len(content) >= 2 and not _generic_we(words):
        return Utterance(text, core, "statement", content, rank=1)
    if FIRST_SINGULAR & set(words):
        return Utterance(text, core, "statement", content, rank=2)
    if len(content) < 2:
        return Utterance(text, core, "smalltalk", content)
    return Utterance(text, core, "remark", content)


def _generic_we(words: list[str]) -> bool:
    """ "We can do it", "We all have our paths": a cheer or a truism, not the speaker's state."""
    second = words[1] if len(words) > 1 else ""
    return second in ("all", "both", "together") or is_modal(second)


def is_modal(word: str) -> bool:
    """A modal auxiliary (can, could, should, must, may, might, will, would, shall)."""
    lemmas = _lemmas(word.lower()).get("AUX", ())
    return any(lemma not in ("be", "have", "do", "need", "dare") for lemma in lemmas)


def sentences(text: str) -> list[str]:
    """The sentences of a turn (segtok), bracketed captions removed, empty ones dropped."""
    return [s.strip() for s in split_single(_CAPTION.sub(" ", text)) if s.strip()]


def utterances(text: str, names: frozenset[str]) -> list[Utterance]:
    """Every sentence of ``text`` classified, in order."""
    return [classify_sentence(s, names) for s in sentences(text)]


def classify_turn(text: str, names: frozenset[str]) -> Kind:
    """The kind of a whole turn (see the module docstring); ``"smalltalk"`` for empty text."""
    found = utterances(text, names)
    kinds = [u.kind for u in found]
    for kind in ("statement", "remark"):
        if kind in kinds:
            return kind  # type: ignore[return-value]
    return next((k for k in kinds if k != "smalltalk"), "smalltalk")


def main_statement(found: list[Utterance]) -> Utterance | None:
    """The statement that becomes the turn's State: the first of the best :attr:`Utterance.rank`
    among those with :data:`WEAK_CONTENT` content words or more (else among all); None when
    there is none ("I'm super thankful." gives way to "I've known these friends for 4 years")."""
    statements = [u for u in found if u.kind == "statement"]
    return min(statements, key=lambda u: (len(u.content) < WEAK_CONTENT, u.rank)) if statements else None
