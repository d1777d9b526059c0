"""Experience memory on real Neo4j with a small ScienceWorld slice and real explorations."""

from __future__ import annotations

import json

import pytest

from graphmem.errors import TrajectoryError
from graphmem.experience import ExperienceMemory, read_trajectories
from graphmem.experience.trajectories import Trajectory


def _slice(sample_data, n=12):
    return read_trajectories(sample_data / "scienceworld" / "sciworld_gold_train.jsonl", limit=n)


def _exploration(expert: Trajectory) -> Trajectory:
    # an exploration that takes one wrong action after the first step and stops early (reward 0)
    steps = [expert.steps[0].model_dump(),
             {"action": "focus on agent", "observation": "You focus on the agent."},
             *[s.model_dump() for s in expert.steps[1:4]]]
    return expert.model_copy(update={"kind": "exploration", "reward": 0.0,
                                     "steps": [type(expert.steps[0])(**s) for s in steps]})


def test_build_browse_rebuild_and_recall(runner, embedder, namespace, sample_data):
    experts = _slice(sample_data)
    explorations = [_exploration(experts[0]), _exploration(experts[3])]
    mem = ExperienceMemory(runner=runner, embedder=embedder, namespace=namespace)
    report = mem.ingest(experts, explorations=explorations, k=3, tau=0.5)
    assert report.inputs == 12 and report.details["explorations"] == 2
    assert report.extractor == "heuristic"
    counts = mem.counts()
    assert counts["Task"] == 12
    assert counts["DecisionGraph"] == 12 + 2 * 2     # expert for all, exploration + common for 2
    assert counts["EditOperation"] > 0
    assert 0 < mem.relationship_counts()["SIMILAR_TASK"] <= 12 * 3
    labels = ("Task", "DecisionGraph", "Action", "EditOperation")
    assert report.created == {label: counts[label] for label in labels}

    # browsable: the exploration's decision graph starts at INIT with DECIDED edges
    task_id = [r for r in runner.read("experience/find_tasks", namespace=namespace,
                                      embedding=[float(x) for x in embedder.embed_query(experts[0].query)],
                                      k=1, since=None, until=None)][0]["id"]
    workflow, edits = mem.store.find_rules([task_id])
    assert workflow[task_id] and edits[task_id]
    assert any(e["operation"] in ("node_deletion", "edge_deletion") and e["action_key"] == "focus agent"
               for e in edits[task_id])

    # rebuilding from the same input adds nothing
    again = mem.ingest(experts, explorations=explorations, k=3, tau=0.5)
    assert again.created == {} and again.skipped == {"task": 12}
    assert mem.counts() == counts

    result = mem.recall(experts[0].query, k=2, t=2)
    top = result.items[0]
    assert top.task_key == experts[0].task_id and top.score > 0.99
    assert "avoid 'focus on agent'" in top.intra_insight
    assert top.source_ids[0] == experts[0].task_id and top.text.startswith("Task: ")
    assert len(top.cross) <= 2
    assert len({c.neighbour_id for c in top.cross}) == len(top.cross)  # one edge per neighbour
    for cross in top.cross:
        assert cross.renderer == "heuristic" and -1.0 <= cross.neighbour_similarity <= 1.0
    json.dumps(result.model_dump())


def test_namespaces_do_not_leak(runner, embedder, namespace, sample_data):
    experts = _slice(sample_data, 3)
    ExperienceMemory(runner=runner, embedder=embedder, namespace=namespace).ingest(experts)
    other = ExperienceMemory(runner=runner, embedder=embedder, namespace=namespace + "-other")
    try:
        assert other.recall(experts[0].query, k=3).items == []
    finally:
        runner.write("core/delete_namespace", namespace=namespace + "-other")


def test_bad_input_writes_nothing(runner, embedder, namespace, sample_data):
    experts = _slice(sample_data, 3)
    mem = ExperienceMemory(runner=runner, embedder=embedder, namespace=namespace)
    stray = experts[0].model_copy(update={"task_id": "nope", "kind": "exploration"})
    with pytest.raises(TrajectoryError, match="'nope'"):
        mem.ingest(experts, explorations=[stray])
    assert mem.counts()["Task"] == 0


def test_build_from_files_with_real_explorations(runner, embedder, namespace, sample_data, tmp_path):
    # a few real simulator explorations (recorded by `graphmem experience explore`) for the slice
    experts_path = sample_data / "scienceworld" / "sciworld_gold_train.jsonl"
    first = [json.loads(line) for line in experts_path.read_text().splitlines()[:2]]
    run = {**first[1], "steps": first[1]["steps"][:3], "final_score": 10, "kind": "exploration"}
    explorations = tmp_path / "explorations.jsonl"
    explorations.write_text(json.dumps(run) + "\n")
    mem = ExperienceMemory(runner=runner, embedder=embedder, namespace=namespace)
    report = mem.ingest_files(experts_path, explorations, limit=5)
    assert report.inputs == 5 and report.details["explorations"] == 1
    assert mem.counts()["EditOperation"] > 0
