"""``graphmem eval``: retrieval quality of the memories against vector-RAG and BM25 baselines on
real data; writes report.json, report.md and PNG plots.

``graphmem eval [options]`` (also ``graphmem eval run``) runs every section; ``graphmem eval
corpus --dataset {locomo,beam}`` runs only the corpus recall of one dataset
(:func:`graphmem.evaluation.corpus_recall.evaluate_corpus`)."""

from __future__ import annotations

import json
import time
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from graphmem.cli.common import cli_errors, console, open_memory

app = typer.Typer(help="Evaluate the memories against baselines on real data (report + plots).")

#: ``--data`` default: None = ``GRAPHMEM_DATA`` if set, else the bundled samples (quick runs only).
DEFAULT_DATA: Path | None = None
DATA_HELP = ("folder with the full datasets (same layout as the bundled samples); default: "
             "GRAPHMEM_DATA, else the bundled samples (--quick only)")


def server_settings() -> tuple[dict, object]:
    """(``{"uri", "username", "password", "database"}``, settings) from the environment."""
    from graphmem.config import GraphmemSettings, Neo4jSettings
    from graphmem.connect import resolve_uri

    neo4j, settings = Neo4jSettings(), GraphmemSettings()
    return ({"uri": resolve_uri(neo4j, settings), "username": neo4j.username or "neo4j",
             "password": neo4j.password.get_secret_value() or "neo4j",
             "database": neo4j.database}, settings)


def set_torch_threads(threads: int) -> None:
    """Cap torch's intra-op threads (``0``: leave torch's default). On a small shared machine one
    thread encodes a single query ~2.5x faster than two (measured: 13.6 ms vs 33-40 ms for
    all-MiniLM-L6-v2 on 2 shared cores), and batches no slower."""
    if threads > 0:
        import torch

        torch.set_num_threads(threads)


def locomo_only(path: Path | None, max_questions: int | None,
                memories: tuple[str, ...]) -> dict:
    """The LoCoMo section of ``graphmem eval`` under the shipped setting, reduced to
    ``memories`` and the baselines (``graphmem state eval`` / ``graphmem associative eval``)."""
    import uuid

    from graphmem.conversations import read_locomo
    from graphmem.datasets import resolve
    from graphmem.evaluation.baselines import VectorBaseline
    from graphmem.evaluation.locomo import BASELINES, evaluate_locomo

    server, _ = server_settings()
    run = uuid.uuid4().hex[:8]
    with open_memory(f"eval-{run}") as mem:
        conversations = read_locomo(path or resolve("locomo"))
        vector = VectorBaseline(mem.scoped(f"eval-{run}-baseline"), server)
        try:
            report = evaluate_locomo(mem, conversations, vector, f"eval-{run}",
                                     max_questions=max_questions)
        finally:
            vector.cleanup()
    keep = (*memories, *BASELINES)
    return {"conversations": report["conversations"], "questions": report["questions"],
            "skipped_questions": report["skipped_questions"],
            "recall": {m: v for m, v in report["recall"].items() if m in keep},
            "latency_ms": {m: v for m, v in report["latency_ms"].items() if m in keep}}


class Corpus(str, Enum):
    """The corpora ``graphmem eval corpus`` reads."""

    locomo = "locomo"
    beam = "beam"


def print_corpus(name: str, section: dict[str, Any]) -> None:
    """One corpus' recall as a rich table: a row per method (overall recall@10, session
    recall@5, each category's recall@10), the best plain baseline per column in bold. When the
    category names do not fit the terminal, the columns are numbered and a legend follows."""
    from rich.table import Table

    from graphmem.evaluation.corpora import CORPORA, corpus_table

    title = CORPORA.get(name, name)
    if "skipped" in section:
        console.print(f"{title}: {section['skipped']}")
        return
    header, rows, marked = corpus_table(section)
    cats = [c.removesuffix(" R@10") for c in header[3:]]
    texts = [["–" if v is None else f"{v:.3f}".removeprefix("0") if isinstance(v, float)
              else str(v) for v in row] for row in rows]

    def widths(labels: list[str]) -> list[int]:  # a header has one word a line
        return [max(len(max(label.split(), key=len)), *(len(t[c]) for t in texts))
                for c, label in enumerate(labels)]

    labels = ["method", "R@10", "session R@5", *[c.replace("_", " ") for c in cats]]
    if sum(widths(labels)) + len(labels) - 1 > console.width:
        labels = [*labels[:3], *[f"c{i + 1}" for i in range(len(cats))]]
    table = Table(title=f"{title}: {section['questions']} questions, "
                        f"{len(section['conversations'])} conversation(s)",
                  box=None, padding=(0, 1), pad_edge=False, collapse_padding=True)
    for c, (label, width) in enumerate(zip(labels, widths(labels), strict=True)):
        table.add_column(label.replace(" ", "\n"), justify="left" if c == 0 else "right",
                         width=width, no_wrap=True)
    for r, row in enumerate(texts):
        table.add_row(*[f"[bold]{t}[/bold]" if (r, c) in marked else t
                        for c, t in enumerate(row)])
    console.print(table)
    legend = "; ".join(f"c{i + 1} {c}" for i, c in enumerate(cats)) if labels[3:4] == ["c1"] else ""
    console.print("recall@10 per category, session recall@5; bold: the best plain baseline"
                  + (f". {legend}" if legend else ""))


