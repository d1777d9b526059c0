"""``GraphmemChatMessageHistory``: a LangChain ``BaseChatMessageHistory`` whose messages are a
graphmem conversation.

    history = GraphmemChatMessageHistory(mem, conversation_id="chat-42")
    history.add_messages([HumanMessage("I moved to Lyon."), AIMessage("Noted!")])
    history.messages        # the conversation's messages, in order

Messages are written with :meth:`graphmem.facade.GraphMemory.add` (state and associative
memory by default) and read back from state memory's events in conversation order (event time,
then arrival). A message's role is its LangChain type (``human``, ``ai``, ``system``, ``tool``);
its id, when set, makes re-adding it a no-op. Messages without text (an AI message made only of
tool calls) are not stored.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

_BY_ROLE = {"human": HumanMessage, "user": HumanMessage, "ai": AIMessage,
            "assistant": AIMessage, "system": SystemMessage}


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part if isinstance(part, str) else str(part.get("text", ""))
                   for part in content if isinstance(part, (str, dict)))


def to_langchain(row: dict[str, Any]) -> BaseMessage:
    """A stored event row (``graphmem.GraphMemory.messages``) as a LangChain message: its role
    chooses the class (unknown roles become a ``HumanMessage`` named after the speaker), its
    message id becomes the message id."""
    role = str(row.get("speaker") or "human")
    message_id = (row.get("source_ids") or [None])[0]
    stamp = row.get("occurred_at")
    extra = {"timestamp": stamp.isoformat()} if hasattr(stamp, "isoformat") else {}
    if role == "tool":
        return ToolMessage(content=row["text"], tool_call_id=message_id or "", id=message_id,
                           additional_kwargs=extra)
    cls = _BY_ROLE.get(role)
    if cls is None:
        return HumanMessage(content=row["text"], name=role, id=message_id, additional_kwargs=extra)
    return cls(content=row["text"], id=message_id, additional_kwargs=extra)


class GraphmemChatMessageHistory(BaseChatMessageHistory):
    """Chat history of one graphmem conversation.

    Args:
        memory: the facade (its namespace is the history's tenant).
        conversation_id: the conversation.
        session_id: optional session key of the messages added.
        memories: where ``add_messages`` writes (default state and associative memory; state
            memory must be among them for ``messages`` to read them back).
        limit: most messages ``messages`` returns (the oldest first).
    """

    def __init__(self, memory: GraphMemory, conversation_id: str = "default", *,
                 session_id: str | None = None,
                 memories: Sequence[str] = ("state", "associative"), limit: int = 10_000):
        self.memory = memory
        self.conversation_id = conversation_id
        self.session_id = session_id
        self.memories = tuple(memories)
        self.limit = limit

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The conversation's stored messages in order (at most ``limit``)."""
        rows = self.memory.messages(self.conversation_id, limit=self.limit)
        return [to_langchain(row) for row in rows]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store ``messages`` in one :meth:`~graphmem.facade.GraphMemory.add` call (messages
        without text are skipped).

        Raises:
            InvalidInputError / EmptyTextError: see ``GraphMemory.add``.
        """
        rows = []
        for message in messages:
            text = _text(message)
            if not text.strip():
                logger.debug("history: skipping a %s message without text", message.type)
                continue
            row = {"role": message.type, "content": text, "id": message.id}
            stamp = message.additional_kwargs.get("timestamp")
            if stamp:
                row["timestamp"] = stamp
            rows.append(row)
        if rows:
            self.memory.add(rows, conversation_id=self.conversation_id,
                            session_id=self.session_id, memories=self.memories)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """``await``-able :meth:`add_messages` in a worker thread."""
        import asyncio

        await asyncio.to_thread(self.add_messages, messages)

    def clear(self) -> None:
        """Not supported: graphmem memory edits never delete (states are closed and kept,
        evidence is archived), so a conversation cannot be erased message by message. Start a
        new ``conversation_id`` for a fresh history, or drop the whole tenant with
        :meth:`graphmem.facade.GraphMemory.delete_namespace`.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError(
            "graphmem never deletes memories: use a new conversation_id for a fresh history, "
            "or GraphMemory.delete_namespace() to drop the whole namespace")
