"""Checks of the live schema against what graphmem needs: the embedder's dimension against the
vector indexes, and search indexes that another name already holds (see
:func:`foreign_indexes`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.errors import EmbeddingDimensionError
from graphmem.graph.runner import QueryRunner


def check_vector_dimension(runner: QueryRunner, dimension: int) -> None:
    """Raise before anything is written when an existing graphmem vector index (named
    ``<label>_embedding``) has a dimension other than the embedder's.

    Raises:
        EmbeddingDimensionError: naming the index, its dimension and the embedder's.
    """
    for row in runner.read("core/list_vector_indexes"):
        if row["name"].endswith("_embedding") and row["dimension"] not in (None, dimension):
            raise EmbeddingDimensionError(
                f"vector index {row['name']!r} has dimension {row['dimension']}, but the embedder"
                f" produces {dimension}; use a matching embedder or a fresh database"
            )


# ---- search indexes held under another name --------------------------------------------------
#
# graphmem's vector and fulltext queries name their index (``db.index.vector.queryNodes(
# 'query_embedding', ...)``). Neo4j keeps at most one index of a type per label and property,
# and ``CREATE ... INDEX name IF NOT EXISTS`` is a silent no-op when an index of that type
# already covers the schema under another name. A migration would then be recorded as applied
# while the index its queries name does not exist. Neo4j can neither rename nor alias an index,
# so "adopting" an equivalent foreign index means dropping it and letting the migration create
# the same definition under graphmem's name (Neo4j repopulates it from the stored vectors).

_VECTOR = re.compile(
    r"CREATE\s+VECTOR\s+INDEX\s+(?P<name>\w+)\s+IF\s+NOT\s+EXISTS\s+FOR\s+\(\w+:(?P<label>\w+)\)"
    r"\s+ON\s+\(\w+\.(?P<prop>\w+)\)(?P<rest>.*)", re.IGNORECASE | re.DOTALL)
_FULLTEXT = re.compile(
    r"CREATE\s+FULLTEXT\s+INDEX\s+(?P<name>\w+)\s+IF\s+NOT\s+EXISTS\s+FOR\s+\(\w+:(?P<label>\w+)\)"
    r"\s+ON\s+EACH\s+\[(?P<props>[^\]]*)\]", re.IGNORECASE | re.DOTALL)
_DIMENSION = re.compile(r"`vector\.dimensions`\s*:\s*(\$vector_dimension|\d+)")
_SIMILARITY = re.compile(r"`vector\.similarity_function`\s*:\s*'(\w+)'")


@dataclass(frozen=True)
class PlannedIndex:
    """A vector or fulltext index a migration statement creates."""

    name: str
    type: str  # "VECTOR" | "FULLTEXT"
    label: str
    properties: tuple[str, ...]
    dimension: int | None = None
    similarity: str | None = None


@dataclass(frozen=True)
class ForeignIndex:
    """An existing index on a planned index's label and properties, under another name."""

    planned: PlannedIndex
    name: str
    dimension: int | None
    similarity: str | None

    @property
    def equivalent(self) -> bool:
        """Same type, and for a vector index the same dimension and similarity function."""
        return (self.planned.type != "VECTOR"
                or (self.dimension == self.planned.dimension
                    and self.similarity == self.planned.similarity))


def planned_search_indexes(statements: Sequence[str], vector_dimension: int) -> list[PlannedIndex]:
    """The vector and fulltext indexes that ``statements`` (one migration) create."""
    out: list[PlannedIndex] = []
    for statement in statements:
        if match := _VECTOR.search(statement):
            dim = _DIMENSION.search(match["rest"])
            sim = _SIMILARITY.search(match["rest"])
            dimension = None if dim is None else (
                vector_dimension if dim[1] == "$vector_dimension" else int(dim[1]))
            out.append(PlannedIndex(match["name"], "VECTOR", match["label"], (match["prop"],),
                                    dimension, sim[1].lower() if sim else "cosine"))
        elif match := _FULLTEXT.search(statement):
            props = tuple(p.strip().split(".")[-1] for p in match["props"].split(",") if p.strip())
            out.append(PlannedIndex(match["name"], "FULLTEXT", match["label"], props))
    return out


def foreign_indexes(runner: QueryRunner, planned: Sequence[PlannedIndex]) -> list[ForeignIndex]:
    """Existing indexes of a planned index's type on its label and properties whose name is not
    the planned name (those make ``CREATE ... IF NOT EXISTS`` a silent no-op)."""
    existing = runner.read("core/list_search_indexes")
    out = []
    for plan in planned:
        for row in existing:
            if (row["type"] == plan.type and row["name"] != plan.name
                    and list(row["labels"] or []) == [plan.label]
                    and sorted(row["properties"] or []) == sorted(plan.properties)):
                out.append(ForeignIndex(plan, row["name"], row["dimension"], row["similarity"]))
    return out


def describe_foreign(found: ForeignIndex) -> str:
    """One line naming the foreign index, its config and the planned one."""
    p = found.planned
    on = f":{p.label}({', '.join(p.properties)})"
    if p.type == "VECTOR":
        return (f"vector index {found.name!r} on {on} ({found.dimension} dimensions, "
                f"{found.similarity}) where graphmem needs {p.name!r} ({p.dimension} dimensions, "
                f"{p.similarity})")
    return f"fulltext index {found.name!r} on {on} where graphmem needs {p.name!r}"
