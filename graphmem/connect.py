"""The edge: turn settings into a running connection (driver, registry, runner).

With ``NEO4J_URI`` set, that server is used; otherwise the local launcher is started (or reused)
under ``GRAPHMEM_HOME``.
"""

from __future__ import annotations

from graphmem.config import GraphmemSettings, Neo4jSettings
from graphmem.graph.connection import open_driver
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner


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


def open_runner(
    neo4j: Neo4jSettings | None = None,
    settings: GraphmemSettings | None = None,
    start_local: bool = True,
) -> QueryRunner:
    """A :class:`QueryRunner` that owns its driver, from settings (read from the environment
    when not given).

    Raises:
        LauncherError, ServiceUnavailableError, AuthenticationError.
    """
    neo4j = neo4j or Neo4jSettings()
    settings = settings or GraphmemSettings()
    uri = resolve_uri(neo4j, settings, start_local=start_local)
    driver = open_driver(uri, neo4j.username, neo4j.password.get_secret_value())
    return QueryRunner(driver, CypherRegistry.load(), database=neo4j.database, owns_driver=True)
