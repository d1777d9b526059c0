"""The main job: real data into all four memories on one Neo4j, then recalls with provenance.

Steps (each timed): Neo4j (``NEO4J_URI`` or the local launcher) → migrate → a fresh ``demo``
namespace → one LoCoMo conversation into state and associative memory → a ScienceWorld slice
into experience memory (explorations from the real simulator when installed) → insight feedback
replayed on FEVER claims → recalls of each kind as tables → where to look in Neo4j Browser.

Everything runs on the heuristic path (no LLM), so the LLM call count is zero.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from graphmem.errors import ConfigurationError, GraphmemError

LOCOMO_HINT = (
    "LoCoMo (CC BY-NC 4.0) is published with the paper 'Evaluating Very Long-Term Conversational"
    " Memory of LLM Agents' (snap-research/locomo, data/locomo10.json). Pass any LoCoMo-format"
    " file with --locomo PATH."
)


class Timings:
    """Seconds per demo step, in order."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, float]] = []

    @contextmanager
    def step(self, console: Console, title: str) -> Iterator[None]:
        console.rule(f"[bold]{title}")
        began = time.monotonic()
        yield
        self.steps.append((title, time.monotonic() - began))


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console)


def _short(text: str, width: int = 90) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def pick_questions(qa: list[Any], per_category: int = 1) -> list[Any]:
    """The first ``per_category`` answerable questions of each LoCoMo category, in category
    order (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)."""
    chosen: list[Any] = []
    for category in (4, 1, 2, 3):
        picked = [q for q in qa if q.category == category and q.evidence][:per_category]
        chosen.extend(picked)
    return chosen


def run_demo(
    data: Path,
    namespace: str = "demo",
    locomo: Path | None = None,
    conversation_index: int = 0,
    science_tasks: int = 24,
    fever_claims: int = 40,
    console: Console | None = None,
) -> dict[str, Any]:
    """Run the demo end to end; returns a JSON-able summary (timings, counts, LLM calls).

    Args:
        data: the real-data folder (``locomo/``, ``scienceworld/``, ``fever/`` inside).
        namespace: tenant scope; deleted and rebuilt, so the demo is repeatable.
        locomo: a LoCoMo-format file (default ``data/locomo/locomo-dev.json``).
        conversation_index: which conversation of the file to ingest.
        science_tasks: ScienceWorld train tasks for experience memory.
        fever_claims: FEVER claims replayed as insight feedback.
    Raises:
        ConfigurationError: the LoCoMo file is missing (the message says where to get it).
    """
    from graphmem.config import GraphmemSettings, Neo4jSettings
    from graphmem.connect import open_runner
    from graphmem.conversation import read_conversations
    from graphmem.embeddings import embedder_from_name
    from graphmem.facade import GraphMemory
    from graphmem.graph.migrations import Migrator

    console = console or Console()
    timings = Timings()
    settings, neo4j_settings = GraphmemSettings(), Neo4jSettings()
    locomo = locomo or data / "locomo" / "locomo-dev.json"
    if not locomo.is_file():
        raise ConfigurationError(f"LoCoMo file not found: {locomo}. {LOCOMO_HINT}")

    with timings.step(console, "Neo4j"):
        runner = open_runner(neo4j_settings, settings)
        version = runner.read("core/ping")[0]
        where = neo4j_settings.uri or f"local launcher, bolt://127.0.0.1:{settings.bolt_port}"
        console.print(f"Neo4j {version['version']} {version['edition']} at {where}")
    with timings.step(console, "Migrations"):
        applied = Migrator(runner, vector_dimension=settings.vector_dimension).migrate()
        console.print(f"applied {len(applied)} migration(s)" if applied else "schema up to date")
    with timings.step(console, "Embedder"):
        embedder = embedder_from_name(settings.embedding_model)
        embedder.embed_query("warm up")
        console.print(f"{settings.embedding_model}: {embedder.dimension} dimensions")
    mem = GraphMemory(runner, embedder, namespace=namespace)
    with timings.step(console, f"Fresh namespace {namespace!r}"):
        deleted = mem.delete_namespace()
        console.print(f"removed {deleted} node(s) of an earlier run")

    conversations = read_conversations(locomo)
    conversation = conversations[conversation_index]
    turns = len(conversation.turns)
    with timings.step(console, f"State memory: LoCoMo conversation {conversation.id}"):
        with _progress(console) as bar:
            task = bar.add_task("state ingest (turns)", total=turns)
            report = mem.state.ingest([conversation], progress=lambda n: bar.update(task, completed=n))
            bar.update(task, completed=turns)
        console.print(f"{report.events_new} events, {report.topics_new} topics, states "
                      f"{dict(report.state_relations)}, {report.related_edges} cross-topic edges "
                      f"({report.extractor} extractor)")
    with timings.step(console, f"Associative memory: LoCoMo conversation {conversation.id}"):
        with _progress(console) as bar:
            task = bar.add_task("associative ingest (episodes)", total=turns)
            areport = mem.associative.ingest_conversations(
                [conversation], progress=lambda n: bar.advance(task, n))
        console.print(f"{areport.episodes} episodes, {areport.cues} cues, {areport.tags} tags, "
                      f"{areport.semantic_units} semantic units, {areport.themes} themes "
                      f"({areport.extractor} extractor)")

    gold_train = data / "scienceworld" / "sciworld_gold_train.jsonl"
    with timings.step(console, f"Experience memory: {science_tasks} ScienceWorld tasks"):
        explorations = _explorations(console, gold_train, science_tasks, settings.home)
        xreport = mem.experience.build_from_files(gold_train, explorations, limit=science_tasks)
        console.print(_short(_report_line(xreport), 200))

    with timings.step(console, f"Insight memory: {fever_claims} FEVER claims replayed"):
        from graphmem.insight.replay import replay

        ireport = replay(mem.insight, "fever", limit=fever_claims, data_root=data, progress=True)
        console.print(f"outcomes replayed from FEVER labels (not an agent): added {ireport.added}, "
                      f"kept {ireport.kept}, archived {ireport.archived}, revised {ireport.revised}")

    recalls: list[dict[str, Any]] = []
    with timings.step(console, "Recall"):
        questions = pick_questions(conversation.qa)
        for q in questions:
            recalls.append(_show_state(console, mem, q))
            recalls.append(_show_associative(console, mem, q))
        for query in _dev_tasks(data, 2):
            recalls.append(_show_experience(console, mem, query))
        for claim in _fever_tail(data, fever_claims, 2):
            recalls.append(_show_insight(console, mem, claim))

    counts = {row["label"]: row["nodes"] for row in
              runner.read("core/count_namespace_nodes", namespace=namespace)}
    from graphmem.llm import LLMUsage

    usage = LLMUsage()
    for memory in (mem.state, mem.associative, mem.experience, mem.insight):
        usage.merge(memory.llm_usage)
    llm_calls = usage.calls
    _summary(console, timings, counts, llm_calls, namespace, settings, neo4j_settings)
    mem.close()
    return {"namespace": namespace, "timings": dict(timings.steps), "nodes": counts,
            "llm_calls": llm_calls, "recalls": recalls}


