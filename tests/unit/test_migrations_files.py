"""Migration files: naming, statement splitting, checksums, allowed parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.errors import MigrationError
from graphmem.graph.migrations import load_migrations, split_statements


def test_split_statements_ignores_comments_and_splits_on_semicolons() -> None:
    text = "// header\nCREATE INDEX a IF NOT EXISTS\nFOR (n:A) ON (n.x);\n\n// c\nCREATE INDEX b;\n"
    assert split_statements(text) == ["CREATE INDEX a IF NOT EXISTS\nFOR (n:A) ON (n.x)",
                                      "CREATE INDEX b"]


def test_shipped_migrations_are_ordered_and_baseline_covers_every_label() -> None:
    from graphmem.schema import ALL_NODE_CLASSES, embedded_labels, label_of

    migrations = load_migrations()
    assert migrations[0].version == 1 and migrations[0].name == "baseline"
    assert [m.version for m in migrations] == sorted(m.version for m in migrations)
    text = "\n".join(s for m in migrations for s in m.statements)
    for cls in ALL_NODE_CLASSES:
        assert f"FOR (n:{label_of(cls)}) REQUIRE n.id IS UNIQUE" in text
    for label in embedded_labels():
        assert f"FOR (n:{label}) ON (n.embedding)" in text


def test_bad_file_name_and_foreign_parameter_are_refused(tmp_path: Path) -> None:
    (tmp_path / "V1__x.cypher").write_text("CREATE INDEX a;\n")
    with pytest.raises(MigrationError, match="V1__x.cypher"):
        load_migrations(tmp_path)
    (tmp_path / "V1__x.cypher").unlink()
    (tmp_path / "V0001__x.cypher").write_text("CREATE INDEX a OPTIONS {x: $evil};\n")
    with pytest.raises(MigrationError, match=r"unsupported parameters \['evil'\]"):
        load_migrations(tmp_path)


def test_checksum_changes_with_content(tmp_path: Path) -> None:
    path = tmp_path / "V0001__x.cypher"
    path.write_text("CREATE INDEX a;\n")
    first = load_migrations(tmp_path)[0].checksum
    path.write_text("CREATE INDEX b;\n")
    assert load_migrations(tmp_path)[0].checksum != first
