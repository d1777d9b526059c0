"""The main job: real data into all four memories on one Neo4j, then recalls with provenance.

Steps (each timed): Neo4j (``NEO4J_URI`` or the local launcher) → migrate → the ``demo``
namespace (emptied first only when asked: ``reset``, ``graphmem demo --reset``) → one LoCoMo
conversation into state and associative memory → a ScienceWorld slice into experience memory (explorations from the real simulator when the ``scienceworld`` extra is
installed, else gold trajectories only) → insight feedback replayed on FEVER claims → recalls of
each kind as tables → where to look in Neo4j Browser.

Data: the samples bundled with graphmem (:mod:`graphmem.datasets`) unless ``data`` (``--data
DIR``) or ``GRAPHMEM_DATA`` names a folder with the full datasets. ``quick`` bounds the run (the
first 60 turns, 6 ScienceWorld tasks from gold trajectories only, 12 FEVER claims, one recall per
memory).

Everything runs on the heuristic path (no LLM), so the LLM call count is zero. What the demo
prints (timed steps, tables, the closing summary) is :mod:`graphmem.demo_report`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from graphmem.datasets import ENV_VAR, data_dir_from_env, resolve
from graphmem.demo_report import (
    Timings,
    print_summary,
    progress_bar,
    report_line,
    short,
    show_associative,
    show_experience,
    show_insight,
    show_state,
)
from graphmem.errors import ConfigurationError

logger = logging.getLogger(__name__)

LOCOMO_HINT = (
    "LoCoMo (CC BY-NC 4.0) is published with the paper 'Evaluating Very Long-Term Conversational"
    " Memory of LLM Agents' (snap-research/locomo, data/locomo10.json). Pass any LoCoMo-format"
    " file with --locomo PATH."
)

#: Sizes of ``graphmem demo --quick``.
QUICK = {"turns": 60, "science_tasks": 6, "fever_claims": 12}


def pick_questions(qa: list[Any], per_category: int = 1) -> list[Any]:
    """The first ``per_category`` answerable questions of each LoCoMo category, in category
    order (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)."""
    chosen: list[Any] = []
    for category in (4, 1, 2, 3):
        picked = [q for q in qa if q.category == category and q.evidence][:per_category]
        chosen.extend(picked)
    return chosen


def run_demo(
    data: Path | None = None,
    namespace: str = "demo",
    locomo: Path | None = None,
    conversation_index: int = 0,
    science_tasks: int = 24,
    fever_claims: int = 40,
    console: Console | None = None,
    quick: bool = False,
    reset: bool = False,
    confirm: Callable[[str, int], bool] | None = None,
) -> dict[str, Any]:
    """Run the demo end to end; returns a JSON-able summary (timings, counts, LLM calls).

    Args:
        data: a folder with the full datasets (``locomo/``, ``scienceworld/``, ``fever/``);
            None: ``GRAPHMEM_DATA`` if set, else the bundled samples. A dataset missing from the
            folder falls back to its bundled sample (with a warning).
        namespace: tenant scope. What it holds is kept unless ``reset``: the demo's inputs
            that are stored already are skipped (re-ingesting creates nothing new).
        locomo: a LoCoMo-format file (default: the resolved ``locomo`` dataset).
        conversation_index: which conversation of the file to ingest.
        science_tasks: ScienceWorld train tasks for experience memory.
        fever_claims: FEVER claims replayed as insight feedback.
        quick: the bounded demo (:data:`QUICK`: the first 60 turns, 6 ScienceWorld tasks from
            gold trajectories only, no simulator, 12 FEVER claims, one recall per memory);
            overrides ``science_tasks`` and ``fever_claims``.
        reset: delete every node of ``namespace`` before the demo writes (see
            :func:`reset_namespace`; ``confirm`` may decline or abort).
        confirm: ``confirm(namespace, nodes) -> bool``, asked before a reset deletes anything
            (the CLI prompts in a terminal); None: no question.
    Returns:
        ``{"namespace", "quick", "timings": {step: s}, "nodes": {label: n},
        "relationships": {type: n}, "llm_calls", "recalls": [...]}``.
    Raises:
        ConfigurationError: the LoCoMo file is missing (the message says where to get it).
        DataNotFoundError: the data folder does not exist.
    """
    from graphmem import neo4j_local
    from graphmem.config import GraphmemSettings, Neo4jSettings
    from graphmem.facade import open_memory_at
    from graphmem.conversations import read_conversations

    console = console or Console()
    timings = Timings()
    settings, neo4j_settings = GraphmemSettings(), Neo4jSettings()
    if quick:
        science_tasks, fever_claims = QUICK["science_tasks"], QUICK["fever_claims"]
    locomo = locomo or resolve("locomo", data)
    if not locomo.is_file():
        raise ConfigurationError(f"LoCoMo file not found: {locomo}. {LOCOMO_HINT}")
    gold_train = resolve("scienceworld_train", data)
    gold_dev = resolve("scienceworld_dev", data)
    console.print(_data_line(data, quick))

    with timings.step(console, "Neo4j, migrations, embedder"):
        mem = open_memory_at(neo4j_settings, settings, namespace=namespace, migrate=True)
        version = mem.query("core/ping")[0]
        local = None if neo4j_settings.uri else neo4j_local.status(settings.home)
        where = neo4j_settings.uri or (f"local launcher, {local.bolt_uri}" if local
                                       else f"local launcher, bolt://127.0.0.1:{settings.bolt_port}")
        console.print(f"Neo4j {version['version']} {version['edition']} at {where}")
        mem.embedder.embed_query("warm up")
        console.print(f"{settings.embedding_model}: {mem.embedder.dimension} dimensions")
    with timings.step(console, f"Namespace {namespace!r}"):
        if reset:
            reset_namespace(mem, console, confirm)
        else:
            held = _held(mem)
            console.print(f"namespace {namespace!r} holds {held} node(s); they are kept"
                          + (" (what the demo would write again is skipped; graphmem demo "
                             "--reset empties the namespace first)" if held else ""))

    conversations = read_conversations(locomo)
    conversation = conversations[conversation_index]
    if quick:
        conversation = _first_turns(conversation, QUICK["turns"])
    turns = len(conversation.turns)
    with timings.step(console, f"State memory: LoCoMo conversation {conversation.id}"):
        with progress_bar(console) as bar:
            task = bar.add_task("state ingest (turns)", total=turns)
            report = mem.state.ingest([conversation], progress=lambda n: bar.advance(task, n))
            bar.update(task, completed=turns)
        console.print(report_line(report))
    with timings.step(console, f"Associative memory: LoCoMo conversation {conversation.id}"):
        with progress_bar(console) as bar:
            task = bar.add_task("associative ingest (episodes)", total=turns)
            areport = mem.associative.ingest([conversation], progress=lambda n: bar.advance(task, n))
        console.print(report_line(areport))

    with timings.step(console, f"Experience memory: {science_tasks} ScienceWorld tasks"):
        if quick:
            console.print("gold trajectories only: --quick does not run the ScienceWorld simulator "
                          "(the optional extra 'scienceworld'; the full demo explores with it "
                          "when installed)")
            explorations = None
        else:
            explorations = _explorations(console, gold_train, science_tasks, settings.home)
        xreport = mem.experience.ingest_files(gold_train, explorations, limit=science_tasks)
        console.print(short(report_line(xreport), 200))

    with timings.step(console, f"Insight memory: {fever_claims} FEVER claims replayed"):
        from graphmem.insight.replay import replay

        ireport = replay(mem.insight, "fever", limit=fever_claims, data_root=data, progress=True)
        console.print(f"outcomes replayed from FEVER labels (not an agent): added {ireport.added}, "
                      f"kept {ireport.kept}, archived {ireport.archived}, revised {ireport.revised}")

    recalls: list[dict[str, Any]] = []
    with timings.step(console, "Recall"):
        questions = pick_questions(conversation.qa)[: 1 if quick else None]
        for q in questions:
            recalls.append(show_state(console, mem, q))
            recalls.append(show_associative(console, mem, q))
        for query in _dev_tasks(gold_dev, 1 if quick else 2):
            recalls.append(show_experience(console, mem, query))
        for claim in _fever_tail(data, fever_claims, 1 if quick else 2):
            recalls.append(show_insight(console, mem, claim))

    counts = {label: n for per in mem.counts().values() for label, n in per.items() if n}
    relationships = {kind: n for per in mem.relationship_counts().values()
                     for kind, n in per.items() if n}
    from graphmem.llm import LLMUsage

    usage = LLMUsage()
    for memory in mem.memories().values():
        usage.merge(memory.llm_usage)
    llm_calls = usage.calls
    print_summary(console, timings, {"nodes": counts, "relationships": relationships}, llm_calls,
             namespace, settings, neo4j_settings, local)
    mem.close()
    return {"namespace": namespace, "quick": quick, "timings": dict(timings.steps), "nodes": counts,
            "relationships": relationships, "llm_calls": llm_calls, "recalls": recalls}


def _held(mem: Any) -> int:
    """Nodes of every memory in ``mem``'s namespace."""
    return sum(n for per in mem.counts().values() for n in per.values())


