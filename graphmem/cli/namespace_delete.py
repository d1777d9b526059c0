"""``graphmem delete-namespace -n NS [--dry-run] [--yes] [--json] [--batch-size N]``: delete
every node of one namespace (:meth:`graphmem.facade.GraphMemory.delete_namespace`), after
showing what it holds and asking."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

import typer

from graphmem.cli.common import cli_errors, console, ingest_progress, open_memory
from graphmem.cli.failures import err_console

logger = logging.getLogger(__name__)

app = typer.Typer(help="Delete every node of a namespace, after showing what it holds (asks in a "
                  "terminal; --yes outside one; --dry-run deletes nothing).")


@app.command("delete-namespace")
def delete_namespace(
    namespace: str = typer.Option(..., "--namespace", "-n",
                                  help="the namespace to delete (required: there is no default)"),
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="show what the namespace holds; delete nothing"),
    yes: bool = typer.Option(False, "--yes", "-y", help="do not ask (needed outside a terminal)"),
    batch_size: int = typer.Option(10_000, "--batch-size", min=1,
                                   help="nodes deleted per write transaction"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Delete every node of the namespace (every memory's nodes, its audit records and its
    retention policy) with their relationships; other namespaces are not touched. Shows the
    nodes per memory first and asks in a terminal; outside a terminal it needs --yes. A
    namespace that holds nothing is left alone. This cannot be undone (graphmem export writes
    a namespace to a file first)."""
    with cli_errors(), open_memory(namespace) as mem:
        report = preview(mem)
        report["dry_run"] = dry_run
        if not report["total"] or dry_run:
            _show(report, as_json)
            return
        if not as_json:
            _show(report, as_json=False)  # what is about to go, before the question
        if not yes:
            if not sys.stdin.isatty():
                err_console.print(f"would delete {report['total']} nodes of namespace "
                                  f"{mem.namespace!r}: add --yes to delete them outside a "
                                  "terminal (nothing deleted)", highlight=False)
                raise typer.Exit(2)
            typer.confirm(f"Delete all {report['total']} nodes of namespace {mem.namespace!r}? "
                          "This cannot be undone", default=False, abort=True, err=True)
        began = time.monotonic()
        report["deleted"] = _delete(mem, batch_size, report["total"], quiet=as_json)
        report["seconds"] = round(time.monotonic() - began, 3)
    logger.info("delete-namespace %r: %d nodes in %.2f s", report["namespace"],
                report["deleted"], report["seconds"])
    _show(report, as_json, done=True)


def preview(mem: Any) -> dict[str, Any]:
    """What deleting ``mem``'s namespace would delete: ``{"namespace", "nodes": {memory: {label:
    n}}, "bookkeeping": {label: n}, "total", "deleted": 0, "seconds": 0.0}``; memories and labels
    without nodes are left out, ``bookkeeping`` counts its audit records and retention policy.

    Raises:
        DatabaseError subclasses.
    """
    from graphmem.lifecycle import namespace_nodes
    from graphmem.schema import BOOKKEEPING_LABELS

    nodes = {memory: {label: n for label, n in per.items() if n}
             for memory, per in mem.counts().items()}
    nodes = {memory: per for memory, per in nodes.items() if per}
    labels = namespace_nodes(mem)
    bookkeeping = {kind.__name__: labels[kind.__name__] for kind in BOOKKEEPING_LABELS
                   if labels.get(kind.__name__)}
    total = sum(n for per in nodes.values() for n in per.values()) + sum(bookkeeping.values())
    return {"namespace": mem.namespace, "nodes": nodes, "bookkeeping": bookkeeping,
            "total": total, "deleted": 0, "seconds": 0.0}


def _delete(mem: Any, batch_size: int, total: int, quiet: bool) -> int:
    """``mem.delete_namespace(batch_size)`` with the count of deleted nodes on stderr (the
    progress convention of :mod:`graphmem.progress`; none with ``quiet``)."""
    with ingest_progress(f"delete {mem.namespace}", unit="node", total=total,
                         quiet=quiet) as progress:
        return mem.delete_namespace(batch_size, progress=progress)


def _show(report: dict[str, Any], as_json: bool, done: bool = False) -> None:
    """The report as JSON, or for a person: the nodes per memory (a preview), or what was
    deleted (``done``)."""
    if as_json:
        print(json.dumps(report, indent=1))
        return
    say = lambda text: console.print(text, highlight=False, soft_wrap=True)  # noqa: E731
    name = report["namespace"]
    if not report["total"]:
        say(f"namespace {name!r} holds nothing: nothing to delete (graphmem namespaces lists "
            "the namespaces that hold memory)")
        return
    if done:
        say(f"deleted {report['deleted']} nodes of namespace {name!r} in "
            f"{report['seconds']:.1f} s")
        return
    say(f"namespace {name!r} holds {report['total']} nodes:")
    for memory, per in report["nodes"].items():
        say(f"  {memory}: {sum(per.values())} ("
            + ", ".join(f"{label} {n}" for label, n in per.items()) + ")")
    if report["bookkeeping"]:
        say("  bookkeeping: " + ", ".join(f"{label} {n}" for label, n in
                                          report["bookkeeping"].items()))
    if report["dry_run"]:
        say("dry run: nothing deleted")
