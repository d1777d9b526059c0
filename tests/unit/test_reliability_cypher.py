"""Static tenancy checks over every shipped Cypher file (stronger than test_cypher_tenancy.py,
which checks that each non-admin query takes ``$namespace``):

- every node variable a query binds with a label (MATCH / MERGE / OPTIONAL MATCH / pattern
  comprehension) or YIELDs from an index is namespace-checked: ``{namespace: $namespace}`` in one
  of its patterns, ``var.namespace = $namespace`` (filter or ON CREATE SET), or it lies on a path
  ``p = (...)`` guarded by ``all(x IN nodes(p) WHERE x.namespace = $namespace)``;
- the admin delete/count queries name exactly the labels of ``graphmem.schema.MEMORY_LABELS``, so
  ``delete_namespace`` leaves no orphan of a memory's label.
"""

from __future__ import annotations

import re

from test_cypher_tenancy import ADMIN_QUERIES

from graphmem.graph.registry import CypherRegistry
from graphmem.schema import BOOKKEEPING_LABELS, MEMORY_LABELS, label_of

NODE = re.compile(r"\((\w+)\s*:\s*([A-Z]\w*(?:\s*\|\s*\w+)*)\s*(\{[^()]*\})?\s*\)")
YIELD = re.compile(r"YIELD\s+(\w+)")
ALIAS = re.compile(r"\b(\w+)\s+AS\s+(\w+)\b")
GUARDED_PATH = re.compile(
    r"(\w+)\s*=\s*(\(.*?)\s+WHERE\s+(?:[^|]*?\bAND\s+)?all\(\s*(\w+)\s+IN\s+nodes\(\1\)\s+"
    r"WHERE\s+\3\.namespace\s*=\s*\$namespace\)", re.DOTALL)

#: Node variables allowed to go unchecked, by query name, each with its reason (none today:
#: state/apply_state_evidence and state/link_event were fixed to check the nodes they reach over
#: chain pointers).
KNOWN_UNCHECKED: dict[str, set[str]] = {}

SUBQUERY = re.compile(r"(?:COUNT|EXISTS)\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
NODE_PATTERN = re.compile(r"\(([^()]*)\)")


def _checked(var: str, text: str) -> bool:
    names = {var} | {src for src, dst in ALIAS.findall(text) if dst == var} | \
        {dst for src, dst in ALIAS.findall(text) if src == var}
    for name in names:
        props = " ".join(m.group(3) or "" for m in NODE.finditer(text) if m.group(1) == name)
        if re.search(r"\bnamespace\s*:\s*\$namespace\b", props):
            return True
        if re.search(rf"\b{name}\.namespace\s*=\s*\$namespace\b", text):
            return True
    return False


def unchecked_variables(text: str) -> set[str]:
    """Node variables bound with a label or YIELDed by an index that no namespace check covers."""
    guarded = {m.group(1) for path in GUARDED_PATH.finditer(text)   # every node of a path
               for m in NODE.finditer(path.group(2))}               # under all(x IN nodes(p) ...)
    bound = {m.group(1) for m in NODE.finditer(text)} | set(YIELD.findall(text))
    return {v for v in bound - guarded if v != "score" and not _checked(v, text)}


def test_every_bound_node_is_namespace_checked() -> None:
    registry = CypherRegistry.load()
    offenders = {}
    for name in registry.names():
        if name in ADMIN_QUERIES or name.startswith("browser/"):
            continue
        missing = unchecked_variables(registry.get(name).text) - KNOWN_UNCHECKED.get(name, set())
        if missing:
            offenders[name] = sorted(missing)
    assert offenders == {}, f"node variables without a namespace check: {offenders}"


def test_known_unchecked_list_is_current() -> None:
    registry = CypherRegistry.load()
    for name, variables in KNOWN_UNCHECKED.items():
        if name in registry:
            assert variables <= unchecked_variables(registry.get(name).text), (
                f"{name} now checks {variables - unchecked_variables(registry.get(name).text)}: "
                "drop it from KNOWN_UNCHECKED")


def unchecked_subquery_nodes(text: str) -> list[str]:
    """Anonymous or newly labelled nodes inside COUNT { } / EXISTS { } patterns (degrees,
    chain tests) without a namespace: a foreign node reached there would change a score."""
    out = []
    for sub in SUBQUERY.finditer(text):
        body = sub.group(1)
        if "-[" not in body and "]-" not in body:
            continue
        for node in NODE_PATTERN.finditer(body):
            inner = node.group(1).strip()
            if not re.fullmatch(r"\w+", inner) and "namespace" not in inner:
                out.append(f"({inner}) in {{{body.strip()}}}")
    return out


def test_degree_and_existence_subqueries_check_the_namespace() -> None:
    registry = CypherRegistry.load()
    offenders = {n: unchecked_subquery_nodes(registry.get(n).text) for n in registry.names()
                 if n not in ADMIN_QUERIES and not n.startswith("browser/")}
    assert {n: v for n, v in offenders.items() if v} == {}
    assert unchecked_subquery_nodes("RETURN COUNT { (c)-[:HAS_TAG]->(:Tag)-[:LEADS_TO]->() } AS n")


def test_the_checker_catches_an_unchecked_hop() -> None:
    bad = "MATCH (a:Query {namespace: $namespace})-[:RELATED_QUERY]->(b:Query) RETURN b.id"
    good = bad.replace("RETURN", "WHERE b.namespace = $namespace RETURN")
    assert unchecked_variables(bad) == {"b"} and unchecked_variables(good) == set()
    yielded = "CALL db.index.vector.queryNodes('x', 5, $e) YIELD node, score WITH node AS n, score RETURN n"
    assert unchecked_variables(yielded) == {"node"}
    assert unchecked_variables(yielded.replace("RETURN n", "WHERE n.namespace = $namespace RETURN n")) == set()
    path = ("MATCH (e:Event {namespace: $namespace}) MATCH p = (e)-[:TEMPORAL_NEXT*1..3]-(n:Event) "
            "WHERE all(x IN nodes(p) WHERE x.namespace = $namespace) RETURN n")
    assert unchecked_variables(path) == set()
    assert unchecked_variables(path.replace("all(x IN nodes(p)", "any(x IN nodes(p)")) == {"n"}


def test_admin_queries_name_every_memory_label() -> None:
    registry = CypherRegistry.load()
    labels = {label_of(cls) for classes in MEMORY_LABELS.values() for cls in classes}
    bookkeeping = {label_of(cls) for cls in BOOKKEEPING_LABELS}
    for name, expected in (("core/delete_namespace", labels | bookkeeping),
                           ("core/delete_namespace_batch", labels | bookkeeping),
                           ("core/count_namespace_nodes", labels)):
        match = re.search(r"MATCH \(n:([\w|]+)\)", registry.get(name).text)
        assert match, name
        assert set(match.group(1).split("|")) == expected, name
