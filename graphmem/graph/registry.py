"""Cypher registry: every query is a file ``cypher/<memory>/<verb>_<object>.cypher``.

Each file starts with a ``//`` header::

    // description: one line on what it does
    // params: namespace, text, embedding        (or "none")
    // returns: id, score                         (or "none")
    // mode: read | write

The query's name is its path below ``cypher/`` without the suffix (``state/merge_event``). At load,
the declared params must equal the ``$params`` used in the body, else :class:`QueryRegistryError`
names the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from graphmem.errors import QueryRegistryError, UnknownQueryError

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER = re.compile(r"^//\s*([a-z_]+)\s*:\s*(.*?)\s*$")
_REQUIRED = ("description", "params", "returns", "mode")
_STRING_OR_COMMENT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|//[^\n]*")


@dataclass(frozen=True)
class CypherQuery:
    """One named query: its text, declared parameters and mode."""

    name: str
    text: str
    params: frozenset[str]
    returns: tuple[str, ...]
    mode: Literal["read", "write"]
    description: str
    path: Path


def used_params(body: str) -> set[str]:
    """The ``$names`` a Cypher body uses, ignoring string literals and ``//`` comments."""
    return set(_PARAM.findall(_STRING_OR_COMMENT.sub(" ", body)))


def parse_query(name: str, source: str, path: Path) -> CypherQuery:
    """Parse one query file's text.

    Raises:
        QueryRegistryError: header fields missing or malformed, unknown mode, empty body, or
            declared params different from used ones; the message names ``path``.
    """
    header: dict[str, str] = {}
    body_lines: list[str] = []
    in_header = True
    for line in source.splitlines():
        match = _HEADER.match(line) if in_header else None
        if match and match.group(1) in _REQUIRED:
            header[match.group(1)] = match.group(2)
            continue
        if in_header and line.strip().startswith("//"):
            continue
        in_header = False
        body_lines.append(line)
    missing = [key for key in _REQUIRED if key not in header]
    if missing:
        raise QueryRegistryError(f"{path}: header lacks {', '.join(missing)}")
    mode = header["mode"].strip().lower()
    if mode not in ("read", "write"):
        raise QueryRegistryError(f"{path}: mode must be read or write, got {header['mode']!r}")
    body = "\n".join(body_lines).strip()
    if not body:
        raise QueryRegistryError(f"{path}: empty query body")
    declared_text = header["params"].strip()
    declared = (
        set()
        if declared_text.lower() in ("", "none")
        else {p.strip().lstrip("$") for p in declared_text.split(",") if p.strip()}
    )
    used = used_params(body)
    if declared != used:
        raise QueryRegistryError(
            f"{path}: declared params {sorted(declared)} != used params {sorted(used)}"
            f" (undeclared: {sorted(used - declared)}, unused: {sorted(declared - used)})"
        )
    returns_text = header["returns"].strip()
    returns = (
        ()
        if returns_text.lower() in ("", "none")
        else tuple(r.strip() for r in returns_text.split(","))
    )
    return CypherQuery(
        name=name,
        text=body,
        params=frozenset(declared),
        returns=returns,
        mode=mode,  # type: ignore[arg-type]
        description=header["description"],
        path=path,
    )


class CypherRegistry:
    """All queries under a root folder, by name. Load once; lookups are dict reads."""

    def __init__(self, queries: dict[str, CypherQuery]):
        self._queries = dict(queries)

    @classmethod
    def load(cls, root: Path | None = None) -> CypherRegistry:
        """Load every ``*.cypher`` below ``root`` (default: the shipped ``cypher/``).

        Raises:
            QueryRegistryError: for the first bad file, naming it.
        """
        if root is None:
            from graphmem.resources import resource_dir

            root = resource_dir("cypher")
        queries: dict[str, CypherQuery] = {}
        for path in sorted(root.rglob("*.cypher")):
            name = path.relative_to(root).with_suffix("").as_posix()
            queries[name] = parse_query(name, path.read_text(encoding="utf-8"), path)
        return cls(queries)

    def get(self, name: str) -> CypherQuery:
        """The query called ``name``.

        Raises:
            UnknownQueryError: naming ``name``.
        """
        try:
            return self._queries[name]
        except KeyError:
            raise UnknownQueryError(f"no Cypher query named {name!r}") from None

    def names(self) -> list[str]:
        """All query names, sorted."""
        return sorted(self._queries)

    def __len__(self) -> int:
        return len(self._queries)

    def __contains__(self, name: object) -> bool:
        return name in self._queries
