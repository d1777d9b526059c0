"""What the demo prints (:func:`graphmem.demo.run_demo`): the timed steps, progress bars, one
line per ingest report, a table per recall (rank, kind, text, source ids, score, path) and the
closing summary (timings, nodes and relationships of the namespace, LLM calls, where to look in
Neo4j Browser)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table


class Timings:
    """Seconds per demo step, in order."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, float]] = []

    @contextmanager
    def step(self, console: Console, title: str) -> Iterator[None]:
        """Print ``title`` as a rule, then time the block as that step."""
        console.rule(f"[bold]{title}")
        began = time.monotonic()
        yield
        self.steps.append((title, time.monotonic() - began))


def progress_bar(console: Console) -> Progress:
    """A progress bar of the demo's steps: description, bar, done / total, time elapsed."""
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console)


def short(text: str, width: int = 90) -> str:
    """``text`` on one line, cut to ``width`` characters (``…`` marks a cut)."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def report_line(report: Any) -> str:
    """One line of an :class:`~graphmem.memory.IngestReport`."""
    created = ", ".join(f"{n} {kind}" for kind, n in report.created.items()) or "nothing new"
    skipped = ", ".join(f"{n} {kind}" for kind, n in report.skipped.items())
    return (f"{report.inputs} inputs: created {created}" + (f"; skipped {skipped}" if skipped else "")
            + f" ({report.extractor} extractor, {report.seconds:.1f} s)")


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False, expand=True)
    for c in columns:
        table.add_column(c, overflow="fold")
    return table


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    began = time.monotonic()
    out = fn()
    return out, (time.monotonic() - began) * 1000


#: LoCoMo question categories by number.
CATEGORY = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def show_recall(console: Console, result: Any, ms: float, gold: set[str] | None = None,
                note: str = "") -> dict[str, Any]:
    """One recall result as a table (any memory: rank, kind, text, source ids, score, path) and
    its JSON summary; ✓ marks an item resting on gold evidence."""
    rounds = " → ".join(r.action for r in result.rounds)
    table = _table(f"{result.memory} recall {note}{result.query!r} — {ms:.0f} ms"
                   + (f", rounds {rounds}" if rounds else ""),
                   "#", "kind", "text", "source ids", "score", "path")
    for i, item in enumerate(result.items[:5], 1):
        mark = " ✓" if gold and gold & set(item.source_ids) else ""
        path = " → ".join(f"{s.node}:{short(s.text, 24)}" for s in item.path[-3:])
        table.add_row(str(i), item.kind, short(item.text, 80),
                      ", ".join(item.source_ids[:4]) + mark, f"{item.score:.3f}", path)
    console.print(table)
    return {"memory": result.memory, "query": result.query, "ms": round(ms, 1),
            "ids": [item.id for item in result.items[:5]], "source_ids": result.source_ids(5),
            "rounds": len(result.rounds), **({"gold": sorted(gold)} if gold else {})}


def show_state(console: Console, mem: Any, q: Any) -> dict[str, Any]:
    """A state recall of LoCoMo question ``q`` (k = 5) as a table, with its category, gold
    evidence and answer; returns its JSON summary."""
    result, ms = _timed(lambda: mem.state.recall(q.question, k=5))
    category = CATEGORY.get(q.category, q.category)
    out = show_recall(console, result, ms, set(q.evidence), f"[{category}] ")
    console.print(f"gold evidence: {', '.join(q.evidence)}; answer: {q.answer}")
    return out


def show_associative(console: Console, mem: Any, q: Any) -> dict[str, Any]:
    """An associative recall of LoCoMo question ``q`` (k = 5) as a table; returns its
    JSON summary."""
    result, ms = _timed(lambda: mem.associative.recall(q.question, k=5))
    return show_recall(console, result, ms, set(q.evidence))


def show_experience(console: Console, mem: Any, query: str) -> dict[str, Any]:
    """An experience recall of a ScienceWorld task (k = 3, t = 2) as a table; returns its
    JSON summary."""
    result, ms = _timed(lambda: mem.experience.recall(query, k=3, t=2))
    return show_recall(console, result, ms)


def show_insight(console: Console, mem: Any, claim: str) -> dict[str, Any]:
    """An insight recall of a FEVER claim (k = 3, query_k = 5, λ = 1) as a table; returns
    its JSON summary."""
    result, ms = _timed(lambda: mem.insight.recall(claim, k=3, query_k=5, lam=1.0))
    return show_recall(console, result, ms)


def print_summary(console: Console, timings: Timings, counts: dict[str, dict[str, int]],
                  llm_calls: int, namespace: str, settings: Any, neo4j_settings: Any,
                  local: Any = None) -> None:
    """Timings, then nodes by label and relationships by type (``counts["nodes"]``,
    ``counts["relationships"]``) in two tables, LLM calls and where to look in Browser."""
    table = _table("timings", "step", "seconds")
    for name, seconds in timings.steps:
        table.add_row(name, f"{seconds:.1f}")
    table.add_row("[bold]total", f"[bold]{sum(s for _, s in timings.steps):.1f}")
    console.print(table)
    nodes = _table(f"nodes in namespace {namespace!r}", "label", "nodes")
    for label, n in sorted(counts["nodes"].items()):
        nodes.add_row(label, str(n))
    console.print(nodes)
    relationships = _table(f"relationships in namespace {namespace!r}", "type",
                           "relationships")
    for kind, n in sorted(counts["relationships"].items()):
        relationships.add_row(kind, str(n))
    console.print(relationships)
    path = "heuristic controllers and extractors" if llm_calls == 0 else "LLM"
    console.print(f"LLM calls: {llm_calls} ({path})")
    bolt_port = local.bolt_port if local and local.bolt_port else settings.bolt_port
    browser_port = local.browser_port if local else settings.browser_port
    browser = (f"http://127.0.0.1:{browser_port}/browser/?dbms=bolt://127.0.0.1:"
               f"{bolt_port}&preselectAuthMethod=NO_AUTH")
    if local and not browser_port:
        browser = "Neo4j Browser (turned off: GRAPHMEM_BROWSER_PORT=0)"
    if neo4j_settings.uri:
        browser = "your server's Neo4j Browser"
    from graphmem.resources import resource_dir

    saved = resource_dir("cypher") / "browser"  # shipped in the package too
    console.print(Panel.fit(
        f"Open {browser}\n"
        f"run  :param namespace => '{namespace}'\n"
        f"drop {saved / 'graphmem.grass'} on the window (captions and colours)\n"
        f"and paste a saved query from {saved}:\n"
        "  insight_evidence         an insight, its evidence, decisions and revisions\n"
        "  state_topic_chain        (:param source_id => 'D1:3') a turn's topic chain and states\n"
        "  experience_task_graphs   a task's decision graphs and edit path\n"
        "  associative_cue_associations  (:param source_id => 'D1:3') a turn's cues and tags",
        title="Neo4j Browser"))
    if local:
        console.print(f"The local Neo4j keeps running (its store: {local.home}); "
                      "`graphmem neo4j stop` stops it.", highlight=False)
