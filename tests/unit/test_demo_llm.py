"""The LLM demo's data slice and its per-operation summary (no database, no model)."""

from __future__ import annotations

from rich.console import Console

from graphmem.demo_llm import _print, _step, _summarise, demo_slice
from graphmem.errors import ControllerError
from graphmem.llm import LLMUsage


def test_demo_slice_is_small_and_bundled() -> None:
    data = demo_slice()
    assert len(data["conversation"].turns) == 6 and data["conversation"].qa == []
    assert len(data["claims"]) == 2 and all(c.strip() for c in data["claims"])
    assert len(data["experts"]) == 1
    exploration = data["explorations"][0]
    assert exploration.kind == "exploration" and exploration.reward == 0.0
    assert exploration.task_id == data["experts"][0].task_id and len(exploration.steps) <= 4


def test_steps_are_tabulated_per_operation_and_failures_shown() -> None:
    rows: list[dict] = []
    usage = LLMUsage()
    usage.record("state.extract", 100, 20)
    usage.record("state.extract", 90, 10)

    def fails() -> LLMUsage:
        raise ControllerError("insight.controller: invalid LLM output after 2 attempts: x")

    _step(rows, "state: ingest", lambda: usage)
    _step(rows, "insight: feedback", fails)
    summary = _summarise(rows, 0.5)
    assert (summary["calls"], summary["input_tokens"], summary["output_tokens"]) == (2, 190, 30)
    assert rows[1]["error"].startswith("insight.controller") and rows[1]["calls"] == 0
    console = Console(record=True, width=160)
    _print(console, summary)
    text = console.export_text()
    assert "state.extract" in text and "failed" in text and "loaded in 0.50 s" in text
