"""Every shipped query's plan on the real Neo4j: a node looked up by its id is found by the unique
``id`` index, never by reading its namespace's nodes and filtering them by id. The planner picks
the namespace index for ``MATCH (t:Tag {id: $id}) WHERE t.namespace = $namespace`` when its
statistics say the label is small (a fresh database, a plan cached then), and that plan then
costs a read of every node of the namespace per row: a batch of 2,786 cue-tag-episode links took
4 s instead of 0.3 s. ``USING INDEX x:Label(id)`` keeps the plan whatever the statistics."""

from __future__ import annotations

import re
from typing import Any

from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner

#: A filter on a node's id, directly above a read of many nodes.
ID_FILTER = re.compile(r"\b(\w+)\.id (=|IN) ")
WIDE_READS = ("NodeIndexSeek", "NodeIndexScan", "NodeByLabelScan", "AllNodesScan")


def _id_filters_over_wide_reads(plan: dict[str, Any], parent: dict[str, Any] | None = None) -> list[str]:
    found = []
    details = plan.get("args", {}).get("Details") or ""
    if parent is not None and plan["operatorType"].split("@")[0] in WIDE_READS \
            and parent["operatorType"].startswith("Filter"):
        parent_details = parent.get("args", {}).get("Details") or ""
        if ID_FILTER.search(parent_details) and "UNIQUE" not in details:
            found.append(f"{details[:80]} filtered by {parent_details[:80]}")
    for child in plan.get("children", []):
        found += _id_filters_over_wide_reads(child, plan)
    return found


def _explain(runner: QueryRunner, text: str, params: frozenset[str]) -> dict[str, Any]:
    with runner.driver.session(database=runner.database) as session:
        for value in (None, []):  # a list parameter that is UNWOUND must be a list
            try:
                return session.run("EXPLAIN " + text, {p: value for p in params}).consume().plan
            except Exception:  # noqa: BLE001 - the other placeholder value is tried
                continue
    raise AssertionError(f"EXPLAIN failed with null and list parameters: {text[:80]}")


def test_no_query_reads_a_namespace_to_find_a_node_by_id(runner: QueryRunner) -> None:
    registry = CypherRegistry.load()
    offenders = {}
    for name in registry.names():
        query = registry.get(name)
        found = _id_filters_over_wide_reads(_explain(runner, query.text, query.params))
        if found:
            offenders[name] = found
    assert len(registry.names()) > 100
    assert offenders == {}, f"id lookups planned as namespace reads: {offenders}"
