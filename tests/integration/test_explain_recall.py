"""EXPLAIN every read query of cypher/ (all memories, the benchmark's and core's namespace-scoped
reads) against the real migrated schema and fail on a full label scan or an all-nodes scan where
an index should serve. Parameters are dummies chosen by name (a 384-dim vector for `embedding`,
a namespace string, ints for k/limit...); a query with an unknown parameter name fails the test
so the table below grows with the queries."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem.graph.registry import CypherRegistry
from graphmem.graph.runner import QueryRunner

TEST_CYPHER = Path(__file__).parent / "cypher"
SEED_TENANTS = 20

_VEC = (np.ones(384, dtype=np.float32) / np.sqrt(384)).tolist()

#: Dummy value per parameter name.
PARAMS: dict[str, Any] = {
    "namespace": "explain-test",
    "embedding": _VEC,
    "embeddings": [_VEC, _VEC],
    "k": 10, "oversample": 100, "hops": 2, "per_cue": 5, "per_theme": 5, "t": 2, "top": 5, "b": 3,
    "lambda": 1.0, "threshold": 0.5,
    "ids": ["a", "b"], "content_ids": ["a"], "cue_ids": ["a"], "event_ids": ["a"],
    "task_ids": ["a"], "theme_ids": ["a"], "topic_ids": ["a"], "texts": ["dog", "paris"],
    "pairs": [{"cue_id": "a", "tag_text": "b"}],
    "start": datetime(2023, 1, 1, tzinfo=UTC), "end": datetime(2023, 12, 31, tzinfo=UTC),
    "only_current": True, "query": "hiking trip", "source_id": "D1:3", "conversation": "conv-26",
    "topic_id": "a", "insight_id": "a", "query_id": "a", "seconds": 1,
    "dimension": 384, "after": "", "batch": 100,
    "before": 10, "conversation_id": "conv-26", "limit": 10, "skip": 0,
    "dense_k": 100, "lexical_k": 100, "df_cap": 1000, "exact_limit": 2000,
    "lucene_query": "+ns_token:nsabc +lexical_terms:(hiking trip)", "ns_token": "nsabc",
    "terms": ["hiking", "trip"], "known_terms": ["trip"], "known_speakers": ["Ann"], "stats": None,
    "rows": [{"id": "a", "session": "s1", "seq": 3, "index": 0, "topic_id": "t", "embedding": _VEC}],
    "events": [{"id": "a", "topic_id": "t", "sort_key": "2023-01-01|000000001|a"}],
    "priors": [{"event_id": "a", "topic_id": "t", "valid_from": datetime(2023, 1, 1, tzinfo=UTC)}],
    "per_event": 3, "guard": False, "cached": True, "dense_ids": ["a"], "dense_sims": [0.5],
    "lexical_cached": True, "lexical_ids": ["a"], "since": None, "until": None,
    "labels": ["Event"],
    "lock_id": "a",
    "cue_texts": ["hiking", "trip"], "skip_cues": ["a"], "skip_tags": ["b"], "source_ids": ["D1:3"],
    "tags_per_cue": 5, "contents_per_tag": 5, "max_cue_contents": 50,
    "first": 10, "last": 12, "first_session": "session_1", "last_session": "session_1",
    "relation": "TEMPORAL_NEXT", "history": True, "per_state": 10, "per_topic": 20,
    "message_ids": ["D1:3"], "speaker": "Ann", "as_of": 1_700_000_000_000_000,
    "cutoff": 1_700_000_000_000_000, "keep_last": 100, "page": 100, "id": "a",
    "archived_token": "nsabcarchived", "include_archived": False,
}

#: Database-wide admin reads, not recall paths.
ADMIN = {"core/list_constraints", "core/list_migrations", "core/list_vector_indexes", "core/ping",
         "evaluation/await_baseline_index", "evaluation/count_all_baseline_nodes",
         "core/list_search_indexes", "core/await_indexes", "doctor/list_namespaces",
         "core/list_namespaces"}

#: (query, operator) pairs where a label scan is the right plan, with the reason.
ALLOWED_SCANS: dict[tuple[str, str], str] = {
    ("evaluation/count_baseline_nodes", "NodeByLabelScan"):
        "the eval/bench vector baseline (langchain-neo4j Neo4jVector) lives only during one run; "
        "its label holds that run's raw turns and is counted once at cleanup",
}

FULL_SCANS = ("AllNodesScan", "NodeByLabelScan")


def _operators(plan: Any) -> list[tuple[str, str]]:
    """(operator type without the ``@neo4j`` suffix, details) of a plan tree, depth first."""
    op = plan["operatorType"].split("@")[0]
    details = str(plan.get("args", plan.get("arguments", {})).get("Details", ""))
    out = [(op, details)]
    for child in plan.get("children", []):
        out += _operators(child)
    return out


@pytest.fixture
def planned_statistics(runner: QueryRunner) -> Iterator[None]:
    """Plans depend on statistics: on an empty database a label scan is the cheapest plan, so
    seed every label with nodes spread over several tenants (as a shared server has), resample
    the index statistics and drop cached plans; remove the seed afterwards."""
    seed = "explain-seed"
    test = QueryRunner(runner.driver, CypherRegistry.load(TEST_CYPHER), database=runner.database)
    # a plan made while an index is still POPULATING (another test, or a migration, created it
    # moments ago) cannot use it: wait until every index is ONLINE before and after seeding
    runner.read("core/await_indexes", timeout_seconds=300)
    test.write("seed_plan_statistics", namespace=seed, per_label=2000, tenants=SEED_TENANTS)
    runner.read("core/await_indexes", timeout_seconds=300)
    test.write("refresh_plan_statistics")
    test.write("clear_query_caches")
    yield
    for i in range(SEED_TENANTS):
        runner.write("core/delete_namespace", namespace=f"{seed}-{i}")
    test.write("clear_query_caches")


def test_every_read_query_is_served_by_indexes(runner, planned_statistics) -> None:
    registry = CypherRegistry.load()
    reads = [n for n in registry.names() if registry.get(n).mode == "read" and n not in ADMIN]
    assert len(reads) >= 40  # all four memories are covered
    unknown = {n: sorted(registry.get(n).params - PARAMS.keys()) for n in reads
               if registry.get(n).params - PARAMS.keys()}
    assert unknown == {}, f"add dummy values for these parameters: {unknown}"
    offenders: dict[str, list[str]] = {}
    seeks: dict[str, int] = {}
    plans: dict[str, list[str]] = {}
    with runner.driver.session(database=runner.database) as session:
        for name in reads:
            query = registry.get(name)
            params = {p: PARAMS[p] for p in query.params}
            summary = session.run("EXPLAIN " + query.text, params).consume()
            ops = _operators(summary.plan)
            # the plan and the planner's notifications (an unfulfilled index hint shows here)
            plans[name] = [f"{op} {details}".strip() for op, details in ops] + [
                f"notification {g.gql_status}: {g.status_description}"
                for g in summary.gql_status_objects if g.is_notification]
            seeks[name] = sum(op.startswith(("NodeIndexSeek", "NodeUniqueIndexSeek", "ProcedureCall"))
                              or "IndexSeek" in op for op, _ in ops)
            bad = [f"{op} {details}" for op, details in ops
                   if op in FULL_SCANS and (name, op) not in ALLOWED_SCANS]
            if bad:
                offenders[name] = bad
    assert offenders == {}, f"full scans where an index should serve: {offenders}"
    # every namespace-scoped recall starts from an index (namespace/id index seek or the vector
    # index procedure), never from a scan
    allowed = {name for name, _ in ALLOWED_SCANS}
    assert all(v > 0 for n, v in seeks.items() if n not in allowed), {
        n: plans[n] for n, v in seeks.items() if v == 0 and n not in allowed}
