"""Counts say what they count: every memory's ``counts()`` (and the facade's) holds node labels
only, ``relationship_counts()`` holds relationship types, and the demo prints the two under
their own headings."""

from __future__ import annotations

import io
from types import SimpleNamespace

from fake_runner import FakeRunner
from rich.console import Console

from graphmem.embeddings import HashingEmbedder
from graphmem.facade import GraphMemory
from graphmem.memory import memory_names, memory_spec

#: Scripted answers of each built-in memory's own count query (every number distinct).
STORE_ROWS = {
    "associative/count_structure": [{
        "episodes": 18, "cues": 40, "tags": 33, "semantic_units": 2, "themes": 1, "timelines": 1,
        "has_tag": 33, "leads_to": 50, "next_episode": 17, "derived_from": 2, "groups": 18}],
    "experience/count_memory": [{"tasks": 12, "graphs": 16, "actions": 90,
                                 "edit_operations": 7, "similar_edges": 30,
                                 "decided_edges": 1538}],
    "insight/count_insight_graph": [{"queries": 3, "steps": 7, "active_insights": 2,
                                     "archived_insights": 1, "revisions": 1,
                                     "decisions": [{"operation": "ADD", "count": 3}]}],
    "state/count_state_structure": [{"topics": 4, "events": 18, "states": 9, "locks": 1,
                                     "persons": 3, "bad_current": 0, "unchained": 0}],
}

#: Relationships by type of each memory, answered per label set.
RELATIONSHIPS = {
    "Episode": [{"type": "HAS_TAG", "relationships": 33},
                {"type": "NEXT_EPISODE", "relationships": 17}],
    "Task": [{"type": "DECIDED", "relationships": 1538},
             {"type": "SIMILAR_TASK", "relationships": 30}],
    "Query": [{"type": "NEXT_STEP", "relationships": 4},
              {"type": "REVISION_OF", "relationships": 0}],
    "Topic": [{"type": "TEMPORAL_NEXT", "relationships": 14}],
}


def _relationships(params: dict) -> list[dict]:
    return next((rows for label, rows in RELATIONSHIPS.items() if label in params["labels"]), [])


def _facade() -> tuple[GraphMemory, FakeRunner]:
    runner = FakeRunner({**STORE_ROWS, "core/count_memory_relationships": _relationships})
    mem = object.__new__(GraphMemory)  # no database: skip the vector-index check
    mem._setup(runner, HashingEmbedder(384), "team-a", None)
    return mem, runner


def test_each_memory_counts_its_labels_and_nothing_else() -> None:
    mem, _ = _facade()
    for name in memory_names():
        counts = mem.memory(name).counts()
        assert list(counts) == list(memory_spec(name).labels), name
        assert all(isinstance(n, int) for n in counts.values())
    assert mem.experience.counts() == {"Task": 12, "DecisionGraph": 16, "Action": 90,
                                       "EditOperation": 7}
    assert mem.insight.counts() == {"Query": 3, "Step": 7, "Insight": 3,
                                    "ControllerDecision": 3}


def test_relationship_counts_ask_for_the_memorys_own_labels_in_its_namespace() -> None:
    mem, runner = _facade()
    assert mem.experience.relationship_counts() == {"DECIDED": 1538, "SIMILAR_TASK": 30}
    name, params = runner.calls[-1]
    assert name == "core/count_memory_relationships"
    assert params == {"namespace": "team-a", "labels": list(memory_spec("experience").labels)}
    # a type without any relationship is left out
    assert mem.insight.relationship_counts() == {"NEXT_STEP": 4}


def test_the_facade_keeps_nodes_and_relationships_apart() -> None:
    mem, _ = _facade()
    nodes, edges = mem.counts(), mem.relationship_counts()
    assert set(nodes) == set(edges) == set(memory_names())
    for name in memory_names():
        labels = set(memory_spec(name).labels)
        assert set(nodes[name]) == labels
        assert not set(edges[name]) & labels
        assert all(kind.isupper() for kind in edges[name])
    assert edges["associative"] == {"HAS_TAG": 33, "NEXT_EPISODE": 17}
    assert nodes["associative"]["Episode"] == 18


def test_the_rendered_query_keeps_both_ends_in_the_namespace() -> None:
    from fake_runner import registry

    text = registry().get("core/count_memory_relationships").text
    assert "a.namespace = $namespace" in text and "b.namespace = $namespace" in text
    assert "{{MEMORY_LABELS}}" not in text and "Episode" in text


def test_the_demo_table_puts_relationship_types_under_their_own_heading() -> None:
    from graphmem.demo_report import Timings, print_summary

    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=False, color_system=None)
    timings = Timings()
    timings.steps.append(("Recall", 1.5))
    counts = {"nodes": {"Action": 90, "Episode": 18},
              "relationships": {"DECIDED": 1538, "HAS_TAG": 33}}
    settings = SimpleNamespace(bolt_port=7687, browser_port=7474)
    print_summary(console, timings, counts, 0, "demo", settings, SimpleNamespace(uri="bolt://x"))
    text = out.getvalue()
    nodes_at = text.index("nodes in namespace 'demo'")
    relationships_at = text.index("relationships in namespace 'demo'")
    assert nodes_at < text.index("Action") < text.index("Episode") < relationships_at
    assert relationships_at < text.index("DECIDED") < text.index("HAS_TAG")
    assert "1538" in text[relationships_at:] and "1538" not in text[:relationships_at]
