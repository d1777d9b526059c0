"""The smoke subset against the current Neo4j calendar release (Java 21+, built from Maven
Central like the 5.26 default): start on free ports with a throw-away home, migrate, write and read,
a vector index query and a full-text query, sessions chained by bookmarks, then stop; a namespace
exported from the 5.26 test server imports into it with the same counts and recall. The first
run downloads the calendar jars."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

from graphmem import datasets, neo4j_local
from graphmem.conversations import Conversation, read_conversations
from graphmem.facade import GraphMemory
from graphmem.graph.connection import open_driver
from graphmem.graph.migrations import Migrator
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.local.ports import free_port
from graphmem.local.versions import CALENDAR_VERSION
from smoke_subset import assert_smoke, run_smoke

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out


@pytest.fixture(scope="module")
def calendar_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[neo4j_local.LocalServer]:
    """Neo4j ``calendar`` on free ports (own home under tmp), stopped afterwards."""
    home = tmp_path_factory.mktemp("neo4j-calendar-home")
    began = time.monotonic()
    server = neo4j_local.start(home, bolt_port=free_port(), browser_port=free_port(),
                               heap_mb=512, version="calendar", timeout=300)
    print(f"\nNeo4j {server.version}: build + start {time.monotonic() - began:.1f} s")
    try:
        yield server
    finally:
        assert neo4j_local.stop(home)
        assert neo4j_local.status(home) is None


def test_calendar_release_runs_graphmem_smoke_subset(calendar_server, embedder) -> None:
    assert calendar_server.version == CALENDAR_VERSION
    assert neo4j_local.status(calendar_server.home) == calendar_server
    runner = QueryRunner(open_driver(calendar_server.bolt_uri, "neo4j", "unused"),
                         CypherRegistry.load(), database="neo4j", owns_driver=True)
    with runner:
        rows = runner.read("core/ping")  # calendar releases also list a "Cypher" component
        assert rows[0]["version"] == CALENDAR_VERSION and rows[0]["edition"] == "community"
        assert_smoke(run_smoke(runner, embedder))
        # every session carried the runner's bookmark manager: the server's bookmark is in it
        assert len(runner.bookmark_manager.get_bookmarks()) == 1


QUESTIONS = ["When did Caroline go to the LGBTQ support group?", "What does Melanie paint?",
             "What is Caroline's identity?"]


def test_a_namespace_moves_from_5_26_to_the_calendar_release(calendar_server, runner, embedder,
                                                             tmp_path) -> None:
    [conv] = read_conversations(datasets.resolve("locomo"), "locomo")[:1]
    conv = Conversation(id=conv.id, turns=conv.turns[:40], speakers=conv.speakers)
    source = GraphMemory(runner, embedder, f"test-xver-{uuid.uuid4().hex[:10]}")
    try:
        source.state.ingest([conv])
        source.associative.ingest([conv])
        path = tmp_path / "ns.jsonl"
        exported = source.export_namespace(path)
        assert exported.nodes["Event"] == 40 and exported.nodes["Episode"] > 0
        other = QueryRunner(open_driver(calendar_server.bolt_uri, "neo4j", "unused"),
                            CypherRegistry.load(), database="neo4j", owns_driver=True)
        with other:
            Migrator(other, vector_dimension=embedder.dimension).migrate()
            target = GraphMemory(other, embedder, source.namespace)
            report = target.import_namespace(path)
            assert report.lines == sum(exported.nodes.values()) + sum(
                exported.relationships.values())
            assert target.counts() == source.counts()
            for question in QUESTIONS:
                for name in ("state", "associative"):
                    assert [i.text for i in target.memory(name).recall(question, k=10).items] == \
                        [i.text for i in source.memory(name).recall(question, k=10).items]
                assert [i.text for i in target.recall(question, k=10).items] == \
                    [i.text for i in source.recall(question, k=10).items]
            target.delete_namespace()
    finally:
        source.delete_namespace()
