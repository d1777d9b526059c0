"""Associative memory (MRAgent, seed 003): a Cue–Tag–Content graph with episodic, semantic and
theme layers in Neo4j, and active multi-step reconstruction over it.

Modules: :mod:`~graphmem.associative.models` (pydantic in/out),
:mod:`~graphmem.associative.extraction` (F_cue / F_tag, heuristic) and
:mod:`~graphmem.associative.llm_extraction` (LLM),
:mod:`~graphmem.associative.themes` (abstraction layer),
:mod:`~graphmem.associative.construction` (graph rows of a conversation),
:mod:`~graphmem.associative.reconstruction` (state S = (Z, H), scores, fusion),
:mod:`~graphmem.associative.recall` (the rounds), :mod:`~graphmem.associative.ranking` (final
order, items, rounds), :mod:`~graphmem.associative.routing` (heuristic and LLM routers),
:mod:`~graphmem.associative.store` (Cypher by name), :mod:`~graphmem.associative.memory`
(orchestration), :mod:`~graphmem.associative.evaluation` (LoCoMo evidence recall).
"""

from graphmem.associative.extraction import HeuristicCueExtractor
from graphmem.associative.llm_extraction import LLMCueExtractor
from graphmem.associative.memory import AssociativeMemory
from graphmem.associative.models import AssociativeItem
from graphmem.associative.reconstruction import ReconstructionConfig
from graphmem.associative.routing import HeuristicAssociativeRouter, LLMAssociativeRouter

__all__ = [
    "AssociativeItem",
    "AssociativeMemory",
    "HeuristicAssociativeRouter",
    "HeuristicCueExtractor",
    "LLMAssociativeRouter",
    "LLMCueExtractor",
    "ReconstructionConfig",
]
