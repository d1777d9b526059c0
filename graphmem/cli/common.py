"""Shared CLI helpers: settings at the edge, the facade, logging, error display, and the generic
printing of recall results and ingest reports (the same for every memory)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from graphmem.errors import GraphmemError

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory
    from graphmem.memory import IngestReport, RecallResult

console = Console()
from graphmem.cli.failures import err_console  # noqa: E402


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
    """Print a :class:`GraphmemError` as one line on stderr and exit with its class's code
    (:mod:`graphmem.cli.failures`); the root group does the same for every command."""
    from graphmem.cli.failures import report_error

    try:
        yield
    except GraphmemError as exc:
        raise typer.Exit(report_error(exc)) from exc


#: What a long-running process (``graphmem shell``) keeps open: ``"memory"``, its facade, and
#: ``"scoped"``, one borrowed facade per namespace used so far. While set, :func:`open_memory`
#: returns those instead of connecting again.
_warm: dict[str, Any] = {}


@contextmanager
def keep_warm(mem: GraphMemory) -> Iterator[GraphMemory]:
    """Within the block, every :func:`open_memory` of this process returns ``mem.scoped(ns)``,
    one per namespace, kept for the block: the same Neo4j connection, the same loaded embedding
    model and the same memory instances (with what they cache between calls, as in a
    long-lived in-process facade). ``mem`` is not closed here.

    Raises:
        InvalidInputError: a facade is kept warm already (blocks do not nest).
    """
    from graphmem.errors import InvalidInputError

    if "memory" in _warm:
        raise InvalidInputError("a facade is kept warm already in this process")
    _warm.update(memory=mem, scoped={})
    try:
        yield mem
    finally:
        _warm.clear()


def warm_memory() -> GraphMemory | None:
    """The facade :func:`keep_warm` holds, or None (a one-shot command)."""
    return _warm.get("memory")


def open_memory(namespace: str | None = None) -> GraphMemory:
    """The :class:`GraphMemory` facade from the environment (applies pending migrations);
    ``namespace`` None means ``GRAPHMEM_NAMESPACE``. Use it as a context manager.

    Inside :func:`keep_warm` (``graphmem shell``) it is the warm facade's scoped facade for
    ``namespace`` (None: the warm facade's own namespace); closing it leaves the connection
    open.

    Raises:
        InvalidInputError: a bad namespace. The errors of
        :meth:`GraphMemory.from_settings <graphmem.facade.GraphMemory.from_settings>`.
    """
    warm = _warm.get("memory")
    if warm is not None:
        ns = warm.namespace if namespace is None else namespace
        scoped = _warm["scoped"]
        if ns not in scoped:
            scoped[ns] = warm.scoped(ns)
        return scoped[ns]
    from graphmem.facade import GraphMemory

    return GraphMemory.from_settings(namespace=namespace, migrate=True)


def confirm_reset(assume_yes: bool = False) -> Callable[[str, int], bool]:
    """The question ``--reset`` asks before it deletes a namespace: ``confirm(namespace,
    nodes)``. In a terminal (stdin a tty) it is typer's confirm prompt, default no; no aborts
    the command (exit 1) with nothing deleted. Outside a terminal, or with ``assume_yes``
    (``--yes``), the flag itself is the answer (True)."""
    import sys

    def confirm(namespace: str, nodes: int) -> bool:
        if assume_yes or not sys.stdin.isatty():
            return True
        return typer.confirm(f"Delete all {nodes} nodes of namespace {namespace!r}?",
                             default=False, abort=True)

    return confirm


def print_llm_summary(usage: Any, path: str) -> None:
    """Print the LLM accounting line of a command, e.g. ``LLM calls: 0 (heuristic path)``.

    Args:
        usage: the :class:`graphmem.llm.LLMUsage` of the command's operation(s).
        path: ``"heuristic"``, ``"llm"`` or ``"retrieval"`` (no controller involved).
    """
    from graphmem.llm import describe_usage

    console.print(f"[dim]{escape(describe_usage(usage, path))}[/dim]")


def print_recall(result: RecallResult, *, mem: GraphMemory | None = None,
                 path: str | None = None) -> None:
    """A recall result for a person: one line per round, the memory's table (or why it is
    empty, when ``mem`` is given to ask the database), then the LLM line (``path`` default: the
    result's controller; ``"retrieval"`` for recalls without a controller)."""
    from graphmem.cli.display import experience_table, explain_empty, print_rounds, recall_table

    print_rounds(console, result)
    if not result.items and mem is not None:
        explain_empty(console, mem, result)
    elif result.memory == "experience":
        console.print(experience_table(result))
    else:
        console.print(recall_table(result))
    print_llm_summary(result.llm_usage, path or result.controller)


def print_ingest(report: IngestReport) -> None:
    """One line of an ingest report (counts from the database's answer), its details, then
    the LLM line."""
    from graphmem.cli.display import ingest_line

    console.print(escape(ingest_line(report)), highlight=False)
    for key, value in report.details.items():
        if isinstance(value, list) and len(value) > 3:
            value = f"{len(value)} entries (--json shows them)"
        console.print(escape(f"  {key}: {value}"), highlight=False)
    print_llm_summary(report.llm_usage, report.extractor)


def stored_turns(mem: GraphMemory, memory: str, conversations: Any) -> int:
    """Turns of ``conversations`` whose unit ``memory`` (``"state"``: Events,
    ``"associative"``: Episodes) holds in ``mem``'s namespace: the database's answer, one count
    query per conversation (what an interrupted ingest committed).

    Raises:
        UnknownQueryError: a memory without a ``<memory>/count_stored_turns`` query.
        DatabaseError subclasses.
    """
    total = 0
    for conv in conversations:
        rows = mem.query(f"{memory}/count_stored_turns", conversation=conv.id,
                         source_ids=list(dict.fromkeys(t.source_id for t in conv.turns)))
        total += int(rows[0]["stored"]) if rows else 0
    return total


@contextmanager
def ingest_progress(description: str, *, unit: str, total: int | None = None,
                    quiet: bool = False) -> Iterator[Any]:
    """The progress convention of :mod:`graphmem.progress` on stderr; yields ``progress(n)``."""
    from graphmem.progress import track

    with track(description, unit=unit, total=total, console=err_console,
               disable=quiet) as tracker:
        yield tracker
