"""Identifiers: namespace validation and deterministic node ids.

Ids are deterministic (uuid5 over namespace, kind and natural key), so re-ingesting the same
input MERGEs onto the same nodes and creates nothing new.
"""

from __future__ import annotations

import re
import uuid

from graphmem.errors import InvalidInputError

_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
_ID_ROOT = uuid.UUID("6f1c2a4e-3b7d-5e8f-9a0b-1c2d3e4f5a6b")


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
