"""``graphmem associative``: ingest conversations into the Cue–Tag–Content graph, recall by
active reconstruction, and evaluate evidence recall on LoCoMo (MRAgent, seed 003)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table
from tqdm import tqdm

from graphmem.cli.common import cli_errors, console, open_memory, print_llm_summary

app = typer.Typer(help="Associative memory (MRAgent): cue -> tag -> content graph, active recall.",
                  no_args_is_help=True)

DEFAULT_LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"


@app.command("ingest")
def ingest(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="conversation file"),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant scope"),
    fmt: str = typer.Option("auto", "--format", help="auto | locomo | generic | memconflict"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Build episodes, cues, tags, semantic units and themes from FILE (idempotent)."""
    from graphmem.conversation import read_conversations

    with cli_errors(), open_memory(namespace) as mem:
        conversations = read_conversations(file, fmt)
        total = sum(len(c.turns) for c in conversations)
        with tqdm(total=total, unit="turn", desc="ingest", disable=as_json) as bar:
            report = mem.associative.ingest_conversations(conversations, progress=bar.update)
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    console.print(f"\\[{report.extractor}] namespace {report.namespace}: {report.conversations} "
                  f"conversation(s), {report.episodes} episodes, {report.cues} cues, "
                  f"{report.tags} tags, {report.cue_tag_content_triples} cue-tag-content triples, "
                  f"{report.semantic_units} semantic units, {report.themes} themes "
                  f"in {report.seconds:.1f} s")
    print_llm_summary(report.llm_usage, report.extractor)


@app.command("recall")
def recall(
    question: str = typer.Argument(..., help="the question"),
    namespace: str = typer.Option(None, "--namespace", "-n", help="tenant scope"),
    steps: int = typer.Option(3, "--steps", min=1, max=10, help="step budget (rounds)"),
    structure: str = typer.Option("ctc", "--structure", help="ce | cte | ctc"),
    k: int = typer.Option(10, "--k", min=1, help="evidence shown"),
    as_json: bool = typer.Option(False, "--json", help="print the full result as JSON"),
) -> None:
    """Reconstruct evidence for QUESTION step by step; show each piece's path and the trace."""
    if structure not in ("ce", "cte", "ctc"):
        raise typer.BadParameter(f"--structure must be ce, cte or ctc, got {structure!r}")
    with cli_errors(), open_memory(namespace) as mem:
        result = mem.associative.recall(question, steps=steps, structure=structure)  # type: ignore[arg-type]
    result.evidence = result.evidence[:k]
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    console.print(f"\\[{result.controller}] {result.rounds} traversal round(s) after the start "
                  f"(round 0), stop: {result.stop_reason}")
    table = Table("#", "source", "score", "path", "text")
    for i, ev in enumerate(result.evidence, 1):
        path = " > ".join(f"{p.node}:{p.text[:24]}" for p in ev.path[-3:])
        table.add_row(str(i), ",".join(ev.source_ids), f"{ev.rank_score:.4f}", path, ev.text[:90])
    console.print(table)
    for rnd in result.trace:
        label = "start (round 0)" if rnd.round == 0 else f"round {rnd.round}"
        console.print(f"{label}: cues {rnd.active_cues[:6]} candidates {rnd.candidates} "
                      f"+{len(rnd.new_evidence)} evidence, new cues {rnd.new_cues[:6]}"
                      + (f" -> stop ({rnd.stop_reason})" if rnd.stop else ""))
    print_llm_summary(result.llm_usage, result.controller)


@app.command("eval")
def evaluate(
    data: Path = typer.Option(DEFAULT_LOCOMO, "--data", exists=True, dir_okay=False,
                              help="LoCoMo JSON (locomo-dev.json)"),
    prefix: str = typer.Option("assoc-eval", "--namespace-prefix",
                               help="one namespace per conversation: <prefix>-<sample_id>"),
    max_questions: int = typer.Option(None, "--max-questions", min=1,
                                      help="cap per conversation (quick runs)"),
    no_ablation: bool = typer.Option(False, "--no-ablation", help="skip the structure ablation"),
    reingest: bool = typer.Option(False, "--reingest", help="ingest even if already present"),
    as_json: bool = typer.Option(True, "--json/--table", help="print JSON (default)"),
) -> None:
    """Evidence recall@5/10/20 per LoCoMo category: associative vs vector RAG over raw turns,
    average rounds, and the CE / CTE / CTC ablation on multi-hop questions. Prints JSON."""
    from graphmem.associative import AssociativeMemory
    from graphmem.associative.evaluation import evaluate_locomo
    from graphmem.conversation import read_locomo

    with cli_errors(), open_memory(f"{prefix}-x") as mem:
        conversations = read_locomo(data)
        memories = {}
        for conv in conversations:
            sub = AssociativeMemory(mem.runner, mem.embedder, namespace=f"{prefix}-{conv.id}",
                                    llm=mem.llm)
            if reingest or sub.counts()["episodes"] != len(conv.turns):
                with tqdm(total=len(conv.turns), unit="turn", desc=f"ingest {conv.id}") as bar:
                    sub.ingest_conversations([conv], progress=bar.update)
            memories[conv.id] = sub
        questions = sum(len([q for q in c.qa if q.evidence][:max_questions]) for c in conversations)
        with tqdm(total=questions, unit="q", desc="eval") as bar:
            report = evaluate_locomo(memories, conversations, max_questions=max_questions,
                                     ablation_categories=() if no_ablation else (1,),
                                     progress=bar.update)
    if as_json:
        print(json.dumps(report, indent=2))
        return
    table = Table("category", "n", "vector @10", "associative @10", "rounds")
    for key, row in report["associative"].items():
        table.add_row(key, str(row["questions"]), f"{report['baseline'][key]['recall']['@10']:.3f}",
                      f"{row['recall']['@10']:.3f}", f"{row['rounds']}")
    console.print(table)
