"""The agent verbs against real Neo4j: online adds keep arrival order, are idempotent per
message id, a same-day correction becomes the current state, associative ingest resumes per
turn, and the fused recall names its memories."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from graphmem import datasets
from graphmem.conversations import Conversation, read_locomo
from graphmem.facade import GraphMemory


@pytest.fixture(scope="module")
def locomo() -> Conversation:
    return read_locomo(datasets.resolve("locomo"))[0]


def _messages(conv: Conversation, n: int) -> list[dict]:
    out = []
    for i, turn in enumerate(conv.turns[:n]):
        msg = {"id": turn.source_id, "role": turn.speaker, "content": turn.text}
        if i % 4 != 3:  # every 4th message has no timestamp; the others tie within a session
            msg["timestamp"] = turn.timestamp.isoformat()
        out.append(msg)
    return out


def test_online_adds_keep_arrival_order_and_are_idempotent(runner, embedder, namespace, locomo):
    mem = GraphMemory(runner, embedder, namespace)
    messages = _messages(locomo, 15)
    for msg in messages:
        reports = mem.add([msg], conversation_id="c1")
        assert reports["state"].created.get("Event") == 1
        assert reports["associative"].created.get("Episode") == 1
    order = [m["id"] for m in messages]
    stored = mem.messages("c1")
    assert [m.id for m in stored] == order
    assert all(m.conversation_id == "c1" and m.timestamp.tzinfo is not None for m in stored)
    topics = runner.read("state/list_topics", namespace=namespace, conversation="c1")
    for topic in topics:
        chain = [c["source_ids"][0] for c in mem.state.topic_chain(topic["id"])]
        assert chain == sorted(chain, key=order.index)
    assert mem.state.check() == {"bad_current": 0, "unchained": 0}
    counts = mem.associative.counts()
    assert counts["Episode"] == 15
    assert mem.associative.relationship_counts()["NEXT_EPISODE"] == 14
    context = mem.associative.store.timeline_context("c1", 2**62, 2**62, "", "")
    assert context["stored"] and context["timeline_after"] is None
    assert context["timeline_before"] is not None and counts["Timeline"] == 1
    before = mem.counts()
    again = mem.add(messages, conversation_id="c1")
    assert all(not r.created for r in again.values())
    assert again["state"].skipped == {"turn": 15} and again["associative"].skipped == {"turn": 15}
    assert mem.counts() == before

    result = mem.recall(locomo.turns[5].text, k=5)
    assert result.items and {i.memory for i in result.items} <= {"state", "associative"}
    assert locomo.turns[5].source_id in result.source_ids()
    top = result.items[0]
    assert top.path and top.ranks and top.memories[0] == top.memory
    keys = [i.fusion_key for i in result.items]
    assert len(keys) == len(set(keys))


def test_same_day_correction_becomes_current(runner, embedder, namespace):
    mem = GraphMemory(runner, embedder, namespace)
    day = datetime(2024, 5, 3, tzinfo=timezone.utc)
    first = mem.add({"id": "m1", "role": "Ann", "content": "I drink tea every morning.",
                     "timestamp": day.replace(hour=9)}, conversation_id="c2",
                    memories=["state"])
    second = mem.add({"id": "m2", "role": "Ann", "content": "Now I drink coffee every morning.",
                      "timestamp": day.replace(hour=18).isoformat()}, conversation_id="c2",
                     memories=["state"])
    assert first["state"].details["state_relations"] == {"initial": 1}
    assert second["state"].details["state_relations"] == {"change": 1}
    result = mem.state.recall("What does Ann drink in the morning?", k=10)
    top_state = next(h for h in result.items if h.kind == "state")
    assert top_state.current and "coffee" in top_state.text
    fused = mem.recall("What does Ann drink in the morning?", k=10, memories=["state"])
    state_item = next(i for i in fused.items if i.kind == "state")
    assert "coffee" in state_item.text and state_item.metadata["provenance"]["current"] is True
    # the old state is closed and kept
    states = mem.state.store.topic_states([top_state.topic_id], only_current=False)
    tea = next(s for s in states if "tea" in s.text)
    assert not tea.current and tea.valid_to == day.replace(hour=18) and not tea.conflict


def test_associative_resumes_per_turn(runner, embedder, namespace, locomo):
    mem = GraphMemory(runner, embedder, namespace)
    turns = locomo.turns[:24]
    half = Conversation(id=locomo.id, turns=turns[:12], speakers=locomo.speakers)
    whole = Conversation(id=locomo.id, turns=turns, speakers=locomo.speakers)
    first = mem.associative.ingest([half])
    assert first.created["Episode"] == 12
    second = mem.associative.ingest([whole])
    assert second.created["Episode"] == 12 and second.skipped == {"turn": 12}
    counts = mem.associative.counts()
    assert counts["Episode"] == 24
    assert mem.associative.relationship_counts()["NEXT_EPISODE"] == 23
    third = mem.associative.ingest([whole])
    assert not third.created.get("Episode") and third.skipped == {"turn": 24}


def test_langchain_history_tools_feedback_and_example_loop(runner, embedder, namespace):
    import asyncio
    import importlib.util
    from pathlib import Path

    from langchain_core.messages import AIMessage, HumanMessage

    from graphmem.langchain import GraphmemChatMessageHistory, memory_tools

    mem = GraphMemory(runner, embedder, namespace)
    history = GraphmemChatMessageHistory(mem, conversation_id="chat")
    history.add_messages([HumanMessage("I moved to Lyon last week.", id="h1"),
                          AIMessage("", tool_calls=[{"name": "recall", "args": {}, "id": "x"}]),
                          AIMessage("Lyon is lovely.", id="a1")])
    asyncio.run(history.aadd_messages([HumanMessage("My cat is called Pixel.", id="h2")]))
    got = history.messages
    assert [type(m).__name__ for m in got] == ["HumanMessage", "AIMessage", "AIMessage",
                                               "HumanMessage"]
    assert [got[0].id, got[2].id, got[3].id] == ["h1", "a1", "h2"]
    # the AI message made only of a tool call is kept, with its call and a derived id
    assert got[1].tool_calls[0]["name"] == "recall" and got[1].id.startswith("msg-")
    other = GraphmemChatMessageHistory(mem, conversation_id="other-chat")
    other.add_messages([HumanMessage("My sister lives in Porto.", id="o1")])
    history.clear()
    assert history.messages == [] and [m.id for m in other.messages] == ["o1"]
    assert all("Lyon" not in item.text for item in mem.recall("Where did I move?", k=10).items)
    [audit] = mem.audit_records()
    assert audit["action"] == "forget" and audit["actor"] == "chat-history"
    assert audit["counts"]["messages"] == 4
    history.clear()  # idempotent: nothing left to forget
    assert mem.audit_records()[0]["counts"]["messages"] == 0
    history.add_messages([HumanMessage("I moved to Lyon last week.", id="h1"),
                          HumanMessage("My cat is called Pixel.", id="h2")])
    remember, recall = memory_tools(mem, conversation_id="chat")
    assert "remembered" in remember.invoke({"content": "I like jazz.", "message_id": "t1"})
    assert remember.invoke({"content": "I like jazz.", "message_id": "t1"}) == "already remembered"
    assert "Pixel" in recall.invoke({"query": "What is my cat called?", "k": 3})
    assert "EmptyTextError" in recall.invoke({"query": "  ", "k": 3})

    result = asyncio.run(mem.arecall("Where did I move?", k=3))
    outcome = asyncio.run(mem.afeedback("tell the user where they moved", "resolved",
                                        trajectory=["recall", "answer"], retrieved=result.items))
    assert outcome.insight.created.get("Query") == 1
    assert outcome.experience is not None and outcome.experience.created.get("Task") == 1
    assert mem.experience.recall("tell the user where they moved", k=1).items

    spec = importlib.util.spec_from_file_location(
        "agent_loop", Path(__file__).resolve().parents[2] / "examples" / "agent_loop.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    tools = {t.name: t for t in memory_tools(mem, conversation_id="loop-notes")}
    loop_history = GraphmemChatMessageHistory(mem, conversation_id="loop")
    model = example.scripted_model()
    example.turn(model, tools, loop_history, "I drink coffee every morning, no sugar.")
    answer = example.turn(model, tools, loop_history, "What do I drink in the morning?")
    assert "coffee" in answer
    assert [m.type for m in loop_history.messages] == ["human", "ai", "human", "ai"]
