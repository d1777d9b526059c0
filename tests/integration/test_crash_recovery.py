"""Crash safety: Neo4j killed with SIGKILL in the middle of a loop of single-message adds keeps
every add it committed, and re-running the whole loop after a restart ends with the same graph
as a clean run — the same node count per label and relationship count per type.

The test runs its own local Neo4j (the launcher, on a throw-away home and a free port; never the
shared server). A subprocess (this file run as a script) adds the first :data:`TURNS` turns of
the bundled LoCoMo conversation one message at a time, with their ids. The test polls a count
query and kills the JVM once :data:`KILL_AT` events are stored, waits for the loop to fail,
restarts the launcher on the same home, re-runs the loop to the end, runs it once more into a
fresh namespace, and compares the two namespaces (both runs after the restart go through the
same ``mem.add`` loop in the test's own process)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out

TURNS = 8
KILL_AT = 3  # events stored before the kill (5 adds still to come)
PASSWORD = "unused"  # the test launcher runs without authentication


def _add_loop(runner, embedder, namespace: str, turns: int) -> None:  # noqa: ANN001
    """Add the first ``turns`` turns of the bundled LoCoMo conversation to ``namespace`` one
    message at a time, with their ids (``mem.add`` per message)."""
    from graphmem.conversations import read_conversations
    from graphmem.datasets import resolve
    from graphmem.facade import GraphMemory

    conversation = read_conversations(resolve("locomo"))[0]
    mem = GraphMemory(runner, embedder, namespace=namespace)  # the caller owns the runner
    for turn in conversation.turns[:turns]:
        mem.add({"id": turn.source_id, "speaker": turn.speaker, "content": turn.text,
                 "timestamp": turn.timestamp.isoformat()},
                conversation_id=conversation.id, session_id=turn.session)


def _script(uri: str, namespace: str, turns: int) -> None:
    """The subprocess that gets killed: the add loop with its own driver and embedder."""
    from graphmem.embeddings import SentenceTransformerEmbedder

    _add_loop(_runner(uri), SentenceTransformerEmbedder(), namespace, turns)


@pytest.fixture(scope="module")
def crash_home(tmp_path_factory: pytest.TempPathFactory, neo4j_server: dict) -> Iterator[Path]:
    """A throw-away launcher home (the session's launcher build: ``neo4j_server`` made it),
    its server stopped at the end."""
    from launcher_build import reuse_launcher_build  # here: this file also runs as a script

    from graphmem import neo4j_local

    home = tmp_path_factory.mktemp("neo4j-crash-home")
    reuse_launcher_build(home)
    try:
        yield home
    finally:
        neo4j_local.stop(home)


def _start(home: Path, port: int):  # noqa: ANN202
    """The launcher on ``home``, on ``port`` or the next free one."""
    from graphmem import neo4j_local

    return neo4j_local.start(home, bolt_port=port, browser_port=0, heap_mb=512,
                             pagecache_mb=128)


def _runner(uri: str):  # noqa: ANN202
    from graphmem.graph.connection import open_driver
    from graphmem.graph.registry import CypherRegistry
    from graphmem.graph.runner import QueryRunner

    return QueryRunner(open_driver(uri, "neo4j", PASSWORD), CypherRegistry.load(),
                       database="neo4j", owns_driver=True)


class Loop:
    """The add loop as a subprocess, its output in a file (a pipe could fill and stall it)."""

    def __init__(self, uri: str, namespace: str, log: Path):
        env = {**os.environ, "HF_HUB_OFFLINE": "1",
               "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        self.log = log
        with open(log, "w") as out:
            self.proc = subprocess.Popen([sys.executable, __file__, uri, namespace, str(TURNS)],
                                         env=env, stdout=out, stderr=subprocess.STDOUT)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout=timeout)


def _events(runner, namespace: str) -> int:
    return runner.read("bench/count_units", namespace=namespace)[0]["events"]


def _graph(runner, embedder, namespace: str) -> dict[str, dict[str, int]]:
    """Nodes per label and relationships per type (both ends in the namespace)."""
    from graphmem.facade import GraphMemory

    mem = GraphMemory(runner, embedder, namespace=namespace)
    nodes = {r["label"]: r["nodes"]
             for r in runner.read("core/count_namespace_nodes", namespace=namespace)}
    relationships: dict[str, int] = {}
    for per in mem.relationship_counts().values():
        for kind, n in per.items():
            relationships[kind] = relationships.get(kind, 0) + n
    return {"nodes": nodes, "relationships": relationships}


def test_a_kill_9_during_single_adds_then_a_rerun_equals_a_clean_run(crash_home, embedder,
                                                                     tmp_path) -> None:
    from graphmem import neo4j_local
    from graphmem.graph.migrations import Migrator
    from graphmem.local.ports import free_port

    server = _start(crash_home, free_port())
    runner = _runner(server.bolt_uri)
    Migrator(runner, vector_dimension=384).migrate()

    crashed = Loop(server.bolt_uri, "crashed", tmp_path / "crashed.log")
    deadline = time.monotonic() + 600  # a guard against a hung loop, not a synchronisation
    while _events(runner, "crashed") < KILL_AT:
        assert crashed.proc.poll() is None, crashed.output()
        assert time.monotonic() < deadline, "the add loop did not reach the kill point"
        time.sleep(0.05)
    os.kill(server.pid, signal.SIGKILL)  # the JVM, mid-loop
    runner.close()
    assert crashed.wait(timeout=300) != 0, crashed.output()  # it died with its database
    assert neo4j_local.status(crash_home) is None

    server = _start(crash_home, server.bolt_port)  # same home, same store
    runner = _runner(server.bolt_uri)
    try:
        survived = _events(runner, "crashed")
        assert KILL_AT <= survived < TURNS  # what committed survived; the loop was cut short
        for namespace in ("crashed", "clean"):  # re-run the whole loop; then a clean run
            _add_loop(runner, embedder, namespace, TURNS)
        crashed_graph = _graph(runner, embedder, "crashed")
        clean_graph = _graph(runner, embedder, "clean")
        assert crashed_graph["nodes"]["Event"] == TURNS
        assert crashed_graph["nodes"]["Episode"] == TURNS
        assert crashed_graph == clean_graph
        assert clean_graph["relationships"]["NEXT_EPISODE"] > 0
    finally:
        runner.close()


if __name__ == "__main__":
    _script(sys.argv[1], sys.argv[2], int(sys.argv[3]))
