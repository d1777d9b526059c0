"""The runner's sessions carry one bookmark manager per runner (read-your-writes on a cluster),
facades of one connection share it, and transaction retries by the driver are counted. No
database: a driver double records what each session was opened with and replays the driver's
retry of a transaction function."""

from __future__ import annotations

from typing import Any

import neo4j
import pytest
from fake_runner import HashEmbedder
from neo4j import exceptions as ne
from neo4j.api import BookmarkManager

from graphmem.errors import QueryError
from graphmem.facade import GraphMemory
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner

DEADLOCK = "Neo.TransientError.Transaction.DeadlockDetected"


class _Tx:
    def __init__(self, session: _Session):
        self.session = session

    def run(self, text: str, params: dict[str, Any]) -> list:
        self.session.queries.append(text)
        if self.session.fail_first and self.session.attempts == 1:
            raise ne.Neo4jError._hydrate_neo4j(code=DEADLOCK, message="deadlock detected")
        return []


class _Session:
    """Runs a transaction function like the driver: again after a retryable error."""

    def __init__(self, fail_first: bool):
        self.fail_first = fail_first
        self.attempts = 0
        self.queries: list[str] = []

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def _execute(self, fn: Any) -> Any:
        while True:
            self.attempts += 1
            try:
                return fn(_Tx(self))
            except ne.Neo4jError as exc:
                if not exc.is_retryable() or self.attempts >= 3:
                    raise

    execute_read = execute_write = _execute


class _Driver:
    def __init__(self, fail_first: bool = False):
        self.fail_first = fail_first
        self.opened: list[dict[str, Any]] = []
        self.sessions: list[_Session] = []

    def session(self, **config: Any) -> _Session:
        self.opened.append(config)
        self.sessions.append(_Session(self.fail_first))
        return self.sessions[-1]


def _runner(driver: _Driver, **kwargs: Any) -> QueryRunner:
    return QueryRunner(driver, CypherRegistry.load(), database="graph", **kwargs)  # type: ignore[arg-type]


def test_every_session_carries_the_runners_one_bookmark_manager() -> None:
    driver = _Driver()
    runner = _runner(driver)
    assert isinstance(runner.bookmark_manager, BookmarkManager)
    runner.read("core/ping")
    runner.write("core/delete_namespace", namespace="ns")
    runner.write_many([("core/delete_namespace", {"namespace": "ns"})])
    assert len(driver.opened) == 3
    assert all(config == {"database": "graph", "bookmark_manager": runner.bookmark_manager}
               for config in driver.opened)


def test_runners_get_their_own_manager_unless_one_is_shared() -> None:
    driver = _Driver()
    first, second = _runner(driver), _runner(driver)
    assert first.bookmark_manager is not second.bookmark_manager
    shared = _runner(driver, bookmark_manager=first.bookmark_manager)
    shared.read("core/ping")
    assert driver.opened[-1]["bookmark_manager"] is first.bookmark_manager


def test_scoped_facades_share_the_bookmark_manager() -> None:
    runner = _runner(_Driver())
    mem = GraphMemory(runner, HashEmbedder(), namespace="team-a")
    other = mem.scoped("team-b")
    timed = mem.scoped("team-c", wrap_runner=lambda inner: _Proxy(inner))
    assert mem.bookmark_manager is runner.bookmark_manager
    assert other.bookmark_manager is runner.bookmark_manager
    assert timed.bookmark_manager is runner.bookmark_manager


class _Proxy:
    """A runner proxy that delegates everything (like the benchmark's TimedRunner)."""

    def __init__(self, inner: QueryRunner):
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_a_retried_transaction_is_counted_with_its_error_code() -> None:
    driver = _Driver(fail_first=True)
    runner = _runner(driver)
    assert runner.retry_stats() == {"retries": 0, "by_code": {}}
    assert runner.write("core/delete_namespace", namespace="ns") == []
    assert driver.sessions[-1].attempts == 2
    assert runner.retry_stats() == {"retries": 1, "by_code": {DEADLOCK: 1}}
    runner.read("core/ping")                      # the second call fails once more
    assert runner.retry_stats() == {"retries": 2, "by_code": {DEADLOCK: 2}}


def test_a_transaction_that_succeeds_first_time_counts_no_retry() -> None:
    runner = _runner(_Driver())
    runner.read("core/ping")
    runner.write_many([("core/delete_namespace", {"namespace": "ns"})])
    assert runner.retry_stats() == {"retries": 0, "by_code": {}}


def test_wrong_params_fail_before_a_session_opens() -> None:
    driver = _Driver()
    with pytest.raises(QueryError, match="delete_namespace"):
        _runner(driver).write("core/delete_namespace", tenant="ns")
    assert driver.opened == []


def test_the_default_manager_is_the_drivers_implementation() -> None:
    runner = _runner(_Driver())
    manager = runner.bookmark_manager
    assert type(manager) is type(neo4j.GraphDatabase.bookmark_manager())
    manager.update_bookmarks([], ["bm:1"])
    manager.update_bookmarks(["bm:1"], ["bm:2"])   # a session replaces what it started with
    assert manager.get_bookmarks() == {"bm:2"}
