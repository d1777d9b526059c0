"""The edge: turn settings into a running connection — a
:class:`~graphmem.graph.runner.QueryRunner` (the facade builds itself on one:
:func:`graphmem.facade.open_memory_at`) or a :class:`~graphmem.graph.migrations.Migrator`.

With ``NEO4J_URI`` set, that server is used; otherwise the local launcher is started (or reused)
under ``GRAPHMEM_HOME``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from graphmem.config import GraphmemSettings, Neo4jSettings
from graphmem.graph import connection

if TYPE_CHECKING:
    from graphmem.graph.migrations import Migrator
    from graphmem.graph.runner import QueryRunner

logger = logging.getLogger(__name__)


def launch_local(settings: GraphmemSettings, neo4j: Neo4jSettings | None = None):
    """Start (or reuse) the local launcher described by ``settings``; return its
    :class:`~graphmem.neo4j_local.LocalServer`.

    Ports set explicitly (``GRAPHMEM_BOLT_PORT`` / ``GRAPHMEM_BROWSER_PORT``) are pinned: taken,
    they fail at once; defaults move to the next free port. With ``GRAPHMEM_LOCAL_AUTH`` the
    password is ``NEO4J_PASSWORD``.

    Raises:
        LauncherError: the launcher could not be built or started.
        ConfigurationError: bad version, or auth with a password shorter than 8 characters.
    """
    from graphmem import neo4j_local

    neo4j = neo4j or Neo4jSettings()
    bolt_pinned, browser_pinned = settings.pinned_ports
    return neo4j_local.start(
        settings.home,
        bolt_port=settings.bolt_port,
        browser_port=settings.browser_port,
        pagecache_mb=settings.pagecache_mb,
        heap_mb=settings.heap_mb,
        bolt_pinned=bolt_pinned,
        browser_pinned=browser_pinned,
        version=settings.neo4j_version,
        auth=settings.local_auth,
        password=neo4j.password.get_secret_value(),
    )


def resolve_uri(neo4j: Neo4jSettings, settings: GraphmemSettings, start_local: bool = True) -> str:
    """The Bolt URI to use: ``NEO4J_URI`` if set, else the local launcher's (started if needed).

    Without ``start_local``, the URI recorded by a running launcher (its chosen ports), else the
    configured Bolt port.

    Raises:
        LauncherError: the local launcher could not start.
    """
    if neo4j.uri:
        return neo4j.uri
    if start_local:
        return launch_local(settings, neo4j).bolt_uri
    from graphmem import neo4j_local

    running = neo4j_local.status(settings.home)
    return running.bolt_uri if running else f"bolt://127.0.0.1:{settings.bolt_port}"


def _open(neo4j: Neo4jSettings, settings: GraphmemSettings, start_local: bool) -> Any:
    uri = resolve_uri(neo4j, settings, start_local=start_local)
    logger.info("connecting to %s (database %s)", uri, neo4j.database)
    return connection.open_runner(uri, neo4j.username, neo4j.password.get_secret_value(),
                                  neo4j.database)


def open_runner_at(
    neo4j: Neo4jSettings | None = None,
    settings: GraphmemSettings | None = None,
    *,
    migrate: bool = False,
    start_local: bool = True,
) -> QueryRunner:
    """A :class:`~graphmem.graph.runner.QueryRunner` on the configured database (settings read
    from the environment when not given) that owns its driver: close it when done.
    :func:`graphmem.facade.open_memory_at` builds a facade on it.

    Args:
        migrate: apply pending migrations first.
        start_local: start the local Neo4j when ``NEO4J_URI`` is unset (else only connect).
    Raises:
        LauncherError, ServiceUnavailableError, AuthenticationError, MigrationError.
    """
    from graphmem.graph.migrations import Migrator

    neo4j = neo4j or Neo4jSettings()
    settings = settings or GraphmemSettings()
    runner = _open(neo4j, settings, start_local)
    try:
        if migrate:
            Migrator(runner, vector_dimension=settings.vector_dimension).migrate()
        return runner
    except BaseException:
        runner.close()
        raise


@contextmanager
def open_migrator(neo4j: Neo4jSettings | None = None,
                  settings: GraphmemSettings | None = None) -> Iterator[Migrator]:
    """A :class:`~graphmem.graph.migrations.Migrator` on the configured database; the
    connection closes when the block ends."""
    from graphmem.graph.migrations import Migrator

    neo4j = neo4j or Neo4jSettings()
    settings = settings or GraphmemSettings()
    runner = _open(neo4j, settings, True)
    try:
        yield Migrator(runner, vector_dimension=settings.vector_dimension)
    finally:
        runner.close()
