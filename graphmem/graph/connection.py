"""Driver construction from explicit parameters (settings are turned into these at the edge)."""

from __future__ import annotations

import neo4j

from graphmem.errors import translate_neo4j_error


def open_driver(uri: str, username: str, password: str, verify: bool = True) -> neo4j.Driver:
    """Open a ``neo4j.Driver`` for ``uri`` (``bolt://``, ``neo4j://`` routing, ``+s`` variants).

    Raises:
        ServiceUnavailableError, AuthenticationError: when ``verify`` and the server cannot be
            reached or refuses the credentials (the message names ``username``, ``uri`` and
            ``NEO4J_USERNAME`` / ``NEO4J_PASSWORD``).
    """
    driver = neo4j.GraphDatabase.driver(
        uri, auth=(username, password), notifications_min_severity="OFF"
    )
    if verify:
        try:
            driver.verify_connectivity()
        except Exception as exc:  # driver errors only; translated below
            driver.close()
            raise translate_neo4j_error(exc, username=username, uri=uri) from exc
    return driver


def open_runner(uri: str, username: str, password: str, database: str = "neo4j"):
    """A :class:`~graphmem.graph.runner.QueryRunner` on the shipped Cypher registry that owns a
    new driver for ``uri``.

    Raises:
        ServiceUnavailableError, AuthenticationError.
    """
    from graphmem.graph.registry import CypherRegistry
    from graphmem.graph.runner import QueryRunner

    driver = open_driver(uri, username, password)
    return QueryRunner(driver, CypherRegistry.load(), database=database, owns_driver=True)
