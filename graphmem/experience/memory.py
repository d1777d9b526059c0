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

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from pydantic import BaseModel, Field

from graphmem.embeddings import Embedder
from graphmem.errors import TrajectoryError, InvalidInputError
from graphmem.experience.decision_graph import LabelVocabulary, build_decision_graph
from graphmem.experience.edit_path import common_subgraph, graph_edit_path
from graphmem.experience.insights import (
    EditRecord,
    RenderedInsight,
    Rule,
    correction_rules,
    describe_edit_path,
    render_cross_heuristic,
    render_cross_llm,
    render_intra_heuristic,
    render_intra_llm,
    workflow_rules,
)
from graphmem.experience.matching import fgw_match
from graphmem.experience.store import CrossInsight, ExperienceStore, RecalledTask
from graphmem.experience.trajectories import Trajectory, as_trajectory, read_trajectories
from graphmem.graph.runner import QueryRunner
from graphmem.asyncio_support import AsyncRecall
from graphmem.llm import LLMAccounting, LLMUsage
from graphmem.names import node_id, validate_namespace

Progress = Callable[[str, int, int], None]


class BuildReport(BaseModel):
    """What a build did. Times in seconds; ``fgw_ms`` per matched pair (milliseconds)."""

    tasks: int
    explorations: int
    similar_edges: int
    seconds: float
    matching_seconds: float
    embedding_seconds: float
    write_seconds: float
    fgw_pairs: int
    fgw_ms_median: float | None
    renderer: str
    llm_usage: LLMUsage = Field(default_factory=LLMUsage,
                                description="insight renderer LLM calls (zero when heuristic)")


class RecalledExperience(BaseModel):
    """One recalled task (eq. 7): its intra-task insight, the top-T cross-task insights, and the
    structured rules behind them (provenance: task ids and similarities)."""

    task: RecalledTask
    cross: list[CrossInsight]
    workflow_rules: list[dict[str, Any]] = []
    edit_operations: list[dict[str, Any]] = []


class RecallResult(BaseModel):
    """Recall result for one query."""

    query: str
    k: int
    t: int
    experiences: list[RecalledExperience]
    llm_usage: LLMUsage = Field(default_factory=LLMUsage, description="zero: recall is pure retrieval")


class _TaskBuild:
    __slots__ = ("expert", "exploration", "g_expert", "g_exploration", "common", "records",
                 "insight", "edit_length", "fgw_distance")

    def __init__(self, expert: Trajectory, exploration: Trajectory | None):
        self.expert = expert
        self.exploration = exploration
        self.g_expert: nx.DiGraph | None = None
        self.g_exploration: nx.DiGraph | None = None
        self.common: nx.DiGraph | None = None
        self.records: list[EditRecord] = []
        self.insight: RenderedInsight | None = None
        self.edit_length: int | None = None
        self.fgw_distance: float | None = None


