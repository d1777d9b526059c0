"""Every langchain-core message type round-trips through ``GraphmemChatMessageHistory`` on a
real Neo4j, with all its fields, and the replayed history is valid chat-model input."""

from __future__ import annotations

from datetime import timezone

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from graphmem.conversations import StoredMessage
from graphmem.facade import GraphMemory
from graphmem.langchain import GraphmemChatMessageHistory


def _conversation() -> list:
    return [
        SystemMessage("You are a helpful assistant.", id="sys-1",
                      additional_kwargs={"timestamp": "2024-05-03T09:00:00Z"}),
        HumanMessage(content=[{"type": "text", "text": "What is the weather in Lyon?"},
                              {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}],
                     name="ann", id="h-1"),
        AIMessage(content="", id="a-1",
                  tool_calls=[{"name": "weather", "args": {"city": "Lyon", "days": 2},
                               "id": "call-1", "type": "tool_call"}],
                  invalid_tool_calls=[{"name": "clock", "args": "{not json", "id": "call-2",
                                       "error": "bad JSON", "type": "invalid_tool_call"}],
                  response_metadata={"model_name": "fake", "finish_reason": "tool_calls"},
                  additional_kwargs={"refusal": None}, name="helper"),
        ToolMessage(content="Sunny, 24 C", tool_call_id="call-1", status="success",
                    artifact={"raw": [24, 25]}, name="weather", id="t-1"),
        ToolMessage(content="", tool_call_id="call-2", status="error", id="t-2"),
        FunctionMessage(content='{"ok": true}', name="legacy_fn", id="f-1"),
        ChatMessage(content="Looks settled.", role="critic", id="c-1"),
        AIMessage(content="It is sunny in Lyon, 24 C.", id="a-2",
                  usage_metadata={"input_tokens": 12, "output_tokens": 9, "total_tokens": 21}),
    ]


def test_every_message_type_round_trips_and_replays_into_a_chat_model(runner, embedder, namespace):
    mem = GraphMemory(runner, embedder, namespace)
    history = GraphmemChatMessageHistory(mem, conversation_id="chat-rt", memories=("state",))
    sent = _conversation()
    history.add_messages(sent)
    got = history.messages
    assert [type(m) for m in got] == [type(m) for m in sent]
    assert [m.model_dump() for m in got] == [m.model_dump() for m in sent]
    tool_only = got[2]
    assert tool_only.tool_calls[0]["args"] == {"city": "Lyon", "days": 2}
    assert got[3].tool_call_id == "call-1" and got[3].artifact == {"raw": [24, 25]}
    assert got[1].name == "ann" and got[6].role == "critic"

    # every tool message answers a tool call made before it
    called: set[str] = set()
    for message in got:
        if isinstance(message, AIMessage):
            called |= {c["id"] for c in message.tool_calls + message.invalid_tool_calls}
        if isinstance(message, ToolMessage):
            assert message.tool_call_id in called
    model = GenericFakeChatModel(messages=iter([AIMessage("Anything else?")]))
    assert model.invoke(got).content == "Anything else?"

    # the stored messages: typed, the caller's ids, searchable text for the tool-only message
    stored = mem.messages("chat-rt")
    assert all(isinstance(m, StoredMessage) for m in stored)
    assert [m.id for m in stored] == [m.id for m in sent]
    assert [m.role for m in stored] == ["system", "human", "ai", "tool", "tool", "function",
                                        "critic", "ai"]
    assert stored[2].content.startswith('called weather({"city": "Lyon", "days": 2})')
    assert stored[0].timestamp.tzinfo is not None and stored[0].timestamp.astimezone(timezone.utc).hour == 9
    assert stored[0].conversation_id == "chat-rt" and stored[0].session_id == "default"
    assert all(m.message_json for m in stored)

    # re-adding the replayed history stores nothing new
    before = mem.state.counts()["Event"]
    history.add_messages(got)
    assert mem.state.counts()["Event"] == before == len(sent)
    hits = mem.state.recall("Which tool was called for the weather in Lyon?", k=8)
    assert "a-1" in {sid for item in hits.items for sid in item.source_ids}


def test_unserialisable_artifact_is_dropped_and_message_kept(runner, embedder, namespace):
    mem = GraphMemory(runner, embedder, namespace)
    history = GraphmemChatMessageHistory(mem, conversation_id="chat-art", memories=("state",))
    history.add_messages([AIMessage("", id="a", tool_calls=[{"name": "f", "args": {}, "id": "x"}]),
                          ToolMessage("done", tool_call_id="x", artifact=object(), id="t")])
    [call, answer] = history.messages
    assert call.tool_calls[0]["id"] == "x"
    assert answer.tool_call_id == "x" and answer.artifact is None and answer.content == "done"
