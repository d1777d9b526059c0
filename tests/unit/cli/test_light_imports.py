"""The one-shot command line stays light: ``--help`` of every command, ``neo4j status|stop`` and
``memories --no-counts`` load neither torch / sentence-transformers / transformers nor the Neo4j
driver, checked in a fresh interpreter (tests/import_probe.py) so nothing this test session
imported counts. The commands that connect are checked against a real Neo4j in
tests/integration/test_shell.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import typer

from graphmem.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[3]
PROBE = ROOT / "tests" / "import_probe.py"


def _help_lines(group, path: tuple[str, ...] = ()) -> list[list[str]]:
    lines = [[*path, "--help"]]
    for name, sub in getattr(group, "commands", {}).items():
        lines += _help_lines(sub, (*path, name))
    return lines


def probe(lines: list[list[str]], home: Path) -> list[dict]:
    """Run ``lines`` in a fresh interpreter with an empty ``GRAPHMEM_HOME`` and no NEO4J_URI."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(GRAPHMEM_HOME=str(home), PYTHONPATH=str(ROOT), COLUMNS="120")
    proc = subprocess.run([sys.executable, str(PROBE), json.dumps(lines)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_help_and_local_commands_load_no_torch_and_no_driver(tmp_path: Path) -> None:
    helps = _help_lines(typer.main.get_command(cli_main.app))
    assert ["shell", "--help"] in helps and ["state", "recall", "--help"] in helps
    lines = [*helps, ["neo4j", "status"], ["neo4j", "stop"], ["memories", "--no-counts"],
             ["memories", "--no-counts", "--json"]]
    results = probe(lines, tmp_path / "home")
    assert [r["args"] for r in results] == lines
    for r in results:
        assert r["loaded"] == [], f"graphmem {' '.join(r['args'])} loaded {r['loaded']}"
    by_args = {tuple(r["args"]): r for r in results}
    assert all(by_args[tuple(h)]["exit_code"] == 0 for h in helps)
    status = by_args[("neo4j", "status")]
    assert status["exit_code"] == 1 and "neo4j is down" in status["output"]
    assert "neo4j was not running" in by_args[("neo4j", "stop")]["output"]
    listing = json.loads(by_args[("memories", "--no-counts", "--json")]["output"])
    assert [m["memory"] for m in listing] == list(cli_main.memory_names())
