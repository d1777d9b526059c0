"""``graphmem``: the command line.

Sub-commands: ``neo4j``, ``migrate``, ``memories``, ``demo``, ``forget``, ``export``,
``import``, ``recall --memory NAME`` (any registered memory, a plugin's included), one group per
registered memory (``insight``, ``experience``, ``state``, ``associative``, ...), ``eval``,
``bench``, ``mcp`` and ``shell``. Nothing here imports torch
or the Neo4j driver at import time: ``--help`` and the commands that embed nothing never load
them (tests/unit/cli/test_light_imports.py). The global ``-v`` turns on INFO logging of the
``graphmem`` logger on stderr (``-vv``: DEBUG).

Sub-command modules are mounted from one list, :data:`COMMAND_MODULES`, each exposing ``app``
(a ``typer.Typer``; one with a single command is mounted as that command). A memory's group is
found by convention, never listed here: the module ``graphmem.cli.<name>``, else the ``cli``
module inside the memory's package (``<memory module>.cli``, e.g. ``acme_memory.cli`` for
``acme_memory:AcmeMemory``), exposing ``app``.
"""

from __future__ import annotations

import importlib
import logging
import os
import time
from pathlib import Path
from types import ModuleType

import typer
from rich.table import Table

from graphmem.progress import quiet_model_loading

quiet_model_loading()  # before anything imports transformers
# POT (experience memory's graph matching) imports torch for its optional torch backend, which
# graphmem never uses (it passes numpy arrays): without torch, commands that embed nothing
# (counts, doctor, ...) start in a fraction of a second. POT's documented switch.
os.environ.setdefault("POT_BACKEND_DISABLE_PYTORCH", "1")

import click  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

from graphmem.cli import failures  # noqa: E402
from graphmem.cli.common import cli_errors, configure_logging, console, open_memory  # noqa: E402
from graphmem.errors import InvalidInputError  # noqa: E402
from graphmem.memory import memory_names, memory_spec  # noqa: E402

logger = logging.getLogger(__name__)

class GraphmemGroup(TyperGroup):
    """The root group: every command's failure leaves through here, so every command prints
    errors the same way (:mod:`graphmem.cli.failures`) and exits with the same code per class."""

    def invoke(self, ctx: click.Context):  # noqa: D102
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort,
                typer.Exit, typer.Abort, typer.TyperException):  # typer may ship its own click
            raise
        except KeyboardInterrupt:
            raise typer.Exit(failures.report_interrupt()) from None
        except Exception as exc:  # noqa: BLE001 - the one place errors become exit codes
            raise typer.Exit(failures.report_error(exc)) from None


