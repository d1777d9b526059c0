"""``graphmem eval``: retrieval quality of the four memories against baselines in one run.

Sections (each a key of ``report.json`` and a part of ``report.md``):

- ``locomo`` — :func:`graphmem.evaluation.locomo.evaluate_locomo`: state, associative and the
  combined retriever (public recall, the items returned, every conversation's tenant in the
  database at once) vs BM25 and MiniLM cosine over the raw turns, recall@5/10/20 per category,
  leave-one-conversation-out over the retrieval grid, and the ablation;
- ``corpora`` — :mod:`graphmem.evaluation.corpora`: the memories vs plain BM25 / dense / hybrid
  per category, session recall@5, on LoCoMo and BEAM (when in the data; never in the quick run);
- ``hotpotqa`` — :func:`graphmem.evaluation.hotpot.evaluate_hotpotqa`: supporting-fact recall@5/10
  on HotpotQA distractor examples under the shipped setting (the confirmation dataset);
- ``memconflict`` — :func:`graphmem.state.evaluation.evaluate_memconflict` (current value at
  rank 1, history reachable, true claim kept, value per condition, distractor at rank 1);
- ``experience`` — same-task-type hit@5 on the ScienceWorld dev tasks, edit-path length vs exact
  GED, FGW ms, correction hit rate (:mod:`graphmem.evaluation.experience`);
- ``insight`` — :func:`graphmem.insight.replay_sweep` on FEVER (recorded outcomes replayed).

Everything goes through one :class:`~graphmem.GraphMemory` facade: every namespace is
``mem.scoped(<prefix>-...)`` of one run id and deleted afterwards with ``delete_namespace()``; the
vector baseline's nodes carry the run's namespace and are deleted too.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.conversations import read_locomo
from graphmem.datasets import resolve
from graphmem.errors import ConfigurationError, DataNotFoundError
from graphmem.evaluation import report as rpt
from graphmem.evaluation.baselines import VectorBaseline
from graphmem.evaluation.corpora import corpora_section
from graphmem.datasets.hotpotqa import read_hotpotqa
from graphmem.evaluation.eval_report import eval_markdown, eval_plots
from graphmem.evaluation.hotpot import evaluate_hotpotqa
from graphmem.evaluation.locomo import evaluate_locomo, truncate_conversation
from graphmem.evaluation.protocol import ABLATION, SHIPPED, grid
from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

#: What the quick run's MemConflict section says when the dataset is absent (it is never bundled).
MEMCONFLICT_SKIPPED = ("skipped: MemConflict is not bundled (no license); pass --data DIR with "
                       "memconflict/")

#: Sizes of the quick run (the integration test) and the full run.
QUICK = {"locomo_conversation": "conv-30", "locomo_turns": 60, "locomo_questions": 12,
         "retrieval_grid": False, "hotpotqa_examples": 2,
         "memconflict_personas": 1, "train_per_type": 2, "dev_per_type": 1, "ged_pairs": 8,
         "ged_timeout": 1.0, "insight_tasks": 12, "insight_lambdas": [1.0], "fgw_draws": 60,
         "beam_chats": 0}
FULL = {"locomo_conversation": None, "locomo_turns": None, "locomo_questions": None,
        "retrieval_grid": True, "hotpotqa_examples": None,
        "memconflict_personas": None, "train_per_type": None, "dev_per_type": None,
        "ged_pairs": 60, "ged_timeout": 3.0, "insight_tasks": 200,
        "insight_lambdas": [0.0, 1.0, 2.0], "fgw_draws": 400, "beam_chats": None}


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's generators."""
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:  # pragma: no cover - torch ships with sentence-transformers
        pass


def _say(console: Any, msg: str) -> None:
    logger.info("%s", msg)
    if console is not None:
        console.print(f"[dim]{time.strftime('%H:%M:%S')}[/dim] {msg}")


