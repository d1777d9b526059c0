"""Action decision graphs (EMG section 4.1.2, Algorithm 1 in Appendix A).

Nodes are actions ``(type, object, receptacle)``; an edge ``(last, v)`` carries the normalised
observation ``s`` under which ``v`` was decided. A virtual INIT node (label 0) carries ``o_0``.
Node reuse: the same action tuple is one node. Invalid actions (observation without state change,
e.g. "Nothing happens.") do not advance the state, so consecutive invalid attempts all hang in
parallel from the last valid node. Integer labels come from a shared :class:`LabelVocabulary`, so
identical contents get identical labels across graphs. Pure, no I/O.

Graph layout (``networkx.DiGraph``): node ids ``0`` (INIT), ``1..n`` in order of first use, with
attributes ``key`` (str), ``type``, ``object``, ``receptacle``, ``raw`` (first raw text), ``label``
(int); edge attributes ``observation`` (normalised ``s``), ``observation_raw``, ``label`` (int),
``step`` (index ``t`` of the action that created the edge). ``G.graph`` holds ``query``,
``reward``, ``task_id``, ``kind``. When the same ``(last, v)`` pair recurs, Algorithm 1 line 11
overwrites ``s``; every observation seen on it is kept in ``observations``.
"""

from __future__ import annotations

import logging
import networkx as nx

from graphmem.errors import TrajectoryError
from graphmem.experience.actions import (
    INIT_KEY,
    normalize_action,
    normalize_observation,
    is_valid_observation,
)
from graphmem.experience.trajectories import Trajectory

logger = logging.getLogger(__name__)


class LabelVocabulary:
    """Integer labels: node label per action-tuple text (INIT = 0, others 1, 2, ...) and edge label
    per normalised observation (1, 2, ...). Share one instance across graphs that are compared."""

    def __init__(self) -> None:
        self.node_labels: dict[str, int] = {INIT_KEY.text(): 0}
        self.edge_labels: dict[str, int] = {}

    def node_label(self, key: str) -> int:
        """Label of action-tuple text ``key`` (assigned on first use)."""
        return self.node_labels.setdefault(key, len(self.node_labels))

    def edge_label(self, observation: str) -> int:
        """Label of normalised observation ``observation`` (assigned on first use, from 1)."""
        return self.edge_labels.setdefault(observation, len(self.edge_labels) + 1)


def build_decision_graph(trajectory: Trajectory, vocabulary: LabelVocabulary | None = None) -> nx.DiGraph:
    """Algorithm 1: turn ``tau = (q, o_0, a_1, o_1, ..., a_m, o_m)`` into ``G = (V, E, q, r)``.

    Args:
        trajectory: the trajectory (at least one action).
        vocabulary: shared labels; a fresh one when ``None``.
    Returns:
        A DiGraph with ``m' + 1`` nodes (distinct action tuples + INIT) and one edge per distinct
        ``(last, v)`` pair; see the module docstring for attributes.
    Raises:
        TrajectoryError: no actions (names the task id).
    """
    if not trajectory.steps:
        raise TrajectoryError(f"trajectory {trajectory.task_id!r} has no actions")
    vocab = vocabulary or LabelVocabulary()
    graph = nx.DiGraph(query=trajectory.query, reward=trajectory.reward,
                       task_id=trajectory.task_id, kind=trajectory.kind)
    graph.add_node(0, key=INIT_KEY.text(), type="INIT", object="", receptacle="", raw="INIT", label=0)
    state = normalize_observation(trajectory.initial_observation) if trajectory.initial_observation else "initial"
    state_raw = trajectory.initial_observation
    last = 0
    phi: dict[str, int] = {}
    for t, step in enumerate(trajectory.steps, start=1):
        key = normalize_action(step.action, trajectory.grammar)
        text = key.text()
        if text not in phi:
            phi[text] = graph.number_of_nodes()
            graph.add_node(phi[text], key=text, type=key.type, object=key.object,
                           receptacle=key.receptacle, raw=step.action, label=vocab.node_label(text))
        v = phi[text]
        if graph.has_edge(last, v):
            data = graph.edges[last, v]
            data.update(observation=state, observation_raw=state_raw, label=vocab.edge_label(state))
            if state not in data["observations"]:
                data["observations"].append(state)
        else:
            graph.add_edge(last, v, observation=state, observation_raw=state_raw,
                           label=vocab.edge_label(state), step=t, observations=[state])
        if is_valid_observation(step.observation):
            state = normalize_observation(step.observation)
            state_raw = step.observation
            last = v
    return graph


def action_sequence(trajectory: Trajectory) -> list[tuple[str, str, str]]:
    """``[(s_{t-1}, key_t, raw_t)]``: the observation state under which each action was taken
    (invalid steps keep the previous valid state, as in Algorithm 1) — used to find first wrong
    steps. Pure."""
    state = normalize_observation(trajectory.initial_observation) if trajectory.initial_observation else "initial"
    out = []
    for step in trajectory.steps:
        out.append((state, normalize_action(step.action, trajectory.grammar).text(), step.action))
        if is_valid_observation(step.observation):
            state = normalize_observation(step.observation)
    return out
