"""``graphmem recall --memory NAME QUERY``: recall from any registered memory, a plugin's
included (registered at run time or through the ``graphmem.memories`` entry-point group), without
a CLI module of its own. The memories' own groups (``graphmem state recall ...``) keep their
memory-specific options."""

from __future__ import annotations

import json

import typer

from graphmem.cli.common import cli_errors, console, open_memory, print_recall
from graphmem.recall_options import DEFAULT_K

app = typer.Typer(help="Recall from any registered memory.")


@app.command("recall")
def recall(
    query: str = typer.Argument(..., help="the question or task to recall for"),
    memory: str = typer.Option(..., "--memory", "-m",
                               help="a registered memory (graphmem memories lists them)"),
    namespace: str = typer.Option(None, "--namespace", "-n",
                                  help="tenant namespace (default GRAPHMEM_NAMESPACE)"),
    k: int = typer.Option(DEFAULT_K, "--k", "-k", min=1, help="items returned"),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """The K best items of memory MEMORY for QUERY, with their scores and source ids: the
    memory's own recall with its default options. An unknown memory is refused with the list
    of the registered ones, before any connection is made."""
    from graphmem.cli.display import explain_missing
    from graphmem.memory_registry import load_entry_points, memory_spec

    with cli_errors():
        load_entry_points()  # installed packages' memories too
        memory_spec(memory)
        with open_memory(namespace) as mem:
            if not as_json and explain_missing(console, mem, memory):
                return
            result = mem.memory(memory).recall(query, k=k)
            if as_json:
                print(json.dumps(result.to_json_dict(), indent=2))
                return
            print_recall(result, mem=mem)