def _explorations(explorations: Path | None, out: Path, records_dev: Path, quick: bool,
                  console: Any) -> tuple[Path | None, Path | None, str]:
    """(train.jsonl, dev.jsonl, note). Uses ``explorations`` when given; else generates a bounded
    dev set with the real simulator when ``scienceworld`` is installed; else none."""
    if explorations is not None:
        train, dev = explorations / "train.jsonl", explorations / "dev.jsonl"
        if not dev.is_file():
            raise ConfigurationError(f"no dev.jsonl in explorations folder {explorations}")
        return (train if train.is_file() else None), dev, f"explorations from {explorations}"
    try:
        from graphmem.experience.explore import generate_explorations, select_records

        records = select_records(records_dev, per_task_type=1, limit=4 if quick else 30)
        target = out / "explorations" / "dev.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        _say(console, f"generating {len(records)} dev explorations with the ScienceWorld simulator")
        stats = generate_explorations(records, target, seed=0, max_seconds=60 if quick else 600)
        return None, target, f"generated {stats.get('written')} dev explorations (noisy expert, seed 0) into {target}"
    except Exception as exc:  # simulator or Java missing: run without explorations
        return None, None, (f"no explorations (none given and generating failed: {type(exc).__name__}: "
                            f"{exc}); GED and correction sections skipped")


def data_files(data: Path | None, quick: bool, locomo: Path | None = None) -> dict[str, Path | None]:
    """The files one run reads, by dataset: from ``data`` (else ``GRAPHMEM_DATA``) via
    :func:`graphmem.datasets.resolve`. The quick run falls back to the bundled samples and maps a
    missing MemConflict to None (its section is skipped); the full run requires every full dataset
    (``full=True``), so it never runs on samples by accident.

    Raises:
        DataNotFoundError: a dataset the run needs is missing (names the path and the source).
    """
    full = not quick
    files: dict[str, Path | None] = {
        "locomo": locomo or resolve("locomo", data, full=full),
        "scienceworld_train": resolve("scienceworld_train", data, full=full),
        "scienceworld_dev": resolve("scienceworld_dev", data, full=full),
        "fever": resolve("fever", data, full=full),
        "hotpotqa": resolve("hotpotqa", data, full=full),
    }
    try:
        files["memconflict"] = resolve("memconflict", data, full=True)
    except DataNotFoundError:
        if full:
            raise
        files["memconflict"] = None
    return files


def experience_section(mem: GraphMemory, files: dict[str, Path | None], out: Path,
                       explorations: Path | None, sizes: dict[str, Any], prefix: str,
                       seed: int, console: Any) -> dict[str, Any]:
    """Experience memory: build from ScienceWorld train (+ explorations), dev hit@5, GED, FGW."""
    from graphmem.evaluation.experience import (
        correction_hit_rate,
        fgw_timing,
        ged_benchmark,
        same_type_hit_at_k,
        stratified,
    )
    from graphmem.experience.trajectories import read_scienceworld

    train = read_scienceworld(files["scienceworld_train"])
    dev = read_scienceworld(files["scienceworld_dev"])
    if sizes["train_per_type"]:
        train = stratified(train, sizes["train_per_type"])
    if sizes["dev_per_type"]:
        dev = stratified(dev, sizes["dev_per_type"])
    ex_train_path, ex_dev_path, note = _explorations(explorations, out, files["scienceworld_dev"],
                                                     sizes is QUICK, console)
    train_keys, dev_keys = {t.task_id for t in train}, {t.task_id for t in dev}
    ex_train = ([t.model_copy(update={"kind": "exploration"})
                 for t in read_scienceworld(ex_train_path, kind="exploration") if t.task_id in train_keys]
                if ex_train_path else [])
    ex_dev = ([t for t in read_scienceworld(ex_dev_path, kind="exploration") if t.task_id in dev_keys]
              if ex_dev_path else [])
    by_key = {t.task_id: t for t in train + dev}
    result: dict[str, Any] = {"train_tasks": len(train), "dev_tasks": len(dev),
                              "train_explorations": len(ex_train), "dev_explorations": len(ex_dev),
                              "explorations": note}
    pairs = [(e, by_key[e.task_id]) for e in ex_train + ex_dev if e.reward < 1.0 and e.task_id in by_key]
    if pairs:
        _say(console, f"experience: edit path vs exact GED on {len(pairs)} failed/partial pairs")
        result["ged"] = ged_benchmark(pairs, 9, sizes["ged_timeout"], sizes["ged_pairs"])
    _say(console, "experience: FGW timing")
    result["fgw"] = fgw_timing(train[:400], seed=seed, draws=sizes["fgw_draws"])
    tenant = mem.scoped(f"{prefix}-experience")
    tenant.delete_namespace()
    memory = tenant.experience
    try:
        _say(console, f"experience: ingest {len(train)} train tasks")
        report = memory.ingest(train, explorations=ex_train, k=3, tau=0.5)
        result["build_seconds"] = report.seconds
        _say(console, f"experience: recall for {len(dev)} dev tasks")
        result["same_type"] = same_type_hit_at_k(memory, dev, k=5)
        if ex_dev:
            result["correction"] = correction_hit_rate(memory, mem.embedder, train, ex_dev, by_key)
    finally:
        tenant.delete_namespace()
    return result


