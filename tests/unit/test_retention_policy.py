"""Retention without a database (graphmem.agent.retention): the policy's rules are checked with
typed errors naming the bad value; the age rule's cutoff; what a selection archives and keeps;
and a run against scripted answers: write batches of at most batch_size units, per-rule counts
from what the database archived, one audit record, nothing written by a dry run."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from fake_runner import FakeRunner

from graphmem.agent.retention import (Retention, age_cutoff, check_batch_size, check_policy,
                                      plan_archive, retain)
from graphmem.embeddings import HashingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.facade import GraphMemory
from graphmem.retrieval.text import archived_token


@pytest.mark.parametrize("rules, named", [
    ({"max_age_days": 0}, "max_age_days must be an integer in 1..100000, got 0"),
    ({"max_age_days": -3}, "got -3"),
    ({"max_age_days": 1.5}, "got 1.5"),
    ({"max_age_days": "30"}, "got '30'"),
    ({"max_age_days": True}, "got True"),
    ({"max_age_days": 100_001}, "got 100001"),
    ({"keep_last": 0}, "keep_last must be an integer in 1..10000000, got 0"),
    ({"keep_last": None, "max_age_days": [30]}, "got [30]"),
    ({"keep_last": False}, "keep_last must be an integer"),
])
def test_a_bad_rule_is_refused_naming_it_and_its_value(rules, named) -> None:
    with pytest.raises(InvalidInputError) as caught:
        check_policy(**rules)
    assert named in str(caught.value)


def test_good_rules_and_batch_sizes_pass() -> None:
    assert check_policy(30, 100) == Retention(max_age_days=30, keep_last=100)
    assert check_policy() == Retention()
    assert check_policy(keep_last=1).max_age_days is None
    assert check_batch_size(1) == 1 and check_batch_size(100_000) == 100_000
    for bad in (0, 100_001, 2.0, None, True):
        with pytest.raises(InvalidInputError, match=f"batch_size .*got {bad!r}"):
            check_batch_size(bad)


def test_the_age_cutoff_is_now_minus_the_days_in_utc() -> None:
    now = datetime(2024, 3, 10, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert age_cutoff(Retention(max_age_days=10), now) == datetime(2024, 2, 29, 10, 0, tzinfo=UTC)
    assert age_cutoff(Retention(keep_last=5), now) is None
    with pytest.raises(InvalidInputError, match="time-zone-aware"):
        age_cutoff(Retention(max_age_days=1), datetime(2024, 3, 10))


def test_pinned_candidates_are_kept_and_the_rest_archived_with_their_rules() -> None:
    candidates = [["e3", True, False], ["e1", True, True], ["e2", False, True], ["e9", True, True]]
    ids, flags, kept = plan_archive(candidates, ["e9", "e5"])
    assert ids == ["e1", "e2", "e3"] and kept == 1
    assert flags == {"e1": (True, True), "e2": (False, True), "e3": (True, False)}
    assert plan_archive([], ["e1"]) == ([], {}, 0)


def _runner(policy: dict | None) -> FakeRunner:
    def archive(params):  # the database archives every id it is given but "x-pinned-now"
        return [{"archived": [i for i in params["ids"] if i != "x-pinned-now"]}]

    return FakeRunner({
        "core/get_retention_policy": [] if policy is None else [dict(policy, updated_at=None)],
        "state/find_archivable_units": [{
            "label": "Event", "pinned": ["e-pinned", "e-elsewhere"],
            "candidates": [[f"e{i:02d}", i < 3, i >= 1] for i in range(5)]
            + [["e-pinned", True, False], ["x-pinned-now", True, True]]}],
        "associative/find_archivable_units": [{"label": "Episode", "pinned": [],
                                               "candidates": [["p1", False, True]]}],
        "state/archive_units": archive, "associative/archive_units": archive,
        "core/record_audit": lambda params: [{"id": params["id"]}],
    })


def test_a_run_archives_in_batches_counts_per_rule_and_records_one_audit() -> None:
    runner = _runner({"max_age_days": 30, "keep_last": 2})
    mem = GraphMemory(runner, HashingEmbedder(384), namespace="ns")
    now = datetime(2024, 5, 1, tzinfo=UTC)
    seen: list[int] = []
    report = retain(mem, batch_size=2, progress=seen.append, now=now)
    writes = [params for name, params in runner.calls if name.endswith("/archive_units")]
    assert [len(p["ids"]) for p in writes] == [2, 2, 2, 1]         # 6 events, then 1 episode
    assert all(p["archived_token"] == archived_token("ns") and p["namespace"] == "ns"
               for p in writes)
    assert report.batches == 4 and seen == [2, 2, 1, 1]
    assert report.archived == {"Event": 5, "Episode": 1}            # not the one pinned meanwhile
    assert report.by_rule == {"max_age_days": {"Event": 3, "Episode": 0},
                              "keep_last": {"Event": 4, "Episode": 1}}
    assert report.kept == {"Event": 1, "Episode": 0}
    assert report.cutoff == now - timedelta(days=30) and not report.dry_run
    selected = [p for name, p in runner.calls if name.endswith("/find_archivable_units")]
    assert {p["cutoff"] for p in selected} == {"2024-04-01T00:00:00+00:00"}
    assert {p["keep_last"] for p in selected} == {2}
    [audit] = [p for name, p in runner.calls if name == "core/record_audit"]
    assert audit["action"] == "retain" and report.audit_id == audit["id"]
    assert json.loads(audit["counts"])["archived"] == {"Event": 5, "Episode": 1}
    assert json.loads(audit["selectors"]) == {"cutoff": "2024-04-01T00:00:00+00:00",
                                              "keep_last": 2, "max_age_days": 30}


def test_a_dry_run_writes_nothing_and_no_policy_archives_nothing() -> None:
    runner = _runner({"max_age_days": None, "keep_last": 2})
    mem = GraphMemory(runner, HashingEmbedder(384), namespace="ns")
    report = retain(mem, dry_run=True)
    assert report.dry_run and report.batches == 0 and report.cutoff is None
    assert report.archived == {"Event": 6, "Episode": 1} and report.audit_id == ""
    assert not [name for name, _ in runner.calls if runner.registry.get(name).mode == "write"]
    empty = retain(GraphMemory(_runner(None), HashingEmbedder(384), namespace="ns"))
    assert empty.policy is None and empty.archived == {} and empty.batches == 0
    # rules given for one run are checked and applied instead of the stored policy
    other = retain(mem, dry_run=True, policy=Retention(max_age_days=7))
    assert other.policy == Retention(max_age_days=7) and other.cutoff is not None
    with pytest.raises(InvalidInputError, match="keep_last"):
        retain(mem, dry_run=True, policy=Retention(keep_last=0))
    with pytest.raises(InvalidInputError, match="batch_size"):
        retain(mem, batch_size=0)
    with pytest.raises(InvalidInputError, match="time-zone-aware"):      # even without an age rule
        retain(mem, now=datetime(2024, 5, 1))
