"""Identifiers: namespace validation, indexed-key validation and deterministic node ids.

Ids are deterministic (uuid5 over namespace, kind and natural key), so re-ingesting the same
input MERGEs onto the same nodes and creates nothing new.

Keys stored in an indexed property (conversation ids, turn/message source ids, task ids, session
ids, cue and tag texts) pass :func:`check_key`. Neo4j's range indexes refuse a key above about
8 KB ("Property value is too large to index"), which would abort an ingest half-way; composite
indexes add up their fields. :func:`check_key` refuses a key above :data:`MAX_KEY_BYTES` UTF-8
bytes before anything is written. Refusing (rather than hashing a long key to a short one and
keeping the original in a non-indexed property) keeps every id the caller gave exactly what is
stored, returned in recall results and looked up later, with no second property to keep in
step: an id of more than a kilobyte is a caller error (usually text passed where an id belongs).
"""

from __future__ import annotations

import re
import uuid

from graphmem.errors import InvalidInputError

_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
_ID_ROOT = uuid.UUID("6f1c2a4e-3b7d-5e8f-9a0b-1c2d3e4f5a6b")

#: Longest indexed key, in UTF-8 bytes (about 340 CJK characters, 1,024 ASCII ones). Far below
#: Neo4j's ~8 KB range-index key limit, so a composite index of a namespace (<= 128 bytes) and
#: up to three such keys still fits.
MAX_KEY_BYTES = 1024


def check_key(field: str, value: object) -> str:
    """Return ``value`` unchanged if it can be stored in an indexed property, else raise.

    Args:
        field: what the key is (e.g. ``"conversation id"``, ``"turn source_id"``), named in the
            message.
        value: the key.
    Raises:
        InvalidInputError: not a string, empty or whitespace-only, not encodable as UTF-8 (a
            lone surrogate), or longer than :data:`MAX_KEY_BYTES` UTF-8 bytes; the message
            names ``field``, the limit, the size and the start of the value.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{field} must be a non-empty string, got {value!r}")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{field} is not valid Unicode: {value[exc.start]!r} at position {exc.start} cannot "
            f"be encoded as UTF-8: {value[:40]!r}") from None
    if size > MAX_KEY_BYTES:
        raise InvalidInputError(
            f"{field} is {size} UTF-8 bytes ({len(value)} characters), more than the limit "
            f"MAX_KEY_BYTES={MAX_KEY_BYTES} for an indexed key: {value[:40]!r}...")
    return value


def validate_namespace(namespace: str) -> str:
    """Return ``namespace`` if valid, else raise.

    A namespace is 1–128 characters of letters, digits, ``_ . : -``, starting with a letter or
    digit.

    Raises:
        InvalidInputError: naming the bad value.
    """
    if not isinstance(namespace, str) or not _NAMESPACE.match(namespace):
        raise InvalidInputError(
            f"invalid namespace {namespace!r}: use 1-128 of [A-Za-z0-9_.:-], starting alphanumeric"
        )
    return namespace


def _escape(part: str) -> str:
    """Make the ``\\x1f``-joined key injective: ``\\x1e`` -> ``\\x1e\\x1e`` and ``\\x1f`` ->
    ``\\x1e\\x1f`` (parts without those characters, i.e. all ordinary text, are unchanged, so
    ids stay what they were)."""
    if "\x1e" in part or "\x1f" in part:
        return part.replace("\x1e", "\x1e\x1e").replace("\x1f", "\x1e\x1f")
    return part


def node_id(namespace: str, kind: str, *key: object) -> str:
    """Deterministic node id: ``uuid5(root, namespace | kind | key...)`` as a 36-char string.

    Args:
        namespace: tenant scope (part of the id, so tenants never share nodes).
        kind: a fixed word for the node kind (e.g. ``"event"``).
        key: the natural key's parts; ``str()`` of each is used. Different part lists give
            different ids, whatever characters the parts contain.
    Raises:
        InvalidInputError: a key part that is not valid Unicode (a lone surrogate such as
            ``"\\ud800"``, which could never be stored either).
    """
    text = "\x1f".join(_escape(part) for part in (namespace, kind, *(str(k) for k in key)))
    try:
        return str(uuid.uuid5(_ID_ROOT, text))
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"key of a {kind!r} node is not valid Unicode: {exc.object[exc.start]!r} at position "
            f"{exc.start} cannot be encoded as UTF-8: {text[:60]!r}"
        ) from None
