"""LLM accounting on real Neo4j with scripted chat models: every controller/renderer call is
counted per operation on the result that made it, the memory keeps a running total, heuristic
paths count zero, and the CLI prints the summary line."""

from __future__ import annotations

import json

from fakes import ScriptedChatModel, tool_reply
from typer.testing import CliRunner

from graphmem.experience import ExperienceMemory, read_trajectories
from graphmem.insight import InsightMemory
from graphmem.llm import describe_usage


def test_insight_feedback_usage_adds_up(runner, embedder, namespace) -> None:
    ok = tool_reply("ControllerOutput", {"edits": [], "add": True,
                                         "new_insight": "Cover the pot to boil water faster.",
                                         "add_reason": "new"}, 30, 10)
    bad = tool_reply("ControllerOutput", {"edits": [], "add": True}, 25, 4)  # no new_insight
    ok2 = tool_reply("ControllerOutput", {"edits": [], "add": False, "add_reason": "covered"}, 28, 6)
    mem = InsightMemory(runner, embedder, namespace,
                        llm=ScriptedChatModel(responses=[ok, bad, ok2]))
    first = mem.feedback("Boil water for tea", "resolved", ["fill kettle", "switch on"], [])
    second = mem.feedback("Boil water for pasta", "resolved", ["fill pot", "cover"], [])
    op1 = first.llm_usage.operations["insight.controller"]
    op2 = second.llm_usage.operations["insight.controller"]
    assert (op1.calls, op1.input_tokens, op1.output_tokens) == (1, 30, 10)
    assert (op2.calls, op2.input_tokens, op2.output_tokens) == (2, 53, 10)  # one retry
    total = mem.llm_usage.operations["insight.controller"]
    assert (total.calls, total.input_tokens, total.output_tokens) == (3, 83, 20)
    assert mem.recall("Boil water", k=3).llm_usage.calls == 0
    assert mem.llm_usage.calls == 3  # recall adds nothing
    assert describe_usage(mem.llm_usage, "llm") == (
        "LLM calls: 3 (llm path; 83 input / 20 output tokens; insight.controller 3 (1 failed))")
    mem.reset_llm_usage()
    assert mem.llm_usage.calls == 0


def test_insight_heuristic_path_counts_zero(runner, embedder, namespace) -> None:
    mem = InsightMemory(runner, embedder, namespace)
    result = mem.feedback("Boil water for tea", "resolved", ["fill kettle", "switch on"], [])
    assert result.controller == "heuristic" and result.llm_usage.calls == 0
    assert describe_usage(mem.llm_usage, mem.controller) == "LLM calls: 0 (heuristic path)"


def test_experience_ingest_usage_adds_up(runner, embedder, namespace, sample_data) -> None:
    experts = read_trajectories(sample_data / "scienceworld" / "sciworld_gold_train.jsonl", limit=3)
    exploration = experts[0].model_copy(update={"kind": "exploration", "reward": 0.0,
                                                "steps": experts[0].steps[:3]})
    reply = tool_reply("InsightText", {"insight": "Follow the expert workflow."}, 50, 7)
    mem = ExperienceMemory(runner=runner, embedder=embedder, namespace=namespace,
                           llm=ScriptedChatModel(responses=[reply]))
    report = mem.ingest(experts, explorations=[exploration], k=2, tau=-1.0)
    ops = report.llm_usage.operations
    # one intra-task insight (the task with an exploration) and one cross-task insight per
    # unordered pair of the 3 tasks (k=2, tau=-1 links every pair)
    assert ops["experience.intra_insight"].calls == 1
    assert ops["experience.cross_insight"].calls == 3
    assert report.llm_usage.calls == 4
    assert sum(o.input_tokens for o in ops.values()) == 200
    assert mem.llm_usage == report.llm_usage
    mem.ingest(experts, explorations=[exploration], k=2, tau=-1.0)  # a rebuild renders again
    assert mem.llm_usage.calls == 8
    assert mem.recall(experts[0].query, k=1).llm_usage.calls == 0


def test_cli_prints_llm_summary(runner, embedder, namespace, neo4j_server, sample_data,
                                monkeypatch, tmp_path) -> None:
    from graphmem.cli.experience import app as experience_app
    from graphmem.cli.insight import app as insight_app

    monkeypatch.setenv("NEO4J_URI", neo4j_server["uri"])
    feedback = tmp_path / "feedback.jsonl"
    feedback.write_text(json.dumps({"query": "Boil water for tea", "status": "resolved",
                                    "trajectory": ["fill kettle", "switch on"]}) + "\n")
    out = CliRunner().invoke(insight_app, ["feedback", str(feedback), "--namespace", namespace])
    assert out.exit_code == 0, out.output
    assert "LLM calls: 0 (heuristic path)" in out.output
    out = CliRunner().invoke(insight_app, ["recall", "Boil water", "--namespace", namespace])
    assert out.exit_code == 0 and "LLM calls: 0 (retrieval path)" in out.output
    out = CliRunner().invoke(experience_app, [
        "ingest", str(sample_data / "scienceworld" / "sciworld_gold_train.jsonl"), "--limit", "3",
        "--namespace", namespace])
    assert out.exit_code == 0, out.output
    assert "LLM calls: 0 (heuristic path)" in out.output
