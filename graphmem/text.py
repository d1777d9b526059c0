"""Text normalisation for matching (cue keys, keyword queries, equality tests). Pure.

Stored text always stays exactly as given; only the *keys* used to match text are normalised,
so that the same word written two ways in Unicode matches itself: ``"naïve"`` typed with a
precomposed ``ï`` (NFC, U+00EF) and with ``i`` + combining diaeresis (NFD, U+0069 U+0308) give
the same key, ``"NAÏVE"`` and ``"Straße"``/``"STRASSE"`` too. Without NFC, a pattern such as
``[^\\w\\s]`` or ``[A-Za-z0-9]+`` splits the decomposed form at the combining mark and the cue
becomes ``"nai"``.
"""

from __future__ import annotations

import re
import unicodedata

_TOKEN = re.compile(r"\w+")


def normalise_for_matching(text: str) -> str:
    """The matching key of ``text``: Unicode NFC, then full case folding (``str.casefold``: ß ->
    ss, Σ/ς -> σ), NFC again (case folding can decompose, e.g. İ), and every run of Unicode
    whitespace (tabs, newlines, no-break spaces...) collapsed to one space, ends trimmed.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
    return " ".join(folded.split())


def matching_tokens(text: str) -> list[str]:
    """The word tokens (``\\w+``, so letters of every script, digits and ``_``) of
    :func:`normalise_for_matching` ``(text)``, in order, repeats kept. Use instead of
    ``[A-Za-z0-9]+`` for keyword queries: it keeps ``naïve``, ``café`` and ``東京`` whole."""
    return _TOKEN.findall(normalise_for_matching(text))
