"""Experience memory orchestration without a database (fake runner, hash embedder)."""

from __future__ import annotations

from fake_runner import FakeRunner, HashEmbedder

from graphmem.experience import ExperienceMemory

TASK = {"id": "t-id", "task_key": "task-1", "query": "heat some egg", "task_type": "heat",
        "reward": 0.5, "intra_insight": "open the microwave first", "intra_renderer": "heuristic",
        "has_exploration": True, "score": 0.95}
EDGE = {"neighbour_id": "n-id", "neighbour_key": "task-2", "neighbour_query": "heat a potato",
        "neighbour_score": 0.9, "similarity": 0.8, "insight": "both heat in the microwave",
        "renderer": "heuristic", "observations": ["o"], "actions": ["heat"], "raw": ["heat x"]}


def test_recall_builds_items_from_tasks_neighbours_and_rules() -> None:
    runner = FakeRunner({
        "experience/find_tasks": [TASK],
        "experience/find_task_neighbours": [{"task_id": "t-id", "edges": [EDGE]}],
        "experience/find_workflow_rules": [{"task_id": "t-id", "observation": "o",
                                            "action_key": "open", "action_raw": "open it"}],
        "experience/find_correction_rules": []})
    result = ExperienceMemory(runner, HashEmbedder(), "ns-unit").recall("heat an egg", k=1, t=2)
    assert runner.names() == ["experience/find_tasks", "experience/find_task_neighbours",
                              "experience/find_workflow_rules", "experience/find_correction_rules"]
    assert dict(runner.calls)["experience/find_task_neighbours"]["t"] == 2
    [item] = result.items
    assert item.text == ("Task: heat some egg\nInsight: open the microwave first\n"
                         "Related task task-2: both heat in the microwave")
    assert round(item.score, 6) == 0.9  # cosine = 2 * 0.95 - 1
    assert item.source_ids == ["task-1", "task-2"] and item.reward == 0.5
    assert [(s.action, s.id) for s in item.path] == [("ask", "question"), ("vector_task", "t-id"),
                                                     ("SIMILAR_TASK", "n-id")]
    assert item.workflow_rules == [{"observation": "o", "action_key": "open",
                                    "action_raw": "open it"}]
    doc = ExperienceMemory(runner, HashEmbedder(), "ns-unit").documents(result)[0]
    assert doc.metadata["provenance"]["task_ids"] == ["task-1", "task-2"]
    assert doc.metadata["node_ids"] == ["t-id", "n-id"]


def test_recall_without_rules_skips_rule_queries() -> None:
    runner = FakeRunner({"experience/find_tasks": [TASK]})
    ExperienceMemory(runner, HashEmbedder(), "ns-unit").recall("x", k=1, t=0, with_rules=False)
    assert runner.names() == ["experience/find_tasks"]
