"""Import a namespace export (:mod:`graphmem.lifecycle.lines`) into an empty namespace.

First the target namespace is read: a namespace that holds nodes is refused at once, unless it
holds this file's import (below); a finished one returns without reading further. Then two
passes over the file, one line at a time:

1. **Check** every line before anything is written: JSON, fields, graphmem's labels and
   relationships only, property values that decode, nodes before relationships, counts equal to
   the end line's (a truncated or damaged file is refused with the file and line number). An
   import into another namespace than the exported one also learns the new node ids here
   (:class:`graphmem.lifecycle.rekey.IdMap`).
2. **Write** the lines in batches of :data:`BATCH`, one transaction each: the nodes
   (``lifecycle/import_nodes@<Label>``), the relationships
   (``lifecycle/import_relationships@<Label>``) and the import marker's line count
   (``lifecycle/update_import_marker``) commit together.

The **import marker** is an ``AuditRecord`` with ``action = "import"`` whose id derives from the
target namespace and the file's ``export_id``, written after the check pass. An import into a
namespace that holds nodes is refused (:class:`~graphmem.errors.NamespaceNotEmptyError`) unless
the namespace holds this file's unfinished marker: then the import resumes after the lines the
marker counts, so an interrupted import run again completes with every node and relationship
exactly once. A second run of a finished import writes nothing.

In another namespace, ids are re-derived or mapped (:mod:`graphmem.lifecycle.rekey`) along
with every property holding a node id, and ``ns_token`` (the full-text filter of
:func:`graphmem.retrieval.text.namespace_token`) is computed for the target namespace: the
source namespace's token at its start becomes the target's, and what follows it (an archived
unit's suffix) is kept.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from graphmem.errors import (EmbeddingDimensionError, InputFormatError, InvalidInputError,
                             NamespaceNotEmptyError)
from graphmem.lifecycle.lines import (EndLine, Header, NodeLine, RelationshipLine, parse_line,
                                      read_end)
from graphmem.lifecycle.rekey import (NODE_REFERENCES, RELATIONSHIP_REFERENCES, IdMap,
                                      references, retoken, suffix_id, translate)
from graphmem.lifecycle.values import decode_properties
from graphmem.names import node_id, validate_namespace

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: Lines per write transaction.
BATCH = 1000


class ImportReport(BaseModel):
    """What :func:`import_namespace` did.

    Attributes:
        path: the file. namespace: the namespace written. source_namespace: the exported one.
        export_id: the file's id. audit_id: the import marker's id (an ``AuditRecord``).
        lines: node and relationship lines of the file. resumed_from: lines an earlier,
            interrupted run had committed (0 for a fresh import). already_complete: True when
            an earlier run had finished it (nothing written).
        nodes / relationships: lines written by this run, per label / type.
        rederived / mapped: for an import into another namespace, nodes written by this run
            whose id was re-derived from their key / mapped, per label (see
            :mod:`graphmem.lifecycle.rekey`).
        seconds: wall time (both passes).
    """

    path: str
    namespace: str
    source_namespace: str
    export_id: str
    audit_id: str
    lines: int = 0
    resumed_from: int = 0
    already_complete: bool = False
    nodes: dict[str, int] = Field(default_factory=dict)
    relationships: dict[str, int] = Field(default_factory=dict)
    rederived: dict[str, int] = Field(default_factory=dict)
    mapped: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line, decoded as UTF-8 one at a time."""
    with path.open("rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                yield lineno, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputFormatError(f"{path}: line {lineno}: not UTF-8 ({exc.reason} at byte "
                                       f"{exc.start})") from None


def read_header(path: str | Path) -> Header:
    """The checked header line of the export at ``path``.

    Raises:
        FormatVersionError: a newer format version. InputFormatError: not an export header,
            a bad namespace in it.
    """
    path = Path(path)
    for lineno, text in _lines(path):
        line = parse_line(text, path, lineno)
        if not isinstance(line, Header):
            break
        try:
            validate_namespace(line.namespace)
        except InvalidInputError as exc:
            raise InputFormatError(f"{path}: line 1: {exc}") from None
        return line
    raise InputFormatError(f"{path}: line 1: not a graphmem namespace export: the first line "
                           "must be its header")


def check_file(path: Path, end: EndLine, ids: IdMap | None) -> None:
    """Pass 1: every line parsed and checked, in order, against the end line's counts; node
    lines fed to ``ids`` (an import into another namespace).

    Raises:
        InputFormatError: naming the file and line (see :func:`parse_line`), a line out of
            order, a second header, lines after the end line, a node id twice, counts that
            differ from the end line's.
    """
    nodes: Counter[str] = Counter()
    types: Counter[str] = Counter()
    seen: dict[tuple[str, str], int] = {}  # (label, id) -> its line
    stage, last = "header", 0
    for lineno, text in _lines(path):
        last = lineno
        if lineno == 1 or (stage == "end" and not text.strip()):  # blank lines may close it
            continue
        if stage == "end":
            raise InputFormatError(f"{path}: line {lineno}: a line after the end line")
        line = parse_line(text, path, lineno)
        if isinstance(line, Header):
            raise InputFormatError(f"{path}: line {lineno}: a second header line")
        if isinstance(line, NodeLine):
            if stage == "relationship":
                raise InputFormatError(f"{path}: line {lineno}: a node line after relationship "
                                       "lines (every node comes before the relationships)")
            key = (line.label, line.id)
            if key in seen:
                raise InputFormatError(f"{path}: line {lineno}: {line.label} node {line.id!r} "
                                       f"again (first on line {seen[key]}): the file is damaged")
            seen[key] = lineno
            nodes[line.label] += 1
            if ids is not None:
                ids.learn(line.label, line.id, line.properties)
        elif isinstance(line, RelationshipLine):
            stage = "relationship"
            types[line.type] += 1
        else:
            stage = "end"
    if ids is not None:
        ids.flush()
    if dict(nodes) != {k: v for k, v in end.labels.items() if v} or \
            dict(types) != {k: v for k, v in end.types.items() if v} or \
            sum(nodes.values()) != end.nodes or sum(types.values()) != end.relationships:
        raise InputFormatError(
            f"{path}: line {last}: the end line counts {end.nodes} nodes and {end.relationships} "
            f"relationships {end.labels} {end.types}, the file holds {sum(nodes.values())} and "
            f"{sum(types.values())} {dict(nodes)} {dict(types)}: the file is damaged")


def marker_id(namespace: str, export_id: str) -> str:
    """The id of the import marker of export ``export_id`` in ``namespace``."""
    return node_id(namespace, "import", export_id)


def _state(mem: GraphMemory, header: Header, end: EndLine, report: ImportReport) -> str:
    """Where the namespace stands for this file (reads only): ``"fresh"`` (empty),
    ``"resume"`` (this file's unfinished import; ``report.resumed_from`` set) or
    ``"complete"`` (this file's finished import).

    Raises:
        NamespaceNotEmptyError: the namespace holds nodes and no marker of this file.
    """
    ns = mem.namespace
    [row] = mem.runner.read("lifecycle/get_import_marker", namespace=ns, id=report.audit_id)
    if row["id"] is not None and row["action"] == "import":
        state = json.loads(row["counts"] or "{}")
        if state.get("total") != end.lines:
            raise NamespaceNotEmptyError(
                f"namespace {ns!r} holds an import of export {header.export_id} with "
                f"{state.get('total')} lines, this file has {end.lines}: not the same file")
        if state.get("complete"):
            report.already_complete, report.resumed_from = True, end.lines
            return "complete"
        report.resumed_from = int(state.get("lines") or 0)
        return "resume"
    rows = mem.runner.read("lifecycle/count_nodes", namespace=ns)
    held = sum(int(r["nodes"]) for r in rows)
    audit = sum(int(r["nodes"]) for r in rows if r["label"] == "AuditRecord")
    if held and held == audit:  # a forgotten namespace keeps its audit trail
        raise NamespaceNotEmptyError(
            f"namespace {ns!r} holds only its audit trail ({audit} audit "
            f"record{'s' * (audit != 1)} of earlier forget, retain or import requests, kept when "
            "its memory was forgotten): import into another namespace, or delete this one "
            "first (GraphMemory.delete_namespace() removes the audit records too)")
    if held:
        raise NamespaceNotEmptyError(
            f"namespace {ns!r} already holds {held} nodes: import into an empty namespace "
            f"(another one, or delete this one first: GraphMemory.delete_namespace()); only an "
            f"interrupted import of the same file resumes into a namespace that holds nodes")
    return "fresh"


def _mark(mem: GraphMemory, header: Header, end: EndLine, report: ImportReport,
          actor: str | None) -> None:
    """Write the import marker of a fresh import (no line committed yet)."""
    selectors = {"export_id": header.export_id, "source_namespace": header.namespace,
                 "graphmem": header.graphmem, "created_at": header.created_at,
                 "format_version": header.version}
    mem.runner.write("core/record_audit", namespace=mem.namespace, id=report.audit_id,
                     action="import", actor=actor or "unknown",
                     selectors=json.dumps(selectors, sort_keys=True),
                     counts=json.dumps({"lines": 0, "total": end.lines, "complete": False}))


def import_namespace(mem: GraphMemory, path: str | Path, *,
                     progress: Callable[[int], None] | None = None, batch: int = BATCH,
                     actor: str | None = None) -> ImportReport:
    """Import the export at ``path`` into ``mem``'s namespace (see the module docstring).

    Args:
        mem: the facade of the target namespace (empty, or holding this file's interrupted
            import).
        path: a file written by :func:`graphmem.lifecycle.export.export_namespace`.
        progress: called with the number of lines each committed batch wrote; a resumed
            import first reports the lines committed before (one call).
        batch: lines per transaction (1..100 000).
        actor: who imports (kept on the import marker; default ``"unknown"``).
    Returns:
        :class:`ImportReport`.
    Raises:
        InvalidInputError: a bad ``batch`` or ``actor``, no file at ``path``.
        FormatVersionError: a file of a newer format version (nothing written).
        InputFormatError: a damaged or truncated file, naming the file and line (nothing
            written).
        EmbeddingDimensionError: the file's vectors have another width than the embedder's.
        NamespaceNotEmptyError: the namespace holds nodes and this is not the resumption of
            the same file's import (nothing written).
        DatabaseError subclasses: a failed batch (the batches before it stay committed; run
            again to resume).
    """
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= 100_000:
        raise InvalidInputError(f"batch must be an integer in 1..100000, got {batch!r}")
    if actor is not None:
        from graphmem.names import check_key

        check_key("actor", actor)
    began = time.perf_counter()
    path = Path(path)
    if path.is_dir():
        raise InvalidInputError(f"{path} is a folder: give the path of an export file")
    if not path.is_file():
        raise InvalidInputError(f"{path}: no such file")
    header = read_header(path)  # first: a file that is no export is named as such
    end = read_end(path)
    if header.dimension != mem.embedder.dimension:
        raise EmbeddingDimensionError(
            f"{path}: its vectors have {header.dimension} dimensions, the embedder "
            f"{mem.embedder.dimension}: import with an embedder of {header.dimension}")
    ns = mem.namespace
    report = ImportReport(path=str(path), namespace=ns, source_namespace=header.namespace,
                          export_id=header.export_id, audit_id=marker_id(ns, header.export_id),
                          lines=end.lines)
    state = _state(mem, header, end, report)
    if state == "complete":
        logger.info("%s is already imported into %s: nothing to do", path, ns)
        report.seconds = round(time.perf_counter() - began, 3)
        return report
    ids = IdMap(header.namespace, ns) if header.namespace != ns else None
    try:
        check_file(path, end, ids)
        if state == "fresh":
            _mark(mem, header, end, report, actor)
        else:
            logger.info("resuming the import of %s into %s after %d of %d lines", path, ns,
                        report.resumed_from, end.lines)
            if progress is not None:
                progress(report.resumed_from)
        _write(mem, path, report, ids, batch, progress)
        mem.runner.write("lifecycle/update_import_marker", namespace=ns, id=report.audit_id,
                         counts=json.dumps({"lines": end.lines, "total": end.lines,
                                            "complete": True, "nodes": end.labels,
                                            "relationships": end.types}, sort_keys=True))
    finally:
        if ids is not None:
            ids.close()
    mem._data_memories = None  # which memories hold data: recall's default, asked again
    mem._last_message_time.clear()
    report.seconds = round(time.perf_counter() - began, 3)
    logger.info("imported %s into %s: %d lines (%d resumed), %.1f s", path, ns, end.lines,
                report.resumed_from, report.seconds)
    return report


def _write(mem: GraphMemory, path: Path, report: ImportReport, ids: IdMap | None, batch: int,
           progress: Callable[[int], None] | None) -> None:
    """Pass 2: the lines after the header and the ``report.resumed_from`` committed ones, in
    batches of ``batch`` lines (see :func:`_commit`)."""
    done = report.resumed_from
    pending: list[tuple[int, NodeLine | RelationshipLine]] = []
    for lineno, text in _lines(path):
        if lineno == 1 or lineno - 1 <= done or not text.strip():
            continue
        line = parse_line(text, path, lineno, check=False)  # checked by the first pass
        if isinstance(line, (NodeLine, RelationshipLine)):
            pending.append((lineno, line))
        if len(pending) >= batch or (not isinstance(line, (NodeLine, RelationshipLine))
                                     and pending):
            done = _commit(mem, path, pending, done, report, ids)
            if progress is not None:
                progress(len(pending))
            pending = []


def _commit(mem: GraphMemory, path: Path, pending: list[tuple[int, Any]], done: int,
            report: ImportReport, ids: IdMap | None) -> int:
    """One batch of lines and the marker's new count in one write transaction; returns the
    lines committed so far.

    Raises:
        InputFormatError: a relationship whose start or end node is not in the namespace
            (the batch is rolled back), naming its line.
    """
    ns = mem.namespace
    wanted: list[str] = []
    for _, line in pending:
        if isinstance(line, NodeLine):
            wanted += [line.id, *references(line.properties, NODE_REFERENCES)]
            wanted += [x for x in [suffix_id(line.properties.get("sort_key"))] if x]
        else:
            wanted += [line.start, line.end, *references(line.properties, RELATIONSHIP_REFERENCES)]
    new, rederived = ids.lookup(wanted) if ids is not None else ({i: i for i in wanted}, set())
    nodes: dict[str, list[dict[str, Any]]] = {}
    rels: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for lineno, line in pending:
        props = decode_properties(line.properties)
        if isinstance(line, NodeLine):
            props = translate(props, new, NODE_REFERENCES)
            if "ns_token" in props:
                props["ns_token"] = retoken(props["ns_token"], report.source_namespace, ns)
            nodes.setdefault(line.label, []).append({"id": new[line.id], "properties": props})
            if ids is not None:
                bucket = report.rederived if line.id in rederived else report.mapped
                bucket[line.label] = bucket.get(line.label, 0) + 1
            report.nodes[line.label] = report.nodes.get(line.label, 0) + 1
        else:
            rels.setdefault(line.start_label, []).append((lineno, {
                "type": line.type, "start": new[line.start], "end": new[line.end],
                "properties": translate(props, new, RELATIONSHIP_REFERENCES)}))
            report.relationships[line.type] = report.relationships.get(line.type, 0) + 1
    total = done + len(pending)
    counts = json.dumps({"lines": total, "total": report.lines, "complete": False})

    def work(tx: Any) -> None:
        for label, rows in nodes.items():
            mem.runner.run_in(tx, f"lifecycle/import_nodes@{label}", namespace=ns, rows=rows)
        for label, numbered in rels.items():
            rows = [row for _, row in numbered]
            [row] = mem.runner.run_in(tx, f"lifecycle/import_relationships@{label}",
                                      namespace=ns, rows=rows)
            if int(row["created"]) != len(rows):
                first, last = numbered[0][0], numbered[-1][0]
                raise InputFormatError(
                    f"{path}: lines {first}-{last}: {len(rows) - int(row['created'])} of these "
                    f"{label} relationships name a start or end node the file does not hold")
        mem.runner.run_in(tx, "lifecycle/update_import_marker", namespace=ns,
                          id=report.audit_id, counts=counts)

    mem.runner.transaction("write", work, name=f"lifecycle/import lines {done + 1}-{total}")
    return total


__all__ = ["BATCH", "ImportReport", "check_file", "import_namespace", "marker_id",
           "read_header"]
