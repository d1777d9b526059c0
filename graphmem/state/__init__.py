"""State memory: EMIR² State-Evolving Memory Graph (seed 002_8d954cf37c6d70e4).

``StateMemory(runner, embedder, namespace, llm=None)`` ingests conversations into topic chains
of events with evolving semantic states and answers questions by intent-guided multi-round
retrieval (:class:`HeuristicStatePlanner` or :class:`LLMStatePlanner`). See docs/state.md.
"""

from graphmem.state.extraction import HeuristicStateExtractor, LLMStateExtractor
from graphmem.state.memory import StateMemory
from graphmem.state.models import Extraction, StateItem
from graphmem.state.planner import HeuristicStatePlanner, LLMStatePlanner

__all__ = ["Extraction", "HeuristicStateExtractor", "HeuristicStatePlanner", "LLMStateExtractor",
           "LLMStatePlanner", "StateItem", "StateMemory"]
