"""The memory contract on a real Neo4j, for all four memories with small inputs built here:
``recall(query, k=5)`` gives the one RecallResult type with at most 5 items that carry their
upstream ids; the insight memory's ``ingest`` reports what the database created and skips
stored records."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from graphmem.associative import AssociativeMemory
from graphmem.conversations import Conversation, Turn
from graphmem.experience import ExperienceMemory, Trajectory
from graphmem.insight import InsightMemory
from graphmem.memory import RecallResult
from graphmem.state import StateMemory

TEXTS = ["I moved to Lyon last spring.", "My sister Ana plays the violin.",
         "We adopted a dog called Rex.", "I started working as a nurse in May.",
         "Rex loves long walks by the river.", "Ana has a concert in Paris next week.",
         "I now live in Paris, not Lyon.", "My favourite book is Dune."]


def _conversation() -> Conversation:
    start = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
    turns = [Turn(source_id=f"D1:{i + 1}", speaker="Ann", text=text,
                  timestamp=start + timedelta(hours=i), position=i)
             for i, text in enumerate(TEXTS)]
    return Conversation(id="contract-conv", speakers=["Ann"], turns=turns)


def _trajectories() -> list[Trajectory]:
    tasks = [("t1", "heat some water in the kettle", ["go to kitchen", "fill kettle", "boil water"]),
             ("t2", "heat some milk in the pot", ["go to kitchen", "fill pot", "heat pot"]),
             ("t3", "put the book on the shelf", ["take book", "go to shelf", "put book"]),
             ("t4", "put the mug in the cupboard", ["take mug", "open cupboard", "put mug"]),
             ("t5", "boil an egg in the pot", ["go to kitchen", "fill pot", "boil egg"]),
             ("t6", "water the plant", ["take can", "go to plant", "water plant"])]
    return [Trajectory.model_validate({
        "task_id": key, "query": query, "kind": "expert", "reward": 1.0,
        "steps": [{"action": a, "observation": f"You {a}."} for a in actions]})
        for key, query, actions in tasks]


def _feedback() -> list[dict]:
    return [{"query": "heat some water", "status": "resolved", "task_id": "f1",
             "trajectory": ["go to kitchen", "fill kettle", "boil water"]},
            {"query": "heat some milk", "status": "failed", "task_id": "f2",
             "trajectory": ["go to garden"]},
            {"query": "boil water for tea", "status": "resolved", "task_id": "f3",
             "trajectory": ["fill kettle", "boil water", "pour tea"]}]


def test_insight_ingest_reports_what_the_database_holds(runner, embedder, namespace) -> None:
    mem = InsightMemory(runner, embedder, namespace)
    seen: list[int] = []
    report = mem.ingest(_feedback(), progress=seen.append)
    counts = mem.counts()
    assert report.inputs == 3 and seen == [1, 1, 1] and report.skipped == {}
    labels = ("Query", "Step", "Insight", "ControllerDecision")
    assert report.created == {label: counts[label] for label in labels if counts[label]}
    assert report.created["Query"] == 3 and report.created["Step"] == 7
    again = mem.ingest(_feedback())
    assert again.created == {} and again.skipped == {"record": 3}
    assert mem.counts() == counts


def test_recall_k5_is_the_one_result_type_on_every_memory(runner, embedder, namespace) -> None:
    conversation = _conversation()
    state = StateMemory(runner, embedder, namespace)
    associative = AssociativeMemory(runner, embedder, namespace)
    experience = ExperienceMemory(runner, embedder, namespace)
    insight = InsightMemory(runner, embedder, namespace)
    state.ingest([conversation])
    associative.ingest([conversation])
    experience.ingest(_trajectories(), k=2, tau=0.0)
    insight.ingest(_feedback())
    questions = {state: "Where does Ann live now?", associative: "What does Ana play?",
                 experience: "heat some soup in the pot", insight: "heat some water quickly"}
    for memory, question in questions.items():
        result = memory.recall(question, k=5)
        assert isinstance(result, RecallResult)
        assert result.memory == memory.name and result.namespace == namespace
        assert 0 < len(result.items) <= 5, memory.name
        assert all(item.source_ids for item in result.items), memory.name
        assert all(item.memory == memory.name and item.path for item in result.items)
        assert result.items == sorted(result.items, key=lambda i: -i.score)
        assert {"embed", "search", "total"} <= set(result.timings)
        docs = memory.documents(result)
        assert [d.metadata["rank"] for d in docs] == list(range(1, len(result.items) + 1))
        assert all(d.metadata["memory"] == memory.name for d in docs)
