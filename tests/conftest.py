"""Shared pytest configuration: marks integration tests by folder and, under CI, fails the run
when any integration test was skipped (a skipped real-Neo4j test is a failure there)."""

from __future__ import annotations

import os

import pytest

_skipped_integration: list[str] = []


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