def reset_namespace(mem: Any, console: Console,
                    confirm: Callable[[str, int], bool] | None = None) -> int:
    """Delete every node of ``mem``'s namespace (what ``--reset`` asks for), after
    ``confirm(namespace, nodes)`` says yes (None: no question). An empty namespace, or a
    ``confirm`` that says no, deletes nothing; ``confirm`` may also raise to stop the caller.

    Returns:
        The number of nodes deleted.
    Raises:
        DatabaseError subclasses; whatever ``confirm`` raises.
    """
    held = _held(mem)
    if not held:
        console.print(f"namespace {mem.namespace!r} is empty")
        return 0
    if confirm is not None and not confirm(mem.namespace, held):
        console.print(f"namespace {mem.namespace!r} kept ({held} node(s))")
        return 0
    deleted = mem.delete_namespace()
    logger.info("reset namespace %r: %d nodes deleted", mem.namespace, deleted)
    console.print(f"removed {deleted} node(s) of namespace {mem.namespace!r}")
    return deleted


def _data_line(data: Path | None, quick: bool) -> str:
    """Which data the demo reads, for its first line."""
    folder = data if data is not None else data_dir_from_env()
    origin = "--data" if data is not None else ENV_VAR
    where = (f"full datasets from {folder} ({origin}; bundled samples for any missing file)"
             if folder is not None else
             "the samples bundled with graphmem (point --data DIR or GRAPHMEM_DATA at the full "
             "datasets)")
    size = (f"quick run: the first {QUICK['turns']} turns, {QUICK['science_tasks']} ScienceWorld "
            f"tasks, {QUICK['fever_claims']} FEVER claims, one recall per memory" if quick
            else "full demo")
    return f"data: {where}; {size}"


