"""The CLI without a database: the command list, ``graphmem memories``, ``-v`` logging, and
``migrate --status`` only reading (no bootstrap writes, so it works on a fresh database)."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Any

from typer.testing import CliRunner

from graphmem.cli import main as cli_main
from graphmem.graph.migrations import Migrator, load_migrations
from graphmem.memory import memory_names


class ReadOnlyRunner:
    """Answers ``core/list_migrations`` like a fresh database; any write fails the test."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls.append(name)
        return []

    def write(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        raise AssertionError(f"migrate --status wrote {name}")

    def close(self) -> None:
        pass


def test_every_registered_memory_and_command_is_mounted() -> None:
    result = CliRunner().invoke(cli_main.app, ["--help"])
    assert result.exit_code == 0
    for name in (*memory_names(), *cli_main.COMMAND_MODULES, "neo4j", "migrate", "memories", "demo"):
        assert name in result.output, name


def test_status_on_a_fresh_database_only_reads(monkeypatch) -> None:
    runner = ReadOnlyRunner()
    status = Migrator(runner).status()  # type: ignore[arg-type]
    assert status.applied == [] and len(status.pending) == len(load_migrations())
    assert runner.calls == ["core/list_migrations"]

    @contextmanager
    def fake_open_migrator(*args: Any, **kwargs: Any):
        yield Migrator(runner)  # type: ignore[arg-type]

    monkeypatch.setattr("graphmem.connect.open_migrator", fake_open_migrator)
    result = CliRunner().invoke(cli_main.app, ["migrate", "--status"])
    assert result.exit_code == 0, result.output
    assert "pending" in result.output and "V0001" in result.output


def test_verbose_turns_on_graphmem_logging(monkeypatch) -> None:
    logger = logging.getLogger("graphmem")
    before = logger.level
    try:
        result = CliRunner().invoke(cli_main.app, ["-vv", "memories", "--no-counts"])
        assert result.exit_code == 0, result.output
        assert logger.level == logging.DEBUG
        CliRunner().invoke(cli_main.app, ["-v", "memories", "--no-counts"])
        assert logger.level == logging.INFO
    finally:
        logger.setLevel(before)
        logging.getLogger().handlers.clear()


def test_memories_lists_the_registry_without_a_database() -> None:
    result = CliRunner().invoke(cli_main.app, ["memories", "--no-counts"])
    assert result.exit_code == 0, result.output
    for name in memory_names():
        assert name in result.output
    assert "Episode" in result.output and "counts" not in result.output
