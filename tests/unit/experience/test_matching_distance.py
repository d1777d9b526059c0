"""fgw_match reports the true FGW objective of the coupling it keeps (never a hard-coded 0), and
trajectory numbers that are not finite are refused."""

from __future__ import annotations

import json
import math

import networkx as nx
import numpy as np
import ot
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.errors import InvalidInputError, TrajectoryError
from graphmem.experience.matching import adjacency, feature_cost, fgw_match, fgw_objective
from graphmem.experience.scores import check_finite_scores


def _chain(labels: list[int], edge_label: int = 1) -> nx.DiGraph:
    g = nx.DiGraph()
    for i, label in enumerate(labels):
        g.add_node(i, label=label)
    for i in range(len(labels) - 1):
        g.add_edge(i, i + 1, label=edge_label)
    return g


def test_disjoint_graphs_have_a_positive_distance() -> None:
    m = fgw_match(_chain([1, 2, 3]), _chain([7, 8, 9], edge_label=2))
    assert m.fgw_distance > 0.1 and m.edit_cost > 0


def test_identical_graphs_have_distance_zero() -> None:
    g = _chain([1, 2, 3, 2])
    m = fgw_match(g, g.copy())
    assert m.edit_cost == 0 and m.fgw_distance == pytest.approx(0.0, abs=1e-12)


def test_objective_agrees_with_pot_on_the_same_plan() -> None:
    g, h = _chain([1, 2, 3]), _chain([1, 3])
    nodes_g, nodes_h, size = sorted(g), sorted(h), 3
    cost = feature_cost(g, h, nodes_g, nodes_h, size) / size
    c1, c2 = adjacency(g, nodes_g, size), adjacency(h, nodes_h, size)
    p = np.full(size, 1 / size)
    plan, log = ot.gromov.fused_gromov_wasserstein(cost, c1, c2, p, p, symmetric=False,
                                                   alpha=0.5, log=True)
    assert fgw_objective(cost, c1, c2, plan, 0.5) == pytest.approx(log["fgw_dist"], abs=1e-9)
    with pytest.raises(ValueError, match="plan has NaN"):
        fgw_objective(cost, c1, c2, np.full((3, 3), np.nan), 0.5)


@st.composite
def labeled_digraphs(draw, max_nodes=6):
    n = draw(st.integers(1, max_nodes))
    g = nx.DiGraph()
    for i in range(n):
        g.add_node(i, label=draw(st.integers(0, 4)))
    pairs = [(u, v) for u in range(n) for v in range(n)]
    for u, v in draw(st.lists(st.sampled_from(pairs), unique=True, max_size=10)):
        g.add_edge(u, v, label=draw(st.integers(1, 3)))
    return g


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(labeled_digraphs(), labeled_digraphs())
def test_distance_is_finite_and_non_negative(g, h) -> None:
    m = fgw_match(g, h)
    assert math.isfinite(m.fgw_distance) and m.fgw_distance >= 0.0


@pytest.mark.parametrize(("text", "field"), [
    ('{"task_id": "t", "final_score": Infinity, "steps": []}', "final_score"),
    ('{"task_id": "t", "final_score": -Infinity}', "final_score"),
    ('{"task_id": "t", "reward": NaN}', "reward"),
    ('{"task_id": "t", "steps": [{"action": "a", "score": 1}, {"action": "b", "score": NaN}]}',
     r"steps\[1\]\.score"),
])
def test_non_finite_scores_are_refused_at_the_reader(text, field) -> None:
    record = json.loads(text)          # json accepts Infinity and NaN
    with pytest.raises(TrajectoryError, match=rf"data.jsonl:3: {field} is (-?inf|nan)"):
        check_finite_scores(record, "data.jsonl:3")
    assert issubclass(TrajectoryError, InvalidInputError)


def test_finite_records_pass_unchanged() -> None:
    record = {"final_score": 87, "steps": [{"action": "a", "score": 12.5}, "odd"], "reward": None}
    assert check_finite_scores(record, "x") is record
    assert check_finite_scores(["not", "a", "record"], "x") == ["not", "a", "record"]