def run(
    ctx: typer.Context,
    data: Path | None = typer.Option(DEFAULT_DATA, "--data", help=DATA_HELP + "; locomo/, hotpotqa/, memconflict/ (never bundled: --quick skips it), scienceworld/, fever/"),
    out: Path | None = typer.Option(None, "--out", help="report folder (default reports/eval-<timestamp>/)"),
    locomo: Path | None = typer.Option(None, "--locomo", help="a LoCoMo-format file (default: DATA's locomo/locomo-dev.json, else the bundled sample)"),
    explorations: Path | None = typer.Option(None, "--explorations",
                                             help="folder with ScienceWorld train.jsonl/dev.jsonl explorations"),
    seed: int = typer.Option(0, "--seed", help="seed of Python, numpy and torch"),
    quick: bool = typer.Option(False, "--quick", help="small run: one truncated conversation, few tasks"),
    json_out: bool = typer.Option(False, "--json", help="print the report JSON"),
    torch_threads: int = typer.Option(1, "--torch-threads", min=0,
                                      help="torch intra-op threads for encoding (0 = torch default)"),
) -> None:
    """Run every evaluation section and write the report (graphmem eval corpus: one corpus)."""
    if ctx.invoked_subcommand is not None:
        return
    from graphmem.evaluation.report import default_out
    from graphmem.evaluation.run_eval import run_eval

    out = out or default_out("eval")
    began = time.monotonic()
    set_torch_threads(torch_threads)
    with cli_errors():
        server, _ = server_settings()
        with open_memory() as mem:
            report = run_eval(mem, server, data, out, locomo=locomo, seed=seed,
                              quick=quick, explorations=explorations, console=console)
    if json_out:
        console.print_json(json.dumps({k: v for k, v in report.items() if k != "config"}, default=str))
    overall = report["locomo"]["recall"]
    console.print("LoCoMo recall@10 overall: " + ", ".join(
        f"{m} {v['overall']['recall@10']}" for m, v in overall.items()))
    for name, section in report.get("corpora", {}).items():
        print_corpus(name, section)
    console.print(f"report: {out / 'report.md'} ({time.monotonic() - began:.0f} s)")


# ``graphmem eval [options]`` runs everything, as ``graphmem eval run`` does.
app.callback(invoke_without_command=True)(run)
app.command("run")(run)


@app.command("corpus")
def corpus(
    dataset: Corpus = typer.Option(..., "--dataset", help="the corpus: locomo or beam"),
    data: Path | None = typer.Option(DEFAULT_DATA, "--data", help="folder with locomo/ or beam/500K/ (default: GRAPHMEM_DATA, else LoCoMo's bundled sample; BEAM is never bundled)"),
    conversations: int | None = typer.Option(None, "--conversations", min=1,
                                             help="the first N conversations (default: all)"),
    questions: int | None = typer.Option(None, "--questions", min=1,
                                         help="at most N questions per conversation (default: all)"),
    out: Path | None = typer.Option(None, "--out", help="report folder (default reports/eval-corpus-<timestamp>/)"),
    json_out: bool = typer.Option(False, "--json", help="print the report JSON"),
    torch_threads: int = typer.Option(1, "--torch-threads", min=0,
                                      help="torch intra-op threads for encoding (0 = torch default)"),
) -> None:
    """Evidence recall of the memories vs plain BM25 / dense / hybrid on one corpus.

    Per category, with session recall@5; writes report.json and report.md."""
    import uuid

    from graphmem.evaluation import report as rpt
    from graphmem.evaluation.corpora import corpus_markdown, load_corpus
    from graphmem.evaluation.corpus_recall import evaluate_corpus

    out = out or rpt.default_out("eval-corpus")
    began = time.monotonic()
    set_torch_threads(torch_threads)
    name = dataset.value
    with cli_errors():
        path, convs = load_corpus(name, data, conversations)
        server, _ = server_settings()
        run_id = uuid.uuid4().hex[:8]
        with open_memory(f"eval-{run_id}") as mem:
            config = rpt.configuration(
                "graphmem eval corpus",
                {"dataset": name, "conversations": conversations, "questions": questions,
                 "run_id": run_id, "embedder": rpt.embedder_name(mem.embedder)},
                {name: path}, {"uri": server["uri"], "ping": mem.query("core/ping")})
            section = evaluate_corpus(mem, name, convs, f"eval-{run_id}-{name}",
                                      max_questions=questions,
                                      progress=lambda m: console.print(
                                          f"[dim]{time.strftime('%H:%M:%S')}[/dim] {name} {m}"))
    report = {"kind": "eval-corpus", "config": config, "corpus": {"path": str(path), **section},
              "seconds": round(time.monotonic() - began, 1)}
    rpt.write_json(out, report)
    (out / "report.md").write_text(
        "\n".join([f"# graphmem eval corpus: {name}", "",
                   f"Run `{run_id}`, {report['seconds']} s, data `{path}`.", "",
                   corpus_markdown(name, section), rpt.config_md(config), ""]),
        encoding="utf-8")
    if json_out:
        console.print_json(json.dumps({k: v for k, v in report.items() if k != "config"},
                                      default=str))
    print_corpus(name, section)
    console.print(f"report: {out / 'report.md'} ({report['seconds']:.0f} s)")

