"""The import contracts of ``.importlinter`` hold (import-linter, run as its command line would
be): no import cycle among graphmem's modules and packages, function-level imports included,
and the layers of docs/architecture.md point down (graph/ knows no memory, no retrieval engine,
no facade). A broken contract fails here with import-linter's report of the offending imports."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _lint_imports() -> list[str]:
    script = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert script, "import-linter is not installed: pip install -e '.[test]'"
    return [script]


def test_the_import_contracts_hold() -> None:
    out = subprocess.run([*_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Contracts: 2 kept, 0 broken." in out.stdout


def test_the_drawing_names_every_layer_of_the_contract() -> None:
    config = (ROOT / ".importlinter").read_text(encoding="utf-8")
    layers = config.split("layers =", 1)[1].split("\n\n", 1)[0]
    modules = {m.strip() for line in layers.splitlines() for m in line.replace("|", ":").split(":")
               if m.strip()}
    drawing = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert len(modules) >= 15
    assert sorted(m for m in modules if m not in drawing) == []
