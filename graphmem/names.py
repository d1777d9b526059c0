"""Identifiers: namespace validation and deterministic node ids.

Ids are deterministic (uuid5 over namespace, kind and natural key), so re-ingesting the same
input MERGEs onto the same nodes and creates nothing new.
"""

from __future__ import annotations

import re
import uuid

from graphmem.errors import ValidationError

_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
_ID_ROOT = uuid.UUID("6f1c2a4e-3b7d-5e8f-9a0b-1c2d3e4f5a6b")


def validate_namespace(namespace: str) -> str:
    """Return ``namespace`` if valid, else raise.

    A namespace is 1–128 characters of letters, digits, ``_ . : -``, starting with a letter or
    digit.

    Raises:
        ValidationError: naming the bad value.
    """
    if not isinstance(namespace, str) or not _NAMESPACE.match(namespace):
        raise ValidationError(
            f"invalid namespace {namespace!r}: use 1-128 of [A-Za-z0-9_.:-], starting alphanumeric"
        )
    return namespace


def node_id(namespace: str, kind: str, *key: object) -> str:
    """Deterministic node id: ``uuid5(root, namespace | kind | key...)`` as a 36-char string.

    Args:
        namespace: tenant scope (part of the id, so tenants never share nodes).
        kind: a fixed word for the node kind (e.g. ``"event"``).
        key: the natural key's parts; ``str()`` of each is used.
    """
    text = "\x1f".join([namespace, kind, *(str(k) for k in key)])
    return str(uuid.uuid5(_ID_ROOT, text))
