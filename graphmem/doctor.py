"""Doctor: find stored embeddings that recall cannot score, and re-embed them from their text.

A vector written before vectors were validated (another model's width, NaN or infinity, all
zeros) or a node whose embedding is missing is invisible to Neo4j's vector index and skipped by
every exact-scan query, so its memory is never recalled. :func:`check_embeddings` lists such
nodes per namespace and label and, with ``repair=True``, re-embeds each from the text its
embedding is made of with the configured embedder (through
:class:`~graphmem.embeddings.ValidatingEmbedder`, so a repair never writes a bad vector) and
writes it back (``doctor/set_embeddings@<Label>``).

The labels checked are the registry's: every registered memory's ``embedded_labels``
(:func:`graphmem.memory_registry.embedded_labels`, in registry order), a plugin memory's
included. A label is scanned in id-ordered batches of ``batch_size`` by
``doctor/scan_<label in snake case>`` when the registry holds one (graphmem's own labels ship
theirs in ``cypher/doctor/``; a plugin memory may ship its own among its queries), else by
``doctor/scan_embedded@<Label>``, which reads the node's ``text`` property.

Text an embedding is made of, per built-in label: Query ``text``, Insight ``content``, Task
``query``, Topic ``name`` (else ``key``), Event ``"<speaker>: <text>"``, State ``content``,
Episode and SemanticUnit ``text`` (a repaired retrieval unit gets its turn's own vector;
re-ingesting the conversation restores the window of its session neighbours). A Theme's vector is
the centroid of its episodes' vectors: it is reported but not repairable (re-ingest the
conversation). Cues and tags carry no vector (they are matched by text).

Command line (wired by the CLI)::

    graphmem doctor [-n NS] [--repair]

``-n NS`` checks one namespace (``--all``: every namespace holding an embedded node,
``doctor/list_namespaces``);
``--repair`` re-embeds what can be re-embedded. It prints the :class:`DoctorReport` and exits
non-zero when a bad embedding remains.
"""

from __future__ import annotations

import logging
import re
from typing import Literal

from pydantic import BaseModel, Field

from graphmem.embeddings import Embedder, ValidatingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.graph.runner import QueryRunner
from graphmem.memory_registry import embedded_labels, include_memory_queries
from graphmem.names import validate_namespace

log = logging.getLogger(__name__)

#: Labels whose vector is not computed from one text (a Theme's is a centroid).
NOT_REEMBEDDABLE = {"Theme": "a theme's vector is the centroid of its episodes; re-ingest the "
                             "conversation to rebuild it"}

Problem = Literal["missing", "wrong_width", "non_finite", "zero"]


class BadEmbedding(BaseModel):
    """One node whose embedding recall cannot use.

    ``width``: the stored vector's length (None when missing). ``repaired``: re-embedded in this
    run. ``note``: why it was not repaired, when it was not.
    """

    namespace: str
    label: str
    id: str
    problem: Problem
    width: int | None = None
    repaired: bool = False
    note: str | None = None


class LabelSummary(BaseModel):
    """Counts for one namespace and label: ``bad`` found, ``repaired`` of them."""

    namespace: str
    label: str
    bad: int = 0
    repaired: int = 0


class DoctorReport(BaseModel):
    """What :func:`check_embeddings` found (and repaired).

    ``findings`` lists at most ``max_findings`` nodes (``truncated`` says more were found;
    ``summary`` always counts them all). ``dimension``: the embedder's, which every stored vector
    must have.
    """

    dimension: int
    repair: bool
    namespaces: list[str] = Field(default_factory=list)
    summary: list[LabelSummary] = Field(default_factory=list)
    findings: list[BadEmbedding] = Field(default_factory=list)
    truncated: bool = False

    @property
    def bad(self) -> int:
        """Bad embeddings found."""
        return sum(s.bad for s in self.summary)

    @property
    def remaining(self) -> int:
        """Bad embeddings left after this run (found minus repaired)."""
        return sum(s.bad - s.repaired for s in self.summary)

    @property
    def ok(self) -> bool:
        """True when no bad embedding remains."""
        return self.remaining == 0


def scan_query(runner: QueryRunner, label: str) -> str:
    """The registry name of the query that scans ``label``'s embeddings:
    ``doctor/scan_<label in snake case>`` (``doctor/scan_semantic_unit``) when ``runner``'s
    registry holds it, else ``doctor/scan_embedded@<Label>`` (the node's ``text`` property)."""
    own = "doctor/scan_" + re.sub(r"(?<!^)([A-Z])", r"_\1", label).lower()
    registry = getattr(runner, "registry", None)
    return own if registry is None or own in registry else f"doctor/scan_embedded@{label}"


