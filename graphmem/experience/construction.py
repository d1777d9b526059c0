"""Construction of the Experience Memory Graph (EMG §4.2), pure except the renderer's LLM calls:
per-task builds, SIMILAR_TASK rows (eqs. 2, 6) and the query rows of a batch of tasks."""

from __future__ import annotations

import logging
from typing import Any

import networkx as nx
import numpy as np

from graphmem.experience.edit_path import common_subgraph
from graphmem.experience.insights import (
    EditRecord,
    RenderedInsight,
    Rule,
    render_cross_heuristic,
    render_cross_llm,
    workflow_rules,
)
from graphmem.experience.matching import fgw_match
from graphmem.experience.trajectories import Trajectory
from graphmem.llm import LLMUsage
from graphmem.names import node_id

logger = logging.getLogger(__name__)


class TaskBuild:
    """One task while it is built: expert / exploration trajectories, their decision graphs,
    the common subgraph, edit records and the intra-task insight."""

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


def similar_edges(builds: list[TaskBuild], vectors: np.ndarray, k: int, tau: float, llm: Any | None,
                  usage: LLMUsage, fgw_ms: list[float], namespace: str) -> list[dict]:
    """SIMILAR_TASK rows (EMG eq. 2 and eq. 6): for each task its top-``k`` other tasks by query
    cosine (``vectors`` are ``(n, d)`` unit rows) with cosine >= ``tau``, each with the common
    subgraph of the two expert graphs (FGW matching, Algorithm 2) rendered as a cross-task
    insight (LLM when ``llm`` is set) and its shared decisions. Appends FGW times (ms) to
    ``fgw_ms``.

    Raises:
        ControllerError: the LLM renderer failed twice.
    """
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
    for i, j, s in pairs:
        key = (min(i, j), max(i, j))
        if key not in cache:
            a, b = builds[key[0]], builds[key[1]]
            m = fgw_match(a.g_expert, b.g_expert)
            fgw_ms.append(m.seconds * 1000)
            common = common_subgraph(a.g_expert, b.g_expert, m.mapping)
            if llm is not None:
                insight = render_cross_llm(llm, usage, a.expert.query, b.expert.query,
                                           a.g_expert, b.g_expert, common)
            else:
                insight = render_cross_heuristic(a.expert.query, b.expert.query, common)
            cache[key] = (insight, workflow_rules(common, "cross"))
        insight, rules = cache[key]
        rows.append({
            "source": node_id(namespace, "task", builds[i].expert.task_id),
            "target": node_id(namespace, "task", builds[j].expert.task_id),
            "similarity": s, "cross_insight": insight.text, "cross_renderer": insight.renderer,
            "cross_observations": [r.observation for r in rules],
            "cross_actions": [r.action_key for r in rules],
            "cross_raw": [r.action_raw for r in rules]})
    return rows


def task_rows(builds: list[TaskBuild], vectors: np.ndarray,
              namespace: str) -> tuple[list, list, list, list, list]:
    """Query rows of a batch of tasks: (tasks, decision graphs, actions, DECIDED edges, edit
    operations), ids deterministic in ``namespace``."""
    ns = namespace
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
