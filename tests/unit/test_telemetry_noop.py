"""graphmem without the ``opentelemetry`` package (the ``otel`` extra not installed): the
telemetry module falls back to its own no-ops and every recall, ingest and database call works
as before. The package's absence is simulated by ``sys.modules["opentelemetry"] = None`` (an
import of it then raises ImportError) and ``telemetry.configure()``, which makes graphmem look
for it again. Also: importing graphmem's core modules does not import opentelemetry."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_runner import FakeRunner
from toy_memory import NoteMemory

from graphmem import telemetry
from graphmem.embeddings import HashingEmbedder
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.parallel import run_all

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def without_opentelemetry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in [m for m in sys.modules if m == "opentelemetry" or m.startswith("opentelemetry.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    telemetry.configure()
    try:
        yield
    finally:
        monkeypatch.undo()
        telemetry.configure()


def test_without_the_package_everything_is_a_noop(without_opentelemetry) -> None:
    with pytest.raises(ImportError):
        import opentelemetry  # noqa: F401
    assert telemetry.enabled() is False
    handle = telemetry.span("graphmem.recall", k=3)
    assert handle is telemetry.NOOP
    with handle as span:
        assert span.recording is False
        span.set(items=2)
        span.set({"graphmem.rounds": 1})
    for name, (kind, _, _) in telemetry.METRICS.items():
        instrument = telemetry.counter(name) if kind == "counter" else telemetry.histogram(name)
        assert instrument is telemetry.NOOP
        instrument.add(1, {"graphmem.memory": "state"})
        instrument.record(2.5)
    assert telemetry.operation_span("graphmem.recall", "state", "ns", k=1) is telemetry.NOOP
    assert telemetry.db_span("state/merge_events", "write", "neo4j") is telemetry.NOOP
    telemetry.db_rows(3)
    telemetry.add_embed_time(1.0)
    with telemetry.db_waiting():
        pass
    with pytest.raises(ValueError):  # an error in the body propagates unchanged
        with telemetry.span("graphmem.add"):
            raise ValueError("boom")


def test_memories_and_the_runner_work_without_the_package(without_opentelemetry) -> None:
    from toy_memory import TEST_CYPHER

    registry = CypherRegistry.load(extra=[TEST_CYPHER])
    runner = FakeRunner()
    runner.registry = registry
    memory = NoteMemory(runner, HashingEmbedder(16), namespace="team-a")
    report = memory.ingest(["one note", "another note"])
    assert report.inputs == 2
    memory.recall("note", k=2)
    assert runner.names() == ["note/write_notes", "note/recall_notes"]
    assert run_all([lambda: 1, lambda: 2]) == [1, 2]

    class Driver:  # the real runner's transaction path, its telemetry a no-op
        def session(self, **config):
            return Session()

    class Session:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def execute_read(self, fn):
            return fn(Tx())

    class Tx:
        def run(self, text, params):
            return []

    real = QueryRunner(Driver(), registry)  # type: ignore[arg-type]
    assert real.read("note/count_notes", namespace="team-a") == []
    assert "opentelemetry" not in {m.partition(".")[0] for m, v in sys.modules.items() if v}


def test_importing_graphmem_core_modules_does_not_import_opentelemetry() -> None:
    code = ("import json, sys\n"
            "import graphmem.telemetry, graphmem.memory, graphmem.graph.runner, "
            "graphmem.embeddings, graphmem.llm, graphmem.parallel\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('opentelemetry'))))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(ROOT),
                                                       "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == []
