"""The public API, listed explicitly and pinned: a change here is a deliberate API change."""

from __future__ import annotations

import importlib
import inspect
import logging

import graphmem
from graphmem.memory import MEMORY_REGISTRY, Memory, memory_spec

PUBLIC = {
    "graphmem": {"GraphMemory", "GraphmemError", "SentenceTransformerEmbedder",
                 "HashingEmbedder", "Embedder", "__version__"},
    "graphmem.langchain.retrievers": {
        "RRF_K", "AssociativeRetriever", "CombinedGraphMemoryRetriever", "ExperienceRetriever",
        "GraphMemoryRetriever", "InsightRetriever", "StateRetriever", "item_document",
        "options_model", "recall_options", "reciprocal_rank_fusion", "turn_key",
    },
}

FACADE_MEMBERS = {"insight", "experience", "state", "associative", "memory", "memories",
                  "scoped", "counts", "relationship_counts", "query", "delete_namespace", "from_settings", "close",
                  "runner", "embedder", "namespace", "llm", "bookmark_manager"}

#: The contract every registered memory implements.
CONTRACT = {"recall", "arecall", "ingest", "aingest", "counts", "relationship_counts",
            "documents", "labels", "name", "llm_usage"}

#: Each built-in memory: extra methods, the recall signature (after query, k), the default k,
#: and the old names that must be gone (no aliases).
BUILT_INS = {
    "insight": ({"feedback"}, ["query_k", "lam", "embedding", "since", "until", "as_of"], 10,
                {"feedback_many"}),
    "experience": ({"ingest_files"}, ["t", "with_rules", "since", "until", "as_of"], 10,
                   {"build", "build_from_files"}),
    "state": ({"ingest_file"}, ["max_rounds", "planner", "since", "until", "as_of",
                                "include_archived"], 10, set()),
    "associative": ({"ingest_file"}, ["max_rounds", "structure", "config", "since", "until", "as_of",
                                      "include_archived"], 10,
                    {"ingest_conversations"}),
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


def test_the_package_logger_has_only_a_null_handler() -> None:
    handlers = logging.getLogger("graphmem").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)


def test_builtin_memories_implement_the_contract_with_the_new_names() -> None:
    assert set(BUILT_INS) <= set(MEMORY_REGISTRY)
    for name, (extra, options, default_k, gone) in BUILT_INS.items():
        cls = memory_spec(name).load()
        assert issubclass(cls, Memory) and cls.name == name, name
        params = list(inspect.signature(cls.__init__).parameters)
        assert params[:5] == ["self", "runner", "embedder", "namespace", "llm"], name
        assert (CONTRACT | extra) <= set(dir(cls)), f"{name} lacks {(CONTRACT | extra) - set(dir(cls))}"
        assert not gone & set(dir(cls)), f"{name} still has {gone & set(dir(cls))}"
        assert inspect.iscoroutinefunction(cls.arecall), name
        recall = inspect.signature(cls.recall).parameters
        assert list(recall)[:3] == ["self", "query", "k"], name
        assert recall["k"].default == default_k, name
        assert [p for p in recall if p not in ("self", "query", "k")] == options, name


def test_old_module_names_are_gone() -> None:
    import importlib.util

    assert importlib.util.find_spec("graphmem.conversations") is not None
    assert importlib.util.find_spec("graphmem.conversation") is None
