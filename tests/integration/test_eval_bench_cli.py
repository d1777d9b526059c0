"""``graphmem eval --quick`` and ``graphmem bench --quick`` end to end against the real Neo4j:
the report files exist, hold real values, and the run leaves nothing behind (namespaces, the
baseline's label and index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a minute or more: pytest -m "not slow" leaves it out


def _cli(args: list[str], neo4j_server: dict, timeout: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "NEO4J_URI": neo4j_server["uri"], "NEO4J_USERNAME": neo4j_server["username"],
           "NEO4J_PASSWORD": neo4j_server["password"], "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-m", "graphmem.cli.main", *args], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def _left_behind(runner, prefix: str, namespaces: list[str]) -> tuple[int, list[str]]:
    """Nodes left in the run's namespaces (the memories' labels and the vector baseline's) and
    the baseline's shared indexes (dropped once no run's baseline node is left)."""
    nodes = sum(int(r["nodes"]) for ns in namespaces
                for r in runner.read("core/count_namespace_nodes", namespace=ns))
    nodes += runner.read("evaluation/count_baseline_nodes", namespace=f"{prefix}-baseline")[0]["nodes"]
    indexes = [r["name"] for r in runner.read("core/list_vector_indexes")
               if r["name"].startswith("graphmem_baseline")]
    return nodes, indexes


def test_eval_quick_writes_report(tmp_path: Path, neo4j_server: dict, runner, sample_data: Path) -> None:
    # no --data and GRAPHMEM_DATA unset (conftest): the quick run reads the bundled samples
    out = tmp_path / "eval"
    args = ["eval", "--quick", "--out", str(out), "--seed", "7"]
    proc = _cli(args, neo4j_server, timeout=420)  # generous: CI machines are shared
    assert "LoCoMo recall@10 overall" in proc.stdout
    report = json.loads((out / "report.json").read_text())
    md = (out / "report.md").read_text()
    for png in ("locomo_recall_overall.png", "locomo_recall10_by_category.png"):
        assert (out / png).stat().st_size > 5_000 and png in md
    assert not (out / "memconflict_probes.png").exists()
    cfg = report["config"]
    assert cfg["parameters"]["seed"] == 7 and cfg["parameters"]["quick"] is True
    assert len(cfg["data"]["locomo"]["sha256"]) == 64 and cfg["versions"]["langchain-neo4j"]
    assert cfg["data"]["locomo"]["path"] == str(sample_data / "locomo" / "locomo-dev.json")
    assert cfg["data"]["fever"]["path"] == str(sample_data / "fever" / "paper_dev.jsonl")
    assert cfg["data"]["memconflict"] is None
    loc = report["locomo"]
    assert loc["conversations"] == ["conv-30"] and loc["questions"] == 12
    assert set(loc["recall"]) == {"state", "associative", "combined", "cosine", "bm25"}
    for method, per_cat in loc["recall"].items():
        assert per_cat["overall"]["questions"] == 12
        r5, r10, r20 = (per_cat["overall"][f"recall@{k}"] for k in (5, 10, 20))
        assert 0.0 <= r5 <= r10 <= r20 <= 1.0, method
    # real retrieval: every method finds a good share of the evidence in 60 turns
    assert all(v["overall"]["recall@20"] >= 0.3 for v in loc["recall"].values())
    # MemConflict is never bundled (no license): the quick run says so instead of failing
    skipped = "skipped: MemConflict is not bundled (no license); pass --data DIR with memconflict/"
    assert report["memconflict"] == {"skipped": skipped, "probes": {}}
    assert "MemConflict is not bundled (no license)" in md and skipped in " ".join(proc.stdout.split())
    ex = report["experience"]
    assert ex["dev_tasks"] >= 20 and ex["same_type"]["hit@5"] >= 0.8
    assert ex["fgw"]["median_ms"] > 0
    assert report["insight"]["runs"][0]["tasks"] == 12
    run_id = cfg["parameters"]["run_id"]
    assert _left_behind(runner, f"eval-{run_id}", [f"eval-{run_id}-state-conv-30", f"eval-{run_id}-assoc-conv-30",
                                         f"eval-{run_id}-experience"]) == (0, [])


def test_bench_quick_writes_report(tmp_path: Path, neo4j_server: dict, runner, sample_data: Path) -> None:
    out = tmp_path / "bench"
    proc = _cli(["bench", "--quick", "--out", str(out)], neo4j_server, timeout=360)
    assert json.loads((out / "report.json").read_text())["config"]["data"]["locomo"]["path"] == str(
        sample_data / "locomo" / "locomo-dev.json")
    assert "growth p50" in proc.stdout
    report = json.loads((out / "report.json").read_text())
    assert set(report["recall"]) == {"300", "900"}
    for size, row in report["recall"].items():
        assert row["units"]["state"] >= int(size) and row["units"]["vector_rag"] == int(size)
        for method in ("state", "associative", "vector_rag"):
            assert 0 < row["ms"][method]["p50"] <= row["ms"][method]["p95"]
        assert row["ms"]["state"]["p50_ratio"] > 0
    ing = report["ingest"]
    assert ing["turns"] == 24 and ing["raw_encode"]["turns_per_s"] > 0
    for m in ("state", "associative"):
        assert ing[m]["nodes_created"] > 24 and ing[m]["write_seconds"] > 0
        rounds = ing[m]["throughput_rounds"]
        assert len(rounds["seconds"]) == len(rounds["ratios"]) == len(ing["raw_encode"]["rounds"]) == 3
        assert ing[m]["ingest_vs_encode"] == sorted(rounds["ratios"])[1] > 0
        assert ing[m]["seconds"] in rounds["seconds"]  # the median round
        assert set(report["targets_check"][m]) >= {"ingest_vs_encode", "writes_vs_unwind", "growth_p50"}
        writes = ing[m]["write_rounds"]
        assert all(s > 0 for s in writes["statement_seconds"].values())
        assert writes["outside_statement_seconds"] >= 0
    assert {"state/merge_events", "state/write_states"} <= set(ing["state"]["write_rounds"]["statement_seconds"])
    assert "associative/lock_timeline" in ing["associative"]["write_rounds"]["statement_seconds"]
    # the warm-process section: the same recalls in this process and through a graphmem shell
    warm = report["warm"]
    assert warm["questions"] >= 1 and warm["k"] == 10 and warm["shell_exit"] == 0
    assert warm["shell_start_s"] > 0
    for memory in ("state", "associative"):
        summary = warm[memory]
        assert summary["same_items"] == 1.0  # both paths ran the same recall
        assert 0 < summary["in_process_ms"]["p50"] <= summary["in_process_ms"]["p95"]
        assert 0 < summary["warm_ms"]["p50"] <= summary["warm_ms"]["p95"]
        assert summary["ratio_p50"] == round(summary["warm_ms"]["p50"]
                                             / summary["in_process_ms"]["p50"], 3)
        assert warm["targets"][f"{memory} warm/in-process p50"] == summary["target"]
    cold = warm["cold_cli_s"]
    assert set(cold) == {"graphmem --help", "graphmem neo4j status", "graphmem state recall (cold)"}
    assert cold["graphmem --help"]["exit_codes"] == [0]
    assert cold["graphmem state recall (cold)"]["exit_codes"] == [0]
    assert all(len(v["seconds"]) == 1 and v["seconds"][0] > 0 for v in cold.values())
    markdown = (out / "report.md").read_text()
    assert "- state write seconds by statement: `state/" in markdown
    assert "- associative write seconds by statement: `associative/" in markdown
    for png in ("recall_latency_p50.png", "recall_latency_p95.png", "ingest_throughput.png"):
        assert (out / png).is_file()
    run_id = report["config"]["parameters"]["run_id"]
    fill = [f"bench-{run_id}-fill-{j}" for j in range(report["filler"]["namespaces"])]
    assert _left_behind(runner, f"bench-{run_id}", [f"bench-{run_id}-state", f"bench-{run_id}-assoc", *fill]) == (0, [])
