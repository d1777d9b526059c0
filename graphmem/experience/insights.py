"""Insights from extracted structures (EMG eqs. 5 and 6).

* :func:`describe_edit_path` turns every Algorithm-3 operation into an :class:`EditRecord` with the
  observation and actions it concerns (what the graph stores as ``EditOperation`` nodes);
* :func:`workflow_rules` lists the decisions of a common subgraph (Algorithm 2) as
  ``(observation, action)`` rules;
* :func:`render_intra_heuristic` / :func:`render_cross_heuristic` render eq. 5 / eq. 6
  deterministically ("after <observation>, take <action> instead of <action>");
* :func:`render_intra_llm` / :func:`render_cross_llm` ask a langchain-core chat model with the
  paper's inputs (``q, G, G*, X`` and ``q_i, q_j, G*_i, G*_j, G^c_ij``) through
  :func:`graphmem.llm.invoke_structured`.

The renderer name ("heuristic" or "llm") is returned with each text and stored on the graph.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import networkx as nx
from pydantic import BaseModel, Field

from graphmem.experience.edit_path import EditPath
from graphmem.llm import LLMUsage, constrained_schema, invoke_structured

logger = logging.getLogger(__name__)

MAX_RULES_IN_TEXT = 20


class EditRecord(BaseModel):
    """One edit operation with its texts. ``observation``/``action_*``: the exploration side;
    ``target_observation``/``target_*``: the expert side (empty when not applicable)."""

    operation: Literal["node_deletion", "node_insertion", "node_relabel",
                       "edge_deletion", "edge_insertion", "edge_relabel"]
    position: int
    observation: str = ""
    action_key: str = ""
    action_raw: str = ""
    source_node: int | None = None
    target_observation: str = ""
    target_key: str = ""
    target_raw: str = ""
    target_node: int | None = None


class Rule(BaseModel):
    """A decision rule: under ``observation`` take ``action_key`` (``action_raw`` as typed)."""

    observation: str
    action_key: str
    action_raw: str
    source: Literal["workflow", "correction", "cross"]


class RenderedInsight(BaseModel):
    """An insight text and the renderer that produced it."""

    text: str
    renderer: Literal["heuristic", "llm"]


class InsightText(BaseModel):
    """Structured LLM output for eqs. 5 and 6."""

    insight: str = Field(description="concise, actionable guidance for the agent")


def _in_observation(graph: nx.DiGraph, node: int) -> str:
    edges = sorted(graph.in_edges(node, data=True), key=lambda e: e[2].get("step", 0))
    return edges[0][2]["observation"] if edges else ""


def describe_edit_path(g: nx.DiGraph, h: nx.DiGraph, path: EditPath) -> list[EditRecord]:
    """Every operation of ``path`` (``G`` exploration -> ``G'`` expert) as an :class:`EditRecord`,
    in a fixed order (node deletions, insertions, relabels, edge deletions, insertions, relabels)."""
    records: list[EditRecord] = []

    def add(**kwargs: Any) -> None:
        records.append(EditRecord(position=len(records), **kwargs))

    def node(graph: nx.DiGraph, n: int) -> dict[str, Any]:
        return {"key": graph.nodes[n]["key"], "raw": graph.nodes[n]["raw"]}

    for u in path.node_deletions:
        a = node(g, u)
        add(operation="node_deletion", observation=_in_observation(g, u), action_key=a["key"],
            action_raw=a["raw"], source_node=u)
    for v, _ in path.node_insertions:
        b = node(h, v)
        add(operation="node_insertion", target_observation=_in_observation(h, v),
            target_key=b["key"], target_raw=b["raw"], target_node=v)
    for u, _, _ in path.node_relabels:
        v = path.mapping[u]
        a, b = node(g, u), node(h, v)
        add(operation="node_relabel", observation=_in_observation(g, u), action_key=a["key"],
            action_raw=a["raw"], source_node=u, target_observation=_in_observation(h, v),
            target_key=b["key"], target_raw=b["raw"], target_node=v)
    for u1, u2 in path.edge_deletions:
        a = node(g, u2)
        add(operation="edge_deletion", observation=g.edges[u1, u2]["observation"],
            action_key=a["key"], action_raw=a["raw"], source_node=u2)
    for v1, v2, _ in path.edge_insertions:
        b = node(h, v2)
        add(operation="edge_insertion", target_observation=h.edges[v1, v2]["observation"],
            target_key=b["key"], target_raw=b["raw"], target_node=v2)
    for u1, u2, _, _ in path.edge_relabels:
        v1, v2 = path.mapping[u1], path.mapping[u2]
        a, b = node(g, u2), node(h, v2)
        add(operation="edge_relabel", observation=g.edges[u1, u2]["observation"],
            action_key=a["key"], action_raw=a["raw"], source_node=u2,
            target_observation=h.edges[v1, v2]["observation"], target_key=b["key"],
            target_raw=b["raw"], target_node=v2)
    return records


def workflow_rules(common: nx.DiGraph, source: Literal["workflow", "cross"] = "workflow") -> list[Rule]:
    """Decisions kept by a common subgraph (Algorithm 2): one rule per edge whose target action has
    the same label in both graphs, in trajectory order."""
    edges = sorted(common.edges(data=True), key=lambda e: e[2].get("step", 0))
    return [Rule(observation=d["observation"], action_key=common.nodes[v]["key"],
                 action_raw=common.nodes[v]["raw"], source=source)
            for _, v, d in edges if common.nodes[v].get("same_label", True)]


def correction_rules(records: list[EditRecord]) -> list[Rule]:
    """Expert-side decisions an edit path asks for (insertions and relabels)."""
    return [Rule(observation=r.target_observation, action_key=r.target_key,
                 action_raw=r.target_raw, source="correction")
            for r in records if r.target_key and r.target_observation]


def _sentence(record: EditRecord) -> str:
    op = record.operation
    if op == "node_relabel":
        return (f"after '{record.target_observation or record.observation}', take "
                f"'{record.target_raw}' instead of '{record.action_raw}'")
    if op in ("node_deletion", "edge_deletion"):
        return f"after '{record.observation}', avoid '{record.action_raw}'"
    if op == "edge_relabel":
        return (f"take '{record.action_raw}' after '{record.target_observation}', "
                f"not after '{record.observation}'")
    return f"after '{record.target_observation}', take '{record.target_raw}'"


def render_intra_heuristic(query: str, reward: float, common: nx.DiGraph,
                           records: list[EditRecord]) -> RenderedInsight:
    """Eq. 5 without an LLM: ``X`` is the common subgraph (reward 1), the edit path (reward 0), or
    both (0 < reward < 1). At most :data:`MAX_RULES_IN_TEXT` rules per part in the text;
    replacements and avoidances come before insertions."""
    parts = [f"Task: {query.strip()}"]
    if reward > 0:
        rules = workflow_rules(common)
        if rules:
            lines = [f"after '{r.observation}', {r.action_raw}" for r in rules[:MAX_RULES_IN_TEXT]]
            parts.append("Keep this workflow: " + "; ".join(lines) + ".")
    if reward < 1:
        seen: list[str] = []
        order = {"node_relabel": 0, "node_deletion": 1, "edge_deletion": 2, "edge_relabel": 3,
                 "node_insertion": 4, "edge_insertion": 5}
        for record in sorted(records, key=lambda r: (order[r.operation], r.position)):
            sentence = _sentence(record)
            if sentence not in seen:
                seen.append(sentence)
        if seen:
            parts.append("Corrections: " + "; ".join(seen[:MAX_RULES_IN_TEXT]) + ".")
        else:
            parts.append("Corrections: follow the expert workflow.")
    return RenderedInsight(text=" ".join(parts), renderer="heuristic")


def render_cross_heuristic(query_i: str, query_j: str, common: nx.DiGraph) -> RenderedInsight:
    """Eq. 6 without an LLM: the decisions shared by the expert graphs of two similar tasks."""
    rules = workflow_rules(common, "cross")
    if not rules:
        text = "The two similar tasks share no decision under the same observation."
    else:
        lines = [f"after '{r.observation}', {r.action_key}" for r in rules[:MAX_RULES_IN_TEXT]]
        text = "Shared by similar tasks: " + "; ".join(lines) + "."
    return RenderedInsight(text=text, renderer="heuristic")


def graph_lines(graph: nx.DiGraph, limit: int = 60) -> str:
    """A decision graph as text lines ``observation => action`` (for prompts)."""
    edges = sorted(graph.edges(data=True), key=lambda e: e[2].get("step", 0))
    return "\n".join(f"- '{d['observation']}' => {graph.nodes[v]['raw']}" for _, v, d in edges[:limit])


def insight_json_schema() -> dict[str, Any]:
    """The JSON schema of one insight-text call: :class:`InsightText` with a non-blank text."""
    return constrained_schema(InsightText, min_length=True)


def render_intra_llm(llm: Any, usage: LLMUsage, query: str, reward: float, exploration: nx.DiGraph,
                     expert: nx.DiGraph, common: nx.DiGraph, records: list[EditRecord]) -> RenderedInsight:
    """Eq. 5 with a chat model: ``LLM(intra-prompt(q, G, G*, X))``. One retry, then
    ControllerError (nothing is written by the caller). Counted under ``experience.intra_insight``."""
    structures = []
    if reward > 0:
        structures.append("Common subgraph (correct workflow):\n" + graph_lines(common))
    if reward < 1:
        structures.append("Graph edit path (corrections):\n"
                          + "\n".join(f"- {_sentence(r)}" for r in records[:60]))
    messages = [
        ("system", "You summarise an agent's trajectory into a short, actionable insight. "
                   "Say which actions to keep and which to replace under which observations."),
        ("human", f"Task: {query}\nExploration reward: {reward:.2f}\n"
                  f"Exploration graph:\n{graph_lines(exploration)}\n"
                  f"Expert graph:\n{graph_lines(expert)}\n" + "\n".join(structures)),
    ]
    out = invoke_structured(llm, InsightText, messages, usage, "experience.intra_insight",
                            json_schema=insight_json_schema())
    return RenderedInsight(text=out.insight, renderer="llm")


def render_cross_llm(llm: Any, usage: LLMUsage, query_i: str, query_j: str, expert_i: nx.DiGraph,
                     expert_j: nx.DiGraph, common: nx.DiGraph) -> RenderedInsight:
    """Eq. 6 with a chat model: ``LLM(cross_prompt(q_i, q_j, G*_i, G*_j, G^c_ij))``.
    Counted under ``experience.cross_insight``; ControllerError after one retry."""
    messages = [
        ("system", "You extract reusable action patterns shared by two similar tasks."),
        ("human", f"Task A: {query_i}\nExpert graph A:\n{graph_lines(expert_i)}\n"
                  f"Task B: {query_j}\nExpert graph B:\n{graph_lines(expert_j)}\n"
                  f"Common subgraph:\n{graph_lines(common)}"),
    ]
    out = invoke_structured(llm, InsightText, messages, usage, "experience.cross_insight",
                            json_schema=insight_json_schema())
    return RenderedInsight(text=out.insight, renderer="llm")
