"""The README's tea -> coffee example through the fused recall on a real Neo4j: the state that
holds now ranks first, the superseded turn after it with its judgement, and no turn twice."""

from __future__ import annotations

from graphmem.documents import turn_key
from graphmem.facade import GraphMemory


def test_readme_example_coffee_first_tea_after_and_no_turn_twice(runner, embedder, namespace):
    mem = GraphMemory(runner, embedder, namespace)
    mem.add([{"id": "m1", "role": "user", "content": "I drink tea every morning.",
              "timestamp": "2024-05-03T09:00:00Z"}], conversation_id="chat-1")
    mem.add({"id": "m2", "role": "user", "content": "Now I drink coffee every morning."},
            conversation_id="chat-1")
    for question in ("What does the user drink?", "What does the user drink now?"):
        result = mem.recall(question, k=5)
        turns = [tuple(item.source_ids) for item in result.items]
        assert turns == [("m2",), ("m1",)], (question, [(i.memory, i.kind, i.text) for i in result.items])
        coffee, tea = result.items
        assert "coffee" in coffee.text and coffee.current is True and coffee.superseded_by is None
        assert "tea" in tea.text and tea.current is False and tea.valid_to is not None
        assert tea.superseded_by == coffee.fusion_key == turn_key("m2", "chat-1")
        assert tea.fusion_key == turn_key("m1", "chat-1")
        # each turn was found by both memories and is one item
        assert set(coffee.memories) == set(tea.memories) == {"state", "associative"}
        assert tea.score <= coffee.score