app = typer.Typer(
    cls=GraphmemGroup,
    name="graphmem",
    help="Graph memory for LLM agents in Neo4j.",
    no_args_is_help=True,
    add_completion=False,
)
neo4j_app = typer.Typer(help="The local Neo4j (embedded default when NEO4J_URI is unset).",
                        no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")

#: Sub-command modules that are not memories, by command name (each exposes ``app``).
COMMAND_MODULES: dict[str, str] = {
    "eval": "graphmem.cli.eval",
    "bench": "graphmem.cli.bench",
    "mcp": "graphmem.cli.mcp",
    "recall": "graphmem.cli.recall",
    "shell": "graphmem.cli.shell",
    "forget": "graphmem.cli.forget",
    "retain": "graphmem.cli.retain",
    "export": "graphmem.cli.namespace_export",
    "import": "graphmem.cli.namespace_import",
    "delete-namespace": "graphmem.cli.namespace_delete",
}


@app.callback()
def main(
    verbose: int = typer.Option(0, "--verbose", "-v", count=True,
                                help="log INFO on stderr (-vv: DEBUG)"),
    debug: bool = typer.Option(False, "--debug",
                               help="print the traceback of an error after its one-line message"),
) -> None:
    """Graph memory for LLM agents in Neo4j."""
    failures.debug["on"] = debug
    configure_logging(verbose)


def mount(name: str, sub: typer.Typer) -> None:
    """Add ``sub`` as ``graphmem NAME``: a group, or the command itself when it has exactly one
    command and no groups."""
    commands = sub.registered_commands
    if len(commands) == 1 and not sub.registered_groups:
        info = commands[0]
        app.command(name, help=info.help or sub.info.help)(info.callback)
    else:
        app.add_typer(sub, name=name)


def memory_cli_module(name: str) -> ModuleType | None:
    """The CLI module of registered memory ``name`` (see the module docstring), or None."""
    module = memory_spec(name).class_path.partition(":")[0]
    for candidate in (f"graphmem.cli.{name}", f"{module}.cli"):
        try:
            return importlib.import_module(candidate)
        except ModuleNotFoundError as exc:  # no CLI for this memory here
            if exc.name is None or not candidate.startswith(exc.name):
                raise
    return None


for _name in memory_names():
    _module = memory_cli_module(_name)
    if _module is not None:
        mount(_name, _module.app)
for _name, _path in COMMAND_MODULES.items():
    mount(_name, importlib.import_module(_path).app)


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
    if server.memory:
        console.print(f"memory: {server.memory}", highlight=False)
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
    if server.memory:
        console.print(f"memory: {server.memory}", highlight=False)
    if server.browser_link:
        console.print(f"Neo4j Browser: {server.browser_link}")


@app.command("migrate")
def migrate(
    status: bool = typer.Option(False, "--status",
                                help="list applied and pending migrations (reads only)"),
) -> None:
    """Apply pending migrations in order (a no-op when none are pending)."""
    from graphmem.config import GraphmemSettings, Neo4jSettings
    from graphmem.connect import open_migrator

    settings = GraphmemSettings()
    with cli_errors(), open_migrator(Neo4jSettings(), settings) as migrator:
        if status:
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


@app.command("memories")
def memories(
    namespace: str = typer.Option(None, "--namespace", "-n",
                                  help="tenant for the counts (default GRAPHMEM_NAMESPACE)"),
    counts: bool = typer.Option(True, "--counts/--no-counts",
                                help="add node and relationship counts when a Neo4j answers "
                                     "(never starts one)"),
    as_json: bool = typer.Option(False, "--json", help="print the list (and counts) as JSON"),
) -> None:
    """List the registered memories: name, labels, summary and, when connected, the namespace's
    nodes by label and relationships by type."""
    import json as _json

    from graphmem.memory import MEMORY_REGISTRY, load_entry_points

    load_entry_points()  # installed packages' memories too
    found = _try_counts(namespace) if counts else None
    nodes, relationships = (found["nodes"], found["relationships"]) if found else ({}, {})
    if as_json:
        print(_json.dumps([{"memory": spec.name, "labels": list(spec.labels),
                            "embedded_labels": list(spec.embedded_labels),
                            "summary": spec.summary,
                            "namespace": found["namespace"] if found else None,
                            "counts": nodes.get(spec.name),
                            "relationships": relationships.get(spec.name)}
                           for spec in MEMORY_REGISTRY.values()], indent=2))
        return
    columns = ["memory", "labels", "summary"] + (["nodes", "relationships"] if found else [])
    title = f"memories — counts in namespace {found['namespace']!r}" if found else "memories"
    table = Table(*columns, title=title)
    for spec in MEMORY_REGISTRY.values():
        row = [spec.name, ", ".join(spec.labels), spec.summary]
        if found:
            row.append(", ".join(f"{label} {n}" for label, n in
                                 nodes.get(spec.name, {}).items()) or "0")
            row.append(", ".join(f"{kind} {n}" for kind, n in
                                 relationships.get(spec.name, {}).items()) or "0")
        table.add_row(*row)
    console.print(table)


def _try_counts(namespace: str | None) -> dict | None:
    """``{"namespace", "nodes": {memory: {label: n}}, "relationships": {memory: {type: n}}}``
    from a Neo4j that already runs, or None (logged) when none answers (in ``graphmem shell``:
    through the shell's connection)."""
    from graphmem.cli.common import warm_memory
    from graphmem.config import GraphmemSettings, Neo4jSettings
    from graphmem.facade import open_memory_at
    from graphmem.errors import GraphmemError

    def answer(mem) -> dict:
        return {"namespace": mem.namespace, "nodes": mem.counts(),
                "relationships": mem.relationship_counts()}

    try:
        if warm_memory() is not None:
            from graphmem.cli.common import open_memory

            return answer(open_memory(namespace))
        with open_memory_at(Neo4jSettings(), GraphmemSettings(), namespace=namespace,
                            start_local=False) as mem:
            return answer(mem)
    except GraphmemError as exc:
        logger.info("no counts: %s", exc)
        return None


@app.command("namespaces")
def namespaces(
    as_json: bool = typer.Option(False, "--json", help="print {namespace: {memory: nodes}} as JSON"),
) -> None:
    """List the namespaces that hold memory, with their node count per memory."""
    import json as _json

    from graphmem.cli.common import open_memory
    from graphmem.cli.display import namespace_counts
    from graphmem.memory import memory_names as names

    with open_memory(None) as mem:
        counts = namespace_counts(mem)
    if as_json:
        print(_json.dumps(counts, indent=2))
        return
    if not counts:
        console.print("no namespace holds memory yet — ingest with graphmem <memory> ingest")
        return
    table = Table("namespace", *names(), "total", title="namespaces (nodes per memory)")
    for ns, per in sorted(counts.items()):
        table.add_row(ns, *(str(per.get(m, 0)) for m in names()), str(sum(per.values())))
    console.print(table)


@app.command("doctor")
def doctor(
    namespace: str | None = typer.Option(None, "-n", "--namespace",
                                         help="namespace to check (default GRAPHMEM_NAMESPACE)"),
    all_namespaces: bool = typer.Option(False, "--all", help="check every namespace"),
    repair: bool = typer.Option(False, "--repair",
                                help="re-embed repairable nodes from their text"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """List stored vectors recall would skip (missing, wrong width, NaN/infinite, all zeros);
    with --repair, re-embed them from their text."""
    with cli_errors(), open_memory(namespace) as mem:
        report = mem.check_embeddings(repair=repair, all_namespaces=all_namespaces)
    if as_json:
        print(report.model_dump_json(indent=1))
        if not report.ok:
            raise typer.Exit(1)
        return
    table = Table("namespace", "label", "bad", "repaired", title="bad embeddings")
    for row in report.summary:
        table.add_row(row.namespace, row.label, str(row.bad), str(row.repaired))
    console.print(table)
    console.print("no bad embeddings" if report.bad == 0 else
                  f"{report.bad} bad, {report.remaining} left"
                  + ("" if repair else " — run again with --repair to re-embed them"))
    if not report.ok:
        raise typer.Exit(1)


@app.command("demo")
def demo(
    data: Path | None = typer.Option(
        None, "--data", help="folder with the full datasets (locomo/, scienceworld/, fever/); "
        "default: GRAPHMEM_DATA, else the samples bundled with graphmem"),
    locomo: Path | None = typer.Option(None, help="a LoCoMo-format file (default: DATA's locomo/locomo-dev.json, else the bundled sample)"),
    namespace: str | None = typer.Option(
        None, help="tenant scope (default 'demo'; with --llm 'demo-llm'); what it holds is kept "
        "unless --reset"),
    reset: bool = typer.Option(False, "--reset", help="delete every node of the namespace "
                               "before the demo writes (asks first in a terminal)"),
    yes: bool = typer.Option(False, "--yes", "-y", help="with --reset: do not ask"),
    quick: bool = typer.Option(False, "--quick", help="bounded demo (about 2 minutes): 60 turns, "
                               "6 ScienceWorld tasks (gold only, no simulator), 12 FEVER claims, "
                               "one recall per memory"),
    science_tasks: int = typer.Option(24, min=2, help="ScienceWorld train tasks for experience memory"),
    fever_claims: int = typer.Option(40, min=1, help="FEVER claims replayed as insight feedback"),
    json_out: Path | None = typer.Option(None, "--json", help="also write the summary as JSON here"),
    llm: str | None = typer.Option(
        None, "--llm", help="'local': instead, run every LLM controller and extractor once with "
        "the packaged SmolLM2 model (needs the local-llm extra) on a slice of the bundled data, "
        "in its own namespace, and print calls, tokens and seconds per operation"),
) -> None:
    """The main job: real data into all four memories, then recalls with provenance."""
    import json as _json

    from graphmem.cli.common import confirm_reset
    from graphmem.demo import run_demo

    began = time.monotonic()
    confirm = confirm_reset(assume_yes=yes)
    with cli_errors():
        if llm is not None:
            if llm != "local":
                raise InvalidInputError(f"--llm {llm!r} is not known: use --llm local")
            from graphmem.demo import reset_namespace
            from graphmem.demo_llm import NAMESPACE, demo_model, run_llm_demo

            with console.status("Loading the local model"):
                model = demo_model()  # a missing extra fails here, before anything is written
            with open_memory(namespace or NAMESPACE) as mem:
                if reset:
                    reset_namespace(mem, console, confirm)
                summary = run_llm_demo(mem, console, llm=model)
        else:
            summary = run_demo(data, namespace or "demo", locomo, science_tasks=science_tasks,
                               fever_claims=fever_claims, console=console, quick=quick,
                               reset=reset, confirm=confirm)
    console.print(f"demo finished in {time.monotonic() - began:.0f} s")
    if json_out:
        json_out.write_text(_json.dumps(summary, indent=2, default=str))


if __name__ == "__main__":
    app()
