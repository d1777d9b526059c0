"""Shared CLI helpers: settings at the edge, the facade, logging, error display, and the generic
printing of recall results and ingest reports (the same for every memory)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from graphmem.errors import GraphmemError

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory
    from graphmem.memory import IngestReport, RecallResult

console = Console()
err_console = Console(stderr=True)


def configure_logging(verbosity: int) -> None:
    """``-v`` → INFO, ``-vv`` → DEBUG for the ``graphmem`` logger, on stderr (rich); 0 leaves
    logging alone (the library only has a ``NullHandler``)."""
    if verbosity <= 0:
        return
    from rich.logging import RichHandler

    level = logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", datefmt="[%X]",
                        handlers=[RichHandler(console=err_console, show_path=False)], force=True)
    logging.getLogger("graphmem").setLevel(level)


@contextmanager
def cli_errors() -> Iterator[None]:
    """Print a :class:`GraphmemError` as one red line and exit with status 1."""
    try:
        yield
    except GraphmemError as exc:
        err_console.print(f"[red]error:[/red] {type(exc).__name__}: {escape(str(exc))}")
        raise typer.Exit(1) from exc


def open_memory(namespace: str | None = None) -> GraphMemory:
    """The :class:`GraphMemory` facade from the environment (applies pending migrations);
    ``namespace`` None means ``GRAPHMEM_NAMESPACE``. Use it as a context manager."""
    from graphmem.facade import GraphMemory

    return GraphMemory.from_settings(namespace=namespace, migrate=True)


def print_llm_summary(usage: Any, path: str) -> None:
    """Print the LLM accounting line of a command, e.g. ``LLM calls: 0 (heuristic path)``.

    Args:
        usage: the :class:`graphmem.llm.LLMUsage` of the command's operation(s).
        path: ``"heuristic"``, ``"llm"`` or ``"retrieval"`` (no controller involved).
    """
    from graphmem.llm import describe_usage

    console.print(f"[dim]{escape(describe_usage(usage, path))}[/dim]")


def print_recall(result: RecallResult, *, extra: tuple[str, ...] = (),
                 path: str | None = None) -> None:
    """A recall result as a table (rank, kind, score, source ids, ``extra`` item fields, text)
    after one line per round; then the LLM line (``path`` default: the result's controller;
    ``"retrieval"`` for recalls without a controller)."""
    for rnd in result.rounds:
        added = f" (+{len(rnd.added)})" if rnd.added else ""
        console.print(escape(f"  round {rnd.number}: {rnd.action}{added}  {rnd.reason}"))
    table = Table("rank", "kind", "score", "source ids", *extra, "text",
                  title=escape(f"{result.memory} recall: {result.query}"))
    for rank, item in enumerate(result.items, 1):
        values = [_short(getattr(item, name, None)) for name in extra]
        table.add_row(str(rank), item.kind, f"{item.score:.4g}", escape(",".join(item.source_ids[:4])),
                      *values, escape(item.text[:100]))
    console.print(table)
    print_llm_summary(result.llm_usage, path or result.controller)


def _short(value: Any) -> str:
    if value is None:
        return ""
    if hasattr(value, "date") and callable(value.date):
        return value.date().isoformat()
    if isinstance(value, float):
        return f"{value:.3g}"
    return escape(str(value))[:40]


def print_ingest(report: IngestReport) -> None:
    """One line of an ingest report: inputs, created and skipped per kind, seconds; then the
    LLM line."""
    created = ", ".join(f"{n} {kind}" for kind, n in report.created.items()) or "nothing new"
    skipped = ", ".join(f"{n} {kind}" for kind, n in report.skipped.items())
    console.print(escape(f"[{report.extractor}] {report.memory} memory, namespace "
                         f"{report.namespace}: {report.inputs} inputs; created {created}"
                         + (f"; skipped {skipped}" if skipped else "")
                         + f" in {report.seconds:.1f} s"))
    for key, value in report.details.items():
        console.print(escape(f"  {key}: {value}"))
    print_llm_summary(report.llm_usage, report.extractor)
