"""The wheel ships cypher/, migrations/ and the launcher sources."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_contains_cypher_migrations_and_launcher(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=ROOT, check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("graphmem-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    cypher = {p.relative_to(ROOT).as_posix() for p in (ROOT / "cypher").rglob("*.cypher")}
    migrations = {p.relative_to(ROOT).as_posix() for p in (ROOT / "migrations").glob("*.cypher")}
    assert cypher and migrations
    for rel in cypher | migrations:
        assert f"graphmem/_resources/{rel}" in names, rel
    assert "graphmem/_resources/launcher/pom.xml" in names
    assert any(n.endswith("launcher/io/graphmem/launcher/Launcher.java") or
               n.endswith("Launcher.java") for n in names)
