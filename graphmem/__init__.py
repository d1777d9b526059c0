"""graphmem: graph memory for LLM agents in Neo4j.

Four published memory designs on one schema: insight memory (EvoGraph-Mem), experience memory
(EMG), state memory (EMIR² SEMG) and associative memory (MRAgent), each a
:class:`graphmem.memory.Memory` in the registry :data:`graphmem.memory.MEMORY_REGISTRY`.
``import graphmem`` is light: torch and the memories load on first use. Logging goes to the
``graphmem`` logger (a ``NullHandler`` by default).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

# A library never configures logging: the application (or ``graphmem -v``) does.
logging.getLogger("graphmem").addHandler(logging.NullHandler())

__version__ = "0.1.0"

from graphmem.errors import GraphmemError

#: The public API of the top-level package (pinned by tests/unit/test_public_api.py). The
#: memories' own APIs are ``graphmem.insight``, ``graphmem.experience``, ``graphmem.state``,
#: ``graphmem.associative``; LangChain retrievers are ``graphmem.langchain.retrievers``.
__all__ = [
    "GraphMemory",
    "GraphmemError",
    "SentenceTransformerEmbedder",
    "HashingEmbedder",
    "Embedder",
    "__version__",
]

if TYPE_CHECKING:
    from graphmem.embeddings import Embedder, HashingEmbedder, SentenceTransformerEmbedder
    from graphmem.facade import GraphMemory

_LAZY = {
    "GraphMemory": "graphmem.facade",
    "Embedder": "graphmem.embeddings",
    "HashingEmbedder": "graphmem.embeddings",
    "SentenceTransformerEmbedder": "graphmem.embeddings",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