def _report_line(report: Any) -> str:
    data = report.model_dump() if hasattr(report, "model_dump") else dict(report)
    keep = {k: v for k, v in data.items() if isinstance(v, (int, float, str)) and k != "namespace"}
    return ", ".join(f"{k}={v}" for k, v in keep.items())


def _explorations(console: Console, gold: Path, tasks: int, home: Path) -> Path | None:
    """Explorations for the first ``tasks`` train tasks from the real simulator (cached under
    ``home``); None when the simulator is not installed."""
    from graphmem.experience.explore import generate_explorations, select_records

    out = Path(home) / "demo" / f"explorations-{tasks}.jsonl"
    records = select_records(gold, limit=tasks)
    try:
        with _progress(console) as bar:
            task = bar.add_task("ScienceWorld explorations (noisy expert)", total=len(records))
            stats = generate_explorations(records, out, epsilon=0.15, seed=0, max_seconds=150,
                                          progress=lambda _: bar.advance(task))
            bar.update(task, completed=len(records))
    except ConfigurationError as exc:
        console.print(f"[yellow]no explorations: {exc}[/yellow]")
        return None
    console.print(f"explorations: {stats['written']} new, {stats['skipped']} cached "
                  "(a seeded noisy-expert policy in the real simulator stands in for an agent)")
    return out


def _dev_tasks(data: Path, n: int) -> list[str]:
    path = data / "scienceworld" / "sciworld_gold_dev.jsonl"
    out, seen = [], set()
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            kind, query = record.get("task_name"), record.get("task_description")
            if query and kind not in seen:
                seen.add(kind)
                out.append(query)
            if len(out) >= n:
                break
    return out


def _fever_tail(data: Path, skip: int, n: int) -> list[str]:
    from graphmem.insight.datasets import load_tasks

    tasks = load_tasks("fever", skip + n, data)
    return [t.query for t in tasks[skip: skip + n]]


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False, expand=True)
    for c in columns:
        table.add_column(c, overflow="fold")
    return table


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    began = time.monotonic()
    out = fn()
    return out, (time.monotonic() - began) * 1000