def insight_section(mem: GraphMemory, data: Path | None, sizes: dict[str, Any]) -> dict[str, Any]:
    """Insight replay on FEVER (:func:`graphmem.insight.replay_sweep`), one run per λ; FEVER from
    ``data`` (else ``GRAPHMEM_DATA``, else the bundled sample)."""
    from graphmem.insight import replay_sweep

    reports = replay_sweep(mem, "fever", sizes["insight_tasks"],
                           lambdas=sizes["insight_lambdas"], data_root=data)
    return {"dataset": "fever", "tasks": sizes["insight_tasks"], "note": reports[0].note,
            "outcome_source": reports[0].outcome_source,
            "runs": [{"lambda": r.lam, "operation_set": r.operation_set, "controller": r.controller,
                      "tasks": r.tasks, "resolved": r.resolved, "failed": r.failed,
                      "added": r.added, "kept": r.kept, "archived": r.archived, "revised": r.revised,
                      "tasks_with_retrieval": r.tasks_with_retrieval, "retrieved": r.retrieved,
                      "same_kind_share": r.same_kind_share,
                      "same_kind_share_in_subgraph": r.same_kind_share_in_subgraph,
                      "active_insights": r.graph.get("active_insights"),
                      "archived_insights": r.graph.get("archived_insights"), "seconds": r.seconds}
                     for r in reports]}


