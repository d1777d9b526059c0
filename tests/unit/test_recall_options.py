"""Typed recall options and one ``k`` default: every memory's ``options_model`` matches the
keyword parameters of its ``recall`` (names and defaults); unknown options and bad values are
refused with an InvalidInputError naming them (``parse``, ``recall_with``, the retrievers'
``recall_kwargs``); the fused recall, the retrievers, the MCP tools, the LangChain tools and the
CLI default to the same ``k``."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime

import pytest
import typer

from fake_runner import FakeRunner

from graphmem.associative.options import AssociativeRecallOptions
from graphmem.embeddings import HashingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.memory import DEFAULT_K, MAX_K, memory_spec
from graphmem.recall_options import RecallOptions
from graphmem.langchain.retrievers import (CombinedGraphMemoryRetriever, GraphMemoryRetriever,
                                 StateRetriever, recall_options)
from graphmem.state.options import StateRecallOptions

BUILT_IN = ("insight", "experience", "state", "associative")


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_options_model_is_the_recall_signature(name: str) -> None:
    cls = memory_spec(name).load()
    params = {p.name: p.default for p in inspect.signature(cls.recall).parameters.values()
              if p.kind is inspect.Parameter.KEYWORD_ONLY}
    fields = {n: f.default for n, f in cls.options_model.model_fields.items()}
    assert fields == params
    assert inspect.signature(cls.recall).parameters["k"].default == DEFAULT_K == 10
    assert cls.options_model.memory == name


def test_parse_checks_names_types_and_bounds() -> None:
    assert StateRecallOptions.parse({"max_rounds": 1}).keywords() == {"max_rounds": 1}
    assert StateRecallOptions.parse(None).keywords() == {}
    with pytest.raises(InvalidInputError, match=r"\['steps'\] are not options of state memory"):
        StateRecallOptions.parse({"steps": 2})
    with pytest.raises(InvalidInputError, match="max_rounds.*'two'"):
        StateRecallOptions.parse({"max_rounds": "two"})
    with pytest.raises(InvalidInputError, match="max_rounds.*9"):
        StateRecallOptions.parse({"max_rounds": 9})
    with pytest.raises(InvalidInputError, match="structure.*'xyz'"):
        AssociativeRecallOptions.parse({"structure": "xyz"})
    with pytest.raises(InvalidInputError, match="include_archived.*'yes'"):
        AssociativeRecallOptions.parse({"include_archived": "yes"})
    with pytest.raises(InvalidInputError, match="must be a dict"):
        StateRecallOptions.parse([("max_rounds", 1)])
    assert StateRecallOptions.takes("since", "as_of", "include_archived")
    assert not RecallOptions.takes("since") and RecallOptions.names() == ()
    when = datetime(2023, 5, 1, tzinfo=UTC)
    assert StateRecallOptions(since=when).keywords() == {"since": when}


def test_recall_with_refuses_another_memorys_options() -> None:
    mem = GraphMemory(FakeRunner(), HashingEmbedder(384), "opts")
    with pytest.raises(InvalidInputError, match="use StateRecallOptions"):
        mem.state.recall_with("tea?", 3, AssociativeRecallOptions(max_rounds=2))
    with pytest.raises(InvalidInputError, match="state recall: recall option max_rounds"):
        mem.state.recall_with("tea?", 3, {"max_rounds": 0})


def test_retrievers_check_recall_kwargs_against_the_model() -> None:
    mem = GraphMemory(FakeRunner(), HashingEmbedder(384), "opts")
    assert recall_options("state") == ("max_rounds", "planner")
    assert recall_options("insight") == ("query_k", "lam", "embedding")
    with pytest.raises(InvalidInputError, match="max_rounds.*'two'"):
        StateRetriever(graph_memory=mem, recall_kwargs={"max_rounds": "two"})
    with pytest.raises(InvalidInputError, match="lam.*-1"):
        GraphMemoryRetriever(graph_memory=mem, memory="insight", recall_kwargs={"lam": -1})
    with pytest.raises(InvalidInputError, match="not in recall_kwargs"):
        StateRetriever(graph_memory=mem, recall_kwargs={"as_of": datetime(2023, 1, 1, tzinfo=UTC)})
    with pytest.raises(InvalidInputError, match="max_rounds.*0"):
        CombinedGraphMemoryRetriever(graph_memory=mem, recall_kwargs={"state": {"max_rounds": 0}})
    assert StateRetriever(graph_memory=mem, recall_kwargs={"max_rounds": 1}).k == DEFAULT_K
    assert CombinedGraphMemoryRetriever(graph_memory=mem).k == DEFAULT_K


def _k_default(fn) -> int:
    return inspect.signature(fn).parameters["k"].default


def test_one_k_default_in_every_entry_point() -> None:
    from graphmem.langchain.tools import RecallArgs, memory_tools

    assert _k_default(GraphMemory.recall) == _k_default(GraphMemory.arecall) == DEFAULT_K
    schema = RecallArgs.model_json_schema()["properties"]["k"]
    assert (schema["default"], schema["maximum"]) == (DEFAULT_K, MAX_K)
    mem = GraphMemory(FakeRunner(), HashingEmbedder(384), "opts")
    recall_tool = next(t for t in memory_tools(mem) if t.name == "recall")
    assert recall_tool.args["k"]["default"] == DEFAULT_K


@pytest.mark.parametrize("group", ("state", "associative", "insight", "experience"))
def test_the_cli_recall_defaults_to_the_same_k(group: str) -> None:
    from graphmem.cli.main import app

    command = typer.main.get_command(app).commands[group].commands["recall"]
    k = next(p for p in command.params if p.name == "k")
    assert k.default == DEFAULT_K


def test_the_mcp_recall_tools_default_to_the_same_k() -> None:
    import asyncio

    from graphmem.mcp_server import build_server

    server = build_server("opts", opener=lambda ns: GraphMemory(FakeRunner(), HashingEmbedder(384), ns))
    tools = {t.name: t for t in asyncio.run(server.list_tools())}
    for name in ("recall", "recall_state", "recall_experience"):
        schema = getattr(tools[name], "input_schema", None) or tools[name].inputSchema
        assert schema["properties"]["k"]["default"] == DEFAULT_K, name
