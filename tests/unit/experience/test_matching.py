import warnings

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.experience.edit_path import (
    apply_edit_path,
    common_subgraph,
    edit_cost,
    graph_edit_path,
    same_labeled_graph,
)
from graphmem.experience.matching import fgw_match


@st.composite
def labeled_digraphs(draw, max_nodes=7, node_labels=4, edge_labels=3):
    n = draw(st.integers(1, max_nodes))
    g = nx.DiGraph()
    for i in range(n):
        g.add_node(i, label=draw(st.integers(0, node_labels)))
    pairs = [(u, v) for u in range(n) for v in range(n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=min(len(pairs), 12)))
    for u, v in chosen:
        g.add_edge(u, v, label=draw(st.integers(1, edge_labels)))
    return g


def _match(g, h):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fgw_match(g, h)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(labeled_digraphs(), labeled_digraphs())
def test_edit_path_turns_g_into_g_prime(g, h):
    m = _match(g, h)
    path = graph_edit_path(g, h, m.mapping)
    assert same_labeled_graph(apply_edit_path(g, path), h)
    assert len(path) == m.edit_cost
    assert m.fgw_distance >= 0.0 and m.fgw_distance == m.fgw_distance  # finite, not NaN


@settings(max_examples=40, deadline=None)
@given(labeled_digraphs())
def test_identical_graphs_empty_path_zero_distance(g):
    m = _match(g, g.copy())
    assert len(graph_edit_path(g, g, m.mapping)) == 0
    assert m.edit_cost == 0 and abs(m.fgw_distance) < 1e-12  # zero up to float rounding
    common = common_subgraph(g, g, m.mapping)
    assert common.number_of_edges() == g.number_of_edges()


def test_one_node_and_edgeless_graphs_are_finite_without_warnings():
    one = nx.DiGraph()
    one.add_node(0, label=0)
    other = nx.DiGraph()
    other.add_node(0, label=1)
    edgeless = nx.DiGraph()
    edgeless.add_nodes_from((i, {"label": i % 2}) for i in range(4))
    for g, h in [(one, one), (one, other), (one, edgeless), (edgeless, one), (edgeless, edgeless)]:
        m = _match(g, h)
        path = graph_edit_path(g, h, m.mapping)
        assert same_labeled_graph(apply_edit_path(g, path), h)
        assert 0.0 <= m.fgw_distance < float("inf")
    assert _match(one, other).edit_cost == 1
    assert _match(one, edgeless).edit_cost == 3  # one relabel-free match + 3 insertions


def _oracle(g, h):
    return nx.graph_edit_distance(
        g, h, node_match=lambda a, b: a["label"] == b["label"],
        edge_match=lambda a, b: a["label"] == b["label"], timeout=5)


@settings(max_examples=25, deadline=None)
@given(labeled_digraphs(max_nodes=5), labeled_digraphs(max_nodes=5))
def test_edit_cost_is_an_upper_bound_of_exact_ged(g, h):
    m = _match(g, h)
    exact = _oracle(g, h)
    assert m.edit_cost >= exact - 1e-9


def test_known_pair_matches_exact_ged():
    # chain INIT -> a -> b -> c versus INIT -> a -> x -> c: one node relabel
    g = nx.DiGraph()
    h = nx.DiGraph()
    for graph, labels in ((g, [0, 1, 2, 3]), (h, [0, 1, 9, 3])):
        for i, lab in enumerate(labels):
            graph.add_node(i, label=lab)
        for i in range(3):
            graph.add_edge(i, i + 1, label=i + 1)
    m = _match(g, h)
    assert m.edit_cost == 1 == _oracle(g, h)
    path = graph_edit_path(g, h, m.mapping)
    assert path.node_relabels == [(2, 2, 9)]
    assert edit_cost(g, h, m.mapping) == 1


def test_mapping_must_be_injective():
    g = nx.DiGraph()
    g.add_nodes_from([(0, {"label": 0}), (1, {"label": 1})])
    with pytest.raises(ValueError):
        graph_edit_path(g, g, {0: 0, 1: 0})
