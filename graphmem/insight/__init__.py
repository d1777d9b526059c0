"""Insight memory: EvoGraph-Mem (seed 000_397455b1c8ef693a, eqs. 1–12) on Neo4j.

Query graph (queries, interaction steps, RELATED_QUERY), editable insight graph (Ω+ SUPPORTS,
Ω− CONFLICTS_WITH, active flag z, CONTEXTUALIZES, REVISION_OF), evidence-aware retrieval
r = s − λc in Cypher, and a failure-aware graph controller (heuristic or LLM) whose every
decision is audited as a ControllerDecision node.

    mem = InsightMemory(runner, embedder, "team-a")
    hits = mem.recall("Mohra is a truck", k=3, query_k=5, lam=1.0)
    mem.feedback("Mohra is a truck", "resolved", ["search[Mohra]", "finish[REFUTES]"], hits.items)
"""

from graphmem.insight.controller import (
    HeuristicInsightController,
    HeuristicPolicy,
    InsightController,
    LLMInsightController,
)
from graphmem.insight.datasets import ReplayTask, load_tasks
from graphmem.insight.feedback_file import read_feedback_file
from graphmem.insight.memory import InsightMemory
from graphmem.insight.models import (
    FeedbackInput,
    FeedbackResult,
    InsightHistory,
    InsightState,
    OperationSet,
    InsightItem,
    RecallParams,
)
from graphmem.insight.replay import ReplayReport, replay, replay_sweep

__all__ = [
    "FeedbackInput",
    "FeedbackResult",
    "HeuristicInsightController",
    "HeuristicPolicy",
    "InsightHistory",
    "InsightMemory",
    "InsightState",
    "InsightController",
    "InsightItem",
    "LLMInsightController",
    "OperationSet",
    "RecallParams",
    "ReplayReport",
    "ReplayTask",
    "load_tasks",
    "read_feedback_file",
    "replay",
    "replay_sweep",
]
