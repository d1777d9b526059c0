"""The public API, listed explicitly and pinned: a change here is a deliberate API change."""

from __future__ import annotations

import importlib
import inspect

import graphmem

PUBLIC = {
    "graphmem": {"GraphMemory", "GraphmemError", "SentenceTransformerEmbedder",
                 "HashingEmbedder", "Embedder", "__version__"},
    "graphmem.retrievers": {
        "RRF_K", "AssociativeRetriever", "CombinedGraphMemoryRetriever", "ExperienceRetriever",
        "GraphMemoryRetriever", "InsightRetriever", "MemoryName", "StateRetriever",
        "associative_documents", "experience_documents", "insight_documents",
        "reciprocal_rank_fusion", "state_documents",
    },
    "graphmem.insight": {
        "FeedbackInput", "FeedbackResult", "HeuristicController", "HeuristicPolicy",
        "InsightHistory", "InsightMemory", "InsightState", "LLMController", "OperationSet",
        "RecallParams", "RecallResult", "RecalledInsight", "ReplayReport", "ReplayTask",
        "load_tasks", "read_feedback_file", "replay", "replay_sweep",
    },
    "graphmem.experience": {"ExperienceMemory", "BuildReport", "RecallResult", "Trajectory",
                            "read_trajectories", "recommended_decisions", "build_from_files"},
    "graphmem.state": {"Extraction", "Hit", "IngestReport", "RecallResult", "Round",
                       "StateMemory"},
    "graphmem.associative": {"AssociativeMemory", "Evidence", "IngestReport", "RecallResult",
                             "ReconstructionConfig", "RoundTrace"},
}

FACADE_MEMBERS = {"insight", "experience", "state", "associative", "memory", "delete_namespace",
                  "from_settings", "close", "runner", "embedder", "namespace", "llm"}

MEMORY_METHODS = {
    "graphmem.insight.InsightMemory": {"recall", "arecall", "feedback", "feedback_many",
                                       "llm_usage"},
    "graphmem.experience.ExperienceMemory": {"recall", "arecall", "build", "build_from_files",
                                             "llm_usage"},
    "graphmem.state.StateMemory": {"recall", "arecall", "ingest", "ingest_file", "llm_usage"},
    "graphmem.associative.AssociativeMemory": {"recall", "arecall", "ingest_conversations",
                                               "ingest_file", "llm_usage"},
}


def test_module_all_lists_are_pinned() -> None:
    for module_name, expected in PUBLIC.items():
        module = importlib.import_module(module_name)
        assert set(module.__all__) == expected, module_name
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module_name}.{name}"


def test_facade_members() -> None:
    members = {n for n in dir(graphmem.GraphMemory) if not n.startswith("_")}
    init = inspect.signature(graphmem.GraphMemory.__init__).parameters
    assert FACADE_MEMBERS <= members | set(init)
    assert list(init) == ["self", "runner", "embedder", "namespace", "llm"]


def test_memory_classes_share_the_facade_constructor_and_recall_api() -> None:
    for path, methods in MEMORY_METHODS.items():
        module_name, cls_name = path.rsplit(".", 1)
        cls = getattr(importlib.import_module(module_name), cls_name)
        params = list(inspect.signature(cls.__init__).parameters)
        assert params[:5] == ["self", "runner", "embedder", "namespace", "llm"], path
        assert methods <= set(dir(cls)), f"{path} lacks {methods - set(dir(cls))}"
        assert inspect.iscoroutinefunction(cls.arecall), path
