"""Common subgraph and graph edit path from a node matching (EMG section 4.2.1, Algorithms 2
and 3 in Appendix B), for directed graphs with integer node and edge labels. Pure, no I/O.

Algorithm 3 as printed lists edge edits only between matched nodes and lets a node deletion or
insertion imply its edges. Here those edges are listed explicitly (deleted with a deleted node,
inserted with an inserted node), so ``len(path)`` is the unit-cost edit distance of the matching
and :func:`apply_edit_path` turns ``G`` into exactly ``G'``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import networkx as nx

logger = logging.getLogger(__name__)

Node = int


@dataclass
class EditPath:
    """Edit operation sets of Algorithm 3 (node ids of ``G`` for deletions/relabels, of ``G'`` for
    insertions). ``mapping`` is the matching ``M: V -> V'`` it was derived from."""

    mapping: dict[Node, Node]
    node_deletions: list[Node] = field(default_factory=list)
    node_insertions: list[tuple[Node, int]] = field(default_factory=list)          # (v, label')
    node_relabels: list[tuple[Node, int, int]] = field(default_factory=list)       # (u, l, l')
    edge_deletions: list[tuple[Node, Node]] = field(default_factory=list)          # (u1, u2)
    edge_insertions: list[tuple[Node, Node, int]] = field(default_factory=list)    # (v1, v2, l')
    edge_relabels: list[tuple[Node, Node, int, int]] = field(default_factory=list)  # (u1, u2, l, l')

    def __len__(self) -> int:
        return (len(self.node_deletions) + len(self.node_insertions) + len(self.node_relabels)
                + len(self.edge_deletions) + len(self.edge_insertions) + len(self.edge_relabels))


def common_subgraph(g: nx.DiGraph, h: nx.DiGraph, mapping: dict[Node, Node]) -> nx.DiGraph:
    """Algorithm 2: ``G_c = (V_c, E_c)`` with ``V_c`` the matched nodes of ``G`` and ``E_c`` the
    edges of ``G`` whose image under ``M`` is an edge of ``G'`` with the same edge label.

    Returns a copy of those nodes/edges of ``G`` (attributes kept); each node gets
    ``matched_to`` (its ``G'`` node) and ``same_label`` (node labels equal).
    """
    out = nx.DiGraph(**g.graph)
    for u, v in mapping.items():
        out.add_node(u, **g.nodes[u], matched_to=v,
                     same_label=g.nodes[u]["label"] == h.nodes[v]["label"])
    for u1, u2, data in g.edges(data=True):
        if u1 in mapping and u2 in mapping:
            v1, v2 = mapping[u1], mapping[u2]
            if h.has_edge(v1, v2) and h.edges[v1, v2]["label"] == data["label"]:
                out.add_edge(u1, u2, **data)
    return out


def graph_edit_path(g: nx.DiGraph, h: nx.DiGraph, mapping: dict[Node, Node]) -> EditPath:
    """Algorithm 3: the edit path ``G -> G'`` implied by the matching ``M`` (injective).

    Raises:
        ValueError: ``mapping`` is not injective or names nodes outside the graphs.
    """
    inverse = {v: u for u, v in mapping.items()}
    if len(inverse) != len(mapping) or not set(mapping) <= set(g) or not set(inverse) <= set(h):
        raise ValueError("mapping must be an injective map from nodes of G to nodes of G'")
    path = EditPath(mapping=dict(mapping))
    path.node_deletions = [u for u in g if u not in mapping]
    path.node_insertions = [(v, h.nodes[v]["label"]) for v in h if v not in inverse]
    for u, v in mapping.items():
        if g.nodes[u]["label"] != h.nodes[v]["label"]:
            path.node_relabels.append((u, g.nodes[u]["label"], h.nodes[v]["label"]))
    for u1, u2, data in g.edges(data=True):
        if u1 not in mapping or u2 not in mapping:
            path.edge_deletions.append((u1, u2))
            continue
        v1, v2 = mapping[u1], mapping[u2]
        if not h.has_edge(v1, v2):
            path.edge_deletions.append((u1, u2))
        elif data["label"] != h.edges[v1, v2]["label"]:
            path.edge_relabels.append((u1, u2, data["label"], h.edges[v1, v2]["label"]))
    for v1, v2, data in h.edges(data=True):
        if v1 not in inverse or v2 not in inverse or not g.has_edge(inverse[v1], inverse[v2]):
            path.edge_insertions.append((v1, v2, data["label"]))
    return path


def edit_cost(g: nx.DiGraph, h: nx.DiGraph, mapping: dict[Node, Node]) -> int:
    """``len(graph_edit_path(g, h, mapping))``: unit-cost edit distance of a matching."""
    return len(graph_edit_path(g, h, mapping))


def apply_edit_path(g: nx.DiGraph, path: EditPath) -> nx.DiGraph:
    """Apply ``path`` to ``g``: the result has ``G'``'s node ids, node labels, edges and edge
    labels (only ``label`` attributes are carried). Used to prove the path is legal."""
    relabel = {u: new for u, _, new in path.node_relabels}
    edge_relabel = {(u1, u2): new for u1, u2, _, new in path.edge_relabels}
    deleted_nodes = set(path.node_deletions)
    deleted_edges = set(path.edge_deletions)
    out = nx.DiGraph()
    for u in g:
        if u not in deleted_nodes:
            out.add_node(path.mapping[u], label=relabel.get(u, g.nodes[u]["label"]))
    for v, label in path.node_insertions:
        out.add_node(v, label=label)
    for u1, u2, data in g.edges(data=True):
        if (u1, u2) in deleted_edges:
            continue
        out.add_edge(path.mapping[u1], path.mapping[u2],
                     label=edge_relabel.get((u1, u2), data["label"]))
    for v1, v2, label in path.edge_insertions:
        out.add_edge(v1, v2, label=label)
    return out


def same_labeled_graph(a: nx.DiGraph, b: nx.DiGraph) -> bool:
    """True when ``a`` and ``b`` have the same node ids, node labels, edges and edge labels."""
    if set(a) != set(b) or set(a.edges) != set(b.edges):
        return False
    if any(a.nodes[n]["label"] != b.nodes[n]["label"] for n in a):
        return False
    return all(a.edges[e]["label"] == b.edges[e]["label"] for e in a.edges)
