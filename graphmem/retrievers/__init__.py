"""LangChain retrievers over graphmem (``langchain-core`` ``BaseRetriever``).

- :class:`GraphMemoryRetriever` (``memory=...``) and one subclass per memory:
  :class:`InsightRetriever`, :class:`ExperienceRetriever`, :class:`StateRetriever`,
  :class:`AssociativeRetriever`;
- :class:`CombinedGraphMemoryRetriever`: several memories fused by reciprocal rank fusion.

Documents carry ``page_content``, ``id`` (the node id) and metadata ``memory``, ``namespace``,
``node_ids``, ``score``, ``rank``, ``kind``, ``provenance`` (see
:mod:`graphmem.retrievers.documents`).
"""

from graphmem.retrievers.documents import (
    associative_documents,
    experience_documents,
    insight_documents,
    state_documents,
)
from graphmem.retrievers.fusion import RRF_K, reciprocal_rank_fusion
from graphmem.retrievers.retrievers import (
    AssociativeRetriever,
    CombinedGraphMemoryRetriever,
    ExperienceRetriever,
    GraphMemoryRetriever,
    InsightRetriever,
    MemoryName,
    StateRetriever,
)

__all__ = [
    "RRF_K",
    "AssociativeRetriever",
    "CombinedGraphMemoryRetriever",
    "ExperienceRetriever",
    "GraphMemoryRetriever",
    "InsightRetriever",
    "MemoryName",
    "StateRetriever",
    "associative_documents",
    "experience_documents",
    "insight_documents",
    "reciprocal_rank_fusion",
    "state_documents",
]
