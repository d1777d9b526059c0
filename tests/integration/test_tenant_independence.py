"""A tenant's graph and recall do not depend on other tenants (real Neo4j, bundled samples).

The same input -- a slice of the bundled LoCoMo conversation (added one message at a time
through ``mem.add``, and as one batch through state and associative ingest), ScienceWorld
trajectories (one experience batch: SIMILAR_TASK) and their task outcomes (insight feedback:
RELATED_QUERY) -- goes into namespaces written before and after a foreign namespace that holds
the conversation's first turns (the tenant's and more) and every trajectory (the same texts, so
the foreign vectors sit exactly where the tenant's own do and a vector-index top list filtered
afterwards by namespace would be crowded by them). Every pair must have the same node counts per label, relationship
counts per type, no relationship leaving its namespace, and the same recall answers (items
named by their source ids and text, in order)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from reliability import tq  # noqa: F401

from graphmem.conversations import Conversation, read_locomo
from graphmem.experience import read_trajectories
from graphmem.facade import GraphMemory

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out

#: Turns added one message at a time (the conversation's first ones) / ingested as one batch
#: (the turns after them: no text is in both conversations).
ADD_TURNS = 16
BATCH_TURNS = 64
#: Turns of the foreign namespace's conversations: every turn of the tenant's and 30 more.
FOREIGN_TURNS = ADD_TURNS + BATCH_TURNS + 30
#: ScienceWorld trajectories of the experience batch and the insight feedback.
TASKS = 10
QUESTIONS = ("What did Caroline research?", "When did Melanie paint a sunrise?",
             "What is Caroline's identity?", "Where did Melanie go camping with her family?")
TASK_QUESTIONS = ("boil water on the stove", "find a living thing and move it to the box")


@pytest.fixture(scope="module")
def data(sample_data) -> dict:
    [conv, *_] = read_locomo(sample_data / "locomo" / "locomo-dev.json")
    trajectories = read_trajectories(sample_data / "scienceworld" / "sciworld_gold_train.jsonl",
                                     limit=TASKS)
    return {"conv": conv, "trajectories": trajectories}


@pytest.fixture(scope="module")
def tenants(runner, embedder) -> Iterator[dict[str, GraphMemory]]:
    """Fresh namespaces of this module by role, deleted afterwards."""
    made: dict[str, GraphMemory] = {}

    class Tenants(dict):
        def __missing__(self, role: str) -> GraphMemory:
            made[role] = GraphMemory(runner, embedder, f"test-{role}-{uuid.uuid4().hex[:10]}")
            self[role] = made[role]
            return made[role]

    yield Tenants()
    for mem in made.values():
        mem.delete_namespace()


def _messages(conv: Conversation, n: int) -> list[dict]:
    return [{"id": t.source_id, "role": t.speaker, "content": t.text,
             "timestamp": t.timestamp.isoformat()} for t in conv.turns[:n]]


def _batch(conv: Conversation) -> Conversation:
    return conv.model_copy(update={"id": "batch",
                                   "turns": conv.turns[ADD_TURNS:ADD_TURNS + BATCH_TURNS]})


def _write(mem: GraphMemory, data: dict) -> None:
    """The tenant's whole input: online adds, one conversation batch, experience, insight."""
    conv: Conversation = data["conv"]
    for message in _messages(conv, ADD_TURNS):
        mem.add([message], conversation_id="online")
    mem.state.ingest([_batch(conv)])
    mem.associative.ingest([_batch(conv)])
    mem.experience.ingest(data["trajectories"], k=3, tau=0.3)
    for i, t in enumerate(data["trajectories"]):
        mem.insight.feedback(t.query, "resolved" if i % 3 else "failed",
                             [s.action for s in t.steps[:4]])


def _write_foreign(mem: GraphMemory, data: dict) -> None:
    """More than the tenant's input, written first: the conversation's first FOREIGN_TURNS
    turns as both of the tenant's conversations (state and associative), every trajectory,
    and their feedback under other task texts too."""
    conv: Conversation = data["conv"]
    whole = [conv.model_copy(update={"id": "batch", "turns": conv.turns[:FOREIGN_TURNS]}),
             conv.model_copy(update={"id": "online", "turns": conv.turns[:ADD_TURNS]})]
    mem.state.ingest(whole)
    mem.associative.ingest(whole)
    mem.experience.ingest(data["trajectories"], k=3, tau=0.3)
    for t in data["trajectories"]:
        mem.insight.feedback(t.query, "resolved", [s.action for s in t.steps[:4]])
        mem.insight.feedback(f"{t.query} again", "failed", [s.action for s in t.steps[:2]])


def _named(items, sources: bool = True) -> list[tuple]:
    """Recall items as namespace-free names -- score (rounded), kind, source ids (upstream ids;
    ``sources=False`` for insight items, whose sources are query node ids), text -- in rank
    order; items of equal score (ranked among themselves by node id, which differs by namespace)
    sorted by name."""
    return sorted(((-round(float(i.score), 6), getattr(i, "kind", ""),
                    tuple(i.source_ids) if sources else (), i.text) for i in items))


def _answers(mem: GraphMemory) -> dict:
    out = {}
    for q in QUESTIONS:
        out[("fused", q)] = _named(mem.recall(q, k=10).items)
        out[("state", q)] = _named(mem.state.recall(q, k=10).items)
        out[("associative", q)] = _named(mem.associative.recall(q, k=10).items)
        out[("vector", q)] = _named(mem.associative.vector_search(q, k=10))
    for q in TASK_QUESTIONS:
        out[("experience", q)] = _named(mem.experience.recall(q, k=3).items)
        out[("insight", q)] = _named(mem.insight.recall(q, k=5).items, sources=False)
    return out


def _snapshot(mem: GraphMemory, tq) -> dict:  # noqa: F811
    # a namespace's second recall in the process loads it into the vector cache; from then on
    # its lexical candidates are its own exact BM25 top-k (before, Lucene's index-wide ranking
    # picks them: docs/retrieval.md, tenant independence)
    _answers(mem)
    return {"nodes": mem.counts(), "relationships": mem.relationship_counts(),
            "leaving": tq.read("count_cross_namespace_relationships", namespace=mem.namespace),
            "answers": _answers(mem)}


def test_graph_and_recall_do_not_depend_on_other_tenants(tenants, data, tq) -> None:  # noqa: F811
    alone = tenants["alone"]
    _write(alone, data)
    before = _snapshot(alone, tq)
    _write_foreign(tenants["foreign"], data)
    crowded = tenants["crowded"]
    _write(crowded, data)
    after = _snapshot(crowded, tq)
    again = _snapshot(alone, tq)

    assert before["leaving"] == [] and after["leaving"] == [] and again["leaving"] == []
    state = before["relationships"]["state"]
    assert state["RELATED_EVENT"] > 0 and before["relationships"]["insight"]["RELATED_QUERY"] > 0
    assert before["relationships"]["experience"]["SIMILAR_TASK"] > 0
    assert before["nodes"]["state"]["Event"] == ADD_TURNS + BATCH_TURNS
    assert after["nodes"] == before["nodes"]
    assert after["relationships"] == before["relationships"]
    for key, answer in before["answers"].items():
        assert answer, key
        assert after["answers"][key] == answer, key
        assert again["answers"][key] == answer, key
