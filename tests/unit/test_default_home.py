"""Without GRAPHMEM_HOME, graphmem keeps its local Neo4j and generated files in the user's data
directory (platformdirs), never in the current directory; GRAPHMEM_HOME moves them."""

from __future__ import annotations

from pathlib import Path

import platformdirs

from graphmem.config import GraphmemSettings, default_home


def test_the_default_home_is_the_users_data_directory(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GRAPHMEM_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    home = GraphmemSettings().home
    assert home == default_home() == platformdirs.user_data_path("graphmem", appauthor=False)
    assert home.is_absolute() and home.name == "graphmem"
    assert tmp_path not in home.parents and home != tmp_path / ".graphmem"


def test_graphmem_home_moves_it(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path / "gm"))
    assert GraphmemSettings().home == tmp_path / "gm"
