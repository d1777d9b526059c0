"""The LLM path on a small slice of the bundled data: every LLM controller and extractor of the
four memories runs once against a real chat model, and a table shows the calls, tokens and
seconds of each operation.

Steps (each timed): the first turns of one LoCoMo conversation into state memory (LLM
extraction, ``state.extract``) and a state recall (LLM planner, ``state.controller``); the same
turns into associative memory (LLM cue extraction, ``associative.extract``) and a recall (LLM
routing, ``associative.route``); insight feedback on two FEVER claims (LLM graph controller,
``insight.controller``); one ScienceWorld task with a shortened exploration into experience
memory (LLM insight text, ``experience.intra_insight``).

Every reply is decoded under (and checked against) the call's JSON schema, so a small model
produces valid decisions, not necessarily good ones. A step whose model reply stays invalid after
the retry is shown as failed (its ``ControllerError``); nothing of it is written.

Run standalone against the configured Neo4j (``NEO4J_URI`` or the local launcher) with the
packaged local model: ``python -m graphmem.demo_llm [--reset]`` (namespace ``demo-llm``; what it
holds is kept unless ``--reset`` is given, which asks first in a terminal).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from graphmem.errors import ControllerError
from graphmem.llm import LLMUsage, OperationUsage, usage_totals

logger = logging.getLogger(__name__)

#: Grammar bound on free strings for the demo's local model (keeps replies short).
DEMO_STRING_CHARS = 80


def demo_model(**options: Any) -> Any:
    """The packaged local model (:func:`graphmem.llm_local.local_chat_model`) with demo
    settings: replies of at most 768 tokens, free strings of at most :data:`DEMO_STRING_CHARS`.

    Raises:
        ConfigurationError: the ``local-llm`` extra is missing (the message says how to install).
    """
    from graphmem.llm_local import local_chat_model

    settings = {"max_tokens": 768, "max_string_chars": DEMO_STRING_CHARS, "timeout_s": 180.0}
    return local_chat_model(**{**settings, **options})


def demo_slice(turns: int = 6, claims: int = 2, tasks: int = 1, exploration_steps: int = 4,
               ) -> dict[str, Any]:
    """The bundled (or ``GRAPHMEM_DATA``) data the LLM demo uses.

    Returns:
        ``{"conversation": Conversation`` (the first ``turns`` turns of the first LoCoMo
        conversation, no QA)``, "claims": [str]`` (the first ``claims`` FEVER claims)``,
        "experts": [Trajectory]`` (the first ``tasks`` ScienceWorld expert trajectories)``,
        "explorations": [Trajectory]`` (each expert cut to ``exploration_steps`` steps, reward
        0, as its exploration)``}``.
    Raises:
        DataNotFoundError / InputFormatError: the data cannot be found or read.
    """
    from graphmem.conversations import read_conversations
    from graphmem.datasets import resolve
    from graphmem.experience import read_trajectories
    from graphmem.insight.datasets import load_tasks

    conversation = read_conversations(resolve("locomo"))[0]
    conversation = conversation.model_copy(update={"turns": conversation.turns[:turns],
                                                   "qa": []})
    fever = [t.query for t in load_tasks(resolve("fever"), claims)]
    experts = read_trajectories(resolve("scienceworld_train"), limit=tasks)
    explorations = [e.model_copy(update={"kind": "exploration", "reward": 0.0,
                                         "steps": e.steps[:exploration_steps]}) for e in experts]
    return {"conversation": conversation, "claims": fever, "experts": experts,
            "explorations": explorations}


def _memories(mem: Any, llm: Any) -> dict[str, Any]:
    """The four memories on ``mem``'s runner, embedder and namespace, with ``llm``."""
    from graphmem.associative import AssociativeMemory
    from graphmem.experience import ExperienceMemory
    from graphmem.insight import InsightMemory
    from graphmem.state import StateMemory

    args = (mem.runner, mem.embedder, mem.namespace)
    return {"state": StateMemory(*args, llm=llm),
            "associative": AssociativeMemory(*args, llm=llm),
            "insight": InsightMemory(*args, llm=llm),
            "experience": ExperienceMemory(*args, llm=llm)}


