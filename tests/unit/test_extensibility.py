"""A fifth memory registered at run time appears everywhere above the memories without editing
graphmem: the facade (``mem.note``), ``counts()``, the Cypher label unions, the CLI listing, the
retrievers (single and combined), ``mem.add`` when it stores messages, an installed package's
entry point, and it disappears again when unregistered."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.embeddings import HashingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.graph.registry import CypherRegistry
from graphmem.memory import all_labels, memory_names, message_memories
from graphmem.langchain.retrievers import CombinedGraphMemoryRetriever, GraphMemoryRetriever, recall_options
from toy_memory import TEST_CYPHER, NoteMemory, chat_note_registered, note_registered


class FakeRunner:
    """Answers the toy memory's queries from a dict of notes; records every call."""

    def __init__(self) -> None:
        self.registry = CypherRegistry.load(extra=[TEST_CYPHER])
        self.notes: dict[str, dict[str, str]] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls.append((name, params))
        if name == "note/recall_notes":
            rows = [{"id": i, "text": n["text"],
                     "score": 1.0 if params["text"].lower() in n["text"].lower() else 0.5}
                    for i, n in sorted(self.notes.items()) if n["ns"] == params["namespace"]]
            return sorted(rows, key=lambda r: -r["score"])[:params["k"]]
        if name == "note/count_notes":
            return [{"nodes": sum(n["ns"] == params["namespace"] for n in self.notes.values())}]
        return []

    def write(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls.append((name, params))
        if name == "note/write_notes":
            new = [r for r in params["rows"] if r["id"] not in self.notes]
            for r in new:
                self.notes[r["id"]] = {"text": r["text"], "ns": params["namespace"]}
            return [{"created": len(new)}]
        return [{"deleted": 0}]

    run = read

    def close(self) -> None:
        pass


@pytest.fixture
def note_mem():
    with note_registered():
        runner = FakeRunner()
        yield GraphMemory(runner, HashingEmbedder(384), namespace="team-a"), runner


def test_the_facade_serves_a_memory_registered_at_run_time(note_mem) -> None:
    mem, runner = note_mem
    assert "note" in memory_names() and isinstance(mem.note, NoteMemory)
    assert mem.memory("note") is mem.note and "note" in mem.memories() and "note" in dir(mem)
    report = mem.note.ingest(["Caroline went to the support group", "Melanie paints"])
    assert report.created == {"Note": 2} and mem.note.ingest(["Melanie paints"]).created == {}
    assert mem.note.counts() == {"Note": 2}
    result = mem.note.recall("melanie", k=1)
    assert [i.text for i in result.items] == ["Melanie paints"]
    # another tenant through scoped(): same runner, nothing of team-a
    other = mem.scoped("team-b")
    assert other.runner is runner and other.note.namespace == "team-b"
    assert other.note.counts() == {"Note": 0}


def test_label_unions_follow_the_registry(note_mem) -> None:
    registry = CypherRegistry.load()
    text = registry.get("core/delete_namespace_batch").text
    assert "Note" in all_labels() and ":Query|" in text and "|Note|AuditRecord|" in text
    assert "{{MEMORY_LABELS}}" not in registry.get("core/count_namespace_nodes").text


def test_label_unions_without_the_toy_and_bad_labels() -> None:
    registry = CypherRegistry.load()
    text = registry.get("core/delete_namespace").text
    assert "Note" not in text and "|Theme|Timeline|AuditRecord|RetentionPolicy)" in text
    with pytest.raises(AttributeError, match="note"):
        GraphMemory(FakeRunner(), HashingEmbedder(384)).note  # noqa: B018
    with pytest.raises(InvalidInputError, match="unknown memory 'note'"):
        GraphMemory(FakeRunner(), HashingEmbedder(384)).memory("note")


def test_the_cli_lists_it(note_mem) -> None:
    from graphmem.cli.main import app

    result = CliRunner().invoke(app, ["memories", "--no-counts"])
    assert result.exit_code == 0, result.output
    assert "note" in result.output and "Note" in result.output
    for name in ("insight", "experience", "state", "associative"):
        assert name in result.output


def test_retrievers_read_it(note_mem) -> None:
    mem, _ = note_mem
    mem.note.ingest(["Caroline went to the support group", "Melanie paints"])
    assert recall_options("note") == ("min_score",)
    docs = GraphMemoryRetriever(graph_memory=mem, memory="note", k=1).invoke("caroline")
    assert [d.page_content for d in docs] == ["Caroline went to the support group"]
    assert docs[0].metadata["memory"] == "note" and docs[0].metadata["rank"] == 1
    with pytest.raises(InvalidInputError, match="not options of note memory"):
        GraphMemoryRetriever(graph_memory=mem, memory="note", recall_kwargs={"lam": 1})
    GraphMemoryRetriever(graph_memory=mem, memory="note", recall_kwargs={"min_score": 0.9})
    combined = CombinedGraphMemoryRetriever(graph_memory=mem, memories=("note",), k=2)
    assert combined.memories == ("note",) and len(combined.invoke("paints")) == 2
    mem._data_memories = (time.monotonic(), ["note"])  # what memories_with_data found
    assert [m.memory for m in CombinedGraphMemoryRetriever(graph_memory=mem).members()] == ["note"]


async def test_async_retriever_equals_sync(note_mem) -> None:
    mem, _ = note_mem
    mem.note.ingest(["a note", "another note"])
    retriever = GraphMemoryRetriever(graph_memory=mem, memory="note", k=2)
    assert await retriever.ainvoke("another") == retriever.invoke("another")


def test_unregistered_memory_is_refused_by_retrievers() -> None:
    mem = GraphMemory(FakeRunner(), HashingEmbedder(384))
    with pytest.raises(InvalidInputError, match="unknown memory 'note'"):
        GraphMemoryRetriever(graph_memory=mem, memory="note")


def test_mem_add_writes_every_memory_that_stores_messages() -> None:
    assert message_memories() == ("state", "associative")
    with chat_note_registered():
        assert message_memories() == ("state", "associative", "chatnote")
        runner = FakeRunner()
        mem = GraphMemory(runner, HashingEmbedder(384), namespace="team-a")
        runner.calls.clear()  # the facade's own index check
        refused = [{"id": "m1", "role": "user", "content": "FORBIDDEN words",
                    "timestamp": "2024-05-03T09:00:00Z"}]
        # its own check runs with the others' before the first write of any memory
        with pytest.raises(InvalidInputError, match="chatnote refuses message 'm1'"):
            mem.add(refused, conversation_id="c1")
        assert runner.calls == []
        reports = mem.add([{"id": "m2", "role": "user", "content": "I paint on Sundays.",
                            "timestamp": "2024-05-03T09:00:00Z"}], conversation_id="c1",
                          memories=["chatnote"])
        assert reports["chatnote"].created == {"ChatNote": 1}
        assert [n["text"] for n in runner.notes.values()] == ["I paint on Sundays."]
        with pytest.raises(InvalidInputError, match="memory 'insight' does not store "
                                                    "conversation messages; use one of state, "
                                                    "associative, chatnote"):
            mem.add(refused, conversation_id="c1", memories=["insight"])
    assert message_memories() == ("state", "associative")


def test_an_installed_package_registers_a_memory_through_its_entry_point(tmp_path) -> None:
    """A distribution's ``graphmem.memories`` entry point (a real dist-info on the path, as
    pip writes it) is registered when graphmem.memory loads; a broken one is logged and
    skipped."""
    import subprocess
    import sys

    info = tmp_path / "toy_note-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-note\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[graphmem.memories]\nnote = toy_memory:PLUGIN_SPEC\n"
                                           "broken = toy_memory:NoSuchThing\n")
    # the README's import first: the plugin module imports graphmem.langchain.retrievers at its top
    code = ("import logging; logging.basicConfig(level=logging.ERROR)\n"
            "from graphmem.facade import GraphMemory\n"
            "from graphmem.memory import memory_names, memory_spec\n"
            "from graphmem.embeddings import HashingEmbedder\n"
            "from graphmem.graph.registry import CypherRegistry\n"
            "class Runner:\n"
            "    registry = CypherRegistry.load()  # graphmem's own queries only\n"
            "    def read(self, name, **params): return []\n"
            "mem = GraphMemory(Runner(), HashingEmbedder(384), 'team-a')\n"
            "print(','.join(memory_names()))\n"
            "print(type(mem.note).__name__, memory_spec('note').labels,\n"
            "      'note/write_notes' in Runner.registry)\n")
    tests = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={**os.environ,
                                           "PYTHONPATH": os.pathsep.join([str(tmp_path),
                                                                          str(tests)])})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["insight,experience,state,associative,note",
                                       "NoteMemory ('Note',) True"]
    assert "memory entry point 'broken' (toy_memory:NoSuchThing) skipped" in out.stderr