class ExperienceMemory(AsyncRecall, LLMAccounting):
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

    def __init__(self, runner: QueryRunner, embedder: Embedder, namespace: str = "default",
                 llm: Any | None = None):
        self.runner = runner
        self.embedder = embedder
        self.namespace = validate_namespace(namespace)
        self.llm = llm
        self.store = ExperienceStore(runner, self.namespace)

    # ------------------------------------------------------------------ build
    def build(self, experts: Sequence[Trajectory | dict], explorations: Sequence[Trajectory | dict] = (),
              k: int = 3, tau: float = 0.5, batch_tasks: int = 50,
              progress: Progress | None = None) -> BuildReport:
        """Build (or rebuild: nothing new is created) the memory graph from trajectories.

        Args:
            experts: one expert trajectory per task (``task_id`` unique).
            explorations: at most one exploration per task, paired by ``task_id``.
            k: neighbours per task (SIMILAR_TASK top-k). tau: minimum cosine in [-1, 1].
            batch_tasks: tasks per write transaction (each task lands whole or not at all).
            progress: ``progress(stage, done, total)`` callback.
        Raises:
            InvalidInputError: duplicate task ids, k < 0, tau outside [-1, 1], no experts.
            TrajectoryError: an exploration without an expert trajectory (names it); an item
                that is neither a Trajectory nor a valid dict of one (e.g. no actions).
            ControllerError: the LLM renderer gave invalid output twice (nothing written).
        """
        began = time.perf_counter()
        experts = [as_trajectory(t, i) for i, t in enumerate(experts)]
        explorations = [as_trajectory(t, i) for i, t in enumerate(explorations)]
        if not experts:
            raise InvalidInputError("no expert trajectories to build from")
        if k < 0 or not -1.0 <= tau <= 1.0:
            raise InvalidInputError(f"need k >= 0 and tau in [-1, 1], got k={k!r}, tau={tau!r}")
        by_key: dict[str, _TaskBuild] = {}
        for trajectory in experts:
            if trajectory.task_id in by_key:
                raise InvalidInputError(f"duplicate expert trajectory for task {trajectory.task_id!r}")
            by_key[trajectory.task_id] = _TaskBuild(trajectory, None)
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
        for i, b in enumerate(builds):
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
            if progress:
                progress("match", i + 1, len(builds))

        # query embeddings and SIMILAR_TASK top-k >= tau (eq. 2)
        embed_began = time.perf_counter()
        vectors = self.embedder.embed_documents([b.expert.query for b in builds])
        embedding_seconds = time.perf_counter() - embed_began
        similar_rows = self._similar_edges(builds, vectors, k, tau, usage, fgw_ms, progress)
        matching_seconds = time.perf_counter() - match_began - embedding_seconds

        # writes: each batch of tasks in one transaction, then the edges
        write_began = time.perf_counter()
        for start in range(0, len(builds), batch_tasks):
            chunk = builds[start:start + batch_tasks]
            self.store.write_unit(*self._rows(chunk, vectors[start:start + batch_tasks]))
            if progress:
                progress("write", min(start + batch_tasks, len(builds)), len(builds))
        for start in range(0, len(similar_rows), 2000):
            self.store.write_similar(similar_rows[start:start + 2000])
        write_seconds = time.perf_counter() - write_began
        return BuildReport(
            tasks=len(builds), explorations=sum(b.exploration is not None for b in builds),
            similar_edges=len(similar_rows), seconds=round(time.perf_counter() - began, 3),
            matching_seconds=round(matching_seconds, 3),
            embedding_seconds=round(embedding_seconds, 3), write_seconds=round(write_seconds, 3),
            fgw_pairs=len(fgw_ms), fgw_ms_median=round(float(np.median(fgw_ms)), 3) if fgw_ms else None,
            renderer="llm" if self.llm is not None else "heuristic",
            llm_usage=self._account(usage))

    def build_from_files(self, experts: str | Path, explorations: str | Path | None = None,
                         limit: int | None = None, k: int = 3, tau: float = 0.5,
                         progress: Progress | None = None) -> BuildReport:
        """Read trajectories (:func:`read_trajectories`) and :meth:`build`. With ``limit``, the
        first ``limit`` expert tasks and only their explorations are used.

        Raises: InputFormatError, TrajectoryError, InvalidInputError (before anything is written).
        """
        expert_list = read_trajectories(experts, limit=limit, kind="expert")
        keys = {t.task_id for t in expert_list}
        exploration_list: list[Trajectory] = []
        if explorations is not None:
            exploration_list = [t.model_copy(update={"kind": "exploration"})
                                for t in read_trajectories(explorations, kind="exploration")
                                if t.task_id in keys or limit is None]
        return self.build(expert_list, exploration_list, k=k, tau=tau, progress=progress)

    def _similar_edges(self, builds: list[_TaskBuild], vectors: np.ndarray, k: int, tau: float,
                       usage: LLMUsage, fgw_ms: list[float], progress: Progress | None) -> list[dict]:
        n = len(builds)
        if n < 2 or k == 0:
            return []
        sims = vectors @ vectors.T
        np.fill_diagonal(sims, -np.inf)
        pairs: list[tuple[int, int, float]] = []
        for i in range(n):
            order = np.argsort(-sims[i], kind="stable")[:k]
            pairs.extend((i, int(j), float(sims[i, j])) for j in order if sims[i, j] >= tau)
        cache: dict[tuple[int, int], tuple[RenderedInsight, list[Rule]]] = {}
        rows = []
        for done, (i, j, s) in enumerate(pairs):
            key = (min(i, j), max(i, j))
            if key not in cache:
                a, b = builds[key[0]], builds[key[1]]
                m = fgw_match(a.g_expert, b.g_expert)
                fgw_ms.append(m.seconds * 1000)
                common = common_subgraph(a.g_expert, b.g_expert, m.mapping)
                if self.llm is not None:
                    insight = render_cross_llm(self.llm, usage, a.expert.query, b.expert.query,
                                               a.g_expert, b.g_expert, common)
                else:
                    insight = render_cross_heuristic(a.expert.query, b.expert.query, common)
                cache[key] = (insight, workflow_rules(common, "cross"))
            insight, rules = cache[key]
            rows.append({
                "source": self._task_id(builds[i]), "target": self._task_id(builds[j]),
                "similarity": s, "cross_insight": insight.text, "cross_renderer": insight.renderer,
                "cross_observations": [r.observation for r in rules],
                "cross_actions": [r.action_key for r in rules],
                "cross_raw": [r.action_raw for r in rules]})
            if progress:
                progress("similar", done + 1, len(pairs))
        return rows

    def _task_id(self, b: _TaskBuild) -> str:
        return node_id(self.namespace, "task", b.expert.task_id)

    def _rows(self, builds: list[_TaskBuild], vectors: np.ndarray) -> tuple[list, list, list, list, list]:
        ns = self.namespace
        tasks, graphs, actions, edges, edits = [], [], [], [], []
        for b, vector in zip(builds, vectors):
            key = b.expert.task_id
            task_id = node_id(ns, "task", key)
            assert b.insight is not None
            tasks.append({
                "id": task_id, "task_key": key, "query": b.expert.query,
                "embedding": [float(x) for x in vector],
                "reward": b.exploration.reward if b.exploration else 1.0,
                "task_type": b.expert.task_type, "source": b.expert.source,
                "has_exploration": b.exploration is not None, "intra_insight": b.insight.text,
                "intra_renderer": b.insight.renderer, "edit_path_length": b.edit_length,
                "fgw_distance": b.fgw_distance})
            parts = [("expert", b.g_expert, 1.0)]
            if b.exploration is not None:
                parts += [("exploration", b.g_exploration, b.exploration.reward),
                          ("common", b.common, b.exploration.reward)]
            for kind, graph, reward in parts:
                gid = node_id(ns, "decision_graph", key, kind)
                graphs.append({"id": gid, "task_id": task_id, "task_key": key, "kind": kind,
                               "reward": reward, "node_count": graph.number_of_nodes(),
                               "edge_count": graph.number_of_edges()})
                for n, d in graph.nodes(data=True):
                    actions.append({"id": node_id(ns, "action", key, kind, n), "graph_id": gid,
                                    "key": d["key"], "raw": d["raw"], "label": d["label"],
                                    "type": d["type"], "object": d["object"],
                                    "receptacle": d["receptacle"], "node": n,
                                    "same_label": d.get("same_label", True)})
                for u, v, d in graph.edges(data=True):
                    edges.append({"source": node_id(ns, "action", key, kind, u),
                                  "target": node_id(ns, "action", key, kind, v),
                                  "observation": d["observation"],
                                  "observation_raw": d["observation_raw"][:2000],
                                  "label": d["label"], "step": d["step"]})
            for r in b.records:
                edits.append({
                    "id": node_id(ns, "edit_operation", key, r.position), "task_id": task_id,
                    "operation": r.operation, "position": r.position, "observation": r.observation,
                    "action_key": r.action_key, "action_raw": r.action_raw,
                    "target_observation": r.target_observation, "target_key": r.target_key,
                    "target_raw": r.target_raw,
                    "source_action_id": node_id(ns, "action", key, "exploration", r.source_node)
                    if r.source_node is not None else None,
                    "target_action_id": node_id(ns, "action", key, "expert", r.target_node)
                    if r.target_node is not None else None})
        return tasks, graphs, actions, edges, edits

    # ------------------------------------------------------------------ recall
    def recall(self, query: str, k: int = 3, t: int = 2, with_rules: bool = True) -> RecallResult:
        """Eq. 7: top-``k`` tasks by cosine of their query embedding, each with its intra-task
        insight and the cross-task insights of its top-``t`` incident edges (neighbours ranked by
        their own similarity to ``query``). ``with_rules`` adds the stored workflow decisions and
        edit operations of each task.

        Raises:
            EmptyTextError: empty query. InvalidInputError: k < 1 or t < 0.
        """
        if k < 1 or t < 0:
            raise InvalidInputError(f"need k >= 1 and t >= 0, got k={k!r}, t={t!r}")
        embedding = [float(x) for x in self.embedder.embed_query(query)]
        tasks = self.store.find_tasks(embedding, k)
        ids = [task.id for task in tasks]
        neighbours = self.store.find_neighbours(ids, embedding, t) if t > 0 and ids else {}
        workflow, edits = self.store.find_rules(ids) if with_rules and ids else ({}, {})
        return RecallResult(query=query, k=k, t=t, experiences=[
            RecalledExperience(task=task, cross=neighbours.get(task.id, []),
                               workflow_rules=workflow.get(task.id, []),
                               edit_operations=edits.get(task.id, []))
            for task in tasks])

    def counts(self) -> dict[str, int]:
        """Node/edge counts of this namespace's experience memory."""
        return self.store.counts()


def recommended_decisions(result: RecallResult) -> set[tuple[str, str]]:
    """``(observation, action_key)`` pairs a recall recommends: workflow decisions, expert-side
    edit operations (insertions, relabels) and cross-task shared decisions."""
    out: set[tuple[str, str]] = set()
    for exp in result.experiences:
        out.update((r["observation"], r["action_key"]) for r in exp.workflow_rules)
        out.update((e["target_observation"], e["target_key"]) for e in exp.edit_operations
                   if e.get("target_key") and e.get("target_observation"))
        for cross in exp.cross:
            out.update((r["observation"], r["action_key"]) for r in cross.rules)
    return out


__all__ = ["ExperienceMemory", "BuildReport", "RecallResult", "RecalledExperience",
           "recommended_decisions", "correction_rules"]
