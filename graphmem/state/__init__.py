"""State memory: EMIR² State-Evolving Memory Graph (seed 002_8d954cf37c6d70e4).

``StateMemory(runner, embedder, namespace, llm=None)`` ingests conversations into topic chains
of events with evolving semantic states and answers questions by intent-guided multi-round
retrieval. See docs/state.md.
"""

from graphmem.state.memory import StateMemory
from graphmem.state.models import Extraction, Hit, IngestReport, RecallResult, Round

__all__ = ["Extraction", "Hit", "IngestReport", "RecallResult", "Round", "StateMemory"]
