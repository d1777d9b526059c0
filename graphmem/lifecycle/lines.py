"""The namespace export format, version 1: JSON lines (UTF-8, one JSON object per line), read
and checked one line at a time (pure: no database).

::

    {"kind": "header", "format": "graphmem-namespace", "version": 1, "graphmem": "0.1.0",
     "namespace": "team-a", "dimension": 384, "created_at": "2025-01-31T09:30:00.123456+00:00",
     "export_id": "4f1c..."}
    {"kind": "node", "labels": ["Event"], "id": "…", "properties": {"text": "…", …}}
    …                                   every node, grouped by label
    {"kind": "relationship", "type": "NEXT_TURN", "start": "…", "start_label": "Event",
     "end": "…", "end_label": "Event", "properties": {}}
    …                                   every relationship, after all nodes
    {"kind": "end", "nodes": 1234, "relationships": 5678, "labels": {"Event": 419, …},
     "types": {"NEXT_TURN": 400, …}}

Property values are JSON, or a ``$``-object for vectors, temporal values and the like
(:mod:`graphmem.lifecycle.values`). A node's properties hold neither ``id`` nor ``namespace``
(the line's ``id``; the namespace is the importer's). The end line's counts let a reader tell a
complete file from a truncated one. docs/export-import.md describes every field.

Nothing read from a file names a label or relationship type unless graphmem's schema declares it:
a node's one label is a label of :data:`graphmem.schema.ALL_NODE_CLASSES`, a relationship's
``(start_label, type, end_label)`` one the schema declares (:func:`relationship_triples`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from graphmem.errors import FormatVersionError, InputFormatError
from graphmem.lifecycle.values import decode_properties

#: The ``format`` of the header line.
FORMAT_NAME = "graphmem-namespace"
#: The format version this graphmem writes and the newest it reads.
FORMAT_VERSION = 1
#: Largest line a reader accepts, in characters (a node with long passages' vectors is well
#: below it; a larger line is damage, not data).
MAX_LINE_CHARS = 64 * 1024 * 1024


@lru_cache(maxsize=1)
def node_labels() -> tuple[str, ...]:
    """Every label an export holds, in export order: the labels of
    :data:`graphmem.schema.ALL_NODE_CLASSES` (the memories' labels, then ``AuditRecord``)."""
    from graphmem.schema import ALL_NODE_CLASSES, label_of

    return tuple(label_of(cls) for cls in ALL_NODE_CLASSES)


@lru_cache(maxsize=1)
def relationship_triples() -> frozenset[tuple[str, str, str]]:
    """Every ``(start label, type, end label)`` the schema declares (its ``RelationshipTo``
    definitions): the relationships an export holds and an import accepts."""
    from graphmem.schema import ALL_NODE_CLASSES, label_of

    out = set()
    for cls in ALL_NODE_CLASSES:
        for rel in cls.defined_properties(aliases=False, properties=False, rels=True).values():
            out.add((label_of(cls), rel.definition["relation_type"], rel._raw_class))
    return frozenset(out)


def relationship_types() -> tuple[str, ...]:
    """The relationship types of :func:`relationship_triples`, sorted."""
    return tuple(sorted({t for _, t, _ in relationship_triples()}))


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Header(_Line):
    """The first line: what the file is and where it comes from.

    Attributes:
        format: ``"graphmem-namespace"``. version: the format version (1).
        graphmem: the version of graphmem that wrote it. namespace: the exported namespace.
        dimension: the embedder's vector width (an import checks it against its own).
        created_at: when the export began (ISO 8601, UTC). export_id: a random id of this
            export (an interrupted import of the same file resumes by it).
    """

    kind: Literal["header"]
    format: Literal["graphmem-namespace"]
    version: StrictInt
    graphmem: StrictStr
    namespace: StrictStr
    dimension: StrictInt = Field(ge=1, le=4096)
    created_at: StrictStr
    export_id: StrictStr = Field(min_length=1, max_length=128)


class NodeLine(_Line):
    """One node: its label (one of :func:`node_labels`), id and properties (JSON forms)."""

    kind: Literal["node"]
    labels: list[StrictStr] = Field(min_length=1, max_length=1)
    id: StrictStr = Field(min_length=1)
    properties: dict[str, Any]

    @property
    def label(self) -> str:
        """The node's label."""
        return self.labels[0]


class RelationshipLine(_Line):
    """One relationship: type, start and end node (id and label) and properties."""

    kind: Literal["relationship"]
    type: StrictStr
    start: StrictStr = Field(min_length=1)
    start_label: StrictStr
    end: StrictStr = Field(min_length=1)
    end_label: StrictStr
    properties: dict[str, Any]


class EndLine(_Line):
    """The last line: how many nodes (per label) and relationships (per type) the file holds."""

    kind: Literal["end"]
    nodes: StrictInt = Field(ge=0)
    relationships: StrictInt = Field(ge=0)
    labels: dict[str, StrictInt]
    types: dict[str, StrictInt]

    @property
    def lines(self) -> int:
        """Node and relationship lines of the file (header and end line not counted)."""
        return self.nodes + self.relationships


Line = Header | NodeLine | RelationshipLine | EndLine
_MODELS: dict[str, type[_Line]] = {"header": Header, "node": NodeLine,
                                   "relationship": RelationshipLine, "end": EndLine}


def dump_line(line: _Line) -> str:
    """One line of the file (no newline): compact JSON, UTF-8 text kept as is, no NaN."""
    return json.dumps(line.model_dump(), ensure_ascii=False, allow_nan=False,
                      separators=(",", ":"))


def _refuse(path: Any, lineno: int, what: str) -> InputFormatError:
    return InputFormatError(f"{path}: line {lineno}: {what}")


def check_version(data: dict[str, Any], path: Any, lineno: int = 1) -> None:
    """Refuse a first line that is not a graphmem namespace export header of a version this
    graphmem reads.

    Raises:
        FormatVersionError: ``version`` above :data:`FORMAT_VERSION`, naming both versions,
            the graphmem that wrote it and what to do.
        InputFormatError: not a header of this format, or a version below 1.
    """
    if data.get("kind") != "header" or data.get("format") != FORMAT_NAME:
        raise _refuse(path, lineno, f"not a graphmem namespace export: the first line must be "
                                    f"a header with format {FORMAT_NAME!r}")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _refuse(path, lineno, f"header version must be a positive integer, got {version!r}")
    if version > FORMAT_VERSION:
        from graphmem import __version__

        raise FormatVersionError(
            f"{path}: format version {version} (written by graphmem {data.get('graphmem')!r}) is "
            f"newer than this graphmem {__version__} reads (version {FORMAT_VERSION}): import it "
            f"with a graphmem that reads format version {version}, or export the namespace "
            f"again with this one")


def parse_line(text: str, path: Any, lineno: int, *, check: bool = True) -> Line:
    """One line of the file, parsed and checked (see the module docstring): JSON, the fields
    of its kind, a label and relationship of graphmem's schema, property values that decode.

    Args:
        text: the line (its newline may be included). path: the file, named in errors.
        lineno: its 1-based number, named in errors.
        check: False skips the schema and value checks (JSON and fields are still checked):
            for a line read again after a pass that checked it.
    Raises:
        InputFormatError: naming ``path`` and ``lineno``: not JSON, not an object, an unknown
            ``kind``, a missing or extra field or one of the wrong type, a label or relationship
            not in graphmem's schema, ``id`` / ``namespace`` among the properties, a property
            value that does not decode.
        FormatVersionError: a header of a newer format version.
    """
    if len(text) > MAX_LINE_CHARS:
        raise _refuse(path, lineno, f"{len(text)} characters, more than {MAX_LINE_CHARS}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _refuse(path, lineno, f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise _refuse(path, lineno, f"expected a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    model = _MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise _refuse(path, lineno, f"unknown kind {kind!r} (expected one of {', '.join(_MODELS)})")
    if model is Header:
        check_version(data, path, lineno)
    try:
        line = model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or kind
        raise _refuse(path, lineno, f"{kind} line: {where}: {first['msg']}") from None
    if not check:
        return line
    if isinstance(line, NodeLine):
        if line.label not in node_labels():
            raise _refuse(path, lineno, f"label {line.label!r} is not in graphmem's schema")
        reserved = sorted({"id", "namespace"} & set(line.properties))
        if reserved:
            raise _refuse(path, lineno, f"properties hold {reserved}: the id is the line's, the "
                                        "namespace the importer's")
    elif isinstance(line, RelationshipLine):
        triple = (line.start_label, line.type, line.end_label)
        if triple not in relationship_triples():
            shown = f"(:{triple[0]})-[:{triple[1]}]->(:{triple[2]})"
            raise _refuse(path, lineno, f"relationship {shown} is not in graphmem's schema")
    if isinstance(line, (NodeLine, RelationshipLine)):
        try:
            decode_properties(line.properties)
        except ValueError as exc:
            raise _refuse(path, lineno, str(exc)) from None
    return line


def read_end(path: str | Path) -> EndLine:
    """The end line of the file at ``path``: how many lines an import will write, and whether
    the file is complete. Only the last line is parsed (the rest is scanned for line breaks).

    Raises:
        InputFormatError: the file is empty or its last line is not an end line (a truncated
            or damaged file), naming the file and the line number of its last line.
        FileNotFoundError: no file at ``path``.
    """
    path = Path(path)
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        tail = b""
        while size and tail.rstrip().count(b"\n") < 1 and len(tail) < size:
            step = min(size - len(tail), 65536)
            handle.seek(size - len(tail) - step)
            tail = handle.read(step) + tail
        handle.seek(0)
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    body = tail.rstrip()  # blank lines after the end line are allowed
    last = body.rsplit(b"\n", 1)[-1]
    lineno = lines - tail[len(body):].count(b"\n") + 1  # the last non-blank line's number
    if not last:
        raise InputFormatError(f"{path}: the file is empty: not a graphmem namespace export")
    try:
        data = json.loads(last.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        data = None
    if not isinstance(data, dict) or data.get("kind") != "end":
        raise InputFormatError(f"{path}: line {lineno}: the file ends without its end line: it "
                               "is truncated or damaged (export the namespace again)")
    line = parse_line(last.decode("utf-8"), path, lineno)
    assert isinstance(line, EndLine)
    return line


__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "EndLine", "Header", "Line", "NodeLine",
           "RelationshipLine", "check_version", "dump_line", "node_labels", "parse_line",
           "read_end", "relationship_triples", "relationship_types"]
