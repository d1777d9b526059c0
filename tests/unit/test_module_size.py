"""Every module of the graphmem package stays small: at most ``MAX_LINES`` lines, so each has one
job that its name tells. A module that grows past it fails here with its path and line count;
split it by responsibility into a sibling module with a name of its own."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "graphmem"

#: The most lines a module of the package may have.
MAX_LINES = 400


def _lines(path: Path) -> int:
    with path.open(encoding="utf-8") as fh:
        return sum(1 for _ in fh)


def test_the_package_has_modules_to_measure() -> None:
    assert len(list(PACKAGE.rglob("*.py"))) > 50


def test_no_module_is_longer_than_the_limit() -> None:
    too_long = {str(path.relative_to(ROOT)): n for path in sorted(PACKAGE.rglob("*.py"))
                if (n := _lines(path)) > MAX_LINES}
    assert not too_long, (
        f"modules over {MAX_LINES} lines (split each by responsibility): "
        + ", ".join(f"{path} has {n} lines" for path, n in too_long.items()))
