"""Forward-only schema migrations: ``migrations/V0001__baseline.cypher`` onwards.

Each file is a list of Cypher schema statements, each ending with ``;`` at the end of a line;
``//`` comment lines are ignored. The only parameter a statement may use is
``$vector_dimension``. Applied migrations are recorded as
``(:__GraphmemMigration {version, name, checksum, applied_at})``; a changed file whose version is
applied is refused. A lock node (``__GraphmemLock {name: 'migrations'}``) keeps two concurrent
runs from both applying.
"""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

from graphmem.errors import MigrationError, MigrationLockedError
from graphmem.graph.indexes import (
    ForeignIndex,
    describe_foreign,
    foreign_indexes,
    planned_search_indexes,
)
from graphmem.graph.registry import used_params
from graphmem.graph.runner import QueryRunner

logger = logging.getLogger(__name__)
_FILE = re.compile(r"^V(\d{4})__([a-z0-9_]+)\.cypher$")
_ALLOWED_PARAMS = {"vector_dimension"}
LOCK_NAME = "migrations"
LOCK_TTL_SECONDS = 600
#: Seconds ``migrate`` waits for new indexes to come ONLINE.
INDEX_WAIT_SECONDS = 300

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Migration:
    """One migration file: version, name, SHA-256 checksum of its bytes, statements."""

    version: int
    name: str
    checksum: str
    statements: tuple[str, ...]
    path: Path


@dataclass(frozen=True)
class MigrationStatus:
    """Applied (with their recorded checksum) and pending migrations."""

    applied: list[dict]
    pending: list[Migration]


def split_statements(text: str) -> list[str]:
    """Split a migration file into statements: drop ``//`` comment lines, split after lines
    ending in ``;``."""
    statements, current = [], []
    for line in text.splitlines():
        if line.strip().startswith("//") or not line.strip():
            continue
        current.append(line)
        if line.rstrip().endswith(";"):
            statements.append("\n".join(current).rstrip().rstrip(";").strip())
            current = []
    if current:
        statements.append("\n".join(current).strip())
    return [s for s in statements if s]


def load_migrations(root: Path | None = None) -> list[Migration]:
    """All migration files under ``root`` (default: the shipped ``migrations/``), by version.

    Raises:
        MigrationError: a file name that does not match ``V0001__name.cypher``, a duplicate
            version, or a statement using a parameter other than ``$vector_dimension``.
    """
    if root is None:
        from graphmem.resources import resource_dir

        root = resource_dir("migrations")
    found: dict[int, Migration] = {}
    for path in sorted(root.glob("*.cypher")):
        match = _FILE.match(path.name)
        if not match:
            raise MigrationError(f"{path}: name must look like V0001__snake_case.cypher")
        version = int(match.group(1))
        if version in found:
            raise MigrationError(f"{path}: version {version} also in {found[version].path}")
        data = path.read_bytes()
        statements = tuple(split_statements(data.decode("utf-8")))
        for statement in statements:
            extra = used_params(statement) - _ALLOWED_PARAMS
            if extra:
                raise MigrationError(f"{path}: unsupported parameters {sorted(extra)}")
        found[version] = Migration(
            version=version,
            name=match.group(2),
            checksum=hashlib.sha256(data).hexdigest(),
            statements=statements,
            path=path,
        )
    return [found[v] for v in sorted(found)]


