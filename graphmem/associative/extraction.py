"""Cue and tag extraction, ``C_i = F_cue(e_i)`` and ``g_i = F_tag(e_i)`` (MRAgent, seed 003,
section 5 "memory construction"), plus semantic units (section 4.2).

Two extractors fill the same graph:

- :class:`HeuristicCueExtractor` needs no LLM: YAKE key phrases (keyword cues), capitalised-name
  and all-caps patterns (entity cues), date and relative-time patterns plus the episode's own
  UTC month (time cues, :func:`month_cue`), subject-pronoun + verb patterns (action cues) and "my favourite X" /
  "I'm a X" patterns (attribute cues). A tag is built from the cue's kind (who / when / did /
  is / about) and the episode's predicate (its first action verb and its top key phrases).
  Semantic units come from first-person preference and identity patterns.
- :class:`~graphmem.associative.llm_extraction.LLMCueExtractor` asks a langchain-core chat model for the same :class:`EpisodeExtraction`
  through :func:`graphmem.llm.invoke_structured` (one retry, then ``ControllerError``).

Everything here is pure (no I/O).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from graphmem.associative.models import CueLink, EpisodeExtraction, EpisodeInput, SemanticFact
from graphmem.text import normalise_for_matching
from graphmem.timeparse import to_utc

logger = logging.getLogger(__name__)

_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_TIME_PATTERNS = [
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?,?\s+\d{{4}}\b", re.I),
    re.compile(rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b", re.I),
    re.compile(rf"\b(?:{_MONTHS})\.?\s+\d{{4}}\b", re.I),
    re.compile(r"\b(?:19|20)\d{2}\b"),
    re.compile(
        rf"\b(?:last|next|this|past|every)\s+(?:week(?:end)?|month|year|summer|winter|spring|fall"
        rf"|autumn|night|{_WEEKDAYS})\b",
        re.I,
    ),
    re.compile(r"\b(?:yesterday|today|tonight|tomorrow|recently|lately)\b", re.I),
    re.compile(r"\b(?:a|one|two|three|four|five|few|couple of)\s+(?:days?|weeks?|months?|years?)"
               r"\s+ago\b", re.I),
    re.compile(rf"\b(?:on\s+)?(?:{_WEEKDAYS})\b", re.I),
]
_ENTITY = re.compile(r"\b(?:[A-Z][a-zA-Z'’\-]+|[A-Z]{2,}\+?)(?:\s+(?:[A-Z][a-zA-Z'’\-]+|[A-Z]{2,}))*")
_IRREGULAR = (
    "went|ran|took|made|got|saw|bought|met|began|started|found|gave|had|did|wrote|read|drew|"
    "painted|won|lost|left|moved|joined|visited|tried|learned|learnt|built|sold|felt|thought|"
    "told|came|kept|taught|spent|caught|brought|heard|sang|swam|flew|drove|rode|ate|grew|threw"
)
_ACTION = re.compile(
    r"\b(?:i|we|she|he|they|you)(?:'ve|'d|'ll|'m|\s+(?:have|had|was|were|am|are|will|just|"
    r"recently|finally|also|really|actually|even|did|been|to))*\s+"
    rf"((?:{_IRREGULAR})|\w{{3,}}(?:ed|ing))\b",
    re.I,
)
_ATTRIBUTE = [
    re.compile(r"\bmy\s+(?:favou?rite|fave)\s+([a-z]+(?:\s+(?!is\b|are\b|was\b)[a-z]+)?)", re.I),
    re.compile(r"\bi(?:'m| am)\s+(?:a|an)\s+((?:[a-z]+\s+){0,2}[a-z]+)", re.I),
]
_PREFERENCE = re.compile(
    r"\bi\s+(?:really\s+|absolutely\s+|just\s+|also\s+)?(love|like|enjoy|prefer|adore|hate)\s+"
    r"([^.!?,;:]{3,60})",
    re.I,
)
_FACT_PATTERNS = [
    (re.compile(r"\bi(?:'m| am)\s+(?:a|an)\s+([^.!?,;:]{3,50})", re.I), "{s} is a {x}"),
    (re.compile(r"\bmy\s+(?:favou?rite|fave)\s+([a-z]+(?:\s+[a-z]+)?)\s+(?:is|are)\s+"
                r"([^.!?,;:]{2,50})", re.I), "{s}'s favourite {x} is {y}"),
    (re.compile(r"\bi\s+(?:work|worked)\s+(as|at|in)\s+([^.!?,;:]{3,50})", re.I), "{s} works {x} {y}"),
    (re.compile(r"\bi\s+(?:have|'ve got)\s+((?:a|an|two|three|four|\d+)\s+(?:kids?|children|sons?|"
                r"daughters?|dogs?|cats?|pets?|brothers?|sisters?)[^.!?,;:]{0,30})", re.I),
     "{s} has {x}"),
]
_RELATION = {"entity": "who", "attribute": "is", "time": "when", "action": "did", "keyword": "about"}
_EXTRA_STOP = {
    "i", "im", "i'm", "hey", "hi", "hello", "wow", "oh", "yes", "yeah", "no", "thanks", "thank",
    "ok", "okay", "great", "good", "awesome", "nice", "sure", "haha", "lol", "omg", "btw", "by",
    "that's", "it's", "what's", "congrats", "congratulations", "cool", "amazing", "well", "so",
    "shares", "a photo", "photo", "sounds", "totally",
}
_TIME_WORDS = set(
    f"{_MONTHS}|{_WEEKDAYS}|yesterday|today|tonight|tomorrow|recently|lately|ago|last|next|week"
    "|weekend|month|year|years|days|weeks|months".split("|")
)
_CLAUSE_END = re.compile(r"\s+(?:and|but|so|because|since|when|which|who)\s+(?:i|i'm|i've|we|it|"
                         r"that|they|she|he)\b.*$", re.I)
_NORMALISE_STRIP = re.compile(r"^(?:the|a|an|my|your|her|his|our|their|its|some)\s+", re.I)
_NON_WORD = re.compile(r"[^\w\s+'\-]")
_POSSESSIVE = re.compile(r"['’]s\b")


#: Longest normalised cue text (characters). Cue text is range-indexed (namespace, text), and
#: Neo4j refuses index keys above about 8 KB; a cue is a short phrase, so longer ones are cut.
MAX_CUE_CHARS = 200


def normalise_cue(text: str) -> str:
    """Normalised cue text, the MERGE key of a Cue within a namespace: starts from
    :func:`graphmem.text.normalise_for_matching` (Unicode NFC, case folding, single spaces, so
    ``"naïve"`` typed decomposed or precomposed gives the cue ``"naïve"``, never ``"nai"``), then
    possessive ``'s`` and punctuation removed, leading article/possessive pronoun dropped, at most
    :data:`MAX_CUE_CHARS` characters.

    Returns ``""`` for text with no word characters (callers skip it).
    """
    out = _POSSESSIVE.sub("", normalise_for_matching(text).replace("’", "'"))
    out = _NON_WORD.sub(" ", out)
    out = " ".join(out.replace("'", " ").split())
    previous = None
    while previous != out:
        previous = out
        out = _NORMALISE_STRIP.sub("", out).strip()
    return out[:MAX_CUE_CHARS].strip()


def month_cue(occurred_at: datetime) -> str:
    """The time cue of the month an episode belongs to: its **UTC** month (the one rule for
    which day / month / year a message belongs to, :mod:`graphmem.timeparse`), e.g.
    ``2023-01-31T23:30:00-05:00`` (04:30 UTC on 1 February) -> ``"february 2023"``.

    Raises:
        InvalidInputError: a naive ``occurred_at``.
    """
    return to_utc(occurred_at, field="episode time").strftime("%B %Y").lower()


class CueExtractor(Protocol):
    """Anything that turns episodes into :class:`EpisodeExtraction` (one per episode)."""

    name: str

    def extract(self, episodes: Sequence[EpisodeInput]) -> list[EpisodeExtraction]: ...


class HeuristicCueExtractor:
    """``F_cue`` / ``F_tag`` without an LLM (MRAgent section 5, heuristic variant).

    Args:
        keywords: YAKE key phrases per episode (``n <= 3`` words).
        speakers_as_cues: add the speaker as an entity cue of every episode.
    """

    name = "heuristic"

    def __init__(self, keywords: int = 5, speakers_as_cues: bool = True):
        import yake

        self.keywords = keywords
        self.speakers_as_cues = speakers_as_cues
        self._yake = yake.KeywordExtractor(lan="en", n=3, top=keywords + 3, dedup_lim=0.7)
        self._stop = {w.lower() for w in self._yake.stopword_set} | _EXTRA_STOP

    # -- cue finders -------------------------------------------------------------------------
    def key_phrases(self, text: str) -> list[str]:
        """YAKE key phrases of ``text`` (best first), normalised, without stop-word-only ones."""
        out: list[str] = []
        for phrase, _score in self._yake.extract_keywords(text):
            norm = normalise_cue(phrase)
            words = norm.split()
            if not norm or len(norm) < 3 or all(w in self._stop for w in words):
                continue
            if words[0] in self._stop or words[-1] in self._stop:
                continue
            words = [w for w in words if w not in _TIME_WORDS]
            norm = " ".join(words)
            if not words or words[-1] in self._stop or norm in out:
                continue
            covered = {w for k in out for w in k.split()}
            if set(words) <= covered:
                continue
            out.append(norm)
            if len(out) >= self.keywords:
                break
        return out

    def entities(self, text: str, known: Sequence[str] = ()) -> list[str]:
        """Capitalised names and acronyms; a sentence-initial word only when it is a known name."""
        known_norm = {normalise_cue(k) for k in known}
        out: list[str] = []
        for match in _ENTITY.finditer(text):
            start = match.start()
            before = text[:start].rstrip()
            sentence_start = not before or before[-1] in ".!?\"[(:"
            words = match.group(0).split()
            if sentence_start and normalise_cue(words[0]) not in known_norm:
                if len(words) == 1:
                    continue  # a lone capitalised first word is usually not a name
                while words and words[0].lower().strip("'’") in self._stop:
                    words = words[1:]
            norm = normalise_cue(" ".join(words))
            if not norm or norm in self._stop or len(norm) < 2:
                continue
            if all(w in self._stop for w in norm.split()):
                continue
            if norm not in out:
                out.append(norm)
        return out

    @staticmethod
    def times(text: str) -> list[str]:
        """Dates, months, years, weekdays and relative time phrases in ``text``, normalised."""
        out: list[str] = []
        for pattern in _TIME_PATTERNS:
            for match in pattern.finditer(text):
                norm = normalise_cue(match.group(0))
                norm = re.sub(r"^on\s+", "", norm)
                if norm and not any(norm in t for t in out):
                    out.append(norm)
        return out

    @staticmethod
    def actions(text: str) -> list[str]:
        """Verbs after a subject pronoun ("I went", "we've been painting"), lower case."""
        out: list[str] = []
        skip = {"going", "thinking", "feeling", "doing", "being", "getting", "trying", "saying",
                "talking", "wondering", "hoping", "looking", "had", "did"}
        for match in _ACTION.finditer(text):
            verb = match.group(1).lower()
            if verb not in skip and verb not in out:
                out.append(verb)
        return out

    @staticmethod
    def attributes(text: str) -> list[str]:
        """Attribute phrases: "my favourite X" -> ``favourite X``, "I'm a X" -> ``X``."""
        out: list[str] = []
        for i, pattern in enumerate(_ATTRIBUTE):
            for match in pattern.finditer(text):
                phrase = match.group(1)
                norm = normalise_cue(("favourite " if i == 0 else "") + phrase)
                if norm and norm not in out:
                    out.append(norm)
        return out

    def semantic_facts(self, speaker: str, text: str) -> list[SemanticFact]:
        """Stable facts and preferences stated in the first person (section 4.2), rewritten
        with the speaker as subject ("I love painting" by Mel -> "Mel loves painting")."""
        facts: list[SemanticFact] = []
        for match in _PREFERENCE.finditer(text):
            verb, obj = match.group(1).lower(), _CLAUSE_END.sub("", match.group(2)).strip()
            obj_words = obj.split()[:8]
            if not obj_words or normalise_cue(obj_words[0]) in {"it", "that", "this", "them",
                                                                "you", "to"}:
                continue
            obj = " ".join(obj_words)
            verb3 = verb + "s"
            fact = f"{speaker} {verb3} {obj}"
            cues = [CueLink(cue=normalise_cue(speaker), kind="entity", tag=f"preference: {verb3} {obj}")]
            cues += [CueLink(cue=k, kind="keyword", tag=f"preference: {speaker} {verb3}")
                     for k in self.key_phrases(obj)[:2] if k != normalise_cue(speaker)]
            facts.append(SemanticFact(text=fact, kind="preference", cues=cues))
        for pattern, template in _FACT_PATTERNS:
            for match in pattern.finditer(text):
                groups = [g.strip() for g in match.groups()]
                groups = [_CLAUSE_END.sub("", g).strip() for g in groups]
                x = " ".join(groups[0].split()[:8])
                y = " ".join(groups[1].split()[:8]) if len(groups) > 1 else ""
                fact = template.format(s=speaker, x=x, y=y).strip()
                cues = [CueLink(cue=normalise_cue(speaker), kind="entity", tag=f"fact: {fact}")]
                cues += [CueLink(cue=k, kind="attribute", tag=f"fact about {speaker}")
                         for k in self.key_phrases(f"{x} {y}")[:2] if k != normalise_cue(speaker)]
                facts.append(SemanticFact(text=fact, kind="fact", cues=cues))
        return facts

    # -- F_cue and F_tag ---------------------------------------------------------------------
    def extract_one(self, episode: EpisodeInput, known_names: Sequence[str] = ()) -> EpisodeExtraction:
        """Cues with tags and semantic units of one episode."""
        # NFC first: the keyword and entity patterns would split a decomposed "naïve" into "nai"
        text = unicodedata.normalize("NFC", episode.text)
        speaker = normalise_cue(episode.speaker)
        keywords = self.key_phrases(text)
        entities = [e for e in self.entities(text, [*known_names, episode.speaker]) if e != speaker]
        times = self.times(text)
        times.append(month_cue(episode.occurred_at))
        actions = self.actions(text)
        attributes = self.attributes(text)
        verb = actions[0] if actions else "mentions"

        def predicate(cue: str, kind: str) -> str:
            anchors = [k for k in keywords if cue not in k and k not in cue][:2]
            if kind in ("keyword", "attribute", "action"):
                lead = f"{speaker} {verb}" if kind != "action" else speaker
                words = [lead, *anchors[:1]]
            else:
                words = [verb, *anchors]
            unique: list[str] = []
            for word in " ".join(words).split():
                if word not in unique:
                    unique.append(word)
            return " ".join(unique[:6])

        links: list[CueLink] = []
        seen: set[str] = set()

        def add(cue: str, kind: str) -> None:
            if not cue or cue in seen:
                return
            seen.add(cue)
            links.append(CueLink(cue=cue, kind=kind, tag=f"{_RELATION[kind]}: {predicate(cue, kind)}"))

        if self.speakers_as_cues and speaker:
            add(speaker, "entity")
        for cue in entities:
            add(cue, "entity")
        for cue in times:
            add(cue, "time")
        for cue in attributes:
            add(cue, "attribute")
        for cue in actions[:2]:
            add(cue, "action")
        for cue in keywords:
            if cue not in seen and not any(cue == e for e in entities):
                add(cue, "keyword")
        return EpisodeExtraction(cues=links, semantic_units=self.semantic_facts(episode.speaker, text))

    def extract(self, episodes: Sequence[EpisodeInput]) -> list[EpisodeExtraction]:
        """One :class:`EpisodeExtraction` per episode, in order."""
        names = sorted({e.speaker for e in episodes})
        return [self.extract_one(e, names) for e in episodes]

    def question_cues(self, question: str, known_names: Sequence[str] = ()) -> list[CueLink]:
        """Cues of a question (reconstruction start): entities, times, attributes, actions and
        key phrases, plus the single content words of the key phrases."""
        links: list[CueLink] = []
        seen: set[str] = set()

        def add(cue: str, kind: str) -> None:
            if cue and cue not in seen and cue not in self._stop:
                seen.add(cue)
                links.append(CueLink(cue=cue, kind=kind, tag="question"))

        for cue in self.entities(question, known_names):
            add(cue, "entity")
        for cue in self.times(question):
            add(cue, "time")
        for cue in self.attributes(question):
            add(cue, "attribute")
        for cue in self.actions(question):
            add(cue, "action")
        phrases = self.key_phrases(question)
        for cue in phrases:
            add(cue, "keyword")
        for cue in phrases:
            for word in cue.split():
                if len(word) > 2:
                    add(word, "keyword")
        return links
