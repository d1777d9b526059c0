"""The smoke subset against the current Neo4j calendar release (Java 21+, built from Maven
Central like the 5.26 default): start on free ports with a throw-away home, migrate, write and read,
a vector index query and a full-text query, sessions chained by bookmarks, then stop. The first
run downloads the calendar jars."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from graphmem import neo4j_local
from graphmem.graph.connection import open_driver
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.local.ports import free_port
from graphmem.local.versions import CALENDAR_VERSION
from smoke_subset import assert_smoke, run_smoke


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
