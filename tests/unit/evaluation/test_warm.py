"""The warm-process section's pure parts: the paired latency summary, the CLI recall defaults
that equal the memories' (the in-process recalls use the latter), the subprocess environment, and refusal of bad arguments before any
process starts."""

from __future__ import annotations

import inspect
import sys

import pytest

from graphmem.associative.memory import AssociativeMemory
from graphmem.associative.reconstruction import ReconstructionConfig
from graphmem.cli import associative as assoc_cli
from graphmem.cli import state as state_cli
from graphmem.errors import InvalidInputError
from graphmem.evaluation import warm
from graphmem.state.memory import StateMemory


def test_summary_of_paired_timings() -> None:
    out = warm.summarize([10.0, 20.0, 30.0], [11.0, 22.0, 33.0], [True, True, False])
    assert out["in_process_ms"] == {"p50": 20.0, "p95": 29.0}
    assert out["warm_ms"] == {"p50": 22.0, "p95": 31.9}
    assert out["ratio_p50"] == 1.1 and out["ratio_p95"] == 1.1
    assert out["overhead_ms_p50"] == 2.0 and out["same_items"] == 0.667
    assert out["target"] == {"value": 1.1, "target": "<= 1.2", "met": True}
    slow = warm.summarize([10.0], [13.0], [True])
    assert slow["ratio_p50"] == 1.3 and slow["target"]["met"] is False


@pytest.mark.parametrize("inp,warm_ms,same", [([], [], []), ([1.0], [1.0, 2.0], [True, True]),
                                              ([1.0], [1.0], [])])
def test_summary_needs_pairs(inp, warm_ms, same) -> None:
    with pytest.raises(InvalidInputError, match="paired timings"):
        warm.summarize(inp, warm_ms, same)


def _default(function, name: str):
    default = inspect.signature(function).parameters[name].default
    return getattr(default, "default", default)  # a typer.Option's own default


def test_the_cli_recalls_default_to_the_memories_defaults() -> None:
    """recall_calls times the memories' recall with their defaults against the CLI's."""
    assert _default(state_cli.recall, "rounds") == _default(StateMemory.recall, "max_rounds") == 2
    assert _default(assoc_cli.recall, "rounds") is None
    assert _default(AssociativeMemory.recall, "max_rounds") is None
    assert _default(assoc_cli.recall, "structure") == "ctc"
    assert ReconstructionConfig().structure == "ctc"  # the memory's default
    assert warm.cli_argv("--help") == [sys.executable, "-m", "graphmem.cli.main", "--help"]


def test_server_env_points_subprocesses_at_the_server() -> None:
    env = warm.server_env({"uri": "bolt://127.0.0.1:7799", "username": "neo4j",
                           "password": "pw", "database": "neo4j"}, base={"PATH": "/bin"})
    assert env == {"PATH": "/bin", "NEO4J_URI": "bolt://127.0.0.1:7799",
                   "NEO4J_USERNAME": "neo4j", "NEO4J_PASSWORD": "pw", "NEO4J_DATABASE": "neo4j"}


@pytest.mark.parametrize("questions,options,match", [
    ([], {}, "questions must be non-empty"),
    (["ok", "  "], {}, "questions must be non-empty"),
    (["ok", "go"], {"k": 0}, "k must be an integer >= 1, got 0"),
    (["ok"], {"warmup": -1}, "warmup must be"),
    (["ok"], {"cold_repeats": True}, "cold_repeats must be"),
    (["a", "b", "c"], {"warmup": 3}, "3 questions leave none to time after 3 warm-up"),
])
def test_bad_arguments_are_refused_before_anything_runs(questions, options, match) -> None:
    with pytest.raises(InvalidInputError, match=match):
        warm.warm_process_section(None, "ns", questions, **options)  # type: ignore[arg-type]
