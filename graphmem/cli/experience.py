"""``graphmem experience``: build the Experience Memory Graph, generate explorations, recall."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from graphmem.cli.common import (
    cli_errors,
    console,
    ingest_progress,
    open_memory,
    print_ingest,
    print_recall,
)
from graphmem.cli.failures import require_path
from graphmem.recall_options import DEFAULT_K

app = typer.Typer(help="Experience memory (EMG): action decision graphs, corrections, workflows.",
                  no_args_is_help=True)

@app.command("ingest")
def ingest(
    trajectories: Path = typer.Argument(..., help="expert trajectories: ScienceWorld JSONL, ALFWorld folder, generic JSON/JSONL"),
    explorations: Path | None = typer.Option(None, "--explorations", help="exploration JSONL (same task ids)"),
    namespace: str | None = typer.Option(None, "--namespace", "-n", help="tenant namespace"),
    limit: int | None = typer.Option(None, "--limit", help="use only the first N expert tasks"),
    k: int = typer.Option(3, "--k", "-k", help="SIMILAR_TASK neighbours per task"),
    tau: float = typer.Option(0.5, "--tau", help="minimum cosine for SIMILAR_TASK"),
    as_json: bool = typer.Option(False, "--json", help="print the ingest report as JSON"),
) -> None:
    """Build (or rebuild; nothing is duplicated) the memory graph from trajectories."""
    require_path(trajectories, "trajectory file")
    if explorations is not None:
        require_path(explorations, "exploration file")
    with ingest_progress("experience ingest", unit="task", total=limit,
                         quiet=as_json) as progress, open_memory(namespace) as mem:
        report = mem.experience.ingest_files(trajectories, explorations, limit=limit, k=k,
                                             tau=tau, progress=progress)
    if as_json:
        print(report.model_dump_json(indent=2))
    else:
        print_ingest(report)


@app.command("explore")
def explore(
    gold: Path = typer.Argument(..., help="ScienceWorld gold JSONL (e.g. sciworld_gold_train.jsonl)"),
    out: Path | None = typer.Option(None, "--out", help="output JSONL (default GRAPHMEM_HOME/explorations/<gold name>)"),
    per_task_type: int | None = typer.Option(None, "--per-task-type", help="at most N tasks per task type"),
    limit: int | None = typer.Option(None, "--limit", help="at most N tasks"),
    epsilon: float = typer.Option(0.15, "--epsilon", help="noise probability per gold step"),
    seed: int = typer.Option(0, "--seed", help="random seed of the noisy policy"),
    max_seconds: float = typer.Option(600.0, "--max-seconds", help="stop starting episodes after this"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
) -> None:
    """Run the seeded noisy-expert policy in the real ScienceWorld simulator (a stand-in for an
    LLM agent's exploration) and append the runs to a JSONL outside the data folder."""
    from graphmem.experience.explore import generate_explorations, select_records

    from graphmem.config import GraphmemSettings

    target = out or (GraphmemSettings().home / "explorations"
                     / gold.name.replace("_gold", "_explorations"))
    with cli_errors():
        records = select_records(require_path(gold, 'gold file'), per_task_type=per_task_type, limit=limit)
        with Progress(TextColumn("explore"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, disable=as_json) as bar:
            task = bar.add_task("explore", total=len(records))
            summary = generate_explorations(records, target, epsilon=epsilon, seed=seed,
                                            max_seconds=max_seconds,
                                            progress=lambda run: bar.advance(task))
    summary["out"] = str(target)
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        console.print(f"wrote {summary['written']} explorations to {target} "
                      f"({summary['skipped']} already there) in {summary['seconds']} s")


@app.command("recall")
def recall(
    task: str = typer.Argument(..., help="the new task's query"),
    namespace: str | None = typer.Option(None, "--namespace", "-n", help="tenant namespace"),
    k: int = typer.Option(DEFAULT_K, "--k", "-k", help="top-K tasks"),
    t: int = typer.Option(2, "--t", help="top-T cross-task edges per task"),
    as_json: bool = typer.Option(False, "--json", help="print the full result as JSON"),
) -> None:
    """Recall intra- and cross-task insights for a new task (EMG eq. 7)."""
    from graphmem.cli.display import explain_missing

    with open_memory(namespace) as mem:
        if not as_json and explain_missing(console, mem, "experience"):
            return
        result = mem.experience.recall(task, k=k, t=t, with_rules=True)
        if as_json:
            print(result.model_dump_json(indent=2))
            return
        print_recall(result, mem=mem, path="retrieval")
