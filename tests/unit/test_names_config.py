"""Namespaces, deterministic ids, settings."""

from __future__ import annotations

import pytest

from graphmem.config import GraphmemSettings, Neo4jSettings
from graphmem.errors import InvalidInputError
from graphmem.names import node_id, validate_namespace


@pytest.mark.parametrize("bad", ["", " ", "a b", "-x", "x" * 129, "a`b", "ns})"])
def test_bad_namespace_is_named(bad: str) -> None:
    with pytest.raises(InvalidInputError, match="invalid namespace"):
        validate_namespace(bad)


def test_node_id_is_deterministic_and_scoped() -> None:
    assert node_id("a", "event", "D1:1") == node_id("a", "event", "D1:1")
    assert node_id("a", "event", "D1:1") != node_id("b", "event", "D1:1")
    assert node_id("a", "event", "D1:1") != node_id("a", "state", "D1:1")
    assert len(node_id("a", "k")) == 36


def test_settings_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j://db.example:7687")
    monkeypatch.setenv("NEO4J_DATABASE", "mem")
    monkeypatch.setenv("GRAPHMEM_NAMESPACE", "team-a")
    monkeypatch.setenv("GRAPHMEM_VECTOR_DIMENSION", "768")
    neo4j, settings = Neo4jSettings(), GraphmemSettings()
    assert (neo4j.uri, neo4j.database) == ("neo4j://db.example:7687", "mem")
    assert (settings.namespace, settings.vector_dimension) == ("team-a", 768)
    monkeypatch.setenv("GRAPHMEM_VECTOR_DIMENSION", "0")
    with pytest.raises(ValueError, match="vector_dimension"):
        GraphmemSettings()
