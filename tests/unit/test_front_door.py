"""README.md is the front door: at most 300 lines, the two commands, and every relative link it
holds points at a file of the repository (anchors are checked by the strict docs build,
``make docs``, which CI runs)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short_and_holds_the_two_commands() -> None:
    assert len(README.splitlines()) <= 300
    block = README.split("## The two commands", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in block.strip().splitlines()] == \
        ["make demo", "make test"]


def test_every_relative_link_of_the_readme_exists() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    relative = [t for t in targets if "://" not in t]
    assert len(relative) >= 15
    assert [t for t in relative if not (ROOT / t).exists()] == []
