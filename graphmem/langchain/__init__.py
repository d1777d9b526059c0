"""LangChain adapters of graphmem for agents: a chat message history backed by graphmem
(:class:`GraphmemChatMessageHistory`) and the ``remember`` / ``recall`` tools
(:func:`memory_tools`). The retrievers live in :mod:`graphmem.retrievers`."""

from graphmem.langchain.history import GraphmemChatMessageHistory
from graphmem.langchain.tools import RecallArgs, RememberArgs, memory_tools

__all__ = ["GraphmemChatMessageHistory", "RecallArgs", "RememberArgs", "memory_tools"]