class Migrator:
    """Applies pending migrations through a :class:`QueryRunner`.

    Args:
        runner: the query runner (its registry holds ``core/*`` bookkeeping queries).
        vector_dimension: value for ``$vector_dimension`` in migration statements.
        migrations: the migrations to consider (default: the shipped folder).
        adopt_equivalent_indexes: adopt (drop and recreate under graphmem's name) a vector or
            fulltext index that another name holds with the same definition; False refuses it.
        index_wait_seconds: how long ``migrate`` waits for indexes to come ONLINE (0: no wait).
    """

    def __init__(
        self,
        runner: QueryRunner,
        vector_dimension: int = 384,
        migrations: list[Migration] | None = None,
        *,
        adopt_equivalent_indexes: bool = True,
        index_wait_seconds: int = INDEX_WAIT_SECONDS,
    ):
        self.runner = runner
        self.vector_dimension = vector_dimension
        self.migrations = load_migrations() if migrations is None else migrations
        self.adopt_equivalent_indexes = adopt_equivalent_indexes
        self.index_wait_seconds = index_wait_seconds

    def _bootstrap(self) -> None:
        self.runner.write("core/create_migration_constraint")
        self.runner.write("core/create_lock_constraint")

    def status(self) -> MigrationStatus:
        """Applied and pending migrations. Reads only (one read transaction; nothing is
        created), so it works on a fresh database, where every migration is pending.

        Raises:
            MigrationError: an applied migration's file has a different checksum now.
        """
        applied = self.runner.read("core/list_migrations")
        by_version = {row["version"]: row for row in applied}
        for migration in self.migrations:
            row = by_version.get(migration.version)
            if row is not None and row["checksum"] != migration.checksum:
                raise MigrationError(
                    f"migration V{migration.version:04d} ({migration.path.name}) changed after it"
                    f" was applied: checksum {migration.checksum[:12]} != recorded"
                    f" {row['checksum'][:12]}; add a new migration instead of editing it"
                )
        pending = [m for m in self.migrations if m.version not in by_version]
        return MigrationStatus(applied=applied, pending=pending)

    def migrate(self) -> list[Migration]:
        """Apply pending migrations in order under the migration lock. An up-to-date database
        is only read (no lock, no write), so any number of processes may open it at once.

        Returns:
            The migrations applied now (empty the second time).
        Raises:
            MigrationLockedError: another run holds the lock.
            MigrationError: a changed applied migration, a statement failed (names the file),
                a vector or fulltext index graphmem needs is held by another name with another
                definition (names it, its dimension and what to do), or an index did not come
                ONLINE within ``index_wait_seconds``.
        """
        if not self.status().pending:
            logger.info("migrations: the database is up to date")
            return []
        self._bootstrap()
        owner = str(uuid.uuid4())
        rows = self.runner.write(
            "core/acquire_lock", name=LOCK_NAME, owner=owner, ttl_seconds=LOCK_TTL_SECONDS
        )
        if not rows or not rows[0]["acquired"]:
            holder = rows[0]["holder"] if rows else "?"
            raise MigrationLockedError(f"migration lock is held by {holder}; try again later")
        try:
            applied_now = []
            for migration in self.status().pending:
                adopted = self._reconcile_indexes(migration)
                self._apply(migration, adopted)
                applied_now.append(migration)
                logger.info("applied migration V%04d__%s", migration.version, migration.name)
            if applied_now:
                self._await_indexes()
            else:
                logger.info("migrations: the database is up to date")
            return applied_now
        finally:
            self.runner.write("core/release_lock", name=LOCK_NAME, owner=owner)

    def _reconcile_indexes(self, migration: Migration) -> list[str]:
        """Refuse or adopt search indexes another name holds; returns the adopted names."""
        planned = planned_search_indexes(migration.statements, self.vector_dimension)
        found: list[ForeignIndex] = foreign_indexes(self.runner, planned) if planned else []
        refused = [f for f in found if not (f.equivalent and self.adopt_equivalent_indexes)]
        if refused:
            lines = "; ".join(describe_foreign(f) for f in refused)
            raise MigrationError(
                f"{migration.path.name}: cannot create graphmem's indexes: {lines}. graphmem "
                "queries these indexes by name and Neo4j keeps one per label and property: drop "
                "the other index (DROP INDEX <name>) or use another database, then run migrate "
                "again (with a vector index of the same dimension and similarity it is adopted)"
            )
        for f in found:
            log.warning("adopting %s: dropping it so %s creates it as %r",
                        describe_foreign(f), migration.path.name, f.planned.name)
            self.runner.write("core/drop_index", name=f.name)
        return [f.name for f in found]

    def _await_indexes(self) -> None:
        if self.index_wait_seconds <= 0:
            return
        try:
            self.runner.read("core/await_indexes", timeout_seconds=self.index_wait_seconds)
        except Exception as exc:
            raise MigrationError(
                f"indexes did not come ONLINE within {self.index_wait_seconds} s (SHOW INDEXES "
                f"lists their state): {exc}") from exc

    def _apply(self, migration: Migration, adopted: list[str] | None = None) -> None:
        for statement in migration.statements:
            params = {"vector_dimension": self.vector_dimension} if used_params(statement) else {}

            def work(tx, statement=statement, params=params):
                tx.run(statement, params).consume()

            try:
                self.runner.transaction("write", work, name=migration.path.name)
            except Exception as exc:
                raise MigrationError(
                    f"{migration.path.name}: statement failed: {statement[:200]!r}: {exc}"
                ) from exc
        self.runner.write(
            "core/record_migration",
            version=migration.version,
            name=migration.name,
            checksum=migration.checksum,
            adopted=list(adopted or []),
        )