def run_eval(mem: GraphMemory, server: dict[str, Any], data: Path | None, out: Path,
             locomo: Path | None = None, seed: int = 0, quick: bool = False,
             explorations: Path | None = None, console: Any = None) -> dict[str, Any]:
    """Run every section, write ``report.json``, ``report.md`` and plots into ``out``.

    Args:
        mem: the facade (connection, embedder, llm); every tenant is ``mem.scoped(...)``.
        server: ``{"uri", "username", "password", "database"}`` for the ``Neo4jVector`` baseline.
        data: a folder with the full datasets (``locomo/``, ``memconflict/``, ``scienceworld/``,
            ``fever/``); None: ``GRAPHMEM_DATA``, else (quick run only) the bundled samples.
        locomo: a LoCoMo-format file (default: resolved ``locomo``).
        seed: seeds Python, numpy and torch.
        quick: the small run (one truncated conversation, few tasks) on the bundled samples
            unless ``data`` is given; MemConflict (never bundled) is skipped when absent. The
            full run requires every full dataset.
        explorations: folder with ``train.jsonl`` / ``dev.jsonl`` ScienceWorld explorations.
    Returns:
        The report dict (also written to ``out/report.json``).
    Raises:
        InputFormatError: a malformed data file. DataNotFoundError: missing data.
    """
    from graphmem.state.evaluation import evaluate_memconflict

    seed_everything(seed)
    sizes = QUICK if quick else FULL
    files = data_files(data, quick, locomo)
    locomo, memconflict = files["locomo"], files["memconflict"]
    run_id = uuid.uuid4().hex[:8]
    prefix = f"eval-{run_id}"
    out.mkdir(parents=True, exist_ok=True)
    version = mem.query("core/ping")
    embedder = mem.embedder
    config = rpt.configuration(
        "graphmem eval", {"seed": seed, "quick": quick, "run_id": run_id, "sizes": sizes,
                          "embedder": rpt.embedder_name(embedder)},
        {**files,
         "explorations_train": (explorations / "train.jsonl") if explorations else None,
         "explorations_dev": (explorations / "dev.jsonl") if explorations else None},
        {"uri": server["uri"], "ping": version})
    report: dict[str, Any] = {"kind": "eval", "config": config, "seconds": {}}
    began_all = time.perf_counter()

    conversations = read_locomo(locomo)
    if sizes["locomo_conversation"]:
        chosen = [c for c in conversations if c.id == sizes["locomo_conversation"]] or conversations[:1]
        conversations = [truncate_conversation(chosen[0], sizes["locomo_turns"])]
    began = time.perf_counter()
    vector = VectorBaseline(mem.scoped(f"{prefix}-baseline"), server)
    settings = grid() if sizes["retrieval_grid"] else [SHIPPED]
    try:
        report["locomo"] = evaluate_locomo(mem, conversations, vector, f"{prefix}-locomo",
                                           max_questions=sizes["locomo_questions"],
                                           settings=settings, ablation=ABLATION,
                                           progress=lambda m: _say(console, f"locomo {m}"))
        report["seconds"]["locomo"] = round(time.perf_counter() - began, 1)
        began = time.perf_counter()
        examples = read_hotpotqa(files["hotpotqa"])[:sizes["hotpotqa_examples"]]
        _say(console, f"hotpotqa: {len(examples)} examples")
        report["hotpotqa"] = evaluate_hotpotqa(mem, examples, vector, f"{prefix}-hotpot",
                                               progress=lambda m: _say(console, m))
        report["seconds"]["hotpotqa"] = round(time.perf_counter() - began, 1)
    finally:
        vector.cleanup()

    began = time.perf_counter()
    report["corpora"] = corpora_section(mem, data, conversations, f"{prefix}-corpora",
                                        sizes["locomo_questions"], sizes["beam_chats"],
                                        lambda m: _say(console, m))
    report["seconds"]["corpora"] = round(time.perf_counter() - began, 1)

    began = time.perf_counter()
    if memconflict is None:
        _say(console, f"memconflict probes: {MEMCONFLICT_SKIPPED}")
        report["memconflict"] = {"skipped": MEMCONFLICT_SKIPPED, "probes": {}}
    else:
        _say(console, "memconflict probes (state memory)")
        report["memconflict"] = evaluate_memconflict(mem, memconflict, prefix=f"{prefix}-mc",
                                                     max_personas=sizes["memconflict_personas"])
    report["seconds"]["memconflict"] = round(time.perf_counter() - began, 1)

    began = time.perf_counter()
    report["experience"] = experience_section(mem, files, out, explorations, sizes,
                                              prefix, seed, console)
    report["seconds"]["experience"] = round(time.perf_counter() - began, 1)

    _say(console, "insight replay (FEVER)")
    began = time.perf_counter()
    report["insight"] = insight_section(mem, data, sizes)
    report["seconds"]["insight"] = round(time.perf_counter() - began, 1)
    report["seconds"]["total"] = round(time.perf_counter() - began_all, 1)

    report["plots"] = eval_plots(report, out)
    rpt.write_json(out, report)
    (out / "report.md").write_text(eval_markdown(report), encoding="utf-8")
    return report
