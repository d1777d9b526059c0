"""Tests that run a local Neo4j of their own (a throw-away home) reuse the launcher the test
session already built, instead of building it again with Maven."""

from __future__ import annotations

import os
from pathlib import Path


def reuse_launcher_build(home: Path) -> None:
    """Link ``home/launcher`` to a launcher already built under the test session's home
    (``GRAPHMEM_TEST_HOME``, else the run's throw-away home in ``GRAPHMEM_TEST_RUN_DIR``) or
    the user's (``GRAPHMEM_HOME``); the store stays in ``home``. Without one, ``start`` builds
    it there."""
    run_dir = os.environ.get("GRAPHMEM_TEST_RUN_DIR")
    candidates = [os.environ.get("GRAPHMEM_TEST_HOME"),
                  str(Path(run_dir) / "neo4j-home") if run_dir else None,
                  os.environ.get("GRAPHMEM_HOME")]
    home.mkdir(parents=True, exist_ok=True)
    for candidate in filter(None, candidates):
        built = Path(candidate) / "launcher"
        if built.is_dir() and any(built.glob("*/.source-sha256")):
            (home / "launcher").symlink_to(built.resolve(), target_is_directory=True)
            return
