"""``GraphmemChatMessageHistory``: a LangChain ``BaseChatMessageHistory`` whose messages are a
graphmem conversation.

    history = GraphmemChatMessageHistory(mem, conversation_id="chat-42")
    history.add_messages([HumanMessage("I moved to Lyon."), AIMessage("Noted!")])
    history.messages        # the conversation's messages, in order

Messages are written with :meth:`graphmem.facade.GraphMemory.add` (state and associative
memory by default) and read back from state memory's events in conversation order (event time,
then arrival) with :meth:`graphmem.facade.GraphMemory.messages`.

Every langchain-core message type round-trips with all its fields: ``HumanMessage``,
``AIMessage`` (``tool_calls``, ``invalid_tool_calls``, ``usage_metadata``), ``ToolMessage``
(``tool_call_id``, ``status``, ``artifact``), ``SystemMessage``, ``ChatMessage`` (``role``),
``FunctionMessage``; with ``content`` (text or a list of content blocks), ``name``,
``additional_kwargs``, ``response_metadata`` and ``id``. Each message is stored with its full
serialised form (langchain-core's own :func:`~langchain_core.messages.message_to_dict`, as JSON
text in the stored message's ``message_json``) and replayed from it
(:func:`~langchain_core.messages.messages_from_dict`), so a replayed history is valid input for
a chat model: an AI message that only calls tools comes back with its calls, a ``ToolMessage``
with the ``tool_call_id`` it answers. A ``ToolMessage`` artifact that is not JSON-able is
dropped (logged); the message is kept.

The text stored for search (the memories' ``content``) is the message's text parts; a message
without text gets a readable stand-in (:func:`searchable_text`): an AI message made only of
tool calls reads ``called recall(query="...", k=3)``, so it is stored and found too. A message's
role is its LangChain type (``human``, ``ai``, ``system``, ``tool``, ``function``; a
``ChatMessage`` its own ``role``). Its id, when set, makes re-adding it a no-op; a message
without one gets a derived id, which it carries when replayed.

Messages stored without a serialised form (written with ``GraphMemory.add`` directly) are
replayed from their role and text: ``human`` / ``user`` as ``HumanMessage``, ``ai`` /
``assistant`` as ``AIMessage``, ``system`` as ``SystemMessage``, any other role as a
``HumanMessage`` named after it (such a message answers no tool call).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    message_to_dict,
    messages_from_dict,
)

from graphmem.errors import InvalidInputError

if TYPE_CHECKING:
    from graphmem.conversations import StoredMessage
    from graphmem.facade import GraphMemory

logger = logging.getLogger(__name__)

_BY_ROLE = {"human": HumanMessage, "user": HumanMessage, "ai": AIMessage,
            "assistant": AIMessage, "system": SystemMessage}
#: Characters of a tool call's arguments kept in the searchable text.
ARGS_CHARS = 300


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part if isinstance(part, str) else str(part.get("text", ""))
                   for part in content if isinstance(part, (str, dict)))


def searchable_text(message: BaseMessage) -> str:
    """The text stored (and searched) for ``message``: its text parts; without text, a readable
    stand-in: ``called <tool>(<arguments as JSON>)`` per tool call (and per invalid tool call,
    its raw arguments), else the kinds of its content blocks (``[image]``), else
    ``(<type> message without text)``. Never blank."""
    text = _text(message)
    if text.strip():
        return text
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        args = json.dumps(call.get("args") or {}, ensure_ascii=False, sort_keys=True,
                          default=str)[:ARGS_CHARS]
        calls.append(f"called {call.get('name') or 'a tool'}({args})")
    for call in getattr(message, "invalid_tool_calls", None) or []:
        calls.append(f"called {call.get('name') or 'a tool'} with invalid arguments "
                     f"{str(call.get('args') or '')[:ARGS_CHARS]}")
    if calls:
        return "; ".join(calls)
    content = message.content
    if isinstance(content, list):
        kinds = [str(part.get("type", "block")) for part in content if isinstance(part, dict)]
        if kinds:
            return " ".join(f"[{kind}]" for kind in kinds)
    return f"({message.type} message without text)"


def message_json(message: BaseMessage) -> str:
    """``message``'s full serialised form: JSON text of langchain-core's
    :func:`~langchain_core.messages.message_to_dict` (``{"type", "data"}``). A ``ToolMessage``
    artifact that is not JSON-able is left out (logged).

    Raises:
        InvalidInputError: another field holds a value JSON cannot carry (naming the message
            type and id).
    """
    data = message_to_dict(message)
    try:
        return json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        if data["data"].get("artifact") is not None:
            logger.warning("history: the artifact of tool message %r is not JSON-able (%s); "
                           "it is stored without it", message.id, exc)
            data["data"]["artifact"] = None
            try:
                return json.dumps(data, ensure_ascii=False)
            except (TypeError, ValueError) as again:
                exc = again
        raise InvalidInputError(
            f"{message.type} message {message.id!r} cannot be stored: a field is not JSON-able "
            f"({exc}); keep additional_kwargs and response_metadata to JSON values") from None


def to_langchain(stored: StoredMessage) -> BaseMessage:
    """A stored message (:meth:`graphmem.facade.GraphMemory.messages`) as a LangChain message:
    from its ``message_json`` when it has one (the message as it was added; an id-less one gets
    the id it was stored under), else from its role and text (see the module docstring)."""
    if stored.message_json:
        [message] = messages_from_dict([json.loads(stored.message_json)])
        if message.id is None:
            message.id = stored.id
        return message
    cls = _BY_ROLE.get(stored.role)
    if cls is None:
        return HumanMessage(content=stored.content, name=stored.role, id=stored.id)
    return cls(content=stored.content, id=stored.id)


def _role(message: BaseMessage) -> str:
    return message.role if isinstance(message, ChatMessage) and message.role else message.type


class GraphmemChatMessageHistory(BaseChatMessageHistory):
    """Chat history of one graphmem conversation.

    Args:
        memory: the facade (its namespace is the history's tenant).
        conversation_id: the conversation.
        session_id: optional session key of the messages added.
        memories: where ``add_messages`` writes (default: every memory that stores messages; state
            memory must be among them for ``messages`` to read them back).
        limit: most messages ``messages`` returns (the oldest first).
    """

    def __init__(self, memory: GraphMemory, conversation_id: str = "default", *,
                 session_id: str | None = None,
                 memories: Sequence[str] | None = None, limit: int = 10_000):
        self.memory = memory
        self.conversation_id = conversation_id
        self.session_id = session_id
        self.memories = None if memories is None else tuple(memories)
        self.limit = limit

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The conversation's stored messages in order (at most ``limit``), each as it was
        added (see the module docstring)."""
        return [to_langchain(m) for m in self.memory.messages(self.conversation_id, limit=self.limit)]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store ``messages`` in one :meth:`~graphmem.facade.GraphMemory.add` call, each with
        its searchable text (:func:`searchable_text`) and its full serialised form
        (:func:`message_json`); a message's ``additional_kwargs["timestamp"]`` (ISO 8601), when
        set, is its time.

        Raises:
            InvalidInputError: a message that cannot be serialised (:func:`message_json`);
                InvalidInputError / EmptyTextError: see ``GraphMemory.add``. Nothing is written
                then.
        """
        rows = []
        for message in messages:
            row: dict[str, Any] = {"role": _role(message), "content": searchable_text(message),
                                   "id": message.id, "message_json": message_json(message)}
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
        """Forget this conversation in every memory (:meth:`graphmem.facade.GraphMemory.forget`
        with ``conversation_id``): its messages and everything derived from them are deleted,
        and an audit record (no content) is written. ``messages`` is empty afterwards; other
        conversations are untouched.

        Raises:
            DatabaseError subclasses.
        """
        self.memory.forget(conversation_id=self.conversation_id, actor="chat-history")
