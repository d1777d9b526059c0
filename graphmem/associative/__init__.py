"""Associative memory (MRAgent, seed 003): a Cue–Tag–Content graph with episodic, semantic and
theme layers in Neo4j, and active multi-step reconstruction over it.

Modules: :mod:`~graphmem.associative.models` (pydantic in/out),
:mod:`~graphmem.associative.extraction` (F_cue / F_tag, heuristic and LLM),
:mod:`~graphmem.associative.themes` (abstraction layer),
:mod:`~graphmem.associative.reconstruction` (state S = (Z, H), scores, fusion),
:mod:`~graphmem.associative.routing` (heuristic and LLM routers),
:mod:`~graphmem.associative.store` (Cypher by name), :mod:`~graphmem.associative.memory`
(orchestration), :mod:`~graphmem.associative.evaluation` (LoCoMo evidence recall).
"""

from graphmem.associative.memory import AssociativeMemory
from graphmem.associative.models import Evidence, IngestReport, RecallResult, RoundTrace
from graphmem.associative.reconstruction import ReconstructionConfig

__all__ = [
    "AssociativeMemory",
    "Evidence",
    "IngestReport",
    "RecallResult",
    "ReconstructionConfig",
    "RoundTrace",
]
