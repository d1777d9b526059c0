"""Which labels carry an embedding is a declaration of each memory (``MemorySpec.embedded_labels``):
register_memory checks it, the Cypher registry's ``{{EMBEDDED_LABELS}}`` union and label-list
templates follow it (a memory registered at run time included), and the doctor scans what it
declares. The generic CLI recall and the MCP ``recall_memory`` tool serve any registered
memory, refusing an unknown one with the registered names. No database."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.doctor import scan_query
from graphmem.errors import InvalidInputError, QueryRegistryError, UnknownQueryError
from graphmem.graph.registry import CypherRegistry
from graphmem.memory_registry import (MEMORY_REGISTRY, MemorySpec, embedded_labels,
                                      include_memory_queries, memory_names, register_memory)
from graphmem.schema import embedded_labels as schema_embedded_labels
from toy_memory import PLUGIN_SPEC, NoteItem, note_registered, registered

#: What graphmem.doctor checked before the memories declared it, in this order.
BUILT_IN_EMBEDDED = ("Query", "Insight", "Task", "Topic", "Event", "State", "Episode",
                     "SemanticUnit", "Theme")


def test_the_built_in_memories_declare_the_labels_doctor_checked() -> None:
    assert embedded_labels() == BUILT_IN_EMBEDDED
    assert set(schema_embedded_labels()) <= set(embedded_labels())  # the vector-indexed ones
    assert embedded_labels(["state"]) == ("Topic", "Event", "State")
    assert MEMORY_REGISTRY["experience"].embedded_labels == ("Task",)


@pytest.mark.parametrize(("spec", "message"), [
    (MemorySpec("bad", "x:Y", ("Bad",), embedded_labels=("Other",)),
     r"embedded label 'Other' of memory 'bad' is not one of its labels \['Bad'\]"),
    (MemorySpec("bad", "x:Y", ("Bad", "Good"), embedded_labels=("Good", "Query")),
     "embedded label 'Query' of memory 'bad'"),
    (MemorySpec("bad", "x:Y", ("Bad",), embedded_labels="Bad"),  # type: ignore[arg-type]
     "MemorySpec embedded_labels of memory 'bad' must be a tuple of label names, got 'Bad'"),
    (MemorySpec("bad", "x:Y", ("bad label",)),
     r"label 'bad label' of memory 'bad' must match \^\[A-Z\]"),
    (MemorySpec("bad", "x:Y", ("Bad`) DETACH DELETE (m",)), "must match"),
])
def test_a_bad_spec_is_refused_naming_the_label_and_nothing_is_registered(spec, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        register_memory(spec)
    assert "bad" not in MEMORY_REGISTRY and "bad" not in memory_names()
    assert embedded_labels() == BUILT_IN_EMBEDDED


def test_the_union_and_the_templates_follow_a_registered_memory() -> None:
    registry = CypherRegistry.load()
    before = registry.get("doctor/list_namespaces").text
    assert "(n:Query|Insight|Task|Topic|Event|State|Episode|SemanticUnit|Theme)" in before
    assert "doctor/set_embeddings@Note" not in registry
    with pytest.raises(UnknownQueryError, match="doctor/set_embeddings is written for the "
                                                "{{EMBEDDED_LABELS}} of the registered memories"):
        registry.get("doctor/set_embeddings@Note")
    with note_registered():
        assert embedded_labels() == (*BUILT_IN_EMBEDDED, "Note")
        assert "|Theme|Note)" in registry.get("doctor/list_namespaces").text
        scan = registry.get("doctor/scan_embedded@Note")
        assert "MATCH (n:Note {namespace: $namespace})" in scan.text and "{{" not in scan.text
        assert scan.name == "doctor/scan_embedded@Note" and scan.mode == "read"
        write = registry.get("doctor/set_embeddings@Note")
        assert "MATCH (n:Note {id: row.id})" in write.text and write.params == {"namespace",
                                                                              "rows"}
        assert {"doctor/scan_embedded@Note", "doctor/set_embeddings@Note",
                "doctor/set_embeddings@Event"} <= set(registry.names())
        assert scan_query(_Runner(registry), "Note") == "doctor/scan_embedded@Note"
    assert "Note" not in registry.get("doctor/list_namespaces").text
    assert "doctor/scan_embedded@Note" not in registry.names()
    # the bare template is no query; graphmem's own labels keep their own scans
    with pytest.raises(UnknownQueryError, match="template over a label list"):
        registry.get("doctor/set_embeddings")
    assert "doctor/set_embeddings" not in registry
    assert scan_query(_Runner(registry), "SemanticUnit") == "doctor/scan_semantic_unit"
    assert scan_query(_Runner(registry), "Theme") == "doctor/scan_theme"


class _Runner:
    def __init__(self, registry: CypherRegistry) -> None:
        self.registry = registry


def test_a_plugins_own_queries_are_included_for_the_doctor() -> None:
    registry = CypherRegistry.load()
    assert "note/count_notes" not in registry
    with registered(PLUGIN_SPEC):
        assert include_memory_queries(registry) > 3
        assert include_memory_queries(registry) == 0  # each folder once
    assert "note/count_notes" in registry and "set_embedding" in registry
    assert include_memory_queries(object()) == 0  # a runner without a registry


def _with_header(body: str, template: str) -> str:
    return ("// description: d\n// params: namespace\n// returns: x\n// mode: read\n"
            f"// template: {template}\n{body}")


def test_a_label_list_template_is_one_name_over_one_list(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    body = "MATCH (n:{{Label}} {namespace: $namespace}) RETURN '{{label}}' AS x"
    (tmp_path / "x" / "q.cypher").write_text(_with_header(body, "Label = {{EMBEDDED_LABELS}}"))
    registry = CypherRegistry.load(tmp_path)
    assert registry.names() == [f"x/q@{label}" for label in sorted(BUILT_IN_EMBEDDED)]
    assert registry.get("x/q@SemanticUnit").text == (
        "MATCH (n:SemanticUnit {namespace: $namespace}) RETURN 'semanticunit' AS x")
    assert len(registry) == len(BUILT_IN_EMBEDDED)
    for bad in ("Label = {{EMBEDDED_LABELS}}; Other = A", "Label = Event | {{EMBEDDED_LABELS}}"):
        (tmp_path / "x" / "q.cypher").write_text(_with_header(body, bad))
        with pytest.raises(QueryRegistryError, match="q.cypher"):
            CypherRegistry.load(tmp_path)
    (tmp_path / "x" / "q.cypher").write_text(_with_header(body, "Label = {{NO_LABELS}}"))
    with pytest.raises(QueryRegistryError, match=r"\{\{NO_LABELS\}\} stands for labels"):
        CypherRegistry.load(tmp_path).get("x/q@Event")


def test_cli_recall_refuses_an_unknown_memory_naming_the_registered_ones() -> None:
    from graphmem.cli.main import app

    with note_registered():
        result = CliRunner().invoke(app, ["recall", "--memory", "nosuch", "anything"])
    assert result.exit_code == 2, result.output
    assert ("unknown memory 'nosuch': use one of insight, experience, state, associative, note"
            in " ".join(result.output.split()))
    listing = CliRunner().invoke(app, ["recall", "--help"])
    assert listing.exit_code == 0 and "--memory" in listing.output and "--k" in listing.output


class _FakeFacade:
    """What the MCP tool asks of the facade: memory(name), with the registry's refusal."""

    namespace = "agent-1"

    def memory(self, name: str):
        from graphmem.memory_registry import memory_spec

        memory_spec(name)
        return self

    def recall(self, query: str, k: int):
        from graphmem.memory import RecallResult

        items = [NoteItem(id="n1", memory="note", kind="note", text="Melanie paints",
                          score=1.0, source_ids=["n1"])][:k]
        return RecallResult[NoteItem](memory="note", namespace=self.namespace, query=query,
                                      items=items)

    def close(self) -> None:
        pass


def test_the_mcp_server_serves_any_registered_memory() -> None:
    import mcp  # noqa: F401  (the test extra installs it)

    from graphmem.mcp_server import TOOL_NAMES, build_server

    with note_registered():
        server = build_server("agent-1", opener=lambda ns: _FakeFacade())

        async def run() -> None:
            tools = {t.name: t for t in await server.list_tools()}
            assert tuple(tools) == TOOL_NAMES and "recall_memory" in tools
            description = tools["recall_memory"].description
            assert "note: toy: plain notes (tests only)" in description
            assert "state: EMIR2 SEMG" in description
            out = await server.call_tool("recall_memory", {"memory": "note", "query": "paints",
                                                           "k": 1})
            assert "Melanie paints" in str(out)
            with pytest.raises(Exception, match="InvalidInputError: unknown memory 'nosuch': use "
                                                "one of insight, experience, state, associative, "
                                                "note") as info:
                await server.call_tool("recall_memory", {"memory": "nosuch", "query": "x"})
            assert "ToolError" in type(info.value).__name__
            with pytest.raises(Exception, match="argument 'k' must be integer"):
                await server.call_tool("recall_memory", {"memory": "note", "query": "x",
                                                         "k": "3"})

        asyncio.run(run())
