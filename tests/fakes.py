"""Shared test doubles: a langchain-core fake chat model whose structured output comes from
scripted tool calls (langchain-core's own ``FakeMessagesListChatModel``)."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage


class ScriptedChatModel(FakeMessagesListChatModel):
    """Replies with the scripted messages in order; ``bind_tools`` is a no-op so
    ``with_structured_output`` parses the scripted ``tool_calls``."""

    def bind_tools(self, tools, **kwargs):  # noqa: ANN001, ANN003
        return self


def tool_reply(name: str, args: dict, input_tokens: int = 5, output_tokens: int = 3) -> AIMessage:
    """An AI message calling tool ``name`` with ``args`` and usage metadata."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "1"}],
                     usage_metadata={"input_tokens": input_tokens, "output_tokens": output_tokens,
                                     "total_tokens": input_tokens + output_tokens})
