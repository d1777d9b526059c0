"""``graphmem insight``: recall, feedback and replay for the insight memory (EvoGraph-Mem)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from graphmem.cli.common import (
    cli_errors,
    console,
    ingest_progress,
    open_memory,
    print_ingest,
    print_llm_summary,
    print_recall,
)
from graphmem.cli.failures import require_path
from graphmem.llm import LLMUsage
from graphmem.recall_options import DEFAULT_K

app = typer.Typer(help="Insight memory (EvoGraph-Mem): recall, feedback, replay.",
                  no_args_is_help=True)

_OPS_HELP = "controller operations: add_keep | add_keep_archive | all"


@app.command("recall")
def recall(
    query: str = typer.Argument(..., help="the new task's query"),
    k: int = typer.Option(DEFAULT_K, "--k", "-k", help="insights returned (top-B, eq. 10)"),
    query_k: int = typer.Option(None, "--query-k", help="similar queries (eq. 2; default 5)"),
    lam: float = typer.Option(None, "--lambda", help="conflict penalty λ ≥ 0 (eq. 8; default 1)"),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant (default GRAPHMEM_NAMESPACE)"),
    as_of: str = typer.Option(None, "--as-of", help="answer as at this ISO 8601 time with an "
                              "offset (insights recorded and active then)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Top-k active insights for QUERY with s, c, r = s − λc and their evidence query ids."""
    from graphmem.time_travel import parse_as_of

    from graphmem.cli.display import explain_missing

    with cli_errors(), open_memory(namespace) as mem:
        if not as_json and explain_missing(console, mem, "insight"):
            return
        result = mem.insight.recall(query, k=k, query_k=query_k, lam=lam,
                                    as_of=parse_as_of(as_of))
        if as_json:
            print(result.model_dump_json(indent=2))
            return
        print_recall(result, mem=mem, path="retrieval")


@app.command("ingest")
def ingest(
    file: Path = typer.Argument(..., help="JSONL: {query, status, trajectory, retrieved?, task_id?}"),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant (default GRAPHMEM_NAMESPACE)"),
    as_json: bool = typer.Option(False, "--json", help="print the ingest report as JSON"),
) -> None:
    """Feedback for each record of FILE in order, one transaction per record; records already
    stored are skipped, so re-running resumes.

    Every line is validated before anything is written (a bad line names its number)."""
    from graphmem.insight import read_feedback_file

    items = read_feedback_file(require_path(file, "feedback file"))
    with ingest_progress("insight ingest", unit="task", total=len(items),
                         quiet=as_json) as progress, open_memory(namespace) as mem:
        report = mem.insight.ingest(items, progress=progress)
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    print_ingest(report)


@app.command("feedback")
def feedback(
    file: Path = typer.Argument(..., help="JSONL: {query, status, trajectory, retrieved?, task_id?}"),
    operations: str = typer.Option("all", "--operations", help=_OPS_HELP),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Record post-task feedback and let the graph controller keep/archive/revise/add.

    Every line is validated before anything is written (a bad line names its number)."""
    from graphmem.insight import OperationSet, read_feedback_file

    items = read_feedback_file(require_path(file, "feedback file"))
    ops = OperationSet(operations)
    with ingest_progress("insight feedback", unit="task", total=len(items),
                         quiet=as_json) as progress, open_memory(namespace) as mem:
        memory = mem.insight
        results = []
        for x in items:
            results.append(memory.feedback(x.query, x.status, x.trajectory, x.retrieved,
                                           task_id=x.task_id, operation_set=ops))
            progress(1)
        controller = memory.controller
        total, path = memory.llm_usage, getattr(controller, "name", controller)
    if as_json:
        print(json.dumps([r.model_dump(mode="json") for r in results], indent=1))
        return
    table = Table("query id", "status", "controller", "decisions", "added")
    for r in results:
        ops_text = ", ".join(f"{d.operation}" + (f"({d.insight_id[:8]})" if d.insight_id else "")
                             for d in r.decisions)
        table.add_row(r.query_id[:8], r.status, r.controller, ops_text,
                      (r.added_insight_id or "")[:8])
    console.print(table)
    print_llm_summary(total, path)


@app.command("replay")
def replay(
    dataset: str = typer.Argument(..., help="fever | scienceworld | path to a JSONL file"),
    limit: int = typer.Option(60, "--limit", help="tasks, in file order"),
    k: int = typer.Option(3, "--k", "-k", help="insights recalled per task (top-B)"),
    query_k: int = typer.Option(5, "--query-k", help="similar queries (eq. 2)"),
    lam: list[float] = typer.Option([1.0], "--lambda", help="λ; repeat to sweep (e.g. --lambda 0 --lambda 2)"),
    operations: list[str] = typer.Option(["all"], "--operations", help=_OPS_HELP + "; repeatable"),
    keep: bool = typer.Option(False, "--keep", help="keep the replay namespaces"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Replay a real labelled task set: recall, then feedback with the RECORDED outcome as Ψ.

    Outcomes are replayed, not produced by an agent reading the insights. Each (operations, λ)
    runs in a fresh namespace."""
    from graphmem.insight import OperationSet, replay_sweep

    with open_memory(None) as mem:
        reports = replay_sweep(mem, dataset, limit, lambdas=lam,
                               operation_sets=[OperationSet(o) for o in operations], k=k,
                               query_k=query_k, keep=keep, progress=not as_json)
    if as_json:
        print(json.dumps([r.model_dump(mode="json", by_alias=True) for r in reports], indent=1))
        return
    console.print(f"[bold]{reports[0].note}[/bold]\nΨ from: {reports[0].outcome_source}")
    table = Table("ops", "λ", "tasks", "ADD", "KEEP", "ARCHIVE", "REVISE", "retrieved",
                  "same-kind Ω+", "same-kind Ω+∩Q̃ˢ", "active", "archived", "s")
    for r in reports:
        table.add_row(r.operation_set, f"{r.lam:g}", str(r.tasks), str(r.added), str(r.kept),
                      str(r.archived), str(r.revised), str(r.retrieved),
                      f"{r.same_kind_share}", f"{r.same_kind_share_in_subgraph}",
                      str(r.graph["active_insights"]), str(r.graph["archived_insights"]),
                      f"{r.seconds:.1f}")
    console.print(table)
    console.print(f"controller: {reports[0].controller}")
    total = LLMUsage()
    for r in reports:
        total.merge(r.llm_usage)
    print_llm_summary(total, reports[0].controller)
