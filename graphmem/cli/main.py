"""``graphmem``: the command line. Sub-commands: ``neo4j``, ``migrate``, one group per
memory (``insight``, ``experience``, ``state``, ``associative``), ``eval`` and ``bench``."""

from __future__ import annotations

import importlib
import time
from pathlib import Path

import typer
from rich.table import Table

from graphmem.cli.common import cli_errors, console

app = typer.Typer(
    name="graphmem",
    help="Graph memory for LLM agents in Neo4j.",
    no_args_is_help=True,
    add_completion=False,
)
neo4j_app = typer.Typer(help="The local Neo4j (embedded default when NEO4J_URI is unset).",
                        no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")

for _memory in ("insight", "experience", "state", "associative"):
    try:
        _module = importlib.import_module(f"graphmem.cli.{_memory}")
    except ModuleNotFoundError as _exc:  # a memory whose CLI is not installed
        if _exc.name != f"graphmem.cli.{_memory}":
            raise
        continue
    app.add_typer(_module.app, name=_memory)

for _command in ("eval", "bench"):  # single-command modules: graphmem eval / graphmem bench
    _module = importlib.import_module(f"graphmem.cli.{_command}")
    app.command(_command, help=_module.__doc__)(_module.command)


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Build the launcher on first use, start Neo4j on 127.0.0.1 and wait until Bolt answers.

    Taken default ports move to the next free ones (recorded for later commands); ports set
    with GRAPHMEM_BOLT_PORT / GRAPHMEM_BROWSER_PORT fail at once when taken."""
    from graphmem.config import GraphmemSettings, Neo4jSettings
    from graphmem.connect import launch_local

    with cli_errors():
        settings = GraphmemSettings()
        began = time.monotonic()
        server = launch_local(settings, Neo4jSettings())
    console.print(f"neo4j running: {server.bolt_uri} (Neo4j {server.version}, "
                  f"auth {'on' if server.auth else 'off'}, pid {server.pid}, "
                  f"{time.monotonic() - began:.1f} s)")
    if server.bolt_port != settings.bolt_port:
        console.print(f"Bolt port {settings.bolt_port} was in use: using {server.bolt_port}")
    if server.browser_link:
        console.print(f"Neo4j Browser: {server.browser_link}")


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j."""
    from graphmem import neo4j_local
    from graphmem.config import GraphmemSettings

    stopped = neo4j_local.stop(GraphmemSettings().home)
    console.print("neo4j stopped" if stopped else "neo4j was not running")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Print the Bolt URI of the running local Neo4j, or say it is down (exit 1)."""
    from graphmem import neo4j_local
    from graphmem.config import GraphmemSettings

    server = neo4j_local.status(GraphmemSettings().home)
    if server is None:
        console.print("neo4j is down")
        raise typer.Exit(1)
    version = f"Neo4j {server.version}, " if server.version else ""
    console.print(f"neo4j running: {server.bolt_uri} ({version}auth "
                  f"{'on' if server.auth else 'off'}, pid {server.pid})")
    if server.browser_link:
        console.print(f"Neo4j Browser: {server.browser_link}")


@app.command("migrate")
def migrate(
    status: bool = typer.Option(False, "--status", help="list applied and pending migrations"),
) -> None:
    """Apply pending migrations in order (a no-op when none are pending)."""
    from graphmem.config import GraphmemSettings, Neo4jSettings
    from graphmem.connect import open_runner
    from graphmem.graph.migrations import Migrator

    settings = GraphmemSettings()
    with cli_errors(), open_runner(Neo4jSettings(), settings) as runner:
        migrator = Migrator(runner, vector_dimension=settings.vector_dimension)
        if status:
            migrator._bootstrap()
            state = migrator.status()
            table = Table("version", "name", "state", "applied at", "checksum")
            for row in state.applied:
                table.add_row(f"V{row['version']:04d}", row["name"], "applied",
                              row["applied_at"], row["checksum"][:12])
            for m in state.pending:
                table.add_row(f"V{m.version:04d}", m.name, "pending", "", m.checksum[:12])
            console.print(table)
            return
        applied = migrator.migrate()
    if applied:
        for m in applied:
            console.print(f"applied V{m.version:04d}__{m.name}")
    else:
        console.print("nothing to apply: the database is up to date")


@app.command("demo")
def demo(
    data: Path = typer.Option(Path("../shared/data"), help="real-data folder (locomo/, scienceworld/, fever/)"),
    locomo: Path | None = typer.Option(None, help="a LoCoMo-format file (default: DATA/locomo/locomo-dev.json)"),
    namespace: str = typer.Option("demo", help="tenant scope; rebuilt from scratch"),
    science_tasks: int = typer.Option(24, min=2, help="ScienceWorld train tasks for experience memory"),
    fever_claims: int = typer.Option(40, min=1, help="FEVER claims replayed as insight feedback"),
    json_out: Path | None = typer.Option(None, "--json", help="also write the summary as JSON here"),
) -> None:
    """The main job: real data into all four memories, then recalls with provenance."""
    import json as _json

    from graphmem.demo import run_demo

    began = time.monotonic()
    with cli_errors():
        summary = run_demo(data, namespace, locomo, science_tasks=science_tasks,
                           fever_claims=fever_claims, console=console)
    console.print(f"demo finished in {time.monotonic() - began:.0f} s")
    if json_out:
        json_out.write_text(_json.dumps(summary, indent=2, default=str))


if __name__ == "__main__":
    app()
