"""Cypher registry: header parsing, param checks, and the shipped queries all load."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.errors import QueryRegistryError, UnknownQueryError
from graphmem.graph.registry import CypherRegistry, parse_query, used_params

HEADER = "// description: d\n// params: {params}\n// returns: x\n// mode: {mode}\n"


def make(body: str, params: str = "namespace", mode: str = "read") -> str:
    return HEADER.format(params=params, mode=mode) + body


def test_parse_query_reads_header_and_body() -> None:
    q = parse_query("m/q", make("MATCH (n {namespace: $namespace}) RETURN n.x AS x"), Path("q"))
    assert q.params == frozenset({"namespace"})
    assert q.mode == "read"
    assert q.returns == ("x",)
    assert q.text == "MATCH (n {namespace: $namespace}) RETURN n.x AS x"


def test_undeclared_param_names_the_file() -> None:
    with pytest.raises(QueryRegistryError, match=r"bad\.cypher.*undeclared: \['limit'\]"):
        parse_query("m/bad", make("MATCH (n) RETURN n LIMIT $limit", params="none"),
                    Path("cypher/m/bad.cypher"))


def test_unused_declared_param_is_refused() -> None:
    with pytest.raises(QueryRegistryError, match=r"unused: \['k'\]"):
        parse_query("m/q", make("MATCH (n {namespace: $namespace}) RETURN n", "namespace, k"),
                    Path("q.cypher"))


def test_bad_mode_and_missing_header_are_refused() -> None:
    with pytest.raises(QueryRegistryError, match="mode must be read or write"):
        parse_query("m/q", make("RETURN 1", params="none", mode="delete"), Path("q.cypher"))
    with pytest.raises(QueryRegistryError, match="header lacks"):
        parse_query("m/q", "// description: d\nRETURN 1", Path("q.cypher"))


def test_params_inside_strings_and_comments_do_not_count() -> None:
    body = "MATCH (n) WHERE n.t = '$notaparam' // $comment\nRETURN n, \"$x\" AS s, $real AS r"
    assert used_params(body) == {"real"}


def test_shipped_queries_load_and_unknown_name_is_typed() -> None:
    registry = CypherRegistry.load()
    assert "core/list_migrations" in registry
    assert registry.get("core/record_migration").mode == "write"
    with pytest.raises(UnknownQueryError, match="no Cypher query named 'core/nope'"):
        registry.get("core/nope")


@given(st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True), min_size=1, max_size=6,
                unique=True))
def test_declared_equals_used_for_any_param_set(names: list[str]) -> None:
    body = "RETURN " + ", ".join(f"${n} AS c{i}" for i, n in enumerate(names))
    q = parse_query("m/q", make(body, params=", ".join(reversed(names))), Path("q"))
    assert q.params == frozenset(names)


def test_memory_label_placeholder_is_substituted_from_the_registry(tmp_path: Path) -> None:
    from graphmem.memory import all_labels

    registry = CypherRegistry.load()
    for name in ("core/delete_namespace", "core/delete_namespace_batch",
                 "core/count_namespace_nodes"):
        text = registry.get(name).text
        assert "{{MEMORY_LABELS}}" not in text
        assert f"(n:{'|'.join(all_labels())}" in text
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "q.cypher").write_text(make("MATCH (n:{{MEMORY_LABELS}} {namespace: $namespace}) RETURN n.x AS x"))
    extended = CypherRegistry.load(extra=[tmp_path])
    assert "x/q" in extended and "core/ping" in extended
    assert "{{MEMORY_LABELS}}" not in extended.get("x/q").text


def test_a_bad_label_or_a_duplicate_name_is_refused(tmp_path: Path) -> None:
    from graphmem.memory import MEMORY_REGISTRY, MemorySpec

    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "ping.cypher").write_text(make("RETURN 1 AS x", params="none"))
    with pytest.raises(QueryRegistryError, match="already defined"):
        CypherRegistry.load(extra=[tmp_path])
    MEMORY_REGISTRY["bad"] = MemorySpec("bad", "x:Y", ("Bad`) DETACH DELETE (m",))
    try:
        with pytest.raises(QueryRegistryError, match="do not match"):
            CypherRegistry.load().get("core/delete_namespace")
    finally:
        MEMORY_REGISTRY.pop("bad")


def test_a_template_query_is_one_query_per_label(tmp_path: Path) -> None:
    folder = tmp_path / "retrieval"
    folder.mkdir()
    (folder / "count.cypher").write_text(
        make("MATCH (n:{{Unit}} {namespace: $namespace}) USING INDEX n:{{Unit}}(namespace) "
             "RETURN count(n) AS x, '{{unit}}_embedding' AS idx")
        .replace("// mode: read", "// mode: read\n// template: Unit = Event | Episode"))
    registry = CypherRegistry.load(tmp_path)
    assert registry.names() == ["retrieval/count@Episode", "retrieval/count@Event"]
    text = registry.get("retrieval/count@Episode").text
    assert "(n:Episode {namespace" in text and "'episode_embedding'" in text and "{{" not in text
    with pytest.raises(UnknownQueryError):
        registry.get("retrieval/count")
    (folder / "count.cypher").write_text(make("RETURN 1 AS x").replace(
        "// mode: read", "// mode: read\n// template: Unit = Event | lower"))
    with pytest.raises(QueryRegistryError, match="template"):
        CypherRegistry.load(tmp_path)


def test_a_template_with_two_names_zips_their_values(tmp_path: Path) -> None:
    folder = tmp_path / "retrieval"
    folder.mkdir()
    header = "// mode: read\n// template: Unit = Event | Episode; Lock = ConversationLock | Timeline"
    (folder / "version.cypher").write_text(
        make("MATCH (n:{{Unit}}), (c:{{Lock}}) RETURN count(n) AS x, '{{lock}}' AS idx", params="none")
        .replace("// mode: read", header))
    registry = CypherRegistry.load(tmp_path)
    assert registry.names() == ["retrieval/version@Episode", "retrieval/version@Event"]
    assert "(n:Event), (c:ConversationLock)" in registry.get("retrieval/version@Event").text
    episode = registry.get("retrieval/version@Episode").text
    assert "(n:Episode), (c:Timeline)" in episode and "'timeline' AS idx" in episode
    (folder / "version.cypher").write_text(make("RETURN 1 AS x", params="none").replace(
        "// mode: read", "// mode: read\n// template: Unit = Event | Episode; Lock = Timeline"))
    with pytest.raises(QueryRegistryError, match="as many values"):
        CypherRegistry.load(tmp_path)
