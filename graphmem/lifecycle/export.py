"""Export one namespace to a JSON-lines file (the format of :mod:`graphmem.lifecycle.lines`).

The export pages through the namespace one label at a time in id order (keyset pagination,
``lifecycle/export_nodes@<Label>``: ids above the last one written, :data:`PAGE` nodes per
query), writing each node's line at once and its outgoing relationships to a scratch file next
to the output, which is appended after the last node (an import creates nodes before the
relationships between them). Nothing of the namespace is held in memory beyond one page. The
file is written as ``<path>.partial`` and renamed to ``path`` once its end line is written, so
``path`` only ever holds a complete export.

Every node of a label of :data:`graphmem.schema.ALL_NODE_CLASSES` is exported, with all its
properties, and every relationship whose two ends are in the namespace and which the schema
declares. A relationship or node label outside graphmem's schema (added by hand, say) is left
out, counted in :attr:`ExportReport.skipped` and logged as a warning: an import would refuse it.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from graphmem.errors import InvalidInputError
from graphmem.lifecycle.lines import (FORMAT_NAME, FORMAT_VERSION, EndLine, Header, NodeLine,
                                      RelationshipLine, dump_line, node_labels,
                                      relationship_triples)
from graphmem.lifecycle.values import encode_properties

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: Nodes per export query.
PAGE = 1000


class ExportReport(BaseModel):
    """What :func:`export_namespace` wrote.

    Attributes:
        path: the file. namespace: the namespace exported. export_id: the header's id.
        nodes: node lines per label. relationships: relationship lines per type.
        skipped: what was left out, ``{"label <L>": n, "relationship <TYPE>": n}`` (empty
            for a namespace graphmem alone wrote).
        bytes: the file's size. seconds: wall time.
    """

    path: str
    namespace: str
    export_id: str
    nodes: dict[str, int] = Field(default_factory=dict)
    relationships: dict[str, int] = Field(default_factory=dict)
    skipped: dict[str, int] = Field(default_factory=dict)
    bytes: int = 0
    seconds: float = 0.0


def namespace_nodes(mem: GraphMemory) -> dict[str, int]:
    """Nodes of ``mem``'s namespace per label (the memories' labels and ``AuditRecord``;
    labels without nodes left out): how many node lines an export writes.

    Raises:
        DatabaseError subclasses.
    """
    rows = mem.runner.read("lifecycle/count_nodes", namespace=mem.namespace)
    return {str(r["label"]): int(r["nodes"]) for r in rows if r["nodes"]}


def _properties(raw: dict[str, Any], zones: Any, where: str) -> dict[str, Any]:
    props = {k: v for k, v in raw.items() if k not in ("id", "namespace")}
    try:
        return encode_properties(props, zones)
    except ValueError as exc:
        raise InvalidInputError(f"{where} cannot be exported: {exc}") from None


def export_namespace(mem: GraphMemory, path: str | Path, *,
                     progress: Callable[[int], None] | None = None,
                     page: int = PAGE) -> ExportReport:
    """Write every node and relationship of ``mem``'s namespace to ``path`` (JSON lines:
    header, nodes, relationships, end line; docs/export-import.md).

    Args:
        mem: the facade whose namespace is exported.
        path: the file to write (replaced if it exists; its folder must exist).
        progress: called with the number of nodes each page wrote (``namespace_nodes(mem)``
            summed is the total).
        page: nodes per query (1..100 000).
    Returns:
        :class:`ExportReport`.
    Raises:
        InvalidInputError: a bad ``page``; a missing folder, a folder or an unwritable
            ``path``; a stored value the format cannot carry (a spatial point), naming the node.
        DatabaseError subclasses. ``OSError`` from writing the file.
        Nothing is left at ``path`` (nor at ``<path>.partial``) after a failure.
    """
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= 100_000:
        raise InvalidInputError(f"page must be an integer in 1..100000, got {page!r}")
    began = time.perf_counter()
    path = Path(path)
    if not path.parent.is_dir():
        raise InvalidInputError(f"{path}: folder {str(path.parent)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"{path} is a folder: give the path of the file to write")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InvalidInputError(f"{path}: not writable here (permission denied): give a path "
                                "you can write")
    from graphmem import __version__

    header = Header(kind="header", format=FORMAT_NAME, version=FORMAT_VERSION,
                    graphmem=__version__, namespace=mem.namespace,
                    dimension=mem.embedder.dimension,
                    created_at=datetime.now(timezone.utc).isoformat(),
                    export_id=uuid.uuid4().hex)
    report = ExportReport(path=str(path), namespace=mem.namespace, export_id=header.export_id)
    nodes: Counter[str] = Counter()
    types: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8", newline="\n") as out, \
                tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n",
                                       dir=path.parent) as rels:
            out.write(dump_line(header) + "\n")
            for label in node_labels():
                _export_label(mem, label, page, out, rels, nodes, types, skipped, progress)
            rels.seek(0)
            shutil.copyfileobj(rels, out, 1 << 20)
            end = EndLine(kind="end", nodes=sum(nodes.values()), relationships=sum(types.values()),
                          labels=dict(sorted(nodes.items())), types=dict(sorted(types.items())))
            out.write(dump_line(end) + "\n")
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    for what, n in sorted(skipped.items()):
        logger.warning("export of %s left out %d %s (not in graphmem's schema)", mem.namespace,
                       n, what)
    report.nodes, report.relationships = dict(sorted(nodes.items())), dict(sorted(types.items()))
    report.skipped = dict(sorted(skipped.items()))
    report.bytes = path.stat().st_size
    report.seconds = round(time.perf_counter() - began, 3)
    logger.info("exported %s to %s: %d nodes, %d relationships, %d bytes, %.1f s",
                mem.namespace, path, sum(nodes.values()), sum(types.values()), report.bytes,
                report.seconds)
    return report


def _export_label(mem: GraphMemory, label: str, page: int, out: Any, rels: Any,
                  nodes: Counter[str], types: Counter[str], skipped: Counter[str],
                  progress: Callable[[int], None] | None) -> None:
    """Every page of one label: node lines to ``out``, relationship lines to ``rels``."""
    vocabulary = set(node_labels())
    triples = relationship_triples()
    after = ""
    while True:
        rows = mem.runner.read(f"lifecycle/export_nodes@{label}", namespace=mem.namespace,
                               after=after, page=page)
        for row in rows:
            for other in sorted(set(row["labels"]) - {label}):
                skipped[f"label {other}"] += 1
            where = f"{label} node {row['id']!r}"
            out.write(dump_line(NodeLine(kind="node", labels=[label], id=row["id"],
                                         properties=_properties(row["properties"], row["zones"],
                                                                where))) + "\n")
            nodes[label] += 1
            for rel in row["relationships"]:
                ends = [x for x in rel["end_labels"] if x in vocabulary]
                triple = (label, rel["type"], ends[0] if ends else None)
                if triple not in triples or rel["end"] is None:
                    skipped[f"relationship {rel['type']}"] += 1
                    continue
                line = RelationshipLine(
                    kind="relationship", type=rel["type"], start=row["id"], start_label=label,
                    end=rel["end"], end_label=triple[2],
                    properties=_properties(rel["properties"], rel["zones"],
                                           f"{rel['type']} relationship of {where}"))
                rels.write(dump_line(line) + "\n")
                types[rel["type"]] += 1
        if rows and progress is not None:
            progress(len(rows))
        if len(rows) < page:
            return
        after = rows[-1]["id"]


__all__ = ["PAGE", "ExportReport", "export_namespace", "namespace_nodes"]
