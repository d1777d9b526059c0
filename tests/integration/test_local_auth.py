"""The local launcher with authentication on, like a team's server: the foundation checks and a
state-memory flow with the right password, a typed error naming NEO4J_PASSWORD with a wrong one.

It is started on a default (unpinned) Bolt port that a socket of this test holds, so it also shows
the fallback to the next free port and that later commands find the port it chose."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from launcher_build import reuse_launcher_build

from graphmem import neo4j_local
from graphmem.config import GraphmemSettings, Neo4jSettings
from graphmem.connect import open_migrator, resolve_uri
from graphmem.errors import AuthenticationError, ConfigurationError
from graphmem.graph.connection import open_driver
from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner
from graphmem.local.ports import free_port
from smoke_subset import assert_smoke, run_smoke

PASSWORD = "graphmem-auth-test"


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory,
                neo4j_server: dict) -> Iterator[neo4j_local.LocalServer]:
    """A 5.26 launcher with auth on (own home under tmp, the session's launcher build), asked
    for a Bolt port that is taken (not pinned), stopped afterwards."""
    home = tmp_path_factory.mktemp("neo4j-auth-home")
    reuse_launcher_build(home)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = int(holder.getsockname()[1])
        server = neo4j_local.start(home, bolt_port=taken, browser_port=0, heap_mb=512,
                                   auth=True, password=PASSWORD)
    try:
        assert server.bolt_port != taken
        yield server
    finally:
        neo4j_local.stop(home)


def test_later_commands_find_the_chosen_port(auth_server) -> None:
    settings = GraphmemSettings(home=auth_server.home, local_auth=True)
    neo4j = Neo4jSettings(password=PASSWORD, uri=None)
    assert resolve_uri(neo4j, settings, start_local=False) == auth_server.bolt_uri
    with open_migrator(neo4j, settings) as migrator:  # reuses the running server, auth on
        assert migrator.runner.read("core/ping")[0]["version"] == "5.26.31"
    wrong = Neo4jSettings(password="wrong-password", uri=None)
    with pytest.raises(AuthenticationError, match="NEO4J_PASSWORD"):
        with open_migrator(wrong, settings):
            pass


def test_auth_server_records_auth_and_serves_graphmem(auth_server, embedder) -> None:
    assert auth_server.auth and auth_server.version == "5.26.31"
    assert neo4j_local.status(auth_server.home) == auth_server
    runner = QueryRunner(open_driver(auth_server.bolt_uri, "neo4j", PASSWORD),
                         CypherRegistry.load(), database="neo4j", owns_driver=True)
    with runner:
        (row,) = runner.read("core/ping")
        assert row["version"] == "5.26.31"
        assert_smoke(run_smoke(runner, embedder))


def test_wrong_password_is_a_typed_error_naming_the_variable(auth_server) -> None:
    with pytest.raises(AuthenticationError) as info:
        open_driver(auth_server.bolt_uri, "neo4j", "not-the-password")
    message = str(info.value)
    assert "NEO4J_PASSWORD" in message and "NEO4J_USERNAME" in message
    assert "user 'neo4j'" in message and auth_server.bolt_uri in message


def test_auth_needs_a_password_of_eight_characters(tmp_path) -> None:
    with pytest.raises(ConfigurationError, match="NEO4J_PASSWORD"):
        neo4j_local.start(tmp_path, bolt_port=free_port(), browser_port=0, auth=True,
                          password="short")


def test_a_routing_uri_is_routed_to_the_launchers_own_port(auth_server) -> None:
    # the launcher advertises the port it listens on: the routing table a neo4j:// client gets
    # names that port (not the default 7687, where another server may run)
    uri = f"neo4j://127.0.0.1:{auth_server.bolt_port}"
    assert auth_server.bolt_port != 7687
    runner = QueryRunner(open_driver(uri, "neo4j", PASSWORD), CypherRegistry.load(),
                         database="neo4j", owns_driver=True)
    with runner:
        assert runner.driver.get_server_info().address.port == auth_server.bolt_port
        (row,) = runner.read("core/ping")
        assert row["version"] == "5.26.31"
