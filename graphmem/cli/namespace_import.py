"""``graphmem import -n NS FILE``: write a namespace export into an empty namespace, or resume
the interrupted import of the same file (:mod:`graphmem.lifecycle.import_`)."""

from __future__ import annotations

from pathlib import Path

import typer

from graphmem.cli.common import cli_errors, console, ingest_progress, open_memory
from graphmem.cli.failures import require_path

app = typer.Typer(help="Import a namespace export into an empty namespace.")


@app.command("import")
def import_(
    file: Path = typer.Argument(..., help="a file written by graphmem export"),
    namespace: str | None = typer.Option(None, "--namespace", "-n",
                                         help="the empty namespace to fill (default "
                                              "GRAPHMEM_NAMESPACE); another name than the "
                                              "exported one maps every id"),
    actor: str | None = typer.Option(None, "--actor",
                                     help="who imports (kept on the import's audit record)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Check every line of FILE, then write it in batches of one transaction each. Refuses a
    namespace that holds nodes, unless it holds this file's interrupted import: running the
    same command again resumes it."""
    from graphmem.errors import InvalidInputError
    from graphmem.lifecycle import import_namespace, read_end
    from graphmem.lifecycle.import_ import read_header

    with cli_errors():
        if Path(require_path(file)).is_dir():
            raise InvalidInputError(f"{file} is a folder: give the path of an export file")
        read_header(file)  # first: a file that is no export is named as such
        total = read_end(file).lines
        with open_memory(namespace) as mem, \
                ingest_progress(f"import into {mem.namespace}", unit="line", total=total,
                                quiet=as_json) as progress:
            report = import_namespace(mem, file, progress=progress, actor=actor)
    if as_json:
        print(report.model_dump_json(indent=1))
        return
    say = lambda text: console.print(text, highlight=False, soft_wrap=True)  # noqa: E731
    if report.already_complete:
        say(f"{report.path} is already imported into {report.namespace!r} (audit record "
            f"{report.audit_id}): nothing to do")
        return
    resumed = f" (resumed after {report.resumed_from})" if report.resumed_from else ""
    say(f"imported {report.path} into {report.namespace!r}: {report.lines} lines{resumed}, "
        f"{sum(report.nodes.values())} nodes and {sum(report.relationships.values())} "
        f"relationships written, {report.seconds:.1f} s; audit record {report.audit_id}")
    if report.source_namespace != report.namespace:
        say(f"ids of namespace {report.source_namespace!r}: re-derived for "
            f"{sum(report.rederived.values())} nodes, mapped for "
            f"{sum(report.mapped.values())} {report.mapped}")
