"""Heuristic topic assignment (EMIR² SEMG: episodic units organised into topic chains).

An event joins the most similar existing topic of the same subject when the cosine similarity
of its embedding to the topic's embedding reaches ``threshold``; otherwise it founds a new
topic named by its YAKE key phrase. Pure: no I/O.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)


@dataclass
class TopicRef:
    """A topic known to the assigner: id, key, subject, name and unit embedding ``(d,)``."""

    id: str
    key: str
    subject: str
    name: str
    embedding: np.ndarray
    new: bool = False


@dataclass
class TopicAssigner:
    """Incremental nearest-topic clustering by cosine similarity.

    Args:
        topics: the topics already stored for this scope.
        threshold: minimum cosine in [-1, 1] to join a topic (default 0.5).
    """

    topics: list[TopicRef] = field(default_factory=list)
    threshold: float = 0.5

    def by_key(self, key: str) -> TopicRef | None:
        """The topic with ``key`` or None."""
        for topic in self.topics:
            if topic.key == key:
                return topic
        return None

    def nearest(self, subject: str, embedding: np.ndarray) -> tuple[TopicRef | None, float]:
        """Best topic of ``subject`` for a unit vector ``(d,)`` and its cosine (or None, -1).

        A stored topic whose vector is of another width (written with another embedder) or is
        not usable (NaN, infinity, all zeros) is skipped with a warning, never compared."""
        best, best_sim = None, -1.0
        for topic in self.topics:
            if topic.subject != subject:
                continue
            vector = np.asarray(topic.embedding, dtype=np.float64)
            if vector.shape != np.shape(embedding) or not np.isfinite(vector).all() \
                    or not vector.any():
                logger.warning("topic %s skipped: its vector (shape %s) is unusable for a (%s,) "
                               "query vector", topic.id, vector.shape, np.shape(embedding)[0]
                               if np.ndim(embedding) else "?")
                continue
            sim = float(np.dot(vector, embedding))
            if sim > best_sim:
                best, best_sim = topic, sim
        return best, best_sim

    def add(self, topic: TopicRef) -> TopicRef:
        """Register a newly founded topic."""
        self.topics.append(topic)
        return topic


@lru_cache(maxsize=8)
def _yake(max_words: int) -> Any:
    import yake

    return yake.KeywordExtractor(lan="en", n=max_words, top=1)


def key_phrase(text: str, max_words: int = 3) -> str:
    """The top YAKE key phrase of ``text`` (English, at most ``max_words`` words), or its first
    words when YAKE finds none."""
    found = _yake(max_words).extract_keywords(text)
    if found:
        return str(found[0][0])
    return " ".join(text.split()[:max_words])


def topic_phrase(text: str, max_words: int = 3, candidates: int = 10) -> str:
    """A noun-like key phrase of ``text`` for a topic's name, from YAKE's first ``candidates``
    phrases, or ``""`` when none fits.

    A phrase fits when it has no stop word (scikit-learn's English list) and not only chat
    words (:data:`graphmem.retrieval.text.PHATIC`), every word can be a noun or an adjective
    (lemminflect; unknown words such as "LGBTQ" count as nouns), and the last one can be a
    noun. Of the fitting phrases, the first of several words wins ("career options", not
    "Gonna continue"), else the first single word that can only be a noun ("family" before
    "make"), else the first fitting one.
    """
    from lemminflect import getAllLemmas
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from graphmem.retrieval.text import PHATIC

    if not text.split():
        return ""
    best: tuple[int, str] | None = None
    for phrase, _score in _yake_many(max_words, candidates).extract_keywords(text):
        words = [w.lower() for w in str(phrase).replace("'", " ").split()]
        if not words or any(w in ENGLISH_STOP_WORDS for w in words) or all(w in PHATIC for w in words):
            continue
        lemmas = [getAllLemmas(w) for w in words]
        if any(found and not {"NOUN", "ADJ"} & set(found) for found in lemmas):
            continue
        if lemmas[-1] and "NOUN" not in lemmas[-1]:
            continue
        tier = 0 if len(words) > 1 else 1 if set(lemmas[-1]) <= {"NOUN"} else 2
        if best is None or tier < best[0]:
            best = (tier, str(phrase))
        if tier == 0:
            break
    return best[1] if best else ""


@lru_cache(maxsize=8)
def _yake_many(max_words: int, top: int) -> Any:
    import yake

    return yake.KeywordExtractor(lan="en", n=max_words, top=top)
