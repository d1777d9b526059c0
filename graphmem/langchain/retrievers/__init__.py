"""LangChain retrievers over graphmem (``langchain-core`` ``BaseRetriever``).

- :class:`GraphMemoryRetriever` (``memory=<any registered memory>``) and, for convenience, one
  preset per built-in memory: :class:`InsightRetriever`, :class:`ExperienceRetriever`,
  :class:`StateRetriever`, :class:`AssociativeRetriever`;
- :class:`CombinedGraphMemoryRetriever`: several memories (default: all registered) fused by
  reciprocal rank fusion.

Documents come from each memory's ``documents(result)``: ``page_content``, ``id`` (the node id)
and metadata ``memory``, ``namespace``, ``node_ids``, ``score``, ``rank``, ``kind``,
``provenance``, ``fusion_key`` (see :mod:`graphmem.documents`).
"""

from graphmem.documents import item_document, turn_key
from graphmem.agent.rank_fusion import RRF_K, reciprocal_rank_fusion
from graphmem.langchain.retrievers.arguments import options_model, recall_options
from graphmem.langchain.retrievers.combined import CombinedGraphMemoryRetriever
from graphmem.langchain.retrievers.retrievers import (
    AssociativeRetriever,
    ExperienceRetriever,
    GraphMemoryRetriever,
    InsightRetriever,
    StateRetriever,
)

__all__ = [
    "RRF_K",
    "AssociativeRetriever",
    "CombinedGraphMemoryRetriever",
    "ExperienceRetriever",
    "GraphMemoryRetriever",
    "InsightRetriever",
    "StateRetriever",
    "item_document",
    "options_model",
    "recall_options",
    "reciprocal_rank_fusion",
    "turn_key",
]
