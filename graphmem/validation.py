"""Shared validation of text input, used by every memory through the embedder
(:func:`graphmem.embeddings.validate_texts`) and by the query runner.

Documented limits:

- ``MAX_TEXT_CHARS`` = 100 000 characters per text that is embedded (a query, an insight, a
  conversation turn, a cue, ...). Longer texts are refused with :class:`InvalidInputError` before
  anything is written: the embedding model reads only its first 256 tokens anyway, and Neo4j's
  range indexes refuse keys above about 8 KB.
- Text must be encodable as UTF-8 (no lone surrogates such as ``"\\ud800"``): Bolt sends UTF-8,
  so such a string could never be stored. Any other character, NUL and control characters
  included, is stored exactly.
"""

from __future__ import annotations

from graphmem.errors import EmptyTextError, InvalidInputError

#: Longest text (in characters) graphmem embeds and stores as a memory's text.
MAX_TEXT_CHARS = 100_000


def _preview(value: str, width: int = 40) -> str:
    return repr(value if len(value) <= width else value[:width] + "...")


def validate_text(value: object, what: str = "text") -> str:
    """Return ``value`` if it is a usable text, else raise.

    Raises:
        EmptyTextError: not a string, or empty / whitespace-only (names ``what`` and the value).
        InvalidInputError: longer than :data:`MAX_TEXT_CHARS`, or not encodable as UTF-8 (names
            ``what``, the length or the offending character and its position).
    """
    if not isinstance(value, str) or not value.strip():
        raise EmptyTextError(f"{what} is empty or not a string: {value!r}")
    if len(value) > MAX_TEXT_CHARS:
        raise InvalidInputError(
            f"{what} has {len(value)} characters, more than the limit MAX_TEXT_CHARS="
            f"{MAX_TEXT_CHARS}: {_preview(value)}"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{what} is not valid Unicode: character {value[exc.start]!r} at position "
            f"{exc.start} cannot be encoded as UTF-8: {_preview(value)}"
        ) from None
    return value
