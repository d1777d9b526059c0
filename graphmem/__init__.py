"""graphmem: graph memory for LLM agents in Neo4j.

Four published memory designs on one schema: insight memory (EvoGraph-Mem), experience memory
(EMG), state memory (EMIR² SEMG) and associative memory (MRAgent). ``import graphmem`` is light:
torch and the memories load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["GraphMemory", "__version__"]

if TYPE_CHECKING:
    from graphmem.facade import GraphMemory


def __getattr__(name: str) -> Any:
    if name == "GraphMemory":
        from graphmem.facade import GraphMemory

        return GraphMemory
    raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