def check_embeddings(
    runner: QueryRunner,
    embedder: Embedder,
    namespace: str | None = None,
    *,
    repair: bool = False,
    batch_size: int = 500,
    max_findings: int = 10_000,
) -> DoctorReport:
    """List (and with ``repair=True`` re-embed) nodes whose embedding is missing, of another
    width than ``embedder.dimension``, non-finite or all zeros.

    The labels checked are every registered memory's ``embedded_labels``, in registry order
    (the own queries of plugin memories are added to ``runner``'s registry first).

    Args:
        runner: query runner of a migrated database.
        embedder: the configured embedder (its dimension is the expected width; repairs use it).
        namespace: one namespace, or None for every namespace holding an embedded node.
        repair: re-embed repairable nodes from their text and write the vectors back.
        batch_size: nodes per scan batch and per repair write, 1..10,000.
        max_findings: most nodes listed in ``findings`` (counting goes on), >= 0.
    Returns:
        :class:`DoctorReport`.
    Raises:
        InvalidInputError: a bad namespace, ``batch_size`` or ``max_findings``.
        EmbeddingDimensionError: the embedder returned a bad vector while repairing (nothing of
            that batch is written).
        DatabaseError: a query failed.
    """
    if not isinstance(batch_size, int) or not 1 <= batch_size <= 10_000:
        raise InvalidInputError(f"batch_size must be an int in 1..10000, got {batch_size!r}")
    if not isinstance(max_findings, int) or max_findings < 0:
        raise InvalidInputError(f"max_findings must be an int >= 0, got {max_findings!r}")
    checked = ValidatingEmbedder(embedder)
    include_memory_queries(getattr(runner, "registry", None))
    labels = embedded_labels()
    if namespace is not None:
        namespaces = [validate_namespace(namespace)]
    elif labels:
        namespaces = [r["namespace"] for r in runner.read("doctor/list_namespaces")]
    else:
        namespaces = []
    report = DoctorReport(dimension=checked.dimension, repair=repair, namespaces=namespaces)
    for ns in namespaces:
        for label in labels:
            summary = _check_label(runner, checked, ns, label, report, repair, batch_size,
                                   max_findings)
            if summary.bad:
                report.summary.append(summary)
                log.info("doctor: %s %s: %d bad, %d repaired", ns, label, summary.bad,
                         summary.repaired)
    return report


def _check_label(runner: QueryRunner, embedder: ValidatingEmbedder, namespace: str, label: str,
                 report: DoctorReport, repair: bool, batch_size: int,
                 max_findings: int) -> LabelSummary:
    summary = LabelSummary(namespace=namespace, label=label)
    after = ""
    while True:
        rows = runner.read(scan_query(runner, label), namespace=namespace,
                           dimension=embedder.dimension, after=after, batch=batch_size)
        if not rows:
            return summary
        after = rows[-1]["id"]
        found = [BadEmbedding(namespace=namespace, label=label, id=r["id"], problem=r["problem"],
                              width=r["width"]) for r in rows]
        if repair:
            _repair(runner, embedder, label, namespace, found, [r["text"] for r in rows])
        summary.bad += len(found)
        summary.repaired += sum(f.repaired for f in found)
        room = max_findings - len(report.findings)
        report.findings.extend(found[:max(room, 0)])
        report.truncated = report.truncated or room < len(found)
        if len(rows) < batch_size:
            return summary


def _repair(runner: QueryRunner, embedder: ValidatingEmbedder, label: str, namespace: str,
            found: list[BadEmbedding], texts: list[str | None]) -> None:
    if label in NOT_REEMBEDDABLE:
        for f in found:
            f.note = NOT_REEMBEDDABLE[label]
        return
    todo = []
    for f, text in zip(found, texts, strict=True):
        if isinstance(text, str) and text.strip():
            todo.append((f, text))
        else:
            f.note = "no text to re-embed from"
    if not todo:
        return
    vectors = embedder.embed_documents([text for _, text in todo])
    rows = [{"id": f.id, "embedding": [float(x) for x in v]} for (f, _), v in zip(todo, vectors)]
    runner.write(f"doctor/set_embeddings@{label}", namespace=namespace, rows=rows)
    for f, _ in todo:
        f.repaired = True