def _first_turns(conversation: Any, n: int) -> Any:
    """The first ``n`` turns of a conversation and the QA items answerable from them."""
    turns = conversation.turns[:n]
    kept = {t.source_id for t in turns}
    qa = [q for q in conversation.qa if q.evidence and set(q.evidence) <= kept]
    return conversation.model_copy(update={"turns": turns, "qa": qa})


def _explorations(console: Console, gold: Path, tasks: int, home: Path) -> Path | None:
    """Explorations for the first ``tasks`` train tasks from the real simulator (cached under
    ``home``); None when the simulator is not installed."""
    from graphmem.experience.explore import generate_explorations, select_records

    out = Path(home) / "demo" / f"explorations-{tasks}.jsonl"
    records = select_records(gold, limit=tasks)
    try:
        with progress_bar(console) as bar:
            task = bar.add_task("ScienceWorld explorations (noisy expert)", total=len(records))
            stats = generate_explorations(records, out, epsilon=0.15, seed=0, max_seconds=150,
                                          progress=lambda _: bar.advance(task))
            bar.update(task, completed=len(records))
    except ConfigurationError as exc:
        console.print(f"[yellow]gold trajectories only, no simulator explorations: {exc}[/yellow]")
        return None
    console.print(f"explorations: {stats['written']} new, {stats['skipped']} cached "
                  "(a seeded noisy-expert policy in the real simulator stands in for an agent)")
    return out


def _dev_tasks(path: Path, n: int) -> list[str]:
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


def _fever_tail(data: Path | None, skip: int, n: int) -> list[str]:
    from graphmem.insight.datasets import load_tasks

    tasks = load_tasks("fever", skip + n, data)
    return [t.query for t in tasks[skip: skip + n]]
