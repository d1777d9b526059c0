"""Every shipped query is scoped by namespace, except an explicit list of admin queries; no query
builds labels, relationship types or property keys from parameters."""

from __future__ import annotations

import re

from graphmem.graph.registry import CypherRegistry

#: Queries that are database-wide by design (schema bookkeeping and migrations).
ADMIN_QUERIES = {
    "core/acquire_lock",
    "core/release_lock",
    "core/create_lock_constraint",
    "core/create_migration_constraint",
    "core/list_constraints",
    "core/list_migrations",
    "core/list_vector_indexes",
    "core/record_migration",
    "core/ping",
    # the eval/bench vector baseline's shared indexes (fixed names; runs are scoped by namespace)
    "evaluation/create_baseline_id_index",
    "evaluation/drop_baseline_id_index",
    "evaluation/drop_baseline_vector_index",
    "evaluation/count_all_baseline_nodes",
    "evaluation/await_baseline_index",
    "core/list_search_indexes",
    "core/drop_index",
    "core/await_indexes",
    "doctor/list_namespaces",
    "core/list_namespaces",
}


def test_every_non_admin_query_filters_by_namespace() -> None:
    registry = CypherRegistry.load()
    unscoped = [
        name for name in registry.names()
        if name not in ADMIN_QUERIES and "namespace" not in registry.get(name).params
    ]
    assert unscoped == [], f"queries without a $namespace filter: {unscoped}"


def test_admin_list_names_only_existing_queries() -> None:
    registry = CypherRegistry.load()
    assert ADMIN_QUERIES <= set(registry.names())


def test_no_dynamic_labels_types_or_keys() -> None:
    registry = CypherRegistry.load()
    # Cypher 25 dynamic labels/types (:$(x), :$any(x)), dynamic property keys (n[$key] = ...)
    # and APOC's dynamic create/merge are all refused.
    dynamic = re.compile(r"(:\s*\$(\(|any\(|all\())|(\[\s*\$\w+\s*\]\s*=)|apoc\.(create|merge)\.")
    offenders = [n for n in registry.names() if dynamic.search(registry.get(n).text)]
    assert offenders == []
