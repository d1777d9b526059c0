"""``graphmem associative``: ingest conversations into the Cue–Tag–Content graph, recall by
active reconstruction, and evaluate evidence recall on LoCoMo (MRAgent, seed 003)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from graphmem.cli.common import (
    cli_errors,
    console,
    ingest_progress,
    open_memory,
    print_ingest,
    print_recall,
    stored_turns,
)
from graphmem.cli.display import shorten
from graphmem.cli.failures import require_path
from graphmem.recall_options import DEFAULT_K

app = typer.Typer(help="Associative memory (MRAgent): cue -> tag -> content graph, active recall.",
                  no_args_is_help=True)

#: ``--data`` default: None = ``GRAPHMEM_DATA``'s LoCoMo if set, else the bundled sample.
DEFAULT_LOCOMO: Path | None = None


@app.command("ingest")
def ingest(
    file: Path = typer.Argument(..., help="conversation file: LoCoMo JSON, generic JSON/JSONL or MemConflict JSONL"),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant scope"),
    fmt: str = typer.Option("auto", "--format", help="auto | locomo | beam | generic | memconflict"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Build episodes, cues, tags, semantic units and themes from FILE (idempotent)."""
    from graphmem.conversations import read_conversations

    conversations = read_conversations(require_path(file), fmt)  # type: ignore[arg-type]
    total = sum(len(c.turns) for c in conversations)
    with ingest_progress("associative ingest", unit="turn", total=total,
                         quiet=as_json) as progress, open_memory(namespace) as mem:
        with progress.counting(lambda: stored_turns(mem, "associative", conversations)):
            report = mem.associative.ingest(conversations, progress=progress)
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    print_ingest(report)


@app.command("recall")
def recall(
    question: str = typer.Argument(..., help="the question"),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant scope"),
    rounds: int = typer.Option(None, "--rounds", min=1, max=10,
                               help="round budget (max_rounds; default the configured one)"),
    structure: str = typer.Option("ctc", "--structure", help="ce | cte | ctc"),
    k: int = typer.Option(DEFAULT_K, "--k", "-k", min=1, help="items returned"),
    as_of: str = typer.Option(None, "--as-of", help="answer as at this ISO 8601 time with an "
                              "offset (only what had happened by then)"),
    include_archived: bool = typer.Option(False, "--include-archived",
                                          help="also recall episodes retention archived"),
    as_json: bool = typer.Option(False, "--json", help="print the full result as JSON"),
) -> None:
    """Reconstruct evidence for QUESTION round by round; show each item and each round."""
    from graphmem.time_travel import parse_as_of

    if structure not in ("ce", "cte", "ctc"):
        raise typer.BadParameter(f"--structure must be ce, cte or ctc, got {structure!r}")
    from graphmem.cli.display import explain_missing

    with cli_errors(), open_memory(namespace) as mem:
        if not as_json and explain_missing(console, mem, "associative"):
            return
        result = mem.associative.recall(question, k=k, max_rounds=rounds,
                                        structure=structure,  # type: ignore[arg-type]
                                        as_of=parse_as_of(as_of),
                                        include_archived=include_archived)
        if as_json:
            print(result.model_dump_json(indent=2))
            return
        console.print(f"controller: {result.controller}; {len(result.rounds)} round(s)")
        print_recall(result, mem=mem)
    for i, item in enumerate(result.items, 1):
        path = " → ".join(f"{p.node} {shorten(p.text, 30)}" for p in item.path[-3:])
        if path:
            console.print(escape(f"  path of {i}: {path}"), highlight=False)


@app.command("eval")
def evaluate(
    data: Path | None = typer.Option(DEFAULT_LOCOMO, "--data", exists=True, dir_okay=False,
                                     help="LoCoMo JSON (default: GRAPHMEM_DATA's "
                                          "locomo/locomo-dev.json, else the bundled sample)"),
    max_questions: int = typer.Option(None, "--max-questions", min=1,
                                      help="cap per conversation (quick runs)"),
) -> None:
    """LoCoMo evidence recall@5/10/20 per category of associative memory (public recall) beside
    BM25 and MiniLM cosine over the raw turns, every conversation in its own namespace of one
    database (the LoCoMo section of "graphmem eval"). Prints JSON."""
    from graphmem.cli.eval import locomo_only

    with cli_errors():
        print(json.dumps(locomo_only(data, max_questions, ("associative",)), indent=2))
