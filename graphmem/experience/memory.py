"""``ExperienceMemory``: the Experience Memory Graph (EMG, seed 001) on Neo4j.

Build (section 4.2): action decision graphs for every task's expert trajectory and, when given,
its exploration (Algorithm 1); FGW matching exploration -> expert, common subgraph (Algorithm 2)
and graph edit path (Algorithm 3); intra-task insight (eq. 5); query embeddings; ``SIMILAR_TASK``
edges to the top-k neighbours with cosine >= tau, each with the common subgraph of the two expert
graphs and a cross-task insight (eq. 6). Recall (section 4.3, eq. 7): top-K tasks, and for each the
top-T incident edges by the neighbour's similarity to the query.

Tasks without an exploration keep their expert graph and the expert workflow as insight.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import Field

from graphmem.documents import dedupe, item_document
from graphmem.embeddings import Embedder, validate_texts
from graphmem.errors import InvalidInputError, TrajectoryError
from graphmem.experience.construction import TaskBuild, similar_edges, task_rows
from graphmem.experience.decision_graph import LabelVocabulary, build_decision_graph
from graphmem.experience.edit_path import common_subgraph, graph_edit_path
from graphmem.experience.insights import (
    correction_rules,
    describe_edit_path,
    render_intra_heuristic,
    render_intra_llm,
)
from graphmem.experience.matching import fgw_match
from graphmem.experience.store import CrossInsight, ExperienceStore
from graphmem.experience.trajectories import Trajectory, as_trajectory, read_trajectories
from graphmem.graph.runner import QueryRunner
from graphmem.time_travel import check_as_of
from graphmem.timeparse import window_params
from graphmem.llm import LLMUsage
from graphmem.memory import (DEFAULT_K, IngestReport, Memory, PathStep, Progress, RecallItem,
                             RecallResult, Round, check_count, check_number)
from graphmem.experience.options import ExperienceRecallOptions

if TYPE_CHECKING:
    from langchain_core.documents import Document

logger = logging.getLogger(__name__)

#: Label -> key of ``experience/count_memory``; relationship type -> key.
LABEL_KEYS = {"Task": "tasks", "DecisionGraph": "graphs", "Action": "actions",
              "EditOperation": "edit_operations"}

class ExperienceItem(RecallItem):
    """One recalled task (EMG eq. 7) with its intra-task insight, the top-T cross-task insights
    of its SIMILAR_TASK edges, and the stored rules behind them.

    Attributes:
        text: ``"Task: <query>\nInsight: <intra insight>\nRelated task <key>: <insight>"``.
        score: cosine in [-1, 1] of the task query to the question.
        source_ids: the task's key, then its neighbours' keys.
        path: question -> task (``vector_task``) -> each neighbour (``SIMILAR_TASK``).
        task_key / task_type / reward / query / intra_insight / intra_renderer /
        has_exploration: the Task node's fields.
        cross: the top-T neighbours (:class:`~graphmem.experience.store.CrossInsight`).
        workflow_rules: ``{observation, action_key, action_raw}`` decisions of the stored
            workflow (empty unless ``with_rules``).
        correction_rules: the stored edit operations (insertions, deletions, relabels) of the
            exploration -> expert edit path (empty unless ``with_rules``).
    """

    memory: str = "experience"
    kind: str = "task"
    task_key: str
    query: str
    task_type: str | None = None
    reward: float | None = None
    intra_insight: str | None = None
    intra_renderer: str | None = None
    has_exploration: bool | None = None
    cross: list[CrossInsight] = Field(default_factory=list)
    workflow_rules: list[dict[str, Any]] = Field(default_factory=list)
    correction_rules: list[dict[str, Any]] = Field(default_factory=list)

#: The parametrized result model, built once: pydantic holds parametrized generics weakly, so
#: one built inside a call is collected and built again (~4 ms) by a later call.
ExperienceRecallResult = RecallResult[ExperienceItem]



def task_text(query: str, intra_insight: str | None, cross: Sequence[CrossInsight]) -> str:
    """The text block an LLM reads for one recalled task."""
    lines = [f"Task: {query}"]
    if intra_insight:
        lines.append(f"Insight: {intra_insight}")
    for c in cross:
        if c.insight:
            lines.append(f"Related task {c.neighbour_key}: {c.insight}")
    return "\n".join(lines)


class ExperienceMemory(Memory[ExperienceItem]):
    """The experience memory of one namespace.

    Args:
        runner: query runner of a migrated database.
        embedder: text embedder (dimension of the Task vector index).
        namespace: tenant scope.
        llm: optional langchain-core ``BaseChatModel`` for insights (eqs. 5, 6); ``None`` renders
            them deterministically (renderer ``"heuristic"``).
    Attributes:
        llm_usage: running total of the renderer's LLM calls (:class:`LLMAccounting`).
    """

    name = "experience"
    options_model = ExperienceRecallOptions

    def __init__(self, runner: QueryRunner, embedder: Embedder, namespace: str = "default",
                 llm: Any | None = None):
        super().__init__(runner, embedder, namespace, llm)
        self.store = ExperienceStore(runner, self.namespace)

    # ------------------------------------------------------------------ ingest
    def ingest(self, experts: Sequence[Trajectory | dict], *,
               explorations: Sequence[Trajectory | dict] = (), k: int = 3, tau: float = 0.5,
               batch_tasks: int = 25, progress: Progress | None = None) -> IngestReport:
        """Build (or rebuild: nothing new is created) the memory graph from trajectories
        (EMG §4.2: Algorithm 1, FGW matching eqs. 3–4, Algorithms 2–3, insights eqs. 5–6).

        Args:
            experts: one expert trajectory per task (``task_id`` unique).
            explorations: at most one exploration per task, paired by ``task_id``.
            k: neighbours per task (SIMILAR_TASK top-k, 0..200). tau: minimum cosine in [-1, 1].
            batch_tasks: tasks per write transaction (each task lands whole or not at all).
            progress: called with the number of tasks written after each batch commits.
        Returns:
            :class:`~graphmem.memory.IngestReport`: ``inputs`` tasks; ``created`` nodes by label
            (``Task``, ``DecisionGraph``, ``Action``, ``EditOperation``) from the write answers;
            ``skipped["task"]`` tasks already stored; ``extractor`` = the insight renderer;
            ``details``: explorations, similar_edges, matching / embedding / write seconds,
            fgw_pairs, fgw_ms_median.
        Raises:
            InvalidInputError: duplicate task ids, k out of range, tau outside [-1, 1], no
                experts.
            TrajectoryError: an exploration without an expert trajectory (names it); an item
                that is neither a Trajectory nor a valid dict of one (e.g. no actions).
            ControllerError: the LLM renderer gave invalid output twice (nothing written).
        """
        began = time.perf_counter()
        check_count("k", k, low=0)
        tau = check_number("tau", tau, -1.0, 1.0)
        check_count("batch_tasks", batch_tasks, high=10_000)
        experts = [as_trajectory(t, i) for i, t in enumerate(experts)]
        explorations = [as_trajectory(t, i) for i, t in enumerate(explorations)]
        if not experts:
            raise InvalidInputError("no expert trajectories to build from")
        by_key: dict[str, TaskBuild] = {}
        for trajectory in experts:
            if trajectory.task_id in by_key:
                raise InvalidInputError(f"duplicate expert trajectory for task {trajectory.task_id!r}")
            by_key[trajectory.task_id] = TaskBuild(trajectory, None)
        for trajectory in explorations:
            if trajectory.task_id not in by_key:
                raise TrajectoryError(f"exploration {trajectory.task_id!r} ({trajectory.source}) "
                                      "has no expert trajectory")
            if by_key[trajectory.task_id].exploration is not None:
                raise InvalidInputError(f"two explorations for task {trajectory.task_id!r}")
            by_key[trajectory.task_id].exploration = trajectory
        builds = list(by_key.values())
        usage = LLMUsage()
        vocabulary = LabelVocabulary()

        # Algorithm 1 + matching + Algorithms 2/3 + eq. 5 (pure, before anything is written)
        match_began = time.perf_counter()
        fgw_ms: list[float] = []
        for b in builds:
            b.g_expert = build_decision_graph(b.expert.model_copy(update={"kind": "expert"}), vocabulary)
            if b.exploration is not None:
                b.g_exploration = build_decision_graph(b.exploration, vocabulary)
                m = fgw_match(b.g_exploration, b.g_expert)
                fgw_ms.append(m.seconds * 1000)
                b.common = common_subgraph(b.g_exploration, b.g_expert, m.mapping)
                path = graph_edit_path(b.g_exploration, b.g_expert, m.mapping)
                b.records = describe_edit_path(b.g_exploration, b.g_expert, path)
                b.edit_length, b.fgw_distance = len(path), m.fgw_distance
                reward = b.exploration.reward
                if self.llm is not None:
                    b.insight = render_intra_llm(self.llm, usage, b.expert.query, reward,
                                                 b.g_exploration, b.g_expert, b.common, b.records)
                else:
                    b.insight = render_intra_heuristic(b.expert.query, reward, b.common, b.records)
            else:
                b.insight = render_intra_heuristic(b.expert.query, 1.0, b.g_expert, [])

        # query embeddings and SIMILAR_TASK top-k >= tau (eq. 2)
        embed_began = time.perf_counter()
        vectors = self.embedder.embed_documents([b.expert.query for b in builds])
        embedding_seconds = time.perf_counter() - embed_began
        similar_rows = similar_edges(builds, vectors, k, tau, self.llm, usage, fgw_ms,
                                     self.namespace)
        matching_seconds = time.perf_counter() - match_began - embedding_seconds

        # writes: each batch of tasks in one transaction, then the edges
        write_began = time.perf_counter()
        report = IngestReport(memory=self.name, namespace=self.namespace, inputs=len(builds),
                              extractor="llm" if self.llm is not None else "heuristic")
        for start in range(0, len(builds), batch_tasks):
            chunk = builds[start:start + batch_tasks]
            created, stored = self.store.write_unit(
                *task_rows(chunk, vectors[start:start + batch_tasks], self.namespace))
            report.add_created(created)
            report.add_skipped("task", stored)
            logger.debug("experience ingest: tasks %d..%d written, created %s", start,
                         start + len(chunk), created)
            if progress:
                progress(len(chunk))
        for start in range(0, len(similar_rows), 2000):
            self.store.write_similar(similar_rows[start:start + 2000])
        write_seconds = time.perf_counter() - write_began
        report.seconds = round(time.perf_counter() - began, 3)
        report.llm_usage = self._account(usage)
        report.details = {
            "explorations": sum(b.exploration is not None for b in builds),
            "similar_edges": len(similar_rows), "matching_seconds": round(matching_seconds, 3),
            "embedding_seconds": round(embedding_seconds, 3),
            "write_seconds": round(write_seconds, 3), "fgw_pairs": len(fgw_ms),
            "fgw_ms_median": round(float(np.median(fgw_ms)), 3) if fgw_ms else None}
        logger.info("experience ingest: %d tasks, created %s, skipped %s, %.2f s", len(builds),
                    report.created, report.skipped, report.seconds)
        return report

    def ingest_files(self, experts_path: str | Path, explorations_path: str | Path | None = None,
                     *, limit: int | None = None, k: int = 3, tau: float = 0.5,
                     progress: Progress | None = None) -> IngestReport:
        """Read trajectories (:func:`read_trajectories`) and :meth:`ingest`. With ``limit``, the
        first ``limit`` expert tasks and only their explorations are used.

        Raises: InputFormatError, TrajectoryError, InvalidInputError (before anything is written).
        """
        expert_list = read_trajectories(experts_path, limit=limit, kind="expert")
        keys = {t.task_id for t in expert_list}
        exploration_list: list[Trajectory] = []
        if explorations_path is not None:
            exploration_list = [t.model_copy(update={"kind": "exploration"})
                                for t in read_trajectories(explorations_path, kind="exploration")
                                if t.task_id in keys or limit is None]
        return self.ingest(expert_list, explorations=exploration_list, k=k, tau=tau,
                           progress=progress)

    # ------------------------------------------------------------------ recall
    def recall(self, query: str, k: int = DEFAULT_K, *, t: int = 2, with_rules: bool = True,
               since: datetime | None = None, until: datetime | None = None,
               as_of: datetime | None = None) -> RecallResult[ExperienceItem]:
        """EMG eq. 7: the top-``k`` tasks (K) by cosine of their query embedding, each with its
        intra-task insight and the cross-task insights of its top-``t`` (T) incident edges
        (neighbours ranked by their own similarity to ``query``).

        Args:
            query: the new task (non-empty).
            k: tasks returned, K of eq. 7 (1..200).
            t: SIMILAR_TASK edges per task, T of eq. 7 (0..200).
            with_rules: add each task's stored workflow decisions and correction rules (edit
                operations).
            since, until: the half-open window ``since <= t < until`` (time-zone-aware
                datetimes; either may be None: open) on when each task was recorded (its Task
                node's ``created_at``: a trajectory carries no time of its own); neighbours of
                the cross-task insights are held to it too. Applied in the query, before the
                top-k cut.
            as_of: answer as at this instant (aware; :mod:`graphmem.time_travel`): only tasks
                recorded by then (narrows ``until``).
        Returns:
            :class:`~graphmem.memory.RecallResult` of :class:`ExperienceItem` (score = cosine);
            one round ``recall_tasks``; ``timings`` in ms (embed, search, total).
        Raises:
            EmptyTextError: empty query. InvalidInputError: k or t out of range; a naive
                ``since`` / ``until`` or ``since >= until`` (naming the value).
        """
        began = time.perf_counter()
        validate_texts([query], what="query")
        check_count("k", k)
        check_count("t", t, low=0)
        since, until, _ = check_as_of(since, until, as_of)
        window = window_params(since, until)
        embedding = [float(x) for x in self.embedder.embed_query(query)]
        embedded = time.perf_counter()
        tasks = self.store.find_tasks(embedding, k, window)
        ids = [task.id for task in tasks]
        neighbours = (self.store.find_neighbours(ids, embedding, t, window)
                      if t > 0 and ids else {})
        workflow, edits = self.store.find_rules(ids) if with_rules and ids else ({}, {})
        question = PathStep(action="ask", node="question", id="question", text=query[:200])
        items = []
        for task in tasks:
            cross = neighbours.get(task.id, [])
            items.append(ExperienceItem(
                id=task.id, text=task_text(task.query, task.intra_insight, cross),
                score=task.similarity, task_key=task.task_key, query=task.query,
                task_type=task.task_type, reward=task.reward, intra_insight=task.intra_insight,
                intra_renderer=task.intra_renderer, has_exploration=task.has_exploration,
                cross=cross, workflow_rules=workflow.get(task.id, []),
                correction_rules=edits.get(task.id, []),
                source_ids=dedupe([task.task_key, *(c.neighbour_key for c in cross)]),
                path=[question,
                      PathStep(action="vector_task", node="task", id=task.id, text=task.query[:120]),
                      *(PathStep(action="SIMILAR_TASK", node="task", id=c.neighbour_id,
                                 text=c.neighbour_query[:120]) for c in cross)]))
        done = time.perf_counter()
        return ExperienceRecallResult(
            memory=self.name, namespace=self.namespace, query=query, items=items,
            rounds=[Round(number=1, action="recall_tasks", added=ids,
                          details={"t": t, "with_rules": with_rules})],
            controller=self.controller,
            timings={"embed": round((embedded - began) * 1000, 3),
                     "search": round((done - embedded) * 1000, 3),
                     "total": round((done - began) * 1000, 3)})

    def counts(self) -> dict[str, int]:
        """Node counts by label (``Task``, ``DecisionGraph``, ``Action``, ``EditOperation``) of
        this namespace, zeros included; relationships (``SIMILAR_TASK``, ``DECIDED``, ...) are
        in :meth:`relationship_counts`."""
        row = self.store.counts()
        return {label: int(row[key]) for label, key in LABEL_KEYS.items()}

    def documents(self, result: RecallResult[ExperienceItem]) -> list[Document]:
        """One Document per recalled task: provenance ``task_ids`` (own key first, then the
        neighbours'), task_type, reward, renderer and ``cross_similarities``."""
        return [
            item_document(
                item, result.namespace, rank, [c.neighbour_id for c in item.cross],
                {"task_ids": list(item.source_ids), "task_type": item.task_type,
                 "reward": item.reward, "renderer": item.intra_renderer,
                 "cross_similarities": {c.neighbour_key: c.similarity for c in item.cross}})
            for rank, item in enumerate(result.items, start=1)
        ]


def recommended_decisions(result: RecallResult[ExperienceItem]) -> set[tuple[str, str]]:
    """``(observation, action_key)`` pairs a recall recommends: workflow decisions, expert-side
    edit operations (insertions, relabels) and cross-task shared decisions."""
    out: set[tuple[str, str]] = set()
    for item in result.items:
        out.update((r["observation"], r["action_key"]) for r in item.workflow_rules)
        out.update((e["target_observation"], e["target_key"]) for e in item.correction_rules
                   if e.get("target_key") and e.get("target_observation"))
        for cross in item.cross:
            out.update((r["observation"], r["action_key"]) for r in cross.rules)
    return out


__all__ = ["ExperienceItem", "ExperienceMemory", "correction_rules", "recommended_decisions",
           "task_text"]
