"""``graphmem experience``: build the Experience Memory Graph, generate explorations, recall."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from tqdm import tqdm

from graphmem.cli.common import cli_errors, console, open_memory, print_ingest, print_recall

app = typer.Typer(help="Experience memory (EMG): action decision graphs, corrections, workflows.",
                  no_args_is_help=True)

DEFAULT_EXPLORATIONS = Path(".graphmem") / "explorations"


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
    with cli_errors():
        with open_memory(namespace) as mem, \
                tqdm(unit="task", desc="ingest", disable=as_json) as bar:
            report = mem.experience.ingest_files(trajectories, explorations, limit=limit, k=k,
                                                 tau=tau, progress=bar.update)
    if as_json:
        print(report.model_dump_json(indent=2))
    else:
        print_ingest(report)


@app.command("explore")
def explore(
    gold: Path = typer.Argument(..., help="ScienceWorld gold JSONL (e.g. sciworld_gold_train.jsonl)"),
    out: Path | None = typer.Option(None, "--out", help="output JSONL (default .graphmem/explorations/<gold name>)"),
    per_task_type: int | None = typer.Option(None, "--per-task-type", help="at most N tasks per task type"),
    limit: int | None = typer.Option(None, "--limit", help="at most N tasks"),
    epsilon: float = typer.Option(0.15, "--epsilon", help="noise probability per gold step"),
    seed: int = typer.Option(0, "--seed"),
    max_seconds: float = typer.Option(600.0, "--max-seconds", help="stop starting episodes after this"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Run the seeded noisy-expert policy in the real ScienceWorld simulator (a stand-in for an
    LLM agent's exploration) and append the runs to a JSONL outside the data folder."""
    from graphmem.experience.explore import generate_explorations, select_records

    target = out or DEFAULT_EXPLORATIONS / gold.name.replace("_gold", "_explorations")
    with cli_errors():
        records = select_records(gold, per_task_type=per_task_type, limit=limit)
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
    k: int = typer.Option(3, "--k", "-k", help="top-K tasks"),
    t: int = typer.Option(2, "--t", help="top-T cross-task edges per task"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Recall intra- and cross-task insights for a new task (EMG eq. 7)."""
    with cli_errors():
        with open_memory(namespace) as mem:
            result = mem.experience.recall(task, k=k, t=t, with_rules=as_json)
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    print_recall(result, extra=("reward",), path="retrieval")