def _step(rows: list[dict[str, Any]], title: str, run: Callable[[], LLMUsage]) -> None:
    """Run one step; append one row per operation it called (or one failed row)."""
    began = time.perf_counter()
    try:
        usage, error = run(), None
    except ControllerError as exc:
        usage, error = LLMUsage(), str(exc)
        logger.warning("LLM demo: %s failed: %s", title, exc)
    seconds = time.perf_counter() - began
    if error is not None or not usage.operations:
        rows.append({"step": title, "operation": "-", "calls": 0, "input_tokens": 0,
                     "output_tokens": 0, "seconds": seconds, "error": error})
        return
    for name, op in sorted(usage.operations.items()):
        rows.append({"step": title, "operation": name, "calls": op.calls,
                     "input_tokens": op.input_tokens, "output_tokens": op.output_tokens,
                     "seconds": seconds / len(usage.operations), "error": None})


def run_llm_demo(mem: Any, console: Console, *, llm: Any | None = None,
                 data: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run every LLM controller and extractor once on a small slice of the data and print a
    table of LLM calls, input/output tokens and seconds per operation.

    Args:
        mem: a :class:`graphmem.facade.GraphMemory` (its runner, embedder and namespace are
            used; the memories are built here with the model).
        console: a rich console to print to.
        llm: the chat model; default ``mem.llm``, else :func:`demo_model` (the packaged local
            model).
        data: the slice (see :func:`demo_slice`); default ``demo_slice()``.
    Returns:
        ``{"rows": [{"step", "operation", "calls", "input_tokens", "output_tokens",
        "seconds", "error"}], "calls", "input_tokens", "output_tokens", "seconds",
        "load_seconds", "tokens_per_second", "counts": {memory: {label: n}},
        "relationships": {memory: {type: n}}}``;
        ``tokens_per_second`` is output tokens over the seconds of all steps (prompt
        processing, embedding and Neo4j included).
    Raises:
        ConfigurationError: no model given and the ``local-llm`` extra is missing.
    """
    model = llm if llm is not None else getattr(mem, "llm", None)
    if model is None:
        with console.status("Loading the local model"):
            model = demo_model()
    load_seconds = getattr(model, "load_seconds", None)
    data = data or demo_slice()
    memories = _memories(mem, model)
    conversation = data["conversation"]
    speaker = conversation.turns[0].speaker if conversation.turns else "the speaker"
    question = f"What did {speaker} talk about?"
    rows: list[dict[str, Any]] = []
    n = len(conversation.turns)
    _step(rows, f"state: ingest {n} LoCoMo turns",
          lambda: memories["state"].ingest([conversation]).llm_usage)
    _step(rows, "state: recall", lambda: memories["state"].recall(question, k=5,
                                                                  max_rounds=2).llm_usage)
    _step(rows, f"associative: ingest {n} turns",
          lambda: memories["associative"].ingest([conversation]).llm_usage)
    _step(rows, "associative: recall",
          lambda: memories["associative"].recall(question, k=5, max_rounds=1).llm_usage)

    def feedback() -> LLMUsage:
        total = LLMUsage()
        for claim in data["claims"]:
            result = memories["insight"].feedback(claim, "resolved",
                                                  [f"search: {claim[:60]}", "finish: SUPPORTS"])
            total.merge(result.llm_usage)
        return total

    _step(rows, f"insight: feedback on {len(data['claims'])} FEVER claims", feedback)
    _step(rows, f"experience: ingest {len(data['experts'])} ScienceWorld task(s)",
          lambda: memories["experience"].ingest(data["experts"], explorations=data["explorations"],
                                                k=1, tau=-1.0).llm_usage)
    summary = _summarise(rows, load_seconds)
    summary["counts"] = {name: m.counts() for name, m in memories.items()}
    summary["relationships"] = {name: m.relationship_counts() for name, m in memories.items()}
    _print(console, summary)
    return summary


def _summarise(rows: list[dict[str, Any]], load_seconds: float | None) -> dict[str, Any]:
    usage = LLMUsage()
    for row in rows:
        if row["calls"]:
            op = usage.operations.setdefault(row["operation"], OperationUsage())
            op.calls += row["calls"]
            op.input_tokens += row["input_tokens"]
            op.output_tokens += row["output_tokens"]
    calls, tokens_in, tokens_out = usage_totals(usage)
    seconds = sum(r["seconds"] for r in rows)
    return {"rows": rows, "calls": calls, "input_tokens": tokens_in, "output_tokens": tokens_out,
            "seconds": seconds, "load_seconds": load_seconds,
            "tokens_per_second": tokens_out / seconds if seconds else 0.0}


def _print(console: Console, summary: dict[str, Any]) -> None:
    table = Table(title="LLM path: calls, tokens and seconds per operation")
    for column, justify in (("step", "left"), ("operation", "left"), ("calls", "right"),
                            ("input tokens", "right"), ("output tokens", "right"),
                            ("seconds", "right"), ("output tokens/s", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in summary["rows"]:
        rate = row["output_tokens"] / row["seconds"] if row["seconds"] else 0.0
        operation = row["operation"] if row["error"] is None else "[red]failed[/red]"
        table.add_row(row["step"], operation, str(row["calls"]), str(row["input_tokens"]),
                      str(row["output_tokens"]), f"{row['seconds']:.1f}", f"{rate:.1f}")
    table.add_row("[bold]total", "", str(summary["calls"]), str(summary["input_tokens"]),
                  str(summary["output_tokens"]), f"{summary['seconds']:.1f}",
                  f"{summary['tokens_per_second']:.1f}")
    console.print(table)
    for row in summary["rows"]:
        if row["error"]:
            console.print(f"[red]{row['step']}:[/red] {row['error'][:300]}")
    if summary["load_seconds"] is not None:
        console.print(f"model loaded in {summary['load_seconds']:.2f} s")


#: The LLM demo's own namespace (the heuristic demo's is ``demo``).
NAMESPACE = "demo-llm"


def main(argv: list[str] | None = None) -> None:
    """``python -m graphmem.demo_llm [--reset] [--namespace NS]``: the LLM demo in the
    ``demo-llm`` namespace of the configured Neo4j (``NEO4J_URI``, else the local launcher),
    with the packaged local model, loaded before anything is written. ``--reset`` empties the
    namespace first, after a yes in a terminal.

    Raises:
        ConfigurationError: the ``local-llm`` extra is missing (nothing written).
    """
    import argparse
    import sys

    from graphmem.demo import reset_namespace
    from graphmem.facade import GraphMemory

    parser = argparse.ArgumentParser(prog="python -m graphmem.demo_llm")
    parser.add_argument("--namespace", default=NAMESPACE)
    parser.add_argument("--reset", action="store_true",
                        help="delete every node of the namespace first (asks in a terminal)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    console = Console()
    with console.status("Loading the local model"):
        model = demo_model()
    mem = GraphMemory.from_settings(namespace=args.namespace, migrate=True)
    try:
        if args.reset:
            def ask(namespace: str, nodes: int) -> bool:
                if not sys.stdin.isatty():
                    return True
                reply = input(f"Delete all {nodes} nodes of namespace {namespace!r}? [y/N] ")
                return reply.strip().lower() in ("y", "yes")

            reset_namespace(mem, console, ask)
        run_llm_demo(mem, console, llm=model)
    finally:
        mem.close()


if __name__ == "__main__":
    main()
