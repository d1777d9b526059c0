"""Graph matching of action decision graphs with Fused Gromov-Wasserstein (EMG section 4.2.1,
eqs. 3 and 4), using POT and a hard partial matching by linear assignment (scipy).

Both graphs are padded with isolated dummy nodes to ``N = max(|V|, |V'|)`` (as FGWAlign does), so
matching a real node to a dummy means deletion/insertion. Costs:

* feature cost ``C`` (eq. 3, first term): node relabel cost ``[l_n(i) != l_n(j)]`` (1 against a
  dummy), plus half the Jaccard distance of the nodes' incoming and outgoing edge-label sets, so
  the observations an action was decided under (edge labels) steer the match; scaled by ``1/N`` so
  node and edge mismatches weigh the same as in a unit-cost edit distance;
* structure cost: the directed adjacency matrices with POT's square loss and ``symmetric=False``
  (each directed edge counted once; the paper drops the 1/2 factor for the same reason).

The soft plan ``pi*`` is projected to a permutation by ``linear_sum_assignment`` (eq. 4); pairs with
a dummy are unmatched. Like FGWAlign, several starts are tried (the product coupling and the
label-equality assignment) and the matching with the shortest edit path (Algorithm 3) is kept.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import networkx as nx
import numpy as np
import ot
from scipy.optimize import linear_sum_assignment

from graphmem.experience.edit_path import edit_cost

Node = int


@dataclass
class Matching:
    """A hard partial node matching ``M: V -> V'`` with its FGW value and timing.

    ``fgw_distance``: the FGW objective of the kept plan (>= 0; 0 for identical graphs).
    ``edit_cost``: length of the Algorithm-3 edit path of ``mapping``. ``seconds``: wall time.
    """

    mapping: dict[Node, Node]
    fgw_distance: float
    edit_cost: int
    seconds: float


def _signature(graph: nx.DiGraph, node: Node) -> tuple[frozenset[int], frozenset[int]]:
    ins = frozenset(d["label"] for _, _, d in graph.in_edges(node, data=True))
    outs = frozenset(d["label"] for _, _, d in graph.out_edges(node, data=True))
    return ins, outs


def _jaccard_distance(a: frozenset[int], b: frozenset[int]) -> float:
    if not a and not b:
        return 0.0
    return 1.0 - len(a & b) / len(a | b)


def feature_cost(g: nx.DiGraph, h: nx.DiGraph, nodes_g: list[Node], nodes_h: list[Node], size: int) -> np.ndarray:
    """``(N, N)`` float64 feature cost between padded node lists (see module docstring), unscaled."""
    cost = np.ones((size, size), dtype=np.float64)
    cost[len(nodes_g):, len(nodes_h):] = 0.0
    labels_g = np.array([g.nodes[n]["label"] for n in nodes_g])
    labels_h = np.array([h.nodes[n]["label"] for n in nodes_h])
    relabel = (labels_g[:, None] != labels_h[None, :]).astype(np.float64)
    sig_g = [_signature(g, n) for n in nodes_g]
    sig_h = [_signature(h, n) for n in nodes_h]
    edges = np.array([[0.5 * (_jaccard_distance(a[0], b[0]) + _jaccard_distance(a[1], b[1]))
                       for b in sig_h] for a in sig_g]).reshape(len(nodes_g), len(nodes_h))
    cost[: len(nodes_g), : len(nodes_h)] = relabel + 0.5 * edges
    return cost


def adjacency(graph: nx.DiGraph, nodes: list[Node], size: int) -> np.ndarray:
    """``(N, N)`` float64 directed adjacency of ``nodes`` padded with zeros."""
    matrix = np.zeros((size, size), dtype=np.float64)
    index = {n: i for i, n in enumerate(nodes)}
    for u, v in graph.edges:
        matrix[index[u], index[v]] = 1.0
    return matrix


def _project(plan: np.ndarray, nodes_g: list[Node], nodes_h: list[Node]) -> dict[Node, Node]:
    rows, cols = linear_sum_assignment(plan, maximize=True)
    return {nodes_g[r]: nodes_h[c] for r, c in zip(rows, cols)
            if r < len(nodes_g) and c < len(nodes_h)}


def fgw_match(g: nx.DiGraph, h: nx.DiGraph, alpha: float = 0.5, max_iter: int = 200) -> Matching:
    """Match ``G`` to ``G'`` (eqs. 3, 4): FGW soft plan with POT, hard partial matching by
    linear assignment, best of two starts by Algorithm-3 edit cost.

    Args:
        g, h: action decision graphs with integer ``label`` on nodes and edges (same vocabulary).
        alpha: POT's trade-off between feature cost (``1 - alpha``) and structure (``alpha``).
        max_iter: conditional-gradient iterations per start.
    Returns:
        :class:`Matching`; finite for one-node and edgeless graphs.
    """
    began = time.perf_counter()
    nodes_g, nodes_h = sorted(g), sorted(h)
    size = max(len(nodes_g), len(nodes_h), 1)
    cost = feature_cost(g, h, nodes_g, nodes_h, size)
    rows, cols = linear_sum_assignment(cost)
    start = np.zeros((size, size))
    start[rows, cols] = 1.0 / size
    candidates = [(_project(start, nodes_g, nodes_h), 0.0)]
    if size > 1:
        c1, c2 = adjacency(g, nodes_g, size), adjacency(h, nodes_h, size)
        p = np.full(size, 1.0 / size)
        for init in (start, None):
            plan, log = ot.gromov.fused_gromov_wasserstein(
                cost / size, c1, c2, p, p, loss_fun="square_loss", symmetric=False,
                alpha=alpha, G0=init, log=True, max_iter=max_iter,
            )
            value = float(log.get("fgw_dist", 0.0))
            if np.all(np.isfinite(plan)):
                candidates.append((_project(plan, nodes_g, nodes_h), max(value, 0.0)))
    scored = [(edit_cost(g, h, m), d, m) for m, d in candidates]
    best_cost, best_distance, best = min(scored, key=lambda item: (item[0], item[1]))
    if best_cost == 0:
        best_distance = 0.0
    return Matching(mapping=best, fgw_distance=best_distance, edit_cost=best_cost,
                    seconds=time.perf_counter() - began)
