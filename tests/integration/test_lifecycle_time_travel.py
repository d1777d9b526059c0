"""Time travel on the real Neo4j (``as_of``, :mod:`graphmem.time_travel`): a preference changed
twice (tea, then coffee, then green tea); ``as_of`` before, between and after each change
returns the state current at that time through every entry point -- the fused recall, state
memory's recall, the MCP tools, the LangChain retrievers and the CLI -- and insight memory
answers with the insights active then (one archived later comes back before its archiving)."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta, timezone

import pytest
from fakes import ScriptedChatModel, tool_reply
from reliability import tq  # noqa: F401
from typer.testing import CliRunner

from graphmem.facade import GraphMemory

UTC = timezone.utc
DRINKS = (("m1", "I drink tea every morning.", datetime(2024, 1, 10, 9, tzinfo=UTC)),
          ("m2", "Now I drink coffee every morning.", datetime(2024, 3, 10, 9, tzinfo=UTC)),
          ("m3", "These days I drink green tea every morning.", datetime(2024, 6, 10, 9, tzinfo=UTC)))
#: as_of -> the message whose state holds then (None: nothing had been said yet)
EXPECTED = {datetime(2023, 12, 1, tzinfo=UTC): None,
            datetime(2024, 2, 1, tzinfo=UTC): "m1",
            datetime(2024, 3, 10, 9, tzinfo=UTC): "m2",      # the instant of the change itself
            datetime(2024, 4, 1, tzinfo=UTC): "m2",
            datetime(2024, 7, 1, tzinfo=UTC): "m3",
            None: "m3"}
QUESTION = "What does the user drink now?"


@pytest.fixture
def drinks(runner, embedder, namespace) -> GraphMemory:
    mem = GraphMemory(runner, embedder, namespace)
    for mid, text, stamp in DRINKS:
        mem.add([{"id": mid, "role": "user", "content": text, "timestamp": stamp}],
                conversation_id="chat-1")
    return mem


def _said_by(stamp: datetime | None) -> set[str]:
    return {mid for mid, _, when in DRINKS if stamp is None or when <= stamp}


def test_fused_and_state_recall_answer_as_of_each_instant(drinks) -> None:
    for as_of, holds in EXPECTED.items():
        fused = drinks.recall(QUESTION, k=5, as_of=as_of)
        state = drinks.state.recall(QUESTION, k=5, as_of=as_of)
        episodes = drinks.associative.recall(QUESTION, k=5, as_of=as_of)
        for result in (fused, state, episodes):        # nothing said after as_of comes back
            assert {s for i in result.items for s in i.source_ids} == _said_by(as_of), as_of
        if holds is None:
            assert fused.items == [] and state.items == []
            continue
        top = fused.items[0]
        assert top.source_ids == [holds] and top.current is True and top.valid_to is None
        assert all(i.current is False and i.valid_to is not None and i.valid_to <= (as_of or i.valid_to)
                   for i in fused.items[1:]), as_of
        first = state.items[0]
        assert first.kind == "state" and first.source_ids == [holds] and first.current is True
        assert first.valid_to is None


def test_mcp_retrievers_and_cli_answer_as_of(drinks, runner, embedder, namespace,
                                             cli_env) -> None:
    from graphmem.cli.main import app
    from graphmem.mcp_server import build_server
    from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever, StateRetriever

    server = build_server(namespace, opener=lambda ns: GraphMemory(runner, embedder, ns))

    def tool(name: str, args: dict) -> dict:
        out = asyncio.run(server.call_tool(name, args))
        content = out[0] if isinstance(out, tuple) else out
        return json.loads((content.content if hasattr(content, "content") else content)[0].text)

    for as_of, holds in EXPECTED.items():
        if as_of is None or holds is None:
            continue
        text = as_of.isoformat()
        for name in ("recall", "recall_state"):
            items = tool(name, {"query": QUESTION, "k": 5, "as_of": text})["items"]
            assert items[0]["source_ids"] == [holds], (name, text)
            assert {s for i in items for s in i["source_ids"]} == _said_by(as_of), (name, text)
        for retriever in (StateRetriever(graph_memory=drinks, k=5, search_kwargs={"as_of": text}),
                          CombinedGraphMemoryRetriever(graph_memory=drinks, k=5, as_of=as_of)):
            docs = retriever.invoke(QUESTION)
            assert docs[0].metadata["source_ids"] == [holds], (type(retriever).__name__, text)
            assert {s for d in docs for s in d.metadata["source_ids"]} == _said_by(as_of)
        cli = CliRunner().invoke(app, ["state", "recall", QUESTION, "-n", namespace, "-k", "5",
                                       "--as-of", text, "--json"])
        assert cli.exit_code == 0, cli.output
        first = json.loads(cli.stdout)["items"][0]
        assert first["source_ids"] == [holds] and first["current"] is True, text
    bad = CliRunner().invoke(app, ["state", "recall", QUESTION, "-n", namespace,
                                   "--as-of", "2024-02-01T00:00:00"])
    assert bad.exit_code != 0 and "as_of" in " ".join(bad.output.split())


def test_insights_as_of_before_and_after_their_archiving(runner, embedder, tq, namespace,
                                                         cli_env) -> None:
    from graphmem.insight import InsightMemory

    base = InsightMemory(runner, embedder, namespace, related_top=0)
    seed = base.add_query("Is the Rhine longer than the Elbe?", "resolved", ["search[Rhine]"])
    lesson = base.add_insight("Compare lengths on the rivers' pages.", [seed])
    plan = tool_reply("ControllerOutput", {
        "edits": [{"insight_id": lesson, "operation": "ARCHIVE", "reason": "scripted"}],
        "add": False, "add_reason": "scripted"})
    llm = ScriptedChatModel(responses=[plan])
    InsightMemory(runner, embedder, namespace, llm=llm, related_top=0).feedback(
        "Is the Danube longer than the Rhine?", "failed", ["search[Danube]"], [lesson])
    [props] = [r["props"] for r in tq.read("read_nodes", namespace=namespace, label="Insight")
               if r["id"] == lesson]
    created, archived = props["created_at"].to_native(), props["archived_at"].to_native()
    assert archived > created
    between = created + (archived - created) / 2
    question = "Is the Rhine longer than the Elbe?"
    assert [i.id for i in base.recall(question, k=3, as_of=between).items] == [lesson]
    assert base.recall(question, k=3).items == []
    assert base.recall(question, k=3, as_of=archived + timedelta(seconds=1)).items == []
    assert base.recall(question, k=3, as_of=created - timedelta(seconds=1)).items == []
    from graphmem.cli.main import app

    for when, expected in ((between, [lesson]), (archived + timedelta(seconds=1), [])):
        cli = CliRunner().invoke(app, ["insight", "recall", question, "-n", namespace,
                                       "--as-of", when.isoformat(), "--json"])
        assert cli.exit_code == 0, cli.output
        assert [i["id"] for i in json.loads(cli.stdout)["items"]] == expected
