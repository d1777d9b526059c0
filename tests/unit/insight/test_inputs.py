"""Feedback files, feedback validation, dataset records and insight rendering."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from graphmem.cli.main import app as main_app
from graphmem.errors import EmptyTextError, InputFormatError, TrajectoryError, InvalidInputError
from graphmem.insight.datasets import fever_task, load_tasks, scienceworld_task
from graphmem.insight.feedback_file import read_feedback_file
from graphmem.insight.memory import parse_feedback
from graphmem.insight.rendering import render_insight


def _write(tmp_path, lines):
    path = tmp_path / "fb.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_feedback_file_parses_every_line(tmp_path) -> None:
    path = _write(tmp_path, [
        json.dumps({"query": "a", "status": "resolved", "trajectory": ["x"], "retrieved": ["i1"]}),
        "",
        json.dumps({"query": "b", "status": "failed", "task_id": "t2"}),
    ])
    items = read_feedback_file(path)
    assert [(i.query, i.status, i.retrieved, i.task_id) for i in items] == [
        ("a", "resolved", ["i1"], None), ("b", "failed", None, "t2")]


@pytest.mark.parametrize("bad, fragment", [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    (json.dumps({"query": "c", "status": "done"}), "status"),
    (json.dumps({"query": "  ", "status": "failed"}), "query"),
    (json.dumps({"query": "c", "status": "failed", "trajectory": ["ok", " "]}), "trajectory"),
])
def test_malformed_line_names_its_number(tmp_path, bad, fragment) -> None:
    path = _write(tmp_path, [json.dumps({"query": "a", "status": "resolved"}), "", bad])
    with pytest.raises(InputFormatError, match=rf"fb\.jsonl:3: .*{fragment}"):
        read_feedback_file(path)


def test_cli_feedback_reports_the_line_before_connecting(tmp_path) -> None:
    path = _write(tmp_path, [json.dumps({"query": "a", "status": "resolved"}), "oops"])
    out = CliRunner().invoke(main_app, ["insight", "feedback", str(path)])
    assert out.exit_code == 2  # bad input: the same exit code in every command
    assert "fb.jsonl:2" in out.output + (out.stderr or "")


def test_typed_errors_for_bad_feedback() -> None:
    with pytest.raises(EmptyTextError, match="query"):
        parse_feedback({"query": "", "status": "resolved"})
    with pytest.raises(TrajectoryError, match="trajectory"):
        parse_feedback({"query": "q", "status": "resolved", "trajectory": ["a", ""]})
    with pytest.raises(InvalidInputError, match="status"):
        parse_feedback({"query": "q", "status": "maybe"})


def test_fever_record_becomes_a_task() -> None:
    task = fever_task({"id": 1, "verifiable": "VERIFIABLE", "label": "REFUTES",
                       "claim": "Telemundo is a English-language television network.",
                       "evidence": [[[1, 2, "Telemundo", 0], [1, 3, "Hispanic_-LRB-US-RRB-", 4]],
                                    [[9, 9, "Other", 1]]]})
    assert task.status == "resolved" and task.kind == "REFUTES"
    assert task.trajectory == ["search[Telemundo]", "lookup[Telemundo sentence 0]",
                               "search[Hispanic (US)]", "lookup[Hispanic (US) sentence 4]",
                               "finish[REFUTES]"]
    nei = fever_task({"id": 2, "verifiable": "NOT VERIFIABLE", "label": "NOT ENOUGH INFO",
                      "claim": "Tilda Swinton is a vegan.", "evidence": [[[5, None, None, None]]]})
    assert (nei.status, nei.trajectory) == ("failed", ["finish[NOT ENOUGH INFO]"])


def test_scienceworld_record_becomes_a_task() -> None:
    rec = {"id": "10_1", "task_name": "boil", "task_description": "Boil water.",
           "steps": [{"action": "go to kitchen", "score": 10}, {"action": "boil", "score": 100}]}
    task = scienceworld_task(rec)
    assert (task.status, task.kind, task.trajectory) == ("resolved", "boil",
                                                         ["go to kitchen", "boil"])
    rec["steps"][-1]["score"] = 40
    assert scienceworld_task(rec).status == "failed"


def test_load_tasks_from_a_file_and_bad_lines(tmp_path) -> None:
    good = {"id": 3, "verifiable": "VERIFIABLE", "label": "SUPPORTS", "claim": "A is B.",
            "evidence": [[[1, 1, "A", 0]]]}
    path = tmp_path / "claims.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n{\"x\": 1}\n")
    assert len(load_tasks(path, limit=2)) == 2
    with pytest.raises(InputFormatError, match="claims.jsonl:3"):
        load_tasks(path)
    with pytest.raises(InvalidInputError, match="unknown dataset"):
        load_tasks("nope")


def test_render_insight_clips_long_trajectories() -> None:
    text = render_insight("Q?", [f"step {i}" for i in range(20)])
    assert text == ('For tasks like "Q?", this resolved it: step 0 -> step 1 -> step 2 -> step 3 '
                    '-> step 4 -> step 5 -> … -> step 19.')
    with pytest.raises(ValueError):
        render_insight("Q?", [])
