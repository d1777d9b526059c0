"""Shared pytest configuration: marks integration tests by folder and, under CI, fails the run
when any integration test was skipped (a skipped real-Neo4j test is a failure there).

The run's folder (``GRAPHMEM_TEST_RUN_DIR``) is made by the process that starts the run and
inherited by pytest-xdist's workers: the test Neo4j's file lock and address live there
(tests/integration/conftest.py starts and migrates the server once, whichever process needs it
first), and the starting process stops that server when the run ends.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

RUN_DIR_ENV = "GRAPHMEM_TEST_RUN_DIR"

_skipped_integration: list[str] = []
_owned_run_dir: list[Path] = []


def pytest_configure(config: pytest.Config) -> None:
    if RUN_DIR_ENV not in os.environ:  # the starting process (workers inherit the variable)
        run_dir = Path(tempfile.mkdtemp(prefix="graphmem-test-run-"))
        os.environ[RUN_DIR_ENV] = str(run_dir)
        _owned_run_dir.append(run_dir)


def pytest_unconfigure(config: pytest.Config) -> None:
    # after every worker has ended: stop the Neo4j this run started (if any), drop the folder
    for run_dir in _owned_run_dir:
        info = run_dir / "neo4j.json"
        home = json.loads(info.read_text()).get("home") if info.is_file() else None
        if home:
            from graphmem import neo4j_local

            neo4j_local.stop(Path(home))
        shutil.rmtree(run_dir, ignore_errors=True)
        os.environ.pop(RUN_DIR_ENV, None)
    _owned_run_dir.clear()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "/tests/integration/" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.integration)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and "tests/integration/" in report.nodeid.replace(os.sep, "/"):
        _skipped_integration.append(report.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    # a whole module skipped at import (e.g. a missing optional package) counts too
    if report.skipped and "tests/integration/" in report.nodeid.replace(os.sep, "/"):
        _skipped_integration.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("CI") and _skipped_integration:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if _skipped_integration:
        verdict = "FAILED (CI forbids skips)" if os.environ.get("CI") else "warning"
        terminalreporter.write_line(
            f"{verdict}: {len(_skipped_integration)} integration test(s) skipped: "
            + ", ".join(_skipped_integration[:10]),
            red=bool(os.environ.get("CI")),
        )
