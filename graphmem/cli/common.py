"""Shared CLI helpers: settings at the edge, the runner, the facade, error display."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from graphmem.errors import GraphmemError

console = Console()
err_console = Console(stderr=True)


@contextmanager
def cli_errors() -> Iterator[None]:
    """Print a :class:`GraphmemError` as one red line and exit with status 1."""
    try:
        yield
    except GraphmemError as exc:
        err_console.print(f"[red]error:[/red] {type(exc).__name__}: {exc}")
        raise typer.Exit(1) from exc


def open_memory(namespace: str | None = None):
    """The :class:`GraphMemory` facade from the environment (migrates pending migrations)."""
    from graphmem.facade import GraphMemory

    return GraphMemory.from_settings(namespace=namespace, migrate=True)


def print_llm_summary(usage, path: str) -> None:
    """Print the LLM accounting line of a command, e.g. ``LLM calls: 0 (heuristic path)``.

    Args:
        usage: the :class:`graphmem.llm.LLMUsage` of the command's operation(s).
        path: ``"heuristic"``, ``"llm"`` or ``"retrieval"`` (no controller involved).
    """
    from rich.markup import escape

    from graphmem.llm import describe_usage

    console.print(f"[dim]{escape(describe_usage(usage, path))}[/dim]")
