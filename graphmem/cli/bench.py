"""``graphmem bench``: recall latency at 10k/100k memory units against Neo4jVector, ingest
throughput against raw encoding and raw UNWIND writes, long histories, concurrent writers and the
warm process; writes report.json, report.md, plots."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from graphmem.cli.common import cli_errors, console, open_memory
from graphmem.cli.eval import DATA_HELP, DEFAULT_DATA, server_settings, set_torch_threads

app = typer.Typer(help="Benchmark recall latency and ingest throughput (report + plots).")


@app.command()
def run(
    out: Path | None = typer.Option(None, "--out", help="report folder (default reports/bench-<timestamp>/)"),
    sizes: list[int] = typer.Option([10_000, 100_000], "--sizes", help="memory units per memory"),
    data: Path | None = typer.Option(DEFAULT_DATA, "--data", help=DATA_HELP + "; locomo/"),
    seed: int = typer.Option(0, "--seed", help="seed of the perturbations"),
    questions: int = typer.Option(60, "--questions", min=5, help="timed recalls per memory and size"),
    quick: bool = typer.Option(False, "--quick", help="small run (40 turns, sizes 500 and 1500, 8 questions, histories of 50 and 200 turns)"),
    history_sizes: list[int] = typer.Option([250, 1_000, 10_000], "--history-sizes",
                                            help="turns of the long-history section (one topic chain, one cue)"),
    torch_threads: int = typer.Option(1, "--torch-threads", min=0,
                                      help="torch intra-op threads for encoding (0 = torch default)"),
) -> None:
    """Run the benchmark and write the report."""
    from graphmem.evaluation.bench import run_bench
    from graphmem.evaluation.report import default_out

    out = out or default_out("bench")
    began = time.monotonic()
    set_torch_threads(torch_threads)
    with cli_errors():
        server, _ = server_settings()
        with open_memory() as mem:
            report = run_bench(mem, server, data, out, sizes=sizes, seed=seed,
                               questions=questions, quick=quick, console=console,
                               history_sizes=history_sizes)
    for line in report["summary"]:
        console.print(line)
    console.print(f"report: {out / 'report.md'} ({time.monotonic() - began:.0f} s)")

