"""``graphmem export -n NS FILE``: write a namespace to a JSON-lines file
(:mod:`graphmem.lifecycle.export`; format: docs/export-import.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from graphmem.cli.common import cli_errors, console, ingest_progress, open_memory

app = typer.Typer(help="Export a namespace to a JSON-lines file.")


@app.command("export")
def export(
    file: Path = typer.Argument(..., help="the file to write (replaced if it exists)"),
    namespace: str | None = typer.Option(None, "--namespace", "-n",
                                         help="namespace (default GRAPHMEM_NAMESPACE)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Write every node and relationship of the namespace (vectors, times and audit records
    included) to FILE, page by page; FILE appears only once it is complete."""
    from graphmem.lifecycle import namespace_nodes

    with cli_errors(), open_memory(namespace) as mem:
        total = sum(namespace_nodes(mem).values())
        if not total:
            from graphmem.cli.failures import err_console

            err_console.print(f"warning: namespace {mem.namespace!r} holds nothing: the file "
                              "will hold only its header and end line (graphmem namespaces "
                              "lists the namespaces that hold memory)", highlight=False)
        with ingest_progress(f"export {mem.namespace}", unit="node", total=total,
                             quiet=as_json) as progress:
            report = mem.export_namespace(file, progress=progress)
    if as_json:
        print(report.model_dump_json(indent=1))
        return
    say = lambda text: console.print(text, highlight=False, soft_wrap=True)  # noqa: E731
    say(f"exported namespace {report.namespace!r} to {report.path}: "
        f"{sum(report.nodes.values())} nodes, {sum(report.relationships.values())} "
        f"relationships, {report.bytes / 1e6:.1f} MB, {report.seconds:.1f} s")
    if report.skipped:
        say(f"left out (not in graphmem's schema): {report.skipped}")
