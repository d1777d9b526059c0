"""Migrations against the real Neo4j: idempotence, checksum guard, lock, schema vs neomodel."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from graphmem.errors import EmbeddingDimensionError, MigrationError, MigrationLockedError
from graphmem.graph.indexes import check_vector_dimension
from graphmem.graph.migrations import Migrator, load_migrations
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.schema import ALL_NODE_CLASSES, embedded_labels, label_of, unique_properties

TEST_CYPHER = Path(__file__).parent / "cypher"


@pytest.fixture
def test_runner(runner: QueryRunner) -> QueryRunner:
    """Same driver, a registry with the test-only queries."""
    return QueryRunner(runner.driver, CypherRegistry.load(TEST_CYPHER), database=runner.database)


def _write(folder: Path, version: int, body: str) -> None:
    (folder / f"V{version:04d}__test_only.cypher").write_text(body)


def test_migrate_twice_applies_nothing_the_second_time(runner: QueryRunner) -> None:
    migrator = Migrator(runner)
    assert migrator.migrate() == []  # the session fixture already migrated
    status = migrator.status()
    assert status.pending == []
    assert [row["version"] for row in status.applied if row["version"] < 9000] == [
        m.version for m in load_migrations()
    ]


def test_changed_applied_migration_is_refused(runner, test_runner, tmp_path) -> None:
    _write(tmp_path, 9001, "CREATE INDEX test_only_a IF NOT EXISTS FOR (n:TestOnly) ON (n.a);\n")
    try:
        assert [m.version for m in Migrator(runner, migrations=load_migrations(tmp_path)).migrate()] \
            == [9001]
        _write(tmp_path, 9001, "CREATE INDEX test_only_b IF NOT EXISTS FOR (n:TestOnly) ON (n.b);\n")
        with pytest.raises(MigrationError, match=r"V9001 .*changed after it was applied"):
            Migrator(runner, migrations=load_migrations(tmp_path)).migrate()
    finally:
        test_runner.write("forget_migration", version=9001)


def test_failing_statement_names_the_file(runner, test_runner, tmp_path) -> None:
    _write(tmp_path, 9002, "CREATE INDEX broken FOR ON nothing;\n")
    with pytest.raises(MigrationError, match="V9002__test_only.cypher"):
        Migrator(runner, migrations=load_migrations(tmp_path)).migrate()
    assert all(r["version"] != 9002 for r in Migrator(runner).status().applied)


def test_concurrent_runs_apply_once(runner, test_runner, tmp_path) -> None:
    _write(tmp_path, 9003, "CREATE INDEX test_only_c IF NOT EXISTS FOR (n:TestOnly) ON (n.c);\n")
    migrations = load_migrations(tmp_path)
    applied: list[int] = []
    locked: list[str] = []
    barrier = threading.Barrier(4)

    def run() -> None:
        barrier.wait()
        try:
            applied.extend(m.version for m in Migrator(runner, migrations=migrations).migrate())
        except MigrationLockedError as exc:
            locked.append(str(exc))

    threads = [threading.Thread(target=run) for _ in range(4)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert applied == [9003]
        assert len(locked) <= 3
    finally:
        test_runner.write("forget_migration", version=9003)


def test_concurrent_opens_of_an_up_to_date_database_all_succeed(runner) -> None:
    # processes opening a migrated database at the same moment read the status and go on: the
    # lock is taken only when something is pending, so none of them is told to try again later
    results: list[list[int]] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(6)

    def run() -> None:
        barrier.wait()
        try:
            results.append([m.version for m in Migrator(runner).migrate()])
        except BaseException as exc:  # noqa: BLE001  (collected and asserted below)
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results == [[]] * 6


def test_database_matches_the_neomodel_schema(runner: QueryRunner) -> None:
    constraints = {(tuple(r["labels"]), tuple(r["properties"]))
                   for r in runner.read("core/list_constraints")}
    for label, prop in unique_properties():
        assert ((label,), (prop,)) in constraints, f"no uniqueness constraint on {label}.{prop}"
    vector = {r["labels"][0]: r for r in runner.read("core/list_vector_indexes")}
    for label in embedded_labels():
        assert label in vector, f"no vector index for {label}"
        assert vector[label]["properties"] == ["embedding"]
        assert vector[label]["dimension"] == 384
    # vectors no query searches are stored without an index (V0110): no HNSW insert per write
    unindexed = {label_of(cls) for cls in ALL_NODE_CLASSES
                 if "embedding" in cls.defined_properties(rels=False)} - set(embedded_labels())
    assert unindexed == {"Topic", "State", "SemanticUnit", "Theme", "Insight"}
    assert not unindexed & set(vector) and not {"Cue", "Tag"} & set(vector)


def test_unread_range_indexes_are_dropped(test_runner: QueryRunner) -> None:
    # V0120: events and states are found by id and the composite indexes of V0070; the
    # single-property indexes of V0030 cost every write an insert and served no plan
    ranges = {(r["labels"][0], tuple(r["properties"])): r["name"]
              for r in test_runner.read("list_range_indexes")}
    retired = {("Event", ("sort_key",)), ("Event", ("occurred_at",)), ("State", ("valid_from",))}
    assert not retired & set(ranges)
    assert ranges[("Event", ("topic_id", "sort_key"))] == "event_topic_sort_key"
    assert ranges[("Event", ("namespace", "conversation", "session", "seq"))] == "event_session_seq"
    assert ranges[("State", ("topic_id", "valid_from"))] == "state_topic_valid_from"


def test_embedder_dimension_mismatch_is_refused_before_writing(runner: QueryRunner) -> None:
    check_vector_dimension(runner, 384)
    with pytest.raises(EmbeddingDimensionError, match=r"dimension 384, but the embedder produces 768"):
        check_vector_dimension(runner, 768)
