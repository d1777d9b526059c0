"""Runner, error translation, real embedder and the local launcher's lifecycle."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from launcher_build import reuse_launcher_build

from graphmem import neo4j_local
from graphmem.errors import QueryError, ServiceUnavailableError, UnknownQueryError
from graphmem.graph.connection import open_driver


def test_runner_reads_by_name_and_checks_params(runner) -> None:
    (row,) = runner.read("core/ping")
    assert row["version"].startswith("5.26") and row["edition"] == "community"
    with pytest.raises(QueryError, match=r"takes params \['namespace'\], got \[\]"):
        runner.read("core/count_namespace_nodes")
    with pytest.raises(QueryError, match="is a read query, run as write"):
        runner.write("core/ping")
    with pytest.raises(UnknownQueryError):
        runner.read("core/does_not_exist")


def test_unreachable_server_is_a_typed_error() -> None:
    with pytest.raises(ServiceUnavailableError):
        open_driver(f"bolt://127.0.0.1:{neo4j_local.free_port()}", "neo4j", "x")


def test_real_embedder_is_normalised_384(embedder) -> None:
    vectors = embedder.embed_documents(["Caroline went to a support group.", "A cat sleeps."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    query = embedder.embed_query("Who went to the support group?")
    assert float(vectors[0] @ query) > float(vectors[1] @ query)


def test_cli_start_status_stop_and_persistence(tmp_path: Path, neo4j_server: dict) -> None:
    reuse_launcher_build(tmp_path / "home")  # the session's build (neo4j_server made it)
    env = {**os.environ, "GRAPHMEM_HOME": str(tmp_path / "home"),
           "GRAPHMEM_BOLT_PORT": str(neo4j_local.free_port()), "GRAPHMEM_BROWSER_PORT": "0"}
    env.pop("NEO4J_URI", None)
    cli = [sys.executable, "-m", "graphmem.cli.main"]

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*cli, *args], env=env, capture_output=True, text=True, timeout=600)

    assert run("neo4j", "status").returncode == 1
    started = run("neo4j", "start")
    assert started.returncode == 0, started.stderr
    port = env["GRAPHMEM_BOLT_PORT"]
    assert f"bolt://127.0.0.1:{port}" in started.stdout
    try:
        status = run("neo4j", "status")
        assert status.returncode == 0 and f"bolt://127.0.0.1:{port}" in status.stdout
        first = run("migrate")
        assert first.returncode == 0 and "applied V0001__baseline" in first.stdout, first.stderr
        assert "nothing to apply" in run("migrate").stdout
        assert "applied" in run("migrate", "--status").stdout
        assert "neo4j stopped" in run("neo4j", "stop").stdout
        assert run("neo4j", "status").returncode == 1
        # the store persists: after a restart the migration record is still there
        assert run("neo4j", "start").returncode == 0
        assert "nothing to apply" in run("migrate").stdout
    finally:
        run("neo4j", "stop")
    assert not neo4j_local.bolt_answers(int(port))
