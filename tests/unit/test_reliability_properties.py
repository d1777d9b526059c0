"""Property-based tests (hypothesis) for the pure algorithms and the Cypher registry:
EvoGraph-Mem scoring (eqs. 2-4, 7-10), EMG decision graphs (Algorithm 1), node_id determinism and
injectivity, and the registry's header parsing. Edit paths and FGW matching have their own
properties in tests/unit/experience/test_matching.py."""

from __future__ import annotations

import dataclasses

import re
import uuid
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.errors import QueryRegistryError
from graphmem.experience.actions import normalize_action
from graphmem.experience.decision_graph import LabelVocabulary, build_decision_graph
from graphmem.experience.trajectories import Trajectory
from graphmem.graph.registry import expand_template
from graphmem.graph.registry import MEMORY_LABELS, CypherRegistry, parse_query, used_params
from graphmem.insight.scoring import InsightEvidence, candidates, expand_queries, score, top_b
from graphmem.memory import all_labels
from graphmem.memory_registry import embedded_labels
from graphmem.names import node_id

QIDS = [f"q{i}" for i in range(8)]
query_sets = st.frozensets(st.sampled_from(QIDS), max_size=8)
insights = st.lists(
    st.builds(InsightEvidence, id=st.sampled_from([f"i{i}" for i in range(12)]),
              omega_plus=query_sets, omega_minus=query_sets, active=st.booleans()),
    max_size=12, unique_by=lambda i: i.id)
edges = st.lists(st.tuples(st.sampled_from(QIDS), st.sampled_from(QIDS)), max_size=12)


# ---------------------------------------------------------------- EvoGraph-Mem scoring
@given(st.lists(st.sampled_from(QIDS), max_size=4), edges)
def test_expansion_is_seeds_plus_their_undirected_neighbours(seeds, related) -> None:
    expanded = expand_queries(seeds, related)
    reversed_expanded = expand_queries(seeds, [(b, a) for a, b in related])
    assert expanded == reversed_expanded                       # N(q) ignores direction (eq. 3)
    assert set(seeds) <= expanded                             # eq. 4 keeps the seeds
    for q in expanded - set(seeds):
        assert any((a in seeds and b == q) or (b in seeds and a == q) for a, b in related)


@given(insights, query_sets, st.floats(0, 5), st.integers(1, 12))
def test_top_b_matches_a_brute_force_ranking(items, expanded, lam, b) -> None:
    result = top_b(items, expanded, lam, b)
    expected = []
    for i in items:                                            # eq. 7, then eqs. 8-9
        if i.active and i.omega_plus & expanded:
            s, c = len(i.omega_plus & expanded), len(i.omega_minus & expanded)
            expected.append((-(s - lam * c), -s, i.id))
    expected.sort()
    assert [r.id for r in result] == [e[2] for e in expected[:b]]
    for r in result:
        assert r.s >= 1 and r.r == pytest.approx(r.s - lam * r.c)
        assert set(r.supporting_query_ids) <= expanded and set(r.conflicting_query_ids) <= expanded


@given(insights, query_sets, st.floats(0, 3), st.floats(0, 3))
def test_a_larger_lambda_never_raises_a_score(items, expanded, lam1, lam2) -> None:
    low, high = sorted((lam1, lam2))
    for item in candidates(items, expanded):
        assert score(item, expanded, high).r <= score(item, expanded, low).r + 1e-12


@given(insights, query_sets)
def test_lambda_zero_ranks_by_support_only(items, expanded) -> None:
    result = top_b(items, expanded, 0.0, 12)
    assert [r.s for r in result] == sorted((r.s for r in result), reverse=True)
    assert all(r.r == r.s for r in result)


# ---------------------------------------------------------------- EMG decision graphs
ACTIONS = ["go to desk 1", "go to shelf 2", "take pen 1 from desk 1", "open drawer 1",
           "put pen 1 in/on shelf 2", "look", "examine pen 1"]
OBSERVATIONS = ["Nothing happens.", "You arrive at desk 1.", "You open the drawer 1.",
                "You pick up the pen 1.", "On the shelf 2, you see nothing."]
steps = st.lists(st.tuples(st.sampled_from(ACTIONS), st.sampled_from(OBSERVATIONS)),
                 min_size=1, max_size=15)


def _trajectory(pairs) -> Trajectory:
    return Trajectory(task_id="t", query="put the pen on the shelf", initial_observation="A room.",
                      steps=[{"action": a, "observation": o} for a, o in pairs], reward=1.0,
                      grammar="alfworld")


@given(steps)
@settings(max_examples=80, deadline=None)
def test_decision_graph_invariants(pairs) -> None:
    g = build_decision_graph(_trajectory(pairs))
    keys = {normalize_action(a, "alfworld").text() for a, _ in pairs}
    assert g.number_of_nodes() == 1 + len(keys)                 # one node per action tuple + INIT
    assert {d["key"] for n, d in g.nodes(data=True) if n != 0} == keys
    assert g.in_degree(0) == 0                                   # INIT is never decided
    assert nx.descendants(g, 0) == set(g.nodes) - {0}            # every action reached from INIT
    assert all(1 <= d["step"] <= len(pairs) for *_, d in g.edges(data=True))
    assert g.number_of_edges() <= len(pairs)                     # at most one new edge per step
    labels = [d["label"] for _, d in g.nodes(data=True)]
    assert len(set(labels)) == len(labels)                       # distinct contents, distinct labels


@given(steps, steps)
@settings(max_examples=40, deadline=None)
def test_decision_graph_is_deterministic_and_labels_are_shared(a, b) -> None:
    vocab = LabelVocabulary()
    g1, g2 = build_decision_graph(_trajectory(a), vocab), build_decision_graph(_trajectory(b), vocab)
    again = build_decision_graph(_trajectory(a), LabelVocabulary())
    assert nx.utils.graphs_equal(g1, again)
    by_key = {}
    for g in (g1, g2):
        for _, d in g.nodes(data=True):
            assert by_key.setdefault(d["key"], d["label"]) == d["label"]


# ---------------------------------------------------------------- node ids
namespaces = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,20}", fullmatch=True)
parts = st.lists(st.text(max_size=12).filter(lambda t: not re.search(r"[\ud800-\udfff]", t)),
                 max_size=4)


@given(namespaces, st.sampled_from(["query", "event", "task"]), parts)
def test_node_id_is_a_deterministic_uuid5(ns, kind, key) -> None:
    a, b = node_id(ns, kind, *key), node_id(ns, kind, *key)
    assert a == b and uuid.UUID(a).version == 5


@given(namespaces, namespaces, parts, parts)
def test_node_id_is_injective(ns1, ns2, key1, key2) -> None:
    same = (ns1, key1) == (ns2, key2)
    assert (node_id(ns1, "event", *key1) == node_id(ns2, "event", *key2)) == same


def test_separator_inside_a_key_part_does_not_collide() -> None:
    assert node_id("ns", "event", "a\x1fb") != node_id("ns", "event", "a", "b")
    assert node_id("ns", "event", "a\x1e", "\x1fb") != node_id("ns", "event", "a\x1e\x1f", "b")


# ---------------------------------------------------------------- Cypher registry
param_names = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), min_size=1,
                       max_size=5, unique=True)


def _source(declared: str, body: str, mode: str = "read") -> str:
    return f"// description: d\n// params: {declared}\n// returns: x\n// mode: {mode}\n{body}"


@given(param_names, st.randoms(use_true_random=False), st.sampled_from([", ", ",", " , "]),
       st.booleans())
def test_declared_params_parse_in_any_order_and_spacing(names, rnd, sep, dollar) -> None:
    shuffled = list(names)
    rnd.shuffle(shuffled)
    declared = sep.join(("$" if dollar else "") + n for n in shuffled)
    body = "RETURN " + ", ".join(f"${n} AS c{i}" for i, n in enumerate(names))
    query = parse_query("m/q", _source(declared, body), Path("q.cypher"))
    assert query.params == frozenset(names)


@given(param_names, st.data())
def test_a_missing_or_extra_declared_param_is_refused_naming_the_file(names, data) -> None:
    body = "RETURN " + ", ".join(f"${n} AS c{i}" for i, n in enumerate(names))
    dropped = data.draw(st.sampled_from(names))
    with pytest.raises(QueryRegistryError, match=r"bad\.cypher.*undeclared"):
        parse_query("m/q", _source(", ".join(n for n in names if n != dropped) or "none", body),
                    Path("bad.cypher"))
    with pytest.raises(QueryRegistryError, match=r"bad\.cypher.*unused: \['zz_extra'\]"):
        parse_query("m/q", _source(", ".join([*names, "zz_extra"]), body), Path("bad.cypher"))


@given(st.text(alphabet=st.characters(blacklist_characters="'\"\n\\"), max_size=30), param_names)
def test_dollar_words_in_strings_and_comments_are_not_params(text, names) -> None:
    body = (f"MATCH (n) WHERE n.t = '{text} $fake' AND n.u = \"$other\" // ${names[0]}x\n"
            f"RETURN " + ", ".join(f"${n} AS c{i}" for i, n in enumerate(names)))
    assert used_params(body) == set(names)


def test_every_shipped_query_is_parsed_consistently() -> None:
    registry = CypherRegistry.load()
    for name in registry.names():
        q = registry.get(name)
        assert q.params == frozenset(used_params(q.text)), name
        assert q.mode in ("read", "write") and q.description, name
        base, _, value = name.partition("@")
        parsed = parse_query(base, q.path.read_text(encoding="utf-8"), q.path)
        expanded = expand_template(parsed)
        if parsed.template and expanded == [parsed]:  # over a label list: one query per label
            key = parsed.template.split("=")[0].strip()
            expanded = [dataclasses.replace(parsed, name=name, template="", text=parsed.text
                                            .replace("{{" + key + "}}", value)
                                            .replace("{{" + key.lower() + "}}", value.lower()))]
        [reparsed] = [x for x in expanded if x.name == name]
        rendered = (reparsed.text.replace(MEMORY_LABELS, "|".join(all_labels()))
                    .replace("{{EMBEDDED_LABELS}}", "|".join(embedded_labels())))
        assert dataclasses.replace(reparsed, text=rendered) == q
