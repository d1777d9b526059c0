"""``graphmem state``: ingest conversations, recall with intent-guided multi-round retrieval,
and evaluate on LoCoMo / MemConflict (EMIR² SEMG, seed 002)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import typer
from graphmem.cli.common import (
    cli_errors,
    console,
    ingest_progress,
    open_memory,
    print_ingest,
    print_recall,
    stored_turns,
)
from graphmem.cli.failures import require_path
from graphmem.recall_options import DEFAULT_K

app = typer.Typer(help="State memory (EMIR² SEMG): topic chains, evolving states, multi-round recall.",
                  no_args_is_help=True)


@app.command("ingest")
def ingest(
    file: Path = typer.Argument(..., help="LoCoMo JSON, generic JSON/JSONL, or MemConflict JSONL"),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant namespace"),
    fmt: str = typer.Option("auto", "--format", help="auto | locomo | beam | generic | memconflict"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Ingest a conversation file; re-ingesting the same file adds nothing."""
    from graphmem.conversations import read_conversations

    conversations = read_conversations(require_path(file), fmt)  # type: ignore[arg-type]
    total = sum(len(c.turns) for c in conversations)
    with ingest_progress("state ingest", unit="turn", total=total, quiet=as_json) as progress, \
            open_memory(namespace) as mem:
        with progress.counting(lambda: stored_turns(mem, "state", conversations)):
            report = mem.state.ingest(conversations, progress=progress)
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    print_ingest(report)


@app.command("recall")
def recall(
    question: str = typer.Argument(..., help="the question"),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant namespace"),
    k: int = typer.Option(DEFAULT_K, "--k", "-k", help="items returned"),
    rounds: int = typer.Option(2, "--rounds", min=1, max=8,
                               help="round budget including the first (max_rounds)"),
    as_of: str = typer.Option(None, "--as-of", help="answer as at this ISO 8601 time with an "
                              "offset (what had happened by then, states judged then)"),
    include_archived: bool = typer.Option(False, "--include-archived",
                                          help="also recall units retention archived"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Events and states for QUESTION with their source ids, and each round's action."""
    from graphmem.time_travel import parse_as_of

    from graphmem.cli.display import explain_missing

    with cli_errors(), open_memory(namespace) as mem:
        if not as_json and explain_missing(console, mem, "state"):
            return
        result = mem.state.recall(question, k=k, max_rounds=rounds, as_of=parse_as_of(as_of),
                                  include_archived=include_archived)
        if as_json:
            print(json.dumps(result.to_json_dict(), indent=2))
            return
        console.print(f"controller: {result.controller}")
        print_recall(result, mem=mem)


@app.command("eval")
def evaluate(
    locomo: Path | None = typer.Option(None, help="LoCoMo file (default: GRAPHMEM_DATA's "
                                       "locomo/locomo-dev.json, else the bundled sample)"),
    memconflict: Path | None = typer.Option(None, help="MemConflict Step4_1.jsonl (default: "
                                            "GRAPHMEM_DATA's memconflict/; never bundled)"),
    max_personas: int = typer.Option(6, help="MemConflict personas to probe"),
    skip_memconflict: bool = typer.Option(False, help="only LoCoMo"),
    max_questions: int = typer.Option(None, "--max-questions", min=1,
                                      help="LoCoMo questions per conversation (quick runs)"),
) -> None:
    """LoCoMo evidence recall@5/10/20 per category of state memory (public recall) beside BM25 and
    MiniLM cosine over the raw turns (the LoCoMo section of "graphmem eval"), and the MemConflict
    probes. Prints JSON."""
    from graphmem.cli.eval import locomo_only
    from graphmem.datasets import resolve
    from graphmem.state.evaluation import evaluate_memconflict

    with cli_errors():
        out = {"locomo": locomo_only(locomo, max_questions, ("state",))}
        if not skip_memconflict:
            memconflict = memconflict or resolve("memconflict")
            with open_memory("eval-state") as mem:
                # namespaces of this run only: it deletes them, and nothing it did not create
                prefix = f"eval-state-mc-{uuid.uuid4().hex[:8]}"
                out["memconflict"] = evaluate_memconflict(mem, memconflict, prefix=prefix,
                                                          max_personas=max_personas)
    print(json.dumps(out, indent=2, default=str))