CATEGORY = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def _show_state(console: Console, mem: Any, q: Any) -> dict[str, Any]:
    result, ms = _timed(lambda: mem.state.recall(q.question, k=5))
    gold = set(q.evidence)
    table = _table(f"state recall [{CATEGORY.get(q.category, q.category)}] {q.question!r} — "
                   f"{ms:.0f} ms, intent {result.intent}, rounds "
                   f"{' → '.join(str(r.action) for r in result.rounds)}",
                   "#", "kind", "text", "dia_id", "score")
    for i, hit in enumerate(result.hits[:5], 1):
        mark = " ✓" if gold & set(hit.source_ids) else ""
        table.add_row(str(i), hit.kind, _short(hit.text), ", ".join(hit.source_ids) + mark,
                      f"{hit.score:.3f}")
    console.print(table)
    console.print(f"gold evidence: {', '.join(q.evidence)}; answer: {q.answer}")
    return {"memory": "state", "question": q.question, "ms": round(ms, 1),
            "source_ids": result.source_ids[:5], "gold": q.evidence}


def _show_associative(console: Console, mem: Any, q: Any) -> dict[str, Any]:
    result, ms = _timed(lambda: mem.associative.recall(q.question))
    gold = set(q.evidence)
    table = _table(f"associative recall {q.question!r} — {ms:.0f} ms, {result.rounds} round(s), "
                   f"stop: {result.stop_reason}", "#", "text", "dia_id", "path")
    for i, ev in enumerate(result.evidence[:5], 1):
        mark = " ✓" if gold & set(ev.source_ids) else ""
        path = " → ".join(f"{s.node}:{_short(s.text, 24)}" for s in ev.path[-3:])
        table.add_row(str(i), _short(ev.text, 70), ", ".join(ev.source_ids) + mark, path)
    console.print(table)
    return {"memory": "associative", "question": q.question, "ms": round(ms, 1),
            "source_ids": result.ranked_source_ids(5), "gold": q.evidence,
            "rounds": result.rounds}


def _show_experience(console: Console, mem: Any, query: str) -> dict[str, Any]:
    result, ms = _timed(lambda: mem.experience.recall(query, k=3, t=2))
    table = _table(f"experience recall {_short(query, 80)!r} — {ms:.0f} ms",
                   "task id", "similarity", "task", "insight")
    for exp in result.experiences:
        task = exp.task
        table.add_row(str(task.id)[:8], f"{task.similarity:.3f}", _short(task.query, 50),
                      _short(task.intra_insight or "", 90))
        for cross in exp.cross:
            table.add_row("  ↳ " + cross.neighbour_id[:8], f"{cross.neighbour_similarity:.3f}",
                          "similar task: " + _short(cross.neighbour_query, 40),
                          _short(cross.insight or "", 90))
    console.print(table)
    return {"memory": "experience", "query": query, "ms": round(ms, 1),
            "task_ids": [e.task.id for e in result.experiences]}


def _show_insight(console: Console, mem: Any, claim: str) -> dict[str, Any]:
    result, ms = _timed(lambda: mem.insight.recall(claim, k=5, lam=1.0, b=3))
    table = _table(f"insight recall {claim!r} — {ms:.0f} ms", "insight", "s", "c", "r",
                   "supported by (query ids)")
    for ins in result.insights:
        table.add_row(_short(ins.content, 80), str(ins.s), str(ins.c), f"{ins.r:.1f}",
                      ", ".join(i[:8] for i in ins.supporting_query_ids[:4]))
    console.print(table)
    return {"memory": "insight", "query": claim, "ms": round(ms, 1),
            "insight_ids": [i.id for i in result.insights]}


def _summary(console: Console, timings: Timings, counts: dict[str, int], llm_calls: int,
             namespace: str, settings: Any, neo4j_settings: Any) -> None:
    table = _table("timings", "step", "seconds")
    for name, seconds in timings.steps:
        table.add_row(name, f"{seconds:.1f}")
    table.add_row("[bold]total", f"[bold]{sum(s for _, s in timings.steps):.1f}")
    console.print(table)
    nodes = _table(f"nodes in namespace {namespace!r}", "label", "nodes")
    for label, n in sorted(counts.items()):
        nodes.add_row(label, str(n))
    console.print(nodes)
    path = "heuristic controllers and extractors" if llm_calls == 0 else "LLM"
    console.print(f"LLM calls: {llm_calls} ({path})")
    browser = (f"http://127.0.0.1:{settings.browser_port}/browser/?dbms=bolt://127.0.0.1:"
               f"{settings.bolt_port}&preselectAuthMethod=NO_AUTH")
    if neo4j_settings.uri:
        browser = "your server's Neo4j Browser"
    console.print(Panel.fit(
        f"Open {browser}\n"
        f"run  :param namespace => '{namespace}'\n"
        "drop cypher/browser/graphmem.grass on the window (captions and colours)\n"
        "and paste a saved query from cypher/browser/:\n"
        "  insight_evidence         an insight, its evidence, decisions and revisions\n"
        "  state_topic_chain        a topic chain with its states over time\n"
        "  experience_task_graphs   a task's decision graphs and edit path\n"
        "  associative_cue_associations  (:param source_id => 'D1:3') a turn's cues and tags",
        title="Neo4j Browser"))
