"""A runnable agent loop with graphmem as its memory: LangChain chat history, the ``remember``
and ``recall`` tools, and task feedback.

The chat model is langchain-core's scripted fake (``FakeMessagesListChatModel``): it answers
with the tool calls below, so the loop runs offline; swap in any tool-calling chat model.

    python examples/agent_loop.py [--namespace agent-example]

Neo4j: ``NEO4J_URI`` if set, else the embedded local Neo4j (started on first use).
"""

from __future__ import annotations

import argparse
import logging

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from graphmem.facade import GraphMemory
from graphmem.langchain import GraphmemChatMessageHistory, memory_tools


def scripted_model() -> FakeMessagesListChatModel:
    """Replies of the fake model, in order: a remember call, an answer, a recall call, an answer."""
    return FakeMessagesListChatModel(responses=[
        AIMessage(content="", tool_calls=[{
            "name": "remember", "id": "call-1",
            "args": {"content": "The user drinks coffee every morning, no sugar.",
                     "role": "user", "message_id": "fact-coffee"}}]),
        AIMessage(content="Noted: coffee, no sugar."),
        AIMessage(content="", tool_calls=[{
            "name": "recall", "id": "call-2",
            "args": {"query": "What does the user drink in the morning?", "k": 3}}]),
        AIMessage(content="You drink coffee in the morning, without sugar."),
    ])


def turn(model, tools: dict, history: GraphmemChatMessageHistory, user_text: str) -> str:
    """One user turn: call the model until it answers without tool calls."""
    history.add_message(HumanMessage(user_text))
    scratch: list[BaseMessage] = list(history.messages)
    while True:
        reply = model.invoke(scratch)
        scratch.append(reply)
        if not reply.tool_calls:
            history.add_message(reply)
            return str(reply.content)
        for call in reply.tool_calls:
            output = tools[call["name"]].invoke(call["args"])
            print(f"  [tool {call['name']}] {output}")
            scratch.append(ToolMessage(content=str(output), tool_call_id=call["id"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--namespace", default="agent-example")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    with GraphMemory.from_settings(namespace=args.namespace, migrate=True) as mem:
        history = GraphmemChatMessageHistory(mem, conversation_id="chat-1")
        # facts the agent chooses to remember go to a notes conversation beside the chat
        tools = {t.name: t for t in memory_tools(mem, conversation_id="chat-1-notes")}
        model = scripted_model()
        task = "Remember the user's morning drink and answer from memory"
        for text in ("I drink coffee every morning, no sugar.", "What do I drink in the morning?"):
            print(f"user: {text}")
            print(f"agent: {turn(model, tools, history, text)}")
        print("history:", [f"{m.type}: {m.content}" for m in history.messages])
        result = mem.recall("What does the user drink in the morning?", k=3)
        for item in result.items:
            print(f"  {item.memory}/{item.kind} {item.score:.4f} {item.text!r} {item.source_ids}")
        outcome = mem.feedback(task, "resolved", trajectory=["remember", "recall", "answer"],
                               retrieved=result.items)
        print("feedback:", outcome.insight.created,
              None if outcome.experience is None else outcome.experience.created)


if __name__ == "__main__":
    main()
