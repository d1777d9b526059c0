"""The toy plugin memory (tests/toy_memory.py, label ``Note``, embedded, queries from
tests/integration/cypher/note/) on a real Neo4j reaches every entry point without an edit in
graphmem: ``graphmem doctor`` checks and repairs its embedded label, ``graphmem namespaces``
lists a namespace holding only notes, ``graphmem recall --memory note`` answers, and the MCP
server (a subprocess that registers the toy through an installed package's entry point) lists
it and serves ``recall_memory``."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from graphmem.cli.main import app
from graphmem.facade import GraphMemory
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from toy_memory import PLUGIN_SPEC, registered

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
NOTES = ["Caroline went to the LGBTQ support group", "Melanie paints sunsets"]


@pytest.fixture
def notes(runner: QueryRunner, embedder, namespace: str, cli_env) -> Iterator[GraphMemory]:
    """The toy registered as a plugin (with its own queries and the uniqueness constraint on
    ``Note.id`` docs/memories.md asks of a plugin) and ``NOTES`` stored in ``namespace``, which
    holds nothing else; the notes are deleted while the toy is still registered."""
    own = QueryRunner(runner.driver, CypherRegistry.load(), database=runner.database,
                      bookmark_manager=runner.bookmark_manager)
    with registered(PLUGIN_SPEC):
        mem = GraphMemory(own, embedder, namespace)
        assert mem.note.ingest(NOTES).created == {"Note": 2}
        own.write("note/create_note_id_constraint")
        try:
            yield mem
        finally:
            mem.delete_namespace()


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_doctor_checks_and_repairs_the_plugins_embedded_label(notes: GraphMemory,
                                                              embedder) -> None:
    ns = notes.namespace
    assert ns in [r["namespace"] for r in notes.runner.read("doctor/list_namespaces")]
    code, out = _cli("doctor", "-n", ns, "--json")
    assert code == 0, out
    assert json.loads(out)["summary"] == []
    stored = notes.runner.read("note/read_note_embeddings", namespace=ns)
    assert sorted(r["text"] for r in stored) == sorted(NOTES)
    assert [len(r["embedding"]) for r in stored] == [embedder.dimension] * 2
    target = stored[0]
    assert notes.runner.write("set_embedding", namespace=ns, id=target["id"],
                              embedding=[0.0] * embedder.dimension)[0]["changed"] == 1

    code, out = _cli("doctor", "-n", ns)
    assert code == 1 and "1 bad, 1 left" in out, out
    code, out = _cli("doctor", "-n", ns, "--json")
    report = json.loads(out)
    assert code == 1, out  # bad embeddings remain: the same exit code as the table
    assert report["summary"] == [{"namespace": ns, "label": "Note", "bad": 1, "repaired": 0}]
    assert [(f["label"], f["id"], f["problem"]) for f in report["findings"]] == [
        ("Note", target["id"], "zero")]

    code, out = _cli("doctor", "-n", ns, "--repair", "--json")
    assert code == 0, out
    assert json.loads(out)["summary"] == [{"namespace": ns, "label": "Note", "bad": 1,
                                           "repaired": 1}]
    repaired = {r["id"]: r for r in notes.runner.read("note/read_note_embeddings", namespace=ns)}
    vector = np.asarray(repaired[target["id"]]["embedding"])
    expected = np.asarray(embedder.embed_documents([target["text"]])[0])
    assert vector.shape == (embedder.dimension,)
    assert float(vector @ expected / np.linalg.norm(vector) / np.linalg.norm(expected)) > 0.999
    code, out = _cli("doctor", "-n", ns)
    assert code == 0 and "no bad embeddings" in out, out


def test_namespaces_lists_a_namespace_holding_only_notes(notes: GraphMemory) -> None:
    code, out = _cli("namespaces", "--json")
    assert code == 0, out
    assert json.loads(out)[notes.namespace] == {"note": 2}
    code, out = _cli("memories", "-n", notes.namespace, "--json")
    assert code == 0, out
    [note] = [m for m in json.loads(out) if m["memory"] == "note"]
    assert note["labels"] == ["Note"] and note["embedded_labels"] == ["Note"]
    assert note["counts"] == {"Note": 2}


def test_the_generic_cli_recall_answers_from_the_plugin(notes: GraphMemory) -> None:
    ns = notes.namespace
    code, out = _cli("recall", "support group", "--memory", "note", "-n", ns, "--k", "1",
                     "--json")
    assert code == 0, out
    result = json.loads(out)
    assert result["memory"] == "note" and result["namespace"] == ns
    assert [i["text"] for i in result["items"]] == [NOTES[0]]
    assert result["items"][0]["score"] == 1.0
    code, out = _cli("recall", "Melanie", "-m", "note", "-n", ns)
    assert code == 0, out
    assert "note recall: Melanie" in out and "Melanie paints sunsets" in out
    code, out = _cli("recall", "anything", "-m", "note", "-n", f"{ns}-empty")
    assert code == 0 and f"namespace '{ns}-empty' holds no note memory" in out, out
    assert f"{ns} (2)" in out


def test_the_mcp_server_lists_and_serves_the_plugin(notes: GraphMemory, neo4j_server,
                                                    tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    info = tmp_path / "toy_note-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-note\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[graphmem.memories]\nnote = toy_memory:PLUGIN_SPEC\n")
    env = {**os.environ, "NEO4J_URI": neo4j_server["uri"],
           "NEO4J_USERNAME": neo4j_server["username"] or "neo4j",
           "NEO4J_PASSWORD": neo4j_server["password"] or "",
           "NEO4J_DATABASE": neo4j_server["database"] or "neo4j",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(TESTS), str(ROOT)])}
    params = StdioServerParameters(command=sys.executable, env=env, cwd=str(ROOT),
                                   args=["-m", "graphmem.cli.main", "mcp", "-n", notes.namespace])

    async def session_run() -> None:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
                assert set(tools) == {"remember", "recall", "recall_state", "feedback",
                                      "recall_experience", "forget", "recall_memory"}
                assert "note: toy: plain notes (tests only)" in tools["recall_memory"].description
                found = await session.call_tool("recall_memory", {
                    "memory": "note", "query": "Melanie", "k": 1})
                assert not _is_error(found), found
                payload = _payload(found)
                assert payload["memory"] == "note" and payload["query"] == "Melanie"
                assert [i["text"] for i in payload["items"]] == ["Melanie paints sunsets"]
                assert payload["items"][0]["memory"] == "note"
                bad = await session.call_tool("recall_memory", {"memory": "nosuch",
                                                                "query": "x"})
                assert _is_error(bad)
                assert ("InvalidInputError: unknown memory 'nosuch': use one of insight, "
                        "experience, state, associative, note") in bad.content[0].text

    asyncio.run(asyncio.wait_for(session_run(), timeout=300))


def _payload(result) -> dict:
    structured = (getattr(result, "structured_content", None)
                  or getattr(result, "structuredContent", None))
    if structured:
        return structured.get("result", structured) if len(structured) == 1 else structured
    return json.loads(result.content[0].text)


def _is_error(result) -> bool:
    flag = getattr(result, "is_error", None)
    return bool(flag if flag is not None else result.isError)
