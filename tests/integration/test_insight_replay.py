"""Replay on real labelled data (FEVER claims, ScienceWorld gold trajectories), end to end.
Outcomes are the datasets' recorded labels/scores, not an agent's."""

from __future__ import annotations

from graphmem.insight import InsightMemory, OperationSet, load_tasks, replay, replay_sweep


def test_fever_replay_end_to_end(runner, embedder, namespace, sample_data) -> None:
    mem = InsightMemory(runner, embedder, namespace)
    report = replay(mem, "fever", 30, k=3, query_k=5, lam=1.0, data_root=sample_data)
    tasks = load_tasks("fever", 30, sample_data)
    assert report.tasks == 30 and report.controller == "heuristic"
    assert report.resolved == sum(t.status == "resolved" for t in tasks)
    assert report.failed == 30 - report.resolved
    assert "not produced by an agent" in report.note
    g = report.graph
    assert g["queries"] == 30
    assert g["decisions"].get("ADD", 0) == report.added > 0
    assert g["decisions"].get("ADD", 0) + g["decisions"].get("NO_ADD", 0) == 30
    assert report.kept + report.archived + report.revised == report.retrieved
    assert g["active_insights"] + g["archived_insights"] == report.added
    assert g["archived_insights"] == report.archived and report.revised == 0
    assert 0.0 <= report.same_kind_share <= 1.0
    assert sum(k.retrieved for k in report.by_kind.values()) == report.retrieved
    assert sum(k.tasks for k in report.by_kind.values()) == 30
    assert report.by_kind["NOT ENOUGH INFO"].same_kind == 0  # failed tasks never enter Ω+


def test_scienceworld_replay(runner, embedder, namespace, sample_data) -> None:
    mem = InsightMemory(runner, embedder, namespace)
    report = replay(mem, "scienceworld", 6, data_root=sample_data)
    assert report.tasks == 6 and report.added >= 1
    assert set(report.by_kind) == {t.kind for t in load_tasks("scienceworld", 6, sample_data)}


def test_sweep_uses_fresh_namespaces_and_cleans_up(runner, embedder, sample_data) -> None:
    from graphmem.facade import GraphMemory

    reports = replay_sweep(GraphMemory(runner, embedder), "fever", 10, lambdas=(0.0, 2.0),
                           operation_sets=(OperationSet.ADD_KEEP, OperationSet.ALL),
                           data_root=sample_data)
    assert [(r.operation_set, r.lam) for r in reports] == [
        ("add_keep", 0.0), ("add_keep", 2.0), ("all", 0.0), ("all", 2.0)]
    assert all(r.archived == 0 for r in reports[:2])
    for r in reports:
        assert runner.read("core/count_namespace_nodes", namespace=r.namespace) == []
