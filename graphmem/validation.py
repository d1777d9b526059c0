"""Shared validation of text input, used by every memory through the embedder
(:func:`graphmem.embeddings.validate_texts`) and by the query runner.

Documented limits:

- ``MAX_TEXT_CHARS`` = 100 000 characters per text that is embedded (a query, an insight, a
  conversation turn, a cue, ...). Longer texts are refused with :class:`InvalidInputError` before
  anything is written: the embedding model reads only its first 256 tokens anyway, and Neo4j's
  range indexes refuse keys above about 8 KB.
  The limit applies to what the caller gives (a message's content, a task, an observation);
  a text graphmem derives from it (a turn's ``"speaker: text"`` line, its embedding window with
  a few words of its neighbours) is never checked against it again: the embedding window is cut
  to ``MAX_TEXT_CHARS`` (:func:`clip_derived`), which changes no vector since the model reads
  only the window's first 256 tokens. So a message of exactly ``MAX_TEXT_CHARS`` is stored.
- ``MAX_ACTION_CHARS`` = ``MAX_TEXT_CHARS`` characters per trajectory action (insight memory's
  interaction steps and experience memory's actions are texts like any other); observations
  take ``MAX_TEXT_CHARS`` too. Both are checked when a trajectory is read, before anything is
  written.
- Ids, roles / speakers, conversation and session keys are indexed keys: at most
  :data:`graphmem.names.MAX_KEY_BYTES` UTF-8 bytes (:func:`graphmem.names.check_key`).
- Text must be encodable as UTF-8 (no lone surrogates such as ``"\\ud800"``): Bolt sends UTF-8,
  so such a string could never be stored. Any other character, NUL and control characters
  included, is stored exactly.

Input models built from user data are validated through :func:`validate_model`, which turns
pydantic's ``ValidationError`` into a typed :class:`~graphmem.errors.GraphmemError` naming the
field and the value (never pydantic's documentation links).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from graphmem.errors import EmptyTextError, GraphmemError, InvalidInputError

#: Longest text (in characters) graphmem embeds and stores as a memory's text.
MAX_TEXT_CHARS = 100_000
#: Longest trajectory action (in characters): an action is a text like any other.
MAX_ACTION_CHARS = MAX_TEXT_CHARS

_Model = TypeVar("_Model", bound=BaseModel)


def _preview(value: str, width: int = 40) -> str:
    return repr(value if len(value) <= width else value[:width] + "...")


def _preview_any(value: object, width: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= width + 10 else text[:width] + "..."


def validate_text(value: object, what: str = "text", *, max_chars: int = MAX_TEXT_CHARS,
                  limit_name: str = "MAX_TEXT_CHARS") -> str:
    """Return ``value`` if it is a usable text, else raise.

    Args:
        value: the text. what: what it is, named in the message.
        max_chars / limit_name: the limit in characters and its documented name (default
            :data:`MAX_TEXT_CHARS`; :data:`MAX_ACTION_CHARS` for actions).
    Raises:
        EmptyTextError: not a string, or empty / whitespace-only (names ``what`` and the value).
        InvalidInputError: longer than ``max_chars``, or not encodable as UTF-8 (names
            ``what``, the length or the offending character and its position).
    """
    if not isinstance(value, str) or not value.strip():
        raise EmptyTextError(f"{what} is empty or not a string: {_preview_any(value)}")
    if len(value) > max_chars:
        raise InvalidInputError(
            f"{what} has {len(value)} characters, more than the limit {limit_name}="
            f"{max_chars}: {_preview(value)}; shorten it or split it"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{what} is not valid Unicode: character {value[exc.start]!r} at position "
            f"{exc.start} cannot be encoded as UTF-8: {_preview(value)}"
        ) from None
    return value


def clip_derived(text: str) -> str:
    """A derived embedding input (a turn's window: neighbours' words, ``"speaker: "`` and the
    text) cut to :data:`MAX_TEXT_CHARS` characters, so text that passed :func:`validate_text`
    is never refused once graphmem adds its prefix or context. The embedding model reads only
    the first 256 tokens, far fewer characters, so the cut changes no vector."""
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS]


def describe_validation_error(exc: PydanticValidationError, what: str = "") -> str:
    """pydantic's first problem as ``"<what>: field.path: message (got value)"`` without
    pydantic's documentation links (at most 300 characters of value preview)."""
    err = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "value"
    msg = str(err.get("msg", "invalid"))
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    got = _preview_any(err.get("input"), 80)
    head = f"{what}: " if what else ""
    return f"{head}{where}: {msg} (got {got})"


def validate_model(model: type[_Model], data: Any, what: str,
                   error: type[GraphmemError] = InvalidInputError) -> _Model:
    """``model.model_validate(data)`` with pydantic's ``ValidationError`` turned into a typed
    graphmem error (the one shared conversion of every input model).

    Args:
        model: the pydantic model. data: the raw input. what: what it is (``"trajectory"``),
            named first in the message.
        error: the error class raised (a :class:`InvalidInputError` subclass such as
            :class:`~graphmem.errors.TrajectoryError`); a blank required text raises
            :class:`EmptyTextError` when ``error`` is :class:`InvalidInputError`.
    Raises:
        ``error``: naming ``what``, the field path, the problem and the value.
    """
    try:
        return model.model_validate(data)
    except PydanticValidationError as exc:
        message = describe_validation_error(exc, what)
        cls = error
        if error is InvalidInputError and ("empty" in message or "blank" in message):
            cls = EmptyTextError
        raise cls(message) from None
