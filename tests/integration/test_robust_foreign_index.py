"""A vector index that another name already holds on :Query(embedding): ``migrate`` refuses one
with another dimension (naming it) and adopts an equivalent one, so the first ``add_query``
finds ``query_embedding``. Runs on its own throw-away Neo4j: a foreign :Query index in the
session's shared database would break every other test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from launcher_build import reuse_launcher_build

from graphmem import neo4j_local
from graphmem.embeddings import HashingEmbedder
from graphmem.errors import MigrationError
from graphmem.graph.connection import open_driver
from graphmem.graph.migrations import Migrator
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.insight import InsightMemory

TEST_CYPHER = Path(__file__).parent / "cypher"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory,
          neo4j_server: dict) -> Iterator[tuple[QueryRunner, QueryRunner]]:
    """(runner, test-only runner) of a fresh database on a private local Neo4j (the session's
    launcher build)."""
    home = tmp_path_factory.mktemp("neo4j-foreign-index")
    reuse_launcher_build(home)
    server = neo4j_local.start(home, bolt_port=neo4j_local.free_port(), browser_port=0)
    driver = open_driver(server.bolt_uri, "neo4j", "unused")
    runner = QueryRunner(driver, CypherRegistry.load(), database="neo4j", owns_driver=True)
    try:
        yield runner, QueryRunner(driver, CypherRegistry.load(TEST_CYPHER), database="neo4j")
    finally:
        runner.close()
        neo4j_local.stop(home)


def _vector_indexes(runner: QueryRunner) -> dict[str, int]:
    return {r["name"]: r["dimension"] for r in runner.read("core/list_vector_indexes")
            if r["labels"] == ["Query"]}


def test_foreign_query_index_is_refused_then_an_equivalent_one_adopted(fresh) -> None:
    runner, tq = fresh
    tq.write("create_query_vector_index", name="legacy_query_vectors", dimension=768)

    with pytest.raises(MigrationError, match=r"'legacy_query_vectors'.*768 dimensions.*"
                                             r"'query_embedding' \(384 dimensions.*DROP INDEX"):
        Migrator(runner, vector_dimension=384).migrate()
    assert [m.version for m in Migrator(runner).status().pending][0] == 1   # nothing recorded
    assert _vector_indexes(runner) == {"legacy_query_vectors": 768}          # left as it was

    runner.write("core/drop_index", name="legacy_query_vectors")
    tq.write("create_query_vector_index", name="legacy_query_vectors", dimension=384)
    applied = Migrator(runner, vector_dimension=384).migrate()
    assert applied and applied[0].version == 1
    assert _vector_indexes(runner) == {"query_embedding": 384}
    recorded = {r["version"]: r for r in runner.read("core/list_migrations")}
    assert 1 in recorded

    mem = InsightMemory(runner, HashingEmbedder(384), "foreign-index", related_top=3)
    qid = mem.add_query("How tall is the Eiffel tower?", "resolved", ["search[Eiffel]"])
    mem.add_query("How tall is the Eiffel tower in metres?", "resolved", ["search[Eiffel]"])
    mem.add_insight("Look up the official height.", [qid])
    assert [i.text for i in mem.recall("Eiffel tower height", query_k=2, k=1).items] == [
        "Look up the official height."]
