"""Everything LangChain of graphmem, in one package: the retrievers
(:mod:`graphmem.langchain.retrievers`: one per memory and the fused one), a chat message history
backed by graphmem (:class:`GraphmemChatMessageHistory`) and the ``remember`` / ``recall`` tools
(:func:`memory_tools`). The retrieval engine the memories search with is
:mod:`graphmem.retrieval` (no LangChain in it)."""

from graphmem.langchain.history import GraphmemChatMessageHistory
from graphmem.langchain.tools import RecallArgs, RememberArgs, memory_tools

__all__ = ["GraphmemChatMessageHistory", "RecallArgs", "RememberArgs", "memory_tools"]
